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


def read_stream(haipai, take, dahai) -> list[int]:
    """A reader of one player's tenhou.net/6 stream: the tiles left in hand after every take and dahai, by the
    format's meanings (a call string takes the tiles it names beside the claimed one; 60 throws the tile just
    taken; r marks riichi; a closed kan's four, an added kan's tile and f44 leave the hand; 0 throws nothing)."""
    hand = list(haipai)
    drawn = None
    ti = di = 0
    while ti < len(take) or di < len(dahai):
        if ti < len(take):
            t = take[ti]
            ti += 1
            if isinstance(t, int):
                hand.append(t)
                drawn = t
            else:  # a call: the digits without the letter, the claimed tile (after the letter) not from the hand
                letter = next(c for c in t if c.isalpha())
                at = t.index(letter)
                digits = t.replace(letter, "")
                nums = [int(digits[k:k + 2]) for k in range(0, len(digits), 2)]
                claimed = int(t[at + 1:at + 3])
                own = list(nums)
                own.remove(claimed)
                for x in own:
                    hand.remove(x)
                drawn = None
        if di < len(dahai):
            d = dahai[di]
            di += 1
            if isinstance(d, str) and d.startswith("r"):
                d = int(d[1:])
            if d == 60:
                hand.remove(drawn)
            elif d == 0:
                pass
            elif isinstance(d, int):
                hand.remove(d)
            elif d == "f44":
                hand.remove(44)
                continue  # its replacement is the next take
            elif "a" in d:
                for k in range(0, len(d.replace("a", "")), 2):
                    hand.remove(int(d.replace("a", "")[k:k + 2]))
                continue
            elif "k" in d:  # an added kan: the tile after the k leaves the hand
                hand.remove(int(d[d.index("k") + 1:d.index("k") + 3]))
                continue
    return sorted(hand)


def test_a_followed_hand_fills_the_draw_and_discard_stream(capsys, tmp_path):
    from tests.test_match_mjai import worked_hand

    db = str(tmp_path / "m.db")
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(worked_hand().to_json()))
    run(capsys, "match", "new", "--variant", "sanma", "--players", "Ann", "Bob", "Cid", "--db", db)
    run(capsys, "match", "record", "riichi", "Ann", "--db", db)
    run(capsys, "match", "record", "win", "Ann", "--from", "Bob", "--pay", "3900", "--db", db)
    log = json.loads(run(capsys, "match", "export", "--format", "tenhou6", "--db", db, "--hands", str(hand)))
    kyoku = log["log"][0]
    assert kyoku[2] == [45]  # the followed deal's dora indicator (5z), the win having none of its own
    assert kyoku[4:7] == [[11, 11, 11, 22, 23, 24, 26, 27, 28, 33, 34, 39, 39], [47, 46], ["r60", 60]]
    assert kyoku[7:10] == [[21, 22, 28, 29, 31, 32, 38, 39, 41, 42, 43, 44, 45], [44, 35], ["f44", 60]]
    assert kyoku[10:13] == [[21, 23, 27, 29, 31, 33, 39, 41, 42, 43, 46, 47, 47], ["4747p47"], [21]]
    assert kyoku[13:16] == [[], [], []]
    # read back: Ann holds her 13 tiles (riichi, 7z and 6z thrown as drawn); Cid's pon of Ann's 7z (the next
    # player, shimocha: the p after two tiles) took two 7z from her hand
    assert read_stream(*kyoku[4:7]) == [11, 11, 11, 22, 23, 24, 26, 27, 28, 33, 34, 39, 39]
    assert read_stream(*kyoku[10:13]) == [23, 27, 29, 31, 33, 39, 41, 42, 43, 46]


@pytest.mark.parametrize("seed", range(8))
def test_generated_hands_stream_back_to_the_engines_hands(seed):
    from assistant.match.tenhou import hand_streams, tenhou_tile
    from assistant.play import HandLog
    from datasets.hand_video import play_hand

    events, states = play_hand("sanma", seed)
    streams = hand_streams(HandLog("sanma", events))
    assert streams is not None
    end = states[-2]  # before the win or the draw
    for player, (haipai, take, dahai) in enumerate(streams):
        seat = (player - (events[0].dealer or 0)) % 3
        want = sorted(tenhou_tile(t.code) for t in end.seats[seat].hand.concealed)
        assert read_stream(haipai, take, dahai) == want, (seed, player)
