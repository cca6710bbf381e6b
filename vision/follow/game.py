"""The followed game: :class:`TableGame` feeds stable observations to the inferrer and follows the engine's
states, the hand now followed and the earlier ones (:meth:`TableGame.hand_logs`), the win the page scores and
the problems and readings taken in players' words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.play import (
    Deal,
    Event,
    PlayState,
)

from ..observation import TableObservation
from .corrections import hand_start
from .inferrer import EventInferrer
from .tile_codes import SEAT_WINDS


class TableGame:
    """The engine's view of the hand a camera watches: stable observations -> inferred events -> the play state.

    ``feed`` returns the table state JSON (``assistant.table`` schema, hidden hands as ``bk``) after the events
    inferred from the observation, as the engine played them (the inferrer's states: every inferred event is
    one the engine accepted); what could not be followed is in :attr:`problems`."""

    def __init__(self, variant: str, camera: int = 0, dealer: int = 0, positions: Sequence[int] | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.variant = variant
        self.inferrer = EventInferrer(variant, camera=camera, dealer=dealer, positions=positions,
                                      options=dict(options or {}))
        self.state: PlayState | None = None      # the PlayState after the last applied event
        self.problems: list[str] = []
        self.last_events: list[Event] = []
        self.start: PlayState | None = None      # the state before last_events
        # at a win: {seat, tile, tsumo, discarder} and the state just before it (what the page scores)
        self.win: dict | None = None
        self._before_win: PlayState | None = None
        self._states: list[PlayState] = []   # the state after each of last_events
        self.hand: list[Event] = []          # the events of the hand now followed, its deal first
        self.earlier_hands: list[list[Event]] = []  # hands followed before it, oldest first

    def hand_logs(self) -> list:
        """Every hand followed so far as :class:`assistant.play.HandLog` (the current one last; a hand whose
        deal the camera did not see is left out)."""
        from assistant.play import HandLog

        return [HandLog(self.variant, list(h)) for h in self.earlier_hands + [self.hand]
                if h and isinstance(h[0], Deal)]

    def feed(self, observation: TableObservation | dict) -> dict | None:
        """Follow one stable observation: the table state JSON after it (:meth:`state_json`); the problems
        and the readings taken in players' words in :attr:`problems`."""
        inf = self.inferrer
        before, rereads, corrected = len(inf.problems), len(inf.rereads), len(inf.corrected)
        readings = len(inf.readings)
        events = inf.feed(observation)
        self.problems = [p.message for p in inf.problems[before:]]
        states = inf.states[len(inf.states) - len(events):]
        new_readings = inf.readings[readings:]
        self.problems += _reading_messages(new_readings)
        called = [r for r in new_readings if r[2] in ("called", "no riichi")]
        if len(inf.rereads) > rereads or len(inf.corrected) > corrected or called:
            # an earlier reading was corrected (the camera player's hand, a discard): the engine replayed the
            # hand, which is followed again from its deal
            k = hand_start(inf.events)
            events, states = inf.events[k:], inf.states[k:]
            self.state, self.win, self._before_win = None, None, None
            self.hand = []
            self.problems += _replay_messages(inf.rereads[rereads:], inf.corrected[corrected:], called)
        self._follow_events(events, states)
        return self.state_json()

    def _follow_events(self, events: Sequence[Event], states: Sequence[PlayState]) -> None:
        """Apply the inferred ``events`` (the engine's state after each: ``states``) to the hand followed: a
        deal starts the next hand, the first win is kept for the page to score."""
        self.start = self.state
        for ev, state in zip(events, states, strict=True):
            if isinstance(ev, Deal):
                self.state, self.win, self._before_win = None, None, None
                if self.hand and isinstance(self.hand[0], Deal):
                    self.earlier_hands.append(self.hand)
                self.hand = []
            if ev.type in ("ron", "tsumo") and self.state is not None and self.win is None:
                self.win, self._before_win = self._win_of(ev), self.state
            self.state = state
            self.hand.append(ev)
        self.last_events = list(events)
        self._states = list(states)

    def describe(self, limit: int = 3) -> str:
        """The last applied events in players' words ("West drew a tile"; the camera player's own draws named),
        at most the last ``limit`` of them."""
        from assistant.play.words import describe_event

        befores = [self.start] + self._states[:-1]
        parts = [describe_event(ev, st, self.inferrer.camera_seat) for ev, st in zip(self.last_events, befores,
                                                                                   strict=False)]
        return "; ".join(parts[-limit:])

    def _win_of(self, event: Any) -> dict:
        state: Any = self.state
        if event.type == "ron":
            return {"seat": int(event.seats[0]), "tile": state.last_tile.code, "tsumo": False,
                    "discarder": int(state.turn)}
        return {"seat": int(event.seat), "tile": state.drawn_tile.code, "tsumo": True, "discarder": None}

    def state_json(self) -> dict | None:
        """The table state JSON; after a win, the table as it was at the winning moment (:attr:`win`
        scores it: the winning discard still open, or the drawn tile in hand)."""
        state = self._before_win if self.win is not None else self.state
        if state is None:
            return None
        data = state.to_json()
        data.pop("play", None)    # the in-hand bookkeeping is the engine's, not the table schema's
        return data


def _reading_messages(readings: Sequence[tuple[int, int, str, str, str]]) -> list[str]:
    """The readings the follower took (:attr:`EventInferrer.readings`) in players' words (a discard read as
    the tile a call took is said where the hand is replayed: :func:`_replay_messages`)."""
    out = []
    for _, seat, part, was, now in readings:
        if part == "call":
            out.append(f"{SEAT_WINDS[seat]}'s new meld reads {was}, which is no meld: it is taken as "
                       f"{now}, made with the discard it took.")
        elif part == "no riichi":
            out.append(f"{SEAT_WINDS[seat]} called a tile, which a player in riichi cannot: the tile "
                       f"read lying sideways in {SEAT_WINDS[seat]}'s row was no riichi, and the hand "
                       "is replayed.")
        elif part == "unseen":
            out.append(f"Your {now} left your hand but is not seen among the discards: it is taken "
                       "as discarded (the camera missed it).")
        elif part != "called" and seat >= 0:
            out.append(f"{SEAT_WINDS[seat]}'s {part} read as {was} is taken as {now}, its next best "
                       "reading: only that one fits the game.")
    return out


def _replay_messages(rereads: Sequence[tuple[int, str, str]], corrected: Sequence[tuple[int, int, str, str]],
                     called: Sequence[tuple[int, int, str, str, str]]) -> list[str]:
    """Why the hand is replayed, in players' words: the camera player's tiles re-read, discards corrected
    after frames of another reading, discards read as the tile a call took."""
    out = [f"Your {was} is read as {now} now: the hand is replayed with it." for _, was, now in rereads]
    out += [f"{SEAT_WINDS[seat]}'s discard {was} is read as {now} now: the hand is replayed "
            "with it." for _, seat, was, now in corrected]
    out += [f"{SEAT_WINDS[seat]}'s discard {was} is read as {now}, the tile the call took: the "
            "hand is replayed with it." for _, seat, part, was, now in called if part == "called"]
    return out
