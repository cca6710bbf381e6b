"""Scoring and settlement for Malaysian "3 Kaki" (``shared/rules/three-kaki.md`` §3, §4, §6, §7, §9).

``score(ctx)`` reads every decomposition and Fei (joker) assignment of the winning hand, scores each one
with the fan criteria of §6 and the limit hands L1–L11, keeps the reading with the most fan (then the
best settlement for the winner, F9), and settles it in the three steps of §7: the win (with the
third-dragon trap liability), extra Fei, and the losers' square-up. ``instant_payout(event, seat)``
gives the payments made at once for kongs, complete bonus families and animal "bite" pairs.

Every fan criterion is one small named class below (``FAN_CRITERIA``); every limit hand is one
:class:`LimitHand` in ``LIMIT_HANDS``; the fan values are data (``BONUS_FAN``, ``honour_set_fan``) and
the table options are read once into :class:`KakiOptions`.

Seats: 0 = East (dealer), 1 = South, 2 = West.

>>> from assistant.hand import parse_hand
>>> from assistant.tiles import Tile
>>> from assistant.variants import THREE_KAKI
>>> from assistant.scoring.base import PlayerShown, WinContext
>>> ctx = WinContext(THREE_KAKI, parse_hand("111p 234p 567p 555z 9p9p*"), Tile.from_code("9p"),
...                  tsumo=True, seat=1)
>>> r = score(ctx)
>>> r.total, r.limit, r.net(3)
(10, 'limit', [-24, 48, -24])
>>> [(p.payer, p.amount) for p in instant_payout("concealed_kong", 1)]
[(0, 2), (2, 2)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..analysis import Decomposition, decompositions
from ..hand import Meld, validate_hand
from ..tiles import JOKER, Tile, kind_code
from ..variants import THREE_KAKI
from .base import Payment, PlayerShown, ScoreItem, ScoreResult, WinContext

PLAYERS = 3
DOTS = range(9, 18)
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)
EAST, NORTH = 27, 30
SEAT_NAMES = ("East", "South", "West")

# --- values as data ------------------------------------------------------------------------------

#: Fan of each bonus-tile criterion (§6); also what a loser counts for them in the square-up (§7.3).
BONUS_FAN: Mapping[str, int] = {
    "animal": 1,
    "face": 1,
    "own flower": 1,
    "own season": 1,
    "flower 4": 1,
    "season 4": 1,
    "complete family": 1,
}
#: Fan of the hand criteria of §6 (honour sets: :func:`honour_set_fan`).
HAND_FAN: Mapping[str, int] = {
    "sunk Fei": 1,
    "small three dragons": 3,  # in total (inclusive) or on top of the dragon sets (additive)
    "mixed one suit": 1,
    "pure one suit": 3,
    "all pungs": 2,
    "self-draw on a replacement tile": 1,
    "robbing a kong": 1,
}
#: Bonus-tile families: first kind of each group of four.
FAMILIES: Mapping[str, int] = {"flowers": 34, "seasons": 38, "animals": 42, "faces": 46}
ANIMAL_NAMES: Mapping[int, str] = {42: "cat", 43: "mouse", 44: "rooster", 45: "centipede"}
#: Animal pairs that "bite" (cat+mouse, rooster+centipede).
BITE_PAIRS: tuple[tuple[int, int], ...] = ((42, 43), (44, 45))

INSTANT_EVENTS = (
    "concealed_kong", "exposed_kong", "promoted_kong", "promoted_kong_robbed", "complete_family", "bite_pair",
)
EXPOSED_KONG_MODES = ("each_1", "discarder_2")
BITE_MODES = ("off", "each_1")
SMALL_DRAGON_MODES = ("inclusive", "additive")


def honour_set_fan(kind: int, seat: int) -> int:
    """Fan of a pung/kong of ``kind`` for the player in ``seat`` (§3); 0 for dots and other seats' winds.

    Dragons and North score for everyone, East for everyone and twice for the dealer, South and West
    only for the player sitting there.

    >>> [honour_set_fan(k, 0) for k in (27, 28, 29, 30, 31)], honour_set_fan(28, 1), honour_set_fan(13, 1)
    ([2, 0, 0, 1, 1], 1, 0)
    """
    if kind in DRAGONS or kind == NORTH:
        return 1
    if kind == EAST:
        return 2 if seat == 0 else 1
    if kind in WINDS and kind == EAST + seat:
        return 1
    return 0


def honour_set_name(kind: int) -> str:
    """Item name of an honour set: ``dragon set``, ``East set``, ``North set``, ``own wind set``."""
    if kind in DRAGONS:
        return "dragon set"
    return {EAST: "East set", NORTH: "North set"}.get(kind, "own wind set")


def bonus_tile_item(tile: Tile, seat: int) -> tuple[str, int] | None:
    """The criterion a bonus tile scores under for the player in ``seat``, with its fan; None if none.

    Own flower/season = the number of the seat (East 1, South 2, West 3); ``4f`` and ``4g`` count for
    everyone; every animal and face counts.

    >>> bonus_tile_item(Tile.from_code("3f"), 2), bonus_tile_item(Tile.from_code("2g"), 0)
    (('own flower', 1), None)
    """
    kind = tile.kind
    if 42 <= kind <= 45:
        return "animal", BONUS_FAN["animal"]
    if 46 <= kind <= 49:
        return "face", BONUS_FAN["face"]
    if 34 <= kind <= 41:
        what = "flower" if kind <= 37 else "season"
        rank = tile.rank
        if rank == seat + 1:
            return f"own {what}", BONUS_FAN[f"own {what}"]
        if rank == 4:
            return f"{what} 4", BONUS_FAN[f"{what} 4"]
    return None


def complete_families(bonus: Iterable[Tile]) -> list[str]:
    """Names of the bonus families held complete (all four flowers / seasons / animals / faces)."""
    kinds = {t.kind for t in bonus}
    return [name for name, base in FAMILIES.items() if all(base + i in kinds for i in range(4))]


# --- options -------------------------------------------------------------------------------------


def _int_option(key: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"kaki.{key} must be a whole number >= {minimum}, got {value!r}")
    return value


def _choice_option(key: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ValueError(f"kaki.{key} must be one of {', '.join(choices)}; got {value!r}")
    return value


@dataclass(frozen=True)
class KakiOptions:
    """The table options this module reads (defaults: the variant's ``options``), checked once.

    ``value_m``/``value_s`` give the unit scale V(f) = m + s·(f − min), V(limit) = 3m; the limit must stay
    a jump: s·(limit − min) < 2m (with the defaults, s < 2m/5).
    """

    min: int
    limit: int
    small_dragons: str
    value_m: int
    value_s: int
    fei_unit: int
    square_unit: int
    pay_concealed_kong: int
    pay_exposed_kong: str
    pay_promoted_kong: int
    pay_family: int
    bite_pairs: str

    KEYS: ClassVar[tuple[str, ...]] = (
        "min", "limit", "small_dragons", "value_m", "value_s", "fei_unit", "square_unit",
        "pay_concealed_kong", "pay_exposed_kong", "pay_promoted_kong", "pay_family", "bite_pairs",
    )

    @classmethod
    def read(cls, option: Any) -> KakiOptions:
        """Build from a getter ``option(key) -> value`` (``WinContext.option`` or a mapping lookup)."""
        raw = {key: option(key) for key in cls.KEYS}
        opts = cls(
            min=_int_option("min", raw["min"], 1),
            limit=_int_option("limit", raw["limit"], 1),
            small_dragons=_choice_option("small_dragons", raw["small_dragons"], SMALL_DRAGON_MODES),
            value_m=_int_option("value_m", raw["value_m"], 1),
            value_s=_int_option("value_s", raw["value_s"], 0),
            fei_unit=_int_option("fei_unit", raw["fei_unit"], 0),
            square_unit=_int_option("square_unit", raw["square_unit"], 0),
            pay_concealed_kong=_int_option("pay_concealed_kong", raw["pay_concealed_kong"], 0),
            pay_exposed_kong=_choice_option("pay_exposed_kong", raw["pay_exposed_kong"], EXPOSED_KONG_MODES),
            pay_promoted_kong=_int_option("pay_promoted_kong", raw["pay_promoted_kong"], 0),
            pay_family=_int_option("pay_family", raw["pay_family"], 0),
            bite_pairs=_choice_option("bite_pairs", raw["bite_pairs"], BITE_MODES),
        )
        if opts.limit <= opts.min:
            raise ValueError(f"kaki.limit ({opts.limit}) must be above kaki.min ({opts.min})")
        if opts.value_s * (opts.limit - opts.min) >= 2 * opts.value_m:
            raise ValueError(
                f"kaki.value_s = {opts.value_s} is too large for m = {opts.value_m}: the limit (3m) must pay more "
                f"than an even step would (need s·(limit − min) < 2m)"
            )
        return opts

    @classmethod
    def from_context(cls, ctx: WinContext) -> KakiOptions:
        return cls.read(ctx.option)

    @classmethod
    def from_mapping(cls, overrides: Mapping[str, Any] | None = None) -> KakiOptions:
        """Defaults of the three-kaki variant with ``overrides`` by key (unknown keys raise ValueError)."""
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(THREE_KAKI.options))
        if unknown:
            raise ValueError(f"unknown three-kaki option(s): {', '.join(unknown)}")
        return cls.read(lambda key: overrides.get(key, THREE_KAKI.options[key]))

    def value(self, fan: int, limit: bool) -> int:
        """V(f): m + s·(f − min) below the limit, 3m at the limit (§7)."""
        if limit:
            return 3 * self.value_m
        return self.value_m + self.value_s * (fan - self.min)


def half_up(amount: int) -> int:
    """Half of ``amount``, a half point rounded up (§7 Decision): ``half_up(9) == 5``."""
    return (amount + 1) // 2


# --- one reading of the winning hand -------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """The winning hand read one way (a decomposition with its Fei assignment), with the win's facts."""

    ctx: WinContext
    dec: Decomposition
    bonus: tuple[Tile, ...]  # flowers, seasons, animals, faces (sunk Fei not included)
    sunk: int
    fei: int  # F11: Fei in hand + in shown sets + sunk
    opts: KakiOptions

    @property
    def seat(self) -> int:
        return self.ctx.seat

    @property
    def pung_kinds(self) -> list[int]:
        """Kind of every pung or kong (called, concealed or in hand)."""
        return [s.kinds[0] for s in self.dec.sets if s.type in ("pong", "kong")]

    @property
    def dragon_sets(self) -> list[int]:
        return [k for k in self.pung_kinds if k in DRAGONS]

    @property
    def wind_sets(self) -> list[int]:
        return [k for k in self.pung_kinds if k in WINDS]

    @property
    def pair_kind(self) -> int:
        return self.dec.pair[0]

    @property
    def kinds(self) -> list[int]:
        """Every tile of the hand as it counts (a Fei as the tile it stands for)."""
        out = [k for s in self.dec.sets for k in s.kinds]
        out.extend([self.pair_kind] * 2)
        return out

    @property
    def win_tile_in_pair(self) -> bool:
        """The winning tile can be read as part of the eye (a real tile of the eye's kind)."""
        real_in_pair = 2 - len(self.dec.pair_joker_for)
        return self.ctx.win_tile.kind == self.pair_kind and real_in_pair >= 1

    @property
    def concealed_pungs(self) -> int:
        """Pungs/kongs not claimed; on a discard win a pung the winning tile completes is not concealed."""
        n = sum(1 for s in self.dec.sets if s.type in ("pong", "kong") and s.concealed)
        if not self.ctx.tsumo and not self.win_tile_in_pair:
            n = min(n, 3)  # the winning discard completes one of them
        return n


# --- fan criteria (§6): one small class each -----------------------------------------------------


class Criterion:
    """One fan criterion: ``items(reading)`` gives its score items (empty when it does not apply)."""

    name: ClassVar[str] = ""

    def items(self, r: Reading) -> list[ScoreItem]:  # pragma: no cover - overridden
        raise NotImplementedError


def _fan(name: str, value: int, note: str = "") -> ScoreItem:
    return ScoreItem(name, value, "fan", note)


class BonusTiles(Criterion):
    """Base for the bonus-tile criteria: one item per tile that scores under ``name`` for the winner."""

    def items(self, r: Reading) -> list[ScoreItem]:
        out = []
        for t in sorted(r.bonus):
            hit = bonus_tile_item(t, r.seat)
            if hit is not None and hit[0] == self.name:
                note = f"{t.code} {ANIMAL_NAMES[t.kind]}" if t.kind in ANIMAL_NAMES else t.code
                out.append(_fan(self.name, hit[1], note))
        return out


class Animal(BonusTiles):
    """Each animal ``1a``–``4a``: 1 fan, for anyone."""

    name = "animal"


class Face(BonusTiles):
    """Each face ``1h``–``4h``: 1 fan, for anyone."""

    name = "face"


class OwnFlower(BonusTiles):
    """The flower of the winner's seat number (East 1, South 2, West 3): 1 fan."""

    name = "own flower"


class OwnSeason(BonusTiles):
    """The season of the winner's seat number: 1 fan."""

    name = "own season"


class FlowerFour(BonusTiles):
    """Flower 4 (``4f``): 1 fan for everyone (nobody sits North)."""

    name = "flower 4"


class SeasonFour(BonusTiles):
    """Season 4 (``4g``): 1 fan for everyone."""

    name = "season 4"


class CompleteFamily(Criterion):
    """All four flowers / seasons / animals / faces: +1 per family, on top of the tiles' own fan."""

    name = "complete family"

    def items(self, r: Reading) -> list[ScoreItem]:
        return [_fan(self.name, BONUS_FAN[self.name], fam) for fam in complete_families(r.bonus)]


class SunkFei(Criterion):
    """Each Fei the winner has sunk into the bonus area: 1 fan (F8)."""

    name = "sunk Fei"

    def items(self, r: Reading) -> list[ScoreItem]:
        return [_fan(self.name, HAND_FAN[self.name] * r.sunk, f"{r.sunk} sunk")] if r.sunk else []


class HonourSets(Criterion):
    """Honour pungs/kongs per §3 (a kong counts as a pung, a Fei as the honour it stands for)."""

    name = "honour set"

    def items(self, r: Reading) -> list[ScoreItem]:
        out = []
        for k in r.pung_kinds:
            fan = honour_set_fan(k, r.seat)
            if not fan:
                continue
            out.append(_fan(honour_set_name(k), fan, kind_code(k) + (" dealer" if k == EAST and r.seat == 0 else "")))
        return out


class SmallThreeDragons(Criterion):
    """Two dragon pungs + an eye of the third dragon: 3 fan in total with the two dragon sets (``inclusive``, the
    item adds 1) or 3 on top of them (``additive``: 1 + 1 + 3 = 5), per ``kaki.small_dragons``."""

    name = "small three dragons"

    def items(self, r: Reading) -> list[ScoreItem]:
        if len(r.dragon_sets) != 2 or r.pair_kind not in DRAGONS or r.pair_kind in r.dragon_sets:
            return []
        full = HAND_FAN[self.name]
        if r.opts.small_dragons == "inclusive":
            return [_fan(self.name, full - 2, f"{full} in total with the two dragon sets")]
        return [_fan(self.name, full, "on top of the two dragon sets (additive)")]


class MixedOneSuit(Criterion):
    """Dots and honours only: 1 fan; needs at least one dot and at least one honour (Decision)."""

    name = "mixed one suit"

    def items(self, r: Reading) -> list[ScoreItem]:
        kinds = r.kinds
        has_dot = any(k in DOTS for k in kinds)
        has_honour = any(k >= 27 for k in kinds)
        return [_fan(self.name, HAND_FAN[self.name])] if has_dot and has_honour else []


class PureOneSuit(Criterion):
    """Dots only: 3 fan."""

    name = "pure one suit"

    def items(self, r: Reading) -> list[ScoreItem]:
        return [_fan(self.name, HAND_FAN[self.name])] if all(k in DOTS for k in r.kinds) else []


class AllPungs(Criterion):
    """Four pungs/kongs: 2 fan."""

    name = "all pungs"

    def items(self, r: Reading) -> list[ScoreItem]:
        return [_fan(self.name, HAND_FAN[self.name])] if len(r.pung_kinds) == 4 else []


class ReplacementSelfDraw(Criterion):
    """Self-draw on a replacement tile (after a bonus tile, a kong or a sunk Fei): 1 fan."""

    name = "self-draw on a replacement tile"

    def items(self, r: Reading) -> list[ScoreItem]:
        return [_fan(self.name, HAND_FAN[self.name])] if r.ctx.rinshan and r.ctx.tsumo else []


class RobbingKong(Criterion):
    """Winning on the tile another player adds to a pung (robbing a kong): 1 fan."""

    name = "robbing a kong"

    def items(self, r: Reading) -> list[ScoreItem]:
        return [_fan(self.name, HAND_FAN[self.name])] if r.ctx.chankan else []


FAN_CRITERIA: tuple[Criterion, ...] = (
    Animal(), Face(), OwnFlower(), OwnSeason(), FlowerFour(), SeasonFour(), CompleteFamily(), SunkFei(),
    HonourSets(), SmallThreeDragons(), MixedOneSuit(), PureOneSuit(), AllPungs(), ReplacementSelfDraw(),
    RobbingKong(),
)


# --- limit hands L1–L11 --------------------------------------------------------------------------


@dataclass(frozen=True)
class LimitHand:
    """One limit hand of §6: ``code`` (L1…L11), ``name`` and the test on a reading."""

    code: str
    name: str
    test: Callable[[Reading], bool]

    def applies(self, r: Reading) -> bool:
        return self.test(r)


LIMIT_HANDS: tuple[LimitHand, ...] = (
    LimitHand("L1", "no bonus tiles", lambda r: not r.bonus and r.sunk == 0),
    LimitHand("L2", "all four Fei", lambda r: r.fei == 4),
    LimitHand("L3", "win on the last tile", lambda r: r.ctx.haitei),
    LimitHand("L4", "win on the last discard", lambda r: r.ctx.houtei),
    LimitHand("L5", "first-tile win", lambda r: r.ctx.tenhou or r.ctx.chiihou),
    LimitHand("L6", "great three dragons", lambda r: len(r.dragon_sets) == 3),
    LimitHand("L7", "great four winds", lambda r: len(r.wind_sets) == 4),
    LimitHand("L8", "small four winds", lambda r: len(r.wind_sets) == 3 and r.pair_kind in WINDS
              and r.pair_kind not in r.wind_sets),
    LimitHand("L9", "four kongs", lambda r: sum(1 for s in r.dec.sets if s.type == "kong") == 4),
    LimitHand("L10", "four concealed pungs", lambda r: r.concealed_pungs == 4),
    LimitHand("L11", "win after two consecutive kongs", lambda r: r.ctx.after_two_kongs),
)


@dataclass(frozen=True)
class ReadingScore:
    """A reading's items, its fan before the limit, and its total after the limit."""

    reading: Reading
    items: tuple[ScoreItem, ...]
    fan: int  # sum of the fan items
    limit_hands: tuple[LimitHand, ...]

    @property
    def is_limit(self) -> bool:
        return bool(self.limit_hands) or self.fan >= self.reading.opts.limit

    @property
    def total(self) -> int:
        return self.reading.opts.limit if self.is_limit else self.fan


def score_reading(r: Reading) -> ReadingScore:
    """Apply every fan criterion and limit hand to one reading."""
    fan_items = [item for c in FAN_CRITERIA for item in c.items(r)]
    limits = tuple(lh for lh in LIMIT_HANDS if lh.applies(r))
    limit_items = [ScoreItem(f"{lh.code} {lh.name}", r.opts.limit, "limit") for lh in limits]
    return ReadingScore(r, tuple(limit_items + fan_items), sum(i.value for i in fan_items), limits)


# --- settlement (§7) -----------------------------------------------------------------------------


def melds_fei(melds: Iterable[Meld]) -> int:
    return sum(m.jokers for m in melds)


def _sunk_from(bonus: Sequence[Tile], declared: int, who: str) -> int:
    """Sunk Fei given as a number and/or as ``jk`` in the bonus area; both must agree when both are given."""
    if declared < 0:
        raise ValueError(f"{who}: sunk Fei cannot be negative ({declared})")
    listed = sum(1 for t in bonus if t.kind == JOKER)
    if listed and declared and listed != declared:
        raise ValueError(f"{who}: {listed} jk in the bonus area but {declared} sunk Fei declared")
    return declared or listed


def square_count(shown: PlayerShown, seat: int) -> tuple[int, list[str]]:
    """A loser's square-up count (§7.3) and its parts: bonus tiles' fan to that seat + family bonuses +
    shown (or revealed) honour sets (dealer's East 2) + 2 × Fei (hand + shown sets + sunk)."""
    parts: list[str] = []
    total = 0
    bonus = [t for t in shown.bonus if t.kind != JOKER]
    for t in sorted(bonus):
        hit = bonus_tile_item(t, seat)
        if hit:
            total += hit[1]
            parts.append(f"{hit[0]} {t.code} {hit[1]}")
    for fam in complete_families(bonus):
        total += BONUS_FAN["complete family"]
        parts.append(f"complete family {fam} {BONUS_FAN['complete family']}")
    honour_kinds = [m.kinds[0] for m in shown.melds if m.type in ("pong", "kong")]
    honour_kinds += list(shown.hidden_honour_pongs)
    for k in honour_kinds:
        fan = honour_set_fan(k, seat)
        if fan:
            total += fan
            parts.append(f"{kind_code(k)} set {fan}")
    fei = player_fei(shown, seat)
    if fei:
        total += 2 * fei
        parts.append(f"Fei {fei}×2")
    return total, parts


def player_fei(shown: PlayerShown, seat: int) -> int:
    """A loser's Fei count (F11): in hand + in shown sets + sunk."""
    if shown.fei < 0:
        raise ValueError(f"seat {seat}: Fei in hand cannot be negative ({shown.fei})")
    return shown.fei + _sunk_from(shown.bonus, shown.sunk_fei, f"seat {seat}") + melds_fei(shown.melds)


def win_payments(winner: int, value: int, tsumo: bool, discarder: int | None, liable: int | None,
                 players: int = PLAYERS) -> list[Payment]:
    """Step 1: self-draw, both losers pay V; discard win, the shooter V and the other loser V/2 rounded
    up. A liable seat (third-dragon trap) pays both shares alone."""
    losers = [s for s in range(players) if s != winner]
    if tsumo:
        shares = {s: value for s in losers}
    else:
        assert discarder is not None
        shares = {s: value if s == discarder else half_up(value) for s in losers}
    if liable is not None:
        return [Payment(liable, winner, sum(shares.values()), "win")]
    return [Payment(s, winner, shares[s], "win") for s in losers]


def extra_fei_payments(winner: int, winner_fei: int, loser_fei: Mapping[int, int], unit: int) -> list[Payment]:
    """Step 2: each loser pays ``unit`` × max(0, winner's Fei − that loser's Fei)."""
    out = []
    for s, n in sorted(loser_fei.items()):
        amount = unit * max(0, winner_fei - n)
        if amount:
            out.append(Payment(s, winner, amount, "extra Fei"))
    return out


def square_up_payments(counts: Mapping[int, int], unit: int) -> list[Payment]:
    """Step 3: between the two losers, the lower count pays the difference × ``unit`` to the higher."""
    (a, ca), (b, cb) = sorted(counts.items())
    if ca == cb or unit == 0:
        return []
    low, high = (a, b) if ca < cb else (b, a)
    return [Payment(low, high, abs(ca - cb) * unit, "square up")]


def trap_liability(ctx: WinContext) -> int | None:
    """The seat that pays the whole win under the third-dragon trap, or None.

    ``ctx.liable`` when given. Otherwise: the seat whose discard made the winner's third dragon set
    (the third dragon meld in call order, claimed with ``@k``); or, on a discard win while the winner
    shows exactly two dragon sets, the discarder when the winning tile is the third dragon.
    """
    if ctx.liable is not None:
        return ctx.liable
    dragon_melds = [m for m in ctx.hand.melds if m.type in ("pong", "kong") and m.kinds[0] in DRAGONS]
    if len(dragon_melds) >= 3:
        third = dragon_melds[2]
        if third.added:
            return None  # promoted from a pung: the 4th tile was the winner's own
        return ctx.source_seat(third)
    if (len(dragon_melds) == 2 and not ctx.tsumo and not ctx.chankan
            and ctx.win_tile.kind in DRAGONS
            and ctx.win_tile.kind not in {m.kinds[0] for m in dragon_melds}):
        return ctx.discarder
    return None


# --- validation ----------------------------------------------------------------------------------


def _check_seat(seat: int, players: int, what: str) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"{what} must be a seat 0-{players - 1} (0 = East), got {seat!r}")


