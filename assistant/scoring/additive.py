"""Machinery shared by the additive scorers (Hong Kong faan, korean-3p points).

Both rule systems score a win by reading the hand every legal way, collecting named items for each
reading and keeping the reading that pays most. What they share lives here:

* :class:`Reading`: one decomposition of the winning hand *with the winning tile placed* in a set or
  the pair. The placement matters where a set completed by a discard win counts as exposed
  (Hong Kong four concealed pungs, korean-3p concealed bamboo sets).
* :func:`readings`: every reading of a complete hand.
* :func:`check_win_context`: the consistency checks every win needs (seats, discarder, win tile).
* :func:`choice` / :func:`whole`: reading a table option with a clear error for a bad value.

>>> from assistant.hand import parse_hand
>>> from assistant.variants import get_variant
>>> from assistant.analysis import decompositions
>>> hk = get_variant("hong-kong")
>>> hand = parse_hand("111m 23m 456p 789p 55s 1m*")
>>> for r in readings(hand, decompositions(hand, hk), 0, tsumo=False):
...     print(r.format(), r.set_concealed(0))
111m 123m 456p 789p 55s (1m* in 111m) False
111m 123m 456p 789p 55s (1m* in 123m) True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..analysis import Decomposition, SetPart
from ..errors import TileError
from ..hand import Hand
from ..tiles import Tile, format_tiles, kind_code
from .base import ScoreResult, WinContext

DRAGONS = (31, 32, 33)
WINDS = (27, 28, 29, 30)


def is_honour(kind: int) -> bool:
    return 27 <= kind < 34


def is_terminal(kind: int) -> bool:
    return kind < 27 and kind % 9 in (0, 8)


def suit_index(kind: int) -> int | None:
    """0 = characters, 1 = dots, 2 = bamboo; None for honours."""
    return kind // 9 if kind < 27 else None


@dataclass(frozen=True)
class Reading:
    """A complete hand read one way, with the winning tile placed.

    ``win_in`` is the index in ``dec.sets`` of the set the winning tile completes, or -1 when it
    completes the pair (or a seven-pairs / thirteen-orphans hand). ``kinds`` lists every playing tile of
    the hand (a kong's four included). ``tsumo`` says whether the winning tile was self-drawn: a
    concealed set completed by a discard (or a robbed kong tile) counts as exposed.
    """

    dec: Decomposition
    win_kind: int
    win_in: int
    tsumo: bool
    kinds: tuple[int, ...]

    @property
    def form(self) -> str:
        return self.dec.form

    @property
    def sets(self) -> tuple[SetPart, ...]:
        return self.dec.sets

    @property
    def pair_kind(self) -> int | None:
        """The pair of a standard hand (None for special forms)."""
        return self.dec.pair[0] if self.form == "standard" else None

    def set_concealed(self, i: int) -> bool:
        """Set ``i`` is concealed: never claimed, and not completed by a discard win."""
        part = self.sets[i]
        if part.meld is not None:
            return part.meld.concealed
        return self.tsumo or i != self.win_in

    def pungs(self) -> list[SetPart]:
        """Pungs and kongs (a kong counts as a pung wherever a pung is asked for)."""
        return [s for s in self.sets if s.type in ("pong", "kong")]

    def kongs(self) -> list[SetPart]:
        return [s for s in self.sets if s.type == "kong"]

    def chows(self) -> list[SetPart]:
        return [s for s in self.sets if s.type == "chow"]

    def format(self) -> str:
        if self.form != "standard":
            return self.dec.format()
        where = tile_codes(self.dec.pair * 2) if self.win_in < 0 else self.sets[self.win_in].format()
        return f"{self.dec.format()} ({kind_code(self.win_kind)}* in {where})"


def hand_kinds(hand: Hand) -> tuple[int, ...]:
    """Every playing tile of a hand: concealed tiles and what each meld tile stands for."""
    out = [t.kind for t in hand.concealed if t.kind < 34]
    for m in hand.melds:
        out.extend(m.kinds)
    return tuple(sorted(out))


def readings(hand: Hand, decs: Iterable[Decomposition], win_kind: int, tsumo: bool) -> list[Reading]:
    """Every (decomposition, winning-tile placement) of a complete hand.

    The winning tile can complete the pair or any set *not* shown as a meld that contains its kind.
    Seven pairs and thirteen orphans have one placement each.
    """
    kinds = hand_kinds(hand)
    out: list[Reading] = []
    for dec in decs:
        if dec.form != "standard":
            out.append(Reading(dec, win_kind, -1, tsumo, kinds))
            continue
        if dec.pair[0] == win_kind:
            out.append(Reading(dec, win_kind, -1, tsumo, kinds))
        seen: set[tuple[str, tuple[int, ...]]] = set()
        for i, part in enumerate(dec.sets):
            if part.meld is None and win_kind in part.kinds and (part.type, part.kinds) not in seen:
                seen.add((part.type, part.kinds))
                out.append(Reading(dec, win_kind, i, tsumo, kinds))
    return out


def check_win_context(ctx: WinContext) -> None:
    """Raise ValueError when the win as described cannot have happened.

    Seat and discarder in range; a self-draw has no discarder, a discard win (or robbed kong) has one
    that is not the winner; the winning tile is a playing tile among the concealed tiles; flags that
    need a self-draw (last tile, kong replacement) or a discard (last discard, robbing a kong) agree.
    """
    n = ctx.players
    if not 0 <= ctx.seat < n:
        raise ValueError(f"seat {ctx.seat} is not a seat of {ctx.variant.name} (0-{n - 1})")
    if ctx.tsumo:
        if ctx.discarder is not None:
            raise ValueError(f"a self-drawn win has no discarder (got discarder={ctx.discarder})")
    else:
        if ctx.discarder is None:
            raise ValueError("a win on a discard (or a robbed kong) needs the discarder's seat")
        if not 0 <= ctx.discarder < n or ctx.discarder == ctx.seat:
            raise ValueError(f"discarder {ctx.discarder} must be another seat (0-{n - 1}, not {ctx.seat})")
    for flag, needs_tsumo, what in (
        ("haitei", True, "last-tile win (haitei) is a self-draw"),
        ("rinshan", True, "kong-replacement win (rinshan) is a self-draw"),
        ("after_two_kongs", True, "win after two successive kongs is a self-draw"),
        ("houtei", False, "last-discard win (houtei) is a win on a discard"),
        ("chankan", False, "robbing a kong (chankan) is a win on the kong tile, not a self-draw"),
    ):
        if getattr(ctx, flag) and ctx.tsumo != needs_tsumo:
            raise ValueError(f"inconsistent flags: a {what}")
    for m in ctx.hand.melds:
        if m.source is not None and m.source >= n:
            raise ValueError(f"{m.format()}: @{m.source} points past the {n} players (use 1-{n - 1})")
    if ctx.liable is not None and (not 0 <= ctx.liable < n or ctx.liable == ctx.seat):
        raise ValueError(f"liable seat {ctx.liable} must be another seat (0-{n - 1}, not {ctx.seat})")


def check_win_tile(ctx: WinContext) -> None:
    """The winning tile is a playing tile of the concealed part (and agrees with a ``*`` in the hand).

    When robbing a kong the other three copies are in the kong, so the hand holds exactly one.
    """
    tile = ctx.win_tile
    if not tile.is_playing:
        raise TileError(tile.code, 0, "the winning tile must be a suited or honour tile")
    if ctx.hand.win_tile is not None and ctx.hand.win_tile.kind != tile.kind:
        raise TileError(tile.code, 0, f"the hand marks {ctx.hand.win_tile.code}* as the winning tile, not {tile.code}")
    held = sum(1 for t in ctx.hand.concealed if t.kind == tile.kind)
    if held == 0:
        raise TileError(tile.code, 0, "the winning tile must be among the concealed tiles (list it in the hand)")
    if ctx.chankan and held > 1:
        raise TileError(tile.code, 0, f"a robbed kong tile is the robber's only {tile.code}: the other three "
                                      f"copies are in the kong (the hand holds {held})")


def choice(ctx: WinContext, key: str, allowed: Sequence[Any]) -> Any:
    """The option ``key``, checked against ``allowed`` (ValueError naming the choices otherwise)."""
    value = ctx.option(key)
    if value not in allowed:
        raise ValueError(f"{ctx.variant.name} option {key!r} = {value!r}; choose one of {list(allowed)}")
    return value


def whole(ctx: WinContext, key: str, low: int, high: int) -> int:
    """An integer option in ``low..high`` (ValueError otherwise)."""
    value = ctx.option(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{ctx.variant.name} option {key!r} = {value!r}; expected a whole number {low}-{high}")
    return value


def money(x: Fraction | int) -> int | float:
    """A payment amount: an int when whole, else the exact half (e.g. 0.5) as a float."""
    x = Fraction(x)
    return int(x) if x.denominator == 1 else float(x)


def cannot_win(reason: str, unit: str, **fields: Any) -> ScoreResult:
    """An illegal win: ``legal`` False and the verdict "cannot win: ..."."""
    return ScoreResult(legal=False, verdict=f"cannot win: {reason}", unit=unit, **fields)


def tile_codes(kinds: Iterable[int]) -> str:
    """Compact code of some tile kinds: ``tile_codes([4, 4]) == '55m'``."""
    return format_tiles([Tile(k) for k in kinds])
