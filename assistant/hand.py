"""Hands and melds in the notation of ``shared/rules/README.md`` §2.3, with validation per rule system.

>>> h = parse_hand("123p456p jk 55p [777z@1] | 1a2h4f")
>>> h.format()
'12345556p jk [777z@1] | 4f1a2h'
>>> [m.type for m in h.melds], h.melds[0].source
(['pong'], 1)

A ``bk`` among the concealed tiles is a tile seen face down: one tile whose face is not known (another
player's hand as a camera sees it). It counts towards the hand size but never towards the copies of a
kind; :func:`validate_hand` accepts it only when asked to (``hidden=True``), because no analysis can
read an unknown tile.

>>> h = parse_hand("bkbkbk 5p5p [777z@1] bkbkbkbkbk")
>>> h.format(), h.hidden, h.tile_count, [t.code for t in h.known_concealed]
('55p bkbkbkbkbkbkbkbk [777z@1]', 8, 13, ['5p', '5p'])
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .errors import TileError
from .tiles import BACK, JOKER, Tile, format_tiles, kind_code, parse_tiles, sort_key
from .variants import RuleSystem

MELD_TYPES = ("chow", "pong", "kong")


@dataclass(frozen=True)
class Meld:
    """A shown (or concealed-kong) set.

    ``tiles`` are the physical tiles (jokers included); ``stands_for`` gives, position by position,
    the tile each one counts as (a joker's assigned tile, else the tile itself). ``source`` is the
    number of seats back the claimed tile came from (1 = previous player), or None.
    """

    type: str
    tiles: tuple[Tile, ...]
    stands_for: tuple[Tile, ...]
    concealed: bool = False
    added: bool = False
    source: int | None = None

    @property
    def kinds(self) -> tuple[int, ...]:
        return tuple(t.kind for t in self.stands_for)

    @property
    def base_kind(self) -> int:
        return min(self.kinds)

    @property
    def jokers(self) -> int:
        return sum(1 for t in self.tiles if t.kind == JOKER)

    @property
    def is_kong(self) -> bool:
        return self.type == "kong"

    @property
    def is_open(self) -> bool:
        return not self.concealed

    def format(self) -> str:
        parts = []
        plain = [t for t, s in zip(self.tiles, self.stands_for, strict=True) if t.kind != JOKER]
        body = format_tiles(plain)
        jokers = [f"jk={s.code}" for t, s in zip(self.tiles, self.stands_for, strict=True) if t.kind == JOKER]
        parts.append(" ".join([body] + jokers) if jokers else body)
        inner = parts[0]
        if self.concealed:
            return f"({inner})"
        suffix = (f"@{self.source}" if self.source is not None else "") + ("+" if self.added else "")
        if self.type == "chow":
            return f"{{{inner}{suffix}}}"
        return f"[{inner}{suffix}]"


def make_meld(
    tiles: Sequence[Tile],
    stands_for: Sequence[Tile] | None = None,
    *,
    concealed: bool = False,
    added: bool = False,
    source: int | None = None,
    text: str = "",
    position: int = 0,
) -> Meld:
    """Build a meld, checking its shape (chow / pong / kong). Raises TileError when it is none."""
    stands = tuple(stands_for) if stands_for is not None else tuple(tiles)
    label = text or format_tiles(tiles)
    if any(t.kind == JOKER for t in stands):
        raise TileError(label, position, "a joker in a meld must say what it stands for, e.g. jk=6p")
    if any(t.kind >= 34 for t in stands):
        raise TileError(label, position, "only suited tiles and honours form sets")
    kinds = sorted(t.kind for t in stands)
    n = len(kinds)
    if n == 3 and kinds[0] == kinds[2]:
        mtype = "pong"
    elif n == 4 and kinds[0] == kinds[3]:
        mtype = "kong"
    elif (
        n == 3 and kinds[0] < 27 and kinds[1] == kinds[0] + 1 and kinds[2] == kinds[0] + 2
        and kinds[0] // 9 == kinds[2] // 9
    ):
        mtype = "chow"
    else:
        raise TileError(label, position, "a meld must be a chow (3 in a row), pong (3 alike) or kong (4 alike)")
    if concealed and mtype != "kong":
        raise TileError(label, position, "only a kong can be shown concealed in ( )")
    if added and mtype != "kong":
        raise TileError(label, position, "'+' marks an added kong; this meld is not a kong")
    order = sorted(range(n), key=lambda i: sort_key(stands[i]))
    return Meld(
        type=mtype,
        tiles=tuple(tiles[i] for i in order),
        stands_for=tuple(stands[i] for i in order),
        concealed=concealed,
        added=added,
        source=source,
    )


@dataclass(frozen=True)
class Hand:
    """A player's tiles: the concealed part, the melds, the bonus area and (optionally) the winning tile.

    The winning tile, when given, is *also* in ``concealed`` (a complete hand lists all its tiles).
    ``positions`` maps each concealed tile to its character offset in the parsed text, for error messages.
    """

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...] = ()
    bonus: tuple[Tile, ...] = ()
    win_tile: Tile | None = None
    positions: tuple[int, ...] = field(default=(), compare=False, repr=False)

    @property
    def tile_count(self) -> int:
        """Tiles counted towards hand size: concealed tiles plus three per meld (a kong's 4th is extra)."""
        return len(self.concealed) + 3 * len(self.melds)

    @property
    def hidden(self) -> int:
        """How many concealed tiles are face down (``bk``): tiles whose faces are not known."""
        return sum(1 for t in self.concealed if t.kind == BACK)

    @property
    def is_known(self) -> bool:
        """Every concealed tile is known (no ``bk``)."""
        return all(t.kind != BACK for t in self.concealed)

    @property
    def known_concealed(self) -> tuple[Tile, ...]:
        """The concealed tiles whose faces are known (every tile but the ``bk`` ones)."""
        return tuple(t for t in self.concealed if t.kind != BACK)

    def all_tiles(self) -> list[Tile]:
        """Every physical tile of the hand: concealed, melds, bonus."""
        out = list(self.concealed)
        for m in self.melds:
            out.extend(m.tiles)
        out.extend(self.bonus)
        return out

    def format(self) -> str:
        """The hand in notation; a marked winning tile is shown once, last, as ``5p*``."""
        concealed = list(self.concealed)
        if self.win_tile is not None and self.win_tile in concealed:
            concealed.remove(self.win_tile)
        parts = [format_tiles([t for t in concealed if t.kind not in (JOKER, BACK)])]
        jokers = sum(1 for t in concealed if t.kind == JOKER)
        parts.extend(["jk"] * jokers)
        parts.append("bk" * sum(1 for t in concealed if t.kind == BACK))
        parts.extend(m.format() for m in self.melds)
        text = " ".join(p for p in parts if p)
        if self.bonus:
            text += " | " + format_tiles(self.bonus)
        if self.win_tile is not None:
            text += f" {self.win_tile.code}*"
        return text


_MELD_RE = re.compile(r"([\[\{\(])([^\]\}\)]*)([\]\}\)])")
_JOKER_RE = re.compile(r"jk=(\d[mpsz])")
_SUFFIX_RE = re.compile(r"(@\d+)?(\+)?\s*$")
_CLOSERS = {"[": "]", "{": "}", "(": ")"}


def parse_meld(text: str, position: int = 0) -> Meld:
    """Parse one meld: ``[777z@1]``, ``{345p@1}``, ``[5555p+]``, ``(5555p)``, ``{45p jk=6p@1}``."""
    text = text.strip()
    if len(text) < 2 or text[0] not in _CLOSERS or text[-1] != _CLOSERS[text[0]]:
        raise TileError(text, position, "a meld is written [..], {..} or (..)")
    opener, inner = text[0], text[1:-1]
    source: int | None = None
    added = False
    m = _SUFFIX_RE.search(inner)
    if m and (m.group(1) or m.group(2)):
        added = bool(m.group(2))
        if m.group(1):
            source = int(m.group(1)[1:])
            if source < 1 or source > 3:
                raise TileError(text, position, "@k must be 1, 2 or 3 seats back")
        inner = inner[: m.start()]
    tiles: list[Tile] = []
    stands: list[Tile] = []
    for jm in _JOKER_RE.finditer(inner):
        tiles.append(Tile(JOKER))
        stands.append(parse_tiles(jm.group(1))[0])
    rest = _JOKER_RE.sub(" ", inner)
    try:
        plain = parse_tiles(rest)
    except TileError as e:
        raise TileError(e.token, position + 1 + e.position, e.reason) from None
    if any(t.kind == JOKER for t in plain):
        raise TileError(text, position, "write a joker in a meld as jk=TILE (what it stands for)")
    tiles = plain + tiles
    stands = plain + stands
    if opener == "{" and len(tiles) != 3:
        raise TileError(text, position, "{..} is a chow of three tiles")
    meld = make_meld(
        tiles, stands, concealed=opener == "(", added=added, source=source, text=text, position=position
    )
    if opener == "{" and meld.type != "chow":
        raise TileError(text, position, "{..} is for chows; write pongs and kongs in [..]")
    if opener == "[" and meld.type == "chow":
        raise TileError(text, position, "write a chow in {..}")
    return meld


def parse_hand(text: str, melds: Iterable[str] = ()) -> Hand:
    """Parse a whole hand: concealed tiles, melds, ``| bonus``, and a ``*`` winning tile.

    Extra ``melds`` (each in meld notation) may be passed separately, as the CLI's ``--melds`` does.
    Validation against a rule system is separate: :func:`validate_hand`.
    """
    concealed: list[Tile] = []
    positions: list[int] = []
    meld_list: list[Meld] = []
    bonus: list[Tile] = []
    win_tile: Tile | None = None
    main, sep, bonus_text = text.partition("|")
    if "|" in bonus_text:
        raise TileError("|", len(main) + 1 + bonus_text.index("|"), "only one '|' may separate the bonus area")
    cursor = 0
    for m in _MELD_RE.finditer(main):
        _parse_plain(main[cursor : m.start()], cursor, concealed, positions)
        meld_list.append(parse_meld(m.group(0), m.start()))
        cursor = m.end()
    _parse_plain(main[cursor:], cursor, concealed, positions)
    star = [i for i, ch in enumerate(text) if ch == "*"]
    if len(star) > 1:
        raise TileError("*", star[1], "only one winning tile may be marked with *")
    if star:
        # the tile just before '*' is the winning tile
        idx = max((i for i, p in enumerate(positions) if p < star[0]), default=None)
        if idx is None:
            raise TileError("*", star[0], "'*' must follow the winning tile")
        win_tile = concealed[idx]
    if sep:
        offset = len(main) + 1
        try:
            bonus = parse_tiles(bonus_text)
        except TileError as e:
            raise TileError(e.token, offset + e.position, e.reason) from None
    for m in melds:
        meld_list.append(parse_meld(m))
    return Hand(tuple(concealed), tuple(meld_list), tuple(bonus), win_tile, tuple(positions))


def _parse_plain(chunk: str, offset: int, out: list[Tile], positions: list[int]) -> None:
    for ch_i, ch in enumerate(chunk):
        if ch in "[]{}()@+=":
            raise TileError(ch, offset + ch_i, "unbalanced or misplaced meld bracket")
    cleaned = chunk.replace("*", " ")
    try:
        tiles = parse_tiles(cleaned)
    except TileError as e:
        raise TileError(e.token, offset + e.position, e.reason) from None
    # recover positions: each tile's digit (or the 'j'/'b' of jk/bk)
    pos: list[int] = []
    i = 0
    while i < len(cleaned):
        c = cleaned[i]
        if cleaned.startswith(("jk", "bk"), i):
            pos.append(offset + i)
            i += 2
            continue
        if c.isdigit():
            pos.append(offset + i)
        i += 1
    out.extend(tiles)
    positions.extend(pos[: len(tiles)])


def hand_from_tiles(tiles: Sequence[Tile], melds: Sequence[Meld] = (), bonus: Sequence[Tile] = ()) -> Hand:
    return Hand(tuple(tiles), tuple(melds), tuple(bonus), None, tuple(range(len(tiles))))


def validate_hand(hand: Hand, variant: RuleSystem, sizes: Iterable[int] | Literal["rules"] | None = "rules",
                  visible: Sequence[Tile] = (), hidden: bool = False) -> None:
    """Raise :class:`TileError` if the hand cannot exist in ``variant``.

    Checks: every tile is in the variant's set; no bonus tile, back or (outside jokers' variants) joker
    among the concealed tiles; no kind used more often than the set has copies (hand, melds, bonus and
    ``visible`` together); red fives within the set's red copies; jokers obey the variant's limits in
    shown sets; the hand size (concealed + 3 per meld) is one of ``sizes`` (by default the rule system's
    :attr:`~assistant.variants.RuleSystem.hand_sizes`: waiting or about to discard; None: any size).

    ``hidden``: the concealed tiles may include face-down ``bk`` tiles (a hand seen from across the
    table); each counts towards the hand size and never towards the copies of a kind.
    """
    name = variant.name
    positions = hand.positions or tuple(range(len(hand.concealed)))
    for t, pos in zip(hand.concealed, positions, strict=False):
        if t.kind == BACK:
            if hidden:
                continue
            raise TileError(t.code, pos, "a face-down tile (bk) cannot be analysed; name the tile")
        if t.is_bonus:
            raise TileError(t.code, pos, f"bonus tile {t.code} cannot be inside a concealed hand; put it after '|'")
        _check_in_set(t, pos, variant)
    for m in hand.melds:
        if m.type == "chow" and not variant.can_chow:
            raise TileError(m.format(), 0, f"a chow, but {variant.title} has no chow (only pongs and kongs are "
                                           "called)")
        for t in list(m.tiles) + list(m.stands_for):
            if t.kind not in variant.copies or (t.red and not variant.red_fives.get(t.kind)) or t.kind == JOKER:
                _check_in_set(t, 0, variant, label=m.format())
        if m.jokers:
            rules = variant.jokers
            assert rules is not None  # _check_in_set already rejected jokers elsewhere
            if m.is_kong:
                raise TileError(m.format(), 0, "a joker can never be part of a kong")
            if m.jokers > rules.max_in_shown_set:
                raise TileError(m.format(), 0, f"a shown set may hold at most {rules.max_in_shown_set} joker")
    for t in hand.bonus:
        if not (t.is_bonus or t.kind == JOKER or t.kind == 30):
            raise TileError(t.code, 0, f"{t.code} is not a bonus tile (the bonus area holds flowers, "
                                        "seasons, animals, faces, sunk Fei and set-aside Norths)")
        _check_in_set(t, 0, variant)
    # copies
    counts: Counter[int] = Counter()
    reds: Counter[int] = Counter()
    for t in hand.all_tiles() + list(visible):
        counts[t.kind] += 1
        if t.red:
            reds[t.kind] += 1
    for kind, n in counts.items():
        if kind == BACK:
            continue
        cap = variant.copies.get(kind, 0)
        if n > cap:
            what = "fifth copy" if cap == 4 else f"{n} copies (the set has {cap})"
            raise TileError(kind_code(kind), _first_pos(hand, kind), f"{what} of {kind_code(kind)}")
    for kind, n in reds.items():
        cap = variant.red_fives.get(kind, 0)
        if n > cap:
            code = Tile(kind, True).code
            raise TileError(code, _first_pos(hand, kind, red=True), f"the {name} set has {cap} {code}")
    for kind, red_copies in variant.red_fives.items():
        plain = counts.get(kind, 0) - reds.get(kind, 0)
        if red_copies and plain > variant.copies[kind] - red_copies:
            code = kind_code(kind)
            plain_copies = variant.copies[kind] - red_copies
            raise TileError(code, _first_pos(hand, kind), f"the {name} set has only {plain_copies} "
                            f"plain {code} (one is the red {Tile(kind, True).code})")
    if sizes is not None:
        sizes = variant.hand_sizes if sizes == "rules" else tuple(sizes)
        if hand.tile_count not in sizes:
            want = " or ".join(str(s) for s in sizes)
            raise TileError(
                hand.format(), 0,
                f"hand has {hand.tile_count} tiles (concealed + 3 per meld); expected {want}",
            )


def _first_pos(hand: Hand, kind: int, red: bool = False) -> int:
    for t, p in zip(hand.concealed, hand.positions or range(len(hand.concealed)), strict=False):
        if t.kind == kind and (t.red or not red):
            return p
    return 0


def _check_in_set(t: Tile, pos: int, variant: RuleSystem, label: str = "") -> None:
    if t.kind == JOKER and not variant.has_jokers:
        raise TileError(label or t.code, pos,
                        f"jk is not in the {variant.name} tile set (jokers exist only in three-kaki)")
    if t.kind not in variant.copies and t.kind != BACK:
        raise TileError(label or t.code, pos, f"{t.code} is not in the {variant.name} tile set")
    if t.red and variant.red_fives.get(t.kind, 0) == 0:
        raise TileError(label or t.code, pos, f"{t.code} is not in the {variant.name} tile set (no red five there)")
