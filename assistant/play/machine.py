"""The table state machine: ``apply(state, event) -> state`` for every rule system, ``replay`` and the
:class:`HandLog`.

:func:`apply` is pure: it returns a new :class:`~assistant.play.state.PlayState` and never changes the
one it is given. An event that cannot happen now raises :class:`~assistant.play.state.IllegalEvent`
with a code and a plain-words message; where the event is a player's action (a discard, a call, a
win, a kita …) the verdict is :func:`assistant.calls.check_action`'s, so its §6 code and message are
the ones a beginner sees.

Turn flow (``phase`` of :mod:`assistant.table`):

* ``deal`` → ``turn_start`` of East; ``draw`` → ``own_turn`` (14 tiles); ``discard`` → ``claim_window``;
  the next seat's ``draw`` closes the window (seats that could have won on the tile and did not say
  ``pass`` pass now: furiten bookkeeping through :func:`assistant.furiten.record_pass`; a riichi
  declaration that passed puts its stick on the table).
* ``chow`` / ``pong`` → the claimant's ``own_turn`` (no draw; ``sets_made_this_turn``); ``open_kong`` →
  its ``turn_start`` owing a replacement.
* ``closed_kong`` / ``added_kong`` / ``kita`` → ``kong_window`` (only a win may take the tile) until the
  owner's ``replacement_draw``; ``bonus`` and ``sink_fei`` → ``turn_start`` owing a replacement (the
  eighth Hong Kong flower opens a ``kong_window`` when another seat holds the other seven).
* ``ron`` / ``tsumo`` score the win with :func:`assistant.scoring.score` on
  :func:`assistant.table.win_context` (plus ippatsu, double riichi, ura dora and two-kong flags) and end
  the hand; so do ``exhaustive_draw``, ``abortive_draw`` and (except korean-3p, where the hand is only
  dead) ``false_win``.

Every replacement draw takes one tile off the live wall (the dead wall is topped up, or the tile comes
from the back of the wall), so live wall + dead wall + every tile in sight stays the set's tile count.

Unknown tiles (a game seen by a camera): a dealt hand may hold face-down ``bk`` tiles and ``draw`` /
``replacement_draw`` may be ``bk`` (the hand gets one more face-down tile, the walls move as for any
draw). A discard, call, kong, kita, bonus tile, sunk or swapped Fei of a tile the seat is not known to
hold uses up one of its face-down tiles (known tiles are used first; a riichi seat that drew face down
throws the drawn tile; a bonus tile set aside right after a face-down draw is that drawn tile). Checks
that need the hidden hand are skipped as unknowable (a riichi declaration, a call with enough face-down
tiles, a listed tenpai seat are accepted: see :mod:`assistant.calls`); a win needs the hand first:
``reveal`` names the seat's tiles (every known one kept, exactly the face-down ones replaced, the copies
of the set respected), then ``tsumo`` / ``ron`` are checked and scored as usual (REVEAL_FIRST before
that; in three-kaki every loser reveals too, its Fei and honour pongs count). An exhaustive draw with no
``tenpai`` list needs every hand revealed.

>>> s = apply(None, Deal("sanma", ("111m234p678p34s99s", "bk" * 13, "bk" * 13), dora_indicators="5z"))
>>> s = apply(apply(apply(s, Draw(0, "7z")), Discard(0, "7z")), Draw(1, "bk"))
>>> s = apply(s, Discard(1, "5s"))
>>> s.seats[1].hand.format(), s.seats[1].discards[-1].tile.code, s.live_wall
('bkbkbkbkbkbkbkbkbkbkbkbkbk', '5s', 53)
>>> apply(apply(s, Draw(2, "bk")), Tsumo(2))
Traceback (most recent call last):
...
assistant.play.state.IllegalEvent: West's hand is not known (14 tiles face down): reveal the hand first, then \
declare the win.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..calls import Action, check_action, resolve_claims
from ..errors import TileError
from ..furiten import record_pass
from ..hand import Hand as TileHand
from ..hand import Meld, make_meld, parse_hand, parse_meld
from ..scoring import score
from ..scoring.base import Payment, PlayerShown, WinContext
from ..table import NORTH, SeatState, StateError, TableState, notice, win_context
from ..table import Discard as DiscardTile
from ..tiles import BACK, JOKER, Tile, format_tiles, sort_key
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
    describe,
    event_from_json,
)
from .state import HandEnd, IllegalEvent, PlayState, WinRecord, total_tiles

RIICHI_STICK = 1000
WINDOWS = ("claim_window", "kong_window")


# ---------------------------------------------------------------------------------------------
# Public API


def apply(state: TableState | None, event: Event | Mapping[str, Any]) -> PlayState:
    """The state after ``event``. ``state`` may be None (or a finished hand) for a :class:`Deal`; a plain
    :class:`~assistant.table.TableState` is taken as a :class:`PlayState` with its bookkeeping inferred.
    Raises :class:`IllegalEvent` (a ValueError) and leaves ``state`` as it was when the event cannot
    happen now."""
    if isinstance(event, Mapping):
        try:
            event = event_from_json(event)
        except EventError as e:
            raise IllegalEvent("BAD_EVENT", str(e)) from None
    if not isinstance(event, Event):
        raise IllegalEvent("BAD_EVENT", f"expected an in-hand event, got {type(event).__name__}")
    try:
        if isinstance(event, Deal):
            return _deal(state, event)
        if state is None:
            raise IllegalEvent("NO_HAND", "A hand starts with a deal; there is no hand in progress.")
        st = PlayState.from_table(state)
        if st.ending is not None:
            raise IllegalEvent("HAND_OVER", f"The hand is over ({_ending_words(st.ending)}); the next event is a "
                                            "new deal.")
        seat = getattr(event, "seat", None)
        if seat is not None:
            _seat(st, seat)
        _face_up(event)
        return _HANDLERS[type(event)](st, event)
    except IllegalEvent:
        raise
    except (StateError, TileError) as e:
        raise IllegalEvent("IMPOSSIBLE", f"{describe(event)} would give a table that cannot exist: {e}") from None


def replay(variant: str, events: Iterable[Event | Mapping[str, Any]]) -> list[PlayState]:
    """The state after each event (the first must be a deal of ``variant``). IllegalEvent names the
    failing event by its index (``e.index``)."""
    name = get_variant(variant).name
    out: list[PlayState] = []
    state: PlayState | None = None
    for i, event in enumerate(events):
        try:
            if isinstance(event, Mapping):
                event = event_from_json(event)
            if isinstance(event, Deal) and get_variant(event.variant).name != name:
                raise IllegalEvent("BAD_DEAL", f"a {event.variant} deal in a {name} hand log")
            if i == 0 and not isinstance(event, Deal):
                raise IllegalEvent("NO_HAND", "A hand log starts with a deal.")
            state = apply(state, event)
        except EventError as e:
            raise _at(IllegalEvent("BAD_EVENT", str(e)), i) from None
        except IllegalEvent as e:
            raise _at(e, i) from None
        out.append(state)
    return out


def _at(e: IllegalEvent, index: int) -> IllegalEvent:
    err = IllegalEvent(e.code, e.message)
    err.index = index  # type: ignore[attr-defined]
    err.args = (f"event {index}: {e.message}",)
    return err


@dataclass
class HandLog:
    """One hand as its list of events (the first a :class:`Deal`), with the current state. Every
    ``append`` is checked first; a rejected event is not added. JSON:
    ``{"variant": "sanma", "events": [{"type": "deal", ...}, ...]}``."""

    variant: str
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.variant = get_variant(self.variant).name
        self.events = list(self.events)
        self._state: PlayState | None = replay(self.variant, self.events)[-1] if self.events else None

    @property
    def state(self) -> PlayState | None:
        return self._state

    def append(self, event: Event | Mapping[str, Any]) -> PlayState:
        if isinstance(event, Mapping):
            event = event_from_json(event)
        if isinstance(event, Deal) and get_variant(event.variant).name != self.variant:
            raise IllegalEvent("BAD_DEAL", f"a {event.variant} deal in a {self.variant} hand log")
        if not self.events and not isinstance(event, Deal):
            raise IllegalEvent("NO_HAND", "A hand log starts with a deal.")
        new = apply(self._state, event)
        self.events.append(event)
        self._state = new
        return new

    def states(self) -> list[PlayState]:
        return replay(self.variant, self.events)

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "events": [e.to_json() for e in self.events]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandLog:
        if not isinstance(data, Mapping) or not isinstance(data.get("variant"), str) \
                or not isinstance(data.get("events"), list):
            raise EventError('a hand log is {"variant": ..., "events": [...]}')
        return cls(data["variant"], [event_from_json(e) for e in data["events"]])


#: The brief's name for the log of one hand (not :class:`assistant.hand.Hand`, the tiles of one player).
Hand = HandLog


# ---------------------------------------------------------------------------------------------
# Small helpers


def _seat(st: TableState, seat: int) -> int:
    try:
        return st.check_seat(seat)
    except ValueError as e:
        raise IllegalEvent("NO_SUCH_SEAT", str(e)) from None


def _name(st: TableState, seat: int) -> str:
    return st.seat_name(seat)


def _ending_words(end: HandEnd) -> str:
    return {"win": "a win", "exhaustive_draw": "an exhaustive draw", "abortive_draw": "an abortive draw",
            "false_win": "a false win"}.get(end.kind, end.kind)


def _fail(code: str, **fields: object) -> IllegalEvent:
    n = notice(code, **fields)
    return IllegalEvent(n.code, n.message)


def _check(st: PlayState, seat: int, kind: str, tile: Tile | None = None, tiles: Sequence[Tile] = (),
           target: tuple[int, int] | None = None) -> Action:
    """The beginner check of one action (calls.check_action): the judged action, or IllegalEvent."""
    if seat in st.dead and kind != "discard":
        raise IllegalEvent("DEAD_HAND", f"{_name(st, seat)}'s hand is dead after a false win: it keeps drawing "
                                        "and discarding but cannot call or win.")
    try:
        verdict = check_action(st, seat, Action(kind, seat, tile, tuple(tiles), target=target))
    except TileError as e:
        raise IllegalEvent("NOT_IN_SET", str(e)) from None
    except ValueError as e:
        raise IllegalEvent("WRONG_TILES", str(e)) from None
    if not verdict.legal:
        raise IllegalEvent(verdict.code or "ILLEGAL", verdict.message)
    assert verdict.action is not None
    return verdict.action


def _remove(tiles: Sequence[Tile], take: Sequence[Tile], face_down: bool = False) -> tuple[Tile, ...] | None:
    """``tiles`` without ``take`` (exact tiles: a red five is not a plain one), or None if missing.
    ``face_down``: a tile that is not there uses up a face-down ``bk`` instead (known tiles first)."""
    rest = list(tiles)
    back = Tile(BACK)
    missing = []
    for t in take:
        if t in rest:
            rest.remove(t)
        else:
            missing.append(t)
    for _ in missing:
        if not face_down or back not in rest:
            return None
        rest.remove(back)
    return tuple(rest)


def _without(st: PlayState, seat: int, take: Sequence[Tile], verb: str) -> tuple[Tile, ...]:
    """The seat's concealed tiles without ``take``: its known tiles first, then face-down ones."""
    rest = _remove(st.seats[seat].hand.concealed, take, face_down=True)
    if rest is None:
        raise _fail("TILES_NOT_IN_HAND", tiles=" ".join(t.code for t in take), action=verb)
    return rest


