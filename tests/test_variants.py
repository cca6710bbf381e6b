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
