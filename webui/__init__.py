"""The web app: live table view with corrections, analysis, score sheet, settings, calibration, photos.

``create_app(config)`` builds the Flask app (see :mod:`webui.app` for the configuration keys);
``serve(...)`` runs it; ``register(subparsers)`` adds ``mahjong-assistant serve``. The camera pipeline
plugs in through :class:`webui.feed.TableFeed`.
"""

from typing import Any

_WHERE = {"create_app": "app", "register": "cli", "serve": "cli", "CameraFeed": "feed",
          "RecognitionUnavailable": "feed", "ScriptedDemoFeed": "feed", "TableFeed": "feed"}


def __getattr__(name: str) -> Any:
    """The names above, imported on first use (``mahjong-assistant --help`` and the engine's commands never
    load Flask)."""
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CameraFeed", "RecognitionUnavailable", "ScriptedDemoFeed", "TableFeed", "create_app", "register",
           "serve"]
