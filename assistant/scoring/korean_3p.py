"""Korean/Japanese three-player ("vanilla") scoring: additive points, minimum, limit, payments.

The rules are ``shared/rules/korean-3p.md`` §8–§9. Every point item of §8 is one small class below with
a ``key`` into :data:`POINTS`, a name, whether it counts toward the minimum (the "yes" rows) and a
``notes`` test saying how often the hand earns it. Table options are read once into :class:`K3POptions`.

Seats: 0 = East (dealer), 1 = South, 2 = West; the seat wind is ``27 + seat``; there is no round wind.

>>> from assistant.hand import parse_hand
>>> from assistant.tiles import Tile
>>> from assistant.variants import get_variant
>>> k3p = get_variant("korean-3p")
>>> ctx = WinContext(k3p, parse_hand("[777z@1] [222z@2] 123p 456m 9s 9s* | 1f"), Tile(26),
...                  tsumo=False, seat=1, discarder=2)
>>> r = score(ctx)
>>> r.total, r.extra["toward_minimum"], r.net(3)
(6, 3, [0, 12, -12])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from ..analysis import decompositions
from ..hand import validate_hand
from ..tiles import kind_code
from .additive import (
    Reading,
    cannot_win,
    check_win_context,
    check_win_tile,
    choice,
    is_honour,
    readings,
    whole,
)
from .base import Payment, ScoreItem, ScoreResult, WinContext

UNIT = "points"
BAMBOO_TERMINALS = (18, 26)  # 1s, 9s: the only bamboo tiles in the set

# --- values as data --------------------------------------------------------------------------------

POINTS: Mapping[str, int] = {
    "win": 2,
    "self_draw": 1,
    "all_chows": 2,
    "honour_set": 1,
    "own_seat_wind": 1,
    "kong": 1,
    "one_bamboo_set": 1,
    "both_bamboo_sets": 3,
    "both_bamboo_concealed": 6,
    "three_kongs": 1,
    "four_kongs": 6,
    "two_concealed_kongs": 1,
    "three_concealed_kongs": 6,
    "flower": 1,  # k3p.flower_value
    "seven_pairs": 4,
}
"""Points of every §8 item (flowers: the default of ``k3p.flower_value``)."""

KONG_LADDERS: Mapping[str, tuple[tuple[int, str], ...]] = {
    "all": ((3, "three_kongs"), (4, "four_kongs")),
    "concealed": ((2, "two_concealed_kongs"), (3, "three_concealed_kongs")),
}
"""§8 kong-count lines: (how many kongs, item key). Four concealed kongs is the limit, outright."""

NAMES: Mapping[str, str] = {
    "three_kongs": "Three kongs", "four_kongs": "Four kongs",
    "two_concealed_kongs": "Two concealed kongs", "three_concealed_kongs": "Three concealed kongs",
}


# --- options -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class K3POptions:
    """The ``k3p.*`` options the scorer reads, checked once (ValueError names a bad value)."""

    seven_pairs: bool
    tsumo_counts: bool
    min_points: int
    limit: int
    flower_value: int

    @classmethod
    def from_context(cls, ctx: WinContext) -> K3POptions:
        return cls(
            seven_pairs=_seven_pairs_enabled(ctx.option("special_hands")),
            tsumo_counts=bool(choice(ctx, "tsumo_counts_to_minimum", (True, False))),
            min_points=whole(ctx, "min_points", 0, 1000),
            limit=whole(ctx, "limit", 1, 1000),
            flower_value=choice(ctx, "flower_value", (1, 0)),
        )


def _seven_pairs_enabled(value: object) -> bool:
    """``k3p.special_hands``: "none", "seven_pairs", or a table-defined list of hand names."""
    if value in ("none", None, False, ()):
        return False
    if value == "seven_pairs":
        return True
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        names = set(value)
        unknown = names - {"seven_pairs"}
        if unknown:
            raise ValueError(f"korean-3p option 'special_hands': no scoring is defined for {sorted(unknown)} "
                             "(known: seven_pairs)")
        return "seven_pairs" in names
    raise ValueError(f"korean-3p option 'special_hands' = {value!r}; choose 'none', 'seven_pairs' or a list")


# --- the point items ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Facts:
    """One reading of the winning hand and the win around it."""

    ctx: WinContext
    reading: Reading
    opts: K3POptions


class Item:
    """A point item: ``key`` into :data:`POINTS`, ``name``, ``toward_minimum`` (a "yes" row of §8).

    ``notes(f)`` returns one entry per time the hand earns it (a detail such as the tile, or "").
    """

    key: ClassVar[str]
    name: ClassVar[str]
    toward_minimum: ClassVar[bool] = True

    def notes(self, f: Facts) -> list[str]:
        return [""] if self.met(f) else []

    def met(self, f: Facts) -> bool:
        raise NotImplementedError

    def value(self, f: Facts) -> int:
        return POINTS[self.key]

    def counts(self, f: Facts) -> bool:
        return self.toward_minimum

    def label(self, f: Facts) -> str:
        return self.name


class WinningTheHand(Item):
    key, name, toward_minimum = "win", "Winning the hand", False

    def met(self, f: Facts) -> bool:
        return True


class SelfDraw(Item):
    key, name = "self_draw", "Self-draw win"

    def met(self, f: Facts) -> bool:
        return f.ctx.tsumo

    def counts(self, f: Facts) -> bool:
        return f.opts.tsumo_counts


class AllChowsNoHonours(Item):
    key, name = "all_chows", "All chows and no honour tiles"

    def met(self, f: Facts) -> bool:
        r = f.reading
        return r.form == "standard" and len(r.chows()) == 4 and not any(is_honour(k) for k in r.kinds)


class HonourSet(Item):
    key, name = "honour_set", "Pong/kong of a dragon or wind"

    def notes(self, f: Facts) -> list[str]:
        return [kind_code(s.kinds[0]) for s in f.reading.pungs() if is_honour(s.kinds[0])]


class OwnSeatWind(Item):
    key, name = "own_seat_wind", "Own seat wind"

    def notes(self, f: Facts) -> list[str]:
        return [kind_code(s.kinds[0]) for s in f.reading.pungs() if s.kinds[0] == f.ctx.seat_wind]


class KongPoint(Item):
    key, name = "kong", "Kong"

    def notes(self, f: Facts) -> list[str]:
        return [kind_code(s.kinds[0]) for s in f.reading.kongs()]


class BambooSets(Item):
    """1s/9s pongs or kongs: one = 1; both = 3, or 6 when both are concealed (a pong completed by a
    discard win counts as exposed)."""

    key, name = "one_bamboo_set", "Bamboo pong/kong"

    def _sets(self, f: Facts) -> list[int]:
        r = f.reading
        return [i for i, s in enumerate(r.sets) if s.type != "chow" and s.kinds[0] in BAMBOO_TERMINALS]

    def notes(self, f: Facts) -> list[str]:
        sets = self._sets(f)
        return [" ".join(sorted(kind_code(f.reading.sets[i].kinds[0]) for i in sets))] if sets else []

    def value(self, f: Facts) -> int:
        sets = self._sets(f)
        if len(sets) == 1:
            return POINTS["one_bamboo_set"]
        if all(f.reading.set_concealed(i) for i in sets):
            return POINTS["both_bamboo_concealed"]
        return POINTS["both_bamboo_sets"]

    def label(self, f: Facts) -> str:
        sets = self._sets(f)
        if len(sets) == 1:
            return "One bamboo pong/kong"
        if all(f.reading.set_concealed(i) for i in sets):
            return "Both bamboo pongs/kongs, concealed"
        return "Both bamboo pongs/kongs"


class KongLadder(Item):
    """The single highest kong-count line: 3 / 4 kongs, or 2 / 3 concealed kongs."""

    key, name = "kong_ladder", "Kong count"

    def best(self, f: Facts) -> tuple[str, int] | None:
        kongs = f.reading.kongs()
        counts = {"all": len(kongs), "concealed": sum(1 for s in kongs if s.concealed)}
        lines = [(POINTS[key], key) for ladder, steps in KONG_LADDERS.items()
                 for need, key in steps if counts[ladder] >= need]
        if not lines:
            return None
        value, key = max(lines)
        return key, value

    def notes(self, f: Facts) -> list[str]:
        return ["single highest line"] if self.best(f) else []

    def value(self, f: Facts) -> int:
        best = self.best(f)
        return best[1] if best else 0

    def label(self, f: Facts) -> str:
        best = self.best(f)
        return NAMES[best[0]] if best else self.name


class SevenPairs(Item):
    key, name = "seven_pairs", "Seven pairs"

    def met(self, f: Facts) -> bool:
        return f.reading.form == "seven_pairs"


class Flowers(Item):
    key, name, toward_minimum = "flower", "Flower", False

    def notes(self, f: Facts) -> list[str]:
        return [t.code for t in f.ctx.hand.bonus]

    def value(self, f: Facts) -> int:
        return f.opts.flower_value


class FourConcealedKongs(Item):
    """The limit, outright (§8 stacking rule 4)."""

    key, name = "four_concealed_kongs", "Four concealed kongs"

    def met(self, f: Facts) -> bool:
        return sum(1 for s in f.reading.kongs() if s.concealed) == 4


ITEMS: tuple[Item, ...] = (
    HonourSet(), OwnSeatWind(), KongPoint(), BambooSets(), KongLadder(), AllChowsNoHonours(), SevenPairs(),
    SelfDraw(), WinningTheHand(), Flowers(),
)
LIMIT_ITEM = FourConcealedKongs()


# --- evaluating one reading ------------------------------------------------------------------------------

@dataclass
class Evaluation:
    reading: Reading
    items: list[ScoreItem]
    counted: int  # points toward the minimum
    raw: int  # sum before the limit
    total: int
    legal: bool
    limit: str | None

    @property
    def rank(self) -> tuple[int, int, int]:
        return (int(self.legal), self.total, self.counted)


def evaluate(f: Facts) -> Evaluation:
    """Points of one reading: every item, the minimum from the "yes" rows, the limit."""
    limit = f.opts.limit
    if LIMIT_ITEM.met(f):
        item = ScoreItem(LIMIT_ITEM.name, limit, UNIT, "the limit, outright")
        return Evaluation(f.reading, [item], limit, limit, limit, True, "limit")
    items: list[ScoreItem] = []
    counted = 0
    for it in ITEMS:
        for note in it.notes(f):
            value = it.value(f)
            name = it.label(f)
            toward = it.counts(f)
            items.append(ScoreItem(name, value, UNIT, note if toward else (note + " " if note else "")
                                   + "not toward the minimum"))
            counted += value if toward else 0
    raw = sum(i.value for i in items)
    total = min(raw, limit)
    return Evaluation(f.reading, items, counted, raw, total, counted >= f.opts.min_points,
                      "limit" if raw > limit else None)


# --- the scorer --------------------------------------------------------------------------------------------

def _check(ctx: WinContext) -> None:
    for m in ctx.hand.melds:
        if m.type == "chow":
            raise ValueError(f"{m.format()}: korean-3p has no chow calls (only the winning tile may complete a chow)")
    if ctx.rinshan and not any(m.is_kong for m in ctx.hand.melds):
        raise ValueError("a win on a kong replacement (rinshan) needs a declared kong among the melds")


def score(ctx: WinContext) -> ScoreResult:
    """Score a korean-3p win (§8–§9), choosing the reading worth most points.

    Raises :class:`~assistant.errors.TileError` for a hand that cannot exist and ValueError for a win
    that cannot have happened. A hand that exists but cannot win (not complete, below the minimum) gives
    ``legal=False`` and a "cannot win: ..." verdict. A robbed kong tile is the robber's only copy of it
    (checked), so it always completes a chow: §5's chow-only robbing needs no further test here.
    """
    opts = K3POptions.from_context(ctx)
    check_win_context(ctx)
    _check(ctx)
    validate_hand(ctx.hand, ctx.variant, sizes=(ctx.variant.full_hand_size,))
    check_win_tile(ctx)
    # the table's options decide the shapes (k3p.special_hands adds seven pairs to the rule system)
    decs = decompositions(ctx.hand, ctx.variant.with_options(dict(ctx.options)))
    reads = readings(ctx.hand, decs, ctx.win_tile.kind, ctx.tsumo)
    if not reads:
        return cannot_win("the hand is not complete (no reading as four sets and a pair"
                          + (" or seven pairs)" if opts.seven_pairs else ")"), UNIT)
    best = max((evaluate(Facts(ctx, r, opts)) for r in reads), key=lambda e: e.rank)
    extra = {"toward_minimum": best.counted}
    if not best.legal:
        note = "the 2 for winning and flowers don't count"
        if opts.tsumo_counts and not ctx.tsumo:
            note += "; a self-draw would add 1"
        return cannot_win(f"{best.counted} below the minimum of {opts.min_points} points ({note})", UNIT,
                          items=best.items, total=best.raw, reading=best.reading.format(),
                          explanation=_explain(best), extra=extra)
    if ctx.tsumo:
        pays = [Payment(s, ctx.seat, best.total, "win") for s in range(ctx.players) if s != ctx.seat]
    else:
        assert ctx.discarder is not None
        pays = [Payment(ctx.discarder, ctx.seat, 2 * best.total, "win")]
    how = ("self-draw: each other player pays the total" if ctx.tsumo else
           ("robbed kong: the kong owner pays 2 x total" if ctx.chankan else "discard: the discarder pays 2 x total"))
    return ScoreResult(
        legal=True, verdict=f"win: {best.total} points", items=best.items, total=best.total, unit=UNIT,
        limit=best.limit, payments=pays, reading=best.reading.format(),
        explanation=f"{_explain(best)}; {how}", extra=extra,
    )


def _explain(e: Evaluation) -> str:
    text = " + ".join(f"{i.name} {i.value}" for i in e.items)
    text += f" = {e.raw}" + (f", cut to the limit {e.total}" if e.raw > e.total else "")
    return f"{text}; {e.counted} toward the minimum"
