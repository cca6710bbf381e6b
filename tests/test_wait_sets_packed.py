"""The packed wait path of ``wait_sets_batch`` (one table lookup per group) against worked examples,
the min-plus search it replaced (``_wait_sets_by_distance``) and the ``mahjong`` package."""

import dataclasses
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.analysis import _wait_sets_by_distance, layout_for, wait_code_table, wait_sets_batch
from assistant.bench import random_hands, random_ready_hands
from assistant.hand import parse_hand
from assistant.tiles import counts34, parse_tiles
from assistant.variants import get_variant

VARIANTS = ["sanma", "korean-3p", "hong-kong", "three-kaki"]


def kinds(text):
    return frozenset(t.kind for t in parse_tiles(text))


def counts(text):
    return counts34(parse_hand(text).concealed)


# --- the packed table, worked by hand ------------------------------------------------------------

def key(ranks):
    """Base-5 key of a group holding these ranks (0-based, repeats = copies)."""
    return sum(5**r for r in ranks)


@pytest.mark.parametrize(
    "ranks,exact,mod,waits",
    [
        ((), True, 0, set()),  # nothing: no sets, exact; one tile more is a lone tile
        ((0, 0), True, 2, {0}),  # 11: a pair; 111 is a set
        ((0,), False, 1, {0}),  # 1: 11 is a pair
        ((0, 1), False, 2, {2}),  # 12: only 123 (penchan); 112 / 122 are not exact
        ((0, 2), False, 2, {1}),  # 13: 123 (kanchan)
        ((3, 4), False, 2, {2, 5}),  # 45: 345 / 456 (ryanmen)
        ((0, 0, 0, 0), False, 1, set()),  # 1111: no fifth copy; as 111 + 1 it waits on 1 only
        ((0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8), False, 1, set(range(9))),  # nine gates
        ((0, 1, 2, 3, 3), True, 2, {3}),  # 123 44: exact; one more tile: only 123 444 splits into sets
    ],
)
def test_chow_group_codes(ranks, exact, mod, waits):
    code = int(wait_code_table(9, True)[key(ranks)])
    assert bool(code & (1 << 12)) == exact
    assert code >> 13 == mod
    assert {i for i in range(9) if code >> i & 1} == waits


def test_pong_only_group_codes():
    table = wait_code_table(7, False)  # honours: no chows
    assert {i for i in range(7) if table[key((0, 1))] >> i & 1} == set()  # two lone honours: never exact
    assert {i for i in range(7) if table[key((0, 0, 1, 1))] >> i & 1} == {0, 1}  # shanpon
    assert {i for i in range(7) if table[key((2,))] >> i & 1} == {2}  # tanki
    assert table[key((0, 0, 0))] & (1 << 12)  # a pong is exact


# --- wait_sets_batch on worked hands (the packed path) ---------------------------------------------

@pytest.mark.parametrize(
    "variant,hand,expected",
    [
        ("sanma", "1112345678999p", "123456789p"),  # nine gates
        ("sanma", "111m 234p 678p 34s 99s", "25s"),
        ("sanma", "234p 555p 678s 24s 88s", "3s"),
        ("hong-kong", "123m 456m 789p 345s 2p", "2p"),
        ("hong-kong", "19m19p19s1234567z", "19m19p19s1234567z"),  # thirteen orphans, thirteen-way
        ("hong-kong", "19m19p19s1234566z", "7z"),  # thirteen orphans missing the red dragon
        ("hong-kong", "1133557799p1122z", ""),  # 14 tiles: not a 13-tile hand (search path)
        ("hong-kong", "113355p7799s112z", "2z"),  # seven pairs
        ("hong-kong", "1122m 345p 678s 555z", "12m"),  # shanpon
        # 1z would leave every group exact (11 123m, 11 456p, 11s, 11z) but with four pairs: no wait
        ("hong-kong", "11123m 11456p 11s 1z", ""),
        ("sanma", "11m 99m 123p 456p 777z", "19m"),  # shanpon on the cut suit's terminals
        ("sanma", "1m 123p 456p 789p 555z", "1m"),  # tanki
        ("sanma", "123p 456p 789p 555z 5z", ""),  # every 5z held: the tanki has no copy left
        ("sanma", "1111p 2345p 678s 55z", "36p"),  # 111 123 45 + 3p / 6p; no fifth 1p
        ("sanma", "222p 34p 456s 789s 11z", "25p1z"),  # 2222p as 222 + 234; 22 234 111z
        ("korean-3p", "123p 456p 234m 789m 9s", "9s"),
        ("three-kaki", "111p 234p 567p 555z 9p", "89p"),
    ],
)
def test_wait_sets_of_worked_hands(variant, hand, expected):
    v = get_variant(variant)
    got = wait_sets_batch(np.array([counts(hand)]), v)[0]
    assert got == kinds(expected), hand
    assert got == _wait_sets_by_distance(np.array([counts(hand)]), v)[0]