def _validate(ctx: WinContext) -> None:
    """Raise ValueError / TileError when the context cannot describe a 3 Kaki win."""
    if ctx.variant.scoring != __name__:
        raise ValueError(f"rule system {ctx.variant.name!r} is not scored by the three-kaki scorer")
    players = ctx.players
    _check_seat(ctx.seat, players, "the winner's seat")
    hand = ctx.hand
    visible: list[Tile] = []
    for s, shown in ctx.others.items():
        _check_seat(s, players, "a seat in ctx.others")
        if s == ctx.seat:
            raise ValueError(f"ctx.others lists the winner's own seat {s}; it holds the losers only")
        for t in shown.bonus:
            if not (t.is_bonus or t.kind == JOKER):
                raise ValueError(f"seat {s}: {t.code} is not a bonus tile")
        for k in shown.hidden_honour_pongs:
            if not 27 <= k <= 33:
                raise ValueError(f"seat {s}: hidden honour pung {kind_code(k)} is not an honour")
        visible.extend(t for m in shown.melds for t in m.tiles)
        visible.extend(t for t in shown.bonus if t.kind != JOKER)
    validate_hand(hand, ctx.variant, sizes=(ctx.variant.full_hand_size,), visible=visible)
    for t in hand.bonus:
        if not (t.is_bonus or t.kind == JOKER):
            raise ValueError(f"{t.code} cannot be in a 3 Kaki bonus area (flowers, seasons, animals, faces, "
                             "sunk Fei only)")
    for m in hand.melds:
        if m.source is not None and not 1 <= m.source < players:
            raise ValueError(f"{m.format()}: @{m.source} does not exist at a {players}-player table (use @1 or @2)")
    if hand.win_tile is not None and hand.win_tile.kind != ctx.win_tile.kind:
        raise ValueError(f"the hand marks {hand.win_tile.code}* but the context says the winning tile is "
                         f"{ctx.win_tile.code}")
    if all(t.kind != ctx.win_tile.kind for t in hand.concealed):
        raise ValueError(f"the winning tile {ctx.win_tile.code} is not among the concealed tiles")
    if ctx.tsumo:
        if ctx.discarder is not None:
            raise ValueError("a self-draw has no discarder")
        for flag in ("chankan", "houtei"):
            if getattr(ctx, flag):
                raise ValueError(f"{flag} is a win on another player's tile, not a self-draw")
    else:
        if ctx.discarder is None:
            raise ValueError("a discard win (tsumo=False) needs the discarder's seat")
        _check_seat(ctx.discarder, players, "the discarder")
        if ctx.discarder == ctx.seat:
            raise ValueError("the discarder cannot be the winner")
        if ctx.win_tile.kind == JOKER:
            raise ValueError("a thrown Fei cannot be claimed, not even for a win (F8)")
        for flag in ("rinshan", "haitei", "tenhou", "chiihou", "after_two_kongs"):
            if getattr(ctx, flag):
                raise ValueError(f"{flag} is a self-draw win; tsumo must be True")
    if ctx.tenhou and (ctx.seat != 0 or hand.melds):
        raise ValueError("tenhou (L5) is the dealer (seat 0) complete on the initial 14 tiles, with no melds")
    if ctx.chiihou and (ctx.seat == 0 or any(m.is_open for m in hand.melds)):
        raise ValueError("chiihou (L5) is a non-dealer's win on their first draw with no claim before")
    if ctx.after_two_kongs and sum(1 for m in hand.melds if m.is_kong) < 2:
        raise ValueError("after_two_kongs (L11) needs at least two kongs among the winner's melds")
    if ctx.liable is not None:
        _check_seat(ctx.liable, players, "ctx.liable")
        if ctx.liable == ctx.seat:
            raise ValueError("the liable seat cannot be the winner")


