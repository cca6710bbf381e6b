"""Exports and imports as an attacker writes them: spreadsheet formulas in names, terminal escapes in names, numbers
of 300 digits, lists where a number or a word belongs, match ids and event times that are not, and a hand still
being played: each one a CSV cell shown as text, a name shown escaped, or one clear line and exit status 2."""

from __future__ import annotations

import copy
import csv
import io
import json
import sqlite3

import pytest

from assistant.cli import main as cli_main
from assistant.match.mjai import to_mjai
from assistant.match.store import Store
from assistant.play import Discard, Draw, HandLog
from tests.test_club import ev, ron
from tests.test_match_mjai import HANDS, worked_hand
from webui import create_app
from webui.feed import ScriptedDemoFeed

EVIL = ['=HYPERLINK("http://e.vil","x")', "@SUM(A1:A9)", "+1-2", "-3+4"]


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "m.db")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli_main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def one_error(capsys, *argv: str) -> str:
    """The one ``error:`` line of a refused command (exit status 2)."""
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    return err.strip()


# --- CSV: formulas stay text -------------------------------------------------------------------------------------


def test_csv_cells_that_a_spreadsheet_would_run_are_escaped():
    from assistant.match.export import csv_cell

    assert [csv_cell(v) for v in ("=1+1", "+1+1", "-A1", "@x", "\tx", "\rx", "Ann", "-12.0", "+3", -3900, 1.5)] == [
        "'=1+1", "'+1+1", "'-A1", "'@x", "'\tx", "'\rx", "Ann", "-12.0", "+3", -3900, 1.5]


def test_the_score_sheet_csv_escapes_formulas_in_names(capsys, db):
    rc, out, _ = run(capsys, "match", "new", "--db", db, "--variant", "sanma", "--players", *EVIL[:3], "--id", "m1")
    assert (rc, out) == (0, "m1\n")
    assert run(capsys, "match", "record", "win", EVIL[0], "--from", EVIL[1], "--pay", "3900", "--db", db)[0] == 0
    rc, out, _ = run(capsys, "match", "export", "--db", db, "--format", "csv")
    assert rc == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:7] == ["hand", "label", "dealer", "result", "'" + EVIL[0] + " change", "'" + EVIL[1] + " change",
                           "'" + EVIL[2] + " change"]
    assert rows[2][:7] == ["1", "East 1", "'" + EVIL[0], f"'{EVIL[0]} wins on {EVIL[1]}'s discard (+3,900)", "3900",
                           "-3900", "0"]
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(db) + ".web", "MATCH_DB": db,
                      "TESTING": True})
    assert app.test_client().get("/api/matches/m1/export.csv").get_data(as_text=True) == out


def test_the_club_standings_csv_escapes_formulas_in_names(capsys, db):
    with Store(db) as st:
        st.create_match("sanma", EVIL[1:], match_id="m1", league="L")
        st.append("m1", ron(EVIL[1], EVIL[2], 8000))
    rc, out, _ = run(capsys, "club", "standings", "--db", db, "--csv")
    assert rc == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert [(r[2], r[5]) for r in rows[1:]] == [("'@SUM(A1:A9)", "33.0"), ("'-3+4", "-5.0"), ("'+1-2", "-28.0")]


# --- names with control characters and terminal escapes ---------------------------------------------------------

ESC = ["Ann\x1b[2J\x1b[H", "Bob\x1b]0;pwned\x07", "Cid\u202egnp.exe"]
SHOWN = ["Ann\\x1b[2J\\x1b[H", "Bob\\x1b]0;pwned\\x07", "Cid\\u202egnp.exe"]


