"""A riichi match as a tenhou.net/6 JSON log, the format riichi players' review tools read.

Layout (as tenhou.net/6 writes it)::

    {"title": [text, text], "name": [4 names], "rule": {"disp": text, "aka": 0|1}, "log": [hand, ...]}

and each hand is the array::

    [[kyoku, honba, riichi sticks], [4 scores at its start], [dora indicators], [ura indicators],
     haipai0, take0, dahai0, haipai1, take1, dahai1, haipai2, take2, dahai2, haipai3, take3, dahai3,
     [result, [4 score changes], ([winner, from, liable, text], [more changes], ...)]]

``kyoku`` is 4 x the round (0 East, 1 South, ...) + the dealer's seat in the first hand's order; seats are
player indices in that order (``name``); a three-player match leaves the fourth seat empty (name "", score
0). Tiles are 11-19 characters, 21-29 dots, 31-39 bamboo, 41-47 East South West North white green red,
51/52/53 the red 5m/5p/5s. ``result`` is ``和了`` (a win), ``流局`` (an exhaustive draw), ``途中流局`` (an
abortive draw) or ``チョンボ`` (a false win). The score sheet knows each hand's result and the dora of scored
wins; the draw and discard stream (haipai, take, dahai) is left empty: the ledger does not keep it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tiles import parse_tiles
from .events import Win
from .state import MatchState, Record

RESULTS = {"win": "和了", "draw": "流局", "abortive_draw": "途中流局", "false_win": "チョンボ", "unfinished": "流局"}
RIICHI_FAMILY = ("sanma",)


def tenhou_tile(code: str) -> int:
    """A tile code of the notation as a tenhou.net/6 number (``0p`` -> 52, ``1z`` -> 41)."""
    if len(code) == 2 and code[0] == "0" and code[1] in "mps":
        return 50 + "mps".index(code[1]) + 1
    if len(code) != 2 or not code[0].isdigit() or code[1] not in "mpsz":
        raise ValueError(f"{code!r} has no tenhou.net/6 number (only 1-9 m/p/s, 0m/0p/0s and 1z-7z do)")
    return (10 * ("mpsz".index(code[1]) + 1)) + int(code[0])


def _tiles(text: str) -> list[int]:
    return [tenhou_tile(t.code) for t in parse_tiles(text)] if text and text.strip() else []


def to_tenhou6(state: MatchState, records: Sequence[Record], match_id: str | None = None) -> dict[str, Any]:
    """The tenhou.net/6 JSON of a match of a riichi rule system (ValueError for the others)."""
    if state.variant not in RIICHI_FAMILY:
        raise ValueError(f"tenhou.net/6 logs are for riichi mahjong; this match plays {state.variant}")
    n = len(state.players)
    by_seq = {r.seq: r.event for r in records}
    names = list(state.players) + [""] * (4 - n)
    log = []
    for h in state.history:
        start = [int(round(t - d)) for t, d in zip(h.totals, h.deltas, strict=True)] + [0] * (4 - n)
        kyoku = 4 * _round_of(h) + h.dealer      # the dealer as a player index (the first hand's seat order)
        sticks_before = _sticks_before(state, h)
        wins: list[Win] = [e for e in (by_seq.get(s) for s in h.events) if isinstance(e, Win)]
        dora: list[int] = []
        ura: list[int] = []
        for w in wins:
            for claim in w.winners:
                if claim.hand is not None:
                    dora = dora or _tiles(claim.hand.dora_indicators)
                    ura = ura or _tiles(claim.hand.ura_indicators)
        deltas = [int(round(d)) for d in h.deltas] + [0] * (4 - n)
        result: list[Any] = [RESULTS.get(h.kind, "流局"), deltas]
        if h.kind == "win":
            for w in wins:
                src = None if w.discarder is None else state.players.index(w.discarder)
                for claim in w.winners:
                    who = state.players.index(claim.player)
                    liable = None
                    if claim.hand is not None and claim.hand.liable:
                        liable = state.players.index(claim.hand.liable)
                    result.append([who, who if src is None else src, who if liable is None else liable,
                                   f"{sum(max(0, d) for d in deltas)}点"])
        log.append([[kyoku, h.honba, sticks_before], start, dora, ura, *([[]] * 12), result])
    return {"title": [f"mahjong-assistant match {match_id or ''}".strip(), ""], "name": names,
            "rule": {"disp": f"{state.variant} (mahjong-assistant)", "aka": 1 if _aka(state) else 0},
            "log": log}


def _round_of(h) -> int:
    """The round (0 East, 1 South, ...) of a score-sheet row: its label's first word."""
    word = h.label.split()[0] if h.label else "East"
    return {"East": 0, "South": 1, "West": 2, "North": 3}.get(word, 0)


def _sticks_before(state: MatchState, h) -> int:
    """Riichi sticks on the table when the hand began: those left after the hand before it."""
    i = state.history.index(h)
    return state.history[i - 1].sticks if i > 0 else 0


def _aka(state: MatchState) -> bool:
    from ..variants import get_variant

    v = get_variant(state.variant)
    return bool(v.options.get("red_fives", True)) and bool(dict(state.overrides).get("red_fives", True))


__all__ = ["RESULTS", "tenhou_tile", "to_tenhou6"]
