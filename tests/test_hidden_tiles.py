"""Unknown concealed tiles (``bk``, a tile seen face down) in hands and table states, and what the
questions about a table (legal actions, furiten, wait labels, win value) say about a seat whose hand is
not known: possible actions stay legal with a HAND_NOT_KNOWN warning, rules that need no hand still
apply, and questions that need the whole hand raise HandNotKnown naming the seat."""

import json

import pytest

from assistant.calls import attempt, check_action, legal_actions, robbing_block
from assistant.errors import TileError
from assistant.furiten import (
    could_take,
    record_pass,
    ron_blocker,
    seat_waits,
    wait_labels,
    waits_in_discards,
    winning_readings,
)
from assistant.hand import parse_hand, validate_hand
from assistant.play import is_tenpai
from assistant.table import HandNotKnown, StateError, TableState, win_context, win_value_check
from assistant.tiles import Tile

BK13 = "bk" * 13
KNOWN = "19m123456789p12s"  # sanma, 13 tiles, not ready


def state(variant="sanma", hands=(KNOWN, BK13, BK13), **kw):
    """A table from JSON; ``hands``: each a hand (string) or a whole seat (dict)."""
    seats = [h if isinstance(h, dict) else {"hand": h} for h in hands]
    return TableState.from_json({"variant": variant, "seats": seats, **kw})


def listing(st, seat):
    """(action, legal, code, warning codes) for every action of ``seat``."""
    return [(a.describe(), a.legal, a.code, [w.code for w in a.warnings]) for a in legal_actions(st, seat)]


# ---------------------------------------------------------------------------------------------
# Hands


def test_hand_with_face_down_tiles_parses_formats_and_counts():
    h = parse_hand("bkbk 5p jk [777z@1] bk | 1f")
    assert h.format() == "5p jk bkbkbk [777z@1] | 1f"
    assert (h.hidden, h.is_known, h.tile_count) == (3, False, 8)
    assert [t.code for t in h.known_concealed] == ["5p", "jk"]
    assert parse_hand(h.format()).format() == h.format()
    assert parse_hand("123m").hidden == 0 and parse_hand("123m").is_known


def test_validate_hand_refuses_bk_unless_hidden_tiles_are_allowed(sanma):
    hand = parse_hand("111z bkbkbkbkbkbkbkbkbkbk")
    with pytest.raises(TileError, match=r"bad tile token 'bk' at position 5: a face-down tile \(bk\) cannot be "
                                        r"analysed; name the tile"):
        validate_hand(hand, sanma, sizes=(13,))
    validate_hand(hand, sanma, sizes=(13,), hidden=True)
    # bk counts towards the size and never towards the copies of a kind
    validate_hand(parse_hand(BK13 + "bk"), sanma, sizes=(14,), hidden=True)
    with pytest.raises(TileError, match="hand has 12 tiles"):
        validate_hand(parse_hand("bk" * 12), sanma, sizes=(13,), hidden=True)
    with pytest.raises(TileError, match="fifth copy of 1z"):
        validate_hand(parse_hand("11111z bkbkbkbkbkbkbkbk"), sanma, sizes=(13,), hidden=True)
    with pytest.raises(TileError, match="only suited tiles and honours form sets"):
        parse_hand("[bkbkbk]")


# ---------------------------------------------------------------------------------------------
# The table state


def test_table_state_with_face_down_tiles_round_trips():
    st = state(hands=(KNOWN, {"hand": "bk" * 13 + "4z", "discards": ["1z"]}, "1z1z bk" + "bk" * 10),
               turn=1, phase="own_turn", drawn_tile="bk", drawn_from="wall", live_wall=30)
    data = json.loads(json.dumps(st.to_json()))
    assert [s["hand"] for s in data["seats"]] == [KNOWN, "4z bkbkbkbkbkbkbkbkbkbkbkbkbk",
                                                      "11z bkbkbkbkbkbkbkbkbkbkbk"]
    assert data["drawn_tile"] == "bk"
    again = TableState.from_json(data)
    assert again == st and again.to_json() == data
    assert [s.hidden for s in st.seats] == [0, 13, 11] and st.hidden_seats == (1, 2)
    assert st.seats[1].hand.tile_count == 14


