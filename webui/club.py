"""The club page: every table playing now and the standings across matches, live.

``GET /api/club`` (``?league=`` or ``?tournament=``, ``&since=2026-12-01``) gives the tables, the standings and
the tournament checks as JSON; ``GET /api/club/events`` streams the same as Server-Sent Events (``club``), sent
again whenever any table records an event, so a hand recorded at table 3 shows in the standings at once.

Every viewer shares one :class:`ClubWatcher`: ONE connection to the ledger, polled every ``CLUB_POLL_SECONDS``
(0.1 s by default: one indexed ``MAX(id)`` query) by one thread while anyone watches, whatever the number of
viewers; the page's data is computed once per selection and ledger version and sent to all of them, and each
match is folded again only when its own log grew (only its new events when nothing was corrected). At most
``CLUB_MAX_VIEWERS`` (256) streams at once; one more is told to come back later (429). When the ledger cannot be
reached, each stream says so (``unavailable``, with the reason) and carries on when it is back.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from assistant.match.club import problems_of, standings_of, tables
from assistant.match.db import db_error_text, scrub
from assistant.match.events import MatchError
from assistant.match.store import Store

from .errors import ApiError
from .live import NO_CACHE

bp = Blueprint("club", __name__)
T = TypeVar("T")

MAX_VIEWERS = 256     # club streams open at once (each holds one of the server's threads)
MAX_SELECTIONS = 32   # selections (league, tournament, since) whose page data is kept
HEARTBEAT_SECONDS = 15.0


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


class ClubWatcher:
    """The one watcher of the ledger that every club viewer shares.

    It holds one :class:`~assistant.match.store.Store` (so one database connection, and the per-match cache of
    records and states that :meth:`Store.load_all` keeps up to date) for every ``/api/club`` request and stream,
    used by one caller at a time. While at least one stream is open, one thread polls the ledger's latest event
    id every ``poll`` seconds and wakes the streams when it changes or when the ledger goes away or comes back.
    A database error closes the connection (the next use opens a new one) and is the reason the viewers are
    given; it is never raised in a stream."""

    def __init__(self, target: Any, poll: float = 0.1, max_viewers: int = MAX_VIEWERS,
                 open_store: Callable[[Any], Store] | None = None) -> None:
        self.target = target
        self.poll = poll
        self.max_viewers = max_viewers
        self._open_store = open_store or (lambda target: Store(target))
        self._lock = threading.Lock()        # the store: one user at a time
        self._cond = threading.Condition()   # what the viewers wait for: a new tick
        self._store: Store | None = None
        self._views: dict[tuple[str | None, ...], dict[str, Any]] = {}
        self._tick = 0                       # grows whenever the ledger's version or its availability changes
        self._version: int | None = None
        self._problem: str | None = None
        self._viewers = 0
        self._thread: threading.Thread | None = None
        self.opened = 0                      # connections opened so far (one, while the ledger stays up)

    # --- the shared store ------------------------------------------------------------------------------
    def _use(self, fn: Callable[[Store], T]) -> T:
        """``fn(store)`` on the shared store. ApiError 503 (with the reason, passwords hidden) when the ledger
        cannot be reached; the broken connection is dropped, so that the next call opens a new one."""
        with self._lock:
            if self._store is None:
                try:
                    self._store = self._open_store(self.target)
                except MatchError as e:
                    raise ApiError(f"the match ledger is not available: {scrub(str(e))}", 503) from None
                except Exception as e:
                    text = db_error_text(e)
                    if text is None:
                        raise
                    raise ApiError(f"the match ledger is not available: {text}", 503) from None
                self.opened += 1
            try:
                return fn(self._store)
            except Exception as e:
                text = db_error_text(e)
                if text is None:
                    raise
                self._drop()
                raise ApiError(f"match ledger error: {text}", 503) from None

    def _drop(self) -> None:
        store, self._store = self._store, None
        self._views.clear()
        if store is not None:
            try:
                store.close()
            except Exception:  # noqa: BLE001 - a connection already broken may fail to close
                pass

    def view(self, sel: dict[str, str | None]) -> dict[str, Any]:
        """The page's data for ``sel``, computed once per ledger version (and shared by every viewer)."""
        key = (sel["league"], sel["tournament"], sel["since"])

        def compute(st: Store) -> dict[str, Any]:
            cached = self._views.get(key)
            if cached is not None and cached["version"] == st.last_event_id():
                return cached
            data = club_view(st, sel)
            self._views.pop(key, None)
            self._views[key] = data
            while len(self._views) > MAX_SELECTIONS:
                self._views.pop(next(iter(self._views)))
            return data

        return self._use(compute)

    # --- the viewers -------------------------------------------------------------------------------------
    def join(self) -> Callable[[], None]:
        """Count one more stream (ApiError 429 when :attr:`max_viewers` are open) and start the poller; returns
        the function that counts it out again (safe to call twice)."""
        with self._cond:
            if self._viewers >= self.max_viewers:
                raise ApiError(f"the club page has {self._viewers} live viewers already, as many as this server "
                               "takes: try again in a minute (GET /api/club gives the same data once)", 429)
            self._viewers += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="club-watcher", daemon=True)
                self._thread.start()
        left = threading.Event()

        def leave() -> None:
            if not left.is_set():
                left.set()
                with self._cond:
                    self._viewers -= 1
                    self._cond.notify_all()

        return leave

    @property
    def viewers(self) -> int:
        return self._viewers

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._viewers <= 0:
                    self._thread = None
                    return
            try:
                version, problem = self._use(lambda st: st.last_event_id()), None
            except ApiError as e:
                version, problem = None, e.message
            except Exception as e:  # noqa: BLE001 - the poller keeps going; the viewers hear why
                version, problem = None, f"the match ledger is not available: {type(e).__name__}: {scrub(str(e))}"
            with self._cond:
                if (version is not None and version != self._version) or problem != self._problem:
                    if version is not None:
                        self._version = version
                    self._problem = problem
                    self._tick += 1
                    self._cond.notify_all()
            time.sleep(self.poll if problem is None else max(self.poll, 1.0))

    def wait(self, after: int, timeout: float) -> tuple[int, str | None]:
        """Block until the tick is past ``after`` (or ``timeout``): ``(tick, reason the ledger is unavailable)``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._tick <= after:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._tick, self._problem

    @property
    def tick(self) -> int:
        return self._tick

    def close(self) -> None:
        with self._lock:
            self._drop()


_create_lock = threading.Lock()


def watcher() -> ClubWatcher:
    """The app's :class:`ClubWatcher` (made on first use)."""
    app = current_app
    w = app.extensions.get("club")
    if w is None:
        with _create_lock:
            w = app.extensions.get("club")
            if w is None:
                w = ClubWatcher(app.config["MATCH_DB"], poll=float(app.config.get("CLUB_POLL_SECONDS", 0.1)),
                                max_viewers=int(app.config.get("CLUB_MAX_VIEWERS", MAX_VIEWERS)))
                app.extensions["club"] = w
    return w


