"""Hong Kong Old Style scoring (shared/rules/hong-kong.md §5–§9): worked examples H1–H7 and hand cases.

Defaults unless a case says otherwise: half-spicy ladder (0..13 faan -> 1 2 4 8 16 24 32 48 64 96 128
192 256 384), `full` payment (discarder pays 2 portions; self-draw 1 portion from each of 3), unit 1,
flowers in play, cap 13, minimum 3 core faan. Seats 0 East (dealer) .. 3 North; round East unless said.
Net results are listed per seat [East, South, West, North].
"""

import pytest

from assistant.errors import TileError
from assistant.hand import parse_hand
from assistant.scoring import WinContext, score
from assistant.tiles import Tile
from assistant.variants import get_variant

HK = get_variant("hong-kong")


def win(hand: str, *, tsumo: bool = False, seat: int = 0, discarder: int | None = None, round_wind: int = 27,
        tile: str | None = None, **kw):
    """Score ``hand`` (winning tile marked ``*``, or given as ``tile`` for a bonus-tile win)."""
    h = parse_hand(hand)
    win_tile = Tile.from_code(tile) if tile else h.win_tile
    return score(WinContext(HK, h, win_tile, tsumo=tsumo, seat=seat, discarder=discarder,
                            round_wind=round_wind, **kw))


def faan(result) -> list[tuple[str, int]]:
    return [(i.name, i.value) for i in result.items]


# --- worked examples §11 ----------------------------------------------------------------------------------

def test_h1_discard_win_below_minimum_flowers_do_not_lift_it():
    # 平糊 1 + 門前清 1 = 2 core; own flower 2f is bonus and does not count -> illegal
    r = win("123m 456m 789p 345s 2p 2p* | 2f", seat=1, discarder=2)
    assert not r.legal
    assert r.verdict == "cannot win: 2 below the minimum of 3 faan (flowers don't count toward it)"
    assert r.extra["core"] == 2 and r.payments == []


def test_h1_self_draw_four_faan():
    # 平糊 1 + 門前清 1 + 自摸 1 = 3 core + own flower 1 = 4 -> 16 from each of East, West, North
    r = win("123m 456m 789p 345s 2p 2p* | 2f", seat=1, tsumo=True)
    assert r.legal and r.total == 4
    assert sorted(faan(r)) == sorted([("Common hand 平糊", 1), ("Concealed hand 門前清", 1), ("Self-drawn 自摸", 1),
                                      ("Own flower 正花", 1)])
    assert r.net(4) == [-16, 48, -16, -16]


H2 = "[111p@1] [999p@2] [666z@3] 55p 33z 5p* | 1f"


@pytest.mark.parametrize("options,net", [
    ({}, [0, 0, 96, -96]),                      # full: 對對糊 3 + 混一色 3 + 箭刻 1 = 7 -> 48; North pays 2 x 48
    ({"payment": "half"}, [-24, -24, 96, -48]),  # half: North 1 portion 48, East and South 48/2 = 24 each
    ({"ladder": "full"}, [0, 0, 256, -256]),     # full-spicy: 7 faan -> 128; North pays 2 x 128
])
def test_h2_payment_models(options, net):
    r = win(H2, seat=2, discarder=3, round_wind=28, options=options)
    assert r.total == 7
    assert sorted(faan(r)) == sorted([("All pungs 對對糊", 3), ("Mixed one suit 混一色", 3), ("Dragon pung 箭刻", 1)])
    assert r.net(4) == net


def test_h3_small_dragons_includes_the_dragon_pungs():
    # 小三元 5 (not 5 + 2) + 混一色 3 = 8 core + 無花 1 = 9 -> 96; East (discarder) pays 192
    r = win("[555z@1] [666z@2] 77z 234s 67s 8s*", seat=3, discarder=0)
    assert r.total == 9 and r.extra["core"] == 8
    assert sorted(faan(r)) == sorted([("Small dragons 小三元", 5), ("Mixed one suit 混一色", 3),
                                      ("No flowers 無花", 1)])
    assert r.net(4) == [-192, 0, 0, 192]
    assert "Dragon pung 箭刻" in r.explanation  # named as included