def test_face_down_tiles_count_towards_the_hand_size():
    with pytest.raises(StateError, match=r"^seats\[1\]\.hand: .*hand has 12 tiles \(concealed \+ 3 per meld\); "
                                         r"expected 13"):
        state(hands=(KNOWN, "bk" * 12, BK13), phase="turn_start")
    with pytest.raises(StateError, match=r"^seats\[1\]\.hand: .*expected 14"):
        state(hands=(KNOWN, BK13, BK13), phase="own_turn", turn=1)
    ok = state(hands=(KNOWN, "[111z@1] " + "bk" * 10, BK13), phase="turn_start")
    assert ok.seats[1].hand.tile_count == 13


def test_copy_limits_ignore_face_down_tiles():
    # every hand all face down: nothing to count
    st = state(hands=(BK13, BK13, BK13), phase="turn_start")
    assert st.hidden_seats == (0, 1, 2)
    # the known copies still count, wherever they are
    with pytest.raises(StateError, match=r"^seats: 5 copies of 1z on the table"):
        state(hands=("1z1z1z1z" + "bk" * 9, {"hand": BK13, "discards": ["1z"]}, BK13), phase="turn_start")
    with pytest.raises(StateError, match=r"^seats: 2 copies of 0p on the table; the sanma set has 1"):
        state(hands=("0p" + "bk" * 12, "0p" + "bk" * 12, BK13), phase="turn_start")


def test_visible_tiles_never_count_face_down_tiles():
    st = state(hands=(KNOWN, {"hand": "[777z@1]" + "bk" * 10, "discards": ["1z"]}, {"hand": BK13, "discards": ["9s"]}),
               phase="turn_start", dora_indicators="3z")
    assert [t.code for t in st.visible_tiles(0)] == ["3z", "1z", "7z", "7z", "7z", "9s"]
    assert [t.code for t in st.visible_tiles(1)] == ["3z", "1z", "9s"]


@pytest.mark.parametrize("change,field,words", [
    ({"seats": [{"hand": KNOWN, "discards": ["bk"]}, {"hand": BK13}, {"hand": BK13}]}, "seats[0].discards[0]",
     "bk (a tile seen face down) can only stand in a concealed hand or as the drawn tile"),
    ({"dora_indicators": "bk"}, "dora_indicators", "bk (a tile seen face down)"),
    ({"seats": [{"hand": KNOWN + " | bk"}, {"hand": BK13}, {"hand": BK13}]}, "seats[0].hand",
     "bk is not a bonus tile"),
    ({"seats": [{"hand": KNOWN, "discards": ["1z"], "passed_since_discard": "bk"}, {"hand": BK13}, {"hand": BK13}]},
     "seats[0].passed_since_discard", "bk (a tile seen face down)"),
    ({"phase": "claim_window", "last_tile": "bk"}, "last_tile", "bk (a tile seen face down)"),
    ({"seats": [{"hand": "(bkbkbkbk)" + "bk" * 10}, {"hand": BK13}, {"hand": BK13}]}, "seats[0].hand",
     "only suited tiles and honours form sets"),
])
def test_bk_is_refused_where_a_tile_must_be_named(change, field, words):
    data = {"variant": "sanma", "phase": "turn_start", "seats": [{"hand": KNOWN}, {"hand": BK13}, {"hand": BK13}],
            **change}
    with pytest.raises(StateError) as err:
        TableState.from_json(data)
    assert err.value.field == field and words in err.value.reason


def test_drawn_tile_may_be_face_down_only_in_the_hand():
    with pytest.raises(StateError, match=r"^drawn_tile: bk is not among seat 0's concealed tiles"):
        state(hands=(KNOWN + "1z", BK13, BK13), phase="own_turn", drawn_tile="bk", drawn_from="wall")


# ---------------------------------------------------------------------------------------------
# Questions that need the whole hand


def test_questions_that_need_the_whole_hand_name_the_seat():
    st = state(phase="turn_start")
    expected = ("seat 1 (South): its concealed hand is not known (13 tiles face down), so {} cannot be worked "
                "out; the seat must reveal its tiles first")
    for call, what in [
        (lambda: seat_waits(st, 1), "its waits"),
        (lambda: waits_in_discards(st, 1), "its waits"),
        (lambda: winning_readings(st, 1, Tile.from_code("5p")), "whether 5p completes its hand"),
        (lambda: win_context(st, 1, Tile.from_code("5p"), tsumo=False, hypothetical=True),
         "the value of its win"),
        (lambda: is_tenpai(st, 1), "whether it is ready"),
    ]:
        with pytest.raises(HandNotKnown) as err:
            call()
        assert str(err.value) == expected.format(what)
        assert (err.value.seat, err.value.hidden) == (1, 13)
    one = state(hands=(KNOWN, "bk" + "1z2z3z4z5z6z7z1p9p1s9s1m", BK13), phase="turn_start")
    with pytest.raises(HandNotKnown, match=r"^seat 1 \(South\): its concealed hand is not known \(1 tile face down\)"):
        seat_waits(one, 1)


