"""Legal actions, the beginner check and claim priority (shared/rules/call-legality.md §1–§4, §6), and the
table state's JSON form.

Call legality must not depend on scoring: an autouse fixture hides every scorer, so a win that passes
the call rules is legal with a VALUE_UNCHECKED warning. The few tests that need the real scorer take
the ``scoring`` fixture, which skips them when the rule system's scorer module is missing.
"""

import re
from pathlib import Path

import pytest

from assistant import table as table_module
from assistant.calls import attempt, check_action, legal_actions, resolve_claims, robbing_block
from assistant.errors import TileError
from assistant.hand import parse_hand
from assistant.table import MESSAGES, StateError, TableState, notice
from assistant.tiles import Tile

# Filler hands (13 tiles, not ready) that leave most tiles of each set free for the hands under test.
FILL = {
    "sanma": ("1p9p1s9s1z2z3z4z5z2p8p2s8s", "1p9p1s9s1z2z3z6z7z3p7p3s7s"),
    "korean-3p": ("1m4m7m1p9p1s1z2z3z5z6z7z3p", "2m5m8m1p9p9s1z2z3z5z6z7z6p"),
    "hong-kong": ("1m4m7m1p9p1s9s1z2z3z4z5z6z", "2m5m8m1p9p1s9s1z2z3z4z5z7z", "3m6m9m1p9p1s9s1z2z3z4z6z7z"),
    "three-kaki": ("1p9p1z2z3z4z5z6z7z2p8p3p7p", "1p9p1z2z3z4z5z6z7z2p8p4p6p"),
}
SCORERS = {"sanma": "assistant.scoring.sanma", "korean-3p": "assistant.scoring.korean_3p",
           "hong-kong": "assistant.scoring.hong_kong", "three-kaki": "assistant.scoring.three_kaki"}


@pytest.fixture(autouse=True)
def _scoring_off(request, monkeypatch):
    if "scoring" not in request.fixturenames:
        monkeypatch.setattr(table_module, "_scorer", lambda variant: None)


@pytest.fixture
def scoring():
    """Real scoring: skip unless every scorer module can be imported."""
    for module in SCORERS.values():
        pytest.importorskip(module)


def seats(variant, **hands):
    """Seat objects: ``s0=...`` etc. override the fillers (a string is a hand, a dict a whole seat)."""
    n = 4 if variant == "hong-kong" else 3
    fill = list(FILL[variant])
    out = []
    for i in range(n):
        given = hands.get(f"s{i}")
        if given is None:
            out.append({"hand": fill.pop(0)})
        else:
            out.append({"hand": given} if isinstance(given, str) else given)
    return out


def table(variant, *, phase="claim_window", turn=0, add_discard=None, **kw):
    hands = {k: kw.pop(k) for k in list(kw) if k[0] == "s" and k[1:].isdigit()}
    seat_list = seats(variant, **hands)
    if add_discard is not None:
        seat_list[turn] = {**seat_list[turn], "discards": seat_list[turn].get("discards", []) + [add_discard]}
    data = {"variant": variant, "phase": phase, "turn": turn, "seats": seat_list, **kw}
    return TableState.from_json(data)


def claim(variant, tile, discarder=0, **kw):
    """A claim window on ``tile`` just discarded by ``discarder``."""
    return table(variant, phase="claim_window", turn=discarder, last_tile=tile, add_discard=tile, **kw)


def acts(state, seat, kind=None):
    return [a for a in legal_actions(state, seat) if kind is None or a.kind == kind]


def one(state, seat, kind, tiles=None):
    found = [a for a in acts(state, seat, kind)
             if tiles is None or sorted(t.code for t in a.tiles) == sorted(tiles)]
    assert len(found) == 1, found
    return found[0]


def msg(code, **fields):
    return notice(code, **fields).message


UNCHECKED = {
    "sanma": "Whether this win has a yaku was not checked: no sanma scorer is installed.",
    "korean-3p": "Whether this win reaches the minimum of 3 points was not checked: no korean-3p scorer is installed.",
    "hong-kong": "Whether this win reaches the minimum of 3 faan was not checked: no hong-kong scorer is installed.",
    "three-kaki": "Whether this win reaches the minimum of 5 fan was not checked: no three-kaki scorer is installed.",
}


# ---------------------------------------------------------------------------------------------
# §2 row: chi / chow on a discard


def test_sanma_chi_is_listed_but_never_legal():
    s = claim("sanma", "6p", s1="45p 123s 789s 456s 6z7z", s2=FILL["sanma"][1])
    assert [(a.kind, a.legal) for a in legal_actions(s, 1)] == [("chow", False), ("pass", True)]
    chow = one(s, 1, "chow")
    assert chow.code == "NO_CHI"
    assert chow.message == ("There is no chi in three-player riichi. Sequences must come from tiles you draw "
                            "yourself.")
    assert chow.meld.format() == "{456p@1}"


def test_korean_chow_on_a_discard_that_does_not_win():
    s = claim("korean-3p", "6m", s1="45m 123p 789p 111s 9s5z")
    chow = one(s, 1, "chow")
    assert (chow.legal, chow.code) == (False, "NO_CHOW_ON_DISCARD")
    assert chow.message == ("You can't take a discard to make a chow here — only the tile that completes your "
                            "whole hand.")
    assert not acts(s, 1, "ron")


def test_hong_kong_chow_only_from_the_previous_player():
    s = claim("hong-kong", "6p", s1="45p 234s 789s 555z 1m 2m", s2="78p 234s 789s 666z 2m 3m",
              s3="57p 234s 789s 777z 3m 4m")
    assert one(s, 1, "chow").legal
    west = one(s, 2, "chow")
    assert (west.legal, west.code) == (False, "CHOW_NOT_FROM_PREV")
    assert west.message == "You can only chow a tile thrown by the player just before you (South)."
    assert one(s, 3, "chow").message == "You can only chow a tile thrown by the player just before you (West)."


def test_three_kaki_chow_from_prev_may_use_one_fei():
    s = claim("three-kaki", "6p", s1="4p jk jk 9p 2p 3p 1p 6z6z 7z7z 4z4z", s2="45p 111z 222z 555z 99p")
    assert [(a.meld.format(), a.legal) for a in acts(s, 1, "chow")] == [("{46p jk=5p@1}", True)]
    two = check_action(s, 1, attempt("chow", "6p", "jkjk"))
    assert (two.legal, two.code, two.message) == (False, "FEI_SHOWN_SET_LIMIT", "A set you show may hold only one Fei.")
    west = one(s, 2, "chow")
    assert west.code == "CHOW_NOT_FROM_PREV" and west.message.endswith("(South).")


# §2 row: a chow-shape win on a discard is a win from anyone


@pytest.mark.parametrize("variant,tile,hands", [
    ("sanma", "6p", ["1p9p1s9s 1z2z4z 2p8p2s8s 1m9m", "1p9p1s9s 1z2z 3p7p3s7s 1m9m 4z", "45p 333z 555z 666z 77z"]),
    ("korean-3p", "6m", ["1m4m7m 1p9p1s9s 1z2z3z 2m5m8m", "3m9m 1p9p1s9s 1z2z3z 2p5p8p 7p", "45m 555z 666z 777z 11m"]),
    ("hong-kong", "6p", ["1m4m7m 1p9p 1s9s 1z2z3z4z 2m5m", "3m6m9m 1p9p 1s9s 1z2z3z4z 8m7m",
                         "45p 555z 666z 777z 22s", "3s6s9s 1p9p 1s9s 1z2z3z4z 8s7s"]),
    ("three-kaki", "6p", ["1p1p 2p 3p3p 7p 8p8p 9p 1z 2z 3z 4z", "2p 3p 7p 8p 9p 1z 2z 3z 4z 1z 2z 3z 4z",
                          "45p 555z 666z 777z 99p"]),
])
def test_chow_shape_win_from_any_player(variant, tile, hands):
    s = claim(variant, tile, **{f"s{i}": h for i, h in enumerate(hands)})
    ron = one(s, 2, "ron")
    assert ron.legal and ron.tile.code == tile
    assert [w.message for w in ron.warnings] == [UNCHECKED[variant]]


