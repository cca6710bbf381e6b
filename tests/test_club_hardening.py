"""The club server under many viewers and a failing ledger, and the ledger's password: one shared connection for
every club viewer (and a bound on how many), streams that say the ledger is away instead of dying with a traceback,
/api/club answered from a per-match cache, half-open connections dropped by the server, and passwords never printed,
logged or sent."""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import assistant.match.store as store_module
from assistant.match.db import redact
from assistant.match.store import Store
from tests.test_club import _league, ev, ron
from webui import create_app
from webui.feed import ScriptedDemoFeed

REPO = Path(__file__).resolve().parents[1]


def make_app(tmp_path, ledger, **config):
    app = create_app({"FEED": ScriptedDemoFeed(auto=False, fps=20), "DATA_DIR": str(tmp_path), "MATCH_DB": ledger,
                      "TESTING": True, "CLUB_POLL_SECONDS": 0.02, **config})
    return app


class Viewer:
    """One club page: reads ``/api/club/events`` in a thread and keeps each (event, data) it is sent, until
    ``done(events)`` (then the stream can be closed)."""

    def __init__(self, client, query: str = "", done=lambda events: len(events) >= 2) -> None:
        self.resp = client.get(f"/api/club/events{query}", buffered=False)
        self.events: list[tuple[str, dict]] = []
        self.error: BaseException | None = None
        self.done = done
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        buf = ""
        try:
            for chunk in self.resp.response:
                buf += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    kind = next((ln[7:] for ln in block.splitlines() if ln.startswith("event: ")), None)
                    data = next((ln[6:] for ln in block.splitlines() if ln.startswith("data: ")), None)
                    if kind and data:
                        self.events.append((kind, json.loads(data)))
                        if self.done(self.events):
                            return
        except BaseException as e:  # noqa: BLE001 - what today's stream raised, for the test to see
            self.error = e

    def wait_for(self, n: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events) < n and self.error is None and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self) -> None:
        self.thread.join(timeout=10)
        self.resp.close()


def _t3(data: dict) -> tuple:
    t3 = next(t for t in data["tables"] if t["table"] == "T3")
    return tuple(t3["points"]), t3["status"]


# --- case 1: one watcher of the ledger for every viewer ----------------------------------------------------------


def test_every_club_viewer_shares_one_connection_to_the_ledger(ledger, tmp_path, monkeypatch):
    with Store(ledger) as st:
        _league(st)
    app = make_app(tmp_path, ledger)
    opened = []
    real = store_module.connect
    monkeypatch.setattr(store_module, "connect", lambda *a, **k: opened.append(a) or real(*a, **k))
    c = app.test_client()
    viewers = [Viewer(c, "?league=L") for _ in range(20)]
    for v in viewers:
        v.wait_for(1)
    assert [len(v.events) for v in viewers] == [1] * 20
    assert c.get("/api/club?league=L").status_code == 200
    assert len(opened) == 1  # 20 streams and a request: one connection (today: one per stream, and per request)
    monkeypatch.setattr(store_module, "connect", real)
    with Store(ledger) as st:  # table T3 records a hand: G rons E for 8,000 (+1,000 for the honba)
        st.append("t4", ron("G", "E", 8000), by="T3 tablet")
    for v in viewers:
        v.wait_for(2)
    for v in viewers:
        v.close()
    assert [v.error for v in viewers] == [None] * 20
    assert {(kind, _t3(data)) for v in viewers for kind, data in v.events[1:]} == {
        ("club", ((27000, 34000, 44000), "playing East 2"))}
    assert len(opened) == 1


def test_the_number_of_club_streams_is_bounded(ledger, tmp_path):
    with Store(ledger) as st:
        _league(st)
    app = make_app(tmp_path, ledger, CLUB_MAX_VIEWERS=3)
    c = app.test_client()
    viewers = [Viewer(c, done=lambda events: True) for _ in range(3)]
    for v in viewers:
        v.wait_for(1)
    r = c.get("/api/club/events")
    assert (r.status_code, r.get_json()) == (429, {
        "error": "the club page has 3 live viewers already, as many as this server takes: try again in a minute "
                 "(GET /api/club gives the same data once)", "status": 429})
    assert c.get("/api/club").status_code == 200  # the page's data is still there, once
    viewers[0].close()
    again = Viewer(c, done=lambda events: True)  # a place is free again
    again.wait_for(1)
    assert [kind for kind, _ in again.events] == ["club"]
    for v in [*viewers[1:], again]:
        v.close()


