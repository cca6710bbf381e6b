"""korean-3p scoring (shared/rules/korean-3p.md §8–§9): worked examples K1–K4 and hand cases.

Points add up (no doubling): win 2 and flowers 1 each do not count toward the 3-point minimum; the
other items do (self-draw too, by default). Limit 20. A discard win (or a robbed kong) costs the
discarder 2 x total; a self-draw costs each of the two others 1 x total. Seats 0 East (dealer),
1 South, 2 West; net results per seat [East, South, West].
"""

import pytest

from assistant.errors import TileError
from assistant.hand import parse_hand
from assistant.scoring import WinContext, score
from assistant.variants import get_variant

K3P = get_variant("korean-3p")


def win(hand: str, *, tsumo: bool = False, seat: int = 0, discarder: int | None = None, **kw):
    h = parse_hand(hand)
    return score(WinContext(K3P, h, h.win_tile, tsumo=tsumo, seat=seat, discarder=discarder, **kw))


def points(result) -> list[tuple[str, int]]:
    return [(i.name, i.value) for i in result.items]


# --- worked examples §11 ----------------------------------------------------------------------------------

def test_k1_discard_win():
    # red dragon pong 1; South pong 1 + own seat 1 = 2 -> 3 toward the minimum; win 2; flower 1 -> 6
    r = win("[777z@1] [222z@2] 123p 456m 9s 9s* | 1f", seat=1, discarder=2)
    assert r.legal and r.total == 6 and r.extra["toward_minimum"] == 3
    assert sorted(points(r)) == sorted([("Pong/kong of a dragon or wind", 1), ("Pong/kong of a dragon or wind", 1),
                                        ("Own seat wind", 1), ("Winning the hand", 2), ("Flower", 1)])
    assert r.net(3) == [0, 12, -12]  # West pays 2 x 6; East 0


K2 = "123p 456p 234m 789m 9s 9s*"


def test_k2_self_draw_all_chows():
    # all chows/no honours 2 + self-draw 1 = 3 (minimum met) + win 2 = 5; South 5, West 5, dealer no extra
    r = win(K2, tsumo=True)
    assert r.total == 5 and r.extra["toward_minimum"] == 3
    assert r.net(3) == [10, -5, -5]


def test_k2_tsumo_not_counted_cannot_win():
    # k3p.tsumo_counts_to_minimum off: only the 2 of all chows count -> below 3
    r = win(K2, tsumo=True, options={"tsumo_counts_to_minimum": False})
    assert not r.legal
    assert r.verdict == "cannot win: 2 below the minimum of 3 points (the 2 for winning and flowers don't count)"


def test_k3_discard_win_below_minimum_with_self_draw_hint():
    r = win(K2, discarder=1)
    assert not r.legal and r.payments == []
    assert r.verdict == ("cannot win: 2 below the minimum of 3 points "
                         "(the 2 for winning and flowers don't count; a self-draw would add 1)")


def test_k4_kongs_and_bamboo():
    # West kong: honour 1 + seat 1 + kong 1 = 3; both bamboo (9s kong + 1s pong, not both concealed) 3;
    # kong point (9999s) 1; kong ladders (2 kongs, 1 concealed) 0; self-draw 1; win 2 -> 10 (8 toward minimum)
    r = win("[3333z@1] (9999s) [111s@2] 123p 5m 5m*", tsumo=True, seat=2)
    assert r.total == 10 and r.extra["toward_minimum"] == 8
    assert ("Both bamboo pongs/kongs", 3) in points(r)
    assert not any(n.startswith(("Three", "Four", "Two")) for n, _ in points(r))
    assert r.net(3) == [-10, -10, 20]


# --- hand-written cases -------------------------------------------------------------------------------------