#: events whose tiles may be face down (``bk``): an unseen draw
_FACE_DOWN_OK = (Draw, ReplacementDraw)


def _face_up(event: Event) -> None:
    """FACE_DOWN when an event names a ``bk`` where only a named tile can be (all but the draws)."""
    if isinstance(event, _FACE_DOWN_OK):
        return
    for name in type(event)._tile_fields + type(event)._tiles_fields:
        value = getattr(event, name)
        tiles = value if isinstance(value, tuple) else (value,)
        if any(isinstance(t, Tile) and t.kind == BACK for t in tiles):
            raise IllegalEvent("FACE_DOWN", f"The {name.replace('_', ' ')} of a {event.type} must be named: bk (a "
                                            "tile seen face down) stands only in a dealt hand or for a draw.")


def _reveal_first(st: PlayState, seat: int, action: str) -> None:
    """REVEAL_FIRST when ``seat``'s hand still holds face-down tiles."""
    if st.seats[seat].hidden:
        raise _fail("REVEAL_FIRST", **st.hidden_words(seat), action=action)


def _in_set(st: PlayState, tile: Tile) -> None:
    v = st.variant.with_options(dict(st.options)) if st.options else st.variant
    if tile.kind not in v.copies or (tile.red and not v.red_fives.get(tile.kind)):
        raise IllegalEvent("NOT_IN_SET", f"{tile.code} is not in the {st.variant.name} tile set.")