def test_a_ledger_that_fails_under_the_streams_is_reported_not_raised(ledger, tmp_path, monkeypatch, caplog):
    """The database fails for a while under three open streams (the connection breaks, reads fail): each stream
    says so once, with the reason, and carries on with the standings when the ledger answers again."""
    with Store(ledger) as st:
        _league(st)
    app = make_app(tmp_path, ledger)
    c = app.test_client()
    viewers = [Viewer(c, "?league=L", done=lambda events: len(events) >= 3) for _ in range(3)]
    for v in viewers:
        v.wait_for(1)
    real = Store.last_event_id

    def broken(self):
        raise sqlite3.OperationalError("disk I/O error")

    caplog.set_level(logging.DEBUG)
    monkeypatch.setattr(Store, "last_event_id", broken)
    for v in viewers:
        v.wait_for(2)
    monkeypatch.setattr(Store, "last_event_id", real)
    with Store(ledger) as st:
        st.append("t4", ron("G", "E", 8000), by="T3 tablet")
    for v in viewers:
        v.wait_for(3)
    for v in viewers:
        v.close()
    assert [v.error for v in viewers] == [None] * 3
    for v in viewers:
        assert [kind for kind, _ in v.events] == ["club", "unavailable", "club"]
        assert v.events[1][1] == {"error": "match ledger error: OperationalError: disk I/O error"}
        assert _t3(v.events[2][1]) == ((27000, 34000, 44000), "playing East 2")
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []


def test_postgresql_connections_killed_under_the_streams_leave_no_traceback(pg_target, tmp_path, caplog):
    """The server ends the club page's connections (as when PostgreSQL restarts): the streams go on, on a new
    connection, and show the next hand recorded."""
    import psycopg

    name = "club_" + secrets.token_hex(4)
    url = f"{pg_target}&application_name={name}"
    with Store(pg_target) as st:
        _league(st)
    caplog.set_level(logging.DEBUG)
    app = make_app(tmp_path, url)
    c = app.test_client()
    viewers = [Viewer(c, "?league=L", done=lambda events: _t3(events[-1][1])[0] == (27000, 34000, 44000)
                      if events[-1][0] == "club" else False) for _ in range(3)]
    for v in viewers:
        v.wait_for(1)
    base = os.environ["MAHJONG_ASSISTANT_TEST_PG"]
    with psycopg.connect(base, autocommit=True) as conn:
        killed = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                              "WHERE application_name = %s", (name,)).fetchone()
    assert killed is not None and killed[0] >= 1
    time.sleep(0.3)
    with Store(pg_target) as st:
        st.append("t4", ron("G", "E", 8000), by="T3 tablet")
    for v in viewers:
        v.close()
    assert [v.error for v in viewers] == [None] * 3
    for v in viewers:
        assert _t3(v.events[-1][1]) == ((27000, 34000, 44000), "playing East 2")
        assert {kind for kind, _ in v.events} <= {"club", "unavailable"}
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []
    with psycopg.connect(base, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)).fetchone()
    assert row == (1,)  # the page's one connection, opened again


# --- case 10: /api/club from a per-match cache ---------------------------------------------------------------------


def test_api_club_folds_a_match_again_only_when_its_log_grew(ledger, tmp_path, monkeypatch):
    with Store(ledger) as st:
        _league(st)
    app = make_app(tmp_path, ledger)
    c = app.test_client()
    folds: list[int] = []
    steps: list[int] = []
    real_fold, real_next = store_module.fold, store_module.next_state
    monkeypatch.setattr(store_module, "fold", lambda records: folds.append(len(records)) or real_fold(records))
    monkeypatch.setattr(store_module, "next_state",
                        lambda records, state, event: steps.append(len(records)) or real_next(records, state, event))

    def get() -> tuple[list[int], list[int], dict]:
        folds.clear()
        steps.clear()
        r = c.get("/api/club")
        assert r.status_code == 200
        return sorted(folds), list(steps), r.get_json()

    assert get()[:2] == ([2, 3, 3, 3], [])   # the first request reads the four matches (t4: 2 events so far)
    assert get()[:2] == ([], [])             # nothing changed: nothing read or folded again
    assert get()[:2] == ([], [])
    with Store(ledger) as st:
        st.append("t4", ron("G", "E", 8000))
    monkeypatch.setattr(store_module, "fold", lambda records: folds.append(len(records)) or real_fold(records))
    f, s, data = get()
    assert (f, s) == ([], [2])               # t4's one new event applied to its state, nothing else
    assert _t3(data) == ((27000, 34000, 44000), "playing East 2")
    with Store(ledger) as st:
        st.append("t2", ev("undo", event=3))  # a correction: t2 (only) is folded again
    f, s, data = get()
    assert (f, s) == ([4], [])
    assert next(t for t in data["tables"] if t["match"] == "t2")["finished"] is False


# --- case 10: half-open connections --------------------------------------------------------------------------------


def closed(s: socket.socket) -> bool:
    """Whether the server closed ``s`` without an answer (within 5 s)."""
    s.settimeout(5)
    try:
        return s.recv(100) == b""
    except ConnectionResetError:
        return True