def test_h4_thirteen_orphans_limit_adds_nothing():
    # limit hand -> cap 13 -> 384 from each of South, West, North; 自摸 and the flower not added
    r = win("19m19p19s1234567z 1m* | 1f", tsumo=True)
    assert faan(r) == [("Thirteen orphans 十三么", 13)] and r.limit == "limit"
    assert r.net(4) == [1152, -384, -384, -384]
    assert r.reading == "thirteen orphans (pair 1m)"


H5 = "[555z@2] [666z@1] [777z@3] 234p 8s 8s* | 4f"


def test_h5_great_dragons_bao_on_self_draw():
    # 大三元 8 + 自摸 1 + own flower 1 = 10 -> 128; [777z@3] came from North-3 = East: East pays 3 x 128
    r = win(H5, seat=3, tsumo=True)
    assert r.total == 10
    assert r.payments[0].payer == 0 and r.payments[0].amount == 384 and len(r.payments) == 1
    assert r.net(4) == [-384, 0, 0, 384]
    assert r.extra["liable"] == 0 and r.extra["bao"].startswith("大三元包")


def test_h5_great_dragons_bao_third_party_discard_splits():
    # 8 + own flower 1 = 9 -> 96; North collects 2 x 96 = 192: South (discarder) 96 + East (liable) 96
    r = win(H5, seat=3, discarder=1)
    assert r.total == 9
    assert r.net(4) == [-96, -96, 0, 192]


def test_h6_cap():
    # 大三元 8 + 對對糊 3 + 混一色 3 + 混么九 1 + East seat 1 + East round 1 + 自摸 1 = 18 core (+ 無花 1) -> cap 13
    r = win("[555z@1] [666z@2] 777z 111z 9m 9m*", tsumo=True)
    assert r.extra["core"] == 18 and r.total == 13 and r.limit == "cap"
    assert r.net(4) == [1152, -384, -384, -384]
    assert "bao" not in r.extra  # only two exposed dragon sets


H7 = "1112345678999p 5p* | 1f"


def test_h7_nine_gates_cap():
    # limit hand -> 13 -> 384; West pays 2 portions = 768
    r = win(H7, seat=1, discarder=2)
    assert faan(r) == [("Nine gates 九子連環", 13)]
    assert r.net(4) == [0, 768, -768, 0]


def test_h7_nine_gates_under_faan_discard():
    # 九子連環 10 (清一色, 門前清 included) + no bonus faan (1f not South's, rules out 無花) = 10 -> 128; West 256
    r = win(H7, seat=1, discarder=2, options={"limit_hands": "faan"})
    assert faan(r) == [("Nine gates 九子連環", 10)] and r.total == 10
    assert r.net(4) == [0, 256, -256, 0]


def test_h7_nine_gates_under_faan_self_draw():
    # 10 + 自摸 1 = 11 -> 192 from each loser (576), against 384 each under `cap`
    r = win(H7, seat=1, tsumo=True, options={"limit_hands": "faan"})
    assert r.total == 11
    assert r.net(4) == [-192, 576, -192, -192]
    assert win(H7, seat=1, tsumo=True).net(4) == [-384, 1152, -384, -384]


# --- hand-written cases: every criterion, limit hand, ladder, payment model, bao case ------------------------

COMMON = "123m 456m 789p 123s 9s 9s*"  # four chows + 99s pair, fully concealed


