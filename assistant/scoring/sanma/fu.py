"""Sanma fu (``shared/rules/sanma.md`` §7), with the breakdown as ``ScoreItem``\\ s of unit ``"fu"``.

The values are data (:data:`SET_FU`, :data:`WAIT_FU`); :func:`fu_of` adds them up for one
:class:`~assistant.scoring.sanma.yaku.Reading`, applies the fixed cases (pinfu tsumo 20, pinfu ron 30,
open hand without fu 30, chiitoitsu 25) and rounds up to the next 10. The breakdown always sums to
the final fu (a "rounded up" item carries the rounding).

>>> from assistant.hand import parse_hand
>>> from assistant.tiles import Tile
>>> from assistant.variants import SANMA
>>> from assistant.analysis import decompositions
>>> from assistant.scoring.base import WinContext
>>> from assistant.scoring.sanma.yaku import readings
>>> hand = parse_hand("111m 234p 678p 345s 99s")
>>> ctx = WinContext(SANMA, hand, Tile.from_code("5s"), tsumo=True, seat=1)
>>> fu, items = fu_of(readings(ctx, decompositions(hand, SANMA))[0])
>>> fu, [(i.name, i.value) for i in items]
(30, [('base', 20), ('closed pon of terminals/honours 1m', 8), ('tsumo', 2), ('rounded up', 0)])
"""

from __future__ import annotations

from collections.abc import Mapping

from ...tiles import kind_code
from ..base import ScoreItem
from .yaku import DRAGONS, Reading, is_honour, is_terminal

BASE_FU = 20
CLOSED_RON_FU = 10
TSUMO_FU = 2
CHIITOITSU_FU = 25
OPEN_MINIMUM_FU = 30
PINFU_TSUMO_FU = 20

#: (set type, terminal or honour, concealed) -> fu
SET_FU: Mapping[tuple[str, bool, bool], int] = {
    ("pong", False, False): 2,
    ("pong", False, True): 4,
    ("pong", True, False): 4,
    ("pong", True, True): 8,
    ("kong", False, False): 8,
    ("kong", False, True): 16,
    ("kong", True, False): 16,
    ("kong", True, True): 32,
}
#: Wait shape -> fu
WAIT_FU: Mapping[str, int] = {"kanchan": 2, "penchan": 2, "tanki": 2, "ryanmen": 0, "shanpon": 0}
VALUE_PAIR_FU = 2


def _round_up(fu: int) -> int:
    return -(-fu // 10) * 10


def _finish(items: list[ScoreItem]) -> tuple[int, list[ScoreItem]]:
    raw = sum(i.value for i in items)
    fu = _round_up(raw)
    items.append(ScoreItem("rounded up", fu - raw, "fu"))
    return fu, items


def pair_fu(r: Reading) -> tuple[int, str]:
    """Fu of the pair: dragon 2, seat wind 2, round wind 2; seat and round wind at once
    ``sanma.double_wind_pair_fu`` (4 or 2); North 0."""
    k = r.pair_kind
    if k is None:
        return 0, ""
    if k in DRAGONS:
        return VALUE_PAIR_FU, f"pair of dragons {kind_code(k)}"
    seat, rnd = k == r.seat_wind, k == r.round_wind
    if seat and rnd:
        return int(r.ctx.option("double_wind_pair_fu")), f"pair of seat and round wind {kind_code(k)}"
    if seat:
        return VALUE_PAIR_FU, f"pair of seat wind {kind_code(k)}"
    if rnd:
        return VALUE_PAIR_FU, f"pair of round wind {kind_code(k)}"
    return 0, ""


def fu_of(r: Reading) -> tuple[int, list[ScoreItem]]:
    """Fu of one reading and its breakdown (thirteen orphans: 0, no fu apply to a yakuman shape)."""
    if r.form == "seven_pairs":
        return CHIITOITSU_FU, [ScoreItem("chiitoitsu (fixed)", CHIITOITSU_FU, "fu")]
    if r.form == "thirteen_orphans":
        return 0, []
    tsumo = r.ctx.tsumo
    if r.pinfu_shape and tsumo:
        return PINFU_TSUMO_FU, [ScoreItem("base (pinfu tsumo, fixed 20)", PINFU_TSUMO_FU, "fu")]
    items = [ScoreItem("base", BASE_FU, "fu")]
    if r.closed and not tsumo:
        items.append(ScoreItem("closed ron", CLOSED_RON_FU, "fu"))
    for t in r.triplets:
        big = is_terminal(t.kind) or is_honour(t.kind)
        kind = "kong" if t.kan else "pong"
        fu = SET_FU[(kind, big, t.concealed)]
        label = f"{'closed' if t.concealed else 'open'} {'kan' if t.kan else 'pon'} of " \
                f"{'terminals/honours' if big else 'simples'} {kind_code(t.kind)}"
        items.append(ScoreItem(label, fu, "fu"))
    pf, label = pair_fu(r)
    if pf:
        items.append(ScoreItem(label, pf, "fu"))
    wf = WAIT_FU.get(r.wait, 0)
    if wf:
        items.append(ScoreItem(f"wait: {r.wait}", wf, "fu"))
    if tsumo:
        items.append(ScoreItem("tsumo", TSUMO_FU, "fu"))
    if not r.closed and sum(i.value for i in items) == BASE_FU:
        items.append(ScoreItem("open hand with no other fu (fixed 30)", OPEN_MINIMUM_FU - BASE_FU, "fu"))
    return _finish(items)
