"""A sanma match exported as a tenhou.net/6 JSON log, read back with the format's field meanings."""

from __future__ import annotations

import json

import pytest

from assistant.cli import main as cli_main
from assistant.match.tenhou import tenhou_tile


def test_tile_numbers():
    assert [tenhou_tile(c) for c in ("1m", "9m", "1p", "5p", "9s", "1z", "4z", "7z", "0m", "0p", "0s")] == \
        [11, 19, 21, 25, 39, 41, 44, 47, 51, 52, 53]
    with pytest.raises(ValueError, match="no tenhou.net/6 number"):
        tenhou_tile("1f")


def run(capsys, *args):
    rc = cli_main(list(args))
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


def test_a_sanma_match_as_a_tenhou6_log(capsys, tmp_path):
    db = str(tmp_path / "m.db")
    run(capsys, "match", "new", "--variant", "sanma", "--players", "Ann", "Bob", "Cho", "--db", db)
    run(capsys, "match", "record", "riichi", "Cho", "--db", db)
    run(capsys, "match", "record", "win", "Bob", "--tsumo", "--hand", "111m 234p 678p 34s 99s 5s*", "--dora", "0p4z",
        "--db", db)
    run(capsys, "match", "record", "draw", "--tenpai", "Cho", "Ann", "--db", db)
    run(capsys, "match", "record", "win", "Ann", "--from", "Cho", "--pay", "3900", "--db", db)
    sheet = json.loads(run(capsys, "match", "show", "--json", "--db", db))
    log = json.loads(run(capsys, "match", "export", "--format", "tenhou6", "--db", db))
    assert log["name"] == ["Ann", "Bob", "Cho", ""]            # seats in the first hand's order, no North
    assert log["rule"]["aka"] == 1
    hands = log["log"]
    assert len(hands) == len(sheet["hands"]) == 3
    for hand, row in zip(hands, sheet["hands"], strict=True):
        (kyoku, _honba, sticks), scores = hand[0], hand[1]
        assert len(hand) == 17 and hand[4:16] == [[]] * 12     # no draw/discard stream in the ledger
        assert kyoku == ["Ann", "Bob", "Cho"].index(row["dealer"])      # East 1-3: the dealer's seat
        deltas = hand[16][1]
        assert deltas == [row["changes"]["Ann"], row["changes"]["Bob"], row["changes"]["Cho"], 0]
        after = [s + d for s, d in zip(scores, deltas, strict=True)]
        assert after == [row["totals"]["Ann"], row["totals"]["Bob"], row["totals"]["Cho"], 0]
        assert sum(scores) + sticks * 1000 == 3 * 35000           # points and sticks on the table add up
    first, second, third = hands
    assert first[0] == [0, 0, 0] and first[1] == [35000, 35000, 35000, 0]
    assert first[2] == [52, 44] and first[3] == []              # dora indicators 0p 4z
    assert first[16][0] == "和了" and first[16][2][:3] == [1, 1, 1]    # Bob, by tsumo (from himself), no pao
    assert second[16][0] == "流局"
    assert third[16][0] == "和了" and third[16][2][:2] == [0, 2]        # Ann on Cho's discard
    assert [h[0] for h in hands] == [[0, 0, 0], [1, 0, 0], [2, 1, 0]]   # East 1, East 2, East 3 with 1 honba
    assert first[16][1] == [-1000, 2500, -1500, 0] and third[16][1] == [4900, 0, -4900, 0]


def test_only_riichi_matches(capsys, tmp_path):
    db = str(tmp_path / "m.db")
    run(capsys, "match", "new", "--variant", "hong-kong", "--players", "A", "B", "C", "D", "--db", db)
    assert cli_main(["match", "export", "--format", "tenhou6", "--db", db]) == 2
    assert "tenhou.net/6 logs are for riichi mahjong" in capsys.readouterr().err
