"""Match / score-sheet API and page: the same store, events and exports as ``mahjong-assistant match``.

``current`` stands for the match chosen in the settings, else the one most recently written to.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from assistant.match import MatchError, Riichi, Store, Undo, Win, WinClaim
from assistant.match.db import db_error_text, scrub
from assistant.match.events import Event, HandSpec
from assistant.match.export import log_to_json, state_json, to_csv
from assistant.match.rules import RULES
from assistant.match.state import last_undoable

from .engine import check_options, hand_spec, read_state, read_win, win_view
from .errors import ApiError, get_bool, get_obj, get_str, json_body

bp = Blueprint("match", __name__)


@contextmanager
def store(readonly: bool = False):
    """The match ledger for one request. A ledger that cannot be reached (a server down, a schema to migrate)
    is a 503 with the reason, never a traceback."""
    try:
        st = Store(current_app.config["MATCH_DB"], readonly=readonly)
    except MatchError as e:
        if readonly and str(e).startswith("no match database"):
            raise ApiError("no match yet: start one on the score sheet", 404) from None
        raise ApiError(f"the match ledger is not available: {scrub(str(e))}", 503) from None
    except Exception as e:
        text = db_error_text(e)
        if text is not None:
            raise ApiError(f"the match ledger is not available: {text}", 503) from None
        raise
    try:
        yield st
    except Exception as e:
        text = db_error_text(e)
        if text is not None:
            raise ApiError(f"match ledger error: {text}", 503) from None
        raise
    finally:
        st.close()


def author(data: dict[str, Any]) -> str:
    """Who records from the page: the ``by`` the device sends (its name), else ``web`` and the address."""
    by = get_str(data, "by", max_len=64)
    return by.strip() if by and by.strip() else f"web {request.remote_addr or ''}".strip()


def resolve(st: Store, match_id: str) -> str:
    if match_id == "current":
        chosen = current_app.extensions["hub"].settings.get().get("match")
        if chosen and st.exists(chosen):
            return chosen
        try:
            return st.resolve(None)
        except MatchError:
            raise ApiError("no match yet: start one on the score sheet", 404) from None
    try:
        return st.resolve(match_id)
    except MatchError as e:
        raise ApiError(str(e), 404) from None


def _sheet(st: Store, mid: str) -> dict[str, Any]:
    state = st.state(mid)
    out = state_json(state, mid)
    records = st.records(mid)
    try:
        target = last_undoable(records)
        ev = next(r.event for r in records if r.seq == target)
        out["undo"] = {"event": target, "type": ev.type}
    except MatchError:
        out["undo"] = None
    out["events"] = len(records)
    return out


@bp.get("/match")
def page():
    return render_template("match.html")


@bp.get("/api/matches")
def list_matches():
    with store() as st:
        return jsonify({"matches": [{"id": m.id, "variant": m.variant, "players": list(m.players),
                                     "events": m.events, "last_time": m.last_time, "table": m.table,
                                     "session": m.session} for m in st.matches()],
                        "variants": sorted(RULES)})


@bp.post("/api/matches")
def create():
    """``{"variant": "sanma", "players": ["Ann", "Bob", "Cid"], "options": {}}`` -> a new match (now current)."""
    data = json_body()
    variant = get_str(data, "variant", current_app.extensions["hub"].settings.get()["variant"])
    if variant not in RULES:
        raise ApiError(f"unknown rule system {variant!r}; choose one of: {', '.join(sorted(RULES))}",
                       field="variant")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise ApiError("'players' must be a list of names, the first deals", field="players")
    players = [p.strip()[:32] for p in players]
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ApiError("'options' must be a JSON object", field="options")
    engine_opts = {k: v for k, v in options.items() if k in _variant_options(variant)}
    check_options(variant, engine_opts)
    club = {k: get_str(data, k, max_len=64) for k in ("table", "session", "league", "tournament")}
    with store() as st:
        try:
            mid = st.create_match(variant, players, options, by=author(data), **club)
        except (MatchError, ValueError) as e:
            raise ApiError(str(e), 422) from None
        current_app.extensions["hub"].settings.update({"match": mid})
        return jsonify(_sheet(st, mid)), 201


def _variant_options(variant: str) -> set[str]:
    from assistant.variants import get_variant

    return set(get_variant(variant).options)


@bp.get("/api/matches/<match_id>")
def show(match_id: str):
    with store() as st:
        mid = resolve(st, match_id)
        try:
            return jsonify(_sheet(st, mid))
        except MatchError as e:
            raise ApiError(str(e), 422) from None


@bp.post("/api/matches/<match_id>/win")
def record_win(match_id: str):
    """Record a win scored from a table: ``{"live": true}`` (the win now on the live table) or
    ``{"state": {...}, "win": {"seat", "tile", "tsumo"}}``. Riichi declared on the table but not yet in
    the match is recorded first (its stick). All events are checked before anything is written."""
    data = json_body()
    key: str | None   # one moment of the table: a win recorded twice is refused
    if get_bool(data, "live"):
        hub = current_app.extensions["hub"].start()
        _, payload, _ = hub.current()
        payload = payload or {}
        win, state_data = (payload.get("snapshot") or {}).get("win"), payload.get("state")
        if not win or not state_data:
            raise ApiError("there is no win on the live table right now", 409)
        key = f"live:{(payload.get('snapshot') or {}).get('camera')}:{(payload.get('snapshot') or {}).get('time')}:" \
              f"{win.get('seat')}:{win.get('tile')}"
    else:
        state_data = get_obj(data, "state", required=True)
        win = get_obj(data, "win", required=True)
        client_key = get_str(data, "key", max_len=200)
        key = None if client_key is None else "client:" + client_key
    table = read_state(state_data)
    seat, tile, tsumo = read_win(table, win)
    view = win_view(table, {"seat": seat, "tile": tile.code, "tsumo": tsumo})
    if not view.get("recordable"):
        raise ApiError(f"this win cannot be recorded: {view.get('why_not') or view.get('verdict')}", 422)
    with store() as st:
        mid = resolve(st, match_id)
        mstate = st.state(mid)
        if mstate.variant != table.variant.name:
            raise ApiError(f"the match plays {mstate.variant} but the table {table.variant.name}", 409)
        if mstate.n != table.players:
            raise ApiError(f"the match has {mstate.n} players but the table {table.players}", 409)
        if mstate.finished:
            raise ApiError(f"the match is finished ({mstate.end_reason})", 409)
        events: list[Event] = []
        for s in range(table.players):
            if table.seats[s].in_riichi and mstate.players.index(mstate.player_at(s)) not in mstate.riichi:
                events.append(Riichi(mstate.player_at(s)))
        try:
            spec = HandSpec.from_json(hand_spec(table, seat, tile, tsumo))
            disc = None if tsumo else mstate.player_at(table.discarder)
            events.append(Win((WinClaim(mstate.player_at(seat), hand=spec),), disc))
            # checked and written in one transaction, once per moment of the table (key)
            seqs = [r.seq for r in st.append_all(mid, events, key=key, by=author(data))]
        except MatchError as e:
            if str(e).startswith("already recorded"):
                raise ApiError("this win is already recorded in the match (undo it first to record it again)",
                               409) from None
            raise ApiError(f"the match refused this win: {e}", 422) from None
        except ValueError as e:
            raise ApiError(f"the match refused this win: {e}", 422) from None
        return jsonify({"recorded": seqs, "match": _sheet(st, mid)})


@bp.post("/api/matches/<match_id>/undo")
def undo(match_id: str):
    """Void the latest event in force (``{"event": N}`` for another one)."""
    data = json_body(required=False)
    with store() as st:
        mid = resolve(st, match_id)
        records = st.records(mid)
        target = data.get("event")
        if target is not None and (isinstance(target, bool) or not isinstance(target, int)):
            raise ApiError("'event' must be an event number", field="event")
        try:
            target = target if target is not None else last_undoable(records)
            rec = st.append(mid, Undo(target), by=author(data))
        except MatchError as e:
            raise ApiError(str(e), 409) from None
        return jsonify({"undone": target, "seq": rec.seq, "match": _sheet(st, mid)})


@bp.get("/api/matches/<match_id>/export.csv")
def export_csv(match_id: str):
    with store() as st:
        mid = resolve(st, match_id)
        text = to_csv(st.state(mid))
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="match-{mid}.csv"'})


@bp.get("/api/matches/<match_id>/export.json")
def export_json(match_id: str):
    with store() as st:
        mid = resolve(st, match_id)
        text = json.dumps(log_to_json(mid, st.records(mid), st.info(mid).club()), indent=2) + "\n"
    return Response(text, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="match-{mid}.json"'})
