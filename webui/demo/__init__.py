"""The bundled demo hand, as files the page reads: ``demo.json`` and ``frames/`` (the scripted demo, read by
:class:`webui.feed.ScriptedDemoFeed`) and ``film/`` (the demo film, read by :mod:`webui.demo.film`). They are
built ahead of time by ``python -m datasets.assets.demo`` and ``python -m datasets.assets.film``."""
