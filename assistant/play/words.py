"""Events in players' words, for a status line: "West drew a tile", "South won on East's 6s".

>>> from assistant.play import Deal, Discard, Draw, Ron, apply
>>> from assistant.tiles import Tile
>>> s = apply(None, Deal("sanma", ("19m123456789p12s", "45p111z222z333z77z", "1m9m1p1s9s1234567z7z")))
>>> describe_event(Draw(0, Tile.from_code("6p")), s, you=0)
'You drew 6p'
>>> describe_event(Draw(0, Tile.from_code("6p")), s)
'East drew a tile'
>>> s = apply(s, Draw(0, Tile.from_code("6p")))
>>> describe_event(Discard(0, Tile.from_code("6p")), s)
'East discarded 6p'
>>> s = apply(s, Discard(0, Tile.from_code("6p")))
>>> describe_event(Ron((1,)), s)
"South won on East's 6p"
"""

from __future__ import annotations

from typing import Any

from ..table import SEAT_NAMES


def _name(state: Any, seat: int | None, you: int | None) -> str:
    if seat is None:
        return "Someone"
    if you is not None and seat == you:
        return "You"
    try:
        return str(state.seat_name(seat)) if state is not None else SEAT_NAMES[seat]
    except (AttributeError, IndexError, TypeError):
        return SEAT_NAMES[seat] if 0 <= seat < len(SEAT_NAMES) else f"seat {seat}"


def _possessive(name: str) -> str:
    return "your" if name == "You" else f"{name}'s"


def _code(tile: Any) -> str:
    return getattr(tile, "code", None) or str(tile)


def describe_event(event: Any, before: Any = None, you: int | None = None) -> str:
    """``event`` (an ``assistant.play`` event) in words, given the state ``before`` it; ``you``: the seat of
    the player reading (their own draws are named, other players' are "a tile")."""
    kind = getattr(event, "type", "")
    seat = getattr(event, "seat", None)
    who = _name(before, seat, you)
    turn = getattr(before, "turn", None)
    last = getattr(before, "last_tile", None)
    if kind == "deal":
        return "A new hand was dealt"
    if kind in ("draw", "replacement_draw"):
        tile = getattr(event, "tile", None)
        what = "a replacement tile" if kind == "replacement_draw" else "a tile"
        if you is not None and seat == you and tile is not None and _code(tile) != "bk":
            what = _code(tile)
        return f"{who} drew {what}"
    if kind == "discard":
        riichi = " and declared riichi" if getattr(event, "riichi", False) else ""
        return f"{who} discarded {_code(event.tile)}{riichi}"
    if kind in ("chow", "pong", "open_kong"):
        call = {"chow": "chow", "pong": "pong", "open_kong": "kong"}[kind]
        src = _name(before, turn, you)
        tile = f" {_code(last)}" if last is not None else " discard"
        return f"{who} called {call} on {_possessive(src)}{tile}"
    if kind == "closed_kong":
        return f"{who} declared a concealed kong of {_code(event.tile)}"
    if kind == "added_kong":
        return f"{who} added {_code(event.tile)} to a pong (a kong)"
    if kind == "kita":
        return f"{who} set a North aside (kita)"
    if kind == "bonus":
        return f"{who} set {_code(event.tile)} aside (a bonus tile)"
    if kind == "sink_fei":
        return f"{who} sank a Fei"
    if kind == "swap_fei":
        return f"{who} swapped a Fei for {_code(event.tile)}"
    if kind == "riichi":
        return f"{who} put down a riichi stick"
    if kind == "pass":
        return f"{who} passed"
    if kind == "dora":
        return f"New dora indicator {_code(event.tile)}"
    if kind == "ron":
        winners = " and ".join(_name(before, s, you) for s in getattr(event, "seats", ()))
        src = _name(before, turn, you)
        tile = f" {_code(last)}" if last is not None else " discard"
        return f"{winners} won on {_possessive(src)}{tile}"
    if kind == "tsumo":
        drawn = getattr(before, "drawn_tile", None)
        return f"{who} won by tsumo" + (f" on {_code(drawn)}" if drawn is not None and _code(drawn) != "bk" else "")
    if kind == "exhaustive_draw":
        return "The wall is empty: the hand is drawn"
    if kind == "reveal":
        return f"{who} showed their hand"
    return f"{who}: {kind.replace('_', ' ')}" if seat is not None else kind.replace("_", " ")


def describe_events(events: Any, start: Any, you: int | None = None) -> str:
    """Several events applied in order from ``start`` (each described with the state before it)."""
    from .machine import apply

    parts, state = [], start
    for ev in events:
        parts.append(describe_event(ev, state, you))
        try:
            state = apply(state, ev)
        except ValueError:
            break
    return "; ".join(parts)


__all__ = ["describe_event", "describe_events"]