def test_names_with_terminal_escapes_are_printed_escaped(capsys, db):
    with Store(db) as st:
        st.create_match("sanma", ESC, match_id="m1", table="T1", league="L", session="S1")
        st.append("m1", ron(ESC[0], ESC[1], 8000), by="T1 tablet")
    with sqlite3.connect(db) as conn:  # an undo recorded by an older version, with an escape in who did it
        conn.execute("INSERT INTO events (match_id, seq, type, payload, time, author) VALUES ('m1', 3, 'undo', "
                     "'{\"event\": 2}', '2026-12-04T20:00:00+00:00', ?)", ("ref\x1b[31m",))
    outputs = {}
    for argv in (("match", "list"), ("match", "show"), ("club", "tables"), ("club", "standings"),
                 ("club", "audit"), ("club", "check")):
        rc, out, err = run(capsys, *argv, "--db", db)
        assert rc == 0, (argv, err)
        assert all(c.isprintable() for line in out.splitlines() for c in line), argv
        outputs[argv] = out
    assert f"{SHOWN[0]}, {SHOWN[1]}, {SHOWN[2]}" in outputs[("match", "list")]
    assert f"T1           [S1]  sanma       East 1                    {SHOWN[0]} 35,000 · {SHOWN[1]} 35,000 · " \
           f"{SHOWN[2]} 35,000" in outputs[("club", "tables")]
    assert "event 3    by ref\\x1b[31m: voided event 2 (win) (recorded by T1 tablet)" in outputs[("club", "audit")]
    assert SHOWN[2] in outputs[("club", "standings")] and SHOWN[1] in outputs[("match", "show")]
    err = one_error(capsys, "match", "record", "riichi", "Dee", "--db", db)  # a message naming the players
    assert err == f"error: unknown player 'Dee'; the players are {SHOWN[0]}, {SHOWN[1]}, {SHOWN[2]}"


def test_an_import_refuses_control_characters_in_who_recorded(capsys, db, tmp_path):
    export = exported(capsys, db, tmp_path)
    export["events"][1]["by"] = "\x1b]0;pwned\x07"
    assert imported(capsys, db, tmp_path, export) == \
        "error: event 2 of the export: 'by' must be a name of at most 64 printable characters"


# --- imports: numbers, lists, ids and times ----------------------------------------------------------------------


def exported(capsys, db, tmp_path) -> dict:
    assert run(capsys, "match", "new", "--db", db, "--variant", "sanma", "--players", "A", "B", "C", "--id", "m1",
               "--by", "desk")[0] == 0
    assert run(capsys, "match", "record", "win", "A", "--from", "B", "--pay", "3900", "--db", db)[0] == 0
    out = tmp_path / "export.json"
    assert run(capsys, "match", "export", "--db", db, "--format", "json", "--out", str(out))[0] == 0
    return json.loads(out.read_text())


def imported(capsys, db, tmp_path, data: dict, *extra: str) -> str:
    path = tmp_path / "import.json"
    path.write_text(json.dumps(data))
    return one_error(capsys, "match", "import", str(path), "--db", str(tmp_path / "other.db"), *extra)


def _set(path, value):
    def change(data):
        *where, last = path
        for key in where:
            data = data[key]
        data[last] = value
    return change


