"""Scoring and settlement of Malaysian 3 Kaki (shared/rules/three-kaki.md §3, §4, §6, §7, §9).

Seats: 0 = East (dealer), 1 = South, 2 = West. Defaults: m 8, s 2 → V(5..9) = 8 10 12 14 16, limit 24;
Fei unit 2, square unit 1. Every expected number is worked out by hand in the comment next to it.
"""

from __future__ import annotations

import pytest

from assistant.errors import TileError
from assistant.hand import parse_hand, parse_meld
from assistant.scoring import PlayerShown, ScoreResult, WinContext, score, three_kaki
from assistant.scoring.three_kaki import bonus_events, instant_payout
from assistant.tiles import Tile, parse_tiles
from assistant.variants import SANMA, THREE_KAKI

DOTS_HAND = "123p 456p 789p 234p 55p"  # pure one suit (3 fan); only this reading's sets are chows


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(parse_tiles(text))


def melds(*texts: str):
    return tuple(parse_meld(t) for t in texts)


def shown(melds_: tuple = (), bonus: str = "", **kw) -> PlayerShown:
    return PlayerShown(melds=melds_, bonus=tiles(bonus), **kw)


def ctx(hand: str, win: str, seat: int = 1, tsumo: bool = True, discarder: int | None = None,
        others: dict | None = None, **kw) -> WinContext:
    return WinContext(THREE_KAKI, parse_hand(hand), Tile.from_code(win), tsumo=tsumo, seat=seat,
                      discarder=discarder, others=others or {}, **kw)


def win(hand: str, win_tile: str, **kw) -> ScoreResult:
    return score(ctx(hand, win_tile, **kw))


def fan_items(r: ScoreResult) -> list[tuple[str, int]]:
    return [(i.name, i.value) for i in r.items if i.unit == "fan"]


def limit_items(r: ScoreResult) -> list[str]:
    return [i.name for i in r.items if i.unit == "limit"]


def pays(r: ScoreResult | list) -> list[tuple[int | None, int, int, str]]:
    payments = r.payments if isinstance(r, ScoreResult) else r
    return [(p.payer, p.receiver, p.amount, p.reason) for p in payments]


# =================================================================================================
# Worked examples T1–T5 (§9)


def t1_others() -> dict:
    # East (dealer) bonus 1f 2g, shows [111z]; West holds 1 Fei, bonus 3h 3g
    return {0: shown(melds("[111z]"), "1f2g"), 2: shown(bonus="3h3g", fei=1)}


def test_t1_fei_hand_self_draw_exactly_five():
    r = win("123p456p789p77z jk 5p5p* | 1a2h4f", "5p", seat=1, others=t1_others())
    # Fei as the third 7z: red pung 1 + mixed one suit 1 + cat 1 + face 1 + flower 4 1 = 5
    assert r.legal and r.total == 5 and r.limit is None
    assert sorted(fan_items(r)) == sorted([("animal", 1), ("face", 1), ("flower 4", 1), ("dragon set", 1),
                                           ("mixed one suit", 1)])
    assert r.reading == "123p 456p 789p 77z jk=7z 55p"
    # 1. V(5) = 8 from East and West; 2. South 1 Fei − East 0 = 1 → 2 × 1 = 2, West 1 − 1 = 0
    # 3. East 1f 1 + East set 2 = 3; West Fei 2 + 3h 1 + own season 3g 1 = 4 → East pays West 1
    assert pays(r) == [(0, 1, 8, "win"), (2, 1, 8, "win"), (0, 1, 2, "extra Fei"), (0, 2, 1, "square up")]
    assert r.extra["square_counts"] == {0: 3, 2: 4}
    # South +8 +8 +2 = +18; East −8 −2 −1 = −11; West −8 +1 = −7
    assert r.net(3) == [-11, 18, -7]


def test_t1_without_the_face_is_below_minimum():
    r = win("123p456p789p77z jk 5p5p* | 1a4f", "5p", seat=1, others=t1_others())
    # 7z pung 1 + mixed 1 + cat 1 + flower 4 1 = 4 < 5
    assert not r.legal
    assert r.verdict == "cannot win: 4 below the minimum of 5 fan"
    assert r.total == 4 and r.payments == []