# --- score ---------------------------------------------------------------------------------------


def _settle(ctx: WinContext, rs: ReadingScore, opts: KakiOptions, loser_fei: Mapping[int, int],
            counts: Mapping[int, int], liable: int | None) -> list[Payment]:
    value = opts.value(rs.total, rs.is_limit)
    payments = win_payments(ctx.seat, value, ctx.tsumo, ctx.discarder, liable, ctx.players)
    payments += extra_fei_payments(ctx.seat, rs.reading.fei, loser_fei, opts.fei_unit)
    payments += square_up_payments(counts, opts.square_unit)
    return payments


def score(ctx: WinContext) -> ScoreResult:
    """Score and settle a 3 Kaki win (three-kaki.md §6–§7).

    Every decomposition and Fei assignment is scored; the one with the most fan (then the best
    settlement for the winner, then the most fan before the limit) is kept and named in ``reading``.
    Below ``kaki.min`` the result is not legal and pays nothing. Raises ValueError / TileError on a
    context that cannot be a 3 Kaki win.
    """
    _validate(ctx)
    opts = KakiOptions.from_context(ctx)
    hand = ctx.hand
    bonus = tuple(t for t in hand.bonus if t.kind != JOKER)
    sunk = _sunk_from(hand.bonus, ctx.fei_sunk, "the winner")
    fei = sum(1 for t in hand.concealed if t.kind == JOKER) + melds_fei(hand.melds) + sunk
    losers = [s for s in range(ctx.players) if s != ctx.seat]
    shown = {s: ctx.others.get(s, PlayerShown()) for s in losers}
    loser_fei = {s: player_fei(shown[s], s) for s in losers}
    if fei + sum(loser_fei.values()) > THREE_KAKI.copies[JOKER]:
        raise ValueError(f"{fei + sum(loser_fei.values())} Fei counted at the table; the set has 4")
    squares = {s: square_count(shown[s], s) for s in losers}
    counts = {s: c for s, (c, _) in squares.items()}
    liable = trap_liability(ctx)

    decs = decompositions(hand, ctx.variant)
    if not decs:
        return ScoreResult(False, "cannot win: the hand is not complete (four sets and an eye)", unit="fan")

    best: tuple[tuple[int, int, int], ReadingScore, list[Payment]] | None = None
    for dec in decs:
        rs = score_reading(Reading(ctx, dec, bonus, sunk, fei, opts))
        payments = _settle(ctx, rs, opts, loser_fei, counts, liable)
        key = (rs.total, sum(p.amount for p in payments if p.receiver == ctx.seat), rs.fan)
        if best is None or key > best[0]:
            best = (key, rs, payments)
    assert best is not None
    _, rs, payments = best
    reading = rs.reading.dec.format()
    limit = "limit" if rs.is_limit else None
    if not rs.is_limit and rs.total < opts.min:
        return ScoreResult(
            False, f"cannot win: {rs.total} below the minimum of {opts.min} fan", items=list(rs.items),
            total=rs.total, unit="fan", reading=reading,
            explanation=_fan_line(rs) + f" — the table needs {opts.min} fan",
        )
    value = opts.value(rs.total, rs.is_limit)
    verdict = f"win: {'limit' if limit else f'{rs.total} fan'}, V = {value}"
    extra = {
        "value": value,
        "fan_before_limit": rs.fan,
        "fei": {ctx.seat: fei, **loser_fei},
        "square_counts": counts,
        "liable": liable,
    }
    return ScoreResult(
        True, verdict, items=list(rs.items), total=rs.total, unit="fan", limit=limit, payments=payments,
        reading=reading, explanation=_explain(ctx, rs, value, fei, loser_fei, squares, liable, payments),
        extra=extra,
    )


