"""The match ledger: one append-only events table, the state rebuilt from the log on open.

The ledger lives in a SQLite file (the default: ``$MAHJONG_ASSISTANT_DB``, else
``~/.local/share/mahjong-assistant/matches.db``) or on a PostgreSQL server (``--db postgresql://USER@HOST/DB``
or the same URL in ``$MAHJONG_ASSISTANT_DB``): :mod:`.db` opens either. SQLite runs with ``journal_mode=WAL``
and ``synchronous=FULL``: once :meth:`Store.append` returns, the event is on disk and survives a crash or a
killed process. Every event is validated against the folded state inside the writing transaction (SQLite
``BEGIN IMMEDIATE``, PostgreSQL ``SERIALIZABLE``), so two writers cannot both append sequence number *n*; a
rejected event is not written. Triggers refuse UPDATE and DELETE on events.

A match may name the club ``table`` it is played at, the ``session`` (an evening, a tournament round), and the
``league`` or ``tournament`` it counts for (:mod:`.club` adds up standings over them); every event keeps who
recorded it (``by``).

>>> import tempfile, os
>>> from assistant.match.events import Riichi
>>> path = os.path.join(tempfile.mkdtemp(), "m.db")
>>> with Store(path) as st:
...     mid = st.create_match("sanma", ["A", "B", "C"], match_id="demo")
...     rec = st.append(mid, Riichi("A"))
...     (rec.seq, st.state(mid).sticks)
(2, 1)
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .db import DB_ENV, SCHEMA_VERSION, Backend, connect, default_target, is_url
from .events import Event, MatchCreated, MatchError, event_from_parts
from .state import MatchState, Record, active_seqs, fold, next_state, now

NAME_LIMIT = 64  # table, session, league, tournament and author names


def default_db_path() -> Path:
    """``$MAHJONG_ASSISTANT_DB`` if set (and a path), else ``~/.local/share/mahjong-assistant/matches.db``."""
    target = default_target()
    if is_url(target):
        raise MatchError(f"${DB_ENV} names a PostgreSQL server, not a file")
    return Path(target)


@dataclass(frozen=True)
class MatchInfo:
    """A line of ``match list``, with where the match is played and what it counts for."""

    id: str
    variant: str
    players: tuple[str, ...]
    created: str
    events: int
    last_time: str
    table: str | None = None
    session: str | None = None
    league: str | None = None
    tournament: str | None = None

    def club(self) -> dict[str, str | None]:
        """Where the match is played and what it counts for, as the JSON export writes it."""
        return {"table": self.table, "session": self.session, "league": self.league, "tournament": self.tournament}


def _name(what: str, value: str | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise MatchError(f"the {what} name must be a non-empty word or phrase")
    value = value.strip()
    if len(value) > NAME_LIMIT or not value.isprintable():  # no control characters, no terminal escapes
        raise MatchError(f"the {what} name must be at most {NAME_LIMIT} printable characters")
    return value


MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
RESERVED_IDS = ("current",)  # the page's name for the match chosen in the settings


def check_match_id(value: Any) -> str:
    """A new match's id: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit (it goes into
    file names, web addresses and terminals as it is)."""
    if not isinstance(value, str) or not MATCH_ID.fullmatch(value):
        shown = json.dumps(value)[:40] if isinstance(value, str) else type(value).__name__
        raise MatchError(f"a match id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; "
                         f"got {shown}")
    if value in RESERVED_IDS:
        raise MatchError(f"{value!r} cannot be a match id: the page uses it for the match chosen in the settings")
    return value


def check_time(value: Any, what: str = "an event's time") -> str:
    """An event's time as the ledger keeps it: ISO 8601 with its UTC offset, stored in UTC (so that text order is
    time order, as ``--since`` relies on)."""
    import datetime as dt

    parsed = None
    if isinstance(value, str) and len(value) <= 40:
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            parsed = None
    if parsed is None or parsed.tzinfo is None:
        shown = json.dumps(value)[:40] if isinstance(value, str) else type(value).__name__
        raise MatchError(f"{what} must be a date and time with its UTC offset, like 2026-12-04T19:30:00+00:00; "
                         f"got {shown}")
    return parsed.astimezone(dt.UTC).isoformat()


def _advance(records: list[Record], state: MatchState, new: Sequence[Record]) -> MatchState:
    """The state after ``new`` records that follow ``records`` (folded to ``state``): only the new events are
    applied, unless one is a correction (undo, edit), which the whole log is folded again for."""
    if any(r.event.is_correction for r in new):
        return fold(records + list(new))
    done = list(records)
    try:
        for r in new:
            state = next_state(done, state, r.event)
            done.append(r)
    except MatchError:
        return fold(records + list(new))  # the message names the failing event, as a full fold does
    return state


class Store:
    """The match ledger. ``target``: a SQLite path or a ``postgresql://`` URL (default ``$MAHJONG_ASSISTANT_DB``,
    else the per-user file). Use as a context manager, or call :meth:`close`."""

    def __init__(self, target: str | os.PathLike[str] | None = None, readonly: bool = False) -> None:
        """``readonly``: open an existing ledger for reading only (MatchError when there is none, or the file
        is not a match database); nothing is created or changed."""
        self.db: Backend = connect(target, readonly=readonly)
        self.conn = self.db.conn
        self.path: Path | str = Path(self.db.where) if self.db.dialect == "sqlite" else self.db.where
        self.readonly = readonly
        self.version = self.db.version()
        self._cache: dict[str, tuple[list[Record], MatchState]] = {}

    # --- context manager ---------------------------------------------------------------------------
    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading -----------------------------------------------------------------------------------
    def _read_records(self, match_id: str, after: int = 0) -> list[Record]:
        author = "author" if self.version >= 2 else "''"
        rows = self.db.query(
            f"SELECT seq, type, payload, time, {author} FROM events WHERE match_id = ? AND seq > ? ORDER BY seq",
            (match_id, after))
        out = []
        for seq, kind, payload, time, by in rows:
            try:
                event = event_from_parts(kind, json.loads(payload))
            except (ValueError, json.JSONDecodeError) as e:
                raise MatchError(f"match {match_id}: stored event {seq} ({kind}) cannot be read: {e}") from None
            out.append(Record(int(seq), event, time, by or ""))
        return out

    def exists(self, match_id: str) -> bool:
        return self.db.one("SELECT 1 FROM matches WHERE id = ?", (match_id,)) is not None

    def resolve(self, match_id: str | None) -> str:
        """A full match id from an id, a unique prefix of one, or None (the match most recently written to)."""
        if match_id is None:
            row = self.db.one("SELECT match_id FROM events ORDER BY id DESC LIMIT 1")
            if row is None:
                raise MatchError(f"there are no matches in {self.path}; start one with 'match new'")
            return str(row[0])
        if self.exists(match_id):
            return match_id
        rows = self.db.query("SELECT id FROM matches WHERE substr(id, 1, ?) = ?", (len(match_id), match_id))
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise MatchError(f"no match {match_id!r} in {self.path}")
        raise MatchError(f"{match_id!r} matches several matches: {', '.join(r[0] for r in rows)}")

    def records(self, match_id: str) -> list[Record]:
        """The match's stored events in order."""
        return list(self._load(match_id)[0])

    def state(self, match_id: str) -> MatchState:
        """The match state rebuilt from its log."""
        return self._load(match_id)[1]

    def _load(self, match_id: str) -> tuple[list[Record], MatchState]:
        last = self._last_seq(match_id)
        cached = self._cache.get(match_id)
        if cached is not None and cached[0] and cached[0][-1].seq == last:
            return cached
        if cached is not None and cached[0] and cached[0][-1].seq < last:
            new = self._read_records(match_id, after=cached[0][-1].seq)
            records, state = cached[0] + new, _advance(cached[0], cached[1], new)
        else:
            records = self._read_records(match_id)
            if not records:
                raise MatchError(f"no match {match_id!r} in {self.path}")
            state = fold(records)
        self._cache[match_id] = (records, state)
        return records, state

    def load_all(self, infos: Sequence[MatchInfo]) -> dict[str, tuple[list[Record], MatchState]]:
        """The records and state of each of ``infos`` with one query for their latest sequence numbers; a match
        is read again (only its new events) and folded only when it changed since this store last read it."""
        wanted = {m.id for m in infos}
        last = {str(r[0]): int(r[1]) for r in self.db.query("SELECT match_id, MAX(seq) FROM events GROUP BY match_id")
                if str(r[0]) in wanted}
        out = {}
        for mid in (m.id for m in infos):
            cached = self._cache.get(mid)
            if cached is not None and cached[0] and cached[0][-1].seq == last.get(mid):
                out[mid] = cached
                continue
            if cached is not None and cached[0] and cached[0][-1].seq < last.get(mid, 0):
                new = self._read_records(mid, after=cached[0][-1].seq)
                records = cached[0] + new
                state = _advance(cached[0], cached[1], new)
            else:
                records = self._read_records(mid)
                if not records:
                    raise MatchError(f"no match {mid!r} in {self.path}")
                state = fold(records)
            self._cache[mid] = out[mid] = (records, state)
        return out

    def _last_seq(self, match_id: str) -> int:
        row = self.db.one("SELECT MAX(seq) FROM events WHERE match_id = ?", (match_id,))
        return int(row[0] or 0) if row else 0

    def matches(self, *, league: str | None = None, tournament: str | None = None,
                since: str | None = None) -> list[MatchInfo]:
        """Every match (or those of a league / tournament, or with events on or after ``since``, an ISO date),
        most recently active first."""
        club = "m.table_name, m.session, m.league, m.tournament" if self.version >= 2 else "NULL, NULL, NULL, NULL"
        where, params = [], []
        if league is not None:
            if self.version < 2:
                return []
            where.append("m.league = ?")
            params.append(league)
        if tournament is not None:
            if self.version < 2:
                return []
            where.append("m.tournament = ?")
            params.append(tournament)
        having = ""
        if since is not None:
            having = "HAVING MAX(e.time) >= ?"
        rows = self.db.query(
            f"""SELECT m.id, m.variant, m.players, m.created, COUNT(e.id), MAX(e.time), MAX(e.id) AS last, {club}
               FROM matches m LEFT JOIN events e ON e.match_id = m.id
               {("WHERE " + " AND ".join(where)) if where else ""}
               GROUP BY m.id {having} ORDER BY last DESC""",
            params + ([since] if since is not None else []))
        return [MatchInfo(r[0], r[1], tuple(json.loads(r[2])), r[3], int(r[4]), r[5] or "", *r[7:11]) for r in rows]

    def info(self, match_id: str) -> MatchInfo:
        for m in self.matches():
            if m.id == match_id:
                return m
        raise MatchError(f"no match {match_id!r} in {self.path}")

    def last_event_id(self) -> int:
        """The newest event's row id over all matches (0 when empty): it grows with every write, so a page
        watching the ledger knows when to refresh."""
        row = self.db.one("SELECT MAX(id) FROM events")
        return int(row[0] or 0) if row else 0

    # --- writing -----------------------------------------------------------------------------------
    def create_match(self, variant: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
                     *, match_id: str | None = None, time: str | None = None, by: str = "",
                     table: str | None = None, session: str | None = None, league: str | None = None,
                     tournament: str | None = None) -> str:
        """Start a match (validated like any event) and return its id."""
        event = MatchCreated.from_payload(
            {"variant": variant, "players": list(players), "options": dict(options or {})}
        )
        return self.write_log(match_id, [Record(1, event, time or now(), by)], table=table, session=session,
                              league=league, tournament=tournament)

    def write_log(self, match_id: str | None, records: Iterable[Record], *, table: str | None = None,
                  session: str | None = None, league: str | None = None, tournament: str | None = None) -> str:
        """Write a whole log as a new match (import): validated by folding it first; all or nothing.

        A tournament's table plays one match per session: a second match for the same (tournament, session,
        table) is refused, as is a match id that exists."""
        records = list(records)
        if not records or not isinstance(records[0].event, MatchCreated):
            raise MatchError("a match log starts with a match_created event")
        seqs = [r.seq for r in records]
        if seqs != list(range(1, len(records) + 1)):
            raise MatchError("event sequence numbers must run 1, 2, 3, … without gaps")
        if match_id is not None:
            check_match_id(match_id)
        stamp = now()  # a record without a time is recorded now
        records = [Record(r.seq, r.event, check_time(r.time, f"the time of event {r.seq}") if r.time else stamp,
                          (_name(f"event {r.seq}'s author", r.by) or "") if r.by else "") for r in records]
        club = {"table": _name("table", table), "session": _name("session", session),
                "league": _name("league", league), "tournament": _name("tournament", tournament)}
        if any(v is not None for v in club.values()) and self.version < 2:
            raise MatchError(f"{self.path} needs 'mahjong-assistant db migrate' to keep tables and sessions")
        state = fold(records)  # MatchError if anything is illegal
        created = records[0].event
        assert isinstance(created, MatchCreated)

        def run() -> str:
            mid = match_id
            if mid is None:
                mid = self._new_id()
            elif self.exists(mid):
                raise MatchError(f"a match {mid!r} already exists in {self.path}")
            if club["tournament"] and club["session"] and club["table"]:
                row = self.db.one("SELECT id FROM matches WHERE tournament = ? AND session = ? AND table_name = ?",
                                  (club["tournament"], club["session"], club["table"]))
                if row is not None:
                    raise MatchError(f"already recorded: {club['tournament']}, session {club['session']}, table "
                                     f"{club['table']} has match {row[0]}")
            if self.version >= 2:
                self.db.execute(
                    "INSERT INTO matches (id, variant, players, created, table_name, session, league, tournament) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (mid, state.variant, json.dumps(list(created.players)), records[0].time,
                     club["table"], club["session"], club["league"], club["tournament"]))
            else:
                self.db.execute("INSERT INTO matches (id, variant, players, created) VALUES (?, ?, ?, ?)",
                                (mid, state.variant, json.dumps(list(created.players)), records[0].time))
            for r in records:
                self._insert(mid, r)
            return mid

        new_id = self.db.write(run)
        self._cache[new_id] = (records, state)
        return new_id

    def append(self, match_id: str, event: Event, time: str | None = None, by: str = "",
               at_hand: str | None = None) -> Record:
        """Validate ``event`` against the match's current state and append it; return its record.
        MatchError (nothing written) when it is illegal. ``by`` and ``at_hand``: as :meth:`append_all`."""
        return self.append_all(match_id, [event], time=time, by=by, at_hand=at_hand)[0]

    def append_all(self, match_id: str, events: Sequence[Event], key: str | None = None,
                   time: str | None = None, by: str = "", at_hand: str | None = None) -> list[Record]:
        """Validate ``events`` in order against the match and append them all in one transaction, or none.

        ``key`` names the moment being recorded (e.g. one win on the live table, or "the result of East 2, 1
        honba"): when an event recorded under that key is still in force, MatchError ``already recorded`` and
        nothing is written, however many taps, retries, devices or processes send it at once (the check runs
        inside the writing transaction).

        ``at_hand``: the hand the events are the result of, as the device saw it (``state.label``, e.g. "East 2,
        1 honba"). It is the key when none is given, and the match must be at that hand: a second device recording
        the same hand gets ``already recorded``, never a result applied to the hand after it."""
        if at_hand is not None and key is None:
            key = f"hand: {at_hand}"
        if not events:
            return []
        if any(isinstance(e, MatchCreated) for e in events):
            raise MatchError("match_created starts a new match; use create_match")
        by = _name("author", by) or "" if by else ""

        def run() -> tuple[list[Record], MatchState]:
            records, state = self._load(match_id)
            if key is not None:
                row = self.db.one("SELECT seq FROM request_keys WHERE match_id = ? AND key = ?", (match_id, key))
                if row is not None and int(row[0]) in active_seqs(records):
                    seq = int(row[0])
                    who = next((f" by {r.by}" for r in records if r.seq == seq and r.by), "")
                    what = f"{at_hand} was recorded as event {seq}{who}" if at_hand else "this is in the match"
                    raise MatchError(f"already recorded: {what} (undo it first to record it again)")
            if at_hand is not None and state.label != at_hand:
                raise MatchError(f"the match is at {state.label}, not {at_hand}: that hand's result is already in "
                                 f"(see 'match show')" if not state.finished else
                                 f"the match is finished, not at {at_hand}")
            out: list[Record] = []
            for ev in events:
                state = next_state(records + out, state, ev)
                out.append(Record((out[-1] if out else records[-1]).seq + 1, ev, time or now(), by))
            for r in out:
                self._insert(match_id, r)
            if key is not None:
                self.db.execute(
                    "INSERT INTO request_keys (match_id, key, seq) VALUES (?, ?, ?) "
                    "ON CONFLICT (match_id, key) DO UPDATE SET seq = excluded.seq", (match_id, key, out[-1].seq))
            return records + out, state

        try:
            all_records, new_state = self.db.write(run)
        except BaseException:
            self._cache.pop(match_id, None)
            raise
        self._cache[match_id] = (all_records, new_state)
        return all_records[len(all_records) - len(events):]

    def _insert(self, match_id: str, r: Record) -> None:
        payload = json.dumps(r.event.payload(), sort_keys=True)
        if self.version >= 2:
            self.db.execute(
                "INSERT INTO events (match_id, seq, type, payload, time, author) VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, r.seq, r.event.type, payload, r.time, r.by))
        else:
            self.db.execute("INSERT INTO events (match_id, seq, type, payload, time) VALUES (?, ?, ?, ?, ?)",
                            (match_id, r.seq, r.event.type, payload, r.time))

    def _new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(4)
            if not self.exists(candidate):
                return candidate

    def integrity_check(self) -> str:
        """SQLite ``PRAGMA integrity_check`` (``ok`` when the file is sound); ``ok`` on PostgreSQL when every
        match's log starts at 1 and runs without gaps."""
        if self.db.dialect == "sqlite":
            return str(self.db.conn.execute("PRAGMA integrity_check").fetchone()[0])
        bad = self.db.query(
            "SELECT match_id FROM events GROUP BY match_id HAVING MIN(seq) <> 1 OR MAX(seq) <> COUNT(*)")
        return "ok" if not bad else "gaps in " + ", ".join(r[0] for r in bad)


__all__ = ["DB_ENV", "MatchInfo", "SCHEMA_VERSION", "Store", "default_db_path"]
