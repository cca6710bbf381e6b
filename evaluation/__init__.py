"""Evaluations and benchmarks, apart from the run-time code: ``eval-models`` (:mod:`.recognition`, with the
extra rows of :mod:`.sets`), ``eval-reconstruction`` (:mod:`.reconstruction`), ``eval-video`` (:mod:`.video`),
``python -m evaluation.threshold`` and ``python -m evaluation.live_pipeline``. Run-time packages (assistant,
vision, webui) never import it; its commands reach ``mahjong-assistant`` through the
``mahjong_assistant.commands`` entry point (:mod:`.cli`)."""