# ---------------------------------------------------------------------------------------------
# §2 rows: pong / kong from a discard, promoting a pong with a discard


CALLER = {  # West's hand with a pair of the discard (keyed by rule system) and the fillers it needs
    "sanma": ("6p", "66p 123s 789s 1m1m 9m 7z7z", {}),
    "korean-3p": ("6m", "66m 123p 789p 9m9m 1m 3m3m", {}),
    "hong-kong": ("5s", "55s 123p 789p 6m6m 9m 8s8s", {}),
    "three-kaki": ("5p", "55p 123p 789p 9p9p 3p 2p2p", {"s0": "1p9p1z2z3z4z5z6z7z 4p6p 7p8p",
                                                        "s1": "1z2z3z4z5z6z7z 4p6p 7p8p 4p 6p"}),
}


@pytest.mark.parametrize("variant", list(CALLER))
def test_pong_from_any_player(variant):
    tile, hand, others = CALLER[variant]
    s = claim(variant, tile, s2=hand, **others)
    pong = one(s, 2, "pong", [tile, tile])
    assert pong.legal and pong.meld.format() == f"[{tile[0] * 3}{tile[1]}@2]"


def test_sanma_no_pon_after_riichi():
    riichi = {"hand": "66p 123s 789s 1m1m 9m 7z7z", "discards": ["4z", {"tile": "6z", "riichi": True}]}
    s = claim("sanma", "6p", s2=riichi)
    pon = one(s, 2, "pong")
    assert (pon.legal, pon.code) == (False, "RIICHI_NO_CALLS")
    assert pon.message == "After riichi you can't call pon or kan; only a win can take a discard."


def test_three_kaki_pong_with_real_tiles_or_one_fei_not_two():
    s = claim("three-kaki", "5p", s1="5p jk jk 123p 789p 1z1z 2z 3z", s2="1p9p3z4z5z6z7z2p8p3p7p 6p 4p")
    real_fei = one(s, 1, "pong", ["5p", "jk"])
    assert real_fei.legal and real_fei.meld.format() == "[55p jk=5p@1]"
    two = check_action(s, 1, attempt("pong", "5p", "jkjk"))
    assert (two.code, two.message) == ("FEI_SHOWN_SET_LIMIT", "A set you show may hold only one Fei.")


@pytest.mark.parametrize("variant", list(CALLER))
def test_open_kong_with_three_in_hand_from_any_player(variant):
    tile, hand, others = CALLER[variant]
    # three of the tile instead of a pair; the hand's last tile goes to keep 13
    three = hand.replace(f"{tile[0] * 2}{tile[1]}", f"{tile[0] * 3}{tile[1]}", 1)[:-2]
    s = claim(variant, tile, s2=three, **others)
    kong = one(s, 2, "open_kong")
    assert kong.legal and kong.meld.format() == f"[{tile[0] * 4}{tile[1]}@2]"
    assert one(s, 2, "pong").legal  # a pong stays possible too


def test_sanma_no_open_kan_after_riichi():
    riichi = {"hand": "666p 123s 789s 1m1m 9m 7z", "discards": [{"tile": "6z", "riichi": True}]}
    s = claim("sanma", "6p", s2=riichi)
    assert one(s, 2, "open_kong").code == "RIICHI_NO_CALLS"


def test_three_kaki_open_kong_needs_three_real_tiles():
    s = claim("three-kaki", "5p", s2="55p jk 123p 789p 1z1z 2z 3z", s1="1p9p3z4z5z6z7z2p8p3p7p 6p 4p")
    kong = one(s, 2, "open_kong")
    assert (kong.legal, kong.code, kong.message) == (False, "FEI_IN_KONG", "A Fei can never be part of a kong.")
    assert [t.code for t in kong.tiles] == ["5p", "5p", "jk"]


@pytest.mark.parametrize("variant,tile,hand", [
    ("sanma", "6p", "[666p@2] 123s 789s 1m1m 9m 7z"),
    ("korean-3p", "6m", "[666m@2] 123p 789p 9m9m 1m 3m"),
    ("hong-kong", "5s", "[555s@2] 123p 789p 6m6m 9m 8s"),
    ("three-kaki", "5p", "[555p@2] 123p 789p 9p9p 3p 2p"),
])
def test_a_discard_cannot_promote_a_shown_pong(variant, tile, hand):
    others = {"s0": "1z2z3z4z5z6z7z 4p6p 7p8p 4p 6p", "s2": "1p1z2z3z4z5z6z7z 2p 4p8p 3p 6p"} \
        if variant == "three-kaki" else {}
    s = claim(variant, tile, s1=hand, **others)
    promote = one(s, 1, "added_kong")
    assert (promote.legal, promote.code) == (False, "PROMOTE_WITH_DISCARD")
    assert promote.message == ("A discard can't turn your shown pong into a kong; only a fourth tile you draw "
                               "yourself can.")
    assert promote.target == (1, 0)


# ---------------------------------------------------------------------------------------------
# §2 rows: concealed and added kongs on the own turn


def own_turn(variant, hand, *, seat=0, drawn=None, drawn_from="wall", **kw):
    seat_data = hand if isinstance(hand, dict) else {"hand": hand}
    extra = {f"s{seat}": seat_data}
    if drawn is not None:
        extra.update(drawn_tile=drawn, drawn_from=drawn_from)
    return table(variant, phase="own_turn", turn=seat, **extra, **kw)


@pytest.mark.parametrize("variant,hand,kong", [
    ("sanma", "6666p 123s 789s 1m1m 9m 4z", "(6666p)"),
    ("korean-3p", "6666m 123p 789p 9m9m 3m 1s", "(6666m)"),
    ("hong-kong", "5555s 123p 789p 6m6m 9m 2s", "(5555s)"),
    ("three-kaki", "5555p 123p 789p 1z1z 3z 4z", "(5555p)"),
])
def test_concealed_kong_on_the_own_turn_is_optional(variant, hand, kong):
    kw = {}
    if variant == "three-kaki":
        kw = {"s1": "1p9p3z4z5z6z7z2p8p 4p6p 7p 2z", "s2": "9p4z5z6z7z2p8p3p 4p 6p 1z 2z 8p"}
    s = own_turn(variant, hand, drawn=hand[-2:], **kw)
    k = one(s, 0, "closed_kong")
    assert k.legal and k.meld.format() == kong
    assert all(a.legal for a in acts(s, 0, "discard"))  # declaring is optional: every discard stays legal


def test_hong_kong_concealed_kong_before_the_draw():
    s = table("hong-kong", phase="turn_start", turn=1, s1="5555s 123p 789p 6m6m 9m")
    k = one(s, 1, "closed_kong")
    assert k.legal and k.meld.format() == "(5555s)"
    k3p = table("korean-3p", phase="turn_start", turn=1, s1="6666m 123p 789p 9m9m 3m")
    assert legal_actions(k3p, 1) == []