@pytest.mark.parametrize("hand,kw,total,net,expect", [
    # 1. 無花: 平糊 1 + 門前清 1 + 自摸 1 = 3 + 無花 1 = 4 -> 16 each
    (COMMON, dict(tsumo=True), 4, [48, -16, -16, -16], {"No flowers 無花"}),
    # 2. own season 3g for West: 3 + 1 = 4 -> 16 each
    (COMMON + " | 3g", dict(tsumo=True, seat=2), 4, [-16, -16, 48, -16], {"Own season 正花"}),
    # 3. a flower that is not your own: no 無花, no own flower: 3 -> 8 each
    (COMMON + " | 2f", dict(tsumo=True), 3, [24, -8, -8, -8], set()),
    # 4. 一台花 for East: all four flowers 2 (own 1f included, not added) = 3 + 2 = 5 -> 24 each
    (COMMON + " | 1f2f3f4f", dict(tsumo=True), 5, [72, -24, -24, -24], {"All four flowers 一台花"}),
    # 5. hk.flower_set_stacks: own flower 1 + all four 2 = 3 + 3 = 6 -> 32 each
    (COMMON + " | 1f2f3f4f", dict(tsumo=True, options={"flower_set_stacks": True}), 6, [96, -32, -32, -32],
     {"All four flowers 一台花", "Own flower 正花"}),
    # 6. North with four seasons and own flower 4f: seasons 2 + own flower 1 = 3 + 3 = 6 -> 32 each
    (COMMON + " | 1g2g3g4g4f", dict(tsumo=True, seat=3), 6, [-32, -32, -32, 96],
     {"All four seasons 一台花", "Own flower 正花"}),
    # 7. hk.flowers off: no 無花: 3 -> 8 each
    (COMMON, dict(tsumo=True, options={"flowers": False}), 3, [24, -8, -8, -8], set()),
    # 8. seat-wind pung South 222z, self-drawn concealed: 門風 1 + 門前清 1 + 自摸 1 = 3 + 無花 1 = 4 -> 16
    ("222z 123m 456p 789s 5s 5s*", dict(tsumo=True, seat=1), 4, [-16, 48, -16, -16], {"Seat-wind pung 門風"}),
    # 9. round-wind pung East for South: 圈風 1 + 門前清 1 + 自摸 1 = 3 + 1 = 4 -> 16
    ("111z 123m 456p 789s 5s 5s*", dict(tsumo=True, seat=1), 4, [-16, 48, -16, -16], {"Round-wind pung 圈風"}),
    # 10. East in East round: seat 1 + round 1 + 門前清 1 + 自摸 1 = 4 + 1 = 5 -> 24 each
    ("111z 123m 456p 789s 5s 5s*", dict(tsumo=True), 5, [72, -24, -24, -24],
     {"Seat-wind pung 門風", "Round-wind pung 圈風"}),
    # 11. two dragon pungs (pair not a dragon: no 小三元): 箭刻 1 + 1 + 混一色 3 = 5 + 1 = 6 -> 32; discarder 64
    ("[555z@1] [666z@2] 123m 456m 1m 1m*", dict(seat=0, discarder=3), 6, [64, 0, 0, -64],
     {"Dragon pung 箭刻", "Mixed one suit 混一色"}),
    # 12. 海底撈月: 平糊 1 + 門前清 1 + 自摸 1 + 海底 1 = 4 + 1 = 5 -> 24 each
    (COMMON, dict(tsumo=True, haitei=True), 5, [72, -24, -24, -24], {"Last tile 海底撈月"}),
    # 13. 河底撈魚: 平糊 1 + 門前清 1 + 河底 1 = 3 + 1 = 4 -> 16; discarder South pays 32
    (COMMON, dict(discarder=1, houtei=True), 4, [32, -32, 0, 0], {"Last discard 河底撈魚"}),
    # 14. 搶槓 by West on East's promoted kong: 平糊 1 + 門前清 1 + 搶槓 1 = 3 + 1 = 4 -> 16; East pays 32
    ("123m 456m 789p 12s 99s 3s*", dict(seat=2, discarder=0, chankan=True), 4, [-32, 0, 32, 0],
     {"Robbing a kong 搶槓"}),
    # 15. hk.robbed_pays all 3 portions: the kong owner pays 3 x 16 = 48
    ("123m 456m 789p 12s 99s 3s*", dict(seat=2, discarder=0, chankan=True, options={"robbed_pays": "all_3_portions"}),
     4, [-48, 0, 48, 0], {"Robbing a kong 搶槓"}),
    # 16. 槓上開花 with a concealed kong: 門前清 1 + 自摸 1 + 槓上開花 1 = 3 + 無花 1 = 4 -> 16 each
    ("(7777m) 123p 456s 789s 9m 9m*", dict(tsumo=True, rinshan=True), 4, [48, -16, -16, -16],
     {"Win on kong", "Concealed hand 門前清"}),
    # 17. 槓上槓 replaces 槓上開花: 門前清 1 + 自摸 1 + 槓上槓 8 = 10 + 1 = 11 -> 192 each (no bao: last kong concealed)
    ("(7777m) (8888p) 123s 456s 9m 9m*", dict(tsumo=True, seat=1, rinshan=True, after_two_kongs=True), 11,
     [-192, 576, -192, -192], {"Win after"}),
    # 18. 天糊 (dealer, initial 14) -> cap 13 -> 384 each
    (COMMON, dict(tsumo=True, tenhou=True), 13, [1152, -384, -384, -384], {"Heavenly hand 天糊"}),
    # 19. 地糊 (West wins on East's first discard) -> 13 -> East pays 768
    (COMMON, dict(seat=2, discarder=0, chiihou=True), 13, [-768, 0, 768, 0], {"Earthly hand 地糊"}),
    # 20. 對對糊 with three suits: 3 + 無花 1 = 4 -> 16; discarder pays 32
    ("[222m@1] [333p@2] [444s@3] 666m 8p 8p*", dict(discarder=1), 4, [32, -32, 0, 0], {"All pungs 對對糊"}),
    # 21. 混一色 + East round pung for West: 混一色 3 + 門前清 1 + 圈風 1 = 5 + 1 = 6 -> 32; discarder 64
    ("123m 456m 789m 111z 2z 2z*", dict(seat=2, discarder=1), 6, [0, -64, 64, 0],
     {"Mixed one suit 混一色", "Round-wind pung 圈風"}),
    # 22. 清一色 7 + 門前清 1 + 平糊 1 = 9 + 1 = 10 -> 128; discarder pays 256 (混一色 included, not listed)
    ("123m 345m 567m 789m 9m 9m*", dict(discarder=3), 10, [256, 0, 0, -256], {"All one suit 清一色"}),
    # 23. hk.full_flush 6: 6 + 1 + 1 = 8 + 1 = 9 -> 96; discarder 192
    ("123m 345m 567m 789m 9m 9m*", dict(discarder=3, options={"full_flush": 6}), 9, [192, 0, 0, -192],
     {"All one suit 清一色"}),
    # 24. 七對子 4 (門前清 included) + 無花 1 = 5 -> 24; discarder 48
    ("11m 55m 22p 99p 33s 77s 6z 6z*", dict(discarder=2), 5, [48, 0, -48, 0], {"Seven pairs 七對子"}),
    # 25. 七對子 self-drawn: 4 + 自摸 1 = 5 + 1 = 6 -> 32 each
    ("11m 55m 22p 99p 33s 77s 6z 6z*", dict(tsumo=True), 6, [96, -32, -32, -32], {"Seven pairs 七對子"}),
    # 26. 混么九 + 對對糊: 3 + 1 = 4 + 1 = 5 -> 24; discarder 48
    ("[111m@1] [999p@2] 111s 77z 99s 9s*", dict(discarder=1), 5, [48, -48, 0, 0], {"Mixed orphans 混么九"}),
    # 27. 混么九 + 七對子: 4 + 1 = 5 + 1 = 6 -> 32; discarder 64
    ("11m 99m 11p 99p 11s 22z 3z 3z*", dict(discarder=1), 6, [64, -64, 0, 0], {"Mixed orphans 混么九"}),
    # 28. 小四喜 6 (East seat 1 + round 1 included) + 混一色 3 = 9 + 1 = 10 -> 128; discarder 256
    ("[111z@1] [222z@2] 333z 123m 4z 4z*", dict(discarder=2), 10, [256, 0, -256, 0], {"Small winds 小四喜"}),
    # 29. hk.small_winds 10: 10 + 3 + 1 = 14 -> cap 13 -> 384; discarder 768
    ("[111z@1] [222z@2] 333z 123m 4z 4z*", dict(discarder=2, options={"small_winds": 10}), 13, [768, 0, -768, 0],
     {"Small winds 小四喜"}),
    # 30. 字一色 limit -> 13 -> 384 each
    ("[111z@1] [222z@2] 333z 555z 6z 6z*", dict(tsumo=True, seat=1), 13, [-384, 1152, -384, -384],
     {"All honours 字一色"}),
    # 31. 清么九 limit -> 13; discarder 768
    ("[111m@1] [999m@2] 111p 999s 9p 9p*", dict(discarder=2), 13, [768, 0, -768, 0], {"All terminals 清么九"}),
    # 32. 坎坎糊 self-drawn -> 13 -> 384 each
    ("111m 222p 333s 777m 5z 5z*", dict(tsumo=True, seat=3), 13, [-384, -384, -384, 1152],
     {"Four concealed pungs 坎坎糊"}),
    # 33. 坎坎糊 won on a discard into the pair (tanki): all four pungs stay concealed -> 13; discarder 768
    ("111m 222m 333m 999p 5p 5p*", dict(discarder=1), 13, [768, -768, 0, 0], {"Four concealed pungs 坎坎糊"}),
    # 34. a discard completing a pung is not concealed: 111 222 333m read as pungs: 對對糊 3 + 門前清 1 = 4
    #     (the 123m x3 reading has only 門前清 1) + 無花 1 = 5 -> 24; discarder 48
    ("111m 222m 33m 999p 55p 3m*", dict(discarder=1), 5, [48, -48, 0, 0], {"All pungs 對對糊"}),
    # 35. 大四喜 limit (self-drawn, concealed) -> 384 each
    ("111z 222z 333z 444z 5p 5p*", dict(tsumo=True, seat=2), 13, [-384, -384, 1152, -384],
     {"Great winds 大四喜"}),
    # 36. 十八羅漢 limit: four kongs -> 13; discarder 768
    ("[1111m@1] [2222p@2] [3333s@3] (4444m) 5z 5z*", dict(discarder=3), 13, [768, 0, 0, -768],
     {"All kongs 十八羅漢"}),
    # 37. hk.cap 10: H6 hand 18 core -> 10 -> 128 each
    ("[555z@1] [666z@2] 777z 111z 9m 9m*", dict(tsumo=True, options={"cap": 10}), 10, [384, -128, -128, -128],
     {"Great dragons 大三元"}),
    # 38. hk.cap 8: a limit hand scores the cap 8 -> 64 each
    ("111m 222p 333s 777m 5z 5z*", dict(tsumo=True, options={"cap": 8}), 8, [192, -64, -64, -64],
     {"Four concealed pungs 坎坎糊"}),
    # 39. hk.min 0: chicken hand 0 faan (1f not South's: no 無花) -> 1 portion; discarder West pays 2
    ("{123m@1} [555p@2] 789s 234p 9m 9m* | 1f", dict(seat=1, discarder=2, options={"min": 0}), 0, [0, 2, -2, 0],
     {"Chicken hand 雞糊"}),
    # 40. simplified ladder: H2's 7 faan -> 4 per portion; North pays 8
    (H2, dict(seat=2, discarder=3, round_wind=28, options={"ladder": "simplified"}), 7, [0, 0, 8, -8],
     {"All pungs 對對糊"}),
    # 41. unit 2: 7 faan -> 2 x 48 = 96 per portion; North pays 192
    (H2, dict(seat=2, discarder=3, round_wind=28, options={"unit": 2}), 7, [0, 0, 192, -192], {"All pungs 對對糊"}),
    # 42. half payment on a self-draw is the same as full: 4 faan -> 16 each
    (COMMON, dict(tsumo=True, options={"payment": "half"}), 4, [48, -16, -16, -16], {"Self-drawn 自摸"}),
    # 43. (common hand strict: see test_common_hand_strict_*)
    # 44. 槓上開花包: East kongs West's 1z ([1111z@2] -> seat 0-2 = West) and wins on the replacement:
    #     混一色 3 + East seat 1 + East round 1 + 自摸 1 + 槓上開花 1 = 7 + 無花 1 = 8 -> 64; West pays 3 x 64
    ("[1111z@2] 123p 456p 789p 5z 5z*", dict(tsumo=True, rinshan=True), 8, [192, 0, -192, 0],
     {"Win on kong"}),
])
def test_hand_cases(hand, kw, total, net, expect):
    r = win(hand, **kw)
    assert r.legal, r.verdict
    assert r.total == total, faan(r)
    assert r.net(4) == net, [p.as_dict() for p in r.payments]
    got = {i.name for i in r.items}
    for e in expect:
        assert any(n.startswith(e) for n in got), (e, got)