def test_t2_discard_win_fei_in_set_and_sunk_fei():
    others = {0: shown(melds("[666z]"), "1f", fei=1), 1: shown(bonus="2f2g1h")}
    r = win("444z 345p 678p 9p 9p [22p jk=2p@1] | 3f4g3a4h", "9p", seat=2, tsumo=False, discarder=1,
            fei_sunk=1, others=others)
    # North set 1 + sunk Fei 1 + own flower 3f 1 + season 4 1 + rooster 1 + face 4h 1 + mixed 1 = 7
    assert r.legal and r.total == 7 and r.extra["value"] == 12
    assert sorted(fan_items(r)) == sorted([("North set", 1), ("sunk Fei", 1), ("own flower", 1), ("season 4", 1),
                                           ("animal", 1), ("face", 1), ("mixed one suit", 1)])
    # 1. shooter South 12, East 12/2 = 6; 2. West 2 Fei (set + sunk): South 0 → 2×2 = 4, East 1 → 2×1 = 2
    # 3. East Fei 2 + 1f 1 + [666z] 1 = 4; South 2f 1 + 2g 1 + 1h 1 = 3 → South pays East 1
    assert pays(r) == [(0, 2, 6, "win"), (1, 2, 12, "win"), (0, 2, 2, "extra Fei"), (1, 2, 4, "extra Fei"),
                       (1, 0, 1, "square up")]
    # West 12+6+4+2 = +24; South −12−4−1 = −17; East −6−2+1 = −7
    assert r.net(3) == [-7, -17, 24]


def t3_others() -> dict:
    return {0: shown(melds("[111z]"), "1f"), 2: shown(bonus="3g")}


def test_t3_no_bonus_tiles_limit():
    r = win("111p 234p 567p 555z 9p 9p", "9p", seat=1, others=t3_others())
    assert r.legal and r.total == 10 and r.limit == "limit"
    assert limit_items(r) == ["L1 no bonus tiles"]
    # limit V = 3 × 8 = 24 from each; square up East [111z] 2 + 1f 1 = 3, West 3g 1 → West pays East 2
    assert pays(r) == [(0, 1, 24, "win"), (2, 1, 24, "win"), (2, 0, 2, "square up")]
    # South +48; East −24 +2 = −22; West −24 −2 = −26
    assert r.net(3) == [-22, 48, -26]


def t4_hand() -> str:
    return "234p 99p [555z] [666z] [777z@1]"


def test_t4_third_dragon_trap_self_draw():
    r = win(t4_hand(), "4p", seat=0)
    # great three dragons = limit 24; [777z@1] came from (0 − 1) mod 3 = West → West pays 2 × 24 = 48
    assert "L6 great three dragons" in limit_items(r)
    assert r.extra["liable"] == 2
    assert pays(r) == [(2, 0, 48, "win")]
    assert r.net(3) == [48, 0, -48]


def test_t4_third_dragon_trap_discard_by_other_player():
    r = win(t4_hand(), "4p", seat=0, tsumo=False, discarder=1)
    # South shot, but West fed the third dragon: West pays 24 + 24/2 = 36, South nothing
    assert pays(r) == [(2, 0, 36, "win")]
    assert r.net(3) == [36, 0, -36]


def test_t5_instant_payouts_then_draw():
    kong = instant_payout(parse_meld("(8888p)"), 1)
    family = instant_payout("complete_family", 2)
    # concealed kong: East and West pay South 2 each; complete animals: East and South pay West 2 each
    assert pays(kong) == [(0, 1, 2, "concealed kong"), (2, 1, 2, "concealed kong")]
    assert pays(family) == [(0, 2, 2, "complete family"), (1, 2, 2, "complete family")]
    # the family came from West's 4a replacement tile
    assert bonus_events(tiles("1a2a3a"), Tile.from_code("4a"))[0] == "complete_family"
    # the hand is drawn: nothing else. East −2 −2 = −4; South +4 −2 = +2; West −2 +4 = +2
    assert ScoreResult(True, "", payments=kong + family).net(3) == [-4, 2, 2]


# =================================================================================================
# Fan items (§3, §6)


def test_each_animal_scores_one():
    r = win(DOTS_HAND + " | 1a2a3a", "5p", seat=1)
    # animals 3 × 1 + pure one suit 3 = 6 → V(6) = 8 + 2 = 10 from each
    assert sorted(fan_items(r)) == [("animal", 1)] * 3 + [("pure one suit", 3)]
    assert r.total == 6 and r.net(3) == [-10, 20, -10]


