import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.errors import TileError
from assistant.tiles import (
    ALL_CODES,
    Tile,
    dora_from_indicator,
    format_tiles,
    kind_code,
    parse_tiles,
    sort_key,
)
from assistant.variants import get_variant


def codes(text):
    return [t.code for t in parse_tiles(text)]


def test_compact_runs_take_the_following_suit():
    assert codes("123m456p77z") == ["1m", "2m", "3m", "4p", "5p", "6p", "7z", "7z"]


def test_spaced_and_compact_agree():
    assert parse_tiles("1m 2m 3m 7z") == parse_tiles("123m7z")


def test_red_five_is_a_five_with_a_flag():
    (t,) = parse_tiles("0p")
    assert (t.kind, t.red, t.code, t.rank) == (13, True, "0p", 5)
    assert t is not Tile(13) and Tile(13, True) is t


def test_standalone_two_letter_tokens_repeat():
    assert codes("jkjkbk") == ["jk", "jk", "bk"]


@pytest.mark.parametrize(
    "text,ids",
    [("1m9m", [0, 8]), ("1p9p", [9, 17]), ("1s9s", [18, 26]), ("1z7z", [27, 33]), ("1f4f", [34, 37]),
     ("1g4g", [38, 41]), ("1a4a", [42, 45]), ("1h4h", [46, 49]), ("jk", [50]), ("bk", [51])],
)
def test_integer_ids_follow_the_recommended_table(text, ids):
    assert [t.kind for t in parse_tiles(text)] == ids


@pytest.mark.parametrize(
    "text,token,pos",
    [("0z", "0z", 0), ("8z", "8z", 0), ("123m9z", "9z", 4), ("0f", "0f", 0), ("5f", "5f", 0),
     ("5g", "5g", 0), ("5a", "5a", 0), ("5h", "5h", 0), ("12x", "12x", 0), ("123", "123", 0),
     ("11m kk", "kk", 4)],
)
def test_invalid_codes_name_token_and_position(text, token, pos):
    with pytest.raises(TileError) as ei:
        parse_tiles(text)
    assert ei.value.token == token
    assert ei.value.position == pos
    assert repr(token) in str(ei.value) and f"position {pos}" in str(ei.value)


def test_canonical_order_puts_red_five_before_five_and_bonus_after_honours():
    assert format_tiles(parse_tiles("bk jk 1h 1a 1g 1f 7z 5s 5p 0p 4p 9m")) == "9m405p5s7z1f1g1a1hjkbk"


def test_spaced_format():
    assert format_tiles(parse_tiles("21m"), spaced=True) == "1m 2m"


def test_every_code_parses_back_to_itself():
    for code in ALL_CODES:
        (t,) = parse_tiles(code)
        assert t.code == code


@given(st.lists(st.sampled_from(ALL_CODES), max_size=30))
def test_notation_round_trips(code_list):
    tiles = [parse_tiles(c)[0] for c in code_list]
    text = format_tiles(tiles)
    assert sorted(parse_tiles(text), key=sort_key) == sorted(tiles, key=sort_key)
    assert sorted(parse_tiles(format_tiles(tiles, spaced=True)), key=sort_key) == sorted(tiles, key=sort_key)


def test_dora_wraps_over_the_kinds_in_play():
    sanma = frozenset(get_variant("sanma").copies)
    hk = frozenset(get_variant("hong-kong").copies)
    assert kind_code(dora_from_indicator(0, sanma)) == "9m"   # sanma: 1m -> 9m
    assert kind_code(dora_from_indicator(8, sanma)) == "1m"   # 9m -> 1m
    assert kind_code(dora_from_indicator(0, hk)) == "2m"
    assert kind_code(dora_from_indicator(17, sanma)) == "1p"
    assert kind_code(dora_from_indicator(29, sanma)) == "4z"  # West indicator: North is dora
    assert kind_code(dora_from_indicator(30, sanma)) == "1z"
    assert kind_code(dora_from_indicator(33, sanma)) == "5z"
