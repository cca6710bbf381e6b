"""Where the match ledger lives: an embedded SQLite file (the default) or a PostgreSQL server.

:func:`connect` opens either from one target string — a file path, or a ``postgresql://USER@HOST/DB`` URL —
and gives a :class:`Backend`: ``query``/``one`` to read, and ``write(fn)`` to run ``fn`` inside one
serialisable writing transaction (SQLite ``BEGIN IMMEDIATE``; PostgreSQL ``SERIALIZABLE``, run again when the
server reports a conflict with another writer, so two tables or two taps can never both append sequence *n*).
Statements are written once with ``?`` placeholders; the PostgreSQL backend turns them into ``%s``.

The schema is versioned (:data:`SCHEMA_VERSION`, kept in the ``ledger_meta`` table) and built by the numbered
:data:`MIGRATIONS`. A SQLite file is created and brought up to date when it is opened for writing (an embedded
file has one user); a PostgreSQL database is created and migrated only by ``mahjong-assistant db init`` and
``db migrate`` (a shared server changes when its keeper says so), and opening one that is behind says which
command to run. ``psycopg`` (3) is imported only when a PostgreSQL target is opened.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit, urlunsplit

from .events import MatchError

T = TypeVar("T")

DB_ENV = "MAHJONG_ASSISTANT_DB"
SCHEMA_VERSION = 2
APPEND_ONLY = "events are append-only: record a correction (undo/edit) instead"

# (version, what it adds, {dialect: statements}); "all" applies to both dialects.
MIGRATIONS: list[tuple[int, str, dict[str, list[str]]]] = [
    (1, "matches, the append-only events log and request keys", {
        "sqlite": [
            """CREATE TABLE IF NOT EXISTS matches (
                id TEXT PRIMARY KEY, variant TEXT NOT NULL, players TEXT NOT NULL, created TEXT NOT NULL)""",
            """CREATE TABLE IF NOT EXISTS events (
                id INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL REFERENCES matches(id),
                seq INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, time TEXT NOT NULL,
                UNIQUE (match_id, seq))""",
            """CREATE TABLE IF NOT EXISTS request_keys (
                match_id TEXT NOT NULL REFERENCES matches(id), key TEXT NOT NULL, seq INTEGER NOT NULL,
                PRIMARY KEY (match_id, key))""",
            f"""CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
                BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END""",
            f"""CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
                BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END""",
        ],
        "postgresql": [
            """CREATE TABLE matches (
                id TEXT PRIMARY KEY, variant TEXT NOT NULL, players TEXT NOT NULL, created TEXT NOT NULL)""",
            """CREATE TABLE events (
                id BIGSERIAL PRIMARY KEY, match_id TEXT NOT NULL REFERENCES matches(id),
                seq INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, time TEXT NOT NULL,
                UNIQUE (match_id, seq))""",
            """CREATE TABLE request_keys (
                match_id TEXT NOT NULL REFERENCES matches(id), key TEXT NOT NULL, seq INTEGER NOT NULL,
                PRIMARY KEY (match_id, key))""",
            f"""CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION '{APPEND_ONLY}'; END $$""",
            """CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
                FOR EACH ROW EXECUTE FUNCTION events_append_only()""",
            """CREATE TRIGGER events_append_only_truncate BEFORE TRUNCATE ON events
                FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()""",
        ],
    }),
    (2, "a club's tables: table, session, league and tournament of a match; who recorded each event", {
        "all": [
            "ALTER TABLE matches ADD COLUMN table_name TEXT",
            "ALTER TABLE matches ADD COLUMN session TEXT",
            "ALTER TABLE matches ADD COLUMN league TEXT",
            "ALTER TABLE matches ADD COLUMN tournament TEXT",
            "ALTER TABLE events ADD COLUMN author TEXT NOT NULL DEFAULT ''",
            # a tournament's table plays one match per session: the same one cannot be recorded twice
            """CREATE UNIQUE INDEX matches_one_per_tournament_table ON matches (tournament, session, table_name)
               WHERE tournament IS NOT NULL AND session IS NOT NULL AND table_name IS NOT NULL""",
            "CREATE INDEX events_by_time ON events (time)",
        ],
    }),
]
assert MIGRATIONS[-1][0] == SCHEMA_VERSION


URL_SCHEME = re.compile(r"^postgres(ql)?://", re.IGNORECASE)  # libpq reads the scheme in lower case only
#: query parameters of a connection URL whose values are secrets (libpq: password, sslpassword)
SECRET_PARAMS = frozenset({"password", "sslpassword"})
_secrets: set[str] = set()  # the passwords of every URL opened in this process: never in a message or log


def is_url(target: str | os.PathLike[str]) -> bool:
    """A PostgreSQL URL (``postgresql://`` or ``postgres://``, in any case), not a file path."""
    return isinstance(target, str) and bool(URL_SCHEME.match(target))


def _libpq_url(url: str) -> str:
    """The URL as libpq reads it: the scheme in lower case (``POSTGRESQL://`` is not a URL to libpq, and the
    whole string, password included, would come back in its error message)."""
    return URL_SCHEME.sub(lambda m: m.group(0).lower(), url, count=1)


def default_target() -> str:
    """``$MAHJONG_ASSISTANT_DB`` (a path or a postgresql:// URL) if set, else the per-user SQLite file."""
    env = os.environ.get(DB_ENV)
    if env:
        return env if is_url(env) else str(Path(env).expanduser())
    return str(Path.home() / ".local" / "share" / "mahjong-assistant" / "matches.db")


def redact(url: str) -> str:
    """A URL fit for messages and logs: the password (``user:PASSWORD@`` and ``?password=``) replaced by
    ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, hostinfo = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:***@{hostinfo}"
    query = parts.query
    if query:
        query = "&".join(
            f"{key}=***" if sep and unquote_plus(key).lower() in SECRET_PARAMS else f"{key}{sep}{value}"
            for key, sep, value in (item.partition("=") for item in query.split("&")))
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def remember_secrets(url: str) -> None:
    """Note the passwords of ``url`` (as written and decoded) so that :func:`scrub` hides them wherever they
    turn up: a driver's error message, a reply to a web client, a log line."""
    parts = urlsplit(url)
    found = [parts.password] if parts.password else []
    found += [value for key, value in parse_qsl(parts.query, keep_blank_values=True) if key.lower() in SECRET_PARAMS]
    raw = [value for key, _, value in (item.partition("=") for item in parts.query.split("&"))
           if unquote_plus(key).lower() in SECRET_PARAMS]
    raw += [parts.netloc.rpartition("@")[0].partition(":")[2]] if parts.password else []
    for secret in found + raw + [unquote(p) for p in found]:
        if len(secret) >= 4:  # a shorter one would blank out ordinary words (URLs hide it all the same)
            _secrets.add(secret)


def scrub(text: str) -> str:
    """``text`` with every password this process has seen replaced by ``***``, and any PostgreSQL URL in it
    redacted: a message fit to print, log or send."""
    text = re.sub(r"postgres(?:ql)?://[^\s'\"<>]*[^\s'\"<>:;,.!?)]", lambda m: redact(m.group(0)), text,
                  flags=re.IGNORECASE)
    text = re.sub(r"\b((?:ssl)?password\s*=\s*)('[^']*'|[^\s&'\"]*[^\s&'\":;,.!?)])", r"\1***", text,
                  flags=re.IGNORECASE)
    for secret in sorted(_secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def db_error_text(e: BaseException) -> str | None:
    """One line for an error of the ledger's database (SQLite, a file, or PostgreSQL), None for anything else."""
    if isinstance(e, sqlite3.Error | OSError):
        return scrub(f"{type(e).__name__}: {e}")
    if type(e).__module__.startswith("psycopg"):
        text = str(e).strip()
        return scrub(f"PostgreSQL: {text.splitlines()[0] if text else type(e).__name__}")
    return None


class Backend(Protocol):
    """One open ledger database."""

    dialect: str  # "sqlite" | "postgresql"
    where: str  # a path, or the URL without its password
    conn: Any

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None: ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    def write(self, fn: Callable[[], T]) -> T: ...

    def version(self) -> int: ...

    def close(self) -> None: ...


def _meta_version(backend: Backend) -> int:
    """The schema version stored in the database; 1 for a ledger made before versions were kept; 0 for none."""
    if backend.dialect == "sqlite":
        tables = {r[0] for r in backend.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    else:
        tables = {r[0] for r in backend.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    if "ledger_meta" in tables:
        row = backend.one("SELECT value FROM ledger_meta WHERE key = 'schema_version'")
        return int(row[0]) if row else 0
    return 1 if "events" in tables else 0


def migrate(backend: Backend, to: int = SCHEMA_VERSION) -> list[str]:
    """Bring the schema to version ``to`` in one transaction; the steps applied, in words."""
    done: list[str] = []

    def run() -> None:
        done.clear()
        current = _meta_version(backend)
        if current > SCHEMA_VERSION:
            raise MatchError(f"{backend.where} has ledger schema version {current}, newer than this program's "
                             f"{SCHEMA_VERSION}: upgrade mahjong-assistant")
        backend.execute("CREATE TABLE IF NOT EXISTS ledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        for version, what, steps in MIGRATIONS:
            if current < version <= to:
                for sql in steps.get(backend.dialect, []) + steps.get("all", []):
                    backend.execute(sql)
                done.append(f"{version}: {what}")
        backend.execute(
            "INSERT INTO ledger_meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(max(current, to)),))

    backend.write(run)
    return done


class SqliteBackend:
    dialect = "sqlite"

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.where = str(path)
        if readonly:
            if not path.is_file():
                raise MatchError(f"no match database at {path}; start a match with 'match new'")
            try:
                self.conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                            isolation_level=None, timeout=30,
                                            check_same_thread=False)
                self.conn.execute("SELECT 1 FROM matches LIMIT 1").fetchall()
                self.conn.execute("SELECT 1 FROM events LIMIT 1").fetchall()
            except sqlite3.DatabaseError:
                raise MatchError(f"{path} is not a match database") from None
            return
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(path), isolation_level=None, timeout=30,
                                            check_same_thread=False)
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError:
            self.conn.close()
            raise MatchError(f"{path} is not a match database") from None
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA foreign_keys=ON")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql, tuple(params)).fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        row = self.conn.execute(sql, tuple(params)).fetchone()
        return None if row is None else tuple(row)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(sql, tuple(params))

    def write(self, fn: Callable[[], T]) -> T:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            out = fn()
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return out

    def version(self) -> int:
        return _meta_version(self)

    def close(self) -> None:
        self.conn.close()


class PostgresBackend:
    """psycopg 3 on one connection in autocommit mode: reads see the latest commits, each write is one
    explicit SERIALIZABLE transaction, retried (with a short random pause) when the server aborts it for a
    conflict with a concurrent writer."""

    dialect = "postgresql"
    RETRIES = 50
    # unique constraints two concurrent writers can both pass before either commits; the store checks each of
    # them inside the transaction, so the run that follows the abort gives the clear answer ("already ...")
    RACES = frozenset({"events_match_id_seq_key", "request_keys_pkey", "matches_pkey",
                       "matches_one_per_tournament_table", "ledger_meta_pkey"})

    def __init__(self, url: str, readonly: bool = False) -> None:
        url = _libpq_url(url)
        remember_secrets(url)
        self.where = redact(url)
        try:
            import psycopg
        except ImportError:
            raise MatchError("a PostgreSQL ledger needs psycopg 3: pip install 'psycopg[binary]'") from None
        self._psycopg = psycopg
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise MatchError(scrub(f"cannot connect to PostgreSQL at {self.where}: {first}")) from None
        self.conn.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
        if readonly:
            self.conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("?", "%s")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(self._sql(sql), tuple(params)).fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        row = self.conn.execute(self._sql(sql), tuple(params)).fetchone()
        return None if row is None else tuple(row)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(self._sql(sql), tuple(params))

    def write(self, fn: Callable[[], T]) -> T:
        errors = self._psycopg.errors
        for attempt in range(self.RETRIES):
            try:
                with self.conn.transaction():
                    return fn()
            except (errors.SerializationFailure, errors.DeadlockDetected, errors.UniqueViolation) as e:
                if isinstance(e, errors.UniqueViolation) and e.diag.constraint_name not in self.RACES:
                    raise
                time.sleep(random.uniform(0.001, 0.005) * (1 + attempt))
        raise MatchError(f"{self.where}: too many concurrent writers; nothing was recorded, try again")

    def version(self) -> int:
        return _meta_version(self)

    def close(self) -> None:
        self.conn.close()


def check_target(target: str | os.PathLike[str]) -> None:
    """MatchError for a libpq ``host=... password=...`` string given as a ledger: it is not a file to create (nor
    a name to print, password and all)."""
    if isinstance(target, str) and re.match(r"^\s*(host|hostaddr|port|dbname|user|password|service)\s*=",
                                            target, re.IGNORECASE):
        raise MatchError(f"{scrub(target)!r} is not a ledger: give a file path or a "
                         "postgresql://USER:PASSWORD@HOST/DB URL")


def connect(target: str | os.PathLike[str] | None = None, readonly: bool = False) -> Backend:
    """Open the ledger at ``target`` (default :func:`default_target`). A SQLite file opened for writing is
    created or migrated here; a PostgreSQL database must be at :data:`SCHEMA_VERSION` already."""
    target = default_target() if target is None else target
    check_target(target)
    if is_url(str(target)):
        pg = PostgresBackend(str(target), readonly=readonly)
        try:
            version = pg.version()
        except Exception:
            pg.close()
            raise
        if version != SCHEMA_VERSION:
            pg.close()
            if version == 0:
                raise MatchError(f"{pg.where} has no match ledger yet: run 'mahjong-assistant db init --db URL'")
            if version < SCHEMA_VERSION:
                raise MatchError(f"{pg.where} has ledger schema version {version}, this program needs "
                                 f"{SCHEMA_VERSION}: run 'mahjong-assistant db migrate --db URL'")
            raise MatchError(f"{pg.where} has ledger schema version {version}, newer than this program's "
                             f"{SCHEMA_VERSION}: upgrade mahjong-assistant")
        return pg
    path = Path(target).expanduser()
    backend = SqliteBackend(path, readonly=readonly)
    if not readonly:
        try:
            migrate(backend)
        except sqlite3.DatabaseError:
            backend.close()
            raise MatchError(f"{path} is not a match database") from None
    return backend


def open_for_admin(target: str | os.PathLike[str] | None = None) -> Backend:
    """A backend for ``db init|migrate|status``: no version check (that is what those commands look at)."""
    target = default_target() if target is None else target
    check_target(target)
    if is_url(str(target)):
        return PostgresBackend(str(target))
    return SqliteBackend(Path(target).expanduser())


__all__ = ["APPEND_ONLY", "Backend", "DB_ENV", "MIGRATIONS", "PostgresBackend", "SCHEMA_VERSION", "SqliteBackend",
           "check_target", "connect", "db_error_text", "default_target", "is_url", "migrate", "open_for_admin",
           "redact", "remember_secrets", "scrub"]
