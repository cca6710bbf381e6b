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
wins. The draw and discard stream (haipai, take, dahai) comes from the hands the camera followed (``hands``: the
engine's hand logs, matched to the score sheet's rows by round, dealer and honba) when every tile of the hand was
seen; it stays empty otherwise (the format has no unknown tile: mjai carries those).

The stream, as tenhou.net/6 writes it: ``take`` holds the drawn tiles (replacement draws too) and calls —
``c`` + the claimed tile + the two from the hand (a chi is always from the previous player); ``p`` (pon) and
``m`` (open kan) placed by whom the tile came from: first when from the previous player (kamicha), after the first
tile when from across (toimen), after the second when from the next player (shimocha), the claimed tile right
after the letter. ``dahai`` holds the discards (``60`` = the tile just drawn), ``r`` before a riichi discard,
``0`` after an open kan, a closed kan as the three tiles + ``a`` + the fourth (a red five last), an added kan as
the pon's string with ``k`` (and the added tile after it) where its ``p`` was, and a North set aside in sanma as
``f44``. In three-player play "previous" and "next" are turn order (a decision: the format writes 4 seats).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tiles import Tile, parse_tiles
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


def _num(tile: Tile) -> int:
    return tenhou_tile(tile.code)


def _sort_key(n: int) -> float:
    return 10 * (n - 50) + 4.5 if n > 50 else n  # a red five sorts where its five does


def _known(log: Any) -> bool:
    from ..play import Deal, Draw, ReplacementDraw

    deal = log.events[0]
    if not isinstance(deal, Deal) or any("bk" in h for h in deal.hands):
        return False
    return not any(isinstance(e, Draw | ReplacementDraw) and e.tile.code == "bk" for e in log.events)


def hand_streams(log: Any) -> list[list[list[Any]]] | None:
    """[haipai, take, dahai] of each player (player numbers: initial seats, the deal's ``dealer`` first seat) of
    one followed hand (:class:`assistant.play.HandLog`), or None when a tile of it was never seen."""
    from ..play import (
        AddedKong,
        Chow,
        ClosedKong,
        Discard,
        Draw,
        Kita,
        OpenKong,
        Pong,
        ReplacementDraw,
        replay,
    )

    if not log.events or not _known(log):
        return None
    deal = log.events[0]
    n = len(deal.hands)
    dealer = deal.dealer or 0
    states = replay(log.variant, log.events)
    out: list[list[list[Any]]] = []
    for p in range(n):
        tiles = parse_tiles(deal.hands[(p - dealer) % n].split("|")[0])
        out.append([sorted((_num(t) for t in tiles), key=_sort_key), [], []])
    pong_marks: dict[tuple[int, int], int] = {}   # (player, kind) -> where the pon's "p" stood

    def player(seat: int) -> int:
        return (seat + dealer) % n

    def placed(letter: str, claimed: int, own: list[int], where: int) -> str:
        parts = [str(x) for x in own]
        parts.insert(where, letter + str(claimed))
        return "".join(parts)

    for i, ev in enumerate(log.events[1:], 1):
        before, after = states[i - 1], states[i]
        prev = log.events[i - 1]
        if isinstance(ev, Draw | ReplacementDraw):
            out[player(ev.seat)][1].append(_num(ev.tile))
        elif isinstance(ev, Discard):
            just_drawn = isinstance(prev, Draw | ReplacementDraw) and prev.seat == ev.seat and \
                prev.tile.code == ev.tile.code
            value: Any = 60 if just_drawn else _num(ev.tile)
            out[player(ev.seat)][2].append(f"r{value}" if ev.riichi else value)
        elif isinstance(ev, Chow | Pong | OpenKong):
            claimed, discarder = before.last_tile, before.discarder
            assert claimed is not None and discarder is not None
            meld = after.seats[ev.seat].hand.melds[-1]
            rest = list(meld.tiles)
            rest.remove(next(t for t in rest if t.code == claimed.code))
            own = sorted((_num(t) for t in rest), key=_sort_key)
            p = player(ev.seat)
            if isinstance(ev, Chow):
                out[p][1].append("c" + str(_num(claimed)) + "".join(str(x) for x in own))
                continue
            rel = (discarder - ev.seat) % n
            where = 0 if rel == n - 1 else (2 if rel == 1 else 1)   # previous, next, across
            if isinstance(ev, OpenKong):
                where = {0: 0, 1: 1, 2: 3}[where]
                out[p][1].append(placed("m", _num(claimed), own, where))
                out[p][2].append(0)
            else:
                pong_marks[(p, claimed.kind)] = where
                out[p][1].append(placed("p", _num(claimed), own, where))
        elif isinstance(ev, ClosedKong):
            meld = after.seats[ev.seat].hand.melds[-1]
            nums = sorted((_num(t) for t in meld.tiles), key=lambda x: (x > 50, x))
            out[player(ev.seat)][2].append("".join(str(x) for x in nums[:3]) + "a" + str(nums[3]))
        elif isinstance(ev, AddedKong):
            p = player(ev.seat)
            meld = next(m for m in after.seats[ev.seat].hand.melds if m.added and ev.tile.kind in m.kinds)
            rest = list(meld.tiles)
            rest.remove(next(t for t in rest if t.code == ev.tile.code))
            own = sorted((_num(t) for t in rest), key=_sort_key)
            out[p][2].append(placed("k", _num(ev.tile), own, pong_marks.get((p, ev.tile.kind), 0)))
        elif isinstance(ev, Kita):
            out[player(ev.seat)][2].append("f44")
    return out


def _followed_for(h: Any, hands: Sequence[Any]) -> Any:
    from ..play import Deal

    for log in hands:
        deal = log.events[0] if log.events else None
        if isinstance(deal, Deal) and (deal.dealer or 0) == h.dealer and deal.honba == h.honba \
                and deal.round_wind.kind - 27 == h.round_index % 4:
            return log
    return None


def to_tenhou6(state: MatchState, records: Sequence[Record], match_id: str | None = None,
               hands: Sequence[Any] = ()) -> dict[str, Any]:
    """The tenhou.net/6 JSON of a match of a riichi rule system (ValueError for the others); ``hands``: the hand
    logs the camera followed, whose streams fill the rows they belong to."""
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
        followed = _followed_for(h, hands)
        streams = hand_streams(followed) if followed is not None else None
        flat: list[list[Any]] = [[] for _ in range(12)]
        if streams is not None:
            for p, (haipai, take, dahai) in enumerate(streams):
                flat[3 * p:3 * p + 3] = [haipai, take, dahai]
            if not dora:
                from ..play import NewDora

                dora = [_num(t) for t in followed.events[0].dora_indicators] + \
                    [_num(e.tile) for e in followed.events if isinstance(e, NewDora)]
        log.append([[kyoku, h.honba, sticks_before], start, dora, ura, *flat, result])
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


__all__ = ["RESULTS", "hand_streams", "tenhou_tile", "to_tenhou6"]