def _fan_line(rs: ReadingScore) -> str:
    parts = [f"{i.name}{f' ({i.note})' if i.note else ''} {i.value}" for i in rs.items if i.unit == "fan"]
    limits = [i.name for i in rs.items if i.unit == "limit"]
    text = " + ".join(parts) + f" = {rs.fan} fan" if parts else "no fan"
    if limits:
        text = f"limit hand ({', '.join(limits)}); " + text
    return text


def _explain(ctx: WinContext, rs: ReadingScore, value: int, fei: int, loser_fei: Mapping[int, int],
             squares: Mapping[int, tuple[int, list[str]]], liable: int | None,
             payments: Sequence[Payment]) -> str:
    name = SEAT_NAMES
    lines = [f"{name[ctx.seat]} wins with {rs.reading.dec.format()}: {_fan_line(rs)}; V = {value}."]
    win = [p for p in payments if p.reason == "win"]
    how = "self-draw" if ctx.tsumo else f"discard by {name[ctx.discarder]}"  # type: ignore[index]
    trap = f" ({name[liable]} pays both shares: third-dragon trap)" if liable is not None else ""
    lines.append(f"1. Win ({how}): " + ", ".join(f"{name[p.payer]} {p.amount}" for p in win) + trap + ".")
    fei_text = ", ".join(f"{name[s]} {n}" for s, n in sorted(loser_fei.items()))
    extra = [p for p in payments if p.reason == "extra Fei"]
    paid = ", ".join(f"{name[p.payer]} pays {p.amount}" for p in extra) or "nothing to pay"
    lines.append(f"2. Extra Fei: {name[ctx.seat]} {fei}; {fei_text} → {paid}.")
    sq = "; ".join(f"{name[s]} = {' + '.join(parts) or 'nothing'} = {c}" for s, (c, parts) in sorted(squares.items()))
    up = [p for p in payments if p.reason == "square up"]
    res = ", ".join(f"{name[p.payer]} pays {name[p.receiver]} {p.amount}" for p in up) or "even"
    lines.append(f"3. Square up: {sq} → {res}.")
    return "\n".join(lines)


