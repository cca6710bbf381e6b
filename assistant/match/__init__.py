"""Automatic score keeping of whole matches, for every rule system.

A match is an append-only log of small immutable events (:mod:`.events`); the state
(:class:`~.state.MatchState`: players, points, dealer, round, honba, sticks, history) is rebuilt by
folding the log (:mod:`.state`) under each rule system's match rules (:mod:`.rules`). Standings
(:mod:`.standings`), SQLite persistence (:mod:`.store`), CSV/JSON export (:mod:`.export`); the
``match`` CLI group lives in :mod:`assistant.match_cli`.
"""

from .events import (
    AbortiveDraw,
    Draw,
    Edit,
    Event,
    FalseWin,
    HandSpec,
    MatchCreated,
    MatchEnd,
    MatchError,
    PaymentEntry,
    Payout,
    Riichi,
    ShownSpec,
    Undo,
    Win,
    WinClaim,
    event_from_json,
)
from .standings import Standing, standings
from .state import HandRecord, MatchLog, MatchState, Record, Transfer, fold
from .store import Store, default_db_path

__all__ = [
    "AbortiveDraw", "Draw", "Edit", "Event", "FalseWin", "HandRecord", "HandSpec", "MatchCreated", "MatchEnd",
    "MatchError", "MatchLog", "MatchState", "PaymentEntry", "Payout", "Record", "Riichi", "ShownSpec", "Standing",
    "Store", "Transfer", "Undo", "Win", "WinClaim", "default_db_path", "event_from_json", "fold", "standings",
]
