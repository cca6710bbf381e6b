"""The web app: live table view with corrections, analysis, score sheet, settings, calibration, photos.

``create_app(config)`` builds the Flask app (see :mod:`webui.app` for the configuration keys);
``serve(...)`` runs it; ``register(subparsers)`` adds ``mahjong-assistant serve``. The camera pipeline
plugs in through :class:`webui.feed.TableFeed`.
"""

from .app import create_app
from .cli import register, serve
from .feed import CameraFeed, RecognitionUnavailable, ScriptedDemoFeed, TableFeed

__all__ = ["CameraFeed", "RecognitionUnavailable", "ScriptedDemoFeed", "TableFeed", "create_app", "register",
           "serve"]
