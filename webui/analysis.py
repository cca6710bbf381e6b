"""Analysis API: rule systems, a table state's full analysis, typed hands and scoring."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from .engine import read_state, table_view, typed_hand, typed_score, variants_info, win_view
from .errors import ApiError, get_bool, get_int, json_body

bp = Blueprint("analysis", __name__, url_prefix="/api")


@bp.get("/variants")
def variants():
    return jsonify({"variants": variants_info()})


@bp.post("/analysis/state")
def state():
    """``{"state": {...}, "me": 0, "teaching": false, "win": {...}?}`` -> the live page's view of it."""
    data = json_body()
    st = read_state(data.get("state"))
    me = get_int(data, "me", 0, lo=0, hi=st.players - 1)
    win = data.get("win")
    if win is not None:
        win_view(st, win)  # validates it (ApiError) before the view swallows nothing
    return jsonify(table_view(st.to_json(), me=me, teaching=get_bool(data, "teaching"), win=win))


@bp.post("/analysis/hand")
def hand():
    """A typed hand: ``{"hand": "234p567p99p45s789s", "variant": "sanma", "visible": "", "options": {}}``."""
    return jsonify(typed_hand(json_body()))


@bp.post("/analysis/score")
def score():
    """Scoring of a win: ``{"state": {...}, "win": {"seat", "tile", "tsumo"}}`` on a table, or a typed
    hand ``{"hand", "win_tile", "tsumo" | "ron_from", "variant", "seat", "round_wind", "dora", ...}``."""
    data = json_body()
    if "state" in data:
        st = read_state(data["state"])
        if "win" not in data:
            raise ApiError("'win' is missing: {seat, tile, tsumo}", field="win")
        return jsonify(win_view(st, data["win"]))
    if "hand" not in data:
        raise ApiError("give a table 'state' with a 'win', or a typed 'hand' with its 'win_tile'", field="hand")
    return jsonify(typed_score(data))


@bp.get("/analysis/live-win")
def live_win():
    """The scoring of the win now on the live table (404 when there is none)."""
    hub = current_app.extensions["hub"].start()
    _, payload, _ = hub.current()
    win = (payload or {}).get("view", {}).get("win")
    if not win:
        raise ApiError("there is no win on the table right now", 404)
    return jsonify(win)