@pytest.mark.parametrize("hand,kw,total,net,expect", [
    # 1. two dragon pongs + self-draw: 1 + 1 + 1 = 3 + win 2 = 5 -> 5 each
    ("[555z@1] [666z@2] 123p 456m 9s 9s*", dict(tsumo=True), 5, [10, -5, -5], ["Pong/kong of a dragon or wind"]),
    # 2. three dragon pongs on a discard: 3 + win 2 = 5 -> South pays 10
    ("[555z@1] [666z@2] [777z@1] 123p 9s 9s*", dict(discarder=1), 5, [10, -10, 0], ["Pong/kong of a dragon or wind"]),
    # 3. a wind that is not East's seat wind: 2z honour 1 + two dragons 2 = 3 + 2 = 5 -> 10
    ("[222z@1] [555z@2] [666z@1] 123p 9s 9s*", dict(discarder=2), 5, [10, 0, -10], ["Pong/kong of a dragon or wind"]),
    # 4. South's seat-wind kong: honour 1 + seat 1 + kong 1 = 3 + win 2 = 5 -> East pays 10
    ("[2222z@1] 123p 456p 789m 9s 9s*", dict(seat=1, discarder=0), 5, [-10, 10, 0], ["Own seat wind", "Kong"]),
    # 5. dragon kong 1 + 1 and red dragon pong 1 = 3 + 2 = 5 -> 10
    ("[5555z@2] [777z@1] 123p 456m 9s 9s*", dict(discarder=1), 5, [10, -10, 0], ["Kong"]),
    # 6. one bamboo pong 1 + two dragons 2 = 3 + 2 = 5 -> 10
    ("[111s@1] [555z@2] [666z@1] 123p 9m 9m*", dict(discarder=2), 5, [10, 0, -10], ["One bamboo pong/kong"]),
    # 7. both bamboo pongs, exposed: 3 + 2 = 5 -> 10
    ("[111s@1] [999s@2] 123p 456m 5z 5z*", dict(discarder=1), 5, [10, -10, 0], ["Both bamboo pongs/kongs"]),
    # 8. both bamboo pongs concealed, self-drawn: 6 + self 1 = 7 + 2 = 9 -> 9 each
    ("111s 999s 123p 456m 5z 5z*", dict(tsumo=True), 9, [18, -9, -9], ["Both bamboo pongs/kongs, concealed"]),
    # 9. both concealed, won on a discard into the pair: both stay concealed: 6 + 2 = 8 -> 16
    ("111s 999s 123p 456m 5z 5z*", dict(discarder=2), 8, [16, 0, -16], ["Both bamboo pongs/kongs, concealed"]),
    # 10. the discard completes 111s: that pong counts as exposed: 3 + 2 = 5 -> 10
    ("11s 999s 123p 456p 55m 1s*", dict(discarder=1), 5, [10, -10, 0], ["Both bamboo pongs/kongs"]),
    # 11. a plain kong: kong 1 + two dragons 2 = 3 + 2 = 5 -> 10
    ("[1111m@1] [555z@2] [666z@1] 123p 9s 9s*", dict(discarder=2), 5, [10, 0, -10], ["Kong"]),
    # 12. three kongs: 3 x 1 + 5z honour 1 + three-kong line 1 = 5 + 2 = 7 -> 14
    ("[1111m@1] [2222p@2] [5555z@1] 345p 9s 9s*", dict(discarder=1), 7, [14, -14, 0], ["Three kongs"]),
    # 13. four kongs (one concealed): honours 5z 1 + 7z 1 + kongs 4 + four-kong line 6 + self 1 = 13 + 2 = 15
    ("[1111m@1] [2222p@2] [5555z@1] (7777z) 9s 9s*", dict(tsumo=True), 15, [30, -15, -15], ["Four kongs"]),
    # 14. two concealed kongs: kongs 2 + line 1 + self 1 = 4 + 2 = 6 -> 6 each
    ("(1111m) (2222p) 345p 678m 9s 9s*", dict(tsumo=True), 6, [12, -6, -6], ["Two concealed kongs"]),
    # 15. three concealed kongs: the single highest line is 6 (not 3-kongs 1 + 6): kongs 3 + 6 + self 1 = 10 + 2 = 12
    ("(1111m) (2222p) (3333m) 456p 9s 9s*", dict(tsumo=True), 12, [24, -12, -12], ["Three concealed kongs"]),
    # 16. four concealed kongs: the limit 20 outright -> 20 each
    ("(1111z) (5555z) (9999s) (1111s) 6z 6z*", dict(tsumo=True), 20, [40, -20, -20], ["Four concealed kongs"]),
    # 17. four concealed kongs won on a discard into the pair: 20 -> South pays 40
    ("(1111z) (5555z) (9999s) (1111s) 6z 6z*", dict(discarder=1), 20, [40, -40, 0], ["Four concealed kongs"]),
    # 18. limit cut: 1z 1+1+1 = 3; 5z 1+1 = 2; 9s kong 1; 1s kong 1; both bamboo concealed 6;
    #     max(4 kongs 6, 3 concealed 6) = 6; self 1; win 2 -> 22 -> limit 20
    ("[1111z@1] (5555z) (9999s) (1111s) 6z 6z*", dict(tsumo=True), 20, [40, -20, -20],
     ["Both bamboo pongs/kongs, concealed", "Three concealed kongs"]),
    # 19. k3p.limit 25: the same 22 stands
    ("[1111z@1] (5555z) (9999s) (1111s) 6z 6z*", dict(tsumo=True, options={"limit": 25}), 22, [44, -22, -22], []),
    # 20. two flowers: K1 3 + win 2 + 2 = 7 -> West pays 14
    ("[777z@1] [222z@2] 123p 456m 9s 9s* | 1f2f", dict(seat=1, discarder=2), 7, [0, 14, -14], ["Flower"]),
    # 21. k3p.flower_value 0: K1 3 + 2 + 0 = 5 -> 10
    ("[777z@1] [222z@2] 123p 456m 9s 9s* | 1f", dict(seat=1, discarder=2, options={"flower_value": 0}), 5,
     [0, 10, -10], []),
    # 22. k3p.min_points 0: K3's discard win is legal: 2 + win 2 = 4 -> South pays 8
    (K2, dict(discarder=1, options={"min_points": 0}), 4, [8, -8, 0], ["All chows and no honour tiles"]),
    # 23. seven pairs enabled, discard: 4 + win 2 = 6 -> West pays 12
    ("11m 55m 22p 99p 11s 66z 7z 7z*", dict(discarder=2, options={"special_hands": "seven_pairs"}), 6,
     [12, 0, -12], ["Seven pairs"]),
    # 24. seven pairs as a table list, self-drawn by South: 4 + 1 = 5 + 2 = 7 -> 7 each
    ("11m 55m 22p 99p 11s 66z 7z 7z*", dict(seat=1, tsumo=True, options={"special_hands": ["seven_pairs"]}), 7,
     [-7, 14, -7], ["Seven pairs"]),
    # 25. reading choice: 111p 222p 333p read as 123p x3: all chows 2 + self 1 = 3 + 2 = 5 (pungs: 1 + 2 = 3, illegal)
    ("111p 222p 333p 456m 9s 9s*", dict(tsumo=True), 5, [10, -5, -5], ["All chows and no honour tiles"]),
    # 26. robbing South's kong for a chow: East honour 1 + seat 1 + 9s pong 1 = 3 + 2 = 5 -> South pays 10
    ("23m 456p 999s 111z 55p 4m*", dict(discarder=1, chankan=True), 5, [10, -10, 0], ["Own seat wind"]),
    # 27. a kong-replacement win earns nothing extra: K4 with rinshan -> 10
    ("[3333z@1] (9999s) [111s@2] 123p 5m 5m*", dict(tsumo=True, seat=2, rinshan=True), 10, [-10, -10, 20], []),
    # 28. self-draw toward the minimum: dragon 1 + kong... [5555z@1] 1 + 1 + self 1 = 3 + 2 = 5 -> 5 each
    ("[5555z@1] 123p 456p 789m 9m 9m*", dict(tsumo=True, seat=2), 5, [-5, -5, 10], ["Self-draw win"]),
])
def test_hand_cases(hand, kw, total, net, expect):
    r = win(hand, **kw)
    assert r.legal, r.verdict
    assert r.total == total, points(r)
    assert r.net(3) == net, [p.as_dict() for p in r.payments]
    got = {i.name for i in r.items}
    for e in expect:
        assert e in got, (e, got)


