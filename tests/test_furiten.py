"""Furiten and the sacred discard: the matrix of call-legality.md §5, sanma.md §12 and E8, korean-3p.md §7
and K5, and the wait labels.

As in test_calls.py, the scorer is hidden unless a test takes the ``scoring`` fixture, so these rules
are checked without depending on scoring.
"""

import pytest

from assistant import table as table_module
from assistant.calls import attempt, check_action, legal_actions
from assistant.furiten import furiten_rule, record_pass, ron_blocker, wait_labels
from assistant.table import TableState
from assistant.tiles import Tile

SANMA_EAST = "1p9p1s9s1z2z3z4z5z2p8p2s8s"
SANMA_WEST = "1p9p1s9s1z2z3z6z7z3p7p3s7s"
E8_SOUTH = "111m 45p 234s 678s 99s"  # waits 3p / 6p
K3P_EAST = "1m4m7m1p9p1s1z2z3z5z6z7z3p"
K3P_WEST = "2m5m8m1p9p9s1z2z3z5z6z7z8p"
K5_SOUTH = "45p 111s 999s 123m 77m"  # waits 3p / 6p

FURITEN = ("You can't ron: {wait} would complete your hand and you threw a {wait} earlier. You can still win by "
           "drawing any winning tile yourself.")
SACRED = ("You threw a {tile} earlier, so you can't win on anyone's {tile}. Your other waits still work, and so "
          "does drawing it yourself.")


@pytest.fixture(autouse=True)
def _scoring_off(request, monkeypatch):
    if "scoring" not in request.fixturenames:
        monkeypatch.setattr(table_module, "_scorer", lambda variant: None)


@pytest.fixture
def scoring():
    for module in ("assistant.scoring.sanma", "assistant.scoring.korean_3p", "assistant.scoring.hong_kong"):
        pytest.importorskip(module)


def state(variant, hands, *, phase="claim_window", turn=0, tile=None, **kw):
    """A table from seat hands (strings or seat objects); ``tile`` is discarded by ``turn`` in a claim window."""
    seats = [{"hand": h} if isinstance(h, str) else dict(h) for h in hands]
    if tile is not None and phase == "claim_window":
        seats[turn]["discards"] = seats[turn].get("discards", []) + [tile]
    data = {"variant": variant, "phase": phase, "turn": turn, "seats": seats, **kw}
    if tile is not None:
        data["last_tile"] = tile
    return TableState.from_json(data)


def ron(s, seat):
    found = [a for a in legal_actions(s, seat) if a.kind == "ron"]
    assert len(found) == 1, found
    return found[0]


def south(hand=E8_SOUTH, discards=("6p",), **kw):
    return {"hand": hand, "discards": list(discards), **kw}


# ---------------------------------------------------------------------------------------------
# Row 1: an own earlier discard blocks a discard win


def test_sanma_e8_permanent_furiten_covers_every_wait():
    s = state("sanma", [SANMA_EAST, south(), SANMA_WEST], turn=2, tile="3p")
    r = ron(s, 1)
    assert (r.legal, r.code, r.message) == (False, "FURITEN_OWN_DISCARD", FURITEN.format(wait="6p"))


@pytest.mark.parametrize("drawn", ["3p", "6p"])
def test_sanma_e8_self_draw_is_never_blocked(drawn):
    hand = E8_SOUTH + f" {drawn}"
    s = state("sanma", [SANMA_EAST, south(hand), SANMA_WEST], phase="own_turn", turn=1, drawn_tile=drawn,
              drawn_from="wall")
    tsumo = [a for a in legal_actions(s, 1) if a.kind == "tsumo"]
    assert len(tsumo) == 1 and tsumo[0].legal


def k5(discarder, tile, sacred=None, south_seat=None, west=K3P_WEST):
    options = {} if sacred is None else {"sacred_discard": sacred}
    return state("korean-3p", [K3P_EAST, south_seat or south(K5_SOUTH), west], turn=discarder, tile=tile,
                 options=options)


def test_korean_k5_sacred_discard_blocks_that_tile():
    r = ron(k5(2, "6p"), 1)
    assert (r.legal, r.code, r.message) == (False, "SACRED_DISCARD", SACRED.format(tile="6p"))


@pytest.mark.parametrize("sacred,legal,code", [
    (None, True, None), ("per_tile", True, None), ("all_waits", False, "SACRED_DISCARD_ALL_WAITS"), ("off", True, None),
])
def test_korean_k5_other_wait_by_option(sacred, legal, code):
    r = ron(k5(0, "3p", sacred), 1)
    assert (r.legal, r.code) == (legal, code)
    if code:
        assert r.message == ("You threw a 6p earlier, and this table counts all your waits: no winning on discards "
                             "until you change your wait.")