def test_serve_drops_connections_that_do_not_send_their_headers_in_time(tmp_path, monkeypatch):
    import werkzeug.serving

    import webui.cli as web_cli

    monkeypatch.setattr(web_cli, "HEADER_TIMEOUT", 0.5)
    servers = []
    real = werkzeug.serving.make_server

    def capture(*a, **k):
        servers.append(real(*a, **k))
        return servers[-1]

    monkeypatch.setattr(werkzeug.serving, "make_server", capture)
    config = {"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "l.db")}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    runner = threading.Thread(target=web_cli.serve, args=("demo-script", "sanma", "127.0.0.1", port),
                              kwargs={"config": config, "quiet": True}, daemon=True)
    runner.start()
    deadline = time.monotonic() + 20
    while not servers and time.monotonic() < deadline:
        time.sleep(0.02)
    before = threading.active_count()
    try:
        idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(30)]
        for i, s in enumerate(idle):
            if i % 2:
                s.sendall(b"GET /api/live/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the headers never end
        trickle = socket.create_connection(("127.0.0.1", port), timeout=5)
        t0 = time.monotonic()
        closed_after = None
        for byte in b"GET /api/live/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
            try:
                trickle.sendall(bytes([byte]))
            except OSError:
                closed_after = time.monotonic() - t0
                break
            time.sleep(0.05)  # a byte every 0.05 s: each read is quick, the headers never done
        if closed_after is None:
            assert closed(trickle)
            closed_after = time.monotonic() - t0
        assert closed_after < 3.0
        assert [closed(s) for s in idle] == [True] * 30  # closed by the server, without an answer
        for s in idle:
            s.close()
        trickle.close()
        time.sleep(0.3)
        assert threading.active_count() <= before + 1
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:  # an ordinary request still works
            s.sendall(b"GET /api/live/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200")
    finally:
        for server in servers:
            server.shutdown()
        runner.join(timeout=10)


# --- case 2: the ledger's password --------------------------------------------------------------------------------


def cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, timeout=120)


def test_redact_hides_the_password_in_the_query_too():
    from assistant.match.db import scrub

    assert redact("postgresql://u@h/d?password=hunter22&sslmode=disable") == \
        "postgresql://u@h/d?password=***&sslmode=disable"
    assert redact("postgresql://h/d?PassWord=hunter22&sslpassword=key-pass") == \
        "postgresql://h/d?PassWord=***&sslpassword=***"
    assert redact("POSTGRESQL://u:hunter22@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert scrub("failed: host=h password=hunter22 user=u; see postgresql://u:pw@h/d?password=x") == \
        "failed: host=h password=*** user=u; see postgresql://u:***@h/d?password=***"


@pytest.mark.parametrize("target, shown", [
    ("postgresql://nobody@127.0.0.1:1/none?password=hunter22", "postgresql://nobody@127.0.0.1:1/none?password=***"),
    ("POSTGRESQL://nobody:hunter22@127.0.0.1:1/none", "postgresql://nobody:***@127.0.0.1:1/none"),
    ("Postgres://nobody@127.0.0.1:1/none?sslmode=disable&password=hunter22",
     "postgres://nobody@127.0.0.1:1/none?sslmode=disable&password=***"),
])
@pytest.mark.parametrize("command", [("match", "list"), ("db", "status"), ("club", "standings"), ("serve",)])
def test_no_command_prints_the_password(tmp_path, target, shown, command):
    r = cli(*command, "--db", target, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith(f"error: cannot connect to PostgreSQL at {shown}: ")
    assert len(r.stderr.strip().splitlines()) == 1
    assert "hunter22" not in r.stdout + r.stderr
    assert list(tmp_path.iterdir()) == []  # no SQLite file named after the URL


def test_the_url_in_the_environment_in_capitals_is_a_server_too(tmp_path):
    r = cli("match", "list", cwd=tmp_path, env={"MAHJONG_ASSISTANT_DB": "POSTGRESQL://nobody:hunter22@127.0.0.1:1/x"})
    assert r.returncode == 2
    assert r.stderr.startswith("error: cannot connect to PostgreSQL at postgresql://nobody:***@127.0.0.1:1/x: ")
    assert "hunter22" not in r.stdout + r.stderr and list(tmp_path.iterdir()) == []


def test_a_libpq_connection_string_is_refused_without_its_password(tmp_path):
    r = cli("match", "list", "--db", "host=127.0.0.1 port=1 password=hunter22", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (2, "error: 'host=127.0.0.1 port=1 password=***' is not a ledger: give a file "
                                           "path or a postgresql://USER:PASSWORD@HOST/DB URL\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url, shown", [
    ("postgresql://nobody@127.0.0.1:1/none?password=hunter22", "postgresql://nobody@127.0.0.1:1/none?password=***"),
    ("POSTGRESQL://nobody:hunter22@127.0.0.1:1/none", "postgresql://nobody:***@127.0.0.1:1/none"),
])
def test_a_503_never_carries_the_password(tmp_path, url, shown, monkeypatch):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)  # where a URL taken for a file name would be created
    app = make_app(tmp_path, url)
    c = app.test_client()
    for path in ("/api/club", "/api/matches", "/api/club/events", "/api/matches/current"):
        r = c.get(path)
        body = r.get_data(as_text=True)
        assert r.status_code == 503, path
        assert r.get_json()["error"].startswith(f"the match ledger is not available: cannot connect to PostgreSQL "
                                                f"at {shown}: "), path
        assert "hunter22" not in body
    assert list(work.iterdir()) == []
