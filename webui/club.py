"""The club page: every table playing now and the standings across matches, live.

``GET /api/club`` (``?league=`` or ``?tournament=``, ``&since=2026-12-01``) gives the tables, the standings and
the tournament checks as JSON; ``GET /api/club/events`` streams the same as Server-Sent Events (``club``), sent
again whenever any table records an event (the ledger is polled every ``CLUB_POLL_SECONDS``, 0.1 s by default:
one indexed ``MAX(id)`` query), so a hand recorded at table 3 shows in the standings at once.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from assistant.match.club import problems_of, standings_of, tables
from assistant.match.store import Store

from .errors import ApiError
from .live import NO_CACHE
from .match import store

bp = Blueprint("club", __name__)


def _selection() -> dict[str, str | None]:
    args = request.args
    league, tournament, since = args.get("league") or None, args.get("tournament") or None, args.get("since") or None
    if league and tournament:
        raise ApiError("choose a league or a tournament, not both", field="league")
    for key, value in (("league", league), ("tournament", tournament)):
        if value is not None and len(value) > 64:
            raise ApiError(f"'{key}' is too long (at most 64 characters)", field=key)
    if since is not None:
        try:
            (dt.datetime if "T" in since else dt.date).fromisoformat(since)
        except ValueError:
            raise ApiError(f"'since' must be a date like 2026-12-01, got {since[:40]!r}", field="since") from None
    return {"league": league, "tournament": tournament, "since": since}


def club_view(st: Any, sel: dict[str, str | None]) -> dict[str, Any]:
    """The page's data: tables (playing first, then finished, most recent first), standings, checks."""
    version = st.last_event_id()
    every = st.matches()
    rows = tables(st, **sel)
    rows.sort(key=lambda t: t.state.finished)  # playing first; stable, so most recently active first within
    return {
        **sel,
        "version": version,
        "tables": [t.to_json() for t in rows],
        "standings": [t.to_json() for t in standings_of(rows)],
        "problems": [str(p) for p in problems_of(rows, sel["tournament"] is not None)],
        "leagues": sorted({m.league for m in every if m.league}),
        "tournaments": sorted({m.tournament for m in every if m.tournament}),
    }


@bp.get("/club")
def page():
    return render_template("club.html")


@bp.get("/api/club")
def club():
    sel = _selection()
    with store() as st:
        return jsonify(club_view(st, sel))


@bp.get("/api/club/events")
def events():
    """Server-Sent Events: ``club`` with the page's data, first at once, then after every recorded event."""
    sel = _selection()
    poll = float(current_app.config.get("CLUB_POLL_SECONDS", 0.1))
    with store() as st:  # a ledger that cannot be reached is a 503 here, before the stream starts
        first = club_view(st, sel)
    target = current_app.config["MATCH_DB"]

    def gen():
        yield f"retry: 2000\nid: {first['version']}\nevent: club\ndata: {json.dumps(first)}\n\n"
        st = Store(target)
        try:
            version = first["version"]
            last_beat = time.monotonic()
            while True:
                time.sleep(poll)
                v = st.last_event_id()
                if v != version:
                    version = v
                    yield f"id: {v}\nevent: club\ndata: {json.dumps(club_view(st, sel))}\n\n"
                    last_beat = time.monotonic()
                elif time.monotonic() - last_beat > 15:
                    last_beat = time.monotonic()
                    yield ": still here\n\n"
        finally:
            st.close()

    return Response(gen(), mimetype="text/event-stream", headers=NO_CACHE)
