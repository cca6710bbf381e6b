import pytest

from assistant.analysis import shanten, waits
from assistant.hand import parse_hand
from assistant.tiles import JOKER
from assistant.variants import RuleSystem, copies_of, get_variant, register, variant_names


@pytest.mark.parametrize(
    "name,total,playing,bonus,jokers,red",
    [("sanma", 108, 108, 0, 0, 2), ("korean-3p", 108, 104, 4, 0, 0), ("hong-kong", 144, 136, 8, 0, 0),
     ("three-kaki", 84, 64, 16, 4, 0)],
)
def test_tile_sets(name, total, playing, bonus, jokers, red):
    v = get_variant(name)
    assert v.total_tiles == total
    assert sum(n for k, n in v.copies.items() if k < 34) == playing
    assert sum(n for k, n in v.copies.items() if 34 <= k < 50) == bonus
    assert v.copies.get(JOKER, 0) == jokers
    assert sum(v.red_fives.values()) == red


def test_chow_suits_follow_from_the_tile_set():
    assert get_variant("sanma").chow_suits == ("p", "s")
    assert get_variant("korean-3p").chow_suits == ("m", "p")
    assert get_variant("hong-kong").chow_suits == ("m", "p", "s")
    assert get_variant("three-kaki").chow_suits == ("p",)


def test_calls_and_special_hands():
    assert "chow" not in get_variant("sanma").calls and "kita" in get_variant("sanma").calls
    assert "chow" in get_variant("hong-kong").calls
    assert get_variant("three-kaki").special_hands == frozenset()
    assert get_variant("hong-kong").special_hands == {"seven_pairs", "thirteen_orphans"}
    assert (get_variant("sanma").dead_wall, get_variant("three-kaki").dead_wall) == (14, 7)


def test_unknown_variant_names_the_choices():
    with pytest.raises(ValueError, match="sanma, korean-3p, hong-kong, three-kaki"):
        get_variant("riichi-5p")


def test_a_fifth_rule_system_is_only_a_definition():
    """Four-player riichi tiles, added as data: the analysis works on it unchanged."""
    riichi4 = RuleSystem(
        name="test-riichi-4p",
        title="Riichi, four players",
        players=4,
        copies=copies_of("123456789m123456789p123456789s1234567z", 4),
        red_fives={4: 1, 13: 1, 22: 1},
        calls=frozenset({"chow", "pong", "ron", "tsumo", "riichi"}),
        special_hands=frozenset({"seven_pairs", "thirteen_orphans"}),
        seat_winds=(27, 28, 29, 30),
    )
    register(riichi4)
    try:
        assert get_variant("test-riichi-4p") is riichi4
        hand = parse_hand("23m456p789s11z456s")  # 2m-3m exist here, unlike sanma
        assert [w.tile.code for w in waits(hand, riichi4)] == ["1m", "4m"]
        assert shanten(hand, riichi4).minimum == 0
    finally:
        from assistant.variants import _REGISTRY

        _REGISTRY.pop("test-riichi-4p")
    assert "test-riichi-4p" not in variant_names()


def test_definitions_reject_unknown_calls():
    with pytest.raises(ValueError, match="unknown calls"):
        RuleSystem(name="x", title="x", players=3, copies={}, calls=frozenset({"steal"}))


def test_options_that_change_shapes_and_tile_sets():
    k3p = get_variant("korean-3p")
    hand = parse_hand("1122m3344p5566p9s")
    assert waits(hand, k3p) == []
    with7 = k3p.with_options({"special_hands": "seven_pairs"})
    assert with7 is k3p.with_options({"special_hands": "seven_pairs"})  # cached: same instance
    assert [w.tile.code for w in waits(hand, with7)] == ["9s"]
    assert with7.options["special_hands"] == "seven_pairs" and k3p.options["special_hands"] == "none"
    hk = get_variant("hong-kong")
    assert hk.with_options({"flowers": False}).total_tiles == 136
    assert not hk.with_options({"seven_pairs": "off"}).allows("seven_pairs")
    assert get_variant("sanma").with_options({"red_fives": False}).red_fives == {}
    with pytest.raises(ValueError, match="unknown option"):
        hk.with_options({"no_such_option": 1})