def test_three_kaki_concealed_kong_needs_four_real_tiles():
    s = own_turn("three-kaki", "555p jk 123p 789p 1z1z 3z 4z", drawn="4z",
                 s1="1p9p3z4z5z6z7z2p8p 4p6p 7p 2z", s2="9p4z5z6z7z2p8p3p 4p 6p 1z 2z 8p")
    k = one(s, 0, "closed_kong")
    assert (k.code, k.message) == ("FEI_IN_KONG", "A Fei can never be part of a kong.")


@pytest.mark.parametrize("variant,hand,kong", [
    ("sanma", "[666p@1] 6p 123s 789s 1m1m 9m 4z", "[6666p@1+]"),
    ("korean-3p", "[666m@1] 6m 123p 789p 9m9m 1s 3m", "[6666m@1+]"),
    ("hong-kong", "[555s@1] 5s 123p 789p 6m6m 9m 2s", "[5555s@1+]"),
    ("three-kaki", "[555p@1] 5p 123p 789p 1z1z 3z 4z", "[5555p@1+]"),
])
def test_added_kong_with_a_tile_from_the_hand(variant, hand, kong):
    kw = {}
    if variant == "three-kaki":
        kw = {"s1": "1p9p3z4z5z6z7z2p8p 4p6p 7p 2z", "s2": "9p4z5z6z7z2p8p3p 4p 6p 1z 2z 8p"}
    s = own_turn(variant, hand, drawn=hand.split()[-1][-2:], **kw)
    k = one(s, 0, "added_kong")
    assert k.legal and k.meld.format() == kong and k.target == (0, 0)


def test_three_kaki_added_kong_needs_a_real_fourth_tile():
    s = own_turn("three-kaki", "[555p@1] jk 123p 789p 1z1z 3z 4z", drawn="4z",
                 s1="1p9p3z4z6z7z2p8p 4p6p 7p 2z 5p", s2="9p4z5z6z7z2p8p3p 4p 6p 1z 2z 8p")
    k = one(s, 0, "added_kong")
    assert (k.legal, k.code) == (False, "FEI_IN_KONG")


def test_kongs_from_the_hand_wait_for_a_draw_not_a_call():
    after_pon = own_turn("hong-kong", "[555s@1] 5s 6666p 789p 6m 9m 2s", sets_made_this_turn=[0])
    for kind in ("closed_kong", "added_kong"):
        k = one(after_pon, 0, kind)
        assert (k.code, k.message) == ("KONG_NEEDS_DRAW", "You can declare a kong from your hand only after drawing "
                                                          "a tile, not right after a call.")


def test_sanma_no_fifth_kan():
    s = own_turn("sanma", "6666p 345s 567s 1m1m 9m 4z", drawn="4z",
                 s1="(1111s) (9999s) 4p4p 5z5z5z 7z7z", s2="(2222s) [8888s+] 7p7p 6z6z6z 7z 3p")
    assert s.kongs_made == 4
    k = one(s, 0, "closed_kong")
    assert (k.code, k.message) == ("KAN_LIMIT", "Four kans have been made this hand; a fifth is not allowed.")


# sanma: a concealed kan after riichi


def riichi_seat(hand, discards=("4z",)):
    return {"hand": hand, "discards": list(discards[:-1]) + [{"tile": discards[-1], "riichi": True}],
            "points": 34000}


def test_sanma_kan_after_riichi_with_the_drawn_tile_keeping_the_waits():
    s = own_turn("sanma", riichi_seat("4444p 45s 678s 111m 99s"), drawn="4p")
    assert one(s, 0, "closed_kong").legal
    # every discard but the drawn tile is out after riichi
    others = [a for a in acts(s, 0, "discard") if a.tile.code != "4p"]
    assert {a.code for a in others} == {"RIICHI_FIXED_HAND"}
    assert others[0].message == ("After riichi your hand is fixed: throw the tile you drew unless you win with it, "
                                 "set it aside as kita, or make a kan with it that keeps your waits.")


def test_sanma_kan_after_riichi_that_changes_the_waits():
    s = own_turn("sanma", riichi_seat("4444p 5p 567s 789s 111m"), drawn="4p")
    k = one(s, 0, "closed_kong")
    assert (k.code, k.message) == ("KAN_CHANGES_WAIT", "This kan would change your waits, which isn't allowed "
                                                       "after riichi.")


def test_sanma_kan_after_riichi_not_with_the_drawn_tile():
    s = own_turn("sanma", riichi_seat("4444p 6p 567s 789s 11m 9m"), drawn="9m")
    assert one(s, 0, "closed_kong").code == "RIICHI_FIXED_HAND"


# ---------------------------------------------------------------------------------------------
# §2 row: robbing a kong


def kong_window(variant, declaration, tile, owner_hand, owner=1, **kw):
    return table(variant, phase="kong_window", turn=owner, last_tile=tile, declaration=declaration,
                 **{f"s{owner}": owner_hand}, **kw)


SANMA_KONG = "[6666p+] 123s 789s 9m9m 7z 3p"


def test_sanma_robs_an_added_kan():
    s = kong_window("sanma", "added_kong", "6p", SANMA_KONG, s2="45p 234s 678s 111m 77z", s0=FILL["sanma"][0])
    ron = one(s, 2, "ron")
    assert ron.legal and [w.message for w in ron.warnings] == [UNCHECKED["sanma"]]


def test_sanma_concealed_kan_robbed_only_by_kokushi():
    s = kong_window("sanma", "closed_kong", "9p", "(9999p) 123s 456s 2p2p 3p 7p", owner=1,
                    s0="1m9m1p1s9s1z2z3z4z5z6z7z 7z", s2="78p 234s 678s 111m 55z")
    kokushi = one(s, 0, "ron")
    assert kokushi.legal
    other = one(s, 2, "ron")
    assert (other.code, other.message) == ("ROB_CONCEALED_KONG", "Only a kokushi musou hand may rob a concealed "
                                                                 "kong.")
    off = TableState.from_json({**s.to_json(), "options": {"kokushi_rob_ankan": False}})
    assert one(off, 0, "ron").message == "A concealed kong can't be robbed at this table."


def k6_state(declaration="added_kong", east_discards=(), **options):
    """korean-3p K6: East waits on 1m/4m with 23m; South's kong of 4m is open to robbing."""
    kong = "[4444m+]" if declaration == "added_kong" else "(4444m)"
    south = {"hand": f"{kong} 123p 789p 5m5m 9m 8m"}
    return kong_window("korean-3p", declaration, "4m", south,
                       s0={"hand": "23m 111s 999s 567p 55p", "discards": list(east_discards)},
                       s2="1m 7m 8m 1p 9p 1z 2z 3z 5z 6z 7z 2p 3p", options=options)


def test_korean_k6_robbing_a_promoted_kong_to_complete_a_chow():
    ron = one(k6_state(), 0, "ron")
    assert ron.legal and [w.message for w in ron.warnings] == [UNCHECKED["korean-3p"]]


def test_korean_k6_robbing_only_to_complete_a_chow():
    # East's only use of 4m as the pair: this cannot occur at a real table (the kong holds all four 4m),
    # so the rule is asked about a hand directly.
    s = k6_state()
    pair_wait = parse_hand("4m 111s 999s 567p 123p")
    block = robbing_block(s, pair_wait, Tile.from_code("4m"))
    assert (block.code, block.message) == (
        "ROB_KONG_CHOW_ONLY", "Here you may rob a kong only when that tile completes a chow in your winning hand.")
    assert robbing_block(s, parse_hand("23m 111s 999s 567p 55p"), Tile.from_code("4m")) is None


