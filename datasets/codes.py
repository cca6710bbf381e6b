"""Tile codes used by the dataset tools (see ``shared/rules/README.md`` section 2).

The 55 kinds a recogniser must tell apart: the 34 standard kinds, three red fives, eight
flowers/seasons, four animals, four faces, the joker and the tile back.
"""

from __future__ import annotations

SUIT_CODES: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in "mps" for rank in range(1, 10))
RED_FIVES: tuple[str, ...] = ("0m", "0p", "0s")
HONOUR_CODES: tuple[str, ...] = tuple(f"{rank}z" for rank in range(1, 8))
BONUS_CODES: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in "fgah" for rank in range(1, 5))
JOKER = "jk"
BACK = "bk"

#: Every tile kind, in canonical order (m, p, s with red fives, z, f, g, a, h, jk, bk).
TILE_CODES: tuple[str, ...] = (
    SUIT_CODES[0:4] + ("0m",) + SUIT_CODES[4:9]
    + SUIT_CODES[9:13] + ("0p",) + SUIT_CODES[13:18]
    + SUIT_CODES[18:22] + ("0s",) + SUIT_CODES[22:27]
    + HONOUR_CODES + BONUS_CODES + (JOKER, BACK)
)

#: Codes that can be printed on a tile face (everything but the back).
FACE_CODES: tuple[str, ...] = tuple(c for c in TILE_CODES if c != BACK)


def suit_of(code: str) -> str:
    """Return the suit letter of ``code`` (``m p s z f g a h``), or the code itself for jk/bk."""
    if code in (JOKER, BACK):
        return code
    return code[1]


def rank_of(code: str) -> int:
    """Return the printed rank of ``code`` (a red five counts as 5; 0 for jk/bk)."""
    if code in (JOKER, BACK):
        return 0
    rank = int(code[0])
    return 5 if rank == 0 else rank


def is_red_five(code: str) -> bool:
    """True for ``0m``, ``0p`` and ``0s``."""
    return code in RED_FIVES


assert len(TILE_CODES) == 55 and len(set(TILE_CODES)) == 55
