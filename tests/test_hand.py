import pytest

from assistant.errors import TileError
from assistant.hand import parse_hand, parse_meld, validate_hand


def test_meld_notation():
    m = parse_meld("[777z@1]")
    assert (m.type, m.source, m.concealed, m.added) == ("pong", 1, False, False)
    assert parse_meld("{345p@1}").type == "chow"
    k = parse_meld("[5555p+]")
    assert (k.type, k.added, k.source) == ("kong", True, None)
    k2 = parse_meld("[5555z@2+]")  # an added kong keeps the source of the pong it grew from
    assert (k2.type, k2.added, k2.source, k2.format()) == ("kong", True, 2, "[5555z@2+]")
    c = parse_meld("(5555p)")
    assert (c.type, c.concealed, c.is_open) == ("kong", True, False)
    j = parse_meld("{45p jk=6p@1}")
    assert j.type == "chow" and j.jokers == 1 and [t.code for t in j.stands_for] == ["4p", "5p", "6p"]
    assert parse_meld("[77p jk=7p@2]").format() == "[77p jk=7p@2]"


@pytest.mark.parametrize("text", ["[123p]", "{777z}", "(777z)", "[12p]", "{891p}", "[777z@4]", "{45p jk@1}"])
def test_bad_melds_are_rejected(text):
    with pytest.raises(TileError):
        parse_meld(text)


def test_whole_hand_with_bonus_and_winning_tile():
    h = parse_hand("123p456p789p55p 7z7z jk 5p* [777z@1] | 1a2h4f")
    assert h.win_tile.code == "5p"
    assert len(h.concealed) == 15 - 0 and len(h.melds) == 1
    assert [t.code for t in h.bonus] == ["1a", "2h", "4f"]


def test_error_position_points_into_the_text():
    with pytest.raises(TileError) as ei:
        parse_hand("123p [777z@1] 45q")
    assert ei.value.position == 14 and ei.value.token == "45q"


@pytest.mark.parametrize(
    "variant,text,token,reason",
    [
        ("sanma", "1234567p11z 5m", "5m", "5m is not in the sanma tile set"),
        ("sanma", "1234567p11z 2m", "2m", "2m is not in the sanma tile set"),
        ("hong-kong", "123456789p11z0m", "0m", "no red five there"),
        ("sanma", "111112345678p9s", "1p", "fifth copy of 1p"),
        ("sanma", "1234567p11z 00p", "0p", "the sanma set has 1 0p"),
        ("sanma", "5555p 123s 456s 11z", "5p", "only 3 plain 5p (one is the red 0p)"),
        ("hong-kong", "123456789p11z jk", "jk", "jokers exist only in three-kaki"),
        ("three-kaki", "123456789p11z 1f", "1f", "cannot be inside a concealed hand"),
        ("korean-3p", "123456789p11z 4s", "4s", "4s is not in the korean-3p tile set"),
        ("three-kaki", "123456789p11z 1m", "1m", "1m is not in the three-kaki tile set"),
    ],
)
def test_impossible_hands(variant, text, token, reason, request):
    from assistant.variants import get_variant

    with pytest.raises(TileError) as ei:
        validate_hand(parse_hand(text), get_variant(variant))
    assert ei.value.token == token
    assert reason in str(ei.value)
    assert text[ei.value.position:].startswith(token[0])


def test_fifth_copy_counts_melds_and_visible_tiles(sanma):
    from assistant.tiles import parse_tiles

    hand = parse_hand("123456789p1z [777z]")
    validate_hand(hand, sanma, visible=parse_tiles("7z"))
    with pytest.raises(TileError, match="fifth copy of 7z"):
        validate_hand(hand, sanma, visible=parse_tiles("77z"))


def test_hand_size(sanma):
    with pytest.raises(TileError, match="hand has 12 tiles"):
        validate_hand(parse_hand("2345678p11z [777z]"), sanma)


def test_jokers_in_shown_sets(kaki):
    with pytest.raises(TileError, match="at most 1 joker"):
        validate_hand(parse_hand("1234567p1z [7z jk=7z jk=7z]"), kaki)
    with pytest.raises(TileError, match="never be part of a kong"):
        validate_hand(parse_hand("1234567p1z [777z jk=7z]"), kaki)