def test_option_values_are_checked_against_the_rules_choices():
    sanma = get_variant("sanma")
    assert sanma.option_choices["tsumo_mode"] == ("loss", "split")
    assert sanma.with_options({"tsumo_mode": "split"}).options["tsumo_mode"] == "split"
    with pytest.raises(ValueError, match='option .tsumo_mode. of sanma must be one of "loss", "split"; got "half"'):
        sanma.with_options({"tsumo_mode": "half"})
    for name in variant_names():  # every default is one of its own choices
        v = get_variant(name)
        assert all(v.options[k] in c for k, c in v.option_choices.items())


# name: (hand_sizes, max_melds, chow, pong, kong, kita, sink_fei, swap_fei, riichi, dora indicators,
#        kong_limit, discard rows, abortive draws, sets aside (kinds))
CAPABILITIES = {
    "sanma": ((13, 14), 4, False, True, True, True, False, False, True, True, 4, True,
              ("nine_terminals", "four_kans"), (30,)),
    "korean-3p": ((13, 14), 4, False, True, True, False, False, False, False, False, None, True, (),
                  (34, 35, 36, 37)),
    "hong-kong": ((13, 14), 4, True, True, True, False, False, False, False, False, None, False, (),
                  tuple(range(34, 42))),
    "three-kaki": ((13, 14), 4, True, True, True, False, True, True, False, False, None, True, (),
                   tuple(range(34, 51))),
}


@pytest.mark.parametrize("name", list(CAPABILITIES))
def test_capabilities_follow_from_the_data(name):
    v = get_variant(name)
    got = (v.hand_sizes, v.max_melds, v.can_chow, v.can_pong, v.can_kong, v.can_kita, v.can_sink_fei,
           v.can_swap_fei, v.has_riichi, v.has_dora_indicators, v.kong_limit, v.keeps_discard_rows,
           v.abortive_draws, v.sets_aside)
    assert got == CAPABILITIES[name]
    assert v.full_hand_size == 14
    assert [v.hand_stage(n) for n in (12, 13, 14, 15)] == [None, "waiting", "discarding", None]
    assert v.endings == (("win", "exhaustive_draw", "abortive_draw", "false_win") if name == "sanma"
                         else ("win", "exhaustive_draw", "false_win"))
    assert v.riichi_refusal(claimed_sets=False) == (None if name == "sanma" else "no_riichi")
    assert v.riichi_refusal(claimed_sets=True) == ("open_hand" if name == "sanma" else "no_riichi")


@pytest.mark.parametrize("name,kind,shapes", [
    ("sanma", 13, ((11, 12), (12, 14), (14, 15))),        # 5p: 34p 46p 67p
    ("sanma", 9, ((10, 11),)), ("sanma", 0, ()), ("sanma", 27, ()),     # 1p; 1m (no 2m-8m); East
    ("korean-3p", 4, ((2, 3), (3, 5), (5, 6))), ("korean-3p", 18, ()),  # 5m; 1s (only 1s 9s)
    ("hong-kong", 26, ((24, 25),)), ("hong-kong", 34, ()),             # 9s; a flower
    ("three-kaki", 10, ((9, 11), (11, 12))), ("three-kaki", 4, ()),     # 2p; 5m (no characters)
])
def test_chow_shapes_keep_to_the_chow_suits(name, kind, shapes):
    assert get_variant(name).chow_shapes(kind) == shapes


def test_capabilities_follow_options_and_new_definitions():
    assert get_variant("hong-kong").with_options({"flowers": False}).sets_aside == ()
    assert not get_variant("hong-kong").with_options({"flowers": False}).keeps_discard_rows
    pung_only = RuleSystem(name="x", title="x", players=4, copies=copies_of("123456789m1234567z", 4), hand_size=16,
                           calls=frozenset({"pong", "ron", "tsumo"}))
    assert (pung_only.hand_sizes, pung_only.max_melds, pung_only.can_kong, pung_only.kong_limit,
            pung_only.endings) == ((16, 17), 5, False, None, ("win", "exhaustive_draw", "false_win"))
