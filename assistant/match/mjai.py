"""A followed game's in-hand events as mjai JSON lines, the event stream riichi AIs and review tools read.

One JSON object per line (https://mjai.app/docs/mjai-protocol): ``start_game`` (``names``), then per hand
``start_kyoku`` (``bakaze``, ``kyoku`` 1-based dealer number within the round, ``honba``, ``kyotaku`` riichi sticks
carried in, ``oya`` the dealer's player number, ``scores``, ``dora_marker``, ``tehais`` the 13 dealt tiles of each
player), ``tsumo`` (a draw, replacement draws included), ``dahai`` (a discard; ``tsumogiri`` when it is the tile
just drawn), ``reach`` before a riichi discard and ``reach_accepted`` once its stick is down, ``chi`` / ``pon`` /
``daiminkan`` (``target`` the discarder, ``pai`` the claimed tile, ``consumed`` the tiles from the hand),
``ankan`` (``consumed`` all four), ``kakan`` (``pai`` the added tile, ``consumed`` the pong's three), ``dora``
(a new indicator), ``nukidora`` (a North set aside in sanma, as the 3-player mjai tools write it), ``hora``
(``actor`` the winner, ``target`` the discarder or the winner on a self-draw, ``pai`` the winning tile),
``ryukyoku`` (a draw), ``end_kyoku``, and ``end_game`` last. A hand still being played (the last one followed,
live) stops at its latest event: no ``end_kyoku``, no ``end_game``, as an mjai stream in progress.

``actor``/``target`` are player numbers (initial seats: 0 is the first dealer), not the engine's dealer-relative
seats. Tiles: ``1m``…``9m``, ``1p``…, ``1s``…, red fives ``5mr``/``5pr``/``5sr``, honours ``E S W N`` and ``P F C``
(white, green, red dragon); a tile the camera never saw is ``?``. mjai is a riichi format: sanma hands only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..play import (
    AbortiveDraw,
    AddedKong,
    Chow,
    ClosedKong,
    Deal,
    Discard,
    Draw,
    ExhaustiveDraw,
    HandLog,
    Kita,
    NewDora,
    OpenKong,
    Pong,
    ReplacementDraw,
    RiichiStick,
    Ron,
    Tsumo,
    replay,
)
from ..tiles import Tile, parse_tiles
from .events import MatchError

HONOURS = {"1z": "E", "2z": "S", "3z": "W", "4z": "N", "5z": "P", "6z": "F", "7z": "C"}
VARIANTS = ("sanma",)


def mjai_tile(tile: Tile | str | None) -> str:
    """One tile in mjai notation.

    >>> [mjai_tile(c) for c in ("3m", "0p", "5s", "1z", "5z", "7z", "bk")]
    ['3m', '5pr', '5s', 'E', 'P', 'C', '?']
    """
    code = tile if isinstance(tile, str) else (tile.code if tile is not None else "bk")
    if code == "bk":
        return "?"
    if code in HONOURS:
        return HONOURS[code]
    if code[0] == "0":
        return f"5{code[1]}r"
    return code


def _tiles(tiles: Sequence[Tile]) -> list[str]:
    return [mjai_tile(t) for t in tiles]


def _without(tiles: Sequence[Tile], one: Tile) -> list[Tile]:
    out = list(tiles)
    for i, t in enumerate(out):
        if t.code == one.code:
            del out[i]
            return out
    for i, t in enumerate(out):  # a red five claimed as a plain one, or the reverse
        if t.kind == one.kind:
            del out[i]
            return out
    return out


def hand_to_mjai(log: HandLog) -> list[dict[str, Any]]:
    """One hand's events (start_kyoku … end_kyoku)."""
    if log.variant not in VARIANTS:
        raise MatchError(f"mjai is a riichi format: a {log.variant} hand cannot be written as mjai (sanma only)")
    if not log.events or not isinstance(log.events[0], Deal):
        raise MatchError("a hand log starts with a deal")
    deal = log.events[0]
    states = replay(log.variant, log.events)
    n = len(deal.hands)
    dealer = deal.dealer or 0

    def actor(seat: int) -> int:
        return (seat + dealer) % n

    first = states[0]
    out: list[dict[str, Any]] = [{
        "type": "start_kyoku", "bakaze": mjai_tile(deal.round_wind), "dora_marker": mjai_tile(deal.dora_indicators[0])
        if deal.dora_indicators else "?", "kyoku": dealer + 1, "honba": deal.honba, "kyotaku": deal.riichi_sticks,
        "oya": dealer,
        "scores": [first.seats[(p - dealer) % n].points for p in range(n)],
        "tehais": [_tiles(parse_tiles(deal.hands[(p - dealer) % n].split("|")[0])) for p in range(n)],
    }]
    for i, ev in enumerate(log.events[1:], 1):
        before, after = states[i - 1], states[i]
        placed = [s for s in range(n) if after.seats[s].in_riichi and s not in before.sticks_placed
                  and s in after.sticks_placed]
        if not isinstance(ev, RiichiStick):  # a stick placed as the declaration discard passes: before what follows
            out += [{"type": "reach_accepted", "actor": actor(s)} for s in placed]
        prev = log.events[i - 1]
        if isinstance(ev, Draw | ReplacementDraw):
            out.append({"type": "tsumo", "actor": actor(ev.seat), "pai": mjai_tile(ev.tile)})
        elif isinstance(ev, Discard):
            if ev.riichi:
                out.append({"type": "reach", "actor": actor(ev.seat)})
            tsumogiri = isinstance(prev, Draw | ReplacementDraw) and prev.seat == ev.seat and \
                prev.tile.code == ev.tile.code
            out.append({"type": "dahai", "actor": actor(ev.seat), "pai": mjai_tile(ev.tile), "tsumogiri": tsumogiri})
        elif isinstance(ev, Chow | Pong | OpenKong):
            claimed = before.last_tile
            meld = after.seats[ev.seat].hand.melds[-1]
            kind = {"chow": "chi", "pong": "pon", "open_kong": "daiminkan"}[ev.type]
            assert claimed is not None and before.discarder is not None
            out.append({"type": kind, "actor": actor(ev.seat), "target": actor(before.discarder),
                        "pai": mjai_tile(claimed), "consumed": _tiles(_without(meld.tiles, claimed))})
        elif isinstance(ev, ClosedKong):
            meld = after.seats[ev.seat].hand.melds[-1]
            out.append({"type": "ankan", "actor": actor(ev.seat), "consumed": _tiles(meld.tiles)})
        elif isinstance(ev, AddedKong):
            meld = next(m for m in after.seats[ev.seat].hand.melds if m.added and ev.tile.kind in m.kinds)
            out.append({"type": "kakan", "actor": actor(ev.seat), "pai": mjai_tile(ev.tile),
                        "consumed": _tiles(_without(meld.tiles, ev.tile))})
        elif isinstance(ev, Kita):
            out.append({"type": "nukidora", "actor": actor(ev.seat), "pai": "N"})
        elif isinstance(ev, NewDora):
            out.append({"type": "dora", "dora_marker": mjai_tile(ev.tile)})
        elif isinstance(ev, RiichiStick):
            out.append({"type": "reach_accepted", "actor": actor(ev.seat)})
        elif isinstance(ev, Ron):
            tile, discarder = before.last_tile, before.discarder
            assert tile is not None and discarder is not None
            out += [{"type": "hora", "actor": actor(s), "target": actor(discarder), "pai": mjai_tile(tile)}
                    for s in ev.seats]
        elif isinstance(ev, Tsumo):
            out.append({"type": "hora", "actor": actor(ev.seat), "target": actor(ev.seat),
                        "pai": mjai_tile(before.drawn_tile)})
        elif isinstance(ev, ExhaustiveDraw | AbortiveDraw):
            out.append({"type": "ryukyoku"} if isinstance(ev, ExhaustiveDraw) else
                       {"type": "ryukyoku", "reason": ev.reason})
        # pass, reveal: nothing in mjai (a pass is the absence of a call; hands are not shown)
    if states[-1].over:  # a hand still being played has no end yet
        out.append({"type": "end_kyoku"})
    return out