def test_korean_sacred_discard_off():
    assert ron(k5(2, "6p", "off"), 1).legal


@pytest.mark.parametrize("sacred", ["per_tile", "all_waits", "off"])
def test_korean_k5_self_draw_under_every_setting(sacred):
    s = state("korean-3p", [K3P_EAST, south(K5_SOUTH + " 6p"), K3P_WEST], phase="own_turn", turn=1,
              drawn_tile="6p", drawn_from="wall", options={"sacred_discard": sacred})
    assert [a.legal for a in legal_actions(s, 1) if a.kind == "tsumo"] == [True]


@pytest.mark.parametrize("variant,hands,discarder,tile", [
    ("hong-kong", ["1m4m7m1p9p1s9s1z2z3z4z5z6z", {"hand": "123m 456m 789p 345s 2p", "discards": ["2p"],
                                                    "passed_since_discard": "2p"},
                   "2m5m8m1p9p1s9s1z2z3z4z5z7z", "3m6m9m1p9p1s9s1z2z3z4z6z7z"], 2, "2p"),
    ("three-kaki", ["1p9p3z4z5z6z7z2p8p 4p6p 3p 2z", {"hand": "45p 555z 666z 777z 99p", "discards": ["6p"],
                                                      "passed_since_discard": "3p"},
                    "9p4z1z 2p8p3p 4p 1z 2z 8p 3z 4z 7p"], 2, "6p"),
])
def test_no_memory_in_hong_kong_and_three_kaki(variant, hands, discarder, tile):
    """A discarded wait, or one let pass before, can still be won on (three-kaki C5; hong-kong)."""
    s = state(variant, hands, turn=discarder, tile=tile)
    assert furiten_rule(s) == "none"
    assert ron(s, 1).legal
    assert record_pass(s, 1) is s


# ---------------------------------------------------------------------------------------------
# Row 2: discards later claimed by others still count


def test_sanma_called_away_discard_still_counts():
    east = "[666p@2] 1p9p1s9s1z2z3z4z5z2p"
    s = state("sanma", [east, {"hand": E8_SOUTH, "discards": [{"tile": "6p", "called_by": 0}]}, SANMA_WEST],
              turn=2, tile="3p")
    assert ron(s, 1).message == FURITEN.format(wait="6p")


def test_korean_called_away_discard_still_counts():
    east = "[666p@2] 1m4m7m1p9p1s1z2z3z5z"
    s = state("korean-3p", [east, {"hand": K5_SOUTH, "discards": [{"tile": "6p", "called_by": 0}]}, K3P_WEST],
              turn=2, tile="6p")
    assert ron(s, 1).message == SACRED.format(tile="6p")


# ---------------------------------------------------------------------------------------------
# Rows 3-4: passing a winning tile (temporary furiten, riichi furiten)


def test_sanma_passing_a_winning_tile_is_recorded():
    s = state("sanma", [SANMA_EAST, south(discards=()), SANMA_WEST], turn=2, tile="3p")
    assert ron(s, 1).legal
    after = record_pass(s, 1)
    assert after.seats[1].passed_since_discard == (Tile.from_code("3p"),)
    assert s.seats[1].passed_since_discard == ()  # the old state is unchanged
    assert record_pass(s, 0) is s  # East could not win on it: nothing to record


def test_sanma_temporary_furiten_until_the_next_discard():
    blocked = state("sanma", [SANMA_EAST, south(discards=(), passed_since_discard="3p"), SANMA_WEST],
                    turn=0, tile="6p")
    r = ron(blocked, 1)
    assert (r.code, r.message) == ("FURITEN_TEMPORARY", "You let a winning 3p go since your last discard. Ron is "
                                                        "possible again after your next discard; tsumo is fine now.")
    after_discard = state("sanma", [SANMA_EAST, south(discards=("1z",)), SANMA_WEST], turn=0, tile="6p")
    assert ron(after_discard, 1).legal


def riichi_south(**kw):
    return {"hand": E8_SOUTH, "discards": ["1z", {"tile": "4z", "riichi": True}, "7z"], "points": 34000, **kw}


def test_sanma_riichi_furiten_for_the_rest_of_the_hand():
    s = state("sanma", [SANMA_EAST, riichi_south(passed_since_riichi="3p"), SANMA_WEST], turn=0, tile="6p")
    r = ron(s, 1)
    assert (r.code, r.message) == ("FURITEN_RIICHI", "After riichi you let a winning 3p go, so for the rest of this "
                                                     "hand you can only win by tsumo.")


def test_sanma_passing_after_riichi_is_recorded_twice():
    s = state("sanma", [SANMA_EAST, riichi_south(), SANMA_WEST], turn=2, tile="3p")
    after = record_pass(s, 1)
    assert after.seats[1].passed_since_riichi == after.seats[1].passed_since_discard == (Tile.from_code("3p"),)