def test_faces_and_complete_family():
    r = win("123p 456p 789p 123p 11z | 1h2h3h4h", "1z", seat=2)
    # faces 4 × 1 + complete family (faces) 1 + mixed one suit 1 = 6 (an East eye scores nothing)
    assert sorted(fan_items(r)) == sorted([("face", 1)] * 4 + [("complete family", 1), ("mixed one suit", 1)])
    assert r.total == 6 and r.extra["value"] == 10


def test_own_flower_and_season_follow_the_seat_number():
    hand = DOTS_HAND + " | 1f2g3f3g"
    west = win(hand, "5p", seat=2)
    # West = seat number 3: own flower 3f 1 + own season 3g 1 + pure 3 = 5 (1f, 2g score nothing)
    assert sorted(fan_items(west)) == [("own flower", 1), ("own season", 1), ("pure one suit", 3)]
    assert west.legal and west.total == 5
    south = win(hand, "5p", seat=1)
    # South = 2: own season 2g 1 + pure 3 = 4 → too little
    assert south.verdict == "cannot win: 4 below the minimum of 5 fan"
    east = win(hand, "5p", seat=0)
    # East = 1: own flower 1f 1 + pure 3 = 4
    assert ("own flower", 1) in fan_items(east) and east.total == 4 and not east.legal


def test_flower_four_and_season_four_for_everyone():
    for seat in (0, 1, 2):
        r = win(DOTS_HAND + " | 4f4g", "5p", seat=seat)
        # 4f 1 + 4g 1 + pure 3 = 5 in every seat
        assert sorted(fan_items(r)) == [("flower 4", 1), ("pure one suit", 3), ("season 4", 1)]
        assert r.total == 5
    # dealer self-draw at 5 fan: 8 from each → +16
    assert win(DOTS_HAND + " | 4f4g", "5p", seat=0).net(3) == [16, -8, -8]


def test_complete_flower_family_adds_one():
    r = win(DOTS_HAND + " | 1f2f3f4f", "5p", seat=0)
    # East: own flower 1f 1 + flower 4 1 + family 1 + pure 3 = 6 (2f, 3f nothing)
    assert sorted(fan_items(r)) == sorted([("own flower", 1), ("flower 4", 1), ("complete family", 1),
                                           ("pure one suit", 3)])
    assert r.total == 6


def test_sunk_fei_scores_and_pays_extra_fei():
    r = win(DOTS_HAND, "5p", seat=1, fei_sunk=2)
    # sunk Fei 2 + pure 3 = 5; a sunk Fei is a bonus tile (F12) → no L1 limit
    assert fan_items(r) == [("sunk Fei", 2), ("pure one suit", 3)] and r.limit is None
    # win 8 + 8; extra Fei: South 2 vs 0 → 2 × 2 = 4 from each; South 8+8+4+4 = +24
    assert pays(r) == [(0, 1, 8, "win"), (2, 1, 8, "win"), (0, 1, 4, "extra Fei"), (2, 1, 4, "extra Fei")]
    assert r.net(3) == [-12, 24, -12]


def test_sunk_fei_written_as_jk_in_bonus_area():
    r = win(DOTS_HAND + " | jkjk", "5p", seat=1)
    # same as fei_sunk=2: 5 fan, net South +24
    assert r.total == 5 and r.net(3) == [-12, 24, -12]
    with pytest.raises(ValueError, match="sunk Fei"):
        win(DOTS_HAND + " | jk", "5p", seat=1, fei_sunk=2)


def test_dealer_east_set_scores_two_non_dealer_one():
    hand = "111z 123p 456p 789p 99p | 1a2a"
    dealer = win(hand, "9p", seat=0)
    # East set for the dealer 2 + mixed 1 + animals 2 = 5
    assert ("East set", 2) in fan_items(dealer) and dealer.total == 5 and dealer.legal
    south = win(hand, "9p", seat=1)
    # East set 1 for South + 1 + 2 = 4 → below the minimum
    assert ("East set", 1) in fan_items(south) and south.total == 4 and not south.legal