def test_win_value_and_wait_labels_of_a_hidden_seat_are_unknown():
    st = state(phase="turn_start")
    value = win_value_check(st, 2, Tile.from_code("5p"), tsumo=True, hypothetical=True)
    assert (value.status, value.blocks, value.notice.code) == ("unknown", False, "HAND_NOT_KNOWN")
    assert value.notice.message == ("West's hand is not known (13 tiles face down), so whether it wins and what the "
                                    "win is worth can't be checked.")
    assert wait_labels(st, 1) == []
    assert [w.label for w in wait_labels(st, 0)] == []  # the known seat is read as before (not ready)


def test_furiten_of_a_hidden_seat_uses_only_what_needs_no_hand():
    # sanma: no discard memory can be read from the waits, but a recorded pass still counts
    st = state(hands=({"hand": KNOWN, "discards": ["6p"]}, {"hand": BK13, "discards": ["5p"]}, BK13),
               phase="claim_window", turn=0, last_tile="6p")
    assert ron_blocker(st, 1, Tile.from_code("6p")) is None
    assert could_take(st, 1) is False and record_pass(st, 1) is st
    passed = state(hands=({"hand": KNOWN, "discards": ["6p"]},
                          {"hand": BK13, "discards": ["5p"], "passed_since_discard": "3p"}, BK13),
                   phase="claim_window", turn=0, last_tile="6p")
    assert ron_blocker(passed, 1, Tile.from_code("6p")).code == "FURITEN_TEMPORARY"
    # korean-3p per-tile sacred discard needs only the discards
    k = TableState.from_json({"variant": "korean-3p", "phase": "claim_window", "turn": 0, "last_tile": "5p",
                              "seats": [{"hand": "1m4m7m1p9p1s1z2z3z5z6z7z3p", "discards": ["5p"]},
                                        {"hand": BK13, "discards": ["5p"]}, {"hand": BK13}]})
    assert ron_blocker(k, 1, Tile.from_code("5p")).code == "SACRED_DISCARD"
    assert ron_blocker(k, 2, Tile.from_code("5p")) is None


# ---------------------------------------------------------------------------------------------
# Legal actions of a hidden seat


def test_claims_of_a_hidden_seat_are_possible_with_a_reason():
    st = state(hands=({"hand": KNOWN, "discards": ["6p"]}, BK13, BK13), phase="claim_window", turn=0, last_tile="6p")
    # East holds the third 6p: only two are out of sight, so no kong; sanma has no chi
    assert listing(st, 1) == [
        ("chow 6p with 4p 5p -> {456p@1}", False, "NO_CHI", []),
        ("chow 6p with 5p 7p -> {567p@1}", False, "NO_CHI", []),
        ("chow 6p with 7p 8p -> {678p@1}", False, "NO_CHI", []),
        ("pong 6p with 6p 6p -> [666p@1]", True, None, ["HAND_NOT_KNOWN"]),
        ("ron 6p", True, None, ["HAND_NOT_KNOWN"]),
        ("pass", True, None, []),
    ]
    pong, ron = legal_actions(st, 1)[3], legal_actions(st, 1)[4]
    assert pong.warnings[0].message == ("South's hand is not known (13 tiles face down), so whether it holds 66p "
                                        "can't be checked.")
    assert ron.warnings[0].message == ("South's hand is not known (13 tiles face down), so whether it wins and what "
                                       "the win is worth can't be checked.")
    assert ron.as_dict()["warnings"] == [{"code": "HAND_NOT_KNOWN", "message": ron.warnings[0].message}]


