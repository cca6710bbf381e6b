"""Sanma yaku and yakuman (``shared/rules/sanma.md`` §5, §6): one small named class per item.

A yaku is a :class:`Yaku`: its name, its han closed and open as plain class attributes (``han_open = 0``
means closed only) and one predicate :meth:`Yaku.applies` over a :class:`Reading` — one decomposition of
the winning hand with the winning tile placed in one of its sets (or its pair), plus the win's context.
A yakuman is a :class:`Yakuman` with its multiple (1 or 2, the 2 only while ``sanma.double_yakuman`` is
on). Adding a yaku is adding a class and listing it in ``YAKU`` or ``YAKUMAN``.

>>> from assistant.hand import parse_hand
>>> from assistant.tiles import Tile
>>> from assistant.variants import SANMA
>>> from assistant.scoring.base import WinContext
>>> from assistant.analysis import decompositions
>>> hand = parse_hand("234p 567p 99p 234s 678s")
>>> ctx = WinContext(SANMA, hand, Tile.from_code("8s"), tsumo=True)
>>> r = readings(ctx, decompositions(hand, SANMA))[0]
>>> r.wait, [y.name for y in YAKU if y.applies(r)]
('ryanmen', ['Menzen tsumo', 'Pinfu'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ...analysis import Decomposition, SetPart
from ..base import WinContext

WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)
NORTH = 30
GREEN = frozenset({19, 20, 21, 23, 25, 32})  # 2s 3s 4s 6s 8s 6z
DRAGON_NAMES = {31: "White", 32: "Green", 33: "Red"}
WIND_NAMES = {27: "East", 28: "South", 29: "West", 30: "North"}


def is_honour(kind: int) -> bool:
    return 27 <= kind < 34


def is_terminal(kind: int) -> bool:
    return kind < 27 and kind % 9 in (0, 8)


def is_simple(kind: int) -> bool:
    return kind < 27 and kind % 9 not in (0, 8)


def suit_index(kind: int) -> int:
    """0 = m, 1 = p, 2 = s, 3 = honours."""
    return kind // 9 if kind < 27 else 3


def wait_shape(part: SetPart | None, win_kind: int) -> str:
    """The wait the winning tile completed: ``tanki`` (pair), ``shanpon`` (pon) or the chow's shape."""
    if part is None:
        return "tanki"
    if part.type != "chow":
        return "shanpon"
    lo = part.kinds[0]
    if win_kind == lo + 1:
        return "kanchan"
    if (win_kind == lo + 2 and lo % 9 == 0) or (win_kind == lo and lo % 9 == 6):
        return "penchan"
    return "ryanmen"


@dataclass(frozen=True)
class Triplet:
    """A pon or kan of the reading: its kind, whether it counts as concealed, whether it is a kan."""

    kind: int
    concealed: bool
    kan: bool


