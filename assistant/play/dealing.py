"""Building blocks for playing hands without a table: a full tile set, a shuffled deal with the wall it leaves,
the wall's next tile as an event, and the event that carries out a legal action.

Used by the random-play driver of the tests and by :mod:`datasets.hand_video` (generated videos of hands).
"""

from __future__ import annotations

import random
from typing import Any

from ..tiles import Tile
from ..variants import get_variant
from .events import (
    AbortiveDraw,
    AddedKong,
    BonusTile,
    Chow,
    ClosedKong,
    Deal,
    Discard,
    Draw,
    Event,
    Kita,
    OpenKong,
    Pong,
    ReplacementDraw,
    SinkFei,
    SwapFei,
    Tsumo,
)


def full_set(variant: Any) -> list[Tile]:
    """Every physical tile of the rule system's set (red fives as their own tiles)."""
    out: list[Tile] = []
    for kind, n in sorted(variant.copies.items()):
        reds = variant.red_fives.get(kind, 0)
        out += ([Tile(kind, True)] * reds if reds else []) + [Tile(kind)] * (n - reds)
    return out


def shuffled_deal(variant_name: str, rng: random.Random, short_wall: int | None = None) -> tuple[Deal, list[Tile]]:
    """A random deal and the wall it leaves (drawn from the end; the start is the dead wall, with the dora
    indicator where the rules have one). ``short_wall``: only that many live tiles."""
    v = get_variant(variant_name)
    pool = full_set(v)
    rng.shuffle(pool)
    hands = []
    for _ in range(v.players):
        tiles: list[Tile] = []
        bonus: list[Tile] = []
        while len(tiles) < v.hand_size:
            t = pool.pop()
            (bonus if t.is_bonus else tiles).append(t)
        hands.append("".join(t.code for t in tiles) + (" | " + "".join(t.code for t in bonus) if bonus else ""))
    dead = int(v.options.get("dead_wall", v.dead_wall))
    dora: tuple[Tile, ...] = ()
    if v.has_dora_indicators:
        i = next(i for i, t in enumerate(pool) if t.is_playing)
        dora = (pool.pop(i),)
        pool.insert(0, dora[0])  # keep it at the bottom: it is a dead-wall tile, never drawn
    live = len(pool) - dead
    if short_wall is not None and short_wall < live:
        dead += live - short_wall
        live = short_wall
    return Deal(variant_name, tuple(hands), dora_indicators=dora, live_wall=live, dead_wall=dead), pool


def wall_event(seat: int, pool: list[Tile], replacement: bool = False) -> Event:
    """``seat`` takes the wall's next tile: a bonus tile is set aside, anything else is a (replacement) draw."""
    t = pool.pop()
    if t.is_bonus:
        return BonusTile(seat, t)
    return ReplacementDraw(seat, t) if replacement else Draw(seat, t)


def action_event(a: Any) -> Event:
    """The event that carries out a legal action of :func:`assistant.calls.legal_actions` (not ron/pass)."""
    s = a.seat
    return {
        "discard": lambda: Discard(s, a.tile),
        "riichi": lambda: Discard(s, a.tile, riichi=True),
        "closed_kong": lambda: ClosedKong(s, a.tile, a.tiles),
        "added_kong": lambda: AddedKong(s, a.tile),
        "kita": lambda: Kita(s),
        "sink_fei": lambda: SinkFei(s),
        "swap_fei": lambda: SwapFei(s, a.tile, a.target[0], a.target[1]),
        "nine_terminals": lambda: AbortiveDraw("nine_terminals", s),
        "tsumo": lambda: Tsumo(s),
        "chow": lambda: Chow(s, a.tiles, a.meld.format() if a.meld else ""),
        "pong": lambda: Pong(s, a.tiles, a.meld.format() if a.meld else ""),
        "open_kong": lambda: OpenKong(s, a.tiles),
    }[a.kind]()