def test_a_known_tile_of_a_hidden_hand_needs_no_warning_and_copies_in_sight_limit_the_rest():
    # Hong Kong: South may chow East's 3m; it is known to hold 1m and 2m, 4m and 5m may be face down
    hk = TableState.from_json({"variant": "hong-kong", "phase": "claim_window", "turn": 0, "last_tile": "3m",
                               "seats": [{"hand": "1p9p1s9s1z2z3z4z5z6z7z1p9p", "discards": ["3m"]},
                                         {"hand": "1m2m" + "bk" * 11},
                                         {"hand": "4m4m4m4m" + "bk" * 9}, {"hand": BK13}]})
    chows = [(a.describe(), [w.code for w in a.warnings]) for a in legal_actions(hk, 1) if a.kind == "chow"]
    # every 4m is in West's hand, so 234m and 345m are impossible
    assert chows == [("chow 3m with 1m 2m -> {123m@1}", [])]
    assert [a.kind for a in legal_actions(hk, 1)] == ["chow", "pong", "open_kong", "ron", "pass"]
    # North is not next after East: chows are listed and refused for the rule, not for the hand
    north = [(a.describe(), a.legal, a.code) for a in legal_actions(hk, 3) if a.kind == "chow"]
    assert north[0] == ("chow 3m with 1m 2m -> {123m@3}", False, "CHOW_NOT_FROM_PREV")


def test_rules_that_need_no_hand_still_bind_a_hidden_seat():
    late = state(hands=({"hand": KNOWN, "discards": ["6p"]}, BK13, BK13), phase="claim_window", turn=0,
                 last_tile="6p", next_drawn=True)
    assert [(a.kind, a.code) for a in legal_actions(late, 2) if not a.legal and a.kind != "chow"] == [
        ("pong", "CLAIM_TOO_LATE"), ("ron", "CLAIM_TOO_LATE")]
    riichi = state(hands=({"hand": KNOWN, "discards": ["6p"]},
                          {"hand": BK13, "discards": [{"tile": "1z", "riichi": True}]}, BK13),
                   phase="claim_window", turn=0, last_tile="6p")
    v = check_action(riichi, 1, attempt("pong"))
    assert (v.legal, v.code) == (False, "RIICHI_NO_CALLS")
    # a concealed kong this table does not let be robbed, a North set aside: whatever the hand
    kw = TableState.from_json({"variant": "korean-3p", "phase": "kong_window", "turn": 0, "last_tile": "1z",
                               "declaration": "closed_kong", "options": {"rob_concealed": False},
                               "seats": [{"hand": "(1111z) 1m4m7m1p9p1s2z3z5z6z"}, {"hand": BK13}, {"hand": BK13}]})
    assert listing(kw, 1) == [("ron 1z", False, "ROB_CONCEALED_NEVER", []), ("pass", True, None, [])]
    assert robbing_block(kw, kw.seats[1].hand, Tile.from_code("1z")).code == "ROB_CONCEALED_NEVER"
    kita = state(hands=(KNOWN + " | 4z", BK13, BK13), phase="kong_window", turn=0, last_tile="4z",
                 declaration="kita")
    assert listing(kita, 2) == [("ron 4z", False, "NO_NORTH_RON", []), ("pass", True, None, [])]
    # where it may be robbed, the hand decides: not known
    korean = TableState.from_json({**kw.to_json(), "options": {}})
    assert listing(korean, 1) == [("ron 1z", True, None, ["HAND_NOT_KNOWN"]), ("pass", True, None, [])]


def test_own_turn_of_a_hidden_seat():
    st = state(hands=(KNOWN, {"hand": "5p4z" + "bk" * 12, "points": 35000}, BK13), turn=1, phase="own_turn",
               drawn_tile="bk", drawn_from="wall", live_wall=30)
    assert listing(st, 1) == [
        ("discard 5p", True, None, []),
        ("discard 4z", True, None, []),
        ("discard bk", True, None, ["HAND_NOT_KNOWN"]),
        ("tsumo bk", True, None, ["HAND_NOT_KNOWN"]),
        ("closed_kong 4z with 4z 4z 4z 4z -> (4444z)", True, None, ["HAND_NOT_KNOWN"]),
        ("kita 4z", True, None, []),
        ("riichi 5p", True, None, ["HAND_NOT_KNOWN"]),
        ("riichi 4z", True, None, ["HAND_NOT_KNOWN"]),
        ("riichi bk", True, None, ["HAND_NOT_KNOWN"]),
    ]
    warn = {a.describe(): a.warnings[0].message for a in legal_actions(st, 1) if a.warnings}
    assert warn["discard bk"] == ("South's hand is not known (12 tiles face down), so which of its face-down tiles "
                                  "it throws can't be checked.")
    assert warn["riichi 5p"] == ("South's hand is not known (12 tiles face down), so whether the hand is ready after "
                                 "this discard can't be checked.")