def test_seat_winds_north_for_everyone():
    hand = "222z 333z 444z 567p 99p | 1a2a3a"
    west = win(hand, "9p", seat=2)
    # West: South set 0 + own wind (West) 1 + North 1 + mixed 1 + animals 3 = 6
    assert sorted(fan_items(west)) == sorted([("own wind set", 1), ("North set", 1), ("mixed one suit", 1)]
                                             + [("animal", 1)] * 3)
    assert [i.note for i in west.items if i.name == "own wind set"] == ["3z"]
    south = win(hand, "9p", seat=1)
    # South: own wind (South) 1 + West 0 + North 1 + mixed 1 + animals 3 = 6
    assert [i.note for i in south.items if i.name == "own wind set"] == ["2z"]
    assert south.total == 6


def test_small_three_dragons_inclusive_default():
    r = win("555z 666z 77z 123p 456p | 1a", "7z", seat=1)
    # dragon sets 1 + 1, small three dragons brings them to 3 (+1), mixed 1, animal 1 = 5
    assert sorted(fan_items(r)) == sorted([("dragon set", 1), ("dragon set", 1), ("small three dragons", 1),
                                           ("mixed one suit", 1), ("animal", 1)])
    assert r.total == 5


def test_small_three_dragons_additive_option():
    r = win("555z 666z 77z 123p 456p | 1a", "7z", seat=1, options={"small_dragons": "additive"})
    # 1 + 1 + 3 + mixed 1 + animal 1 = 7 → V(7) = 8 + 2·2 = 12
    assert ("small three dragons", 3) in fan_items(r) and r.total == 7 and r.extra["value"] == 12
    with pytest.raises(ValueError, match="small_dragons"):
        win("555z 666z 77z 123p 456p | 1a", "7z", seat=1, options={"small_dragons": "double"})


def test_all_honours_rules_example_has_no_mixed_one_suit():
    # §6: non-dealer 555z 666z 111z 444z 77z = small dragons 3 + East 1 + North 1 + all pungs 2 = 7
    # (East set claimed so it is not four concealed pungs; 3f scores nothing for South)
    r = win("555z 666z [111z@1] 444z 77z | 3f", "7z", seat=1)
    assert r.total == 7 and r.limit is None
    names = [n for n, _ in fan_items(r)]
    assert "mixed one suit" not in names and "pure one suit" not in names and ("all pungs", 2) in fan_items(r)


def test_all_pungs_and_pure_one_suit():
    r = win("[111p@1] 333p 555p 777p 99p | 1a", "9p", seat=1)
    # all pungs 2 + pure 3 + animal 1 = 6 (one pung claimed: no L10)
    assert sorted(fan_items(r)) == [("all pungs", 2), ("animal", 1), ("pure one suit", 3)]
    assert r.total == 6 and r.limit is None


def test_self_draw_on_replacement_tile():
    r = win(DOTS_HAND + " | 4f", "5p", seat=1, rinshan=True)
    # pure 3 + flower 4 1 + replacement self-draw 1 = 5 (without rinshan it would be 4)
    assert ("self-draw on a replacement tile", 1) in fan_items(r) and r.total == 5 and r.legal
    assert win(DOTS_HAND + " | 4f", "5p", seat=1).total == 4


def test_robbing_a_kong():
    others = {0: shown(melds("[999p@1]"))}  # East was promoting 999p with the fourth 9p
    r = win(DOTS_HAND + " | 4f", "9p", seat=1, tsumo=False, discarder=0, chankan=True, others=others)
    # pure 3 + flower 4 1 + robbing a kong 1 = 5 → East (robbed) pays 8, West 8/2 = 4
    assert ("robbing a kong", 1) in fan_items(r) and r.total == 5
    assert r.net(3) == [-8, 12, -4]
    # the robbed promoted kong's instant payment is refunded: East gives back 1 to each
    assert pays(instant_payout("promoted_kong_robbed", 0)) == [(0, 1, 1, "promoted kong refund"),
                                                                (0, 2, 1, "promoted kong refund")]


def test_fei_chooses_the_best_tile():
    # two Fei as the eye: a dot eye keeps pure one suit (3) instead of an honour eye (mixed, 1)
    r = win("123p 456p 789p 234p jkjk | 1a2a", "4p", seat=1)
    # pure 3 + animals 2 = 5; South holds 2 Fei → 2 × 2 = 4 extra Fei from each
    assert r.total == 5 and ("pure one suit", 3) in fan_items(r)
    # every Fei stands for a dot (several dot readings tie at 5; the first is named)
    assert r.reading.count("jk=") == 2 and "z" not in r.reading
    assert r.net(3) == [-12, 24, -12]  # 8 + 4 from each