def _hand(hand: TileHand, concealed: Iterable[Tile] | None = None, melds: Iterable[Meld] | None = None,
          bonus: Iterable[Tile] | None = None) -> TileHand:
    c = tuple(hand.concealed if concealed is None else concealed)
    return TileHand(c, tuple(hand.melds if melds is None else melds), tuple(hand.bonus if bonus is None else bonus),
                None, tuple(range(len(c))))


def _seats(st: PlayState, changes: Mapping[int, Mapping[str, Any]], **every: Any) -> tuple[SeatState, ...]:
    """Seats with per-seat ``changes`` and ``every`` applied to all."""
    return tuple(replace(s, **{**every, **changes.get(i, {})}) for i, s in enumerate(st.seats))


def _with_points(seats: Sequence[SeatState], payments: Iterable[Payment]) -> tuple[SeatState, ...]:
    delta = [0] * len(seats)
    for p in payments:
        delta[p.receiver] += p.amount
        if p.payer is not None:
            delta[p.payer] -= p.amount
    return tuple(replace(s, points=s.points + d) if d else s for s, d in zip(seats, delta, strict=True))


def _add(seq: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return seq if seat in seq else seq + (seat,)


def _drop(seq: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return tuple(s for s in seq if s != seat)


def _end_turn_fields() -> dict[str, Any]:
    return {"last_tile": None, "declaration": None, "next_drawn": False, "drawn_tile": None, "drawn_from": None,
            "sets_made_this_turn": (), "window_passes": ()}


def _place_stick(st: PlayState, seat: int) -> PlayState:
    s = st.seats[seat]
    seats = list(st.seats)
    seats[seat] = replace(s, points=s.points - RIICHI_STICK)
    return replace(st, seats=tuple(seats), riichi_sticks=st.riichi_sticks + 1,
                   sticks_placed=_add(st.sticks_placed, seat))


def _close_window(st: PlayState) -> PlayState:
    """The open tile passes without a win: every seat that has not said pass passes now (furiten), and a
    riichi declaration discard that passed puts its stick on the table."""
    if st.phase not in WINDOWS:
        return st
    for k in range(1, st.players):
        seat = (st.turn + k) % st.players
        if seat not in st.window_passes:
            st = record_pass(st, seat)  # type: ignore[assignment]
    pending = st.riichi_pending
    if pending is not None and pending not in st.sticks_placed:
        st = _place_stick(st, pending)
    return replace(st, window_passes=())


def _four_kans(st: PlayState) -> bool:
    """Sanma §10: four kans by two or more players — the discard after the fourth ends the hand unless won on."""
    if "four_kans" not in _abortive_reasons(st) or st.kongs_made < 4:
        return False
    owners = {i for i, s in enumerate(st.seats) if any(m.is_kong for m in s.hand.melds)}
    return len(owners) >= 2


def _four_kans_block(st: PlayState) -> None:
    if st.phase == "claim_window" and _four_kans(st):
        raise IllegalEvent("FOUR_KANS", "Four kans have been made by more than one player: unless someone wins "
                                        "on this discard, the hand is aborted (record an abortive draw).")


def _abortive_reasons(st: PlayState) -> tuple[str, ...]:
    return st.variant.abortive_draws


def _instant(st: PlayState, what: str | Meld, seat: int) -> list[Payment]:
    """3 Kaki instant payouts (kongs, families, bites); nothing elsewhere."""
    if not st.variant.can_sink_fei:
        return []
    from ..scoring.three_kaki import instant_payout

    return [p for p in instant_payout(what, seat, st.players, dict(st.options)) if p.amount]


def _shown_meld(ev: Any, judged: Meld, physical: Sequence[Tile]) -> Meld:
    """The meld a claim shows: the one the event names (its tiles must be the claimed tile and the
    tiles used; a Fei may stand for either end of a chow), else the judged one made of the exact tiles."""
    built = _with_tiles(judged, physical)
    if not ev.meld:
        return built
    try:
        shown = parse_meld(ev.meld)
    except TileError as e:
        raise IllegalEvent("MELD_MISMATCH", f"meld {ev.meld!r}: {e}") from None
    same_tiles = sorted(shown.tiles, key=sort_key) == sorted(built.tiles, key=sort_key)
    fits = (shown.type == built.type and same_tiles and not shown.concealed and not shown.added
            and shown.source in (None, built.source) and physical[0].kind in shown.kinds)
    if not fits:
        raise IllegalEvent("MELD_MISMATCH", f"the {ev.type} shows {built.format()}, not {ev.meld}.")
    return replace(shown, source=built.source)


def _with_tiles(meld: Meld, physical: Sequence[Tile]) -> Meld:
    """``meld`` made of exactly the ``physical`` tiles (same kinds; a red five where the player used one)."""
    fei = iter([s for t, s in zip(meld.tiles, meld.stands_for, strict=True) if t.kind == JOKER])
    stands = [next(fei) if t.kind == JOKER else t for t in physical]
    return make_meld(tuple(physical), stands, concealed=meld.concealed, added=meld.added, source=meld.source)


# ---------------------------------------------------------------------------------------------
# The deal


def _deal(prev: TableState | None, ev: Deal) -> PlayState:
    if prev is not None:
        p = PlayState.from_table(prev)
        if p.ending is None:
            raise IllegalEvent("HAND_IN_PROGRESS", "The hand in progress has not ended; a new deal comes after a "
                                                   "win or a draw.")
    try:
        variant = get_variant(ev.variant)
        options = ev.options_dict
        full = variant.with_options(options) if options else variant
    except ValueError as e:
        raise IllegalEvent("BAD_DEAL", str(e)) from None
    n = variant.players
    if len(ev.hands) != n:
        raise IllegalEvent("BAD_DEAL", f"a {variant.name} deal has {n} hands, East (dealer) first; got {len(ev.hands)}")
    hands = []
    for i, text in enumerate(ev.hands):
        try:
            h = parse_hand(text)
        except TileError as e:
            raise IllegalEvent("BAD_DEAL", f"hands[{i}]: {e}") from None
        if h.melds or h.win_tile is not None:
            raise IllegalEvent("BAD_DEAL", f"hands[{i}]: a dealt hand has no melds and no winning tile")
        hands.append(h)
    dead = ev.dead_wall
    if dead is None:
        dead = int(options.get("dead_wall", variant.options.get("dead_wall", variant.dead_wall)))
    bonus = sum(len(h.bonus) for h in hands)
    in_hands = sum(len(h.concealed) for h in hands) + bonus
    live = ev.live_wall if ev.live_wall is not None else full.total_tiles - dead - in_hands
    if live < 0 or in_hands + live + dead != full.total_tiles:
        raise IllegalEvent("BAD_DEAL", f"the deal accounts for {in_hands} tiles in hand, {live} in the live wall and "
                                       f"{dead} in the dead wall; the {variant.name} set has {full.total_tiles}")
    start = int(options.get("start_points", variant.options.get("start_points", 0)))
    points = ev.points if ev.points is not None else (start,) * n
    names = ev.names if ev.names is not None else ("",) * n
    if len(points) != n or len(names) != n:
        raise IllegalEvent("BAD_DEAL", f"give {n} points and {n} names, East first")
    try:
        seats = tuple(SeatState(hand=h, points=p, first_turn=True, name=nm)
                      for h, p, nm in zip(hands, points, names, strict=True))
        return PlayState(
            variant=variant, seats=seats, turn=0, phase="turn_start", live_wall=live,
            replacement_tiles=ev.replacement_tiles, round_wind=ev.round_wind.kind,
            dora_indicators=ev.dora_indicators, honba=ev.honba, riichi_sticks=ev.riichi_sticks, options=options,
            dead_wall=dead, dealer_player=ev.dealer,
        )
    except StateError as e:
        raise IllegalEvent("BAD_DEAL", str(e)) from None


# ---------------------------------------------------------------------------------------------
# Draws


def _draw_seat(st: PlayState, seat: int, what: str) -> PlayState:
    """Who may take a tile from the wall now: the next seat after a discard (the window closes), or the
    turn seat at its turn start. Returns the state with the window closed."""
    if st.phase == "claim_window":
        nxt = st.next_seat(st.turn)
        if seat != nxt:
            raise IllegalEvent("NOT_YOUR_DRAW", f"It is {_name(st, nxt)}'s turn to draw, not {_name(st, seat)}'s.")
        _four_kans_block(st)
        return _close_window(st)
    if st.phase == "turn_start":
        if seat != st.turn:
            raise IllegalEvent("NOT_YOUR_DRAW", f"It is {_name(st, st.turn)}'s turn to draw, not {_name(st, seat)}'s.")
        if st.owed is not None and what == "wall":
            raise IllegalEvent("REPLACEMENT_OWED", f"{_name(st, seat)} owes a replacement draw (after a "
                                                   f"{'kong' if st.owed == 'kong' else 'bonus tile, kita or sunk Fei'})"
                                                   ", not a draw from the live wall.")
        return st
    if st.phase == "own_turn":
        raise IllegalEvent("NOT_YOUR_DRAW" if seat != st.turn else "WRONG_PHASE",
                           f"{_name(st, st.turn)} holds {st.variant.full_hand_size} tiles and must discard "
                           "before anyone draws.")
    raise IllegalEvent("WRONG_PHASE", f"{_name(st, st.turn)}'s {st.declaration} is open to a win until "
                                      f"{_name(st, st.turn)} draws the replacement tile.")


def _wall_left(st: PlayState) -> None:
    if st.live_wall <= 0:
        raise IllegalEvent("WALL_EMPTY", "No tile is left to draw: the hand is an exhaustive draw.")


def _playing_tile(st: PlayState, tile: Tile, seat: int) -> None:
    if tile.kind == BACK:  # an unseen draw
        return
    _in_set(st, tile)
    if tile.is_bonus:
        raise IllegalEvent("BONUS_TILE", f"{tile.code} is a bonus tile: {_name(st, seat)} sets it aside (record a "
                                         "bonus event) and draws a replacement.")


def _on_draw(st: PlayState, ev: Draw) -> PlayState:
    _playing_tile(st, ev.tile, ev.seat)
    st = _draw_seat(st, ev.seat, "wall")
    _wall_left(st)
    s = st.seats[ev.seat]
    seats = _seats(st, {ev.seat: {"hand": _hand(s.hand, s.hand.concealed + (ev.tile,))}})
    return replace(st, seats=seats, turn=ev.seat, phase="own_turn", **{**_end_turn_fields(), "drawn_tile": ev.tile,
                   "drawn_from": "wall"}, live_wall=st.live_wall - 1, kong_chain=0, owed=None, carry_sets=())


def _take_replacement(st: PlayState) -> dict[str, Any]:
    out: dict[str, Any] = {"live_wall": st.live_wall - 1}
    if st.replacement_tiles is not None:
        out["replacement_tiles"] = max(0, st.replacement_tiles - 1)
    return out


def _on_replacement(st: PlayState, ev: ReplacementDraw) -> PlayState:
    _playing_tile(st, ev.tile, ev.seat)
    if ev.seat != st.turn or st.owed is None:
        who = _name(st, st.turn)
        raise IllegalEvent("NO_REPLACEMENT_OWED", f"No replacement tile is owed to {_name(st, ev.seat)}"
                                                  + (f"; {who} owes one." if st.owed else "."))
    owed = st.owed
    st = _close_window(st)
    _wall_left(st)
    s = st.seats[ev.seat]
    seats = _seats(st, {ev.seat: {"hand": _hand(s.hand, s.hand.concealed + (ev.tile,))}})
    return replace(st, seats=seats, phase="own_turn", **{**_end_turn_fields(), "drawn_tile": ev.tile,
                   "drawn_from": "kong_replacement" if owed == "kong" else "bonus_replacement",
                   "sets_made_this_turn": st.carry_sets}, owed=None, carry_sets=(), **_take_replacement(st))


def _on_bonus(st: PlayState, ev: BonusTile) -> PlayState:
    _in_set(st, ev.tile)
    if not ev.tile.is_bonus:
        raise IllegalEvent("NOT_A_BONUS_TILE", f"{ev.tile.code} is not a bonus tile; it stays in the hand.")
    seat = ev.seat
    s = st.seats[seat]
    concealed = s.hand.concealed
    if st.phase == "own_turn" and seat == st.turn and st.drawn_tile is not None and st.drawn_tile.kind == BACK:
        # the tile drawn face down was this bonus tile: it leaves the hand, the wall has already moved
        replacement = st.drawn_from != "wall"
        concealed = _without(st, seat, (st.drawn_tile,), "set a bonus tile aside")
        carry, wall = st.sets_made_this_turn, {}
    else:
        if st.phase == "kong_window" and seat == st.turn:
            st = _close_window(st)
        else:
            st = _draw_seat(st, seat, "bonus")
        _wall_left(st)
        replacement = st.owed is not None
        s = st.seats[seat]
        carry = st.carry_sets
        wall = _take_replacement(st) if replacement else {"live_wall": st.live_wall - 1}
    payments = []
    for what in _bonus_events(st, s.hand.bonus, ev.tile):
        payments += _instant(st, what, seat)
    seats = _with_points(_seats(st, {seat: {"hand": _hand(s.hand, concealed, bonus=s.hand.bonus + (ev.tile,))}}),
                         payments)
    rob = _eighth_flower_robbable(st, seat)
    window = {**_end_turn_fields(), **({"last_tile": ev.tile, "declaration": "bonus"} if rob else {})}
    return replace(st, seats=seats, turn=seat, phase="kong_window" if rob else "turn_start", **window, owed="bonus",
                   carry_sets=carry if replacement else (), kong_chain=st.kong_chain if replacement else 0, **wall)


def _bonus_events(st: PlayState, bonus: Sequence[Tile], new: Tile) -> list[str]:
    if not st.variant.can_sink_fei:    # bonus families pay at once only in the Fei rule system (3 Kaki)
        return []
    from ..scoring.three_kaki import bonus_events

    return bonus_events([t for t in bonus if t.is_bonus], new)


def _eighth_flower_robbable(st: PlayState, seat: int) -> bool:
    """Hong Kong 花糊: another seat holds the other seven bonus tiles (a kong window opens on the 8th)."""
    if not st.option("flower_rob", False) or "flower_rob" not in st.variant.options:
        return False
    return any(i != seat and sum(1 for b in s.hand.bonus if b.is_bonus) == 7 for i, s in enumerate(st.seats))


# ---------------------------------------------------------------------------------------------
# Discards and claims


def _on_discard(st: PlayState, ev: Discard) -> PlayState:
    seat, tile = ev.seat, ev.tile
    if st.phase != "own_turn" or seat != st.turn:
        raise _fail("NOT_YOUR_TURN", action="discard")
    if tile.kind == JOKER:
        raise IllegalEvent("FEI_DISCARD", "A thrown Fei is sunk, not discarded: record sink_fei (it goes to the "
                                          "bonus area and a replacement is drawn).")
    s = st.seats[seat]
    if s.in_riichi and st.drawn_tile is not None and st.drawn_tile.kind == BACK:
        rest = _without(st, seat, (st.drawn_tile,), "discard")  # after riichi the (face-down) drawn tile is thrown
    else:
        rest = _without(st, seat, (tile,), "discard")
    _check(st, seat, "riichi" if ev.riichi else "discard", tile)
    double = ev.riichi and s.first_turn
    row = s.discards + (DiscardTile(tile, None, ev.riichi),)
    seats = _seats(st, {seat: {"hand": _hand(s.hand, rest), "discards": row, "passed_since_discard": (),
                               "first_turn": False}})
    ippatsu = _add(st.ippatsu, seat) if ev.riichi else _drop(st.ippatsu, seat)
    return replace(st, seats=seats, phase="claim_window", **{**_end_turn_fields(), "last_tile": tile},
                   kong_chain=0, ippatsu=ippatsu,
                   double_riichi=_add(st.double_riichi, seat) if double else st.double_riichi)


def _on_claim(st: PlayState, ev: Chow | Pong | OpenKong) -> PlayState:
    seat = ev.seat
    kind = ev.type
    if st.phase == "claim_window":
        _four_kans_block(st)
    action = _check(st, seat, kind, None, ev.tiles)
    tile = st.last_tile
    assert tile is not None and action.meld is not None
    used = tuple(ev.tiles) if ev.tiles else action.tiles
    rest = _without(st, seat, used, kind)
    meld = _shown_meld(ev, action.meld, (tile,) + used)
    st = _close_window(st)
    disc = st.turn
    d = st.seats[disc]
    row = d.discards[:-1] + (replace(d.discards[-1], called_by=seat),)
    s = st.seats[seat]
    melds = s.hand.melds + (meld,)
    seats = _seats(st, {disc: {"discards": row}, seat: {"hand": _hand(s.hand, rest, melds)}}, first_turn=False)
    idx = len(melds) - 1
    common = dict(turn=seat, **_end_turn_fields(), ippatsu=(), owed=None, carry_sets=())
    if kind == "open_kong":
        seats = _with_points(seats, _instant(st, meld, seat))
        return replace(st, seats=seats, phase="turn_start", **{**common, "owed": "kong", "carry_sets": (idx,)},
                       kong_chain=1)
    return replace(st, seats=seats, phase="own_turn", **{**common, "sets_made_this_turn": (idx,)}, kong_chain=0)


def _kong_window(st: PlayState, seats: tuple[SeatState, ...], declaration: str, tile: Tile, owed: str,
                 carry: tuple[int, ...], **more: Any) -> PlayState:
    return replace(st, seats=seats, phase="kong_window", **{**_end_turn_fields(), "last_tile": tile,
                   "declaration": declaration}, owed=owed, carry_sets=carry, **more)


def _on_closed_kong(st: PlayState, ev: ClosedKong) -> PlayState:
    seat = ev.seat
    if st.phase == "turn_start" and seat == st.turn and "kong_before_draw" in st.variant.rule_flags:
        raise IllegalEvent("KONG_BEFORE_DRAW", "A kong declared before the draw would leave a 12-tile hand, which "
                                               "the table state cannot hold yet: declare it after drawing.")
    action = _check(st, seat, "closed_kong", ev.tile, ev.tiles)
    used = tuple(ev.tiles) if ev.tiles else action.tiles
    rest = _without(st, seat, used, "declare a concealed kong")
    k = ev.tile.kind
    meld = make_meld(used, [Tile(k) if t.kind == JOKER else t for t in used], concealed=True)
    s = st.seats[seat]
    melds = s.hand.melds + (meld,)
    seats = _seats(st, {seat: {"hand": _hand(s.hand, rest, melds)}}, first_turn=False)
    seats = _with_points(seats, _instant(st, meld, seat))
    return _kong_window(st, seats, "closed_kong", Tile(k), "kong", st.sets_made_this_turn + (len(melds) - 1,),
                        kong_chain=st.kong_chain + 1, ippatsu=())


def _on_added_kong(st: PlayState, ev: AddedKong) -> PlayState:
    seat = ev.seat
    action = _check(st, seat, "added_kong", ev.tile)
    assert action.target is not None
    rest = _without(st, seat, (ev.tile,), "add a tile to a shown pong")
    idx = action.target[1]
    s = st.seats[seat]
    old = s.hand.melds[idx]
    meld = make_meld(old.tiles + (ev.tile,), old.stands_for + (ev.tile,), added=True, source=old.source)
    melds = s.hand.melds[:idx] + (meld,) + s.hand.melds[idx + 1:]
    seats = _seats(st, {seat: {"hand": _hand(s.hand, rest, melds)}}, first_turn=False)
    seats = _with_points(seats, _instant(st, meld, seat))
    return _kong_window(st, seats, "added_kong", ev.tile, "kong", _add(st.sets_made_this_turn, idx),
                        kong_chain=st.kong_chain + 1, ippatsu=())


def _on_kita(st: PlayState, ev: Kita) -> PlayState:
    seat = ev.seat
    _check(st, seat, "kita")
    north = Tile(NORTH)
    rest = _without(st, seat, (north,), "set a North aside")
    s = st.seats[seat]
    every = {"first_turn": False} if st.option("kita_interrupts_first_turn", False) else {}
    seats = _seats(st, {seat: {"hand": _hand(s.hand, rest, bonus=s.hand.bonus + (north,))}}, **every)
    return _kong_window(st, seats, "kita", north, "bonus", st.sets_made_this_turn)


def _on_sink_fei(st: PlayState, ev: SinkFei) -> PlayState:
    seat = ev.seat
    _check(st, seat, "sink_fei")
    fei = Tile(JOKER)
    rest = _without(st, seat, (fei,), "sink a Fei")
    s = st.seats[seat]
    seats = _seats(st, {seat: {"hand": _hand(s.hand, rest, bonus=s.hand.bonus + (fei,))}})
    return replace(st, seats=seats, phase="turn_start", **_end_turn_fields(), owed="bonus",
                   carry_sets=st.sets_made_this_turn)


def _on_swap_fei(st: PlayState, ev: SwapFei) -> PlayState:
    seat = ev.seat
    _seat(st, ev.owner)
    melds_of_owner = st.seats[ev.owner].hand.melds
    if not 0 <= ev.meld < len(melds_of_owner):
        raise IllegalEvent("WRONG_TILES", f"{_name(st, ev.owner)} shows {len(melds_of_owner)} set(s); there is no "
                                          f"set {ev.meld}.")
    action = _check(st, seat, "swap_fei", ev.tile, (ev.tile,), target=(ev.owner, ev.meld))
    assert action.meld is not None
    rest = _without(st, seat, (ev.tile,), "swap a Fei back")
    old = melds_of_owner[ev.meld]
    pos = next(i for i, (t, s) in enumerate(zip(old.tiles, old.stands_for, strict=True))
               if t.kind == JOKER and s.kind == ev.tile.kind)
    new = make_meld(old.tiles[:pos] + (ev.tile,) + old.tiles[pos + 1:], old.stands_for[:pos] + (ev.tile,)
                    + old.stands_for[pos + 1:], concealed=old.concealed, added=old.added, source=old.source)
    changes: dict[int, dict[str, Any]] = {}
    owner = st.seats[ev.owner]
    new_melds = owner.hand.melds[:ev.meld] + (new,) + owner.hand.melds[ev.meld + 1:]
    if st.drawn_tile is not None and st.drawn_tile not in rest:
        drawn: dict[str, Any] = {"drawn_tile": Tile(JOKER)}  # the drawn tile went into the set: the Fei replaces it
    else:
        drawn = {}
    if ev.owner == seat:
        changes[seat] = {"hand": _hand(owner.hand, rest + (Tile(JOKER),), new_melds)}
    else:
        s = st.seats[seat]
        changes[seat] = {"hand": _hand(s.hand, rest + (Tile(JOKER),))}
        changes[ev.owner] = {"hand": _hand(owner.hand, melds=new_melds)}
    return replace(st, seats=_seats(st, changes), **drawn)


def _on_pass(st: PlayState, ev: Pass) -> PlayState:
    if st.phase not in WINDOWS:
        raise _fail("NO_CLAIMABLE_TILE")
    if ev.seat == st.turn:
        raise _fail("OWN_DISCARD")
    if ev.seat in st.window_passes:
        raise IllegalEvent("ALREADY_PASSED", f"{_name(st, ev.seat)} has already passed this {st.last_tile.code}.")
    st = record_pass(st, ev.seat)  # type: ignore[assignment]
    return replace(st, window_passes=st.window_passes + (ev.seat,))


def _on_riichi_stick(st: PlayState, ev: RiichiStick) -> PlayState:
    if not st.variant.has_riichi:
        raise _fail("NOT_IN_RULES", action="riichi", variant=st.variant.title)
    if not st.seats[ev.seat].in_riichi:
        raise IllegalEvent("NOT_IN_RIICHI", f"{_name(st, ev.seat)} has not declared riichi (a discard with the "
                                            "riichi flag comes first).")
    if ev.seat in st.sticks_placed:
        raise IllegalEvent("STICK_PLACED", f"{_name(st, ev.seat)}'s riichi stick is already on the table.")
    return _place_stick(st, ev.seat)


def _on_new_dora(st: PlayState, ev: NewDora) -> PlayState:
    if not st.variant.has_dora_indicators:
        raise _fail("NOT_IN_RULES", action="dora indicator", variant=st.variant.title)
    _in_set(st, ev.tile)
    if len(st.dora_indicators) >= 1 + st.kongs_made:
        raise IllegalEvent("NO_NEW_DORA", f"{len(st.dora_indicators)} indicator(s) are already shown for "
                                          f"{st.kongs_made} kan(s); a new one comes with each kan.")
    return replace(st, dora_indicators=st.dora_indicators + (ev.tile,))


def _on_reveal(st: PlayState, ev: Reveal) -> PlayState:
    seat = ev.seat
    name = _name(st, seat)
    s = st.seats[seat]
    concealed = s.hand.concealed
    shown = format_tiles(ev.tiles)
    if len(ev.tiles) != len(concealed):
        raise IllegalEvent("BAD_REVEAL", f"{name} holds {len(concealed)} concealed tiles; the reveal {shown} names "
                                         f"{len(ev.tiles)}.")
    new = _remove(ev.tiles, s.hand.known_concealed)
    if new is None:
        lacking = list(s.hand.known_concealed)
        for t in ev.tiles:
            if t in lacking:
                lacking.remove(t)
        raise IllegalEvent("BAD_REVEAL", f"{name}'s reveal must show every tile already known in the hand; "
                                         f"{shown} lacks {format_tiles(lacking)}.")
    changes: dict[str, Any] = {}
    drawn = st.drawn_tile if st.phase == "own_turn" and seat == st.turn else None
    if drawn is not None and drawn.kind == BACK:
        if ev.drawn is None:
            raise IllegalEvent("BAD_REVEAL", f"{name} drew a tile face down: say which revealed tile it is (drawn).")
        swapped_in = ev.drawn.kind == JOKER and ev.drawn in s.hand.known_concealed  # a Fei swap took the draw
        if ev.drawn not in new and not swapped_in:
            raise IllegalEvent("BAD_REVEAL", f"The drawn tile {ev.drawn.code} must be one of the tiles that were "
                                             f"face down ({format_tiles(new)}).")
        changes["drawn_tile"] = ev.drawn
    elif ev.drawn is not None and ev.drawn is not drawn:
        held = f"its drawn tile is {drawn.code}" if drawn is not None else "it holds no drawn tile now"
        raise IllegalEvent("BAD_REVEAL", f"{name}'s reveal names the drawn tile {ev.drawn.code}, but {held}.")
    try:
        return replace(st, seats=_seats(st, {seat: {"hand": _hand(s.hand, ev.tiles)}}), **changes)
    except StateError as e:
        raise IllegalEvent("BAD_REVEAL", f"{name}'s reveal {shown} cannot be: {e.reason}") from None


# ---------------------------------------------------------------------------------------------
# Wins


def _context(st: PlayState, seat: int, tile: Tile, *, tsumo: bool, ura: Sequence[Tile]) -> WinContext:
    """table.win_context plus what the table state cannot say: ippatsu, double riichi, ura dora, a win
    after two successive kongs, the Fei and honour pongs 3 Kaki losers reveal, Hong Kong's flower rob."""
    chankan = not tsumo and st.phase == "kong_window" and st.declaration in ("added_kong", "closed_kong")
    ctx = win_context(st, seat, tile, tsumo=tsumo, chankan=chankan, in_hand=tsumo)
    s = st.seats[seat]
    changes: dict[str, Any] = {}
    if s.in_riichi:
        changes["ippatsu"] = seat in st.ippatsu
        changes["double_riichi"] = seat in st.double_riichi
        if ura:
            if len(ura) > len(st.dora_indicators):
                raise IllegalEvent("WRONG_TILES", f"{len(ura)} ura indicators for {len(st.dora_indicators)} dora "
                                                  "indicator(s)")
            changes["ura_indicators"] = tuple(ura)
    if tsumo and st.drawn_from == "kong_replacement" and st.kong_chain >= 2:
        changes["after_two_kongs"] = True
    if ctx.others:
        others = {}
        for i, shown in ctx.others.items():
            concealed = st.seats[i].hand.concealed
            fei = sum(1 for t in concealed if t.kind == JOKER)
            pongs = tuple(k for k in sorted({t.kind for t in concealed if t.is_honour})
                          if sum(1 for t in concealed if t.kind == k) >= 3)
            others[i] = PlayerShown(melds=shown.melds, bonus=shown.bonus, fei=fei, sunk_fei=shown.sunk_fei,
                                    hidden_honour_pongs=pongs)
        changes["others"] = others
    if not tsumo and tile.is_bonus:  # 花糊: the robbed 8th flower is not a tile of the hand
        changes["hand"] = _hand(s.hand)
    return replace(ctx, **changes) if changes else ctx


def _scored(ctx: WinContext, seat: int, st: PlayState) -> WinRecord:
    result = score(ctx)
    if not result.legal:
        raise IllegalEvent("NOT_A_WIN", f"{_name(st, seat)} cannot win: {result.verdict}")
    return WinRecord(seat, ctx.win_tile, ctx.tsumo, ctx.discarder, ctx, result)


def _finish_win(st: PlayState, wins: Sequence[WinRecord], discarder: int | None,
                extra: Sequence[Payment] = ()) -> PlayState:
    payments = tuple(p for w in wins for p in w.result.payments if p.amount) + tuple(extra)
    collected = sum(p.amount for p in payments if p.payer is None) // RIICHI_STICK
    seats = _with_points(st.seats, payments)
    end = HandEnd("win", tuple(wins), discarder, payments=payments)
    return replace(st, seats=seats, riichi_sticks=max(0, st.riichi_sticks - int(collected)), ending=end)


def _known_for_win(st: PlayState, winners: Sequence[int]) -> None:
    """Every winner's hand must be known (REVEAL_FIRST); in three-kaki every loser's too (its Fei and
    concealed honour pongs count in the settlement)."""
    for seat in winners:
        _reveal_first(st, seat, "declare the win")
    if st.variant.has_jokers:
        for seat in range(st.players):
            if seat not in winners:
                _reveal_first(st, seat, "score the win (in three-kaki every loser shows its Fei and concealed "
                                        "honour pongs)")


def _on_tsumo(st: PlayState, ev: Tsumo) -> PlayState:
    _check(st, ev.seat, "tsumo")
    _known_for_win(st, (ev.seat,))
    assert st.drawn_tile is not None
    ctx = _context(st, ev.seat, st.drawn_tile, tsumo=True, ura=ev.ura_indicators)
    return _finish_win(st, [_scored(ctx, ev.seat, st)], None)


def _on_ron(st: PlayState, ev: Ron) -> PlayState:
    for seat in ev.seats:
        _seat(st, seat)
    actions = [_check(st, seat, "ron") for seat in ev.seats]
    _known_for_win(st, ev.seats)
    if len(actions) > 1:
        res = resolve_claims(st, actions)
        winners = {a.seat for a in res.winners}
        for loser in res.losers:
            if loser.seat not in winners:
                raise IllegalEvent(loser.code or "LOST_PRIORITY", loser.message)
    disc = st.turn
    order = sorted(ev.seats, key=lambda s: st.distance(disc, s))
    assert st.last_tile is not None
    tile = st.last_tile
    if st.riichi_pending == disc and disc in st.sticks_placed:  # R4: a ronned declaration voids the riichi
        d = st.seats[disc]
        seats = list(st.seats)
        seats[disc] = replace(d, points=d.points + RIICHI_STICK)
        st = replace(st, seats=tuple(seats), riichi_sticks=st.riichi_sticks - 1,
                     sticks_placed=_drop(st.sticks_placed, disc))
    wins = []
    for i, seat in enumerate(order):
        ctx = _context(st, seat, tile, tsumo=False, ura=ev.ura_indicators)
        if i:
            ctx = replace(ctx, riichi_sticks=0,
                          honba=ctx.honba if st.option("honba_to_each_winner", False) else 0)
        wins.append(_scored(ctx, seat, st))
    extra: list[Payment] = []
    if st.phase == "kong_window" and st.declaration == "added_kong":
        extra = _instant(st, "promoted_kong_robbed", disc)
    return _finish_win(st, wins, disc, extra)


# ---------------------------------------------------------------------------------------------
# Draws and penalties


def is_tenpai(state: TableState, seat: int) -> bool:
    """Ready at an exhaustive draw (sanma §9.4): formally ready, with a wait not all held by the seat.
    Raises :class:`~assistant.table.HandNotKnown` for a seat whose hand holds face-down tiles."""
    from ..analysis import waits

    state.check_known(seat, "whether it is ready")
    s = state.seats[seat]
    if state.variant.hand_stage(s.hand.tile_count) != "waiting":
        return False
    return any(w.live > 0 for w in waits(TileHand(s.hand.concealed, s.hand.melds), state.variant))


def _on_exhaustive(st: PlayState, ev: ExhaustiveDraw) -> PlayState:
    if st.live_wall > 0:
        raise IllegalEvent("WALL_NOT_EMPTY", f"{st.live_wall} tile(s) are still in the live wall.")
    if st.phase not in ("claim_window", "turn_start"):
        raise IllegalEvent("WRONG_PHASE", f"{_name(st, st.turn)} holds {st.variant.full_hand_size} tiles and must "
                                          "discard first; the hand ends when the last discard passes.")
    if ev.tenpai is None:
        for i in st.hidden_seats:
            _reveal_first(st, i, "end the hand (or list the seats that are ready)")
        tenpai = tuple(i for i in range(st.players) if is_tenpai(st, i))
    else:
        for i in ev.tenpai:
            _seat(st, i)
            if not st.seats[i].hidden and not is_tenpai(st, i):  # a face-down hand is taken as shown
                raise IllegalEvent("NOT_TENPAI", f"{_name(st, i)}'s hand is not ready, so it cannot be shown as "
                                                 "tenpai.")
        for i, s in enumerate(st.seats):
            if s.in_riichi and i not in ev.tenpai:
                raise IllegalEvent("NOT_TENPAI", f"{_name(st, i)} declared riichi and must show the ready hand.")
        tenpai = ev.tenpai
    nagashi: tuple[int, ...] = ()
    payments: list[Payment] = []
    if st.variant.has_riichi:      # the riichi family pays at a draw (noten payments, nagashi mangan)
        from ..match.rules import mangan_tsumo, noten_payments

        if st.option("nagashi", False):
            nagashi = tuple(i for i, s in enumerate(st.seats) if s.discards and all(
                d.called_by is None and (d.tile.is_honour or d.tile.is_terminal) for d in s.discards))
        if nagashi:
            payments = [Payment(p, r, a, "nagashi mangan") for i in nagashi for p, r, a in mangan_tsumo(i, st.players)]
        else:
            payments = [Payment(p, r, a, "noten payment")
                        for p, r, a in noten_payments(frozenset(tenpai), st.players)]
    end = HandEnd("exhaustive_draw", tenpai=tuple(tenpai), nagashi=nagashi, payments=tuple(payments))
    return replace(st, seats=_with_points(st.seats, payments), ending=end)


def _on_abortive(st: PlayState, ev: AbortiveDraw) -> PlayState:
    if ev.reason not in _abortive_reasons(st):
        raise _fail("NOT_IN_RULES", action=f"{ev.reason.replace('_', ' ')} abortive draw", variant=st.variant.title)
    if ev.reason == "nine_terminals":
        if ev.seat is None:
            raise IllegalEvent("WRONG_TILES", "say which seat declares nine terminals")
        _check(st, ev.seat, "nine_terminals")
    elif not (st.phase == "claim_window" and _four_kans(st)):
        raise IllegalEvent("NO_ABORT", "Four kans abort the hand only when four have been made by more than one "
                                       "player and the discard after the fourth passes.")
    return replace(st, ending=HandEnd("abortive_draw", reason=ev.reason, seat=ev.seat))


def _on_false_win(st: PlayState, ev: FalseWin) -> PlayState:
    from ..match.rules import false_win_payments, match_options, rules_for

    seat = ev.seat
    if seat in st.dead:
        raise IllegalEvent("DEAD_HAND", f"{_name(st, seat)}'s hand is already dead after a false win.")
    rules = rules_for(st.variant.name)
    options = match_options(st.variant.name, {k: v for k, v in st.options.items()})
    reason = "chombo" if rules.riichi else "false win"
    payments = [Payment(p, r, a, reason) for p, r, a in false_win_payments(rules, options, seat) if r is not None]
    lost = [(p, a) for p, r, a in false_win_payments(rules, options, seat) if r is None]
    seats = _with_points(st.seats, payments)
    if lost:
        seats = tuple(replace(s, points=s.points - sum(a for p, a in lost if p == i)) for i, s in enumerate(seats))
    if rules.false_win == "dead_hand":
        return replace(st, seats=seats, dead=st.dead + (seat,))
    sticks = st.riichi_sticks
    returned = [Payment(None, r, RIICHI_STICK, "riichi stick returned") for r in st.sticks_placed]
    seats = _with_points(seats, returned)
    end = HandEnd("false_win", seat=seat, payments=tuple(payments) + tuple(returned))
    return replace(st, seats=seats, riichi_sticks=sticks - len(returned), sticks_placed=(), ending=end)


_HANDLERS: dict[type, Any] = {
    Draw: _on_draw, ReplacementDraw: _on_replacement, BonusTile: _on_bonus, Discard: _on_discard,
    Chow: _on_claim, Pong: _on_claim, OpenKong: _on_claim, ClosedKong: _on_closed_kong, AddedKong: _on_added_kong,
    Kita: _on_kita, SinkFei: _on_sink_fei, SwapFei: _on_swap_fei, Pass: _on_pass, RiichiStick: _on_riichi_stick,
    NewDora: _on_new_dora, Tsumo: _on_tsumo, Ron: _on_ron, ExhaustiveDraw: _on_exhaustive,
    AbortiveDraw: _on_abortive, FalseWin: _on_false_win, Reveal: _on_reveal,
}


def tile_total(state: TableState) -> int:
    """The rule system's tile count at this table (for the conservation check)."""
    return total_tiles(state)


__all__ = ["Hand", "HandLog", "apply", "is_tenpai", "replay", "tile_total"]
