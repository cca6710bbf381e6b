"""The evaluation commands for ``mahjong-assistant`` (the ``mahjong_assistant.commands`` entry point)."""

from __future__ import annotations

#: the commands :func:`register` adds (name -> help): ``mahjong-assistant`` lists them without loading them
COMMANDS = {
    "eval-models": "evaluate the tile models (synthetic, real crops, real scenes, latency)",
    "eval-reconstruction": "how often generated tables are reconstructed exactly",
    "eval-video": "how often the events of generated hands are inferred exactly",
    "eval-learning": "learning a set from corrected photos: its other photos before/after",
}


def register(sub) -> None:  # type: ignore[no-untyped-def]
    from . import recognition, reconstruction, set_learning, video

    recognition.register(sub)
    reconstruction.register(sub)
    video.register(sub)
    set_learning.register(sub)


__all__ = ["COMMANDS", "register"]
