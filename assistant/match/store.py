"""SQLite persistence: one append-only events table, the state rebuilt from the log on open.

The database (default ``$MAHJONG_ASSISTANT_DB``, else ``~/.local/share/mahjong-assistant/matches.db``)
runs with ``journal_mode=WAL`` and ``synchronous=FULL``: once :meth:`Store.append` returns, the event
is on disk and survives a crash or a killed process. Every event is validated against the folded
state inside the writing transaction (``BEGIN IMMEDIATE``), so two writers cannot both append
sequence number *n*; a rejected event is not written. Triggers refuse UPDATE and DELETE on events.

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
import secrets
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .events import Event, MatchCreated, MatchError, event_from_parts
from .state import MatchState, Record, active_seqs, fold, next_state, now

DB_ENV = "MAHJONG_ASSISTANT_DB"

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    players TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id TEXT NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    time TEXT NOT NULL,
    UNIQUE (match_id, seq)
);
CREATE TABLE IF NOT EXISTS request_keys (
    match_id TEXT NOT NULL REFERENCES matches(id),
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (match_id, key)
);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: record a correction (undo/edit) instead'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: record a correction (undo/edit) instead'); END;
"""


def default_db_path() -> Path:
    """``$MAHJONG_ASSISTANT_DB`` if set, else ``~/.local/share/mahjong-assistant/matches.db``."""
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".local" / "share" / "mahjong-assistant" / "matches.db"


@dataclass(frozen=True)
class MatchInfo:
    """A line of ``match list``."""

    id: str
    variant: str
    players: tuple[str, ...]
    created: str
    events: int
    last_time: str


