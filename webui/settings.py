"""Settings: rule system and table options, teaching mode, the player's seat, the current match."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, request

from .engine import variants_info
from .errors import json_body

bp = Blueprint("settings", __name__)


@bp.get("/settings")
def page():
    return render_template("settings.html")


@bp.get("/api/settings")
def get():
    hub = current_app.extensions["hub"]
    return jsonify({"settings": hub.settings.get(), "variants": variants_info(), "note": hub.feed.settings_note()})


@bp.route("/api/settings", methods=["PUT", "POST", "PATCH"])
def put():
    """Change some settings: ``{"variant": "sanma", "options": {"kuikae": "allowed"}, "teaching": true, "me": 0}``.
    Changing the rule system without ``options`` resets them to its defaults."""
    hub = current_app.extensions["hub"]
    data = json_body()
    settings = hub.settings.update(data)
    if request.method and {"variant", "options"} & set(data):
        hub.settings_changed()
    return jsonify({"settings": settings})
