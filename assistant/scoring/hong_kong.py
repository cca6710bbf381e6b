"""Hong Kong Old Style scoring: faan, stacking, limit hands, ladders, payments and bao.

The rules are ``shared/rules/hong-kong.md`` §5–§9. Every faan criterion is one small class below with a
``key`` into the value tables (:data:`FAAN`, :data:`LIMIT_FAAN`), a name in the game's own words and a
``notes`` test that says how often the hand meets it. Which criterion *includes* which is data too
(:data:`INCLUDES`, §6), as are the three payout ladders (:data:`LADDERS`, §7). Table options are read
once into :class:`HKOptions` (defaults from the variant's ``options``).

Seats: 0 = East (dealer) .. 3 = North; a meld's ``@k`` source points ``k`` seats back, so the liable
seat of a bao case is the source of the decisive meld (melds are listed in call order) or ``ctx.liable``.

>>> from assistant.hand import parse_hand
>>> from assistant.tiles import Tile
>>> from assistant.variants import get_variant
>>> hk = get_variant("hong-kong")
>>> ctx = WinContext(hk, parse_hand("[111p@1] [999p@2] [666z@3] 55p 33z 5p* | 1f"), Tile(13),
...                  tsumo=False, seat=2, discarder=3, round_wind=28)
>>> r = score(ctx)
>>> r.total, [(i.name, i.value) for i in r.items], r.net(4)
(7, [('Dragon pung 箭刻', 1), ('All pungs 對對糊', 3), ('Mixed one suit 混一色', 3)], [0, 0, 96, -96])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import ClassVar

from ..analysis import decompositions
from ..hand import Meld, validate_hand
from ..tiles import kind_code
from .additive import (
    DRAGONS,
    WINDS,
    Reading,
    cannot_win,
    check_win_context,
    check_win_tile,
    choice,
    is_honour,
    is_terminal,
    money,
    readings,
    suit_index,
    tile_codes,
    whole,
)
from .base import Payment, ScoreItem, ScoreResult, WinContext

UNIT = "faan"
FLOWERS = (34, 35, 36, 37)  # 1f-4f: plum, orchid, chrysanthemum, bamboo (number = seat E S W N)
SEASONS = (38, 39, 40, 41)  # 1g-4g

# --- values as data --------------------------------------------------------------------------------

FAAN: Mapping[str, int] = {
    # §5.1 bonus tiles (never toward the minimum)
    "no_flowers": 1, "own_flower": 1, "own_season": 1, "all_flowers": 2, "all_seasons": 2,
    "flower_hand": 3, "eight_flowers": 8,
    # §5.2 honour sets
    "dragon_pung": 1, "seat_wind": 1, "round_wind": 1,
    # §5.3 how the hand was won
    "self_drawn": 1, "concealed": 1, "last_tile": 1, "last_discard": 1, "robbing_kong": 1,
    "kong_replacement": 1, "two_kongs": 8,
    # §5.4 patterns (full_flush, seven_pairs and small_winds are table options; these are the defaults)
    "chicken": 0, "common": 1, "all_pungs": 3, "mixed_suit": 3, "full_flush": 7, "seven_pairs": 4,
    "mixed_orphans": 1, "small_dragons": 5, "great_dragons": 8, "small_winds": 6,
}
"""Faan of every criterion of §5.1–§5.4 (defaults)."""

LIMIT_FAAN: Mapping[str, int] = {
    "all_honours": 10, "all_terminals": 10, "four_concealed": 10, "nine_gates": 10,
    "great_winds": 13, "all_kongs": 13, "thirteen_orphans": 13, "heavenly": 13, "earthly": 13,
}
"""§5.5 limit hands: their value under ``hk.limit_hands: faan`` (under ``cap`` each scores the cap)."""

INCLUDES: Mapping[str, frozenset[str]] = {
    "great_dragons": frozenset({"small_dragons", "dragon_pung"}),
    "small_dragons": frozenset({"dragon_pung"}),
    "small_winds": frozenset({"seat_wind", "round_wind"}),
    "full_flush": frozenset({"mixed_suit"}),
    "all_honours": frozenset({"mixed_suit", "mixed_orphans"}),
    "all_terminals": frozenset({"mixed_orphans"}),
    "four_concealed": frozenset({"concealed"}),
    "nine_gates": frozenset({"full_flush", "mixed_suit", "concealed"}),
    "seven_pairs": frozenset({"concealed"}),
    "two_kongs": frozenset({"kong_replacement"}),
    "all_flowers": frozenset({"own_flower"}),  # unless hk.flower_set_stacks
    "all_seasons": frozenset({"own_season"}),
}
"""§6.2: a present criterion removes the criteria it includes (closed transitively: 大三元 ⊃ 小三元 ⊃ 箭刻)."""

LADDERS: Mapping[str, tuple[int, ...]] = {
    "half": (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384),
    "full": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192),
    "simplified": (1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 8),
}
"""§7: multiplier of one portion for 0..13 faan (half-spicy 半辣上, full-spicy 辣辣上, Old-HK simplified)."""

LADDER_NAMES = {"half": "half-spicy 半辣上", "full": "full-spicy 辣辣上", "simplified": "Old-HK simplified"}


# --- options -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HKOptions:
    """The ``hk.*`` table options the scorer reads, checked once (ValueError names a bad value)."""

    flowers: bool
    flower_set_stacks: bool
    flower_rob: bool
    eight_flowers: bool
    common_hand_strict: bool
    full_flush: int
    seven_pairs: int | None  # None = seven pairs not played
    small_winds: int
    limit_hands: str
    cap: int
    min: int
    ladder: str
    unit: Fraction
    payment: str
    robbed_pays: str
    bao_split: str
    bao_nine_tile_flush: bool

    @classmethod
    def from_context(cls, ctx: WinContext) -> HKOptions:
        sp = ctx.option("seven_pairs")
        if sp in ("off", False, None, 0):
            seven: int | None = None
        elif isinstance(sp, int) and not isinstance(sp, bool) and sp > 0:
            seven = sp
        else:
            raise ValueError(f"hong-kong option 'seven_pairs' = {sp!r}; expected 4 (or another faan value) or 'off'")
        unit = ctx.option("unit")
        if isinstance(unit, bool) or not isinstance(unit, int | float | Fraction) or unit <= 0:
            raise ValueError(f"hong-kong option 'unit' = {unit!r}; expected a positive number")
        cap = whole(ctx, "cap", 1, 13)
        robbed = choice(ctx, "robbed_pays", ("as_discarder", "all_3_portions", "all"))
        split = choice(ctx, "bao_split", ("split", "liable_pays_2", "liable"))
        return cls(
            flowers=bool(choice(ctx, "flowers", (True, False))),
            flower_set_stacks=bool(choice(ctx, "flower_set_stacks", (False, True))),
            flower_rob=bool(choice(ctx, "flower_rob", (True, False))),
            eight_flowers=bool(choice(ctx, "eight_flowers", (True, False))),
            common_hand_strict=bool(choice(ctx, "common_hand_strict", (False, True))),
            full_flush=choice(ctx, "full_flush", (7, 6)),
            seven_pairs=seven,
            small_winds=choice(ctx, "small_winds", (6, 10)),
            limit_hands=choice(ctx, "limit_hands", ("cap", "faan")),
            cap=cap,
            min=whole(ctx, "min", 0, cap),
            ladder=choice(ctx, "ladder", tuple(LADDERS)),
            unit=Fraction(str(unit)) if isinstance(unit, float) else Fraction(unit),
            payment=choice(ctx, "payment", ("full", "half")),
            robbed_pays="all_3_portions" if robbed == "all" else robbed,
            bao_split="liable_pays_2" if split == "liable" else split,
            bao_nine_tile_flush=bool(choice(ctx, "bao_nine_tile_flush", (False, True))),
        )

    def value(self, key: str) -> int:
        """Faan of a criterion at this table (option values for 清一色, 七對子, 小四喜)."""
        if key == "full_flush":
            return self.full_flush
        if key == "seven_pairs":
            return self.seven_pairs or 0
        if key == "small_winds":
            return self.small_winds
        if key in LIMIT_FAAN:
            return LIMIT_FAAN[key] if self.limit_hands == "faan" else self.cap
        return FAAN[key]

    def portion(self, total: int) -> Fraction:
        """One portion for ``total`` faan: unit × ladder multiplier (§7)."""
        return self.unit * LADDERS[self.ladder][total]


# --- what the criteria read ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Facts:
    """One reading of the winning hand plus everything about the win the criteria look at."""

    ctx: WinContext
    reading: Reading
    bonus: frozenset[int]  # bonus tile kinds held (flowers 34-37, seasons 38-41)
    opts: HKOptions

    @cached_property
    def suits(self) -> frozenset[int]:
        return frozenset(s for k in self.reading.kinds if (s := suit_index(k)) is not None)

    @cached_property
    def honours(self) -> bool:
        return any(is_honour(k) for k in self.reading.kinds)

    @cached_property
    def standard(self) -> bool:
        return self.reading.form == "standard"

    def pung_kinds(self, group: tuple[int, ...]) -> list[int]:
        return [s.kinds[0] for s in self.reading.pungs() if s.kinds[0] in group]


class Criterion:
    """A faan criterion: ``key`` (value tables), ``name``, ``bonus`` (B row) and a test.

    ``notes(f)`` returns one entry per time the hand meets it (a detail such as the tile, or "").
    """

    key: ClassVar[str]
    name: ClassVar[str]
    bonus: ClassVar[bool] = False

    def notes(self, f: Facts) -> list[str]:
        return [""] if self.met(f) else []

    def met(self, f: Facts) -> bool:
        raise NotImplementedError


# §5.1 bonus tiles --------------------------------------------------------------------------------------

class NoFlowers(Criterion):
    key, name, bonus = "no_flowers", "No flowers 無花", True

    def met(self, f: Facts) -> bool:
        return f.opts.flowers and not f.bonus


class OwnFlower(Criterion):
    key, name, bonus = "own_flower", "Own flower 正花", True

    def notes(self, f: Facts) -> list[str]:
        own = FLOWERS[f.ctx.seat]
        return [kind_code(own)] if own in f.bonus else []


class OwnSeason(Criterion):
    key, name, bonus = "own_season", "Own season 正花", True

    def notes(self, f: Facts) -> list[str]:
        own = SEASONS[f.ctx.seat]
        return [kind_code(own)] if own in f.bonus else []


class AllFourFlowers(Criterion):
    key, name, bonus = "all_flowers", "All four flowers 一台花", True

    def met(self, f: Facts) -> bool:
        return set(FLOWERS) <= f.bonus


class AllFourSeasons(Criterion):
    key, name, bonus = "all_seasons", "All four seasons 一台花", True

    def met(self, f: Facts) -> bool:
        return set(SEASONS) <= f.bonus


# §5.2 honour sets ---------------------------------------------------------------------------------------

class DragonPung(Criterion):
    key, name = "dragon_pung", "Dragon pung 箭刻"

    def notes(self, f: Facts) -> list[str]:
        return [kind_code(k) for k in f.pung_kinds(DRAGONS)]


class SeatWindPung(Criterion):
    key, name = "seat_wind", "Seat-wind pung 門風"

    def met(self, f: Facts) -> bool:
        return f.ctx.seat_wind in f.pung_kinds(WINDS)


class RoundWindPung(Criterion):
    key, name = "round_wind", "Round-wind pung 圈風"

    def met(self, f: Facts) -> bool:
        return f.ctx.round_wind in f.pung_kinds(WINDS)


# §5.3 how the hand was won -------------------------------------------------------------------------------

class SelfDrawn(Criterion):
    key, name = "self_drawn", "Self-drawn 自摸"

    def met(self, f: Facts) -> bool:
        return f.ctx.tsumo


class ConcealedHand(Criterion):
    key, name = "concealed", "Concealed hand 門前清"

    def met(self, f: Facts) -> bool:
        return all(m.concealed for m in f.ctx.hand.melds)


class LastTile(Criterion):
    key, name = "last_tile", "Last tile 海底撈月"

    def met(self, f: Facts) -> bool:
        return f.ctx.haitei


class LastDiscard(Criterion):
    key, name = "last_discard", "Last discard 河底撈魚"

    def met(self, f: Facts) -> bool:
        return f.ctx.houtei


class RobbingKong(Criterion):
    key, name = "robbing_kong", "Robbing a kong 搶槓"

    def met(self, f: Facts) -> bool:
        return f.ctx.chankan


class KongReplacement(Criterion):
    key, name = "kong_replacement", "Win on kong replacement 槓上開花"

    def met(self, f: Facts) -> bool:
        return f.ctx.rinshan or f.ctx.after_two_kongs


class TwoSuccessiveKongs(Criterion):
    key, name = "two_kongs", "Win after two successive kongs 槓上槓"

    def met(self, f: Facts) -> bool:
        return f.ctx.after_two_kongs


# §5.4 hand patterns --------------------------------------------------------------------------------------

class CommonHand(Criterion):
    """Four chows and any pair; strict tables also want a non-scoring pair and no bonus tiles."""

    key, name = "common", "Common hand 平糊"

    def met(self, f: Facts) -> bool:
        if not f.standard or len(f.reading.chows()) != 4:
            return False
        if f.opts.common_hand_strict:
            scoring_pairs = set(DRAGONS) | {f.ctx.seat_wind, f.ctx.round_wind}
            return f.reading.pair_kind not in scoring_pairs and not f.bonus
        return True


class AllPungs(Criterion):
    key, name = "all_pungs", "All pungs 對對糊"

    def met(self, f: Facts) -> bool:
        return f.standard and len(f.reading.pungs()) == 4


class MixedOneSuit(Criterion):
    key, name = "mixed_suit", "Mixed one suit 混一色"

    def met(self, f: Facts) -> bool:
        return len(f.suits) == 1 and f.honours


class AllOneSuit(Criterion):
    key, name = "full_flush", "All one suit 清一色"

    def met(self, f: Facts) -> bool:
        return len(f.suits) == 1 and not f.honours


class SevenPairs(Criterion):
    key, name = "seven_pairs", "Seven pairs 七對子"

    def met(self, f: Facts) -> bool:
        return f.reading.form == "seven_pairs"


class MixedOrphans(Criterion):
    key, name = "mixed_orphans", "Mixed orphans 混么九"

    def met(self, f: Facts) -> bool:
        kinds = f.reading.kinds
        return all(is_honour(k) or is_terminal(k) for k in kinds) and f.honours and bool(f.suits)


class SmallDragons(Criterion):
    key, name = "small_dragons", "Small dragons 小三元"

    def met(self, f: Facts) -> bool:
        return f.standard and len(f.pung_kinds(DRAGONS)) == 2 and f.reading.pair_kind in DRAGONS


class GreatDragons(Criterion):
    key, name = "great_dragons", "Great dragons 大三元"

    def met(self, f: Facts) -> bool:
        return len(f.pung_kinds(DRAGONS)) == 3


class SmallWinds(Criterion):
    key, name = "small_winds", "Small winds 小四喜"

    def met(self, f: Facts) -> bool:
        return f.standard and len(f.pung_kinds(WINDS)) == 3 and f.reading.pair_kind in WINDS


# §5.5 limit hands -----------------------------------------------------------------------------------------

class AllHonours(Criterion):
    key, name = "all_honours", "All honours 字一色"

    def met(self, f: Facts) -> bool:
        return all(is_honour(k) for k in f.reading.kinds)


class AllTerminals(Criterion):
    key, name = "all_terminals", "All terminals 清么九"

    def met(self, f: Facts) -> bool:
        return all(is_terminal(k) for k in f.reading.kinds)


class FourConcealedPungs(Criterion):
    """Four pungs/kongs, none claimed; a pung completed by a discard win is not concealed."""

    key, name = "four_concealed", "Four concealed pungs 坎坎糊"

    def met(self, f: Facts) -> bool:
        r = f.reading
        return (f.standard and len(r.pungs()) == 4
                and all(r.set_concealed(i) for i, s in enumerate(r.sets) if s.type != "chow"))


class NineGates(Criterion):
    """1112345678999 of one suit, fully concealed, completed by any tile of that suit."""

    key, name = "nine_gates", "Nine gates 九子連環"

    def met(self, f: Facts) -> bool:
        if f.ctx.hand.melds or len(f.suits) != 1 or f.honours:
            return False
        counts = Counter(f.reading.kinds)
        counts[f.reading.win_kind] -= 1
        base = 9 * next(iter(f.suits))
        return [counts[base + i] for i in range(9)] == [3, 1, 1, 1, 1, 1, 1, 1, 3]


class GreatWinds(Criterion):
    key, name = "great_winds", "Great winds 大四喜"

    def met(self, f: Facts) -> bool:
        return len(f.pung_kinds(WINDS)) == 4


class AllKongs(Criterion):
    key, name = "all_kongs", "All kongs 十八羅漢"

    def met(self, f: Facts) -> bool:
        return len(f.reading.kongs()) == 4


class ThirteenOrphans(Criterion):
    key, name = "thirteen_orphans", "Thirteen orphans 十三么"

    def met(self, f: Facts) -> bool:
        return f.reading.form == "thirteen_orphans"


class HeavenlyHand(Criterion):
    key, name = "heavenly", "Heavenly hand 天糊"

    def met(self, f: Facts) -> bool:
        return f.ctx.tenhou


class EarthlyHand(Criterion):
    key, name = "earthly", "Earthly hand 地糊"

    def met(self, f: Facts) -> bool:
        return f.ctx.chiihou


# instant bonus-tile wins (§5.1): scored on their own, no other criterion, exempt from the minimum

class InstantFlowerWin:
    """A win on the 8th bonus tile: ``applies(ctx, held)`` with ``held`` the bonus kinds incl. the 8th."""

    key: ClassVar[str]
    name: ClassVar[str]
    option: ClassVar[str]
    self_drawn: ClassVar[bool]

    def applies(self, ctx: WinContext, held: frozenset[int]) -> bool:
        return ctx.tsumo == self.self_drawn and held == ALL_BONUS

    def allowed(self, opts: HKOptions) -> bool:
        return bool(getattr(opts, self.option))


class FlowerHand(InstantFlowerWin):
    """花糊: holding seven, rob the 8th another player draws; that player pays as a discarder."""

    key, name, option, self_drawn = "flower_hand", "Flower hand 花糊", "flower_rob", False


class EightFlowers(InstantFlowerWin):
    """大花糊: self-draw the 8th bonus tile; paid as a self-draw."""

    key, name, option, self_drawn = "eight_flowers", "Eight flowers 大花糊", "eight_flowers", True


ALL_BONUS = frozenset(FLOWERS) | frozenset(SEASONS)
INSTANT_WINS: tuple[InstantFlowerWin, ...] = (FlowerHand(), EightFlowers())
BONUS_CRITERIA: tuple[Criterion, ...] = (NoFlowers(), OwnFlower(), OwnSeason(), AllFourFlowers(), AllFourSeasons())
CORE_CRITERIA: tuple[Criterion, ...] = (
    DragonPung(), SeatWindPung(), RoundWindPung(),
    SelfDrawn(), ConcealedHand(), LastTile(), LastDiscard(), RobbingKong(), KongReplacement(), TwoSuccessiveKongs(),
    CommonHand(), AllPungs(), MixedOneSuit(), AllOneSuit(), SevenPairs(), MixedOrphans(),
    SmallDragons(), GreatDragons(), SmallWinds(),
)
LIMIT_HANDS: tuple[Criterion, ...] = (
    HeavenlyHand(), EarthlyHand(), ThirteenOrphans(), GreatWinds(), AllKongs(),
    AllHonours(), AllTerminals(), FourConcealedPungs(), NineGates(),
)
CHICKEN_NAME = "Chicken hand 雞糊"


def _closure(includes: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    out = {k: set(v) for k, v in includes.items()}
    changed = True
    while changed:
        changed = False
        for v in out.values():
            extra = set().union(*(out.get(x, set()) for x in v)) - v
            if extra:
                v |= extra
                changed = True
    return {k: frozenset(v) for k, v in out.items()}


_INCLUDES = _closure(INCLUDES)


# --- evaluating one reading ------------------------------------------------------------------------------

@dataclass
class Evaluation:
    """The faan of one reading: kept items, core and bonus sums, total, legality."""

    reading: Reading
    items: list[ScoreItem]
    core: int
    bonus: int
    total: int
    legal: bool
    limit: str | None = None  # "limit" (a §5.5 hand scored the cap) or "cap" (the sum was cut)
    included: list[str] | None = None  # names removed by §6 inclusion
    also: list[str] | None = None  # further limit hands met

    @property
    def rank(self) -> tuple[int, int, int, int]:
        return (int(self.legal), self.total, self.core, int(self.limit == "limit"))


def _collect(criteria: tuple[Criterion, ...], f: Facts) -> list[tuple[Criterion, str]]:
    return [(c, note) for c in criteria for note in c.notes(f)]


def _apply_inclusion(found: list[tuple[Criterion, str]], opts: HKOptions) -> tuple[list, list[str]]:
    present = {c.key for c, _ in found}
    removed: set[str] = set()
    for key in present:
        inc = _INCLUDES.get(key, frozenset())
        if key in ("all_flowers", "all_seasons") and opts.flower_set_stacks:
            inc = frozenset()
        removed |= inc
    kept = [(c, n) for c, n in found if c.key not in removed]
    gone = [c.name for c, _ in found if c.key in removed]
    return kept, list(dict.fromkeys(gone))


def evaluate(f: Facts) -> Evaluation:
    """Score one reading by §6: limit hands first, then inclusion, the minimum and the cap."""
    opts = f.opts
    limits = [c for c in LIMIT_HANDS if c.met(f)]
    stopping = limits if opts.limit_hands == "cap" else [c for c in limits if LIMIT_FAAN[c.key] >= 13]
    if stopping:
        first = stopping[0]
        item = ScoreItem(first.name, opts.cap, UNIT, "limit hand: scores the cap outright")
        return Evaluation(f.reading, [item], opts.cap, 0, opts.cap, True, "limit",
                          also=[c.name for c in limits if c is not first])
    core_found = _collect(CORE_CRITERIA, f) + [(c, "") for c in limits]  # 10-faan rows under `faan`
    bonus_found = _collect(BONUS_CRITERIA, f) if opts.flowers else []
    core_kept, gone = _apply_inclusion(core_found, opts)
    bonus_kept, gone_b = _apply_inclusion(bonus_found, opts)
    items = [ScoreItem(c.name, opts.value(c.key), UNIT, n) for c, n in core_kept]
    if not items:
        items.append(ScoreItem(CHICKEN_NAME, FAAN["chicken"], UNIT, "no criterion met"))
    core = sum(i.value for i in items)
    bonus_items = [ScoreItem(c.name, opts.value(c.key), UNIT, (n + " " if n else "") + "bonus: not toward the minimum")
                   for c, n in bonus_kept]
    bonus = sum(i.value for i in bonus_items)
    raw = core + bonus
    total = min(raw, opts.cap)
    return Evaluation(f.reading, items + bonus_items, core, bonus, total, core >= opts.min,
                      "cap" if raw > opts.cap else None, included=gone + gone_b)


# --- liability (§9) ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bao:
    case: str
    seat: int


def _bao(ctx: WinContext, r: Reading, opts: HKOptions) -> tuple[Bao | None, str]:
    """The liability case that applies and the liable seat, plus a note when a seat is missing.

    Cases in table order (§9): 大三元包, 大四喜包, 十二張落地包 (self-draw), 槓上開花包, and 九張清一色包 when
    ``hk.bao_nine_tile_flush`` is on. The seat is the source of the decisive meld; where the meld has no
    source (``[777z]``, an added kong) ``ctx.liable`` supplies it. ``ctx.liable`` with no case the
    scorer can see (e.g. the fifth-tile rule) is applied as the table ruled.
    """
    melds = ctx.hand.melds
    claimed = [m for m in melds if not m.concealed]
    cases: list[tuple[str, Meld | None]] = []
    dragons = [m for m in claimed if m.type != "chow" and m.kinds[0] in DRAGONS]
    if len([s for s in r.pungs() if s.kinds[0] in DRAGONS]) == 3 and len(dragons) >= 3:
        cases.append(("大三元包 (third exposed dragon set)", dragons[2]))
    winds = [m for m in claimed if m.type != "chow" and m.kinds[0] in WINDS]
    if len([s for s in r.pungs() if s.kinds[0] in WINDS]) == 4 and len(winds) >= 4:
        cases.append(("大四喜包 (fourth exposed wind set)", winds[3]))
    if ctx.tsumo and len(claimed) == 4:
        cases.append(("十二張落地包 (fourth exposed set, self-drawn win)", claimed[3]))
    if ctx.rinshan and melds and melds[-1].is_kong and not melds[-1].concealed and not melds[-1].added:
        cases.append(("槓上開花包 (exposed kong claimed from a discard)", melds[-1]))
    suits = {k // 9 for k in r.kinds}
    if (opts.bao_nine_tile_flush and not ctx.tsumo and len(suits) == 1 and max(r.kinds) < 27
            and len(claimed) >= 3):
        cases.append(("九張清一色包 (discard into a shown flush)", None))
    for case, meld in cases:
        seat = ctx.discarder if meld is None else ctx.source_seat(meld)
        if seat is not None and ctx.liable is not None and ctx.liable != seat:
            raise ValueError(f"liable={ctx.liable} disagrees with {case}: the decisive meld "
                             f"{meld.format() if meld else ''} came from seat {seat}")
        seat = seat if seat is not None else ctx.liable
        if seat is not None:
            return Bao(case, seat), ""
    if cases:
        return None, f"{cases[0][0]} applies but the decisive meld has no @k source: pass liable= to settle it"
    if ctx.liable is not None:
        return Bao("包 (liability ruled by the table)", ctx.liable), ""
    return None, ""


# --- payments (§8, §9) -------------------------------------------------------------------------------------

def payments(ctx: WinContext, opts: HKOptions, portion: Fraction, *, self_draw: bool,
             robbed: bool = False, bao: Bao | None = None) -> list[Payment]:
    """Who pays the winner what. ``self_draw`` = paid as a self-draw (3 × 1 portion)."""
    seat, n = ctx.seat, ctx.players
    due: dict[int, Fraction] = {}
    if self_draw:
        due = {s: portion for s in range(n) if s != seat}
    else:
        d = ctx.discarder
        assert d is not None
        if robbed and opts.robbed_pays == "all_3_portions":
            due = {d: 3 * portion}
        elif opts.payment == "full":
            due = {d: 2 * portion}
        else:
            due = {s: (portion if s == d else portion / 2) for s in range(n) if s != seat}
    if bao is not None:
        collected = sum(due.values(), Fraction(0))
        reason = f"bao: {bao.case.split(' ')[0]}"
        if self_draw or bao.seat == ctx.discarder or opts.bao_split == "liable_pays_2":
            return [Payment(bao.seat, seat, money(collected), reason)]
        d = ctx.discarder
        assert d is not None
        return [Payment(d, seat, money(collected - portion), "win"), Payment(bao.seat, seat, money(portion), reason)]
    return [Payment(p, seat, money(a), "win") for p, a in sorted(due.items())]


# --- the scorer ------------------------------------------------------------------------------------------

def _bonus_kinds(ctx: WinContext, opts: HKOptions) -> frozenset[int]:
    kinds = frozenset(t.kind for t in ctx.hand.bonus)
    if kinds and not opts.flowers:
        raise ValueError(f"flowers are not in play at this table (hk.flowers off) but the hand holds "
                         f"{tile_codes(sorted(kinds))}")
    return kinds


def _check_flags(ctx: WinContext) -> None:
    if ctx.tenhou and not (ctx.seat == 0 and ctx.tsumo):
        raise ValueError("a heavenly hand (tenhou) is the dealer's (seat 0) self-drawn win on the initial deal")
    if ctx.chiihou and not (ctx.seat != 0 and not ctx.tsumo and ctx.discarder == 0):
        raise ValueError("an earthly hand (chiihou) is a non-dealer's win on the dealer's (seat 0) first discard")
    kongs = sum(1 for m in ctx.hand.melds if m.is_kong)
    if ctx.rinshan and kongs == 0:
        raise ValueError("a win on a kong replacement (rinshan) needs a declared kong among the melds")
    if ctx.after_two_kongs and kongs < 2:
        raise ValueError("a win after two successive kongs needs two declared kongs among the melds")
    if not 27 <= ctx.round_wind <= 30:
        raise ValueError(f"round wind must be 1z-4z (27-30), got {ctx.round_wind}")


def _score_flower_win(ctx: WinContext, opts: HKOptions) -> ScoreResult:
    """花糊 (robbing the 8th bonus tile) or 大花糊 (self-drawing it): instant wins, §5.1."""
    if not opts.flowers:
        raise ValueError("flowers are not in play at this table (hk.flowers off)")
    validate_hand(ctx.hand, ctx.variant, sizes=None)
    held = _bonus_kinds(ctx, opts) | {ctx.win_tile.kind}
    crit = next((c for c in INSTANT_WINS if c.applies(ctx, held)), None)
    if crit is None:
        return cannot_win(f"a flower win needs all eight flowers and seasons; with "
                          f"{ctx.win_tile.code} the hand has {len(held)} ({tile_codes(sorted(held))})", UNIT)
    if not crit.allowed(opts):
        return cannot_win(f"{crit.name} is not played at this table (hk.{crit.option} off)", UNIT)
    total = min(FAAN[crit.key], opts.cap)
    portion = opts.portion(total)
    pays = payments(ctx, opts, portion, self_draw=ctx.tsumo)
    how = "paid as a self-draw" if ctx.tsumo else f"seat {ctx.discarder} drew the 8th and pays as a discarder"
    return ScoreResult(
        legal=True, verdict=f"win: {crit.name}, {total} faan (instant win) -> portion {money(portion)}",
        items=[ScoreItem(crit.name, total, UNIT, "instant win: no other criterion, exempt from the minimum")],
        total=total, unit=UNIT, limit="cap" if FAAN[crit.key] > opts.cap else None, payments=pays,
        reading=f"{crit.name}: {tile_codes(sorted(held))}",
        explanation=f"{crit.name} {total} faan; {LADDER_NAMES[opts.ladder]} ladder -> portion {money(portion)}; {how}",
        extra={"portion": money(portion), "core": 0, "bonus": total, "ladder": opts.ladder, "payment": opts.payment},
    )


def score(ctx: WinContext) -> ScoreResult:
    """Score a Hong Kong Old Style win (§5–§9), choosing the reading with the most faan.

    Raises :class:`~assistant.errors.TileError` for a hand that cannot exist and ValueError for a win
    that cannot have happened (inconsistent seats or flags, a bad option value). A hand that exists
    but cannot win (not complete, below ``hk.min``) gives ``legal=False`` and a "cannot win: ..." verdict.
    """
    opts = HKOptions.from_context(ctx)
    check_win_context(ctx)
    if ctx.win_tile.is_bonus:
        return _score_flower_win(ctx, opts)
    _check_flags(ctx)
    validate_hand(ctx.hand, ctx.variant, sizes=(ctx.variant.full_hand_size,))
    check_win_tile(ctx)
    bonus = _bonus_kinds(ctx, opts)
    decs = [d for d in decompositions(ctx.hand, ctx.variant)
            if d.form != "seven_pairs" or opts.seven_pairs is not None]
    reads = readings(ctx.hand, decs, ctx.win_tile.kind, ctx.tsumo)
    if not reads:
        return cannot_win("the hand is not complete (no reading as four sets and a pair"
                          + (", seven pairs" if opts.seven_pairs is not None else "")
                          + " or thirteen orphans)", UNIT)
    best = max((evaluate(Facts(ctx, r, bonus, opts)) for r in reads), key=lambda e: e.rank)
    extra = {"core": best.core, "bonus": best.bonus, "ladder": opts.ladder, "payment": opts.payment}
    if not best.legal:
        return cannot_win(
            f"{best.core} below the minimum of {opts.min} faan (flowers don't count toward it)", UNIT,
            items=best.items, total=best.total, reading=best.reading.format(),
            explanation=_explain(best, None, ""), extra=extra,
        )
    portion = opts.portion(best.total)
    bao, bao_note = _bao(ctx, best.reading, opts)
    pays = payments(ctx, opts, portion, self_draw=ctx.tsumo, robbed=ctx.chankan, bao=bao)
    extra["portion"] = money(portion)
    if bao is not None:
        extra["bao"] = bao.case
        extra["liable"] = bao.seat
    return ScoreResult(
        legal=True,
        verdict=f"win: {best.total} faan -> portion {money(portion)}",
        items=best.items, total=best.total, unit=UNIT, limit=best.limit, payments=pays,
        reading=best.reading.format(), explanation=_explain(best, bao, bao_note, portion, opts), extra=extra,
    )


def _explain(e: Evaluation, bao: Bao | None, bao_note: str, portion: Fraction | None = None,
             opts: HKOptions | None = None) -> str:
    parts = [" + ".join(f"{i.name} {i.value}" for i in e.items)]
    if e.limit == "limit":
        parts.append("limit hand: the cap, nothing added")
        if e.also:
            parts.append("also met: " + ", ".join(e.also))
    else:
        parts.append(f"core {e.core} + bonus {e.bonus}" + (f" = {e.core + e.bonus}, capped at {e.total}"
                                                           if e.limit == "cap" else f" = {e.total}"))
    if e.included:
        parts.append("included in a larger criterion: " + ", ".join(e.included))
    if portion is not None and opts is not None:
        parts.append(f"{LADDER_NAMES[opts.ladder]} ladder -> portion {money(portion)} ({opts.payment} payment)")
    if bao is not None:
        parts.append(f"{bao.case}: seat {bao.seat} is liable")
    if bao_note:
        parts.append(bao_note)
    return "; ".join(parts)