def test_korean_k6_sacred_discard_blocks_the_robbery():
    s = k6_state(east_discards=[{"tile": "4m", "called_by": 1}])
    ron = one(s, 0, "ron")
    assert (ron.code, ron.message) == (
        "SACRED_DISCARD",
        "You threw a 4m earlier, so you can't win on anyone's 4m. Your other waits still work, and so does drawing it "
        "yourself.")


def test_korean_k6_concealed_kong_by_option():
    assert one(k6_state("closed_kong"), 0, "ron").legal
    off = one(k6_state("closed_kong", rob_concealed=False), 0, "ron")
    assert (off.code, off.message) == ("ROB_CONCEALED_NEVER", "A concealed kong can't be robbed at this table.")


def test_hong_kong_robbing_promoted_and_concealed_kongs():
    hk_fill = "3m6m9m 2p 5p 2s 5s 1z2z3z4z6z7z"
    s = kong_window("hong-kong", "added_kong", "8p", "[8888p+] 123s 456s 77s 9m 2m", s0="67p 234s 678s 111m 55z",
                    s2=FILL["hong-kong"][1], s3=hk_fill)
    assert one(s, 0, "ron").legal
    c = kong_window("hong-kong", "closed_kong", "8p", "(8888p) 123s 456s 77s 9m 2m", s0="67p 234s 678s 111m 55z",
                    s2=FILL["hong-kong"][1], s3=hk_fill)
    assert one(c, 0, "ron").message == "Only a Thirteen Orphans hand may rob a concealed kong."
    orphans = kong_window("hong-kong", "closed_kong", "9s", "(9999s) 123p 456p 77p 9m 2m", owner=1,
                          s0="1m9m1p9p1s1z2z3z4z5z6z7z 7z", s2="2m5m8m 2p 5p 8p 2s 5s 8s 4z 5z 6z 3p",
                          s3=hk_fill)
    assert one(orphans, 0, "ron").legal


def test_three_kaki_robs_a_promoted_kong_never_a_concealed_one():
    s = kong_window("three-kaki", "added_kong", "8p", "[8888p+] 123p 456p 11z 3z 4z", s0="67p 555z 666z 777z 22z",
                    s2="1p9p 3z4z 2p 3p 4p 9p 5p 1z 4z 3z 2z")
    assert one(s, 0, "ron").legal
    c = kong_window("three-kaki", "closed_kong", "8p", "(8888p) 123p 456p 11z 3z 4z", s0="67p 555z 666z 777z 22z",
                    s2="1p9p 3z4z 2p 3p 4p 9p 5p 1z 4z 3z 2z")
    assert one(c, 0, "ron").code == "ROB_CONCEALED_NEVER"


def test_a_kong_window_takes_wins_only():
    s = kong_window("sanma", "added_kong", "6p", SANMA_KONG, s2="45p 234s 678s 111m 77z", s0=FILL["sanma"][0])
    assert [a.kind for a in legal_actions(s, 2)] == ["ron", "pass"]
    no_pon = check_action(s, 0, attempt("pong"))
    assert (no_pon.code, no_pon.message) == ("ROB_WIN_ONLY", "Only a win can take the tile of a declared kong; "
                                                             "no pon, chow or kong.")


# ---------------------------------------------------------------------------------------------
# §2 rows: ron / tsumo


@pytest.mark.parametrize("variant,hand,drawn", [
    ("sanma", "111m 234p 678p 34s 99s 5s", "5s"),
    ("korean-3p", "123p 456p 234m 789m 9s 9s", "9s"),
    ("hong-kong", "123m 456m 789p 345s 2p 2p", "2p"),
    ("three-kaki", "123p 456p 789p 77z jk 5p 5p", "5p"),
])
def test_self_draw_win_is_listed(variant, hand, drawn):
    kw = {"s1": "1p9p3z4z5z6z7z2p8p 4p6p 7p 2z", "s2": "9p4z5z6z 2p8p3p 4p 6p 1z 2z 8p 3z"} \
        if variant == "three-kaki" else {}
    s = own_turn(variant, hand, drawn=drawn, **kw)
    tsumo = one(s, 0, "tsumo")
    assert tsumo.legal and tsumo.tile.code == drawn
    assert [w.message for w in tsumo.warnings] == [UNCHECKED[variant]]


def test_no_tsumo_right_after_a_claim():
    s = own_turn("sanma", "[777z@1] 123p 406p 78p 55p 9p", sets_made_this_turn=[0])
    assert not acts(s, 0, "tsumo")
    v = check_action(s, 0, attempt("tsumo"))
    assert (v.code, v.message) == ("NOT_A_WIN", "The tile you called doesn't complete your hand, so there is no "
                                                "win to declare.")


def test_ron_that_does_not_complete_the_hand():
    s = claim("sanma", "6p", s1="45p 123s 789s 456s 6z7z")
    v = check_action(s, 1, attempt("ron"))
    assert (v.code, v.message) == ("NOT_A_WIN", "6p doesn't complete your hand, so there is no win to declare.")


# ---------------------------------------------------------------------------------------------
# §2 row: riichi (sanma)


def riichi_state(hand="234p 567p 99p 234s 67s 1z", drawn="1z", points=35000, **kw):
    return own_turn("sanma", {"hand": hand, "points": points}, drawn=drawn, **kw)


def test_riichi_is_offered_for_each_discard_that_leaves_the_hand_ready():
    s = riichi_state()
    r = acts(s, 0, "riichi")
    assert [(a.tile.code, a.legal) for a in r] == [("1z", True)]


def test_riichi_needs_a_closed_hand():
    s = own_turn("sanma", "[777z@1] 123p 406p 78p 55p 1z", drawn="1z")
    r = one(s, 0, "riichi")
    assert (r.code, r.message) == ("RIICHI_OPEN_HAND", "Riichi needs a closed hand; your pon/open kan means you "
                                                       "can't declare it.")


def test_riichi_needs_a_ready_hand():
    s = riichi_state(hand="123p 456p 1s4s7s 1z2z3z5z 9m", drawn="9m")
    r = one(s, 0, "riichi")
    assert (r.code, r.message) == ("RIICHI_NOT_TENPAI", "Riichi needs a ready hand after your discard; you are 4 "
                                                        "tile(s) away.")
    one_off = check_action(riichi_state(), 0, attempt("riichi", "2p"))
    assert one_off.message == "Riichi needs a ready hand after your discard; you are 1 tile(s) away."


def test_riichi_needs_1000_points_unless_the_table_allows_less():
    r = one(riichi_state(points=800), 0, "riichi")
    assert (r.code, r.message) == ("RIICHI_POINTS", "Riichi costs a 1,000-point stick and you have 800.")
    assert one(riichi_state(points=800, options={"riichi_min_points": 0}), 0, "riichi").legal


def test_riichi_needs_three_live_tiles():
    r = one(riichi_state(live_wall=2), 0, "riichi")
    assert (r.code, r.message) == ("RIICHI_WALL", "Too few tiles left (2); you wouldn't get another draw.")
    assert one(riichi_state(live_wall=3), 0, "riichi").legal


def test_riichi_is_not_in_other_rule_systems():
    s = own_turn("hong-kong", "123m 456m 789p 345s 2p 2p", drawn="2p")
    v = check_action(s, 0, attempt("riichi", "2p"))
    assert (v.code, v.message) == ("NOT_IN_RULES", "There is no riichi in Hong Kong Old Style.")


# ---------------------------------------------------------------------------------------------
# §2 row: kita (sanma)


def test_kita_on_the_own_turn_after_a_draw():
    s = riichi_state(hand="234p 567p 99p 234s 67s 4z", drawn="4z")
    k = one(s, 0, "kita")
    assert k.legal and k.tile.code == "4z"