@bp.get("/club")
def page():
    return render_template("club.html")


@bp.get("/api/club")
def club():
    return jsonify(watcher().view(_selection()))


def _sse(event: str, data: dict[str, Any], id_: int | None = None) -> str:
    return (f"id: {id_}\n" if id_ is not None else "") + f"event: {event}\ndata: {json.dumps(data)}\n\n"


@bp.get("/api/club/events")
def events():
    """Server-Sent Events: ``club`` with the page's data, first at once, then after every recorded event;
    ``unavailable`` (``{"error": reason}``) while the ledger cannot be reached."""
    sel = _selection()
    w = watcher()
    leave = w.join()  # 429 when the server has as many viewers as it takes
    try:
        tick = w.tick
        first = w.view(sel)  # a ledger that cannot be reached is a 503 here, before the stream starts
    except BaseException:
        leave()
        raise

    def gen() -> Iterator[str]:
        seen, sent, down = tick, first["version"], None
        yield "retry: 2000\n" + _sse("club", first, first["version"])
        while True:
            now, problem = w.wait(seen, HEARTBEAT_SECONDS)
            if now == seen:
                yield ": still here\n\n"
                continue
            seen = now
            if problem is None:
                try:
                    data = w.view(sel)
                except (ApiError, MatchError) as e:
                    problem = e.message if isinstance(e, ApiError) else str(e)
                else:
                    if data["version"] != sent or down is not None:
                        sent, down = data["version"], None
                        yield _sse("club", data, sent)
                    continue
            if problem != down:
                down = problem
                yield _sse("unavailable", {"error": problem})

    resp = Response(gen(), mimetype="text/event-stream", headers=NO_CACHE)
    resp.call_on_close(leave)
    return resp