class Reading:
    """One way to read the winning hand: a decomposition plus where the winning tile sits.

    ``win_set`` is the index in ``dec.sets`` of the set the winning tile completed, or ``None`` when it
    completed the pair (standard form) or when the form is seven pairs / thirteen orphans.
    A pon completed by a ron counts as open (for san ankou, suu ankou and fu). Every fact the yaku and
    fu read is computed once here (plain attributes: this runs for every reading of every hand).
    """

    __slots__ = (
        "ctx", "dec", "win_set", "wait", "closed", "form", "standard", "win_kind", "groups", "kinds", "chows",
        "triplets", "triplet_kinds", "pair_kind", "seat_wind", "round_wind", "suits", "pinfu_shape",
    )

    def __init__(self, ctx: WinContext, dec: Decomposition, win_set: int | None, wait: str, closed: bool) -> None:
        self.ctx, self.dec, self.win_set, self.wait, self.closed = ctx, dec, win_set, wait, closed
        self.form = dec.form
        self.standard = dec.form == "standard"
        self.win_kind = ctx.win_tile.kind
        self.seat_wind = ctx.seat_wind
        self.round_wind = ctx.round_wind
        if dec.form == "seven_pairs":
            self.groups: tuple[tuple[int, ...], ...] = tuple((k, k) for k in dec.pair)
        elif dec.form == "thirteen_orphans":
            self.groups = ()
        else:
            self.groups = tuple(s.kinds for s in dec.sets) + ((dec.pair[0],) * 2,)
        if dec.form == "thirteen_orphans":
            self.kinds: tuple[int, ...] = tuple(t.kind for t in ctx.hand.concealed)
        else:
            self.kinds = tuple(k for g in self.groups for k in g)
        self.chows: tuple[int, ...] = tuple(s.kinds[0] for s in dec.sets if s.type == "chow")
        ron = not ctx.tsumo
        self.triplets: tuple[Triplet, ...] = tuple(
            Triplet(s.kinds[0], s.concealed and not (ron and i == win_set), s.type == "kong")
            for i, s in enumerate(dec.sets) if s.type != "chow"
        )
        self.triplet_kinds: frozenset[int] = frozenset(t.kind for t in self.triplets)
        self.pair_kind: int | None = dec.pair[0] if self.standard else None
        self.suits: frozenset[int] = frozenset(suit_index(k) for k in self.kinds)
        # pinfu: closed, four chows, a pair that scores no fu, won on a two-sided wait
        self.pinfu_shape: bool = (
            self.standard and closed and not ctx.hand.melds and len(self.chows) == 4
            and self.pair_kind not in self.value_pair_kinds() and wait == "ryanmen"
        )

    def value_pair_kinds(self) -> tuple[int, ...]:
        """Kinds whose pair scores fu / whose pon scores yakuhai: dragons, seat wind, round wind."""
        return DRAGONS + (self.seat_wind, self.round_wind)


def readings(ctx: WinContext, decs: Iterable[Decomposition]) -> list[Reading]:
    """Every (decomposition, winning-tile placement) pair of a complete hand."""
    win = ctx.win_tile.kind
    closed = all(m.concealed for m in ctx.hand.melds)
    out: list[Reading] = []
    for d in decs:
        if d.form == "seven_pairs":
            out.append(Reading(ctx, d, None, "tanki", closed))
            continue
        if d.form == "thirteen_orphans":
            out.append(Reading(ctx, d, None, "thirteen-sided" if d.pair[0] == win else "single", closed))
            continue
        seen: set[tuple] = set()
        if d.pair[0] == win:
            seen.add(("pair",))
            out.append(Reading(ctx, d, None, "tanki", closed))
        for i, s in enumerate(d.sets):
            if s.meld is not None or win not in s.kinds:
                continue
            key = (s.type, s.kinds)
            if key in seen:
                continue
            seen.add(key)
            out.append(Reading(ctx, d, i, wait_shape(s, win), closed))
    return out


# ---------------------------------------------------------------------------------------------
# Yaku


class Yaku:
    """One yaku: ``name``, ``han_closed`` and ``han_open`` (0 = not available open) and a predicate."""

    name: ClassVar[str] = ""
    han_closed: ClassVar[int] = 0
    han_open: ClassVar[int] = 0

    def applies(self, r: Reading) -> bool:
        raise NotImplementedError

    def han(self, r: Reading) -> int:
        """The han this yaku is worth in this reading (closed or open value)."""
        return self.han_closed if r.closed else self.han_open

    def __repr__(self) -> str:
        return f"<yaku {self.name}>"


class Riichi(Yaku):
    name, han_closed = "Riichi", 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.riichi and not r.ctx.double_riichi


class DoubleRiichi(Yaku):
    name, han_closed = "Double riichi", 2

    def applies(self, r: Reading) -> bool:
        return r.ctx.double_riichi


class Ippatsu(Yaku):
    name, han_closed = "Ippatsu", 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.ippatsu


class MenzenTsumo(Yaku):
    name, han_closed = "Menzen tsumo", 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.tsumo and r.closed


class Pinfu(Yaku):
    name, han_closed = "Pinfu", 1

    def applies(self, r: Reading) -> bool:
        return r.pinfu_shape


