"""Play: the table state machine driven by in-hand events, for every rule system.

``apply(state, event) -> state`` (pure; :class:`IllegalEvent` with the §6 code and plain-words message
when the event cannot happen now), ``replay(variant, events)`` and :class:`HandLog` (a hand's events,
with JSON). Events are small frozen values (:mod:`.events`); the state is a
:class:`~assistant.table.TableState` with in-hand bookkeeping (:class:`PlayState`, :mod:`.state`).
A game seen by a camera plays the same way with the other hands face down (``bk`` in the deal, ``bk``
draws) and a :class:`Reveal` of a hand before its win (see :mod:`.machine`).

>>> s = apply(None, Deal("sanma", ("111m234p678p34s99s", "1p9p1s9s1z2z3z4z5z2p8p2s8s",
...                                 "1p9p1s9s1z2z3z6z7z3p7p3s7s"), dora_indicators="5z"))
>>> s = apply(s, Draw(0, "5s"))
>>> s = apply(s, Discard(0, "5s"))
>>> s.phase, s.last_tile.code, s.live_wall
('claim_window', '5s', 54)
>>> apply(s, Draw(2, "6s"))
Traceback (most recent call last):
...
assistant.play.state.IllegalEvent: It is South's turn to draw, not West's.
"""

from .events import (
    ABORTIVE_REASONS,
    EVENT_TYPES,
    AbortiveDraw,
    AddedKong,
    BonusTile,
    Chow,
    ClosedKong,
    Deal,
    Discard,
    Draw,
    Event,
    EventError,
    ExhaustiveDraw,
    FalseWin,
    Kita,
    NewDora,
    OpenKong,
    Pass,
    Pong,
    ReplacementDraw,
    Reveal,
    RiichiStick,
    Ron,
    SinkFei,
    SwapFei,
    Tsumo,
    event_from_json,
)
from .machine import Hand, HandLog, apply, is_tenpai, replay, tile_total
from .state import HandEnd, IllegalEvent, PlayState, WinRecord, hand_notation

__all__ = [
    "ABORTIVE_REASONS", "EVENT_TYPES", "AbortiveDraw", "AddedKong", "BonusTile", "Chow", "ClosedKong", "Deal",
    "Discard", "Draw", "Event", "EventError", "ExhaustiveDraw", "FalseWin", "Hand", "HandEnd", "HandLog",
    "IllegalEvent", "Kita", "NewDora", "OpenKong", "Pass", "PlayState", "Pong", "ReplacementDraw", "Reveal",
    "RiichiStick", "Ron", "SinkFei", "SwapFei", "Tsumo", "WinRecord", "apply", "event_from_json", "hand_notation",
    "is_tenpai", "replay", "tile_total",
]