def test_reading_named_is_the_one_scored():
    # tanki on 5p: all four pungs concealed -> 坎坎糊
    assert win("111m 222m 333m 999p 5p 5p*", discarder=1).reading == "111m 222m 333m 999p 55p (5p* in 55p)"
    # 3m on a discard completes 333m (exposed): the pung reading (對對糊) beats 123m x3 (門前清 only)
    r = win("111m 222m 33m 999p 55p 3m*", discarder=1)
    assert r.reading == "111m 222m 333m 999p 55p (3m* in 333m)"
    assert "Four concealed pungs 坎坎糊" not in {i.name for i in r.items}


# --- common hand strict ------------------------------------------------------------------------------------

def test_common_hand_strict_rejects_a_dragon_pair():
    # default: 平糊 1 + 門前清 1 + 自摸 1 = 3 + 無花 1 = 4
    assert win("123m 456m 789p 123s 5z 5z*", tsumo=True).total == 4
    # strict: a 5z pair scores -> no 平糊: 門前清 1 + 自摸 1 = 2 < 3
    r = win("123m 456m 789p 123s 5z 5z*", tsumo=True, options={"common_hand_strict": True})
    assert not r.legal and r.verdict.startswith("cannot win: 2 below the minimum of 3 faan")


def test_common_hand_strict_rejects_bonus_tiles():
    # strict + holding 2f (not East's): no 平糊 -> 門前清 1 + 自摸 1 = 2 < 3
    r = win(COMMON + " | 2f", tsumo=True, options={"common_hand_strict": True})
    assert not r.legal
    # strict, no bonus tiles, 99s pair: 平糊 kept -> 4
    assert win(COMMON, tsumo=True, options={"common_hand_strict": True}).total == 4


