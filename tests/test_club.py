"""A club's ledger on both backends: schema versions and migration, many tables at once, one hand recorded once
from two devices, standings across matches worked out by hand, the tournament checks and the audit trail."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from assistant.match.club import audit, check, club_standings, match_problems, tables
from assistant.match.db import MIGRATIONS, SCHEMA_VERSION, connect, migrate, open_for_admin, redact
from assistant.match.events import MatchError, event_from_json
from assistant.match.export import club_from_json, log_to_json, records_from_json
from assistant.match.rules import match_options
from assistant.match.state import MatchState
from assistant.match.store import Store

REPO = Path(__file__).resolve().parents[1]


def ev(event_type: str, /, **payload):
    return event_from_json({"type": event_type, "payload": payload})


def ron(winner: str, discarder: str, amount: int):
    return ev("win", discarder=discarder,
              winners=[{"player": winner, "payments": [{"from": discarder, "to": winner, "amount": amount}]}])


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "MAHJONG_ASSISTANT_USER": "tester", **(env or {})}, timeout=120)


# --- schema versions -------------------------------------------------------------------------------------------


def _v1_sqlite(path: Path) -> None:
    """A ledger as the program wrote it before schema versions: version 1's statements only."""
    conn = sqlite3.connect(path)
    for sql in MIGRATIONS[0][2]["sqlite"]:
        conn.execute(sql)
    conn.execute("INSERT INTO matches VALUES ('old', 'sanma', '[\"A\", \"B\", \"C\"]', '2026-01-01T00:00:00+00:00')")
    conn.execute("INSERT INTO events (match_id, seq, type, payload, time) VALUES ('old', 1, 'match_created', ?, ?)",
                 (json.dumps({"variant": "sanma", "players": ["A", "B", "C"], "options": {}}),
                  "2026-01-01T00:00:00+00:00"))
    conn.commit()
    conn.close()


def test_an_old_sqlite_ledger_reads_as_it_is_and_is_migrated_when_written(tmp_path):
    path = tmp_path / "old.db"
    _v1_sqlite(path)
    with Store(path, readonly=True) as st:  # reading changes nothing
        assert st.version == 1
        assert [(m.id, m.table) for m in st.matches()] == [("old", None)]
        assert st.matches(league="L") == []
    with Store(path) as st:  # opened for writing: migrated, the old events kept
        assert st.version == SCHEMA_VERSION == 2
        rec = st.append("old", ev("riichi", player="A"), by="Ann's phone")
        assert [(r.seq, r.by) for r in st.records("old")] == [(1, ""), (2, "Ann's phone")]
        assert rec.by == "Ann's phone"
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM ledger_meta WHERE key = 'schema_version'").fetchone() == ("2",)


def test_db_commands_on_sqlite(tmp_path):
    path = tmp_path / "old.db"
    _v1_sqlite(path)
    r = cli("db", "status", "--db", str(path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (f"sqlite ledger at {path}: schema version 1, behind: run 'db migrate' (this "
                                f"program uses 2); 1 matches, 1 events")
    r = cli("db", "migrate", "--db", str(path))
    assert r.stdout.splitlines() == [
        f"migrated {path} from schema version 1 to 2:",
        "  2: a club's tables: table, session, league and tournament of a match; who recorded each event"]
    r = cli("db", "migrate", "--db", str(path))
    assert r.stdout.strip() == f"{path} is already at schema version 2"
    r = cli("db", "migrate", "--db", str(tmp_path / "new.db"))
    assert (r.returncode, r.stderr.strip()) == (2, f"error: {tmp_path / 'new.db'} has no match ledger yet: run "
                                                   f"'mahjong-assistant db init'")
    r = cli("db", "init", "--db", str(tmp_path / "new.db"))
    assert r.stdout.strip() == f"created the match ledger at {tmp_path / 'new.db'} (schema version 2)"


def test_a_postgresql_ledger_is_created_and_migrated_only_by_the_db_commands(pg_target):
    import psycopg

    from tests.conftest import pg_url_for_schema

    base = pg_target.split("?")[0]
    schema = "t_mig_" + pg_target[-6:]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = pg_url_for_schema(base, schema)
    try:
        with pytest.raises(MatchError, match="has no match ledger yet: run 'mahjong-assistant db init"):
            Store(url)
        admin = open_for_admin(url)
        assert migrate(admin, to=1) == ["1: matches, the append-only events log and request keys"]
        admin.close()
        with pytest.raises(MatchError, match="schema version 1, this program needs 2: run 'mahjong-assistant db "
                                             "migrate"):
            Store(url)
        r = cli("db", "migrate", "--db", url)
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines()[1] == ("  2: a club's tables: table, session, league and tournament of a "
                                            "match; who recorded each event")
        with Store(url) as st:
            assert st.version == 2
            assert st.db.dialect == "postgresql"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_a_server_that_is_not_there_is_one_clear_line():
    r = cli("match", "list", "--db", "postgresql://nobody:secret@127.0.0.1:1/none")
    assert r.returncode == 2
    assert r.stderr.startswith("error: cannot connect to PostgreSQL at postgresql://nobody:***@127.0.0.1:1/none: ")
    assert "secret" not in r.stderr and "Traceback" not in r.stderr
    assert redact("postgresql://u:pw@h:5432/d?x=1") == "postgresql://u:***@h:5432/d?x=1"


# --- many writers --------------------------------------------------------------------------------------------------


WRITER = r"""
import sys
from assistant.match.events import PaymentEntry, Payout
from assistant.match.store import Store

st = Store(sys.argv[1])
for i in range(int(sys.argv[3])):
    rec = st.append(sys.argv[2], Payout("side bet", "Q", None, (PaymentEntry("P", "Q", 1, "side bet"),)),
                    by=sys.argv[4])
    print(rec.seq, flush=True)
"""


def test_four_processes_writing_one_match_never_share_a_sequence_number(ledger):
    with Store(ledger) as st:
        mid = st.create_match("three-kaki", ["P", "Q", "R"])
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, ledger, mid, "25", f"w{i}"], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(4)]
    acked = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        acked += [int(x) for x in out.split()]
    assert sorted(acked) == list(range(2, 102))  # 100 events, each acknowledged once, no gaps
    with Store(ledger) as st:
        records = st.records(mid)
        assert [r.seq for r in records] == list(range(1, 102))
        assert sorted(r.by for r in records[1:]) == sorted([f"w{i}" for i in range(4)] * 25)
        assert st.state(mid).points == (-100, 100, 0)
        assert st.integrity_check() == "ok"


