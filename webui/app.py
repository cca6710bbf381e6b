"""The Flask application factory: ``create_app(config)``.

Configuration keys (``app.config``; every one has a default):

========================  ==========================================================================
``FEED``                  a :class:`webui.feed.TableFeed` (default: the scripted demo)
``VARIANT``               the rule system the table plays at start (default ``sanma``)
``MATCH_DB``              the match database (default: as ``mahjong-assistant match``)
``DATA_DIR``              where the server keeps its files (``~/.local/share/mahjong-assistant/web``)
``CORRECTIONS_DIR``       corrections for finetuning: ``corrections.jsonl`` + ``crops/`` (``DATA_DIR/corrections``)
``CALIBRATION_DIR``       table corners per camera, one JSON file each (``DATA_DIR/calibration``)
``SETTINGS_FILE``         where the settings page keeps its choices (None: in memory only)
``ANALYZE_IMAGE``         ``analyze_image(bytes) -> snapshot`` for the photo page (default: ``analyze_photo``)
``ACCESS_TOKEN``          required on every request when set (cookie, ``?token=`` or ``X-Access-Token``)
``MAX_CONTENT_LENGTH``    upload limit in bytes (8 MB)
``TILES_DIR``             the tile images (default ``webui/static/tiles``, built by ``python -m datasets.assets.tiles``)
``DEMO_STEP_SECONDS``     seconds per step of the demo hand (2.0)
``STREAM_FPS``            frames per second sent to each MJPEG viewer at most (10)
========================  ==========================================================================
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from .auth import install_token_check
from .errors import register_error_handlers

DEFAULT_DATA_DIR = Path.home() / ".local" / "share" / "mahjong-assistant" / "web"


def analyze_photo(data: bytes) -> dict[str, Any]:
    """The default ``ANALYZE_IMAGE``: :func:`vision.live.photo_snapshot` with the settings' rule system and
    the calibration folder; :class:`~webui.feed.RecognitionUnavailable` when the models do not load."""
    from flask import current_app, has_app_context

    from .feed import MODELS_MISSING, RecognitionUnavailable

    try:
        from vision.inference import default_recognizer

        rec = default_recognizer()
    except Exception as e:  # noqa: BLE001 - model files missing, onnxruntime missing or a broken model
        raise RecognitionUnavailable(f"{MODELS_MISSING} ({type(e).__name__}: {e})") from None
    from vision.inference import ImageError
    from vision.live import photo_snapshot

    variant, cal_dir = "sanma", None
    if has_app_context():
        from flask import g

        # the rule system the user picked for this photo, else the settings' one
        chosen = getattr(g, "photo_variant", None)
        variant = chosen or current_app.extensions["hub"].settings.get().get("variant", variant)
        cal_dir = current_app.config.get("CALIBRATION_DIR")
    try:
        return photo_snapshot(data, variant, "photo", cal_dir, rec).to_json()   # the page's JSON
    except ImageError as e:
        from .errors import ApiError

        raise ApiError(str(e), 415, "image") from None


def _defaults() -> dict[str, Any]:
    from assistant.match.db import default_target

    data = Path(os.environ.get("MAHJONG_ASSISTANT_WEB_DATA", DEFAULT_DATA_DIR))
    return {
        "FEED": None, "VARIANT": "sanma", "MATCH_DB": default_target(), "DATA_DIR": str(data),
        "CORRECTIONS_DIR": None, "CALIBRATION_DIR": None, "SETTINGS_FILE": None,
        "ANALYZE_IMAGE": analyze_photo, "ACCESS_TOKEN": None, "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
        "TILES_DIR": None, "DEMO_STEP_SECONDS": 2.0, "STREAM_FPS": 10.0, "TILE_CACHE_SECONDS": 86400,
    }


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the web app. ``config`` overrides the defaults above (tests pass temporary directories)."""
    app = Flask(__name__)
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False  # keep the engine's field order (players in seat order)
    app.config.update(_defaults())
    if config:
        app.config.update(config)
    data = Path(app.config["DATA_DIR"])
    app.config["CORRECTIONS_DIR"] = str(app.config["CORRECTIONS_DIR"] or data / "corrections")
    app.config["CALIBRATION_DIR"] = str(app.config["CALIBRATION_DIR"] or data / "calibration")

    from .feed import ScriptedDemoFeed
    from .hub import CorrectionStore, LiveHub, Settings

    feed = app.config["FEED"] or ScriptedDemoFeed(step_seconds=float(app.config["DEMO_STEP_SECONDS"]))
    app.config["FEED"] = feed
    settings = Settings(app.config["VARIANT"], app.config["SETTINGS_FILE"])
    app.extensions["hub"] = LiveHub(feed, settings)
    app.extensions["corrections"] = CorrectionStore(app.config["CORRECTIONS_DIR"])

    register_error_handlers(app)
    install_token_check(app)

    from . import analysis, calibration, club, live, match, tiles, tilesets, upload
    from . import settings as settings_bp

    for bp in (live.bp, analysis.bp, match.bp, settings_bp.bp, calibration.bp, upload.bp, tiles.bp, tilesets.bp,
               club.bp):
        app.register_blueprint(bp)

    @app.context_processor
    def _nav() -> dict[str, Any]:
        return {"nav": [("live.page", "Live"), ("match.page", "Score sheet"), ("upload.page", "Photo / hand"),
                        ("settings.page", "Settings"), ("calibration.page", "Calibration"),
                        ("tilesets.page", "Your tiles"), ("club.page", "Club")]}

    return app


def hub(app: Flask | None = None):
    """The app's :class:`~webui.hub.LiveHub`."""
    from flask import current_app

    return (app or current_app).extensions["hub"]


__all__ = ["create_app", "hub"]