def test_fei_eye_becomes_the_third_dragon():
    r = win("555z 666z jkjk 123p 456p | 1a", "1p", seat=1)
    # eye = 7z: dragon 1 + 1 + small three dragons 1 + mixed 1 + animal 1 = 5
    assert r.total == 5 and r.reading.endswith("jk=7z jk=7z")


# =================================================================================================
# Limit hands L1–L11


def test_l1_sunk_fei_counts_as_a_bonus_tile():
    r = win("111p 234p 567p 555z 9p 9p", "9p", seat=1, fei_sunk=1)
    # T3 with one sunk Fei: no L1 (F12); sunk 1 + dragon 1 + mixed 1 = 3
    assert r.verdict == "cannot win: 3 below the minimum of 5 fan" and r.payments == []


def test_l1_fei_in_hand_is_not_a_bonus_tile():
    r = win("111p 234p 567p 55z jk 9p 9p", "9p", seat=1)
    # Fei in hand (as 5z) is not a bonus tile → L1; V 24 each, extra Fei 2 × 1 = 2 each
    assert limit_items(r) == ["L1 no bonus tiles"]
    assert r.net(3) == [-26, 52, -26]


def test_l2_all_four_fei():
    r = win("123p 456p 789p 2p jkjk 55p | 1a", "5p", seat=1, fei_sunk=2)
    # 2 Fei in hand (pung of 2p) + 2 sunk = 4 → limit; 24 each + extra Fei 2 × 4 = 8 each
    assert "L2 all four Fei" in limit_items(r)
    assert r.net(3) == [-32, 64, -32]


def test_l2_fei_in_a_shown_set_counts():
    r = win("123p 456p 789p jk 5p [22p jk=2p@1] | 1a", "5p", seat=1, fei_sunk=2)
    # 1 in hand + 1 in [22p jk] + 2 sunk = 4 → L2
    assert "L2 all four Fei" in limit_items(r) and r.extra["fei"][1] == 4


def test_l3_win_on_last_tile():
    r = win(DOTS_HAND + " | 1a", "5p", seat=2, haitei=True)
    # pure 3 + cat 1 = 4 fan, but the last tile is a limit: 24 from each
    assert limit_items(r) == ["L3 win on the last tile"] and r.extra["fan_before_limit"] == 4
    assert r.net(3) == [-24, -24, 48]


def test_l4_win_on_last_discard():
    r = win(DOTS_HAND + " | 1a", "5p", seat=2, tsumo=False, discarder=1, houtei=True)
    # shooter South 24, East 24/2 = 12
    assert limit_items(r) == ["L4 win on the last discard"]
    assert r.net(3) == [-12, -24, 36]


def test_l5_first_tile_win_dealer_and_non_dealer():
    dealer = win(DOTS_HAND + " | 1a", "5p", seat=0, tenhou=True)
    assert limit_items(dealer) == ["L5 first-tile win"] and dealer.net(3) == [48, -24, -24]
    south = win(DOTS_HAND + " | 1a", "5p", seat=1, chiihou=True)
    assert limit_items(south) == ["L5 first-tile win"] and south.net(3) == [-24, 48, -24]
    with pytest.raises(ValueError, match="tenhou"):
        win(DOTS_HAND + " | 1a", "5p", seat=1, tenhou=True)


def test_l6_great_three_dragons_with_fei():
    r = win("555z 66z jk 777z 123p 99p | 1a", "1p", seat=1)
    # Fei completes the green pung → three dragon sets
    assert limit_items(r) == ["L6 great three dragons"] and r.total == 10


def test_l7_great_four_winds():
    r = win("[111z@1] [222z@2] 333z 444z 55p | 1a", "5p", seat=1)
    assert limit_items(r) == ["L7 great four winds"]
    assert r.net(3) == [-24, 48, -24]


def test_l8_small_four_winds():
    r = win("[111z@1] 222z 333z 44z 123p | 1a", "3p", seat=2)
    assert limit_items(r) == ["L8 small four winds"]