def test_one_hand_sent_from_eight_devices_at_once_is_recorded_once(ledger):
    with Store(ledger) as st:
        mid = st.create_match("sanma", ["A", "B", "C"])
        label = st.state(mid).label
    assert label == "East 1"
    barrier = threading.Barrier(8)
    answers: list[str] = []

    def device(i: int) -> None:
        with Store(ledger) as mine:
            barrier.wait()
            try:
                mine.append_all(mid, [ron("A", "B", 3900)], by=f"device {i}", at_hand=label)
                answers.append("ok")
            except MatchError as e:
                answers.append(str(e))

    threads = [threading.Thread(target=device, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert answers.count("ok") == 1, answers
    refused = [a for a in answers if a != "ok"]
    assert len(refused) == 7
    assert all(a.startswith("already recorded: East 1 was recorded as event 2 by device ") for a in refused)
    with Store(ledger) as st:
        assert len(st.records(mid)) == 2
        assert st.state(mid).points == (38900, 31100, 35000)
        # the next hand's result sent for the hand already recorded is never applied to the hand after it
        st.append(mid, ev("draw", tenpai=["A"]), at_hand="East 1, 1 honba")
        with pytest.raises(MatchError, match="already recorded: East 1 was recorded as event 2"):
            st.append_all(mid, [ron("C", "A", 1000)], at_hand="East 1")
        with pytest.raises(MatchError, match="the match is at East 1, 2 honba, not East 2"):
            st.append_all(mid, [ron("C", "A", 1000)], at_hand="East 2")


# --- standings across tables ------------------------------------------------------------------------------------


def _league(st: Store) -> None:
    """Two finished sanma matches of league L, one of league M, one L match still being played.

    Sanma defaults: start 35,000, return 40,000, uma 15, oka (40,000 - 35,000) x 3 / 1,000 = 15 to first.
    t1 (A, B, C): A rons B 8,000 -> A 43,000, C 35,000, B 27,000;
        A 3 + 15 + 15 = +33, C -5 + 0 = -5, B -13 - 15 = -28.
    t2 (B, C, D): C rons D 12,000 -> C 47,000, B 35,000, D 23,000;
        C 7 + 15 + 15 = +37, B -5, D -17 - 15 = -32.
    t3 (A, B, C) in league M: B rons A 2,000, ended.
    t4 (E, F, G) in L, open: E rons F 1,000 -> E 36,000, G 35,000, F 34,000 so far;
        E -4 + 15 + 15 = +26, G -5, F -6 - 15 = -21 (provisional).
    """
    for mid, players, win, table, league in (("t1", "ABC", ("A", "B", 8000), "T1", "L"),
                                             ("t2", "BCD", ("C", "D", 12000), "T2", "L"),
                                             ("t3", "ABC", ("B", "A", 2000), "T1", "M"),
                                             ("t4", "EFG", ("E", "F", 1000), "T3", "L")):
        st.create_match("sanma", list(players), match_id=mid, table=table, session="2026-12-02", league=league,
                        time="2026-12-02T18:00:00+00:00")
        st.append(mid, ron(*win), time="2026-12-02T19:00:00+00:00", by=f"{table} tablet")
        if mid != "t4":
            st.append(mid, ev("match_end", reason="time"), time="2026-12-02T21:00:00+00:00")


def test_club_standings_add_up_across_matches_and_tables(ledger):
    with Store(ledger) as st:
        _league(st)
        lines = club_standings(st, league="L", finished_only=True)
        got = [(t.player, t.matches, float(t.score), t.places[:3], t.hands_won, t.deal_ins, t.uma, float(t.oka))
               for t in lines]
        assert got == [
            ("A", 1, 33.0, [1, 0, 0], 1, 0, 15, 15.0),
            ("C", 2, 32.0, [1, 1, 0], 1, 0, 15, 15.0),   # -5 + 37
            ("D", 1, -32.0, [0, 0, 1], 0, 1, -15, 0.0),
            ("B", 2, -33.0, [0, 1, 1], 0, 1, -15, 0.0),  # -28 - 5
        ]
        assert [t.average_place for t in lines] == [1.0, 1.5, 3.0, 2.5]
        everything = club_standings(st, league="L")  # the open match counts as it stands
        assert [(t.player, float(t.score), t.matches, t.finished) for t in everything if t.player in "EFG"] == [
            ("E", 26.0, 1, 0), ("G", -5.0, 1, 0), ("F", -21.0, 1, 0)]
        assert [t.player for t in club_standings(st, league="M")] == ["B", "C", "A"]
        assert club_standings(st, since="2026-12-03") == []
        playing = [t.to_json() for t in tables(st) if not t.state.finished]
        assert [(t["table"], t["status"], t["points"]) for t in playing] == [
            ("T3", "playing East 1, 1 honba", [36000, 34000, 35000])]


def test_club_standings_on_the_command_line(tmp_path):
    db = str(tmp_path / "club.db")
    with Store(db) as st:
        _league(st)
    r = cli("club", "standings", "--db", db, "--league", "L", "--finished", "--csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "variant,rank,player,matches,finished,score,points,uma,oka,first,second,third,fourth,average_place,"
        "hands_won,deal_ins",
        "sanma,1,A,1,1,33.0,43000,15,15.0,1,0,0,0,1.00,1,0",
        "sanma,2,C,2,2,32.0,82000,15,15.0,1,1,0,0,1.50,1,0",
        "sanma,3,D,1,1,-32.0,23000,-15,0.0,0,0,1,0,3.00,0,1",
        "sanma,4,B,2,2,-33.0,62000,-15,0.0,0,1,1,0,2.50,0,1",
    ]
    r = cli("club", "standings", "--db", db, "--league", "L", "--json")
    data = json.loads(r.stdout)
    assert [(x["player"], x["score"]) for x in data["standings"]] == [
        ("A", 33.0), ("C", 32.0), ("E", 26.0), ("G", -5.0), ("F", -21.0), ("D", -32.0), ("B", -33.0)]
    r = cli("club", "tables", "--db", db)
    assert r.stdout.split() == "T3 [2026-12-02] sanma East 1, 1 honba E 36,000 · F 34,000 · G 35,000".split()
    r = cli("club", "standings", "--db", db, "--since", "yesterday")
    assert (r.returncode, r.stderr.splitlines()[-1]) == (
        2, "mahjong-assistant club standings: error: argument --since: --since takes a date like 2026-12-01, "
           "got 'yesterday'")


# --- tournament checks and the audit trail ------------------------------------------------------------------------


def test_a_tournament_table_plays_one_match_per_session(ledger, tmp_path):
    with Store(ledger) as st:
        st.create_match("sanma", ["A", "B", "C"], match_id="r1t1", table="T1", session="Round 1", tournament="Open")
        with pytest.raises(MatchError, match="already recorded: Open, session Round 1, table T1 has match r1t1"):
            st.create_match("sanma", ["D", "E", "F"], table="T1", session="Round 1", tournament="Open")
        st.create_match("sanma", ["A", "E", "F"], match_id="r1t2", table="T2", session="Round 1", tournament="Open")
        st.append("r1t1", ron("A", "B", 1000))
        st.append("r1t1", ev("match_end"))
        problems = [str(p) for p in check(st, tournament="Open")]
        assert problems == ["table T2, session Round 1: not finished (at East 1)",
                            "table T2, session Round 1: A also plays at table T1"]
        exported = log_to_json("r1t1", st.records("r1t1"), {"table": "T1", "session": "Round 1",
                                                              "tournament": "Open"})
    data = json.loads(json.dumps(exported))
    assert club_from_json(data) == {"table": "T1", "session": "Round 1", "league": None, "tournament": "Open"}
    _, records = records_from_json(data)
    with Store(ledger) as st, pytest.raises(MatchError, match="already recorded: Open, session Round 1, table T1"):
        st.write_log(None, records, **club_from_json(data))  # the same match imported twice


def test_totals_that_do_not_add_up_are_named():
    ok = MatchState("sanma", ("A", "B", "C"), match_options("sanma"), (52000, 38000, 15000), finished=True)
    assert match_problems(ok) == []
    bad = MatchState("sanma", ("A", "B", "C"), match_options("sanma"), (52000, 38000, 14000), finished=True)
    assert match_problems(bad) == ["points add up to 104,000, not 3 x 35,000 = 105,000"]
    hk = MatchState("hong-kong", ("A", "B", "C", "D"), match_options("hong-kong"), (8, -8, 0, 1))
    assert match_problems(hk) == ["points add up to 1, not 4 x 0 = 0"]


def test_the_audit_trail_names_who_corrected_what(ledger, tmp_path):
    with Store(ledger) as st:
        _league(st)
        st.append("t1", ev("undo", event=3), by="referee", time="2026-12-02T21:05:00+00:00")  # reopens t1
        st.append("t1", ev("edit", event=2, replacement=ron("A", "B", 3900).to_json()), by="referee",
                  time="2026-12-02T21:06:00+00:00")
        rows = [c.to_json() for c in audit(st)]
        assert rows == [
            {"match": "t1", "table": "T1", "event": 4, "time": "2026-12-02T21:05:00+00:00", "by": "referee",
             "what": "voided event 3 (match_end)"},
            {"match": "t1", "table": "T1", "event": 5, "time": "2026-12-02T21:06:00+00:00", "by": "referee",
             "what": "replaced event 2 (win) by a win"},
        ]
        assert st.state("t1").points == (38900, 31100, 35000)
        exported = log_to_json("t1", st.records("t1"))
    assert [e.get("by") for e in exported["events"]] == [None, "T1 tablet", None, "referee", "referee"]


def test_match_commands_keep_who_recorded_and_where(tmp_path):
    db = str(tmp_path / "m.db")
    r = cli("match", "new", "--db", db, "-v", "sanma", "--players", "Ann", "Bob", "Cid", "--id", "x1",
            "--table", "Table 3", "--session", "2026-12-04", "--league", "Winter")
    assert r.returncode == 0, r.stderr
    r = cli("match", "record", "win", "Ann", "--from", "Bob", "--pay", "3900", "--db", db, "--for", "East 1",
            "--by", "Ann's phone")
    assert r.returncode == 0, r.stderr
    r = cli("match", "record", "win", "Ann", "--from", "Bob", "--pay", "3900", "--db", db, "--for", "East 1")
    assert (r.returncode, r.stderr.strip()) == (
        2, "error: already recorded: East 1 was recorded as event 2 by Ann's phone (undo it first to record it "
           "again)")
    r = cli("match", "undo", "--db", db)
    assert r.returncode == 0, r.stderr
    r = cli("club", "audit", "--db", db)
    assert r.stdout.split("  ", 1)[1].split() == \
        "Table 3 event 3 by tester: voided event 2 (win) (recorded by Ann's phone)".split()
    r = cli("match", "list", "--db", db, "--league", "Winter")
    assert r.stdout.rstrip().endswith("[table Table 3  session 2026-12-04  league Winter]")
    with Store(db) as st:
        assert [(r.seq, r.by) for r in st.records("x1")] == [(1, "tester"), (2, "Ann's phone"), (3, "tester")]


def test_connect_refuses_a_file_that_is_not_a_ledger(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MatchError, match="is not a match database"):
        connect(junk)


def test_a_watching_store_sees_each_tables_new_events(ledger):
    with Store(ledger) as writer, Store(ledger) as watcher:
        _league(writer)
        before = {t.info.id: len(t.records) for t in tables(watcher)}
        assert before == {"t4": 2, "t3": 3, "t2": 3, "t1": 3}
        writer.append("t4", ron("G", "E", 8000))
        writer.append("t2", ev("undo", event=3))  # reopens t2
        after = {t.info.id: (len(t.records), t.state.finished) for t in tables(watcher)}
        assert after == {"t2": (4, False), "t4": (3, False), "t3": (3, True), "t1": (3, True)}
        assert watcher.state("t4").points == (27000, 34000, 44000)


def test_looking_at_a_ledger_that_is_not_there_creates_nothing(tmp_path):
    db = tmp_path / "none.db"
    r = cli("db", "status", "--db", str(db))
    assert (r.returncode, r.stdout.strip()) == (
        0, f"no ledger at {db} yet (run 'db init', or start a match with 'match new')")
    for action in ("standings", "tables", "check", "audit"):
        r = cli("club", action, "--db", str(db))
        assert (r.returncode, r.stdout.strip()) == (0, f"no matches in {db}"), action
    assert list(tmp_path.iterdir()) == []
