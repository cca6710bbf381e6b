"""Hand shape and waits: the worked examples of shared/rules, special hands, jokers, properties."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.analysis import (
    decompositions,
    discard_advice,
    is_complete,
    live_counts,
    shanten,
    shanten_batch,
    shanten_counts,
    wait_sets_batch,
    waits,
)
from assistant.errors import TileError
from assistant.hand import hand_from_tiles, parse_hand
from assistant.tiles import Tile, counts34, parse_tiles
from assistant.variants import get_variant


def wait_codes(text, variant, visible=""):
    return [w.tile.code for w in waits(parse_hand(text), get_variant(variant), parse_tiles(visible))]


# --- worked examples of the rules files (hand shapes and waits) --------------------------------

@pytest.mark.parametrize(
    "example,variant,hand,expected",
    [
        ("sanma E1", "sanma", "111m 234p 678p 34s 99s", ["2s", "5s"]),
        ("sanma E2", "sanma", "234p 567p 99p 234s 67s", ["5s", "8s"]),
        ("sanma E3", "sanma", "111m 234p 567p 23s 55s", ["1s", "4s"]),
        ("sanma E5", "sanma", "234p 555p 678s 24s 88s", ["3s"]),
        # E6 won on 9p; the hand also takes 1p (11 234 555 678), 3p (123 345 678 55), 4p, 6p
        ("sanma E6", "sanma", "[777z@1] 123p 406p 78p 55p", ["1p", "3p", "4p", "6p", "9p"]),
        ("korean K1", "korean-3p", "[777z@1] [222z@2] 123p 456m 9s", ["9s"]),
        ("korean K2", "korean-3p", "123p 456p 234m 789m 9s", ["9s"]),
        ("korean K4", "korean-3p", "[3333z@1] (9999s) [111s@2] 123p 5m", ["5m"]),
        ("hong-kong H1", "hong-kong", "123m 456m 789p 345s 2p", ["2p"]),
        ("hong-kong H2", "hong-kong", "[111p@1] [999p@2] [666z@3] 55p 33z", ["5p", "3z"]),
        ("hong-kong H3", "hong-kong", "[555z@1] [666z@2] 77z 234s 67s", ["5s", "8s"]),
        ("hong-kong H5", "hong-kong", "[555z@2] [666z@1] [777z@3] 234p 8s", ["8s"]),
        ("hong-kong H6", "hong-kong", "[555z@1] [666z@2] 777z 111z 9m", ["9m"]),
        # T3: 111p 234p 567p 9p + 8p also reads 11p 123p 456p 789p
        ("three-kaki T3", "three-kaki", "111p 234p 567p 555z 9p", ["8p", "9p"]),
        ("three-kaki T1", "three-kaki", "123p 456p 789p 77z jk 5p", ["3p", "4p", "5p", "6p", "7p", "7z"]),
        # T2 won on 9p; 3p (33 456 789) and 6p (345 66 789) complete it too
        ("three-kaki T2", "three-kaki", "[22p jk=2p@1] 444z 345p 678p 9p", ["3p", "6p", "9p"]),
    ],
)
def test_worked_example_waits(example, variant, hand, expected):
    assert wait_codes(hand, variant) == expected, example


def test_k5_and_e8_wait_on_3p_6p():
    assert wait_codes("45p 123m 456m 789m 11z", "korean-3p") == ["3p", "6p"]
    assert wait_codes("45p 111m 234s 789s 11z", "sanma") == ["3p", "6p"]


def test_k6_east_waits_on_1m_and_4m():
    assert wait_codes("23m 456p 789p 111z 55z", "korean-3p") == ["1m", "4m"]


def test_t4_great_dragons_complete_with_fei_free_reading(kaki):
    hand = parse_hand("[555z] [666z] [777z@1] 234p 99p")
    (d,) = decompositions(hand, kaki)
    assert d.format() == "[555z] [666z] [777z@1] 234p 99p"


def test_h4_thirteen_orphans_thirteen_way(hk, sanma):
    for v in (hk, sanma):
        ws = waits(parse_hand("19m19p19s1234567z"), v)
        assert [w.tile.code for w in ws] == ["1m", "9m", "1p", "9p", "1s", "9s",
                                             "1z", "2z", "3z", "4z", "5z", "6z", "7z"]
        assert all(w.shapes == ("thirteen-sided",) for w in ws)
        assert all(w.live == 3 for w in ws)


def test_h7_nine_gates_nine_way(hk):
    ws = waits(parse_hand("1112345678999p"), hk)
    assert [w.tile.code for w in ws] == ["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p"]
    assert [w.live for w in ws] == [1, 3, 3, 3, 3, 3, 3, 3, 1]


def test_thirteen_orphans_not_in_korean_or_kaki(k3p, kaki):
    assert shanten(parse_hand("19m19p19s123567z1p"), k3p).thirteen_orphans is None
    assert shanten(parse_hand("11223344556677p"[:-1] + "z"), kaki).seven_pairs is None


# --- seven pairs --------------------------------------------------------------------------------

def test_seven_pairs_wait(sanma):
    ws = waits(parse_hand("1122z3344z5566z7z"), sanma)
    assert [w.tile.code for w in ws] == ["7z"]
    assert ws[0].decompositions[0].form == "seven_pairs"


def test_four_of_a_kind_is_not_two_pairs(sanma, hk):
    hand = parse_hand("111z 22z 33z 44z 55z 66z")  # 13 tiles
    assert waits(hand, sanma) == []
    assert shanten(hand, sanma).seven_pairs == 1
    assert not is_complete(parse_hand("1111z 22z 33z 44z 55z 66z"), hk)


def test_seven_pairs_off_by_default_in_korean(k3p):
    assert wait_codes("1122m3344p5566p9s", "korean-3p") == []
    assert shanten(parse_hand("1122m3344p5566p9s"), k3p).seven_pairs is None


def test_hand_that_is_both_seven_pairs_and_standard(hk):
    decs = decompositions(parse_hand("11223344556677p"), hk)
    forms = sorted(d.form for d in decs)
    assert forms == ["seven_pairs", "standard", "standard", "standard"]


# --- kongs and melds ----------------------------------------------------------------------------

def test_hand_with_kongs(hk):
    assert wait_codes("(5555p) [1111s@2] 789m 11z 22z", "hong-kong") == ["1z", "2z"]


def test_kong_copies_are_not_live(sanma):
    (w,) = waits(parse_hand("(0555p) 123s 789s 111z 4p"), sanma)
    assert w.tile.code == "4p" and w.live == 3


def test_all_copies_in_hand_is_not_a_wait(hk):
    # 1111m + 3 sets: 1m cannot arrive; the hand is not ready.
    hand = parse_hand("1111m 234p 567p 789s")
    assert waits(hand, hk) == []
    assert shanten(hand, hk).standard == 1


# --- live counts --------------------------------------------------------------------------------

def test_live_counts_subtract_every_visible_copy(sanma):
    ws = waits(parse_hand("111m 234p 678p 34s 99s"), sanma, parse_tiles("2s2s5s 0s 9s"))
    assert [(w.tile.code, w.live) for w in ws] == [("2s", 2), ("5s", 2)]


def test_over_count_is_an_error_not_a_negative_live_count(sanma):
    with pytest.raises(TileError, match="fifth copy of 3s"):
        waits(parse_hand("111m 234p 678p 34s 99s"), sanma, parse_tiles("3333s"))


# --- jokers ---------------------------------------------------------------------------------------

def test_joker_assignments_are_enumerated(kaki):
    hand = parse_hand("123p 456p 789p 77z jk 5p 5p")
    decs = decompositions(hand, kaki)
    readings = sorted(d.format() for d in decs)
    assert readings == ["123p 456p 55p jk=5p 789p 77z", "123p 456p 789p 77z jk=7z 55p"]
    assert sorted(d.jokers_stand_for for d in decs) == [(13,), (33,)]


def test_joker_never_makes_a_set_alone_and_at_most_one_in_a_chow(kaki):
    # 1p + two Fei cannot be a chow; 1p jk jk as a pong is fine
    decs = decompositions(parse_hand("1p jkjk 234p 567p 789p 99p"), kaki)
    assert all(all(len(s.joker_for) <= (1 if s.type == "chow" else 2) for s in d.sets) for d in decs)
    assert any(any(s.type == "pong" and s.kinds == (9, 9, 9) for s in d.sets) for d in decs)


def test_eye_may_be_two_fei(kaki):
    decs = decompositions(parse_hand("123p 456p 789p 111z jkjk"), kaki)
    two_fei_eye = [d for d in decs if len(d.pair_joker_for) == 2]
    # the two Fei may stand for any playing tile
    assert sorted(d.pair[0] for d in two_fei_eye) == list(kaki.playing_kinds)
    assert all(d.pair_joker_for == (d.pair[0], d.pair[0]) for d in two_fei_eye)
    # other readings put a Fei in a set: e.g. the pong 1z jk jk with the eye 11z
    assert any(d.pair == (27,) and not d.pair_joker_for for d in decs)


def test_shanten_with_jokers(kaki):
    assert shanten(parse_hand("123p 456p 789p 77z jk 5p"), kaki).minimum == 0
    assert shanten(parse_hand("123p 456p 789p 77z jk 5p 5p"), kaki).minimum == -1
    assert shanten(parse_hand("jkjkjkjk 147p 1234z 56z"), kaki).minimum >= 1


# --- shanten forms -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "variant,hand,std,sp,to",
    [
        ("hong-kong", "19m19p19s1234567z", 8, 6, 0),
        ("hong-kong", "1122334455667p", 0, 0, 11),
        ("sanma", "19m19p19s1234567z", 8, 6, 0),  # 13 isolated tiles: 1 for the pair + 2 per set
        ("sanma", "123p456p789p1122z", 0, 4, 8),
    ],
)
def test_shanten_forms(variant, hand, std, sp, to):
    s = shanten(parse_hand(hand), get_variant(variant))
    assert (s.standard, s.seven_pairs, s.thirteen_orphans) == (std, sp, to)
    assert s.minimum == min(std, sp, to)


def test_discard_advice_ranks_best_first(sanma):
    options = discard_advice(parse_hand("123p456p789s4566s1z"), sanma)
    best = options[0]
    assert best.tile.code == "1z" and best.shanten == 0
    assert [(t.code, n) for t, n in best.acceptance] == [("3s", 4), ("6s", 2), ("9s", 3)]
    assert all(o.shanten >= 0 for o in options)
    ranks = [(o.shanten, -o.live_total) for o in options]
    assert ranks == sorted(ranks)


def test_discard_prefers_keeping_a_red_five(sanma):
    options = discard_advice(parse_hand("123p456p789s11z 0p5p 9p"), sanma)
    order = [o.tile.code for o in options if o.tile.kind == 13]
    assert order == ["5p", "0p"]


# --- properties ----------------------------------------------------------------------------------

VARIANTS = ["sanma", "korean-3p", "hong-kong", "three-kaki"]


def wall_tiles(v):
    """Every playing tile of the set, red fives included."""
    return [Tile(k, red=i < v.red_fives.get(k, 0)) for k in v.playing_kinds for i in range(v.copies[k])]


def random_complete_tiles(rng, variant):
    """A random complete standard hand of 14 tiles (no jokers) drawn from the variant's set."""
    v = get_variant(variant)
    kinds = list(v.playing_kinds)
    while True:
        counts = [0] * 34
        ok = True
        for _ in range(4):
            k = rng.choice(kinds)
            if rng.random() < 0.5 and k < 27 and k % 9 <= 6 and k + 2 in v.copies and k + 1 in v.copies:
                shape = [k, k + 1, k + 2]
            else:
                shape = [k, k, k]
            for s in shape:
                counts[s] += 1
        p = rng.choice(kinds)
        counts[p] += 2
        if all(counts[k] <= v.copies.get(k, 0) for k in range(34)) and ok:
            # a kind whose every copy is here includes its red five(s)
            return [Tile(k, red=i < v.red_fives.get(k, 0) and counts[k] == v.copies[k])
                    for k in range(34) for i in range(counts[k])]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_a_wait_completes_the_hand_and_nothing_else_does(variant, seed):
    rng = random.Random(seed)
    v = get_variant(variant)
    tiles = random_complete_tiles(rng, variant)
    removed = tiles.pop(rng.randrange(14))
    hand = hand_from_tiles(tiles)
    ws = {w.tile.kind for w in waits(hand, v)}
    assert removed.kind in ws
    for k in v.playing_kinds:
        if sum(1 for t in tiles if t.kind == k) >= v.copies[k]:
            continue
        assert is_complete(hand_from_tiles(tiles + [Tile(k)]), v) == (k in ws)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_shanten_is_minus_one_exactly_for_complete_hands(variant, seed):
    rng = random.Random(seed)
    v = get_variant(variant)
    if rng.random() < 0.5:
        tiles = random_complete_tiles(rng, variant)
    else:
        tiles = rng.sample(wall_tiles(v), 14)
    hand = hand_from_tiles(tiles)
    assert (shanten(hand, v).minimum == -1) == is_complete(hand, v)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_live_counts_never_negative(variant, seed, n_visible):
    rng = random.Random(seed)
    v = get_variant(variant)
    drawn = rng.sample(wall_tiles(v), 13 + n_visible)
    hand = hand_from_tiles(drawn[:13])
    live = live_counts(hand, v, drawn[13:])
    assert min(live) >= 0
    assert sum(live) == sum(v.copies[k] for k in v.playing_kinds) - 13 - n_visible