def test_l9_four_kongs():
    r = win("(1111p) [2222p@1] [3333p+] (4444z) 55p | 1a", "5p", seat=1)
    assert limit_items(r) == ["L9 four kongs"]


def test_l10_four_concealed_pungs_self_draw_and_eye_wait():
    hand = "111p 333p 555p 777z 99p | 1a"
    assert limit_items(win(hand, "9p", seat=1)) == ["L10 four concealed pungs"]
    eye = win(hand, "9p", seat=1, tsumo=False, discarder=2)
    # the discard completes the eye: still four concealed pungs; West 24, East 12
    assert limit_items(eye) == ["L10 four concealed pungs"] and eye.net(3) == [-12, 36, -24]


def test_l10_pung_completed_by_a_discard_is_not_concealed():
    r = win("111p 333p 555p 777z 99p | 1a", "7z", seat=1, tsumo=False, discarder=2)
    # 7z pung is claimed by the win: all pungs 2 + dragon 1 + mixed 1 + animal 1 = 5 → West 8, East 4
    assert limit_items(r) == [] and r.total == 5
    assert r.net(3) == [-4, 12, -8]


def test_l11_win_after_two_consecutive_kongs():
    r = win("(1111p) (2222p) 345p 678p 99p | 1a", "9p", seat=1, rinshan=True, after_two_kongs=True)
    assert "L11 win after two consecutive kongs" in limit_items(r) and r.total == 10
    with pytest.raises(ValueError, match="two kongs"):
        win(DOTS_HAND + " | 1a", "5p", seat=1, after_two_kongs=True)


def test_ten_fan_or_more_is_the_limit():
    r = win(DOTS_HAND + " | 1a2a3a4a1h2h3h4h", "5p", seat=1)
    # animals 4 + faces 4 + 2 families + pure 3 = 13 → limit 10, V 24
    assert r.extra["fan_before_limit"] == 13 and r.total == 10 and r.limit == "limit"
    assert r.net(3) == [-24, 48, -24]


def test_limit_option_moves_the_cap():
    hand = DOTS_HAND + " | 1a2a3a4a1h2h3h"
    # animals 4 + family 1 + faces 3 + pure 3 = 11
    assert win(hand, "5p", seat=1).extra["value"] == 24
    r = win(hand, "5p", seat=1, options={"limit": 12})
    # 11 < 12: V(11) = 8 + 2·(11 − 5) = 20
    assert r.limit is None and r.total == 11 and r.extra["value"] == 20


# =================================================================================================
# Unit scale (§7)


def test_unit_scale_s1_rounds_half_up():
    r = win(DOTS_HAND + " | 1a2a3a", "5p", seat=1, tsumo=False, discarder=2, options={"value_s": 1})
    # 6 fan, s = 1: V = 8 + 1 = 9; West (shooter) 9, East 9/2 = 4.5 → 5
    assert pays(r) == [(0, 1, 5, "win"), (2, 1, 9, "win")]


def test_unit_scale_s3_m10():
    r = win(DOTS_HAND + " | 1a2a3a4a", "5p", seat=2, tsumo=False, discarder=0,
            options={"value_s": 3, "value_m": 10})
    # animals 4 + family 1 + pure 3 = 8 → V = 10 + 3·3 = 19; East 19, South 19/2 = 9.5 → 10
    assert r.total == 8 and pays(r) == [(0, 2, 19, "win"), (1, 2, 10, "win")]
    lim = win(DOTS_HAND + " | 1a", "5p", seat=2, haitei=True, options={"value_m": 10})
    assert lim.extra["value"] == 30  # 3m


def test_unit_scale_must_keep_the_limit_a_jump():
    # s = 4, m = 8: 4 · 5 = 20 ≥ 2 · 8 = 16 → the limit would not be a jump
    with pytest.raises(ValueError, match="value_s"):
        win(DOTS_HAND + " | 1a2a", "5p", seat=1, options={"value_s": 4})


# =================================================================================================
# Extra Fei and square-up (§7 steps 2, 3)


