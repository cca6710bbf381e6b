"""Scoring for sanma, three-player riichi (``shared/rules/sanma.md`` §2, §5–§9).

``score(ctx)`` reads every decomposition of the winning hand and every place the winning tile can sit
in it, scores each reading (yakuman, else yaku + dora with fu), keeps the one that pays most and
settles it: ron from the discarder, tsumo with tsumo loss (or the split option), honba, riichi sticks
and pao. The yaku are in :mod:`.yaku`, fu in :mod:`.fu`, base points and payments in :mod:`.points`;
the table options are read once into :class:`SanmaOptions`.

Seats: 0 = East (dealer), 1 = South, 2 = West.

Worked example E1 of sanma.md (South tsumo, 1 han 30 fu, tsumo loss):

>>> from assistant.hand import parse_hand
>>> from assistant.tiles import Tile
>>> from assistant.variants import SANMA
>>> from assistant.scoring.base import WinContext
>>> r = score(WinContext(SANMA, parse_hand("111m 234p 678p 34s 99s 5s*"), Tile.from_code("5s"),
...                      tsumo=True, seat=1))
>>> r.total, r.fu, [(p.payer, p.amount) for p in r.payments], r.net(3)
(1, 30, [(0, 500), (2, 300)], [-500, 800, -300])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...analysis import decompositions
from ...errors import TileError
from ...hand import Meld, validate_hand
from ...tiles import Tile, dora_from_indicator, kind_code
from ..base import Payment, ScoreItem, ScoreResult, WinContext
from .fu import fu_of
from .points import SEAT_NAMES, HandValue, hand_points, hand_value, win_payments, yakuman_name
from .yaku import DRAGONS, NORTH, WINDS, YAKU, YAKUMAN, Reading, Yaku, Yakuman, readings, yaku_of, yakuman_of

__all__ = [
    "YAKU", "YAKUMAN", "SanmaOptions", "Yaku", "Yakuman", "count_dora", "liable_seat", "nagashi_mangan",
    "score",
]

PAO_YAKUMAN = {"daisangen": "Daisangen", "daisuushii": "Daisuushii", "suukantsu": "Suu kantsu"}


@dataclass(frozen=True)
class SanmaOptions:
    """The table options scoring reads (``sanma.*``, defaults in the variant's ``options``)."""

    red_fives: bool
    kuitan: bool
    double_yakuman: bool
    kazoe: str
    renhou: str
    double_wind_pair_fu: int
    kiriage: bool
    tsumo_mode: str
    honba: dict
    pao: tuple[str, ...]

    @classmethod
    def of(cls, ctx: WinContext) -> SanmaOptions:
        red = ctx.option("red_fives")
        pao = ctx.option("pao")
        if pao in (None, False, "none", ()):
            pao = ()
        elif isinstance(pao, str):
            pao = (pao,)
        pao = tuple(pao)
        unknown = set(pao) - set(PAO_YAKUMAN)
        if unknown:
            raise ValueError(f"sanma.pao: unknown yakuman {sorted(unknown)}; use {sorted(PAO_YAKUMAN)} or 'none'")
        renhou = ctx.option("renhou")
        if renhou not in ("off", "mangan", "yakuman"):
            raise ValueError(f"sanma.renhou must be 'off', 'mangan' or 'yakuman', not {renhou!r}")
        dwp = int(ctx.option("double_wind_pair_fu"))
        if dwp not in (2, 4):
            raise ValueError(f"sanma.double_wind_pair_fu must be 4 or 2, not {dwp}")
        return cls(
            red_fives=red not in (False, None, "none", "off", 0),
            kuitan=bool(ctx.option("kuitan")),
            double_yakuman=bool(ctx.option("double_yakuman")),
            kazoe=ctx.option("kazoe"),
            renhou=renhou,
            double_wind_pair_fu=dwp,
            kiriage=bool(ctx.option("kiriage")),
            tsumo_mode=ctx.option("tsumo_mode"),
            honba=dict(ctx.option("honba")),
            pao=pao,
        )


# ---------------------------------------------------------------------------------------------
# Checking the context


def _kita_count(ctx: WinContext) -> int:
    """Norths set aside: ``ctx.kita``, or the Norths written in the hand's bonus area (``| 4z4z``)."""
    bonus_norths = sum(1 for t in ctx.hand.bonus if t.kind == NORTH)
    if ctx.kita and bonus_norths and ctx.kita != bonus_norths:
        raise ValueError(f"kita={ctx.kita} but the bonus area shows {bonus_norths} North(s)")
    kita = ctx.kita or bonus_norths
    if not 0 <= kita <= 4:
        raise ValueError(f"kita must be 0-4 set-aside Norths, not {kita}")
    return kita


def _check_reds(ctx: WinContext, visible: Sequence[Tile]) -> None:
    """With red fives in play one copy of 5p and of 5s is red, so at most three plain ones exist."""
    plain = Counter(t.kind for t in ctx.hand.all_tiles() + list(visible) if not t.red)
    for kind, reds in ctx.variant.red_fives.items():
        cap = ctx.variant.copies[kind] - reds
        if plain[kind] > cap:
            code = kind_code(kind)
            raise TileError(code, 0, f"{plain[kind]} plain {code}: with red fives one of the four {code} "
                                     f"is the red {Tile(kind, True).code}")


def _check_context(ctx: WinContext, opts: SanmaOptions) -> int:
    """Raise ValueError / TileError for a win that cannot happen; return the number of kita."""
    if ctx.variant.name != "sanma":
        raise ValueError(f"the sanma scorer cannot score a {ctx.variant.name} hand")
    hand = ctx.hand
    if not 0 <= ctx.seat < 3:
        raise ValueError(f"seat must be 0 (East), 1 (South) or 2 (West), not {ctx.seat}")
    if ctx.round_wind not in (27, 28, 29):
        raise ValueError(f"round wind must be East, South or West (1z-3z) in sanma, not {kind_code(ctx.round_wind)}")
    for m in hand.melds:
        if m.type == "chow":
            raise ValueError(f"sanma has no chi: {m.format()} cannot be a meld")
        if m.source is not None and m.source not in (1, 2):
            raise ValueError(f"{m.format()}: in sanma a meld comes from 1 or 2 seats back")
    kita = _kita_count(ctx)
    visible = tuple(ctx.dora_indicators) + tuple(ctx.ura_indicators)
    validate_hand(hand, ctx.variant, sizes=(ctx.variant.full_hand_size,), visible=visible)
    if opts.red_fives:
        _check_reds(ctx, visible)
    norths = sum(1 for t in hand.all_tiles() + list(visible) if t.kind == NORTH)
    norths += kita - sum(1 for t in hand.bonus if t.kind == NORTH)
    if norths > 4:
        raise ValueError(f"{norths} Norths (hand, melds, indicators and {kita} set aside): the set has 4")
    for t in visible:
        if t.kind >= 34:
            raise ValueError(f"{t.code} cannot be a dora indicator")
    win = ctx.win_tile
    if not any(t.kind == win.kind for t in hand.concealed):
        raise ValueError(f"the winning tile {win.code} is not among the concealed tiles")
    if hand.win_tile is not None and hand.win_tile.kind != win.kind:
        raise ValueError(f"the hand marks {hand.win_tile.code}* but the winning tile is {win.code}")
    if ctx.tsumo:
        if ctx.discarder is not None:
            raise ValueError("a tsumo has no discarder")
    else:
        if ctx.discarder is None or not 0 <= ctx.discarder < 3 or ctx.discarder == ctx.seat:
            raise ValueError(f"a ron needs the discarder's seat (0-2, not the winner's), got {ctx.discarder}")
    open_hand = any(not m.concealed for m in hand.melds)
    rules = [
        ((ctx.riichi or ctx.double_riichi) and open_hand, "riichi needs a closed hand"),
        (ctx.ippatsu and not (ctx.riichi or ctx.double_riichi), "ippatsu needs riichi"),
        (ctx.rinshan and not ctx.tsumo, "rinshan kaihou is a tsumo"),
        (ctx.rinshan and not kita and not any(m.is_kong for m in hand.melds),
         "rinshan kaihou needs a kan or a kita replacement"),
        (ctx.chankan and ctx.tsumo, "chankan is a ron"),
        (ctx.haitei and not ctx.tsumo, "haitei is a tsumo"),
        (ctx.houtei and ctx.tsumo, "houtei is a ron"),
        (ctx.haitei and ctx.rinshan, "no kan or kita on the haitei draw, so no rinshan with haitei"),
        (ctx.houtei and ctx.chankan, "houtei and chankan cannot both happen"),
        (ctx.tenhou and (ctx.seat != 0 or not ctx.tsumo or bool(hand.melds)),
         "tenhou is the dealer's tsumo on the initial deal, without melds"),
        (ctx.chiihou and (ctx.seat == 0 or bool(hand.melds)), "chiihou is a non-dealer's first-draw win without calls"),
    ]
    for bad, why in rules:
        if bad:
            raise ValueError(why)
    if ctx.honba < 0 or ctx.riichi_sticks < 0:
        raise ValueError("honba and riichi sticks cannot be negative")
    return kita


# ---------------------------------------------------------------------------------------------
# Dora


def count_dora(ctx: WinContext, kita: int, opts: SanmaOptions) -> list[ScoreItem]:
    """Dora, ura dora (riichi only), red fives and nukidora as han items (zero counts left out).

    Each indicator points (with the sanma wrap ``1m`` → ``9m``) to a kind; every tile of that kind in the
    hand, melds and kans counts once per indicator, and each set-aside North counts again when North is
    the dora. Each set-aside North is also one han of nukidora.
    """
    present = frozenset(ctx.variant.playing_kinds)
    held = [0] * 34
    for t in ctx.hand.concealed:
        held[t.kind] += 1
    for m in ctx.hand.melds:
        for t in m.tiles:
            held[t.kind] += 1
    held[NORTH] += kita

    def count(indicators: Sequence[Tile]) -> int:
        return sum(held[dora_from_indicator(t.kind, present)] for t in indicators)

    items = []
    dora = count(ctx.dora_indicators)
    if dora:
        items.append(ScoreItem("Dora", dora, "han"))
    if ctx.riichi or ctx.double_riichi:
        ura = count(ctx.ura_indicators)
        if ura:
            items.append(ScoreItem("Ura dora", ura, "han"))
    if opts.red_fives:
        red = sum(1 for t in ctx.hand.concealed if t.red) + sum(1 for m in ctx.hand.melds for t in m.tiles if t.red)
        if red:
            items.append(ScoreItem("Red five", red, "han"))
    if kita:
        items.append(ScoreItem("Nukidora", kita, "han", "Norths set aside"))
    return items


# ---------------------------------------------------------------------------------------------
# Pao


def liable_seat(ctx: WinContext, yakuman: Sequence[str], opts: SanmaOptions) -> int | None:
    """The seat liable (pao) for this win, or None.

    Pao applies to the yakuman named in ``sanma.pao`` that the hand scores. The liable seat is
    ``ctx.liable`` when given; otherwise it is the source of the meld that completed the 3rd dragon set
    (daisangen), the 4th wind set (daisuushii) or the 4th kan (suukantsu) — melds are listed in call
    order, so that is the last such meld, and it must be claimed from a discard (``@k``). An added kan
    ``[7777z@1+]`` counts by the source of its pon for the dragon and wind sets, but nobody fed the 4th
    tile of a kan, so it makes nobody liable for suukantsu; neither does a concealed kan or a meld
    without ``@k``.
    """
    scored = [key for key, name in PAO_YAKUMAN.items() if key in opts.pao and name in yakuman]
    if not scored:
        return None
    if ctx.liable is not None:
        if not 0 <= ctx.liable < 3 or ctx.liable == ctx.seat:
            raise ValueError(f"liable seat must be another player's seat 0-2, not {ctx.liable}")
        return ctx.liable
    for key in scored:
        if key == "daisangen":
            melds = [m for m in ctx.hand.melds if m.base_kind in DRAGONS]
            need = 3
        elif key == "daisuushii":
            melds = [m for m in ctx.hand.melds if m.base_kind in WINDS]
            need = 4
        else:
            melds = [m for m in ctx.hand.melds if m.is_kong]
            need = 4
        if len(melds) == need:
            last: Meld = melds[-1]
            if last.added and key == "suukantsu":
                continue
            if not last.concealed and last.source is not None:
                return ctx.source_seat(last)
    return None


# ---------------------------------------------------------------------------------------------
# Evaluating readings


@dataclass
class _Scored:
    reading: Reading
    items: list[ScoreItem]
    fu: int
    fu_items: list[ScoreItem]
    value: HandValue
    points: int
    has_yaku: bool
    yakuman_names: list[str]

    @property
    def key(self) -> tuple[int, int, int, int]:
        """Most points first, then a real yakuman, then most han, then most fu."""
        return (self.points if self.has_yaku else -1, self.value.yakuman > 0, self.value.han, self.fu)


def _evaluate(r: Reading, dora: list[ScoreItem], opts: SanmaOptions) -> _Scored:
    fu, fu_items = fu_of(r)
    ym = yakuman_of(r)
    if ym:
        times = sum(v for _, v in ym)
        items = [ScoreItem(y.name, v, "yakuman") for y, v in ym]
        value = hand_value(13 * times, fu, times, kazoe=opts.kazoe, kiriage=opts.kiriage)
        points = hand_points(r.ctx.seat, value.base, r.ctx.tsumo, opts.tsumo_mode)
        return _Scored(r, items, fu, fu_items, value, points, True, [y.name for y, _ in ym])
    yk = yaku_of(r)
    items = [ScoreItem(y.name, h, "han") for y, h in yk]
    has_yaku = bool(items)
    han = sum(h for _, h in yk)
    if has_yaku:
        items += dora
        han += sum(i.value for i in dora)
    value = hand_value(han, fu, 0, kazoe=opts.kazoe, kiriage=opts.kiriage)
    points = hand_points(r.ctx.seat, value.base, r.ctx.tsumo, opts.tsumo_mode) if has_yaku else 0
    return _Scored(r, items, fu, fu_items, value, points, has_yaku, [])


def _kinds_text(kinds: Sequence[int]) -> str:
    """``(9, 10, 11)`` -> ``123p`` (kinds of one suit, as in a set or a pair)."""
    return "".join(str(k % 9 + 1) if k < 27 else str(k - 26) for k in kinds) + "mpsz"[min(kinds[0] // 9, 3)]


def shape_text(r: Reading) -> str:
    """The reading's sets and pair in hand notation, e.g. ``[777z@1] 123p 456p 789p 55p``."""
    dec = r.dec
    if dec.form == "seven_pairs":
        return " ".join(_kinds_text((k, k)) for k in dec.pair)
    if dec.form == "thirteen_orphans":
        return f"thirteen orphans (pair {kind_code(dec.pair[0])})"
    parts = [s.meld.format() if s.meld is not None else _kinds_text(s.kinds) for s in dec.sets]
    parts.append(_kinds_text((dec.pair[0], dec.pair[0])))
    return " ".join(parts)


def _reading_text(r: Reading, text: str | None = None) -> str:
    text = text or shape_text(r)
    return f"{text}; won on {kind_code(r.win_kind)} ({r.wait})"


def score(ctx: WinContext) -> ScoreResult:
    """Score a sanma win: the reading that pays most, its yaku/yakuman, dora, fu, limit and payments.

    Raises :class:`~assistant.errors.TileError` or ValueError for a hand or context that cannot occur
    (wrong size, tiles not in the set, riichi with an open hand, a ron without a discarder, …).
    A complete hand without a yaku, or a hand that is not complete, gives ``legal=False``.
    """
    opts = SanmaOptions.of(ctx)
    kita = _check_context(ctx, opts)
    decs = decompositions(ctx.hand, ctx.variant)
    if not decs:
        return ScoreResult(
            legal=False, verdict="not a complete hand: it cannot be read as four sets and a pair, "
            "seven pairs or thirteen orphans", unit="han",
            explanation="The tiles do not form a winning hand, so there is nothing to score.",
        )
    dora = count_dora(ctx, kita, opts)
    scored = [_evaluate(r, dora, opts) for r in readings(ctx, decs)]
    best = max(scored, key=lambda s: s.key)
    if not best.has_yaku:
        shown = ", ".join(f"{i.name.lower()} {i.value}" for i in dora)
        extra = f" (this hand has {shown})" if shown else ""
        return ScoreResult(
            legal=False,
            verdict="no yaku: the hand is complete but has no yaku; dora, red fives and Norths set aside "
                    f"are not yaku{extra}",
            items=list(dora), fu=best.fu, fu_breakdown=best.fu_items, unit="han",
            reading=_reading_text(best.reading),
            explanation="The hand is complete but scores no yaku, so it cannot win. "
                        "A closed hand could win by tsumo (menzen tsumo) or after riichi.",
        )
    return _settle(ctx, best, opts)


def _settle(ctx: WinContext, best: _Scored, opts: SanmaOptions) -> ScoreResult:
    value = best.value
    liable = liable_seat(ctx, best.yakuman_names, opts) if value.yakuman else None
    payments = win_payments(
        ctx.seat, value.base, ctx.tsumo, ctx.discarder, mode=opts.tsumo_mode, honba=ctx.honba,
        honba_values=opts.honba, sticks=ctx.riichi_sticks, liable=liable,
    )
    fu = None if best.reading.form == "thirteen_orphans" else best.fu
    shape = shape_text(best.reading)
    if value.yakuman:
        total, unit = value.yakuman, "yakuman"
    else:
        total, unit = value.han, "han"
    limit = value.limit
    verdict = _verdict(ctx, value, fu)
    result = ScoreResult(
        legal=True, verdict=verdict, items=best.items, fu=fu, fu_breakdown=best.fu_items, total=total,
        unit=unit, limit=limit, payments=payments, reading=_reading_text(best.reading, shape),
        extra={"base": value.base, "han": value.han, "fu": fu, "yakuman": value.yakuman,
               "kazoe": value.kazoe, "liable": liable, "hand_points": best.points},
    )
    result.explanation = _explain(ctx, best, result, liable, shape)
    return result


def _verdict(ctx: WinContext, value: HandValue, fu: int | None) -> str:
    how = "tsumo" if ctx.tsumo else "ron"
    if value.yakuman:
        return f"{yakuman_name(value.yakuman)} {how}"
    if value.kazoe:
        return f"{value.han} han: kazoe {value.limit} {how}"
    if value.limit:
        return f"{value.han} han {value.limit} {how}"
    return f"{value.han} han {fu} fu {how}"


def _explain(ctx: WinContext, best: _Scored, result: ScoreResult, liable: int | None, shape: str) -> str:
    who = SEAT_NAMES[ctx.seat] + (" (dealer)" if ctx.seat == 0 else "")
    how = "by tsumo" if ctx.tsumo else f"by ron on {SEAT_NAMES[ctx.discarder or 0]}'s discard"
    parts = [f"{who} wins {how} with {shape}."]
    v = best.value
    if v.yakuman:
        parts.append("Yakuman: " + ", ".join(f"{i.name}" + (f" ({i.value}x)" if i.value > 1 else "")
                                              for i in best.items) + "; other yaku and dora do not count.")
    else:
        parts.append("Yaku and dora: " + ", ".join(f"{i.name} {i.value}" for i in best.items)
                     + f" = {v.han} han.")
        if best.reading.form != "thirteen_orphans":
            fu_text = " + ".join(f"{i.name} {i.value}" for i in best.fu_items if i.value)
            parts.append(f"Fu: {fu_text} = {best.fu}.")
    if v.limit:
        parts.append(f"That is {'a kazoe ' if v.kazoe else ''}{v.limit} (base {v.base}).")
    else:
        parts.append(f"Base points {best.fu} x 2^({v.han}+2) = {v.base}.")
    pays = [f"{SEAT_NAMES[p.payer] if p.payer is not None else 'the table'} pays {p.amount} ({p.reason})"
            for p in result.payments]
    parts.append("; ".join(pays) + ".")
    if ctx.tsumo and liable is None:
        if ctx.option("tsumo_mode") == "loss":
            parts.append("Tsumo loss: the absent North player's share is paid by nobody.")
        else:
            parts.append("Tsumo split: the absent North player's share is halved between the two payers.")
    if liable is not None:
        parts.append(f"{SEAT_NAMES[liable]} is liable (pao) for feeding the decisive set.")
    gain = result.net(3)[ctx.seat]
    parts.append(f"{SEAT_NAMES[ctx.seat]} gains {gain} in all.")
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# Nagashi mangan (§10): a draw-time payment, not a win on a hand


def nagashi_mangan(seat: int, tsumo_mode: str = "loss") -> list[Payment]:
    """Payments for nagashi mangan by ``seat`` at an exhaustive draw: a mangan tsumo with tsumo loss
    (non-dealer 4,000 / 2,000; dealer 4,000 each); no honba, sticks stay on the table (§10).

    >>> [(p.payer, p.amount) for p in nagashi_mangan(2)]
    [(0, 4000), (1, 2000)]
    """
    if not 0 <= seat < 3:
        raise ValueError(f"seat must be 0-2, not {seat}")
    return [Payment(p.payer, p.receiver, p.amount, "nagashi mangan")
            for p in win_payments(seat, 2000, True, None, mode=tsumo_mode)]
