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
from .deal import UNREAD
from .inferrer import EventInferrer
from .tile_codes import SEAT_WINDS, plain_code


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
        readings, doubted, settled = len(inf.readings), len(inf.doubted), len(inf.settled)
        events = inf.feed(observation)
        self.problems = [p.message for p in inf.problems[before:]]
        states = inf.states[len(inf.states) - len(events):]
        new_readings = inf.readings[readings:]
        self.problems += _reading_messages(new_readings, inf.camera_seat)
        self.problems += _doubt_messages(inf.doubted[doubted:], inf.camera_seat)
        called = [r for r in new_readings if r[2] in ("called", "no riichi", "dealt aside")]
        if len(inf.rereads) > rereads or len(inf.corrected) > corrected or called or len(inf.settled) > settled:
            # an earlier reading was corrected (the camera player's hand, a discard, a tile of the deal): the
            # engine replayed the hand, which is followed again from its deal
            k = hand_start(inf.events)
            events, states = inf.events[k:], inf.states[k:]
            self.state, self.win, self._before_win = None, None, None
            self.hand = []
            self.problems += _replay_messages(inf.rereads[rereads:], inf.corrected[corrected:], called)
            self.problems += _settled_messages(inf.settled[settled:], inf.camera_seat)
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


def _reading_messages(readings: Sequence[tuple[int, int, str, str, str]], camera: int | None) -> list[str]:
    """The readings the follower took (:attr:`EventInferrer.readings`) in players' words (a discard read as
    the tile a call took is said where the hand is replayed: :func:`_replay_messages`); ``camera``: the
    camera player's engine seat."""
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
        elif part == "dealt aside":
            whose = "Your" if seat == camera else f"{SEAT_WINDS[seat]}'s"
            out.append(f"{whose} bonus tile(s) {now}, not seen at the deal, were set aside at the deal: the deal "
                       "is taken with them and the hand is replayed.")
        elif part == "aside":
            out.append(f"{SEAT_WINDS[seat]}'s tile set aside reads {was}, which is never set aside: it is taken "
                       f"as {now}, the tile the game lets lie there.")
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


def _dealt_tile_words(seat: int, part: str, code: str, camera: int | None) -> str:
    """A tile of the deal in players' words: "your 4s", "West's bonus tile 3f", "the dora indicator 2m"."""
    if part == "dora":
        return f"the dora indicator {code}"
    whose = "your" if seat == camera else f"{SEAT_WINDS[seat]}'s"
    return f"{whose} {code}" if part == "hand" else f"{whose} bonus tile {code}"


def _doubt_messages(doubted: Sequence[tuple[int, int, str, str, tuple[str, ...]]], camera: int | None) -> list[str]:
    """The tiles of a deal read unsurely, in players' words (one message for the deal)."""
    out = [UNREAD_DEALT for d in doubted if d[3] == UNREAD]
    doubted = [d for d in doubted if d[3] != UNREAD]
    if not doubted:
        return out
    words = [f"{_dealt_tile_words(seat, part, code, camera)} (or {', '.join(others)})"
             for _, seat, part, code, others in doubted]
    rest = f"it is taken as {doubted[0][3]}" if len(doubted) == 1 else "each is taken as read"
    return out + [f"Read unsurely at the deal: {', '.join(words)}; {rest} until the table shows which."]


#: the camera hand read one tile short at the deal (:func:`.deal.with_unread_tile`), in players' words
UNREAD_DEALT = ("One tile of your hand was not read at the deal: it is dealt face down until a frame reads it or "
                "you play it (no waits or advice until then).")
#: ... and how that tile was settled (:attr:`EventInferrer.settled`)
_UNREAD_SETTLED = {
    "shown": "Your tile not read at the deal reads as {now}: the deal is taken with {now} and the hand is replayed.",
    "discard": "Your tile not read at the deal was played as {now}: the deal is taken with {now} and the hand is "
               "replayed.",
}


#: why a doubtful tile of the deal was settled otherwise (:attr:`EventInferrer.settled`), in players' words
_SETTLED_WHY = {
    "frames": "{tile} (dealt) reads as {now} in the frames since the deal: the deal is taken with {now} and the "
              "hand is replayed.",
    "discard": "{tile} (dealt) was discarded as {now}: it was {now} all along, and the hand is replayed with it.",
    "shown": "{tile} (dealt) shows on the table as {now}: it was {now} all along, and the hand is replayed with it.",
    "copies": "{tile} (dealt) cannot be: the table shows every {plain} of the set elsewhere; it is taken as {now}, "
              "its next reading, and the hand is replayed.",
    "game": "{tile} (dealt) does not fit the game: only {now}, its next reading, lets it go on as the table shows; "
            "the hand is replayed with it.",
}


def _settled_messages(settled: Sequence[tuple[int, int, str, str, str, str]], camera: int | None) -> list[str]:
    """The doubtful tiles of the deal settled otherwise than dealt, and why, in players' words."""
    out = []
    for _, seat, part, was, now, why in settled:
        if was == UNREAD:
            out.append(_UNREAD_SETTLED.get(why, _UNREAD_SETTLED["shown"]).format(now=now))
            continue
        if why == "late dora":
            out.append(f"The dora indicator, not seen at the deal, reads {now}: the deal is taken with it and the "
                       "hand is replayed.")
            continue
        tile = _dealt_tile_words(seat, part, was, camera)
        out.append(_SETTLED_WHY[why].format(tile=tile[0].upper() + tile[1:], now=now, plain=plain_code(was)))
    return out
