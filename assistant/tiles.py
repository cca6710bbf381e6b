"""Tiles and the notation of ``shared/rules/README.md`` §2.

A tile is a :class:`Tile`: an integer *kind* (the recommended ids of §2.4: 0–8 = 1m–9m, 9–17 = 1p–9p,
18–26 = 1s–9s, 27–33 = 1z–7z, 34–37 = 1f–4f, 38–41 = 1g–4g, 42–45 = 1a–4a, 46–49 = 1h–4h, 50 = jk,
51 = bk) plus a ``red`` flag for red fives. Instances are interned, so ``Tile.of(13) is Tile.of(13)``.

>>> format_tiles(parse_tiles("77z123m 0p456p"))
'123m4056p77z'
>>> [t.code for t in parse_tiles("jkjk5p")]
['jk', 'jk', '5p']
>>> parse_tiles("12x")
Traceback (most recent call last):
...
assistant.errors.TileError: bad tile token '12x' at position 0: unknown suit letter 'x'
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import TileError

SUITS = "mpszfgah"
SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27, "f": 34, "g": 38, "a": 42, "h": 46}
SUIT_SIZE = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 4, "g": 4, "a": 4, "h": 4}
JOKER = 50
BACK = 51
N_KINDS = 52
N_PLAYING = 34  # suited tiles and honours: the kinds that form sets

WIND_NAMES = {27: "East", 28: "South", 29: "West", 30: "North"}
DRAGON_NAMES = {31: "White", 32: "Green", 33: "Red"}


class Tile:
    """One tile: ``kind`` (0–51) and ``red`` (a red five). Immutable and interned."""

    __slots__ = ("kind", "red", "code")
    _cache: dict[tuple[int, bool], Tile] = {}

    kind: int
    red: bool
    code: str

    def __new__(cls, kind: int, red: bool = False) -> Tile:
        key = (kind, red)
        tile = cls._cache.get(key)
        if tile is not None:
            return tile
        if not 0 <= kind < N_KINDS:
            raise TileError(str(kind), 0, "tile id out of range 0-51")
        if red and kind not in (4, 13, 22):
            raise TileError(str(kind), 0, "only a 5 of m, p or s can be red")
        tile = object.__new__(cls)
        object.__setattr__(tile, "kind", kind)
        object.__setattr__(tile, "red", red)
        object.__setattr__(tile, "code", _code_of(kind, red))
        cls._cache[key] = tile
        return tile

    @classmethod
    def of(cls, kind: int, red: bool = False) -> Tile:
        return cls(kind, red)

    @classmethod
    def from_code(cls, code: str) -> Tile:
        tile = _BY_CODE.get(code) if isinstance(code, str) else None
        if tile is not None:   # tiles are immutable and unique per (kind, red): a code names one for good
            return tile
        tiles = parse_tiles(code)
        if len(tiles) != 1:
            raise TileError(code, 0, "expected exactly one tile")
        if len(_BY_CODE) < 1024:
            _BY_CODE[code] = tiles[0]
        return tiles[0]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    def __reduce__(self):
        return (Tile, (self.kind, self.red))

    def __repr__(self) -> str:
        return f"Tile({self.code})"

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: Tile) -> bool:
        return sort_key(self) < sort_key(other)

    # --- classification -------------------------------------------------------------
    @property
    def suit(self) -> str:
        return suit_of(self.kind)

    @property
    def rank(self) -> int:
        """1-based number within its suit (5 for a red five)."""
        return rank_of(self.kind)

    @property
    def is_suited(self) -> bool:
        return self.kind < 27

    @property
    def is_honour(self) -> bool:
        return 27 <= self.kind < 34

    @property
    def is_terminal(self) -> bool:
        return self.kind < 27 and self.kind % 9 in (0, 8)

    @property
    def is_bonus(self) -> bool:
        return 34 <= self.kind < 50

    @property
    def is_playing(self) -> bool:
        return self.kind < N_PLAYING


def suit_of(kind: int) -> str:
    if kind == JOKER or kind == BACK:
        return ""
    for s in SUITS:
        if SUIT_BASE[s] <= kind < SUIT_BASE[s] + SUIT_SIZE[s]:
            return s
    raise TileError(str(kind), 0, "tile id out of range 0-51")


def rank_of(kind: int) -> int:
    s = suit_of(kind)
    return kind - SUIT_BASE[s] + 1 if s else 0


def kind_code(kind: int) -> str:
    """Code of a tile kind, ignoring redness: ``kind_code(13) == '5p'``."""
    return _code_of(kind, False)


def _code_of(kind: int, red: bool) -> str:
    if kind == JOKER:
        return "jk"
    if kind == BACK:
        return "bk"
    s = suit_of(kind)
    return f"{0 if red else rank_of(kind)}{s}"


#: codes already read by :meth:`Tile.from_code` (bounded: spaced or odd spellings of a code are kept too)
_BY_CODE: dict[str, Tile] = {}


def sort_key(tile: Tile) -> tuple[int, int]:
    """Canonical order: by kind, a red five immediately before the plain five."""
    return (tile.kind, 0 if tile.red else 1)


def _check_token(digit: str, suit: str, token: str, pos: int) -> Tile:
    d = int(digit)
    if d == 0:
        if suit not in "mps":
            raise TileError(token, pos, f"0{suit} is not a tile (only 0m, 0p, 0s are red fives)")
        return Tile(SUIT_BASE[suit] + 4, True)
    if d > SUIT_SIZE[suit]:
        raise TileError(token, pos, f"{d}{suit} is not a tile (suit '{suit}' has 1-{SUIT_SIZE[suit]})")
    return Tile(SUIT_BASE[suit] + d - 1)


def parse_tiles(text: str) -> list[Tile]:
    """Parse compact or spaced codes (``123m456p77z``, ``1m 2m 3m``, ``0p``, ``jk``, ``bk``).

    Whitespace is ignored. Raises :class:`TileError` naming the bad token and its position (0-based
    character offset in ``text``). The result keeps the input order.
    """
    tiles: list[Tile] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace() or c == ",":
            i += 1
            continue
        if text.startswith("jk", i) or text.startswith("bk", i):
            tiles.append(Tile(JOKER if c == "j" else BACK))
            i += 2
            continue
        if c.isdigit():
            j = i
            digits: list[tuple[str, int]] = []
            while j < n and (text[j].isdigit() or text[j].isspace()):
                if text[j].isdigit():
                    digits.append((text[j], j))
                j += 1
            if j >= n:
                raise TileError(text[i:j].strip(), i, "digits without a suit letter")
            suit = text[j]
            token = text[i : j + 1].replace(" ", "")
            if suit not in SUITS:
                raise TileError(token, i, f"unknown suit letter '{suit}'")
            for d, pos in digits:
                tiles.append(_check_token(d, suit, d + suit, pos))
            i = j + 1
            continue
        end = i + 1
        while end < n and not text[end].isspace() and not text[end].isdigit():
            end += 1
        raise TileError(text[i:end], i, "expected digits followed by a suit letter, or jk / bk")
    return tiles


def format_tiles(tiles: Iterable[Tile], spaced: bool = False) -> str:
    """Canonical compact form (or space-separated codes with ``spaced``), sorted m p s z f g a h jk bk."""
    ordered = sorted(tiles, key=sort_key)
    if spaced:
        return " ".join(t.code for t in ordered)
    out: list[str] = []
    run_suit = ""
    run: list[str] = []
    for t in ordered:
        s = t.suit
        if not s:
            if run:
                out.append("".join(run) + run_suit)
                run, run_suit = [], ""
            out.append(t.code)
            continue
        if s != run_suit and run:
            out.append("".join(run) + run_suit)
            run = []
        run_suit = s
        run.append(t.code[0])
    if run:
        out.append("".join(run) + run_suit)
    return "".join(out)


def counts34(tiles: Iterable[Tile]) -> list[int]:
    """Counts per playing kind (0–33); jokers, backs and bonus tiles are not counted."""
    c = [0] * N_PLAYING
    for t in tiles:
        if t.kind < N_PLAYING:
            c[t.kind] += 1
    return c


def tiles_from_counts(counts: Iterable[int]) -> list[Tile]:
    return [Tile(k) for k, n in enumerate(counts) for _ in range(n)]


def dora_from_indicator(indicator_kind: int, present_kinds: frozenset[int] | set[int]) -> int:
    """The dora kind an indicator points to, wrapping within its group over the kinds in play.

    Sanma's ``1m`` indicator makes ``9m`` the dora because 2m–8m are not in the set.
    """
    s = suit_of(indicator_kind)
    base, size = SUIT_BASE[s], SUIT_SIZE[s]
    if s == "z":
        base, size = (27, 4) if indicator_kind < 31 else (31, 3)
    k = indicator_kind
    for _ in range(size):
        k = base + (k - base + 1) % size
        if k in present_kinds:
            return k
    return indicator_kind


ALL_CODES: tuple[str, ...] = tuple(
    [kind_code(k) for k in range(N_KINDS)] + ["0m", "0p", "0s"]
)
