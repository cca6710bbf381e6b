"""Tile codes as the follower handles them: the seat winds' names, canonical hand text, red fives as plain
fives, codes sorted as the engine sorts tiles, and codes taken out of others.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.tiles import Tile, format_tiles, parse_tiles, sort_key

#: the engine seats' winds, dealer first
SEAT_WINDS = ("East", "South", "West", "North")
#: the suits of the bonus tiles, which are set aside when drawn
BONUS_SUITS = "fgah"


def hand_text(codes: Sequence[str], bonus: Sequence[str] = ()) -> str:
    """Canonical hand notation of tile codes (sorted; jokers, then backs, last) and a bonus area after ``|``."""
    text = format_tiles(parse_tiles(" ".join(codes))) if codes else ""
    if bonus:
        text += " | " + format_tiles(parse_tiles(" ".join(bonus)))
    return text


def plain_code(code: str) -> str:
    """A red five's code as the plain five's (``0m`` -> ``5m``)."""
    return "5" + code[1] if code[0] == "0" else code


def is_bonus(code: str) -> bool:
    """A bonus tile, set aside when drawn."""
    return code[1] in BONUS_SUITS


def sorted_codes(codes) -> tuple[str, ...]:
    """The codes in the engine's tile order."""
    return tuple(sorted(codes, key=lambda c: sort_key(Tile.from_code(c))))


def without(codes: Sequence[str], take: Sequence[str]) -> tuple[str, ...] | None:
    """``codes`` without ``take`` (exact codes), or None when one is missing."""
    rest = list(codes)
    for c in take:
        if c not in rest:
            return None
        rest.remove(c)
    return tuple(rest)