def test_packed_and_search_rows_in_one_batch(sanma):
    """13-tile rows take the packed path, any other row the search; every row answers as on its own."""
    rows = [
        counts("1112345678999p"),
        counts("1112345678999p1s"),  # 14 tiles
        counts("234p 555p 678s 24s 88s"),
        counts("123p 456p 77z"),  # 8 tiles
        [0] * 34,
        counts("11m 99m 123p 456p 777z"),
    ]
    with_2m = list(counts("111m 234p 678p 34s 9s"))
    with_2m[1] += 1  # 2m is no sanma tile: a row the packed path leaves to the search
    rows.append(with_2m)
    got = wait_sets_batch(np.array(rows), sanma)
    assert got == _wait_sets_by_distance(np.array(rows), sanma)
    assert got[0] == kinds("123456789p") and got[2] == kinds("3s") and got[5] == kinds("19m")
    assert got[3] == got[4] == frozenset()  # (a 14-tile row gets whatever the search says of it)
    assert wait_sets_batch(np.zeros((0, 34), dtype=np.int64), sanma) == []


def test_a_kind_with_fewer_copies_is_no_wait_once_all_are_held():
    hands = np.array([counts("222p 34p 456s 789s 11z"), counts("22p 34p 456s 789s 11z 9s")])
    three = dataclasses.replace(get_variant("sanma"), name="sanma-three-2p",
                                copies={**get_variant("sanma").copies, 10: 3})
    # with four 2p the first hand waits on 2p 5p 1z; with three, all are held and 2p cannot arrive
    assert wait_sets_batch(hands[:1], get_variant("sanma")) == [kinds("25p1z")]
    assert wait_sets_batch(hands, three)[0] == kinds("5p1z")
    assert wait_sets_batch(hands, three) == _wait_sets_by_distance(hands, three)


# --- the packed path equals the search it replaced --------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1), st.booleans())
def test_packed_path_equals_search(variant, seed, ready):
    v = get_variant(variant)
    hands = (random_ready_hands if ready else random_hands)(variant, 200, seed)
    assert wait_sets_batch(hands, v) == _wait_sets_by_distance(hands, v)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.lists(st.integers(0, 33), min_size=13, max_size=13))
def test_packed_path_equals_search_on_any_13_kinds(variant, picks):
    """Any 13 tiles of the set (four copies of a kind included, the kind rolled into the set's kinds)."""
    v = get_variant(variant)
    playing = v.playing_kinds
    c = [0] * 34
    for p in picks:
        k = playing[p % len(playing)]
        if c[k] < 4:
            c[k] += 1
    while sum(c) < 13:
        k = next(k for k in playing if c[k] < 4)
        c[k] += 1
    hands = np.array([c])
    assert wait_sets_batch(hands, v) == _wait_sets_by_distance(hands, v)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_packed_path_equals_search_on_hands_of_pairs(variant, seed):
    """Hands built of pairs and sets in every group (several pairs: only one may stay a pair), minus a tile."""
    rng = random.Random(seed)
    v = get_variant(variant)
    playing = list(v.playing_kinds)
    rows = []
    while len(rows) < 50:
        c = [0] * 34
        n_pairs = rng.randint(1, 7)
        for _ in range(n_pairs):
            c[rng.choice(playing)] += 2
        while sum(c) < 14:
            k = rng.choice(playing)
            if k < 27 and k % 9 <= 6 and k + 2 in v.copies and rng.random() < 0.5:
                for j in (k, k + 1, k + 2):
                    c[j] += 1
            else:
                c[k] += 3
        if sum(c) != 14 or max(c) > 4:
            continue
        c[rng.choice([k for k in range(34) if c[k]])] -= 1
        rows.append(c)
    hands = np.array(rows)
    assert wait_sets_batch(hands, v) == _wait_sets_by_distance(hands, v)


# --- against the `mahjong` package on the benchmark's seeded ready hands ---------------------------

@pytest.mark.parametrize("variant,three", [("hong-kong", False), ("sanma", True)])
def test_packed_waits_agree_with_mahjong_package_on_ready_hands(variant, three):
    from assistant.bench import _mahjong_waits

    v = get_variant(variant)
    hands = random_ready_hands(variant, 400, 7)
    ours = wait_sets_batch(hands, v)
    assert ours == _mahjong_waits(hands.tolist(), v.playing_kinds, three)
    assert all(ours)  # every hand is ready, so every hand waits on something


def test_wait_tables_are_kept_per_layout(hk):
    layout = layout_for(hk)
    assert layout.wait_codes() is layout.wait_codes()
    assert [t.shape for t in layout.wait_codes()] == [(5 ** len(g.kinds),) for g in layout.groups]
    assert not layout.wait_codes()[0].flags.writeable