@pytest.mark.parametrize("change, message", [
    (_set(("events", 1, "seq"), [2]), "event #2 of the export: 'seq' must be a whole number from 1, got [2]"),
    (_set(("events", 1, "seq"), "2"), "event #2 of the export: 'seq' must be a whole number from 1, got \"2\""),
    (_set(("events", 1, "seq"), 1e300), "event #2 of the export: 'seq' must be a whole number from 1, got 1e+300"),
    (_set(("events", 1, "type"), ["win"]), "event 2 of the export: 'type' must be an event type name, got [\"win\"]"),
    (_set(("events", 1, "payload", "winners", 0, "payments", 0, "amount"), 1e300),
     "event 2 of the export: payment 'amount' must be at most 10,000,000 (no hand is worth more), got 1e+300"),
    (_set(("events", 1, "payload", "winners", 0, "payments", 0, "amount"), 10**300),
     "event 2 of the export: payment 'amount' must be at most 10,000,000 (no hand is worth more), got a huge number"),
    (_set(("events", 0, "payload", "options"), {"start_points": 10**300}),
     "event 1 (match_created): option 'start_points' of sanma must be at most 1,000,000,000 either way, not a huge "
     "number"),
    (_set(("events", 0, "payload", "options"), {"return_points": -10**12}),
     "event 1 (match_created): option 'return_points' of sanma must be at least 1, not -1000000000000"),
    (_set(("events", 1, "time"), "yesterday"),
     "the time of event 2 must be a date and time with its UTC offset, like 2026-12-04T19:30:00+00:00; got "
     "\"yesterday\""),
    (_set(("events", 1, "time"), "2026-12-04T19:30:00"),
     "the time of event 2 must be a date and time with its UTC offset, like 2026-12-04T19:30:00+00:00; got "
     "\"2026-12-04T19:30:00\""),
    (_set(("events", 1, "time"), [2026, 12, 4]),
     "event 2 of the export: 'time' must be a date and time like 2026-12-04T19:30:00+00:00, got [2026, 12, 4]"),
    (_set(("match", "id"), {"id": 1}), "the export's match 'id' must be a string, got {\"id\": 1}"),
    (_set(("match", "id"), "../etc/passwd"),
     "a match id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; got \"../etc/passwd\""),
    (_set(("match", "id"), "m1\x1b[2J"),
     "a match id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; got \"m1\\u001b[2J\""),
    (_set(("match", "id"), "current"),
     "'current' cannot be a match id: the page uses it for the match chosen in the settings"),
    (_set(("match",), ["m1"]), "the export's 'match' must be a JSON object, got [\"m1\"]"),
])
def test_a_bad_import_is_one_line_naming_what_is_wrong(capsys, db, tmp_path, change, message):
    export = exported(capsys, db, tmp_path)
    bad = copy.deepcopy(export)
    change(bad)
    assert imported(capsys, db, tmp_path, bad) == f"error: {message}"
    assert not (tmp_path / "other.db").exists() or run(capsys, "match", "list", "--db",
                                                       str(tmp_path / "other.db"))[1].startswith("no matches")


def test_event_times_are_kept_in_utc(capsys, db, tmp_path):
    export = exported(capsys, db, tmp_path)
    export["events"][1]["time"] = "2026-12-05T04:30:00+09:00"
    path = tmp_path / "import.json"
    path.write_text(json.dumps(export))
    other = str(tmp_path / "other.db")
    rc, out, err = run(capsys, "match", "import", str(path), "--db", other)
    assert (rc, out.splitlines()[0]) == (0, "m1"), err
    with Store(other) as st:
        assert [r.time for r in st.records("m1")][1] == "2026-12-04T19:30:00+00:00"