# --- instant bonus-tile wins -----------------------------------------------------------------------------

SEVEN_BONUS = "123m 456m 789p 123s 9s | 1f2f3f4f1g2g3g"


def test_flower_hand_robbing_the_eighth():
    # South holds 7, North draws 4g: 花糊 3 -> 8 per portion; North pays as a discarder: 2 x 8 = 16
    r = win(SEVEN_BONUS, seat=1, discarder=3, tile="4g")
    assert r.legal and faan(r) == [("Flower hand 花糊", 3)]
    assert r.net(4) == [0, 16, 0, -16]
    # half payment: North 8, East and West 4 each
    r = win(SEVEN_BONUS, seat=1, discarder=3, tile="4g", options={"payment": "half"})
    assert r.net(4) == [-4, 16, -4, -8]


def test_eight_flowers_self_drawn():
    # 大花糊 8 -> 64 from each of the three others (no minimum, nothing else counted)
    r = win(SEVEN_BONUS, seat=1, tsumo=True, tile="4g")
    assert faan(r) == [("Eight flowers 大花糊", 8)]
    assert r.net(4) == [-64, 192, -64, -64]


def test_flower_wins_switched_off_or_incomplete():
    r = win(SEVEN_BONUS, seat=1, discarder=3, tile="4g", options={"flower_rob": False})
    assert not r.legal and "hk.flower_rob off" in r.verdict
    r = win(SEVEN_BONUS, seat=1, tsumo=True, tile="4g", options={"eight_flowers": False})
    assert not r.legal and "hk.eight_flowers off" in r.verdict
    # six held + the drawn 4g = 7 of 8: no flower win
    r = win("123m 456m 789p 123s 9s | 1f2f3f4f1g2g", seat=1, tsumo=True, tile="4g")
    assert not r.legal and "with 4g the hand has 7 (1234f124g)" in r.verdict


