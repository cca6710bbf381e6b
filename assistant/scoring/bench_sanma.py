"""Sanma scoring benchmark against the ``mahjong`` package (v2.1.0), and the seeded random wins it uses.

``python -m assistant.scoring.bench_sanma [--hands 2000] [--seed 7]`` draws the same seeded random winning
sanma hands for both scorers, scores them with :func:`assistant.scoring.sanma.score` and with
``mahjong``'s ``HandCalculator`` (configured to the defaults of ``shared/rules/sanma.md``), and prints
hands scored per second for each, the ratio (measured in the same run) and how many results agree.

:func:`random_wins` builds each hand from sets and a pair (no rejection sampling from random tiles):
closed and open (pons, open/added/concealed kans), ron and tsumo, dealer and not, riichi/double riichi,
ippatsu, rinshan, haitei/houtei, chankan, tenhou/chiihou, dora and ura indicators, red fives, Norths set
aside, seven pairs and thirteen orphans. :func:`to_mahjong` turns a :class:`WinContext` into the
library's arguments; ``tests/test_crosscheck_sanma_mahjong.py`` uses both.

Where sanma.md and the library differ by design the draw stays away from the case:

* honba: the library pays 200 per honba on a ron and 100 from each payer on a tsumo (sanma.md's
  Tenhou-style option); the draw passes honba 0 and the test checks honba separately;
* pao is not modelled by the library (the comparison uses the hand's own value, not who pays it);
* renhou (off by default in sanma.md) is never drawn.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..hand import Hand, Meld, make_meld
from ..tiles import Tile
from ..variants import SANMA
from .base import WinContext

KINDS = tuple(SANMA.playing_kinds)
CHOW_STARTS = tuple(k for k in KINDS if 9 <= k < 27 and k % 9 <= 6)
HONOURS = tuple(range(27, 34))
TERMINALS = (0, 8, 9, 17, 18, 26)
GREEN = (19, 20, 21, 23, 25, 32)
ORPHANS = TERMINALS + HONOURS

# themes bias the draw towards flushes, honour/terminal hands and green hands so that most yaku appear
THEMES: tuple[tuple[str, float], ...] = (
    ("any", 0.45), ("pinzu+honours", 0.12), ("souzu+honours", 0.08), ("pinzu", 0.07), ("souzu", 0.05),
    ("terminals+honours", 0.08), ("honours", 0.05), ("green", 0.04), ("dragons", 0.03), ("winds", 0.03),
    ("outside", 0.05), ("terminals", 0.04),
)
OUTSIDE_CHOWS = (9, 15, 18, 24)  # 123p 789p 123s 789s


def _theme_kinds(theme: str) -> tuple[int, ...]:
    return {
        "any": KINDS,
        "pinzu+honours": tuple(range(9, 18)) + HONOURS,
        "souzu+honours": tuple(range(18, 27)) + HONOURS,
        "pinzu": tuple(range(9, 18)),
        "souzu": tuple(range(18, 27)),
        "terminals+honours": ORPHANS,
        "honours": HONOURS,
        "green": GREEN,
        "dragons": (31, 32, 33) + KINDS,
        "winds": (27, 28, 29, 30) + KINDS,
        "outside": ORPHANS,
        "terminals": TERMINALS,
    }[theme]


@dataclass
class _Draft:
    """A hand being built: counts used, concealed kinds, melds (kind, type, how)."""

    used: Counter
    concealed: list[int]
    melds: list[tuple[int, str]]  # (kind, "pon" | "daiminkan" | "shouminkan" | "ankan")


def _pick_weighted(rng: random.Random, items: Sequence[tuple[str, float]]) -> str:
    x = rng.random() * sum(w for _, w in items)
    for name, w in items:
        x -= w
        if x <= 0:
            return name
    return items[-1][0]


def _standard(rng: random.Random) -> _Draft | None:
    theme = _pick_weighted(rng, THEMES)
    kinds = _theme_kinds(theme)
    if theme in ("dragons", "winds"):
        # several sets of the favoured honours, the rest anything
        favoured = [k for k in kinds[:4] if k >= 27]
        kinds = tuple(favoured) * 6 + KINDS
    starts = [k for k in CHOW_STARTS if k in kinds and k + 1 in kinds and k + 2 in kinds]
    if theme in ("outside", "terminals"):
        starts = list(OUTSIDE_CHOWS)
    used: Counter = Counter()
    n_melds = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))
    melds: list[tuple[int, str]] = []
    concealed: list[int] = []
    for i in range(4):
        if i < n_melds:
            k = rng.choice(kinds)
            how = _pick_weighted(rng, (("pon", 0.6), ("daiminkan", 0.12), ("shouminkan", 0.12), ("ankan", 0.16)))
            need = 3 if how == "pon" else 4
            used[k] += need
            melds.append((k, how))
        elif starts and rng.random() < 0.55:
            k = rng.choice(starts)
            for j in range(3):
                used[k + j] += 1
                concealed.append(k + j)
        else:
            k = rng.choice(kinds)
            used[k] += 3
            concealed.extend([k] * 3)
    k = rng.choice(kinds)
    used[k] += 2
    concealed.extend([k, k])
    if any(n > 4 for n in used.values()):
        return None
    return _Draft(used, concealed, melds)


def _seven_pairs(rng: random.Random) -> _Draft:
    theme = _pick_weighted(rng, THEMES[:7])
    pool = list(_theme_kinds(theme))
    if len(pool) < 7:
        pool = list(KINDS)
    kinds = rng.sample(pool, 7)
    concealed = [k for k in kinds for _ in range(2)]
    return _Draft(Counter(concealed), concealed, [])


def _nine_gates(rng: random.Random) -> _Draft:
    base = rng.choice((9, 18))
    concealed = [base] * 3 + list(range(base + 1, base + 8)) + [base + 8] * 3 + [base + rng.randrange(9)]
    return _Draft(Counter(concealed), concealed, [])


def _kokushi(rng: random.Random) -> _Draft:
    concealed = list(ORPHANS) + [rng.choice(ORPHANS)]
    return _Draft(Counter(concealed), concealed, [])


def _tile(kind: int, red_left: dict[int, int], rng: random.Random, force: frozenset[int] = frozenset()) -> Tile:
    """A tile of ``kind``; a 5p/5s is red half the time while the red copy is free, and always when all
    four copies are in the hand (one of the four is the red five)."""
    if red_left.get(kind) and (kind in force or rng.random() < 0.5):
        red_left[kind] -= 1
        return Tile(kind, True)
    return Tile(kind)


def _make_meld(kind: int, how: str, red_left: dict[int, int], rng: random.Random, force: frozenset[int]) -> Meld:
    n = 3 if how == "pon" else 4
    tiles = [_tile(kind, red_left, rng, force) for _ in range(n)]
    if how == "pon":
        return make_meld(tiles, source=rng.choice((1, 2)))
    if how == "daiminkan":
        return make_meld(tiles, source=rng.choice((1, 2)))
    if how == "shouminkan":
        return make_meld(tiles, added=True, source=rng.choice((1, 2, None)))
    return make_meld(tiles, concealed=True)


def _indicators(rng: random.Random, used: Counter, n: int, red: bool) -> tuple[Tile, ...]:
    out = []
    for _ in range(n):
        # indicators are plain tiles: a plain 5p/5s only while fewer than 3 copies are out (one is red)
        free = [k for k in KINDS if used[k] < (3 if k in (13, 22) and red else 4)]
        k = rng.choice(free)
        used[k] += 1
        out.append(Tile(k))
    return tuple(out)


def _red_fives_on(options: Mapping[str, Any]) -> bool:
    return options.get("red_fives", True) not in (False, None, "none", "off", 0)


def random_win(rng: random.Random, options: Mapping[str, Any] | None = None) -> WinContext:
    """One random winning sanma hand with random (consistent) win conditions and table ``options``.

    ``chiihou`` is drawn on a ron (= renhou) only when ``options`` turn renhou on: with renhou off
    (sanma.md's default) the library would still add its renhou yaku, so the draw avoids it."""
    options = dict(options or {})
    form = rng.random()
    while True:
        if form < 0.08:
            draft: _Draft | None = _seven_pairs(rng)
        elif form < 0.10:
            draft = _kokushi(rng)
        elif form < 0.11:
            draft = _nine_gates(rng)
        else:
            draft = _standard(rng)
        if draft is not None:
            break
    red_left = {13: 1, 22: 1} if _red_fives_on(options) else {}
    force = frozenset(k for k in red_left if draft.used[k] == 4)
    melds = tuple(_make_meld(k, how, red_left, rng, force) for k, how in draft.melds)
    rng.shuffle(draft.concealed)
    concealed = tuple(_tile(k, red_left, rng, force) for k in draft.concealed)
    win_tile = rng.choice(concealed)
    hand = Hand(concealed, melds, (), None, tuple(range(len(concealed))))
    used = Counter(draft.used)
    norths_free = 4 - used[30]
    kita = rng.choice((0,) * 9 + (1, 1, 2, 3, 4)) if norths_free else 0
    kita = min(kita, norths_free)
    used[30] += kita
    seat = rng.randrange(3)
    tsumo = rng.random() < 0.5
    discarder = None if tsumo else rng.choice([s for s in range(3) if s != seat])
    closed = all(m.concealed for m in melds)
    riichi = closed and rng.random() < 0.5
    double_riichi = riichi and rng.random() < 0.1
    ippatsu = riichi and rng.random() < 0.2
    has_kan = any(m.is_kong for m in melds)
    rinshan = tsumo and (has_kan or kita > 0) and rng.random() < 0.15
    haitei = tsumo and not rinshan and rng.random() < 0.05
    houtei = not tsumo and rng.random() < 0.05
    chankan = not tsumo and not houtei and rng.random() < 0.05
    tenhou = seat == 0 and tsumo and not melds and not riichi and rng.random() < 0.05
    renhou_ok = options.get("renhou", "off") != "off"
    chiihou = seat != 0 and (tsumo or renhou_ok) and not melds and not riichi and rng.random() < 0.05
    n_ind = 1 + sum(m.is_kong for m in melds) + (1 if rng.random() < 0.2 else 0)
    dora = _indicators(rng, used, min(n_ind, 5), bool(red_left))
    ura = _indicators(rng, used, len(dora), bool(red_left)) if riichi else ()
    round_wind = 27 if rng.random() < 0.7 else 28
    return WinContext(
        SANMA, hand, win_tile, tsumo, seat=seat, discarder=discarder, round_wind=round_wind,
        dora_indicators=dora, ura_indicators=ura, kita=kita, riichi=riichi, double_riichi=double_riichi,
        ippatsu=ippatsu, rinshan=rinshan, chankan=chankan, haitei=haitei, houtei=houtei, tenhou=tenhou,
        chiihou=chiihou, options=options,
    )


def random_wins(n: int, seed: int, options: Mapping[str, Any] | None = None) -> list[WinContext]:
    """``n`` seeded random winning hands (the same list for the same seed and options)."""
    rng = random.Random(seed)
    return [random_win(rng, options) for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# The mahjong package's side


def to_mahjong(ctx: WinContext, honba: int = 0) -> dict[str, Any]:
    """Keyword arguments for ``HandCalculator.estimate_hand_value`` describing the same win under the
    same table options (sanma.md defaults: three-player, red fives, open tanyao, double yakuman,
    kazoe = yakuman, no kiriage, renhou off), with nukidora = ``ctx.kita`` and ``honba`` counters
    (the library pays them Tenhou-style, 200 per ron / 100 each per tsumo).

    Options the library cannot express raise ValueError: a 2-fu double wind pair and the split tsumo
    mode. (Renhou "off" cannot be told to the library: do not pass ``chiihou`` with a ron then.)"""
    if int(ctx.option("double_wind_pair_fu")) != 4:
        raise ValueError("the mahjong package always gives a double wind pair 4 fu")
    if ctx.option("tsumo_mode") != "loss":
        raise ValueError("the mahjong package only knows tsumo loss")
    renhou = ctx.option("renhou")
    from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
    from mahjong.meld import Meld as MMeld

    next_id: dict[int, int] = {}

    def tile_id(t: Tile) -> int:
        """136-format id: the library's red fives are the first copy of 5p (52) and 5s (88), so plain
        fives take copies 1, 2, 3 first (a fourth plain one only exists with red fives off)."""
        if t.red:
            return t.kind * 4
        i = next_id.get(t.kind, 0)
        next_id[t.kind] = i + 1
        return t.kind * 4 + ((i + 1) % 4 if t.kind in (13, 22) else i)

    tiles: list[int] = []
    win_id = None
    for t in ctx.hand.concealed:
        tid = tile_id(t)
        tiles.append(tid)
        if win_id is None and t.kind == ctx.win_tile.kind:
            win_id = tid
    melds = []
    for m in ctx.hand.melds:
        ids = [tile_id(t) for t in m.tiles]
        tiles.extend(ids)
        if m.type == "pong":
            melds.append(MMeld(meld_type=MMeld.PON, tiles=ids, opened=True))
        elif m.concealed:
            melds.append(MMeld(meld_type=MMeld.KAN, tiles=ids, opened=False))
        elif m.added:
            melds.append(MMeld(meld_type=MMeld.SHOUMINKAN, tiles=ids, opened=True))
        else:
            melds.append(MMeld(meld_type=MMeld.KAN, tiles=ids, opened=True))
    options = OptionalRules(
        is_three_player=True, has_aka_dora=_red_fives_on(ctx.options), has_open_tanyao=bool(ctx.option("kuitan")),
        has_double_yakuman=bool(ctx.option("double_yakuman")),
        kazoe_limit=HandConstants.KAZOE_LIMITED if ctx.option("kazoe") == "yakuman" else HandConstants.KAZOE_SANBAIMAN,
        kiriage=bool(ctx.option("kiriage")), fu_for_open_pinfu=True, fu_for_pinfu_tsumo=False,
        renhou_as_yakuman=renhou == "yakuman",
    )
    config = HandConfig(
        is_tsumo=ctx.tsumo, is_riichi=ctx.riichi or ctx.double_riichi, is_daburu_riichi=ctx.double_riichi,
        is_ippatsu=ctx.ippatsu, is_rinshan=ctx.rinshan, is_chankan=ctx.chankan, is_haitei=ctx.haitei,
        is_houtei=ctx.houtei, is_tenhou=ctx.tenhou, is_chiihou=ctx.chiihou and ctx.tsumo,
        is_renhou=ctx.chiihou and not ctx.tsumo and renhou != "off", player_wind=27 + ctx.seat,
        round_wind=ctx.round_wind, tsumi_number=honba, kyoutaku_number=0, options=options,
        num_nuki_dora=ctx.kita,
    )
    return {
        "tiles": tiles, "win_tile": win_id, "melds": melds or None,
        "dora_indicators": [t.kind * 4 + 3 for t in ctx.dora_indicators] or None,
        "ura_dora_indicators": [t.kind * 4 + 3 for t in ctx.ura_indicators] or None, "config": config,
    }


def mahjong_score(args: dict[str, Any]):
    """Run the library on arguments from :func:`to_mahjong`."""
    from mahjong.hand_calculating.hand import HandCalculator

    return HandCalculator.estimate_hand_value(**args)


def main(argv: Sequence[str] | None = None) -> int:
    """Print hands scored per second for our scorer and the ``mahjong`` package, and the ratio."""
    from . import score

    parser = argparse.ArgumentParser(prog="bench_sanma", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    cases = random_wins(args.hands, args.seed)
    lib_args = [to_mahjong(c) for c in cases]
    t0 = time.perf_counter()
    ours = [score(c) for c in cases]
    t1 = time.perf_counter()
    theirs = [mahjong_score(a) for a in lib_args]
    t2 = time.perf_counter()
    agree = sum(
        1 for o, t in zip(ours, theirs, strict=True)
        if (o.legal and t.error is None and o.extra["han"] == t.han and o.extra["hand_points"] == t.cost["total"])
        or (not o.legal and t.error is not None)
    )
    ours_rate = len(cases) / (t1 - t0)
    theirs_rate = len(cases) / (t2 - t1)
    print(f"sanma scoring, {len(cases):,} seeded random winning hands (seed {args.seed})")
    print(f"  ours:    {ours_rate:10,.0f} hands/s")
    print(f"  mahjong: {theirs_rate:10,.0f} hands/s")
    print(f"  ratio:   {ours_rate / theirs_rate:10.2f}x (ours / mahjong, same run)")
    print(f"  agreeing on han and points: {agree:,} of {len(cases):,}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