@pytest.mark.parametrize("match_id, message", [
    ("a b", "a match id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; got \"a b\""),
    ("x" * 65, "a match id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; got "
               "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("current", "'current' cannot be a match id: the page uses it for the match chosen in the settings"),
])
def test_match_new_checks_the_id(capsys, db, match_id, message):
    assert one_error(capsys, "match", "new", "--db", db, "--variant", "sanma", "--players", "A", "B", "C",
                     "--id", match_id) == f"error: {message}"


def test_calibration_corners_of_huge_numbers_are_a_400(tmp_path):
    app = create_app({"FEED": ScriptedDemoFeed(auto=False), "DATA_DIR": str(tmp_path), "TESTING": True})
    c = app.test_client()
    for x in (1e300, 10**400):
        r = c.post("/api/calibration", data=json.dumps({"camera": "demo", "image_size": [640, 480],
                                                          "corners": [[x, 0], [600, 0], [600, 400], [0, 400]]}),
                   content_type="application/json")
        assert (r.status_code, r.get_json()["field"]) == (400, "corners[0]")
        assert r.get_json()["error"].startswith("corner 1 must be [x, y] in pixels, got [")


# --- hand logs -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("log, message", [
    ({"variant": ["sanma"], "events": []}, 'a hand log is {"variant": ..., "events": [...]}'),
    ([{"variant": "sanma", "events": []}], 'a hand log is {"variant": ..., "events": [...]}'),
    ({"hands": [["sanma"]]}, 'a hand log is {"variant": ..., "events": [...]}'),
    ({"variant": "sanma", "events": [{"type": "deal", "variant": "sanma", "hands": list(HANDS), "points": 1e300}]},
     "deal.points must be a list of numbers, one per seat, got 1e+300"),
    ({"variant": "sanma", "events": [{"type": "deal", "variant": "sanma", "hands": list(HANDS),
                                      "names": [["Ann"], "Bob", "Cid"]}]},
     'deal.names must be a list of names, one per seat, got [["Ann"], "Bob", "Cid"]'),
    ({"variant": "sanma", "events": [{"type": "deal", "variant": {"name": "sanma"}, "hands": list(HANDS)}]},
     'deal.variant must be a rule system\'s name, got {"name": "sanma"}'),
    ({"variant": "sanma", "events": [{"type": "deal", "variant": "sanma", "hands": list(HANDS)},
                                     {"type": "draw", "seat": None, "tile": "1m"}]},
     "draw.seat must be a seat number (0 = East/dealer), got null"),
    ({"variant": "sanma", "events": [{"type": "deal", "variant": "sanma", "hands": list(HANDS)},
                                     {"type": "draw", "seat": 0, "tile": None}]},
     "draw.tile must be a tile code such as 5p, got null"),
])
def test_a_bad_hand_log_is_one_line(capsys, tmp_path, log, message):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(log))
    assert one_error(capsys, "match", "export", "--format", "mjai", "--hands", str(path)) == \
        f"error: {path}: not a hand log the engine can replay: {message}"


def unfinished() -> HandLog:
    log = HandLog("sanma")
    from assistant.play import Deal

    for e in (Deal("sanma", HANDS, dora_indicators="5z", names=("Ann", "Bob", "Cid")), Draw(0, "7z"),
              Discard(0, "7z")):
        log.append(e)
    return log


def test_a_hand_still_being_played_is_not_written_as_finished(capsys, tmp_path):
    lines = to_mjai([unfinished()])
    assert [e["type"] for e in lines] == ["start_game", "start_kyoku", "tsumo", "dahai"]
    assert [e["type"] for e in to_mjai([worked_hand(), unfinished()])][-4:] == [
        "end_kyoku", "start_kyoku", "tsumo", "dahai"]
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(unfinished().to_json()))
    rc, out, err = run(capsys, "match", "export", "--format", "mjai", "--hands", str(path))
    assert rc == 0
    assert [json.loads(line)["type"] for line in out.splitlines()] == ["start_game", "start_kyoku", "tsumo", "dahai"]
    assert err == "note: the last hand is still being played: it stops at its latest event (no end_kyoku, no " \
                  "end_game)\n"
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"hands": [unfinished().to_json(), worked_hand().to_json()]}))
    assert one_error(capsys, "match", "export", "--format", "mjai", "--hands", str(both)) == (
        "error: hand 1 of 2 is not finished (it stops after 3 events), yet another hand follows it: give the hands "
        "of one game, in order")
    finished = [e["type"] for e in to_mjai([worked_hand()])]
    assert finished[-2:] == ["end_kyoku", "end_game"]


def test_records_seen_as_an_exported_log_still_import(capsys, db, tmp_path):
    export = exported(capsys, db, tmp_path)
    path = tmp_path / "import.json"
    path.write_text(json.dumps(export))
    other = str(tmp_path / "other.db")
    rc, out, err = run(capsys, "match", "import", str(path), "--db", other)
    assert (rc, out) == (0, "m1\nimported 2 events: sanma, A, B, C, next hand East 1, 1 honba\n"), err
    with Store(db) as a, Store(other) as b:
        assert [(r.seq, r.event, r.time, r.by) for r in a.records("m1")] == \
            [(r.seq, r.event, r.time, r.by) for r in b.records("m1")]
    assert ev("riichi", player="A").type == "riichi"