def test_kita_after_riichi_only_with_the_north_just_drawn():
    kept = own_turn("sanma", riichi_seat("4z4z 234p 567p 99p 234s 6s", discards=("1z",)), drawn="6s")
    k = one(kept, 0, "kita")
    assert (k.code, k.message) == ("KITA_AFTER_RIICHI", "After riichi you may only set aside a North you just drew.")
    drew = own_turn("sanma", riichi_seat("234p 567p 99p 234s 66s 4z", discards=("1z",)), drawn="4z")
    assert one(drew, 0, "kita").legal


def test_kita_not_right_after_a_pon_and_not_on_the_last_draw():
    after_pon = own_turn("sanma", "[777z@1] 4z 123p 406p 78p 55p", sets_made_this_turn=[0])
    k = one(after_pon, 0, "kita")
    assert (k.code, k.message) == ("KITA_NEEDS_DRAW", "You can set a North aside only after drawing a tile, not right "
                                                      "after a call.")
    last = riichi_state(hand="234p 567p 99p 234s 67s 4z", drawn="4z", live_wall=0)
    assert one(last, 0, "kita").message == "No replacement tile is left, so you can't declare kita now."


# ---------------------------------------------------------------------------------------------
# §2 rows: sinking and swapping a Fei (three-kaki)

KAKI_OTHERS = {"s1": "1p9p3z4z5z6z7z2p8p 4p6p 7p 2z", "s2": "9p4z5z6z 2p8p3p 4p 6p 1z 2z 8p 3z"}


def test_sink_a_fei_from_the_hand_also_right_after_a_claim():
    drawn = own_turn("three-kaki", "jk 123p 456p 789p 11z 5z 6p", drawn="5z", **KAKI_OTHERS)
    assert one(drawn, 0, "sink_fei").legal
    after_chow = own_turn("three-kaki", "{456p@1} jk 123p 789p 11z 5z 4p", sets_made_this_turn=[0], **KAKI_OTHERS)
    assert one(after_chow, 0, "sink_fei").legal
    no_wall = own_turn("three-kaki", "jk 123p 456p 789p 11z 5z 6p", drawn="5z", live_wall=0, **KAKI_OTHERS)
    assert one(no_wall, 0, "sink_fei").message == "No replacement tile is left, so you can't sink a Fei now."


def test_only_a_fei_in_the_hand_can_be_sunk():
    s = own_turn("three-kaki", "[55p jk=5p@1] 123p 789p 11z 5z 4p 9p", drawn="9p", **KAKI_OTHERS)
    assert not acts(s, 0, "sink_fei")
    v = check_action(s, 0, attempt("sink_fei"))
    assert (v.code, v.message) == ("SINK_FROM_HAND", "Only a Fei in your hand can be sunk; one in a shown set must "
                                                     "be swapped back first.")


def test_swap_a_fei_back_on_a_later_turn_after_drawing():
    hand = "[55p jk=5p@1] 5p 123p 789p 11z 3z 4p"
    later = own_turn("three-kaki", hand, drawn="4p", **KAKI_OTHERS)
    swap = one(later, 0, "swap_fei")
    assert swap.legal and swap.meld.format() == "[555p@1]" and swap.target == (0, 0)
    same_turn = own_turn("three-kaki", hand, sets_made_this_turn=[0], **KAKI_OTHERS)
    too_soon = one(same_turn, 0, "swap_fei")
    assert (too_soon.code, too_soon.message) == ("FEI_SWAP_TOO_SOON", "You can swap the Fei back on a later turn, "
                                                                      "after you draw.")


def test_a_thrown_fei_cannot_be_claimed():
    s = claim("three-kaki", "jk", s0="1p9p3z4z5z6z7z2p8p 4p6p 3p 2z", s1="jk jk 55p 123p 789p 11z 3z",
              s2="9p4z5z6z 2p8p3p 4p 6p 1z 2z 8p 3z")
    v = check_action(s, 1, attempt("pong"))
    assert (v.code, v.message) == ("FEI_THROWN", "A thrown Fei is sunk: nobody can take it. East draws a "
                                                 "replacement and discards again.")
    all_fei = check_action(s, 1, attempt("pong", tiles="jkjk"))
    assert (all_fei.code, all_fei.message) == ("FEI_NEEDS_REAL_TILE", "Every set needs at least one real tile.")
    assert one(s, 1, "ron").code == "FEI_THROWN"  # the hand is ready, yet the Fei cannot be won on


# ---------------------------------------------------------------------------------------------
# §2 rows: nine terminals (sanma), last discard, no replacement, flowers


def test_nine_terminals_on_the_first_draw_before_any_call():
    s = own_turn("sanma", {"hand": "1m9m1p9p1s1z2z3z4z 456s 7s 9s", "first_turn": True}, drawn="9s",
                 s1="2p3p4p5p6p7p8p 2s3s4s5s6s 7z", s2="2p3p4p5p6p7p8p 2s3s4s5s6s 7z")
    assert one(s, 0, "nine_terminals").legal
    later = own_turn("sanma", {"hand": "1m9m1p9p1s1z2z3z4z 456s 7s 9s", "discards": ["8s"]}, drawn="9s",
                     s1="2p3p4p5p6p7p8p 2s3s4s5s6s 7z", s2="2p3p4p5p6p7p8p 2s3s4s5s6s 7z")
    v = check_action(later, 0, attempt("nine_terminals"))
    assert (v.code, v.message) == ("NINE_TERMINALS_NOT_NOW", "Nine terminals can be declared only on your first draw, "
                                                             "before anyone has called.")


@pytest.mark.parametrize("variant,tile,hand", [
    ("sanma", "5p", "55p 77p 123s 456s 789s"),
    ("korean-3p", "5m", "55m 77m 123p 456p 789p"),
    ("hong-kong", "5s", "55s 77s 123p 456p 789p"),
    ("three-kaki", "5p", "55p 77p 123p 789p 111z"),
])
def test_on_the_last_discard_only_a_win(variant, tile, hand):
    kw = {"s2": hand}
    if variant == "three-kaki":
        kw["s0"] = "1p9p3z4z5z6z7z2p8p 4p6p 3p 2z"
        kw["s1"] = "9p4z5z6z 2p8p3p 4p 6p 2z 8p 3z 4z"
    s = claim(variant, tile, live_wall=0, **kw)
    pong = one(s, 2, "pong")
    assert (pong.code, pong.message) == ("LAST_DISCARD", "That was the last discard; only a win can take it.")
    assert one(s, 2, "ron").legal


@pytest.mark.parametrize("variant,hand,verb", [
    ("sanma", "6666p 123s 789s 1m1m 9m 4z", "declare a kan"),
    ("korean-3p", "6666m 123p 789p 9m9m 3m 1s", "declare a kong"),
    ("hong-kong", "5555s 123p 789p 6m6m 9m 2s", "declare a kong"),
    ("three-kaki", "5555p 123p 789p 1z1z 3z 4z", "declare a kong"),
])
def test_no_kong_without_a_replacement_tile(variant, hand, verb):
    kw = {"s1": "1p9p3z4z5z6z7z2p8p 4p6p 7p 2z", "s2": "9p4z5z6z7z2p8p3p 4p 6p 1z 2z 8p"} \
        if variant == "three-kaki" else {}
    s = own_turn(variant, hand, drawn=hand[-2:], live_wall=0, **kw)
    k = one(s, 0, "closed_kong")
    assert (k.code, k.message) == ("NO_REPLACEMENT", f"No replacement tile is left, so you can't {verb} now.")