def test_extra_fei_never_negative_and_meld_fei_count():
    others = {0: shown(melds("[33z jk=3z@2]"), fei=1), 2: shown()}
    r = win("123p 456p 789p 234p 5p jk | 4f4g", "5p", seat=1, others=others)
    # South 1 Fei; East 1 in hand + 1 in set = 2 → max(0, 1 − 2) = 0; West 0 → 2 × 1 = 2
    assert [p for p in pays(r) if p[3] == "extra Fei"] == [(2, 1, 2, "extra Fei")]
    assert r.extra["fei"] == {1: 1, 0: 2, 2: 0}


def test_square_up_counts_family_revealed_pung_and_fei_only_once():
    others = {0: shown(bonus="1a2a3a4a", hidden_honour_pongs=(31,)),
              2: shown(melds("[33z jk=3z@1]"), sunk_fei=1)}
    r = win(DOTS_HAND + " | 4f4g", "5p", seat=1, others=others)
    # East: animals 4 + family 1 + revealed 5z pung 1 = 6
    # West: own wind 3z set 1 + Fei (set 1 + sunk 1) × 2 = 5 → West pays East 1
    assert r.extra["square_counts"] == {0: 6, 2: 5}
    assert [p for p in pays(r) if p[3] == "square up"] == [(2, 0, 1, "square up")]
    # South: 8 + 8 = +16 (South 0 Fei: no extra Fei); East −8 +1 = −7; West −8 −1 = −9
    assert r.net(3) == [-7, 16, -9]


def test_square_up_equal_counts_pay_nothing():
    others = {0: shown(melds("[111z]"), "1f"), 2: shown(bonus="3f3g1h")}
    r = win("111p 234p 567p 555z 9p 9p", "9p", seat=1, others=others)
    # East 2 + 1 = 3; West 3f 1 + 3g 1 + 1h 1 = 3 → even
    assert [p for p in pays(r) if p[3] == "square up"] == []
    assert r.net(3) == [-24, 48, -24]


def test_square_unit_option():
    r = win("123p456p789p77z jk 5p5p* | 1a2h4f", "5p", seat=1, others=t1_others(), options={"square_unit": 3})
    # T1 with square unit 3: East pays West (4 − 3) × 3 = 3 → East −8 −2 −3 = −13, West −8 +3 = −5
    assert r.net(3) == [-13, 18, -5]


def test_fei_unit_option():
    r = win(DOTS_HAND, "5p", seat=1, fei_sunk=2, options={"fei_unit": 5})
    # 2 sunk Fei vs 0: 5 × 2 = 10 from each; South 8 + 8 + 10 + 10 = +36
    assert r.net(3) == [-18, 36, -18]


# =================================================================================================
# Third-dragon trap (§7)


def test_trap_winner_wins_on_the_third_dragon_discard():
    r = win("[555z@1] [666z@2] 777z 234p 99p | 1a", "7z", seat=0, tsumo=False, discarder=1)
    # East shows two dragon sets and wins on South's 7z: great three dragons 24 → South pays 24 + 12
    assert "L6 great three dragons" in limit_items(r) and r.extra["liable"] == 1
    assert pays(r) == [(1, 0, 36, "win")]


def test_trap_third_dragon_as_the_eye():
    r = win("[555z] [666z] 123p 456p 7z 7z | 1a", "7z", seat=1, tsumo=False, discarder=2)
    # small three dragons: 1 + 1 + 1 + mixed 1 + animal 1 = 5 → V 8; West liable: 8 + 4 = 12
    assert r.total == 5 and pays(r) == [(2, 1, 12, "win")]
    assert r.net(3) == [0, 12, -12]


def test_trap_from_a_set_claimed_with_a_fei():
    r = win("234p 99p [555z] [666z] [77z jk=7z@2]", "4p", seat=0)
    # third dragon set from (0 − 2) mod 3 = South: South pays 2 × 24; winner 1 Fei → 2 from each
    assert r.extra["liable"] == 1
    assert pays(r) == [(1, 0, 48, "win"), (1, 0, 2, "extra Fei"), (2, 0, 2, "extra Fei")]


def test_trap_explicit_liable_seat():
    r = win(DOTS_HAND + " | 1a2a", "5p", seat=1, liable=2)
    # 5 fan, V 8; self-draw both shares 2 × 8 = 16 from West
    assert pays(r) == [(2, 1, 16, "win")]


def test_no_trap_when_third_dragon_set_was_self_drawn():
    r = win("234p 99p [555z] [666z] (7777z)", "4p", seat=0)
    assert r.extra["liable"] is None and r.net(3) == [48, -24, -24]