def test_korean_passing_does_not_matter():
    s = k5(0, "3p")
    assert record_pass(s, 1) is s


# ---------------------------------------------------------------------------------------------
# Row 5: waits without a yaku still count


OPEN_NO_YAKU_SOUTH = {"hand": "[666s@1] [777p@2] 234s 23p 55s", "discards": ["1p"]}  # 1p: no yaku; 4p: tanyao


def test_sanma_a_wait_without_a_yaku_still_makes_furiten():
    s = state("sanma", [SANMA_EAST, OPEN_NO_YAKU_SOUTH, SANMA_WEST], turn=0, tile="4p")
    assert ron(s, 1).message == FURITEN.format(wait="1p")


# ---------------------------------------------------------------------------------------------
# Rows 7-8: robbing a kong is blocked; pon / kan of the tile is not


def test_sanma_furiten_blocks_robbing_a_kong():
    west = "[3333p+] 1p9p1s9s1z2z3z6z7z7s"
    s = state("sanma", [SANMA_EAST, south(), west], phase="kong_window", turn=2, tile="3p",
              declaration="added_kong")
    assert ron(s, 1).message == FURITEN.format(wait="6p")
    clean = state("sanma", [SANMA_EAST, south(discards=()), west], phase="kong_window", turn=2, tile="3p",
                  declaration="added_kong")
    assert ron(clean, 1).legal
    assert record_pass(clean, 1).seats[1].passed_since_discard == (Tile.from_code("3p"),)


def test_korean_sacred_discard_blocks_robbing_a_kong():
    west = "[6666p+] 2m5m8m1p9p9s1z2z3z5z"
    # South's 6p went into West's pong, which West now promotes
    s = state("korean-3p", [K3P_EAST, south(K5_SOUTH, discards=({"tile": "6p", "called_by": 2},)), west],
              phase="kong_window", turn=2, tile="6p", declaration="added_kong")
    assert ron(s, 1).message == SACRED.format(tile="6p")


def test_sanma_furiten_does_not_block_pon():
    s = state("sanma", [SANMA_EAST, south("111m 45p 234s 678s 55s"), SANMA_WEST], turn=2, tile="5s")
    pon = [a for a in legal_actions(s, 1) if a.kind == "pong"]
    assert [a.legal for a in pon] == [True]
    assert ron_blocker(s, 1, Tile.from_code("5s")).code == "FURITEN_OWN_DISCARD"


def test_korean_sacred_discard_does_not_block_pong():
    s = state("korean-3p", [K3P_EAST, south("55m 45p 111s 999s 123m", discards=("5m",)), K3P_WEST.replace("5m", "4m")],
              turn=2, tile="5m")
    assert [a.legal for a in legal_actions(s, 1) if a.kind == "pong"] == [True]


# ---------------------------------------------------------------------------------------------
# Row 9: a set-aside North is not a discard


def test_sanma_set_aside_north_is_not_a_discard():
    s = state("sanma", [{"hand": "234p 567p 99p 234s 67s | 4z"}, "4z 123p 456p 789p 555s", SANMA_WEST],
              phase="kong_window", turn=0, tile="4z", declaration="kita")
    assert ron(s, 1).code == "NO_NORTH_RON"
    assert record_pass(s, 1) is s  # letting it go never causes furiten


# ---------------------------------------------------------------------------------------------
# The rule per table


@pytest.mark.parametrize("variant,options,rule", [
    ("sanma", {}, "furiten"), ("korean-3p", {}, "per_tile"),
    ("korean-3p", {"sacred_discard": "all_waits"}, "all_waits"), ("korean-3p", {"sacred_discard": "off"}, "off"),
    ("hong-kong", {}, "none"), ("three-kaki", {}, "none"),
])
def test_furiten_rule_per_table(variant, options, rule):
    hands = {"sanma": [SANMA_EAST, E8_SOUTH, SANMA_WEST], "korean-3p": [K3P_EAST, K5_SOUTH, K3P_WEST],
             "hong-kong": ["1m4m7m1p9p1s9s1z2z3z4z5z6z", "123m 456m 789p 345s 2p", "2m5m8m1p9p1s9s1z2z3z4z5z7z",
                           "3m6m9m1p9p1s9s1z2z3z4z6z7z"],
             "three-kaki": ["1p9p3z4z5z6z7z2p8p 4p6p 3p 2z", "45p 555z 666z 777z 99p",
                            "9p4z1z 2p8p3p 4p 1z 2z 8p 3z 4z 7p"]}
    s = state(variant, hands[variant], phase="turn_start", options=options)
    assert furiten_rule(s) == rule


# ---------------------------------------------------------------------------------------------
# Wait labels


