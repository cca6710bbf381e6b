"""The ``match`` command group, through the real command line (assistant.cli.main)."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main as cli_main
from assistant.match.store import Store


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "m.db")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli_main(list(argv))  # the real command line: bad input -> message on stderr, status 2
    out = capsys.readouterr()
    return rc, out.out, out.err


def new_sanma(capsys, db: str) -> str:
    rc, out, _ = run(capsys, "match", "new", "--variant", "sanma", "--players", "Ann", "Bob", "Cid",
                     "--db", db, "--option", "uma=20", "--id", "club1")
    assert rc == 0 and out.strip() == "club1"
    return "club1"


def test_a_short_match_from_the_command_line(capsys, db):
    new_sanma(capsys, db)
    rc, out, _ = run(capsys, "match", "record", "riichi", "Bob", "--db", db)
    assert rc == 0 and out.splitlines()[0] == "event 2: riichi"
    rc, out, _ = run(capsys, "match", "record", "win", "Bob", "--from", "Cid", "--pay", "3900", "--db", db)
    assert out.splitlines() == [
        "event 3: win — East 1: Bob wins on Cid's discard (+4,900)",
        "next: East 2, dealer Bob — Ann 35,000 · Bob 38,900 · Cid 31,100",
    ]
    # "E" is the seat wind of the dealer (Bob) in this hand; Ann is West and noten
    rc, out, _ = run(capsys, "match", "record", "draw", "--tenpai", "E", "Cid", "--db", db)
    assert "exhaustive draw, tenpai: Bob, Cid" in out
    rc, out, _ = run(capsys, "match", "record", "win", "Ann", "--tsumo", "--pay", "Bob:2000", "--pay", "Cid:1000",
                     "--db", db)
    # Ann −2,000 (noten) then tsumo: 2,000 + 1,000 + 1 honba × 500 from each = +4,000
    assert out.splitlines()[-1] == "next: East 3, dealer Cid — Ann 37,000 · Bob 37,400 · Cid 30,600"
    rc, out, _ = run(capsys, "match", "show", "--db", db)
    assert rc == 0
    assert "Match club1 — sanma: Ann, Bob, Cid" in out and "Options: uma=20" in out
    assert "East 2, 1 honba" in out and "Standings (so far):" in out
    rc, out, _ = run(capsys, "match", "show", "--json", "--db", db)
    data = json.loads(out)
    assert data["points"] == {"Ann": 37000, "Bob": 37400, "Cid": 30600}
    assert [h["label"] for h in data["hands"]] == ["East 1", "East 2", "East 2, 1 honba"]


def test_undo_edit_and_raw_events(capsys, db):
    new_sanma(capsys, db)
    run(capsys, "match", "record", "win", "Bob", "--from", "Cid", "--pay", "3900", "--db", db)
    run(capsys, "match", "record", "draw", "--db", db)
    rc, out, _ = run(capsys, "match", "undo", "--db", db)
    assert out.splitlines()[0] == "event 4: undo of event 3 (draw)"
    rc, out, _ = run(capsys, "match", "edit", "--event", "2", '{"discarder": "Ann", "winners": '
                     '[{"player": "Bob", "payments": [{"from": "Ann", "to": "Bob", "amount": 1000}]}]}', "--db", db)
    assert rc == 0 and out.splitlines()[0] == "event 5: edit of event 2 (now win)"
    event = json.dumps({"type": "riichi", "payload": {"player": "Cid"}})
    rc, out, _ = run(capsys, "match", "record", "event", event, "--db", db)
    assert out.splitlines()[0] == "event 6: riichi"
    with Store(db) as st:
        s = st.state("club1")
    assert s.points == (34000, 36000, 34000)  # Ann paid Bob 1,000; Cid's stick is on the table
    assert s.sticks == 1


def test_bad_input_exits_2_and_writes_nothing(capsys, db):
    new_sanma(capsys, db)
    rc, _, err = run(capsys, "match", "record", "riichi", "Dan", "--db", db)
    assert rc == 2 and err.strip() == "error: unknown player 'Dan'; the players are Ann, Bob, Cid"
    rc, _, err = run(capsys, "match", "record", "win", "Bob", "--db", db, "--pay", "100")
    assert rc == 2 and "--tsumo (self-draw) or --from DISCARDER" in err
    rc, _, err = run(capsys, "match", "record", "win", "Bob", "--tsumo", "--pay", "Ann:Bob:x", "--db", db)
    assert rc == 2 and "payment amount 'x' is not a whole number" in err
    rc, _, err = run(capsys, "match", "new", "--variant", "sanma", "--players", "A", "B", "--db", db)
    assert rc == 2 and "sanma is played by 3 players, not 2" in err
    rc, _, err = run(capsys, "match", "new", "--variant", "sanma", "--players", "A", "B", "C", "--option",
                     "uma=big", "--db", db)
    assert rc == 2 and "option 'uma' of sanma must be a whole number" in err
    with Store(db) as st:
        assert [m.id for m in st.matches()] == ["club1"]
        assert len(st.records("club1")) == 1


def test_main_reports_errors_with_status_2(capsys, db, tmp_path):
    assert cli_main(["match", "show", "--db", db]) == 2
    assert "no match database at" in capsys.readouterr().err
    # read-only commands create nothing and change nothing
    new = tmp_path / "new" / "x.db"
    for cmd in (["match", "show"], ["match", "export"], ["match", "list"]):
        assert cli_main([*cmd, "--db", str(new)]) in (0, 2)
    assert not new.parent.exists()
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert cli_main(["match", "show", "--db", str(text)]) == 2
    assert "is not a match database" in capsys.readouterr().err
    assert text.read_text() == "hello"


def test_export_import_and_list(capsys, db, tmp_path):
    new_sanma(capsys, db)
    run(capsys, "match", "record", "win", "Ann", "--from", "Bob", "--pay", "5800", "--db", db)
    out_csv = tmp_path / "sheet.csv"
    rc, out, _ = run(capsys, "match", "export", "--format", "csv", "--out", str(out_csv), "--db", db)
    assert rc == 0 and out_csv.read_text().splitlines()[2].startswith("1,East 1,Ann,")
    out_json = tmp_path / "match.json"
    run(capsys, "match", "export", "--format", "json", "--out", str(out_json), "--db", db)
    other = str(tmp_path / "other.db")
    rc, out, _ = run(capsys, "match", "import", str(out_json), "--db", other)
    assert rc == 0
    assert out.splitlines() == ["club1", "imported 2 events: sanma, Ann, Bob, Cid, next hand East 1, 1 honba"]
    rc, out, _ = run(capsys, "match", "export", "--format", "csv", "--db", other)
    assert out == out_csv.read_text()
    rc, _, err = run(capsys, "match", "import", str(out_json), "--db", other)
    assert rc == 2 and "already exists" in err
    rc, out, _ = run(capsys, "match", "import", str(out_json), "--new-id", "--db", other)
    assert rc == 0
    rc, out, _ = run(capsys, "match", "list", "--db", other)
    lines = out.splitlines()
    assert len(lines) == 2 and any(line.startswith("club1  sanma") for line in lines)


def test_three_kaki_payouts_and_end(capsys, db):
    pytest.importorskip("assistant.scoring.three_kaki")
    run(capsys, "match", "new", "--variant", "three-kaki", "--players", "P", "Q", "R", "--db", db)
    rc, out, _ = run(capsys, "match", "record", "payout", "concealed_kong", "Q", "--db", db)
    assert rc == 0 and out.splitlines()[-1] == "next: Hand 1, dealer P — P -2 · Q 4 · R -2"
    rc, out, _ = run(capsys, "match", "record", "payout", "exposed_kong", "R", "--from", "P", "--db", db)
    assert out.splitlines()[-1] == "next: Hand 1, dealer P — P -3 · Q 3 · R 0"
    rc, out, _ = run(capsys, "match", "record", "chombo", "R", "--db", db)
    assert out.splitlines()[-1] == "next: Hand 1, dealer P — P 21 · Q 27 · R -48"
    rc, out, _ = run(capsys, "match", "record", "end", "--reason", "closing time", "--db", db)
    assert out.splitlines()[-1] == "match finished (closing time): P 21 · Q 27 · R -48"


def test_scored_win_from_the_command_line(capsys, db):
    mod = pytest.importorskip("assistant.scoring.sanma")
    if not callable(getattr(mod, "score", None)):
        pytest.skip("the sanma scorer has no score() yet")
    new_sanma(capsys, db)
    rc, out, _ = run(capsys, "match", "record", "win", "Bob", "--tsumo", "--hand", "111m234p678p34s99s5s*",
                     "--db", db)
    # sanma E1: South tsumo 1 han 30 fu: dealer Ann pays 500, Cid 300
    assert rc == 0 and out.splitlines()[-1] == "next: East 2, dealer Bob — Ann 34,500 · Bob 35,800 · Cid 34,700"