class Store:
    """The match database. Use as a context manager, or call :meth:`close`."""

    def __init__(self, path: str | os.PathLike[str] | None = None, readonly: bool = False) -> None:
        """``readonly``: open an existing database for reading only (MatchError when there is none, or the file
        is not a match database); nothing is created or changed."""
        self.path = Path(path).expanduser() if path is not None else default_db_path()
        self.readonly = readonly
        self._cache: dict[str, tuple[list[Record], MatchState]] = {}
        if readonly:
            if not self.path.is_file():
                raise MatchError(f"no match database at {self.path}; start a match with 'match new'")
            try:
                self.conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                            isolation_level=None, timeout=30)
                self.conn.execute("SELECT 1 FROM matches LIMIT 1").fetchall()
                self.conn.execute("SELECT 1 FROM events LIMIT 1").fetchall()
            except sqlite3.DatabaseError:
                raise MatchError(f"{self.path} is not a match database") from None
            return
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.executescript(SCHEMA)

    # --- context manager ---------------------------------------------------------------------------
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading -----------------------------------------------------------------------------------
    def _read_records(self, match_id: str) -> list[Record]:
        rows = self.conn.execute(
            "SELECT seq, type, payload, time FROM events WHERE match_id = ? ORDER BY seq", (match_id,)
        ).fetchall()
        out = []
        for seq, kind, payload, time in rows:
            try:
                event = event_from_parts(kind, json.loads(payload))
            except (ValueError, json.JSONDecodeError) as e:
                raise MatchError(f"match {match_id}: stored event {seq} ({kind}) cannot be read: {e}") from None
            out.append(Record(seq, event, time))
        return out

    def exists(self, match_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is not None

    def resolve(self, match_id: str | None) -> str:
        """A full match id from an id, a unique prefix of one, or None (the match most recently written to)."""
        if match_id is None:
            row = self.conn.execute(
                "SELECT match_id FROM events ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                raise MatchError(f"there are no matches in {self.path}; start one with 'match new'")
            return str(row[0])
        if self.exists(match_id):
            return match_id
        rows = self.conn.execute(
            "SELECT id FROM matches WHERE substr(id, 1, ?) = ?", (len(match_id), match_id)
        ).fetchall()
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
        records = self._read_records(match_id)
        if not records:
            raise MatchError(f"no match {match_id!r} in {self.path}")
        state = fold(records)
        self._cache[match_id] = (records, state)
        return records, state

    def _last_seq(self, match_id: str) -> int:
        row = self.conn.execute("SELECT MAX(seq) FROM events WHERE match_id = ?", (match_id,)).fetchone()
        return int(row[0] or 0)

    def matches(self) -> list[MatchInfo]:
        """Every match, most recently active first."""
        rows = self.conn.execute(
            """SELECT m.id, m.variant, m.players, m.created, COUNT(e.id), MAX(e.time), MAX(e.id) AS last
               FROM matches m LEFT JOIN events e ON e.match_id = m.id
               GROUP BY m.id ORDER BY last DESC"""
        ).fetchall()
        return [MatchInfo(r[0], r[1], tuple(json.loads(r[2])), r[3], r[4], r[5] or "") for r in rows]

    # --- writing -----------------------------------------------------------------------------------
    def create_match(self, variant: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
                     *, match_id: str | None = None, time: str | None = None) -> str:
        """Start a match (validated like any event) and return its id."""
        event = MatchCreated.from_payload(
            {"variant": variant, "players": list(players), "options": dict(options or {})}
        )
        return self.write_log(match_id, [Record(1, event, time or now())])

    def write_log(self, match_id: str | None, records: Iterable[Record]) -> str:
        """Write a whole log as a new match (import): validated by folding it first; all or nothing."""
        records = list(records)
        if not records or not isinstance(records[0].event, MatchCreated):
            raise MatchError("a match log starts with a match_created event")
        seqs = [r.seq for r in records]
        if seqs != list(range(1, len(records) + 1)):
            raise MatchError("event sequence numbers must run 1, 2, 3, … without gaps")
        state = fold(records)  # MatchError if anything is illegal
        created = records[0].event
        assert isinstance(created, MatchCreated)
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            if match_id is None:
                match_id = self._new_id()
            elif self.exists(match_id):
                raise MatchError(f"a match {match_id!r} already exists in {self.path}")
            self.conn.execute(
                "INSERT INTO matches (id, variant, players, created) VALUES (?, ?, ?, ?)",
                (match_id, state.variant, json.dumps(list(created.players)), records[0].time or now()),
            )
            for r in records:
                self._insert(match_id, r)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self._cache[match_id] = (records, state)
        return match_id

    def append(self, match_id: str, event: Event, time: str | None = None) -> Record:
        """Validate ``event`` against the match's current state and append it; return its record.
        MatchError (nothing written) when it is illegal."""
        if isinstance(event, MatchCreated):
            raise MatchError("match_created starts a new match; use create_match")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            records, state = self._load(match_id)
            new_state = next_state(records, state, event)
            record = Record(records[-1].seq + 1, event, time or now())
            self._insert(match_id, record)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self._cache[match_id] = (records + [record], new_state)
        return record

    def append_all(self, match_id: str, events: Sequence[Event], key: str | None = None,
                   time: str | None = None) -> list[Record]:
        """Validate ``events`` in order against the match and append them all in one transaction, or none.

        ``key`` names the moment being recorded (e.g. one win on the live table): when an event recorded under
        that key is still in force, MatchError ``already recorded`` and nothing is written, however many
        taps, retries or processes send it at once (the check runs inside the writing transaction)."""
        if not events:
            return []
        if any(isinstance(e, MatchCreated) for e in events):
            raise MatchError("match_created starts a new match; use create_match")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            records, state = self._load(match_id)
            if key is not None:
                row = self.conn.execute("SELECT seq FROM request_keys WHERE match_id = ? AND key = ?",
                                        (match_id, key)).fetchone()
                if row is not None and int(row[0]) in active_seqs(records):
                    raise MatchError("already recorded: this is in the match (undo it first to record it again)")
            out = []
            for ev in events:
                state = next_state(records + out, state, ev)
                out.append(Record((out[-1] if out else records[-1]).seq + 1, ev, time or now()))
            for r in out:
                self._insert(match_id, r)
            if key is not None:
                self.conn.execute("INSERT OR REPLACE INTO request_keys (match_id, key, seq) VALUES (?, ?, ?)",
                                  (match_id, key, out[-1].seq))
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self._cache[match_id] = (records + out, state)
        return out

    def _insert(self, match_id: str, r: Record) -> None:
        self.conn.execute(
            "INSERT INTO events (match_id, seq, type, payload, time) VALUES (?, ?, ?, ?, ?)",
            (match_id, r.seq, r.event.type, json.dumps(r.event.payload(), sort_keys=True), r.time),
        )

    def _new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(4)
            if not self.exists(candidate):
                return candidate

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` (``ok`` when the file is sound)."""
        return str(self.conn.execute("PRAGMA integrity_check").fetchone()[0])


__all__ = ["DB_ENV", "MatchInfo", "SCHEMA", "Store", "default_db_path"]