def to_mjai(hands: Sequence[HandLog], names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """A game of one or more followed hands: start_game, each hand, end_game."""
    if not hands:
        raise MatchError("no hands to write")
    deal = hands[0].events[0] if hands[0].events else None
    if names is None:
        names = list(deal.names) if isinstance(deal, Deal) and deal.names else \
            [f"player {i + 1}" for i in range(len(deal.hands) if isinstance(deal, Deal) else 3)]
    out: list[dict[str, Any]] = [{"type": "start_game", "names": list(names)}]
    for i, h in enumerate(hands, 1):
        lines = hand_to_mjai(h)
        if lines[-1]["type"] != "end_kyoku" and i < len(hands):
            raise MatchError(f"hand {i} of {len(hands)} is not finished (it stops after {len(h.events)} events), "
                             "yet another hand follows it: give the hands of one game, in order")
        out += lines
    if out[-1]["type"] == "end_kyoku":
        out.append({"type": "end_game"})
    return out


def finished(events: Sequence[dict[str, Any]]) -> bool:
    """Whether mjai ``events`` make a finished game (``end_game`` last), not a hand still being played."""
    return bool(events) and events[-1].get("type") == "end_game"


def mjai_lines(events: Sequence[dict[str, Any]]) -> str:
    """The events as JSON lines (one compact object per line, a newline after each)."""
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)


__all__ = ["finished", "hand_to_mjai", "mjai_lines", "mjai_tile", "to_mjai"]