def test_hong_kong_eighth_flower_can_be_robbed():
    flowers = "1f2f3f4f1g2g3g"
    s = kong_window("hong-kong", "bonus", "4g", {"hand": "123m 456m 789p 345s 2p | 4g"},
                    s0={"hand": f"{FILL['hong-kong'][0]} | {flowers}"}, s2=FILL["hong-kong"][1],
                    s3=FILL["hong-kong"][2])
    rob = one(s, 0, "ron")
    assert rob.legal and rob.tile.code == "4g" and not rob.warnings
    off = TableState.from_json({**s.to_json(), "options": {"flower_rob": False}})
    assert one(off, 0, "ron").message == "Robbing the eighth flower isn't allowed at this table."


def test_claim_too_late_after_the_next_player_drew():
    s = claim("sanma", "5p", next_drawn=True, s2="55p 123s 789s 1m1m 9m 7z7z")
    pon = one(s, 2, "pong")
    assert (pon.code, pon.message) == ("CLAIM_TOO_LATE", "Too late — South has drawn, so that 5p can no longer be "
                                                         "taken.")


# ---------------------------------------------------------------------------------------------
# §4: restrictions right after a call


def test_sanma_kuikae_after_a_pon():
    s = own_turn("sanma", "[666p@1] 6p 123s 789s 1m1m 4z 9m", sets_made_this_turn=[0])
    d = [a for a in acts(s, 0, "discard") if a.tile.code == "6p"][0]
    assert (d.code, d.message) == ("KUIKAE", "You just called pon on 6p; you can't throw another 6p in the same "
                                             "turn.")
    assert all(a.legal for a in acts(s, 0, "discard") if a.tile.code != "6p")
    allowed = own_turn("sanma", "[666p@1] 6p 123s 789s 1m1m 4z 9m", sets_made_this_turn=[0],
                       options={"kuikae": "allowed"})
    assert all(a.legal for a in acts(allowed, 0, "discard"))


def test_three_kaki_no_tile_of_the_set_just_made():
    s = own_turn("three-kaki", "{46p jk=5p@1} 4p 123p 789p 11z 5z 6z", sets_made_this_turn=[0], **KAKI_OTHERS)
    d = [a for a in acts(s, 0, "discard") if a.tile.code == "4p"][0]
    assert (d.code, d.message) == ("CALLED_SET_TILE", "You just made a chow of 456p. Keep its tiles this turn — no "
                                                      "4p, 5p or 6p discard until your next turn.")
    assert all(a.legal for a in acts(s, 0, "discard") if a.tile.code not in ("4p", "5p", "6p"))


@pytest.mark.parametrize("variant,hand", [("korean-3p", "[666m@1] 6m 123p 789p 9m9m 1s 3m"),
                                          ("hong-kong", "[555s@1] 5s 123p 789p 6m6m 2s 9m")])
def test_no_restriction_after_a_call_elsewhere(variant, hand):
    s = own_turn(variant, hand, sets_made_this_turn=[0])
    assert all(a.legal for a in acts(s, 0, "discard"))


# ---------------------------------------------------------------------------------------------
# §6: liability warnings on a discard


def test_three_kaki_third_dragon_warning():
    s = own_turn("three-kaki", "7z 123p 456p 789p 11z 2z 3z", drawn="3z",
                 s1="[555z@1] [666z@2] 234p 5p 9p 1p 8p", s2="9p4z4z 2p8p3p 4p 6p 1z 2z 8p 3z 6p")
    d = [a for a in acts(s, 0, "discard") if a.tile.code == "7z"][0]
    assert d.legal
    assert [(w.code, w.message) for w in d.warnings] == [(
        "THIRD_DRAGON_WARNING", "Careful: South shows two dragon sets. If they take this 7z, for a third set or to "
                                "win, you pay their whole win this hand (both shares).")]
    assert not [a for a in acts(s, 0, "discard") if a.tile.code == "1z"][0].warnings


@pytest.mark.parametrize("split,note", [
    ("split", "If someone else throws the winning tile, you and that player pay 1 portion each."),
    ("liable_pays_2", "You pay all of it even if someone else throws the winning tile."),
])
def test_hong_kong_third_dragon_warning(split, note):
    s = own_turn("hong-kong", "7z 123p 456p 789p 11z 2s 3s", drawn="3s", options={"bao_split": split},
                 s3="[555z@2] [666z@1] 234s 5m 9m 1m 8m", s1=FILL["hong-kong"][1].replace("5z7z", "8p8s"),
                 s2=FILL["hong-kong"][2].replace("6z7z", "6p6s"))
    d = [a for a in acts(s, 0, "discard") if a.tile.code == "7z"][0]
    assert [w.message for w in d.warnings] == [
        "Careful: North shows two dragon sets. If this 7z gives them a third and they win with Great Dragons, you "
        f"pay for their win: all of it if they self-draw or win on your discard. {note}"]


def test_sanma_pao_warning_for_dragons_and_winds():
    s = own_turn("sanma", "7z 4z 123p 456p 789p 1s 2s 3s", drawn="3s",
                 s1="[555z@1] [666z@2] 234s 5p 9p 1m 9m", s2="[111z@1] [222z@2] [333z@1] 9s 8s 7s 5s")
    seven = [a for a in acts(s, 0, "discard") if a.tile.code == "7z"][0]
    assert [(w.code, w.message) for w in seven.warnings] == [(
        "PAO_WARNING", "Careful: South shows two dragon sets. If they pon or kan this 7z and win with daisangen, you "
                       "are liable (pao): you pay the whole win if they tsumo or ron you, and half of it if they ron "
                       "another player.")]
    north = [a for a in acts(s, 0, "discard") if a.tile.code == "4z"][0]
    assert [w.message for w in north.warnings] == [
        "Careful: West shows three wind sets. If they pon or kan this 4z and win with daisuushii, you are liable "
        "(pao): you pay the whole win if they tsumo or ron you, and half of it if they ron another player."]
    off = TableState.from_json({**s.to_json(), "options": {"pao": "none"}})
    assert not [a for a in acts(off, 0, "discard") if a.tile.code == "7z"][0].warnings


def test_sanma_north_set_aside_cannot_be_won_on():
    s = kong_window("sanma", "kita", "4z", {"hand": "234p 567p 99p 234s 67s | 4z"}, owner=0,
                    s1="4z 123p 456p 789p 555s", s2=FILL["sanma"][1])
    ron = one(s, 1, "ron")
    assert (ron.code, ron.message) == ("NO_NORTH_RON", "A North set aside can't be won on at this table.")
    any_hand = TableState.from_json({**s.to_json(), "options": {"rob_kita": "any"}})
    assert one(any_hand, 1, "ron").legal


# ---------------------------------------------------------------------------------------------
# §3: claim priority


def test_sanma_double_ron_and_ron_beats_pon():
    s = claim("sanma", "5p", s1="46p 234s 678s 111m 77z", s2="46p 345s 789s 999m 1s1s")
    r = resolve_claims(s, [attempt("ron", seat=1), attempt("ron", seat=2)])
    assert [a.seat for a in r.winners] == [1, 2] and r.losers == ()
    head_bump = TableState.from_json({**s.to_json(), "options": {"multi_ron": "head_bump"}})
    r = resolve_claims(head_bump, [attempt("ron", seat=2), attempt("ron", seat=1)])
    assert [a.seat for a in r.winners] == [1]
    assert [(a.seat, a.code, a.message) for a in r.losers] == [
        (2, "LOST_TO_NEARER", "South also wanted this 5p to ron and sits nearer to East in turn order, so South "
                              "takes it.")]
    pon = claim("sanma", "5p", s1="46p 234s 678s 111m 77z", s2="55p 345s 789s 999m 1s 2s")
    r = resolve_claims(pon, [attempt("pong", seat=2), attempt("ron", seat=1)])
    assert [a.kind for a in r.winners] == ["ron"]
    assert [(a.code, a.message) for a in r.losers] == [
        ("LOST_PRIORITY", "South also wanted this 5p to ron; a ron beats a pon.")]