def test_limit_is_marked():
    r = win("[1111z@1] (5555z) (9999s) (1111s) 6z 6z*", tsumo=True)
    assert r.limit == "limit" and "cut to the limit 20" in r.explanation
    r = win("(1111z) (5555z) (9999s) (1111s) 6z 6z*", tsumo=True)
    assert points(r) == [("Four concealed kongs", 20)]


def test_reading_named_is_the_one_scored():
    assert win("111p 222p 333p 456m 9s 9s*", tsumo=True).reading == "456m 123p 123p 123p 99s (9s* in 99s)"
    assert win("11s 999s 123p 456p 55m 1s*", discarder=1).reading == "123p 456p 111s 999s 55m (1s* in 111s)"


DISCARD_NOTE = "(the 2 for winning and flowers don't count; a self-draw would add 1)"


@pytest.mark.parametrize("hand,kw,verdict", [
    # two dragon pongs on a discard: 2 toward the minimum
    ("[555z@1] [666z@2] 123p 456m 9s 9s*", dict(discarder=1),
     "cannot win: 2 below the minimum of 3 points " + DISCARD_NOTE),
    # k3p.min_points 5: K1's 3 are not enough
    ("[777z@1] [222z@2] 123p 456m 9s 9s* | 1f", dict(seat=1, discarder=2, options={"min_points": 5}),
     "cannot win: 3 below the minimum of 5 points " + DISCARD_NOTE),
    # an honour pair spoils all chows: self-draw 1 only
    ("123p 456p 234m 789m 1z 1z*", dict(tsumo=True),
     "cannot win: 1 below the minimum of 3 points (the 2 for winning and flowers don't count)"),
    # seven pairs not played by default
    ("11m 55m 22p 99p 11s 66z 7z 7z*", dict(discarder=2),
     "cannot win: the hand is not complete (no reading as four sets and a pair)"),
    # K6's East hand (234m 456p 789p 111z 55z) robs legally but has only East 1 + seat 1 = 2 points
    ("23m 456p 789p 111z 55z 4m*", dict(discarder=1, chankan=True),
     "cannot win: 2 below the minimum of 3 points " + DISCARD_NOTE),
])
def test_cannot_win(hand, kw, verdict):
    r = win(hand, **kw)
    assert not r.legal and r.verdict == verdict and r.payments == []