UNCHECKED_SANMA = "Whether this win has a yaku was not checked: no sanma scorer is installed."
UNCHECKED_K3P = "Whether this win reaches the minimum of 3 points was not checked: no korean-3p scorer is installed."


def labels(s, seat):
    return [(w.tile.code, w.live, w.label, w.reason) for w in wait_labels(s, seat)]


def test_wait_labels_e8():
    s = state("sanma", [SANMA_EAST, south(), SANMA_WEST], turn=2, tile="3p")
    assert labels(s, 1) == [("3p", 3, "tsumo only", FURITEN.format(wait="6p")),
                            ("6p", 3, "tsumo only", FURITEN.format(wait="6p"))]


def test_wait_labels_k5_per_tile():
    assert labels(k5(2, "6p"), 1) == [("3p", 4, "can ron", UNCHECKED_K3P),
                                      ("6p", 2, "tsumo only", SACRED.format(tile="6p"))]


def test_wait_labels_live_counts_and_no_live_tiles():
    east = "[333p@2] 1p9p1s9s1z2z4z5z2p8p"
    west = "1p9p1s9s1z2z3z6z7z 8p7p3s7s"
    s = state("sanma", [east, south(discards=()), west], turn=2, tile="3p", dora_indicators="6p")
    assert labels(s, 1) == [("3p", 0, "no live tiles", "Every 3p is already in sight, so none can come."),
                            ("6p", 3, "can ron", UNCHECKED_SANMA)]


def test_wait_labels_need_a_13_tile_hand():
    s = state("sanma", [SANMA_EAST, south(E8_SOUTH + " 6p"), SANMA_WEST], phase="own_turn", turn=1,
              drawn_tile="6p", drawn_from="wall")
    with pytest.raises(ValueError, match="seat 1: holds 14 tiles"):
        wait_labels(s, 1)
    assert wait_labels(state("sanma", [SANMA_EAST, SANMA_WEST, E8_SOUTH], phase="turn_start"), 0) == []


def test_wait_labels_with_values(scoring):
    # sanma: an open hand with no yaku on 1p (and furiten on the tanyao wait 4p)
    s = state("sanma", [SANMA_EAST, OPEN_NO_YAKU_SOUTH, SANMA_WEST], phase="turn_start", turn=2)
    no_yaku = ("Your hand is complete but has no yaku. Dora, red fives and Norths set aside don't count. A closed "
               "hand could win by tsumo or riichi; an open one needs e.g. a dragon pon or tanyao.")
    assert labels(s, 1) == [("1p", 3, "no yaku", no_yaku), ("4p", 4, "tsumo only", FURITEN.format(wait="1p"))]
    # sanma E3 without riichi: a closed hand has a yaku only by tsumo
    e3 = state("sanma", [SANMA_EAST, {"hand": "111m 234p 567p 23s 55s | 4z4z"}, SANMA_WEST], phase="turn_start")
    assert [(c, lab, why) for c, _, lab, why in labels(e3, 1)] == [("1s", "tsumo only", no_yaku),
                                                                   ("4s", "tsumo only", no_yaku)]
    # korean-3p K2/K3: all chows, 2 points toward the minimum; a self-draw adds the 3rd
    k2 = [K3P_EAST, "123p 456p 234m 789m 9s", K3P_WEST]
    s = state("korean-3p", k2, phase="turn_start")
    assert labels(s, 1) == [("9s", 3, "tsumo only", "This win is worth 2 points; the table needs 3. The 2 for "
                                                     "winning and flowers don't count; a self-draw would add 1.")]
    off = state("korean-3p", k2, phase="turn_start", options={"tsumo_counts_to_minimum": False})
    assert labels(off, 1) == [("9s", 3, "below the minimum", "This win is worth 2 points; the table needs 3. The 2 "
                                                             "for winning and flowers don't count.")]


def test_hong_kong_h1_tsumo_only(scoring):
    hk = ["1m4m7m1p9p1s9s1z2z3z4z5z6z", {"hand": "123m 456m 789p 345s 2p | 2f"}, "2m5m8m1p9p1s9s1z2z3z4z5z7z",
          "3m6m9m1p9p1s9s1z2z3z4z6z7z"]
    s = state("hong-kong", hk, phase="turn_start")
    assert labels(s, 1) == [("2p", 3, "tsumo only", "This win is worth 2 faan; the table needs 3. Flowers are added "
                                                    "after but don't count toward the 3.")]


def test_check_action_ron_matches_the_listing():
    s = state("sanma", [SANMA_EAST, south(), SANMA_WEST], turn=2, tile="3p")
    v = check_action(s, 1, attempt("ron"))
    assert (v.legal, v.code) == (False, "FURITEN_OWN_DISCARD") and v.action.tile.code == "3p"