def test_flower_win_with_flowers_off_is_an_error():
    with pytest.raises(ValueError, match="flowers are not in play"):
        win(SEVEN_BONUS, seat=1, tsumo=True, tile="4g", options={"flowers": False})
    # with flowers off the rule system's tile set has no flowers at all (score() applies the option)
    with pytest.raises(ValueError, match="1f is not in the hong-kong tile set"):
        win(COMMON + " | 1f", tsumo=True, options={"flowers": False})


# --- seven pairs option, limit hands under `faan` ------------------------------------------------------------

def test_seven_pairs_off_leaves_the_hand_incomplete():
    r = win("11m 55m 22p 99p 33s 77s 6z 6z*", discarder=2, options={"seven_pairs": "off"})
    assert not r.legal and r.verdict.startswith("cannot win: the hand is not complete")


def test_seven_pairs_full_flush():
    # 七對子 4 + 清一色 7 = 11 + 無花 1 = 12 -> 256; discarder 512
    r = win("11m 22m 33m 55m 66m 77m 9m 9m*", discarder=2)
    assert r.total == 12 and r.net(4)[2] == -512


def test_faan_mode_ten_rows_add_up_and_reach_the_cap():
    # 字一色 10 (混一色, 混么九 included) + 對對糊 3 + South seat 1 + East round 1 + 自摸 1 + 無花 1 = 17 -> 13
    r = win("[111z@1] [222z@2] 333z 555z 6z 6z*", tsumo=True, seat=1, options={"limit_hands": "faan"})
    assert ("All honours 字一色", 10) in faan(r) and r.total == 13 and r.limit == "cap"
    assert not {"Mixed one suit 混一色", "Mixed orphans 混么九"} & {i.name for i in r.items}
    # 清么九 10 + 對對糊 3 = 13 core + 無花 1 = 14 -> 13
    r = win("[111m@1] [999m@2] 111p 999s 9p 9p*", discarder=2, options={"limit_hands": "faan"})
    assert ("All terminals 清么九", 10) in faan(r) and r.extra["core"] == 13 and r.total == 13
    # 坎坎糊 10 (門前清 included) + 對對糊 3 + 自摸 1 = 14 -> 13
    r = win("111m 222p 333s 777m 5z 5z*", tsumo=True, options={"limit_hands": "faan"})
    assert ("Four concealed pungs 坎坎糊", 10) in faan(r) and "Concealed hand 門前清" not in {i.name for i in r.items}