def test_korean_nearest_winner_and_win_beats_pong():
    s = claim("korean-3p", "5m", discarder=1, s1={"hand": FILL["korean-3p"][0]},
              s0="46m 111s 999s 567p 55p", s2="46m 123p 789p 555z 33m")
    r = resolve_claims(s, [attempt("ron", seat=0), attempt("ron", seat=2)])
    assert [a.seat for a in r.winners] == [2]  # West is next after South
    assert r.losers[0].message == ("West also wanted this 5m to win and sits nearer to South in turn order, so West "
                                   "takes it.")
    both = TableState.from_json({**s.to_json(), "options": {"multi_win": "both"}})
    assert [a.seat for a in resolve_claims(both, [attempt("ron", seat=0), attempt("ron", seat=2)]).winners] == [2, 0]


def test_hong_kong_win_beats_pung_beats_chow():
    s = claim("hong-kong", "5p", s1="46p 234s 789s 555z 1m 2m", s2="55p 234s 789s 666z 1m 2m",
              s3="3m6m9m 1p9p 1s9s 2z3z4z 7z 8m 8s")
    r = resolve_claims(s, [attempt("chow", seat=1), attempt("pong", seat=2)])
    assert [(a.seat, a.kind) for a in r.winners] == [(2, "pong")]
    assert [a.message for a in r.losers] == ["West also wanted this 5p to pong; a pong beats a chow."]


def test_three_kaki_kong_beats_chow_and_real_tiles_beat_a_fei():
    s = claim("three-kaki", "5p", s0="1p9p3z4z5z6z7z2p8p 2z 6z 7z 3p",
              s1="46p 123p 789p 11z 2z 3z 4z", s2="555p 123p 789p 11z 2z 3z")
    r = resolve_claims(s, [attempt("chow", seat=1), attempt("open_kong", seat=2)])
    assert [a.kind for a in r.winners] == ["open_kong"]
    assert r.losers[0].message == "West also wanted this 5p to kong; a kong beats a chow."
    pongs = claim("three-kaki", "5p", s0="1p9p3z4z5z6z7z2p8p 2z 6z 7z 3p",
                  s1="5p jk 123p 789p 11z 2z 3z 9p", s2="55p 123p 789p 11z 2z 3z 6p")
    r = resolve_claims(pongs, [attempt("pong", seat=1), attempt("pong", seat=2)])
    assert [a.seat for a in r.winners] == [2]
    assert [(a.code, a.message) for a in r.losers] == [
        ("LOST_TO_REAL_TILES", "West called pong with two real tiles; real tiles beat a Fei.")]


def test_three_kaki_pong_against_pong_both_with_fei_nearest_wins():
    s = claim("three-kaki", "5p", s0="1p9p3z4z5z6z7z2p8p 2z 6z 7z 3p",
              s1="5p jk 123p 789p 11z 2z 3z 9p", s2="5p jk 123p 789p 11z 2z 3z 6p")
    r = resolve_claims(s, [attempt("pong", seat=2), attempt("pong", seat=1)])
    assert [a.seat for a in r.winners] == [1]
    assert r.losers[0].code == "LOST_TO_NEARER"


@pytest.mark.parametrize("variant,hands,winner,loser", [
    ("hong-kong", [FILL["hong-kong"][0], FILL["hong-kong"][1], "46p 234s 789s 234m 11m", "46p 567s 123s 678m 99m"],
     2, 3),
    ("three-kaki", ["1p9p3z4z5z6z7z2p8p 2z 6z 7z 3p", "46p 123p 789p 111z 22z", "46p 123p 789p 333z 44z"], 1, 2),
])
def test_two_winners_on_one_discard_nearest_wins(variant, hands, winner, loser):
    s = claim(variant, "5p", **{f"s{i}": h for i, h in enumerate(hands)})
    r = resolve_claims(s, [attempt("ron", seat=loser), attempt("ron", seat=winner)])
    assert [a.seat for a in r.winners] == [winner]
    assert [(a.seat, a.code) for a in r.losers] == [(loser, "LOST_TO_NEARER")]


def test_illegal_claims_lose_with_their_own_reason():
    s = claim("sanma", "6p", s1="45p 123s 789s 456s 6z7z", s2="66p 123s 789s 1m1m 9m 7z7z")
    r = resolve_claims(s, [attempt("chow", seat=1), attempt("pong", seat=2), attempt("pass", seat=0)])
    assert [a.kind for a in r.winners] == ["pong"]
    assert [a.code for a in r.losers] == ["NO_CHI"]


# ---------------------------------------------------------------------------------------------
# Win value through the scorer (these need scoring)


def test_value_unchecked_without_a_scorer():
    s = claim("hong-kong", "2p", s1="123m 456m 789p 345s 2p")
    ron = one(s, 1, "ron")
    assert ron.legal and [(w.code, w.message) for w in ron.warnings] == [
        ("VALUE_UNCHECKED", UNCHECKED["hong-kong"])]


def test_sanma_e3_ron_without_riichi_has_no_yaku(scoring):
    s = claim("sanma", "4s", s1={"hand": "111m 234p 567p 23s 55s | 4z4z"},
              s0={"hand": "1p9p1s9s1z2z3z5z2p8p2s8s 6s"})
    ron = one(s, 1, "ron")
    assert (ron.code, ron.message) == ("NO_YAKU", "Your hand is complete but has no yaku. Dora, red fives and "
                                                  "Norths set aside don't count. A closed hand could win by tsumo or "
                                                  "riichi; an open one needs e.g. a dragon pon or tanyao.")


def test_hong_kong_h1_minimum_excludes_flowers(scoring):
    s = claim("hong-kong", "2p", discarder=2, s1={"hand": "123m 456m 789p 345s 2p | 2f"},
              s2={"hand": FILL["hong-kong"][1]}, s0=FILL["hong-kong"][0].replace("1m4m7m", "6p6s8p"),
              s3=FILL["hong-kong"][2])
    ron = one(s, 1, "ron")
    assert (ron.code, ron.message) == ("BELOW_MINIMUM", "This win is worth 2 faan; the table needs 3. Flowers are "
                                                        "added after but don't count toward the 3.")


def test_korean_k3_below_minimum_on_a_discard(scoring):
    s = claim("korean-3p", "9s", s1="123p 456p 234m 789m 9s", s0="1m4m7m1p9p1s1z2z3z5z6z7z 9m")
    ron = one(s, 1, "ron")
    assert (ron.code, ron.message) == ("BELOW_MINIMUM", "This win is worth 2 points; the table needs 3. The 2 for "
                                                        "winning and flowers don't count; a self-draw would add 1.")