# --- instant payouts -----------------------------------------------------------------------------


def instant_payout(event: str | Meld, seat: int, players: int = PLAYERS, options: Mapping[str, Any] | None = None,
                   *, discarder: int | None = None) -> list[Payment]:
    """Payments made at once for an instant event of ``seat`` (three-kaki.md §7, instant payouts).

    ``event`` is one of ``INSTANT_EVENTS`` or a kong :class:`Meld` (``(8888p)`` concealed, ``[8888p@2]``
    exposed — the discarder follows from ``@k`` —, ``[8888p+]`` promoted). ``options`` override the
    variant's defaults: ``pay_concealed_kong`` (each other player pays, 2), ``pay_exposed_kong``
    (``each_1``: each other player pays 1; ``discarder_2``: the discarder pays 2 — needs ``discarder``),
    ``pay_promoted_kong`` (each other player pays, 1; ``promoted_kong_robbed`` refunds it),
    ``pay_family`` (each other player pays, 2), ``bite_pairs`` (``off`` or ``each_1``).

    >>> [(p.payer, p.receiver, p.amount) for p in instant_payout("exposed_kong", 0, discarder=2,
    ...                                                        options={"pay_exposed_kong": "discarder_2"})]
    [(2, 0, 2)]
    """
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise ValueError(f"players must be a whole number >= 2, got {players!r}")
    _check_seat(seat, players, "seat")
    opts = KakiOptions.from_mapping(options)
    if isinstance(event, Meld):
        if not event.is_kong:
            raise ValueError(f"{event.format()} is not a kong; only kongs pay at once")
        if event.concealed:
            event = "concealed_kong"
        elif event.added:
            event = "promoted_kong"
        else:
            if event.source is not None:
                if not 1 <= event.source < players:
                    raise ValueError(f"@{event.source} does not exist at a {players}-player table")
                src = (seat - event.source) % players
                if discarder is not None and discarder != src:
                    raise ValueError(f"the meld says the kong tile came from seat {src}, not {discarder}")
                discarder = src
            event = "exposed_kong"
    if event not in INSTANT_EVENTS:
        raise ValueError(f"unknown instant event {event!r}; choose one of: {', '.join(INSTANT_EVENTS)}")
    if discarder is not None:
        _check_seat(discarder, players, "the discarder")
        if discarder == seat:
            raise ValueError("the discarder of an exposed kong cannot be the kong's owner")
    others = [s for s in range(players) if s != seat]

    def each(amount: int, reason: str) -> list[Payment]:
        return [Payment(s, seat, amount, reason) for s in others if amount]

    if event == "concealed_kong":
        return each(opts.pay_concealed_kong, "concealed kong")
    if event == "exposed_kong":
        if opts.pay_exposed_kong == "each_1":
            return each(1, "exposed kong")
        if discarder is None:
            raise ValueError("kaki.pay_exposed_kong = discarder_2 needs the discarder's seat")
        return [Payment(discarder, seat, 2, "exposed kong")]
    if event == "promoted_kong":
        return each(opts.pay_promoted_kong, "promoted kong")
    if event == "promoted_kong_robbed":
        return [Payment(seat, s, opts.pay_promoted_kong, "promoted kong refund")
                for s in others if opts.pay_promoted_kong]
    if event == "complete_family":
        return each(opts.pay_family, "complete family")
    # bite_pair
    return each(1, "bite pair") if opts.bite_pairs == "each_1" else []


def bonus_events(bonus: Sequence[Tile], new: Tile) -> list[str]:
    """Instant events a newly laid bonus tile ``new`` makes with the ``bonus`` already laid out:
    ``complete_family`` when it completes its family, ``bite_pair`` when it joins its biting animal.

    >>> bonus_events([Tile.from_code(c) for c in ("1a", "2a", "3a")], Tile.from_code("4a"))
    ['complete_family', 'bite_pair']
    """
    if not new.is_bonus:
        raise ValueError(f"{new.code} is not a bonus tile")
    kinds = {t.kind for t in bonus}
    if new.kind in kinds:
        raise ValueError(f"{new.code} is already in the bonus area (each bonus tile exists once)")
    out: list[str] = []
    base = 34 + 4 * ((new.kind - 34) // 4)
    if all(k in kinds or k == new.kind for k in range(base, base + 4)):
        out.append("complete_family")
    for a, b in BITE_PAIRS:
        if (new.kind == a and b in kinds) or (new.kind == b and a in kinds):
            out.append("bite_pair")
    return out