# =================================================================================================
# Instant payouts


def test_concealed_kong_option():
    assert pays(instant_payout("concealed_kong", 0, options={"pay_concealed_kong": 3})) == [
        (1, 0, 3, "concealed kong"), (2, 0, 3, "concealed kong")]


def test_exposed_kong_default_each_pays_one():
    assert pays(instant_payout(parse_meld("[8888p@2]"), 0)) == [(1, 0, 1, "exposed kong"),
                                                                (2, 0, 1, "exposed kong")]


def test_exposed_kong_discarder_pays_two_option():
    opts = {"pay_exposed_kong": "discarder_2"}
    # [8888p@2] owned by East: tile from (0 − 2) mod 3 = South
    assert pays(instant_payout(parse_meld("[8888p@2]"), 0, options=opts)) == [(1, 0, 2, "exposed kong")]
    assert pays(instant_payout("exposed_kong", 2, options=opts, discarder=1)) == [(1, 2, 2, "exposed kong")]
    with pytest.raises(ValueError, match="discarder"):
        instant_payout("exposed_kong", 2, options=opts)


def test_promoted_kong_each_pays_one():
    assert pays(instant_payout(parse_meld("[8888p+]"), 2)) == [(0, 2, 1, "promoted kong"),
                                                               (1, 2, 1, "promoted kong")]


def test_complete_family_option():
    assert pays(instant_payout("complete_family", 1, options={"pay_family": 5})) == [
        (0, 1, 5, "complete family"), (2, 1, 5, "complete family")]


def test_bite_pairs_off_by_default_and_on_as_option():
    assert instant_payout("bite_pair", 1) == []
    assert pays(instant_payout("bite_pair", 1, options={"bite_pairs": "each_1"})) == [
        (0, 1, 1, "bite pair"), (2, 1, 1, "bite pair")]
    assert bonus_events(tiles("2a"), Tile.from_code("1a")) == ["bite_pair"]  # cat + mouse
    assert bonus_events(tiles("1a"), Tile.from_code("3a")) == []  # cat + rooster do not bite


def test_instant_payout_bad_input():
    with pytest.raises(ValueError, match="unknown instant event"):
        instant_payout("kong", 0)
    with pytest.raises(ValueError, match="unknown three-kaki option"):
        instant_payout("concealed_kong", 0, options={"pay_kong": 2})
    with pytest.raises(ValueError, match="bite_pairs"):
        instant_payout("bite_pair", 0, options={"bite_pairs": "on"})
    with pytest.raises(ValueError, match="not a kong"):
        instant_payout(parse_meld("[888p@1]"), 0)
    with pytest.raises(ValueError, match="seat"):
        instant_payout("concealed_kong", 3)


# =================================================================================================
# Bad input


def test_discard_win_needs_discarder():
    with pytest.raises(ValueError, match="discarder"):
        win(DOTS_HAND + " | 1a", "5p", seat=1, tsumo=False)


def test_thrown_fei_cannot_win():
    with pytest.raises(ValueError, match="thrown Fei"):
        win("123p 456p 789p 234p 5p jk | 1a", "jk", seat=1, tsumo=False, discarder=0)


def test_more_than_four_fei_at_the_table():
    with pytest.raises(ValueError, match="Fei"):
        win("123p 456p 789p 234p jkjk | 1a", "1p", seat=1, fei_sunk=1, others={0: shown(fei=2)})


def test_winner_listed_among_others():
    with pytest.raises(ValueError, match="winner"):
        win(DOTS_HAND + " | 1a", "5p", seat=1, others={1: shown()})


def test_duplicate_bonus_tile_across_players():
    with pytest.raises(TileError, match="1a"):
        win(DOTS_HAND + " | 1a", "5p", seat=1, others={0: shown(bonus="1a")})


def test_incomplete_hand_is_not_a_win():
    r = win("123p 456p 789p 234p 58p | 1a", "5p", seat=1)
    assert not r.legal and r.verdict.startswith("cannot win: the hand is not complete")


def test_other_variant_rejected():
    c = WinContext(SANMA, parse_hand("123p456p789p234p55p"), Tile.from_code("5p"), tsumo=True)
    with pytest.raises(ValueError, match="sanma"):
        three_kaki.score(c)
