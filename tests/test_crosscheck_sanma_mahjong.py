"""Cross-check of the sanma scorer against the ``mahjong`` package (v2.1.0) on seeded random wins.

The hands come from :func:`assistant.scoring.bench_sanma.random_wins`: built from sets and a pair
(closed and open, pons and all three kinds of kan, seven pairs, thirteen orphans, nine gates), ron and
tsumo, every seat, riichi / double riichi / ippatsu, rinshan (kan or kita), chankan, haitei, houtei,
tenhou, chiihou, dora and ura indicators, red fives and Norths set aside. Both scorers must give the same
legality, han, fu and points. Where sanma.md and the library differ by design the draw stays away
(see the bench module's docstring): honba is passed as 0 and checked separately under the one honba
option the library implements (200 per ron / 100 each per tsumo); pao is not modelled by the library, so
the points compared are the hand's own value; with renhou off no ron is drawn with ``chiihou``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

pytest.importorskip("mahjong")

from assistant.scoring import score  # noqa: E402
from assistant.scoring.base import WinContext  # noqa: E402
from assistant.scoring.bench_sanma import mahjong_score, random_wins, to_mahjong  # noqa: E402
from assistant.scoring.sanma import score as sanma_score  # noqa: E402

SEED = 20261130


def _describe(ctx: WinContext, ours, theirs) -> str:
    flags = [f for f in ("riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
                         "tenhou", "chiihou") if getattr(ctx, f)]
    return (
        f"hand {ctx.hand.format()} win {ctx.win_tile.code} {'tsumo' if ctx.tsumo else 'ron'} seat {ctx.seat} "
        f"discarder {ctx.discarder} round {ctx.round_wind} kita {ctx.kita} flags {flags} "
        f"dora {[t.code for t in ctx.dora_indicators]} ura {[t.code for t in ctx.ura_indicators]} "
        f"options {dict(ctx.options)}\n"
        f"  ours:    legal={ours.legal} verdict={ours.verdict!r} han={ours.extra.get('han')} fu={ours.fu} "
        f"points={ours.extra.get('hand_points')} items={[(i.name, i.value) for i in ours.items]} "
        f"reading={ours.reading!r}\n"
        f"  mahjong: error={theirs.error} han={theirs.han} fu={theirs.fu} "
        f"points={theirs.cost['total'] if theirs.cost else None} yaku={theirs.yaku}"
    )


def _disagreement(ctx: WinContext, ours) -> str | None:
    theirs = mahjong_score(to_mahjong(ctx))
    if not ours.legal or theirs.error is not None:
        same = (not ours.legal) and theirs.error == "no_yaku" and ours.verdict.startswith("no yaku")
        return None if same else _describe(ctx, ours, theirs)
    lib_fu = theirs.fu if ours.fu is not None else 0  # thirteen orphans: we give no fu, the library 0
    ok = (
        ours.extra["han"] == theirs.han
        and (ours.fu if ours.fu is not None else 0) == lib_fu
        and ours.extra["hand_points"] == theirs.cost["total"]
    )
    if ours.extra["liable"] is None:
        # without pao the payments themselves add up to the hand's value (honba and sticks are 0 here)
        ok = ok and sum(p.amount for p in ours.payments) == theirs.cost["total"]
    return None if ok else _describe(ctx, ours, theirs)


def _check(cases: list[WinContext]) -> list:
    """Score every case with both scorers; print every disagreement in full and fail if there is one."""
    results = [score(ctx) for ctx in cases]
    bad = [d for d in (_disagreement(c, r) for c, r in zip(cases, results, strict=True)) if d is not None]
    for d in bad:
        print(d)
    assert not bad, f"{len(bad)} of {len(cases)} disagree; first:\n" + "\n".join(bad[:10])
    return results


def test_draw_covers_the_cases_it_claims():
    cases = random_wins(2500, SEED)
    c = Counter()
    for ctx in cases:
        c["closed" if all(m.concealed for m in ctx.hand.melds) else "open"] += 1
        c["tsumo" if ctx.tsumo else "ron"] += 1
        c["dealer" if ctx.seat == 0 else "non-dealer"] += 1
        c["riichi"] += ctx.riichi
        c["kita"] += ctx.kita > 0
        c["red"] += any(t.red for t in ctx.hand.all_tiles())
        c["kan"] += any(m.is_kong for m in ctx.hand.melds)
        c["dora"] += bool(ctx.dora_indicators)
    for key in ("closed", "open", "tsumo", "ron", "dealer", "non-dealer", "riichi", "kita", "red", "kan"):
        assert c[key] >= 100, (key, c)
    assert c["dora"] == 2500


def test_default_options_agree_with_the_mahjong_package():
    cases = random_wins(2500, SEED)
    results = _check(cases)
    seen = Counter(i.name for r in results if r.legal for i in r.items)
    limits = Counter(r.limit for r in results if r.legal)
    # the draw reaches every yaku and yakuman that sanma allows (renhou is off by default; sanshoku
    # doujun needs man chows, which sanma does not have)
    for name in ("Riichi", "Double riichi", "Ippatsu", "Menzen tsumo", "Pinfu", "Iipeikou", "Ryanpeikou",
                 "Tanyao", "Yakuhai: White", "Yakuhai: Green", "Yakuhai: Red", "Yakuhai: seat wind",
                 "Yakuhai: round wind", "Haitei", "Houtei", "Rinshan kaihou", "Chankan", "Chiitoitsu", "Ittsu",
                 "Chanta", "Junchan", "Toitoi", "San ankou", "Sanshoku doukou", "San kantsu", "Honroutou",
                 "Honitsu", "Chinitsu", "Kokushi musou", "Suu ankou", "Suu ankou (single wait)", "Tsuuiisou",
                 "Ryuuiisou", "Chinroutou", "Chuuren poutou", "Chuuren poutou (9-sided wait)", "Chiihou",
                 "Dora", "Ura dora", "Red five", "Nukidora"):
        assert seen[name] > 0, name
    for limit in (None, "mangan", "haneman", "baiman", "sanbaiman", "yakuman", "double yakuman"):
        assert limits[limit] > 0, limit


@pytest.mark.parametrize("options", [
    {"kiriage": True, "kazoe": "sanbaiman", "double_yakuman": False, "renhou": "mangan"},
    {"kuitan": False, "red_fives": False, "renhou": "yakuman"},
])
def test_other_table_options_agree(options):
    _check(random_wins(700, SEED + 1, options))


def test_tenhou_style_honba_matches_the_library():
    """The library pays 200 per honba on a ron and 100 from each payer on a tsumo: sanma.md's
    Tenhou-style option. Honba are rows of their own in our payments. (Scored with the sanma scorer
    directly: the shared dispatcher cannot yet take a dict-valued option, see test_scoring_sanma.py.)"""
    cases = random_wins(400, SEED + 2, {"honba": {"ron": 200, "tsumo_each": 100}})
    bad = []
    for i, ctx in enumerate(cases):
        honba = i % 4 + 1
        ctx = replace(ctx, honba=honba)
        ours = sanma_score(ctx)
        theirs = mahjong_score(to_mahjong(ctx, honba=honba))
        if not ours.legal:
            continue
        ours_honba = sum(p.amount for p in ours.payments if p.reason == "honba")
        lib_honba = theirs.cost["main_bonus"] + theirs.cost["additional_bonus"]
        if ours_honba != lib_honba or ours_honba != 200 * honba:
            bad.append(f"honba {honba}: ours {ours_honba} library {lib_honba}\n" + _describe(ctx, ours, theirs))
    assert not bad, "\n".join(bad[:10])