def test_faan_mode_thirteen_rows_still_stop_at_the_cap():
    # 大四喜 is a 13-row: the cap outright, nothing added, even under `faan`
    r = win("111z 222z 333z 444z 5p 5p*", tsumo=True, seat=2, options={"limit_hands": "faan"})
    assert faan(r) == [("Great winds 大四喜", 13)] and r.limit == "limit"


# --- ladders and half portions --------------------------------------------------------------------------------

@pytest.mark.parametrize("ladder,per_faan", [
    ("half", [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]),
    ("full", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]),
    ("simplified", [1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 8]),
])
def test_ladders_portion_per_faan(ladder, per_faan):
    from assistant.scoring.hong_kong import HKOptions

    ctx = WinContext(HK, parse_hand(COMMON), Tile.from_code("9s"), tsumo=True, options={"ladder": ladder})
    opts = HKOptions.from_context(ctx)
    assert [opts.portion(f) for f in range(14)] == per_faan


def test_half_payment_with_half_portions():
    # simplified ladder, 3 faan -> portion 1; half model: discarder 1, the other two 1/2 each
    r = win("123m 456m 789p 123s 9s 9s*", discarder=1, houtei=True, options={"ladder": "simplified", "payment": "half",
                                                                           "flowers": False})
    assert r.total == 3  # 平糊 1 + 門前清 1 + 河底 1
    assert [(p.payer, p.amount) for p in r.payments] == [(1, 1), (2, 0.5), (3, 0.5)]


# --- liability -------------------------------------------------------------------------------------------------

GREAT_WINDS = "[111z@1] [222z@2] [333z@3] [444z@1] 5p 5p*"


def test_great_winds_bao_self_draw():
    # 大四喜 limit 13 -> 384; the 4th wind set [444z@1] came from South-1 = East: East pays 3 x 384
    r = win(GREAT_WINDS, seat=1, tsumo=True)
    assert r.extra["bao"].startswith("大四喜包") and r.net(4) == [-1152, 1152, 0, 0]


def test_great_winds_bao_third_party_discard_split_or_liable_pays_2():
    # West discards: split -> West 384 + East 384 (2 portions in all)
    assert win(GREAT_WINDS, seat=1, discarder=2).net(4) == [-384, 768, -384, 0]
    # hk.bao_split liable pays 2: East pays both portions
    r = win(GREAT_WINDS, seat=1, discarder=2, options={"bao_split": "liable_pays_2"})
    assert r.net(4) == [-768, 768, 0, 0]


def test_bao_on_the_liable_players_own_discard():
    # H5 hand won on East's own 8s: 8 + own flower 1 = 9 -> 96; East pays 2 x 96 (either model)
    assert win(H5, seat=3, discarder=0).net(4) == [-192, 0, 0, 192]
    assert win(H5, seat=3, discarder=0, options={"payment": "half"}).net(4) == [-192, 0, 0, 192]