def test_bad_tiles_raise_tile_error():
    with pytest.raises(TileError, match="4s"):
        win("123p 456p 234m 789m 44s 4s*", tsumo=True)
    # a robbed kong tile is the robber's only copy: three are in the kong, so no pair or pong of it
    # (this is why §5 robbing for a pong or eye is impossible)
    with pytest.raises(TileError, match="only 5p"):
        win("123m 789p 999s 111z 5p 5p*", discarder=1, chankan=True)


@pytest.mark.parametrize("hand,kw,message", [
    ("{123p@1} 456p 234m 789m 9s 9s*", dict(tsumo=True), "no chow calls"),
    (K2, dict(discarder=0), "must be another seat"),
    (K2, dict(seat=3, tsumo=True), "seat 3"),
    ("[777z@3] [222z@2] 123p 456m 9s 9s*", dict(seat=1, discarder=2), "@3"),
    (K2, dict(tsumo=True, options={"flower_value": 2}), "'flower_value'"),
    (K2, dict(tsumo=True, options={"special_hands": ["thirteen_orphans"]}), "thirteen_orphans"),
    (K2, dict(tsumo=True, options={"tsumo_counts_to_minimum": "maybe"}), "tsumo_counts_to_minimum"),
    (K2, dict(tsumo=True, rinshan=True), "declared kong"),
])
def test_impossible_wins_raise_value_error(hand, kw, message):
    with pytest.raises(ValueError, match=message):
        win(hand, **kw)