def test_three_kaki_t1_needs_five_fan(scoring):
    short = own_turn("three-kaki", {"hand": "123p 456p 789p 77z jk 5p 5p | 1a 4f"}, seat=1, drawn="5p",
                     s0={"hand": "1p9p3z4z5z6z 2p8p 4p6p 7p 2z 3p | 1f 2g"}, s2="9p4z5z6z 2p8p3p 4p 6p 1z 2z 8p 3z")
    t = one(short, 1, "tsumo")
    assert (t.code, t.message) == ("BELOW_MINIMUM", "This win is worth 4 fan; the table needs 5.")
    full = TableState.from_json({**short.to_json(), "seats": [
        short.seats[0].to_json(), {**short.seats[1].to_json(), "hand": "123p 456p 789p 77z jk 5p 5p | 1a 2h 4f"},
        short.seats[2].to_json()]})
    assert one(full, 1, "tsumo").legal


def test_attempts_that_cannot_be_made_say_why():
    own = riichi_state()  # East holds 14 tiles after a draw
    cases = [
        (own, 0, attempt("pong"), "NO_CLAIMABLE_TILE", "No discard is open to claims right now."),
        (own, 1, attempt("discard", "2p"), "NOT_YOUR_TURN", "You can discard only on your own turn, while you hold "
                                                            "14 tiles."),
        (own, 0, attempt("discard", "9m"), "TILES_NOT_IN_HAND", "You don't hold 9m, so you can't discard."),
        (own, 0, attempt("kita"), "TILES_NOT_IN_HAND", "You don't hold a North (4z), so you can't set a North aside."),
    ]
    window = claim("hong-kong", "6p", s1="45p 234s 789s 555z 1m 2m", s2="78p 234s 789s 666z 2m 3m",
                   s3="57p 234s 789s 777z 3m 4m")
    cases += [
        (window, 0, attempt("pong"), "OWN_DISCARD", "You can't claim your own discard."),
        (window, 1, attempt("chow", "6p", "78p"), "TILES_NOT_IN_HAND", "You don't hold 78p, so you can't chow."),
    ]
    for state, seat, act, code, message in cases:
        v = check_action(state, seat, act)
        assert (v.legal, v.code, v.message) == (False, code, message), act
    with pytest.raises(ValueError, match=r"action.tiles: 23s and 6p do not make a chow"):
        check_action(window, 1, attempt("chow", "6p", "23s"))


# ---------------------------------------------------------------------------------------------
# §6 wording: every message template is the rules file's, word for word

RULES = Path(__file__).resolve().parents[2] / "shared" / "rules" / "call-legality.md"


def test_messages_are_the_rules_files_words():
    if not RULES.exists():
        pytest.skip(f"{RULES} not found")
    rows = re.findall(r'^\| `([A-Z_]+)` \| ([^|]+) \|[^|]*\| "([^"]+)"', RULES.read_text(), flags=re.M)
    assert len(rows) >= 34
    for code, variants, text in rows:
        template = MESSAGES[code]
        if isinstance(template, str):
            assert template == text, code
        else:
            assert template[variants.strip()] == text, code


# ---------------------------------------------------------------------------------------------
# The table state: JSON and validation


def test_state_json_round_trip():
    s = kong_window("sanma", "added_kong", "6p", SANMA_KONG, s2={
        "name": "Ann", "hand": "45p 234s 678s 111m 77z", "discards": ["1z", {"tile": "9s", "riichi": True}],
        "points": 34000, "passed_since_riichi": "3p", "passed_since_discard": "3p"},
        s0=FILL["sanma"][0], dora_indicators="3z", honba=2, riichi_sticks=1, options={"kuikae": "allowed"})
    data = s.to_json()
    assert TableState.from_json(data) == s
    assert data["seats"][2]["discards"] == ["1z", {"tile": "9s", "riichi": True}]
    assert data["seats"][2]["passed_since_riichi"] == "3p" and s.seats[2].riichi_turn == 1
    assert s.seat_name(2) == "Ann" and s.kongs_made == 1


@pytest.mark.parametrize("change,field", [
    ({"variant": "mahjong"}, "variant"),
    ({"seats": "no"}, "seats"),
    ({"phase": "lunch"}, "phase"),
    ({"turn": 3}, "turn"),
    ({"last_tile": "7p"}, "last_tile"),
    ({"surprise": 1}, "surprise"),
    ({"options": {"no_such_option": 1}}, "options.no_such_option"),
    ({"dora_indicators": "5m"}, "dora_indicators"),
    ({"drawn_tile": "5p"}, "drawn_tile"),
])
def test_bad_state_names_the_field(change, field):
    data = claim("sanma", "5p", s2="55p 123s 789s 1m1m 9m 7z7z").to_json()
    data.update(change)
    with pytest.raises(StateError) as err:
        TableState.from_json(data)
    assert err.value.field == field and str(err.value).startswith(f"{field}: ")


def test_bad_seat_data_names_the_seat_field():
    data = claim("sanma", "5p", s2="55p 123s 789s 1m1m 9m 7z7z").to_json()
    bad_tile = {**data, "seats": [data["seats"][0], {**data["seats"][1], "hand": "5m 2p5p8p 2s5s8s 1z2z3z4z 6z"},
                                  data["seats"][2]]}
    with pytest.raises(StateError, match=r"^seats\[1\]\.hand: .*5m is not in the sanma tile set"):
        TableState.from_json(bad_tile)
    five = {**data, "seats": [data["seats"][0], data["seats"][1],
                              {**data["seats"][2], "hand": "2z2z2z 123s 789s 1m9m 44p"}]}
    with pytest.raises(StateError, match=r"^seats: 5 copies of 2z"):
        TableState.from_json(five)
    riichi_hk = claim("hong-kong", "5s", s1=CALLER["hong-kong"][1]).to_json()
    riichi_hk["seats"][1]["discards"] = [{"tile": "1z", "riichi": True}]
    with pytest.raises(StateError, match=r"^seats\[1\]\.discards\[0\]\.riichi: there is no riichi in hong-kong"):
        TableState.from_json(riichi_hk)
    short = {**data, "seats": data["seats"][:2]}
    with pytest.raises(StateError, match="^seats: a sanma table has 3 seats; got 2"):
        TableState.from_json(short)


def test_bad_seat_and_tile_in_questions():
    s = claim("sanma", "5p", s2="55p 123s 789s 1m1m 9m 7z7z")
    with pytest.raises(ValueError, match=r"^seat: 3 is not a seat at this sanma table \(0 East, 1 South, 2 West\)"):
        legal_actions(s, 3)
    with pytest.raises(TileError, match="action.tile: 5m is not in the sanma tile set"):
        check_action(s, 2, attempt("pong", "5m"))
    with pytest.raises(ValueError, match="action.kind: 'steal'"):
        attempt("steal")
    with pytest.raises(ValueError, match=r"claims\[0\]\.seat: missing"):
        resolve_claims(s, [attempt("pong")])


def test_three_kaki_call_that_would_leave_no_legal_discard_is_refused():
    """After {123p} the hand would hold only 1p 3p, neither of which may be thrown this turn (§4): no chow."""
    others = {"s1": "4p4p5p5p6p6p7p7p 2z2z3z3z4z", "s2": "4p5p6p7p 2p8p 3z 4z 1z 7z 9p 8p 2z"}
    stuck = claim("three-kaki", "2p", discarder=2, s0="[111z@1] [555z@2] [666z@1] 1p1p3p3p", **others)
    chow = one(stuck, 0, "chow")
    assert (chow.legal, chow.code) == (False, "CALL_LEAVES_NO_DISCARD")
    assert chow.message == ("After a chow of 123p every tile left in your hand would be a 1p, 2p or 3p, which you "
                            "may not discard this turn — so this call cannot be made.")
    free = claim("three-kaki", "2p", discarder=2, s0="[111z@1] [555z@2] [666z@1] 1p3p3p9p", **others)
    assert one(free, 0, "chow").legal