TWELVE = "[111p@1] {234p@1} [777p@2] [999p@3] 5z 5z*"


def test_twelve_tiles_shown_bao_on_self_draw_only():
    # West: 混一色 3 + 自摸 1 = 4 + 無花 1 = 5 -> 24; 4th set [999p@3] from West-3 = North: North pays 72
    r = win(TWELVE, seat=2, tsumo=True)
    assert r.extra["bao"].startswith("十二張落地包") and r.net(4) == [0, 0, 72, -72]
    # on a discard there is no 十二張 bao: 混一色 3 + 無花 1 = 4 -> 16; discarder East pays 32
    r = win(TWELVE, seat=2, discarder=0)
    assert "bao" not in r.extra and r.net(4) == [-32, 0, 32, 0]


def test_bao_seat_from_liable_when_the_meld_has_no_source():
    hand = "[555z] [666z] [777z] 234p 8s 8s* | 4f"
    # no @k and no liable: ordinary self-draw of 10 faan -> 128 each, with a note
    r = win(hand, seat=3, tsumo=True)
    assert r.net(4) == [-128, -128, -128, 384] and "liable=" in r.explanation
    # liable=1: South pays all 384
    assert win(hand, seat=3, tsumo=True, liable=1).net(4) == [0, -384, 0, 384]


def test_liable_disagreeing_with_the_meld_source_is_an_error():
    with pytest.raises(ValueError, match="disagrees"):
        win(H5, seat=3, tsumo=True, liable=1)


def test_nine_tile_flush_bao_option():
    hand = "[111p@2] {345p@1} [777p@3] 67p 99p 8p*"  # South: 清一色 7 + 無花 1 = 8 -> 64
    # default off, half model: North (discarder) 64, East and West 32 each
    assert win(hand, seat=1, discarder=3, options={"payment": "half"}).net(4) == [-32, 128, -32, -64]
    # on: the discarder pays everything the winner collects (2 x 64)
    r = win(hand, seat=1, discarder=3, options={"payment": "half", "bao_nine_tile_flush": True})
    assert r.extra["bao"].startswith("九張清一色包") and r.net(4) == [0, 128, 0, -128]


def test_liability_ruled_by_the_table():
    # e.g. the fifth-tile rule: liable = the discarder, half model -> discarder pays both portions
    r = win(COMMON, discarder=2, houtei=True, liable=2, options={"payment": "half"})
    assert r.total == 4 and r.net(4) == [32, 0, -32, 0]  # 平糊 1 + 門前清 1 + 河底 1 + 無花 1 = 4 -> 16


# --- bad input -----------------------------------------------------------------------------------------------

def test_incomplete_hand_cannot_win():
    r = win("123m 456m 789p 124s 9s 9s*", tsumo=True)
    assert not r.legal and r.verdict.startswith("cannot win: the hand is not complete")


def test_bad_tiles_raise_tile_error():
    with pytest.raises(TileError, match="fifth copy"):
        win("1111m 123m 789p 123s 9s 9s*", tsumo=True)
    with pytest.raises(TileError, match="among the concealed tiles"):
        score(WinContext(HK, parse_hand("123m 456m 789p 123s 9s 9s"), Tile.from_code("1z"), tsumo=True))


@pytest.mark.parametrize("kw,message", [
    (dict(tsumo=True, discarder=1), "self-drawn win has no discarder"),
    (dict(tsumo=False), "needs the discarder"),
    (dict(discarder=0), "must be another seat"),
    (dict(tsumo=True, seat=1, tenhou=True), "heavenly"),
    (dict(discarder=2, seat=1, chiihou=True), "earthly"),
    (dict(tsumo=True, rinshan=True), "declared kong"),
    (dict(tsumo=True, houtei=True), "last-discard"),
    (dict(tsumo=True, options={"ladder": "spicy"}), "'ladder'"),
    (dict(tsumo=True, options={"cap": 14}), "'cap'"),
    (dict(tsumo=True, round_wind=31), "round wind"),
])
def test_impossible_wins_raise_value_error(kw, message):
    with pytest.raises(ValueError, match=message):
        win(COMMON, **kw)
