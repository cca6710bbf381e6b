"""Tiles and places in players' words, for the page's notes ("the tile in East's discards", "a face-down tile").

>>> tile_words("bk"), tile_words("7p"), tile_words("0s"), tile_words("6z"), tile_words("2f")
('a face-down tile', '7 of dots (7p)', 'red 5 of bamboo (0s)', 'Green dragon (6z)', 'flower 2 (2f)')
>>> from vision.seen import TilePlace
>>> place_words(TilePlace("discard", 0)), place_words(TilePlace("dora", None)), place_words(None)
("in East's discards", 'among the dora indicators', '')
"""

from __future__ import annotations

from assistant.table import SEAT_NAMES
from vision.seen import TilePlace

_HONOURS = {"1z": "East", "2z": "South", "3z": "West", "4z": "North", "5z": "White dragon", "6z": "Green dragon",
            "7z": "Red dragon"}
_SUITS = {"m": "characters", "p": "dots", "s": "bamboo"}
_BONUS = {"f": "flower", "g": "season", "a": "animal", "h": "face"}
_PARTS = {"hand": "hand", "meld": "melds", "discard": "discards", "bonus": "bonus tiles", "north": "set-aside Norths"}
_PLACES = {"dora": "among the dora indicators", "centre": "among the discards in the centre", "wall": "in the wall"}


def tile_words(code: str) -> str:
    """A tile kind as a player names it, the notation after it (a back is "a face-down tile")."""
    if code == "bk":
        return "a face-down tile"
    if code == "jk":
        return "a joker (jk)"
    if code in _HONOURS:
        return f"{_HONOURS[code]} ({code})"
    if len(code) == 2 and code[1] in _SUITS:
        rank = "red 5" if code[0] == "0" else code[0]
        return f"{rank} of {_SUITS[code[1]]} ({code})"
    if len(code) == 2 and code[1] in _BONUS:
        return f"{_BONUS[code[1]]} {code[0]} ({code})"
    return code


def place_words(place: TilePlace | None) -> str:
    """Where a tile of the page lies ("in East's discards"), from the zone and seat the table gave it; '' when it
    has none."""
    if place is None:
        return ""
    zone, seat = place.zone, place.seat
    if zone in _PLACES:
        return _PLACES[zone]
    if zone in _PARTS and isinstance(seat, int) and 0 <= seat < len(SEAT_NAMES):
        return f"in {SEAT_NAMES[seat]}'s {_PARTS[zone]}"
    return ""