def test_attempts_of_a_hidden_seat():
    st = state(hands=(KNOWN, {"hand": "5p4z" + "bk" * 12, "points": 35000}, BK13), turn=1, phase="own_turn",
               drawn_tile="bk", drawn_from="wall", live_wall=30)
    v = check_action(st, 1, attempt("discard", "7z"))
    assert (v.legal, v.action.tile.code, v.warnings[0].code) == (True, "7z", "HAND_NOT_KNOWN")
    v = check_action(st, 1, attempt("closed_kong", "3z"))
    assert (v.legal, v.action.meld.format()) == (True, "(3333z)")
    v = check_action(st, 1, attempt("riichi", "9s"))
    assert (v.legal, v.action.tile.code, [w.code for w in v.warnings]) == (True, "9s", ["HAND_NOT_KNOWN"])
    # East holds 1m and 9m ... and the only copies left of 2s: none are in sight, all four 1z are: a face-down
    # tile cannot be one
    crowded = state(hands=(KNOWN, {"hand": "5p4z" + "bk" * 12, "points": 35000}, "1z1z1z1z" + "bk" * 9), turn=1,
                    phase="own_turn", drawn_tile="bk", drawn_from="wall")
    v = check_action(crowded, 1, attempt("discard", "1z"))
    assert (v.legal, v.code, v.message) == (False, "TILES_NOT_IN_HAND", "You don't hold 1z, so you can't discard.")
    # riichi points and the open hand still count
    poor = state(hands=(KNOWN, "5p4z" + "bk" * 12, BK13), turn=1, phase="own_turn", drawn_tile="bk",
                 drawn_from="wall")
    assert check_action(poor, 1, attempt("riichi", "5p")).code == "RIICHI_POINTS"


def test_riichi_seat_that_drew_face_down_may_throw_any_tile():
    st = state(hands=(KNOWN, {"hand": "5p" + "bk" * 13, "discards": [{"tile": "1z", "riichi": True}]}, BK13),
               turn=1, phase="own_turn", drawn_tile="bk", drawn_from="wall")
    assert check_action(st, 1, attempt("discard", "7z")).legal
    assert check_action(st, 1, attempt("discard", "5p")).legal
    assert check_action(st, 1, attempt("kita")).legal
    v = check_action(st, 1, attempt("closed_kong", "3z"))
    assert (v.legal, [w.message for w in v.warnings]) == (True, [
        "South's hand is not known (13 tiles face down), so whether it holds 3333z can't be checked."])
    # a known drawn tile fixes the hand as before
    known = state(hands=(KNOWN, {"hand": "5p6p" + "bk" * 12, "discards": [{"tile": "1z", "riichi": True}]}, BK13),
                  turn=1, phase="own_turn", drawn_tile="6p", drawn_from="wall")
    assert check_action(known, 1, attempt("discard", "5p")).code == "RIICHI_FIXED_HAND"
    assert check_action(known, 1, attempt("discard", "6p")).legal


def test_nine_terminals_of_a_hidden_seat_is_judged_on_what_it_could_hold():
    first = dict(turn=1, phase="own_turn", drawn_tile="bk", drawn_from="wall")
    some = state(hands=(KNOWN, {"hand": "1m9m1p" + "bk" * 11, "first_turn": True}, BK13), **first)
    v = check_action(some, 1, attempt("nine_terminals"))
    assert (v.legal, [w.message for w in v.warnings]) == (True, [
        "South's hand is not known (11 tiles face down), so whether it holds nine different terminals and honours "
        "can't be checked."])
    # with every copy of six orphan kinds in sight, 3 known + 11 face down cannot reach 9 kinds
    seen = {"hand": "9p9p9p9p1s1s1s1s9s9s9s9s1z", "discards": []}
    crowded = state(hands=(seen, {"hand": "1m9m1p" + "bk" * 11, "first_turn": True},
                           {"hand": "1z1z1z2z2z2z2z3z3z3z3z4z4z"}), **{**first, "turn": 1})
    v = check_action(crowded, 1, attempt("nine_terminals"))
    assert (v.legal, v.code, v.message) == (False, "NOT_NINE_TERMINALS",
                                            "You hold 3 different terminal and honour kinds; nine terminals needs 9.")