def _chow_pairs(r: Reading) -> int:
    return sum(n // 2 for n in Counter(r.chows).values())


class Iipeikou(Yaku):
    name, han_closed = "Iipeikou", 1

    def applies(self, r: Reading) -> bool:
        return r.standard and r.closed and _chow_pairs(r) == 1


class Ryanpeikou(Yaku):
    name, han_closed = "Ryanpeikou", 3

    def applies(self, r: Reading) -> bool:
        return r.standard and r.closed and _chow_pairs(r) == 2


class Tanyao(Yaku):
    name, han_closed, han_open = "Tanyao", 1, 1

    def applies(self, r: Reading) -> bool:
        if not r.closed and not r.ctx.option("kuitan"):
            return False
        return r.form != "thirteen_orphans" and all(is_simple(k) for k in r.kinds)


class DragonPon(Yaku):
    """Yakuhai: a pon or kan of one dragon."""

    han_closed, han_open = 1, 1

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.name = f"Yakuhai: {DRAGON_NAMES[kind]}"  # type: ignore[misc]

    def applies(self, r: Reading) -> bool:
        return self.kind in r.triplet_kinds


class SeatWind(Yaku):
    name, han_closed, han_open = "Yakuhai: seat wind", 1, 1

    def applies(self, r: Reading) -> bool:
        return r.seat_wind in r.triplet_kinds


class RoundWind(Yaku):
    name, han_closed, han_open = "Yakuhai: round wind", 1, 1

    def applies(self, r: Reading) -> bool:
        return r.round_wind != NORTH and r.round_wind in r.triplet_kinds


class Haitei(Yaku):
    name, han_closed, han_open = "Haitei", 1, 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.haitei


class Houtei(Yaku):
    name, han_closed, han_open = "Houtei", 1, 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.houtei


class Rinshan(Yaku):
    name, han_closed, han_open = "Rinshan kaihou", 1, 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.rinshan


class Chankan(Yaku):
    name, han_closed, han_open = "Chankan", 1, 1

    def applies(self, r: Reading) -> bool:
        return r.ctx.chankan


class Chiitoitsu(Yaku):
    name, han_closed = "Chiitoitsu", 2

    def applies(self, r: Reading) -> bool:
        return r.form == "seven_pairs"


class SanshokuDoujun(Yaku):
    """The same chow in all three suits; impossible in sanma (no man chows), kept for completeness."""

    name, han_closed, han_open = "Sanshoku doujun", 2, 1

    def applies(self, r: Reading) -> bool:
        chows = set(r.chows)
        return any({n, n + 9, n + 18} <= chows for n in range(7))


class Ittsu(Yaku):
    name, han_closed, han_open = "Ittsu", 2, 1

    def applies(self, r: Reading) -> bool:
        chows = set(r.chows)
        return any({b, b + 3, b + 6} <= chows for b in (0, 9, 18))


def _every_group_has(r: Reading, test) -> bool:
    return all(any(test(k) for k in g) for g in r.groups)


class Chanta(Yaku):
    name, han_closed, han_open = "Chanta", 2, 1

    def applies(self, r: Reading) -> bool:
        return (
            r.standard and bool(r.chows) and any(is_honour(k) for k in r.kinds)
            and _every_group_has(r, lambda k: is_terminal(k) or is_honour(k))
        )


class Junchan(Yaku):
    name, han_closed, han_open = "Junchan", 3, 2

    def applies(self, r: Reading) -> bool:
        return r.standard and bool(r.chows) and _every_group_has(r, is_terminal)


class Toitoi(Yaku):
    name, han_closed, han_open = "Toitoi", 2, 2

    def applies(self, r: Reading) -> bool:
        return r.standard and len(r.triplets) == 4


class SanAnkou(Yaku):
    name, han_closed, han_open = "San ankou", 2, 2

    def applies(self, r: Reading) -> bool:
        return sum(t.concealed for t in r.triplets) == 3


class SanshokuDoukou(Yaku):
    name, han_closed, han_open = "Sanshoku doukou", 2, 2

    def applies(self, r: Reading) -> bool:
        return any({n, n + 9, n + 18} <= r.triplet_kinds for n in range(9))


class SanKantsu(Yaku):
    name, han_closed, han_open = "San kantsu", 2, 2

    def applies(self, r: Reading) -> bool:
        return sum(t.kan for t in r.triplets) == 3


class Honroutou(Yaku):
    name, han_closed, han_open = "Honroutou", 2, 2

    def applies(self, r: Reading) -> bool:
        return r.form != "thirteen_orphans" and all(is_terminal(k) or is_honour(k) for k in r.kinds)


class Shousangen(Yaku):
    name, han_closed, han_open = "Shousangen", 2, 2

    def applies(self, r: Reading) -> bool:
        return r.standard and len(r.triplet_kinds & set(DRAGONS)) == 2 and r.pair_kind in DRAGONS


class Honitsu(Yaku):
    name, han_closed, han_open = "Honitsu", 3, 2

    def applies(self, r: Reading) -> bool:
        return r.form != "thirteen_orphans" and 3 in r.suits and len(r.suits) == 2


class Chinitsu(Yaku):
    name, han_closed, han_open = "Chinitsu", 6, 5

    def applies(self, r: Reading) -> bool:
        return len(r.suits) == 1 and 3 not in r.suits


class Renhou(Yaku):
    """Renhou as a mangan-valued yaku (5 han, with ``sanma.renhou: mangan``): a non-dealer's ron in the
    first go-around before any call, passed as ``chiihou`` with ``tsumo=False``."""

    name, han_closed = "Renhou", 5

    def applies(self, r: Reading) -> bool:
        return r.ctx.chiihou and not r.ctx.tsumo and r.ctx.option("renhou") == "mangan"


YAKU: tuple[Yaku, ...] = (
    Riichi(), DoubleRiichi(), Ippatsu(), MenzenTsumo(), Pinfu(), Iipeikou(), Ryanpeikou(), Tanyao(),
    DragonPon(31), DragonPon(32), DragonPon(33), SeatWind(), RoundWind(), Haitei(), Houtei(), Rinshan(),
    Chankan(), Chiitoitsu(), SanshokuDoujun(), Ittsu(), Chanta(), Junchan(), Toitoi(), SanAnkou(),
    SanshokuDoukou(), SanKantsu(), Honroutou(), Shousangen(), Honitsu(), Chinitsu(), Renhou(),
)
"""Every ordinary yaku of §5/§6, in the order they are listed there."""


# ---------------------------------------------------------------------------------------------
# Yakuman


class Yakuman:
    """One yakuman: ``name``, its multiple ``times`` (2 = a double yakuman, counted as 1 while
    ``sanma.double_yakuman`` is off) and a predicate."""

    name: ClassVar[str] = ""
    times: ClassVar[int] = 1

    def applies(self, r: Reading) -> bool:
        raise NotImplementedError

    def value(self, r: Reading) -> int:
        if self.times > 1 and not r.ctx.option("double_yakuman"):
            return 1
        return self.times

    def __repr__(self) -> str:
        return f"<yakuman {self.name}>"


class KokushiMusou(Yakuman):
    name = "Kokushi musou"

    def applies(self, r: Reading) -> bool:
        return r.form == "thirteen_orphans" and r.dec.pair[0] != r.win_kind


class KokushiMusou13(Yakuman):
    name, times = "Kokushi musou (13-sided wait)", 2

    def applies(self, r: Reading) -> bool:
        return r.form == "thirteen_orphans" and r.dec.pair[0] == r.win_kind


def _concealed_triplets(r: Reading) -> int:
    return sum(t.concealed for t in r.triplets)


class SuuAnkou(Yakuman):
    name = "Suu ankou"

    def applies(self, r: Reading) -> bool:
        return r.standard and _concealed_triplets(r) == 4 and r.wait != "tanki"


class SuuAnkouTanki(Yakuman):
    name, times = "Suu ankou (single wait)", 2

    def applies(self, r: Reading) -> bool:
        return r.standard and _concealed_triplets(r) == 4 and r.wait == "tanki"


class Daisangen(Yakuman):
    name = "Daisangen"

    def applies(self, r: Reading) -> bool:
        return set(DRAGONS) <= r.triplet_kinds


class Shousuushii(Yakuman):
    name = "Shousuushii"

    def applies(self, r: Reading) -> bool:
        return r.standard and len(r.triplet_kinds & set(WINDS)) == 3 and r.pair_kind in WINDS


class Daisuushii(Yakuman):
    name, times = "Daisuushii", 2

    def applies(self, r: Reading) -> bool:
        return set(WINDS) <= r.triplet_kinds


class Tsuuiisou(Yakuman):
    name = "Tsuuiisou"

    def applies(self, r: Reading) -> bool:
        return r.form != "thirteen_orphans" and all(is_honour(k) for k in r.kinds)


class Ryuuiisou(Yakuman):
    name = "Ryuuiisou"

    def applies(self, r: Reading) -> bool:
        return r.form != "thirteen_orphans" and all(k in GREEN for k in r.kinds)


class Chinroutou(Yakuman):
    name = "Chinroutou"

    def applies(self, r: Reading) -> bool:
        return r.form != "thirteen_orphans" and all(is_terminal(k) for k in r.kinds)


class SuuKantsu(Yakuman):
    name = "Suu kantsu"

    def applies(self, r: Reading) -> bool:
        return sum(t.kan for t in r.triplets) == 4


def _nine_gates_extra(r: Reading) -> int | None:
    """For a closed one-suit hand 1112345678999 + x without melds: the rank index of x, else None."""
    if not r.standard or r.ctx.hand.melds or len(r.suits) != 1 or 3 in r.suits:
        return None
    base = min(r.kinds) // 9 * 9
    counts = [0] * 9
    for k in r.kinds:
        counts[k - base] += 1
    extra = [c - need for c, need in zip(counts, (3, 1, 1, 1, 1, 1, 1, 1, 3), strict=True)]
    if min(extra) < 0:
        return None
    return extra.index(1)


class ChuurenPoutou(Yakuman):
    name = "Chuuren poutou"

    def applies(self, r: Reading) -> bool:
        x = _nine_gates_extra(r)
        return x is not None and x != r.win_kind % 9


class ChuurenPoutou9(Yakuman):
    name, times = "Chuuren poutou (9-sided wait)", 2

    def applies(self, r: Reading) -> bool:
        x = _nine_gates_extra(r)
        return x is not None and x == r.win_kind % 9


class Tenhou(Yakuman):
    name = "Tenhou"

    def applies(self, r: Reading) -> bool:
        return r.ctx.tenhou


class Chiihou(Yakuman):
    name = "Chiihou"

    def applies(self, r: Reading) -> bool:
        return r.ctx.chiihou and r.ctx.tsumo


class RenhouYakuman(Yakuman):
    """Renhou with ``sanma.renhou: yakuman``: chiihou flag on a ron."""

    name = "Renhou"

    def applies(self, r: Reading) -> bool:
        return r.ctx.chiihou and not r.ctx.tsumo and r.ctx.option("renhou") == "yakuman"


YAKUMAN: tuple[Yakuman, ...] = (
    KokushiMusou(), KokushiMusou13(), SuuAnkou(), SuuAnkouTanki(), Daisangen(), Shousuushii(), Daisuushii(),
    Tsuuiisou(), Ryuuiisou(), Chinroutou(), SuuKantsu(), ChuurenPoutou(), ChuurenPoutou9(), Tenhou(),
    Chiihou(), RenhouYakuman(),
)
"""Every yakuman of §6; they stack with each other."""


def yaku_of(r: Reading) -> list[tuple[Yaku, int]]:
    """The ordinary yaku of a reading with their han (zero-han entries, e.g. open-only misses, dropped)."""
    out = []
    for y in YAKU:
        if y.applies(r):
            han = y.han(r)
            if han:
                out.append((y, han))
    return out


def yakuman_of(r: Reading) -> list[tuple[Yakuman, int]]:
    """The yakuman of a reading with their multiples."""
    return [(y, y.value(r)) for y in YAKUMAN if y.applies(r)]


def names(items: Sequence[tuple[Yaku | Yakuman, int]]) -> list[str]:
    return [y.name for y, _ in items]
