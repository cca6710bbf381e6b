"""SQLite persistence (WAL, synchronous=FULL, append-only), a writer killed with SIGKILL mid-burst,
and the CSV / JSON export round trip into a new database."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.match.events import Edit, MatchError, Undo, event_from_json
from assistant.match.export import FORMAT, log_to_json, records_from_json, score_sheet, state_json, to_csv
from assistant.match.state import fold
from assistant.match.store import Store, default_db_path

REPO = Path(__file__).resolve().parents[1]


def ev(event_type: str, /, **payload):
    return event_from_json({"type": event_type, "payload": payload})


def pay(frm: str, to: str, amount: int) -> dict:
    return {"from": frm, "to": to, "amount": amount}


def ron(winner: str, discarder: str, amount: int):
    return ev("win", discarder=discarder, winners=[{"player": winner, "payments": [pay(discarder, winner, amount)]}])


def small_sanma(st: Store) -> str:
    """A (dealer) rons B 2,900 → East 1, 1 honba; draw, B tenpai → A and C pay 1,000 to B, East 2, 2 honba;
    C riichi; B (dealer) rons C 2,000 + 2,000 honba + 1,000 stick."""
    mid = st.create_match("sanma", ["A", "B", "C"], {"uma": 20}, match_id="m1", time="2026-12-01T19:00:00+00:00")
    st.append(mid, ron("A", "B", 2900))
    st.append(mid, ev("draw", tenpai=["B"]))
    st.append(mid, ev("riichi", player="C"))
    st.append(mid, ron("B", "C", 2000))
    return mid


def test_sqlite_runs_in_wal_mode_with_full_sync(tmp_path):
    with Store(tmp_path / "m.db") as st:
        assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert st.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_persist_and_the_state_rebuilds_on_open(ledger):
    path = ledger
    with Store(path) as st:
        mid = small_sanma(st)
        live = st.state(mid)
    with Store(path) as st:
        records = st.records(mid)
        assert [r.seq for r in records] == [1, 2, 3, 4, 5]
        assert [r.event.type for r in records] == ["match_created", "win", "draw", "riichi", "win"]
        s = st.state(mid)
    assert s == live
    # A 35,000 + 2,900 − 1,000 (noten) = 36,900; B 35,000 − 2,900 + 2,000 (noten) + 5,000 = 39,100;
    # C 35,000 − 1,000 (noten) − 1,000 (riichi stick) − 4,000 (2,000 + 2 honba × 1,000) = 29,000
    assert s.points == (36900, 39100, 29000)
    assert s.label == "East 2, 3 honba"


def test_a_rejected_event_is_not_written(ledger):
    path = ledger
    with Store(path) as st:
        mid = small_sanma(st)
        with pytest.raises(MatchError, match="unknown player 'D'"):
            st.append(mid, ev("riichi", player="D"))
        with pytest.raises(MatchError, match="cannot undo event 1"):
            st.append(mid, Undo(1))
    with Store(path) as st:
        assert len(st.records(mid)) == 5


def test_events_are_append_only(tmp_path):
    with Store(tmp_path / "m.db") as st:
        mid = small_sanma(st)
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            st.conn.execute("UPDATE events SET payload = '{}' WHERE seq = 2")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            st.conn.execute("DELETE FROM events WHERE match_id = ?", (mid,))


def test_events_are_append_only_on_postgresql(pg_target):
    import psycopg

    with Store(pg_target) as st:
        mid = small_sanma(st)
        for sql in ("UPDATE events SET payload = '{}' WHERE seq = 2", f"DELETE FROM events WHERE match_id = '{mid}'",
                    "TRUNCATE events CASCADE"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                st.conn.execute(sql)
        assert len(st.records(mid)) == 5


def test_two_writers_share_one_database(ledger):
    path = ledger
    with Store(path) as one, Store(path) as two:
        mid = one.create_match("three-kaki", ["P", "Q", "R"])
        assert two.state(mid).points == (0, 0, 0)
        one.append(mid, ev("draw"))
        rec = two.append(mid, ev("draw"))  # two's cached log is stale: it rereads and appends seq 3
        assert rec.seq == 3
        assert one.state(mid).history[-1].number == 2


def test_resolve_ids_and_list(ledger):
    with Store(ledger) as st:
        a = st.create_match("sanma", ["A", "B", "C"], match_id="abc123")
        st.create_match("korean-3p", ["A", "B", "C"], match_id="abd999")
        assert st.resolve("abc") == a
        assert st.resolve(None) == "abd999"  # the match most recently written to
        with pytest.raises(MatchError, match="matches several matches"):
            st.resolve("ab")
        with pytest.raises(MatchError, match="no match 'zz'"):
            st.resolve("zz")
        assert [(m.id, m.events) for m in st.matches()] == [("abd999", 1), ("abc123", 1)]
        with pytest.raises(MatchError, match="already exists"):
            st.create_match("sanma", ["A", "B", "C"], match_id="abc123")


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.setenv("MAHJONG_ASSISTANT_DB", str(tmp_path / "x.db"))
    assert default_db_path() == tmp_path / "x.db"
    monkeypatch.delenv("MAHJONG_ASSISTANT_DB")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_db_path() == tmp_path / ".local/share/mahjong-assistant/matches.db"


CHILD = r"""
import sys
from assistant.match.events import PaymentEntry, Payout
from assistant.match.store import Store

