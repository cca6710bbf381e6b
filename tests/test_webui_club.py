"""The club page's API on both ledger backends: tables and standings as recorded, live updates over SSE, a
ledger that cannot be reached as a 503, bad filters as 400s, and who recorded from the page."""

from __future__ import annotations

import json
import threading
import time

import pytest

from assistant.match.store import Store
from tests.test_club import _league, ron
from webui import create_app
from webui.feed import ScriptedDemoFeed


@pytest.fixture
def app(ledger, tmp_path):
    feed = ScriptedDemoFeed(auto=False, fps=20)
    app = create_app({"FEED": feed, "DATA_DIR": str(tmp_path), "MATCH_DB": ledger, "TESTING": True,
                      "CLUB_POLL_SECONDS": 0.02})
    with Store(ledger) as st:
        _league(st)
    return app


def test_club_api_gives_tables_standings_and_checks(app):
    c = app.test_client()
    r = c.get("/api/club?league=L")
    assert r.status_code == 200
    data = r.get_json()
    assert [(t["table"], t["finished"]) for t in data["tables"]] == [("T3", False), ("T2", True), ("T1", True)]
    assert [(s["player"], s["score"], s["matches"]) for s in data["standings"]] == [
        ("A", 33.0, 1), ("C", 32.0, 2), ("E", 26.0, 1), ("G", -5.0, 1), ("F", -21.0, 1), ("D", -32.0, 1),
        ("B", -33.0, 2)]
    assert (data["leagues"], data["tournaments"], data["problems"]) == (["L", "M"], [], [])
    assert c.get("/club").status_code == 200


@pytest.mark.parametrize("query, field", [("league=L&tournament=X", "league"), ("since=yesterday", "since"),
                                          ("league=" + "x" * 65, "league")])
def test_bad_filters_are_400s_naming_the_field(app, query, field):
    r = app.test_client().get(f"/api/club?{query}")
    assert (r.status_code, r.get_json()["field"]) == (400, field)


def test_the_stream_sends_the_standings_again_when_a_table_records_a_hand(app, ledger):
    c = app.test_client()
    resp = c.get("/api/club/events?league=L", buffered=False)
    chunks = resp.response
    events: list[dict] = []

    def read() -> None:
        buf = ""
        for chunk in chunks:
            buf += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buf:
                block, buf = buf.split("\n\n", 1)
                data = [ln[6:] for ln in block.splitlines() if ln.startswith("data: ")]
                if data:
                    events.append(json.loads(data[0]))
                    if len(events) == 2:
                        return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 10
    while not events and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [s["player"] for s in events[0]["standings"]][:3] == ["A", "C", "E"]
    with Store(ledger) as st:  # table T3 records a hand: G rons E for 8,000 (+1,000 for the honba)
        st.append("t4", ron("G", "E", 8000), by="T3 tablet")
    reader.join(timeout=10)
    resp.close()
    assert len(events) == 2
    t3 = next(t for t in events[1]["tables"] if t["table"] == "T3")
    assert (t3["points"], t3["status"]) == ([27000, 34000, 44000], "playing East 2")
    # G: (44,000 - 40,000) / 1,000 + 15 + 15 = +34; E: -13 - 15 = -28 (was +26)
    assert [(s["player"], s["score"]) for s in events[1]["standings"]][:2] == [("G", 34.0), ("A", 33.0)]


def test_an_unreachable_ledger_is_a_503_with_the_reason(tmp_path):
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(tmp_path), "TESTING": True,
                      "MATCH_DB": "postgresql://nobody:secret@127.0.0.1:1/none"})
    r = app.test_client().get("/api/club")
    body = r.get_json()
    assert r.status_code == 503
    assert body["error"].startswith("the match ledger is not available: cannot connect to PostgreSQL at "
                                    "postgresql://nobody:***@127.0.0.1:1/none")
    assert app.test_client().get("/api/matches").status_code == 503


def test_a_match_started_on_the_page_keeps_its_table_and_who_started_it(app, ledger):
    c = app.test_client()
    r = c.post("/api/matches", json={"variant": "sanma", "players": ["Ann", "Bob", "Cid"], "table": "T9",
                                     "session": "2026-12-04", "league": "L", "by": "front desk"})
    assert r.status_code == 201, r.get_json()
    mid = r.get_json()["match"]
    r = c.post("/api/matches/current/undo", json={})
    assert r.status_code == 409  # nothing to undo yet: refused, nothing written
    with Store(ledger) as st:
        info = st.info(mid)
        assert (info.table, info.session, info.league) == ("T9", "2026-12-04", "L")
        assert [r.by for r in st.records(mid)] == ["front desk"]
    r = c.post("/api/matches", json={"variant": "sanma", "players": ["A", "B", "C"], "table": ""})
    assert (r.status_code, r.get_json()["error"]) == (422, "the table name must be a non-empty word or phrase")