# --- agreement with the `mahjong` package and between the scalar and batch paths ------------------

@pytest.mark.parametrize("variant,three", [("hong-kong", False), ("sanma", True)])
def test_shanten_and_waits_agree_with_mahjong_package(variant, three):
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    v = get_variant(variant)
    rng = random.Random(2026)
    wall = [k for k in v.playing_kinds for _ in range(4)]
    hands = []
    for _ in range(300):
        c = [0] * 34
        for k in rng.sample(wall, 13):
            c[k] += 1
        hands.append(c)
    for i in range(100):  # ready hands are rare among random ones: add some
        tiles = random_complete_tiles(random.Random(i), variant)
        tiles.pop(i % 14)
        hands.append(counts34(tiles))
    ours = shanten_batch(np.array(hands), v)
    ours_waits = wait_sets_batch(np.array(hands), v)
    agari = Agari()
    for c, s, ws in zip(hands, ours, ours_waits, strict=True):
        assert s == Shanten.calculate_shanten(c, is_three_player=three)
        assert s == shanten_counts(c, 0, v).minimum
        theirs = set()
        for k in v.playing_kinds:
            if c[k] < 4:
                c[k] += 1
                if agari.is_agari(c):
                    theirs.add(k)
                c[k] -= 1
        assert ws == theirs