st = Store(sys.argv[1])
mid = sys.argv[2]
for _ in range(100000):
    rec = st.append(mid, Payout("side bet", "Q", None, (PaymentEntry("P", "Q", 1, "side bet"),)))
    print(f"ack {rec.seq}", flush=True)
"""


def test_sigkill_in_a_burst_loses_no_acknowledged_event(ledger, tmp_path):
    path = ledger
    with Store(path) as st:
        mid = st.create_match("three-kaki", ["P", "Q", "R"])
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), mid], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    acked: list[int] = []
    try:
        assert child.stdout is not None
        for line in child.stdout:
            acked.append(int(line.split()[1]))
            if len(acked) == 40:
                os.kill(child.pid, signal.SIGKILL)
                break
    finally:
        if child.poll() is None:
            child.kill()
        rest, err = child.communicate(timeout=20)
    acked += [int(x.split()[1]) for x in rest.splitlines() if x.startswith("ack ")]
    assert child.returncode == -signal.SIGKILL, err
    assert acked[:3] == [2, 3, 4]
    with Store(path) as st:
        assert st.integrity_check() == "ok"
        records = st.records(mid)
        seqs = [r.seq for r in records]
        assert set(acked) <= set(seqs)  # every acknowledged event is there
        assert seqs == list(range(1, len(seqs) + 1))
        s = st.state(mid)
        paid = len(seqs) - 1  # each payout moved 1 point from P to Q
        assert s.points == (-paid, paid, 0)
        assert paid >= 40
        st.append(mid, ev("match_end"))  # and the match goes on being written to
        assert st.state(mid).finished


def _played_with_corrections(st: Store) -> str:
    mid = small_sanma(st)
    st.append(mid, Edit(3, ev("draw", tenpai=["A", "B"])))
    st.append(mid, ev("riichi", player="A"))
    st.append(mid, Undo(7))
    st.append(mid, ev("match_end", reason="time"))
    return mid


def test_json_export_imports_into_a_new_database_as_the_same_match(tmp_path):
    with Store(tmp_path / "a.db") as a:
        mid = _played_with_corrections(a)
        exported = json.dumps(log_to_json(mid, a.records(mid)))
        state_a, csv_a = a.state(mid), to_csv(a.state(mid))
    data = json.loads(exported)
    assert (data["format"], data["version"], len(data["events"])) == (FORMAT, 1, 9)
    match_id, records = records_from_json(data)
    with Store(tmp_path / "b.db") as b:
        new_id = b.write_log(match_id, records)
        assert new_id == mid
        assert b.state(mid) == state_a
        assert to_csv(b.state(mid)) == csv_a
        assert [(r.seq, r.event, r.time) for r in b.records(mid)] == [(r.seq, r.event, r.time) for r in records]
    with Store(tmp_path / "b.db") as b:  # reopened: rebuilt from the log alone
        assert fold(b.records(mid)) == state_a


def test_import_rejects_bad_exports_and_writes_nothing(tmp_path):
    with Store(tmp_path / "a.db") as a:
        data = log_to_json(small_sanma(a), a.records("m1"))
    with pytest.raises(MatchError, match="version 2 is not supported"):
        records_from_json({**data, "version": 2})
    bad = json.loads(json.dumps(data))
    bad["events"][3]["payload"]["player"] = "D"  # a riichi by nobody at the table
    _, records = records_from_json(bad)
    with Store(tmp_path / "b.db") as b:
        with pytest.raises(MatchError, match="event 4 \\(riichi\\): unknown player 'D'"):
            b.write_log(None, records)
        assert b.matches() == []


def test_csv_score_sheet_hand_by_hand(ledger):
    with Store(ledger) as st:
        mid = small_sanma(st)
        text = to_csv(st.state(mid))
    assert text.splitlines() == [
        "hand,label,dealer,result,A change,B change,C change,A total,B total,C total,sticks,details",
        "0,start,,,0,0,0,35000,35000,35000,0,",
        "1,East 1,A,\"A wins on B's discard (+2,900)\",2900,-2900,0,37900,32100,35000,0,A: payments entered by hand",
        "2,\"East 1, 1 honba\",A,\"exhaustive draw, tenpai: B\",-1000,2000,-1000,36900,34100,34000,0,",
        # C riichi (−1,000) then B rons C: 2,000 + 2 honba × 1,000 + the stick 1,000
        "3,\"East 2, 2 honba\",B,\"B wins on C's discard (+5,000)\",0,5000,-5000,36900,39100,29000,0,"
        "B: payments entered by hand",
    ]


def test_state_json_and_score_sheet(ledger):
    with Store(ledger) as st:
        mid = small_sanma(st)
        st.append(mid, ev("riichi", player="A"))
        s = st.state(mid)
    j = state_json(s, mid)
    assert j["points"] == {"A": 35900, "B": 39100, "C": 29000}
    assert (j["hand"], j["dealer"], j["sticks"], j["riichi"]) == ("East 2, 3 honba", "B", 1, ["A"])
    assert j["seats"] == {"A": "West", "B": "East", "C": "South"}
    assert j["in_hand_payments"] == [{"from": "A", "to": None, "amount": 1000, "reason": "riichi stick"}]
    assert j["hands"][1]["payments"] == [
        {"from": "A", "to": "B", "amount": 1000, "reason": "noten payment"},
        {"from": "C", "to": "B", "amount": 1000, "reason": "noten payment"},
    ]
    sheet = score_sheet(s, mid)
    assert "Next hand: East 2, 3 honba — dealer B" in sheet
    assert "in progress" in sheet
    assert "1. B" in sheet
