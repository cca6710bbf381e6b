"""The inferrer: the events of a game from its successive stable table observations (:class:`EventInferrer`).

Each frame is turned into a target (:func:`.views.observed_view`), mended where a reading was already
followed or a part has a problem (:mod:`.repairs`), corrected where an earlier reading turns out wrong
(:mod:`.corrections`), checked (:mod:`.checks`) and explained by the search (:func:`.search.explain`), with
the game's other readings of a frame (:mod:`.alternatives`) where the engine cannot explain it as read. The
deal's doubtful tiles (:mod:`.deal`) are settled by the frames that follow it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from assistant.play import (
    Deal,
    Discard,
    Event,
    ExhaustiveDraw,
    NewDora,
    PlayState,
    Tsumo,
)
from assistant.tiles import Tile

from ..observation import TableObservation
from .alternatives import ALTERNATIVE_CLOSE, alternative_targets, aside_targets, call_targets, sure_hand_targets
from .checks import CHECKS, blocks_frame, check_camera, check_hidden, describe_difference, reconstruction_problems
from .corrections import (
    DISPUTE_FRAMES,
    call_rereads_discard,
    hand_start,
    log_with_deal_aside,
    log_with_deal_tile,
    log_with_discard_reread,
    log_with_hand_tile_reread,
    row_disputes,
)
from .deal import (
    COPY_PROBLEMS,
    Doubt,
    copies_rule_out,
    discarded_as,
    doubts_of_deal,
    fits,
    frame_evidence,
    newly_shown,
    part_codes,
    part_tiles,
    played_by,
    shows_every_copy,
    unread_doubt,
    unread_left,
    with_doubts_kept,
    with_unread_tile,
)
from .endings import is_ready, is_winning_shape, melds_of
from .pool import PoolPlaces
from .repairs import with_followed_readings, with_problem_parts_pending
from .search import explain, play_events
from .tile_codes import hand_text, is_bonus, plain_code, sorted_codes
from .views import (
    GameContext,
    SeatView,
    TableView,
    engine_view,
    is_dealt_table,
    newly_aside,
    newly_face_up,
    observed_view,
    public_tiles,
    shows_melds,
    tile_count,
    tiles_new_in,
    with_missed_tiles,
)

#: a table with no discards after a played one is the next deal when, in two frames in a row, the camera
#: player's hand shows at least this many tiles it did not hold (one frame that misses every row is no deal)
NEW_DEAL_TILES = 4
#: a doubtful tile's other readings tried at most to explain one frame (likeliest first), and the candidate moves
#: the engine judges at most for each (the frame's own change, from the hand replayed with it)
DOUBT_TRIES = 4
#: a camera hand tile read with at least this confidence ...
SURE_READING = 0.9
#: ... in this many frames in a row is read surely: re-read last (:meth:`EventInferrer._reread`)
SURE_FRAMES = 2
DOUBT_NODES = 200


#: frames of a table first seen already played, with no dora indicator, that wait for one before the deal is taken
#: without it (a dealt table with none is taken at once: the first indicator shown is the deal's)
LATE_DORA_WAIT = 4
#: a frame whose camera hand reads with too few or too many tiles is followed with that hand as followed
#: (:meth:`EventInferrer._camera_hand_pending`)
CAMERA_HAND_PENDING = True
#: ... and may be explained by moves of the camera player too (its draw taken as a tile the frame shows, a
#: discard it threw unread: later frames that read the hand re-read it). Without them (False) the rendered hands
#: of eval-video --from-images lost what the pending hand gained (788 of 2,264 events against 812: hong-kong 90
#: against 103, three-kaki 9 against 20); with them a draw may be taken wrongly (generated sanma hand 1, read
#: with another scale choice: a draw of its North taken as the 2p just thrown, 75 of 114 events against 98)
CAMERA_MOVES_WHILE_PENDING = True


@dataclass
class EventProblem:
    """Why nothing (or not all) was inferred from a frame: ``kind`` (seats, observation, next_deal, no_deal,
    no_dora, impossible, unexplained) and the ``message`` in plain words."""

    frame: int
    kind: str
    message: str

    def to_json(self) -> dict:
        return {"frame": self.frame, "kind": self.kind, "message": self.message}


@dataclass
class EventInferrer:
    """Events of one hand from successive stable observations (see :mod:`vision.follow`).

    ``camera``: the camera player's table position; ``dealer``: the dealer's (East's) position; ``positions``:
    the occupied positions (default: the first observation's seats). Seats of the events are dealer-relative.
    The engine (:func:`assistant.play.apply`) plays every inferred event: :attr:`state` is its state after
    the last one and :attr:`states` the state after each of :attr:`events`."""

    variant: Any
    players: int | None = None
    camera: int = 0
    dealer: int = 0
    positions: Sequence[int] | None = None
    #: how many candidate moves the engine judges at most to explain one observation
    max_nodes: int = 3000
    #: ... and in all for one frame, its alternative readings and repairs included (:class:`.views.SearchBudget`)
    frame_nodes: int = 6000
    #: the table options the game is played with (the settings page's), given to each deal
    options: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    states: list[PlayState] = field(default_factory=list)
    problems: list[EventProblem] = field(default_factory=list)
    frames: int = 0
    #: (frame, read before, read now): tiles of the camera player's hand whose earlier reading was corrected
    #: (a user's correction, or the tile read otherwise when it moved); :attr:`events` is rewritten for each
    rereads: list[tuple[int, str, str]] = field(default_factory=list)
    #: (frame, seat, read before, read now): followed discards of any seat read otherwise for
    #: :data:`DISPUTE_FRAMES` frames in a row, whose discard event was rewritten (the hand replayed with it)
    corrected: list[tuple[int, int, str, str]] = field(default_factory=list)
    #: (frame, seat, part, read, now): newly seen tiles the follower took as a top-3 alternative because only
    #: that reading let the engine explain the frame (part: discard, hand, dora, centre; a discard out of the
    #: known hand ...), followed discards read as the tile a call then took (part "called": the log is
    #: rewritten and the engine replays the hand), new melds that read as no meld taken as the call the
    #: discard they took allows (part "call": read, the meld), a riichi taken back because its seat called
    #: (part "no riichi": the log is rewritten and replayed) and the camera player's discards never seen (part
    #: "unseen": read "", the tile its hand lost)
    readings: list[tuple[int, int, str, str, str]] = field(default_factory=list)
    #: (frame, seat, part, read, other readings): tiles of a deal read unsurely (:mod:`.deal`), dealt as read
    #: until the table shows which they are
    doubted: list[tuple[int, int, str, str, tuple[str, ...]]] = field(default_factory=list)
    #: (frame, seat, part, read, now, why): doubtful tiles of the deal settled otherwise than dealt (why:
    #: frames, discard, shown, copies, game; see :mod:`.deal`; "late dora": the dora indicator no frame showed at
    #: the deal, read "", seat -1); the deal was rewritten and the hand replayed
    settled: list[tuple[int, int, str, str, str, str]] = field(default_factory=list)
    #: the camera hand's tiles the last frame followed did not show (the detector missed them; the followed hand
    #: holds them: :func:`.views.with_missed_tiles`), () when it showed the hand whole
    missed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from assistant.variants import get_variant

        v = get_variant(self.variant) if isinstance(self.variant, str) else self.variant
        self.variant = v
        self.players = self.players or v.players
        self._ctx: GameContext | None = None
        self._disputes: dict[tuple[int, int], tuple[str, int]] = {}
        self._refused: set[tuple[int, int, str]] = set()
        self._unseen: dict[tuple[int, int], str] = {}   # (seat, row place) -> a followed discard never seen
        # a dealt table (and its observation) seen while a played hand was followed
        self._next_deal: tuple[TableView, TableObservation] | None = None
        self._doubts: list[Doubt] = []       # the doubtful tiles of the hand's deal
        self._dora_unseen = False            # the hand was dealt with no dora indicator (none seen yet)
        self._dora_waits = 0                 # frames of a played table with no indicator not taken as dealt
        self._dora_wait_from: tuple[TableView, TableObservation | None] | None = None   # the first of them
        self._doubt_misses: set[tuple] = set()   # (tile, reading, state, target) tried in vain
        # code -> frames in a row that read every copy of it the followed camera hand holds surely
        self._sure: dict[str, int] = {}
        # the camera hand's tiles the last frame did not show (the detector missed them: :meth:`_missed_tiles`)
        self._recent_missed: Counter = Counter()
        # where the followed centre pool's tiles lie and what they were followed as (Hong Kong)
        self._pool = PoolPlaces()

    @property
    def state(self) -> PlayState | None:
        """The engine's state after the last inferred event (None before the deal)."""
        return self.states[-1] if self.states else None

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.over

    @property
    def camera_seat(self) -> int | None:
        """The engine seat (dealer-relative) of the camera's player, once the seating is known."""
        return self._ctx.camera if self._ctx is not None else None

    def _context(self, obs: TableObservation) -> GameContext:
        if self._ctx is None:
            ring = sorted(self.positions if self.positions is not None else (s.position for s in obs.seats))
            k = ring.index(self.dealer)
            order = tuple(ring[k:] + ring[:k])
            v = self.variant
            self._ctx = GameContext(v, len(order), order.index(self.camera), order,
                                    centre=not v.keeps_discard_rows, dora=v.has_dora_indicators,
                                    jokers=v.has_jokers, kita=v.can_kita)
        return self._ctx

    def _problem(self, kind: str, message: str) -> list[Event]:
        self.problems.append(EventProblem(self.frames, kind, message))
        return []

    def _extend(self, path) -> list[Event]:
        new = []
        for events, states in path:
            new += events
            self.events += events
            self.states += states
        return self._take_late_dora(new) if self._dora_unseen else new

    def feed(self, observation: TableObservation | dict) -> list[Event]:
        """The events that lead to ``observation`` from the last accepted table (empty when nothing changed
        or when the observation is impossible: see :attr:`problems`)."""
        obs = TableObservation.from_dict(observation) if isinstance(observation, dict) else observation
        self.frames += 1
        self.missed = ()
        game = self._context(obs)
        game.budget.left = self.frame_nodes
        if sorted(s.position for s in obs.seats) != sorted(game.order):
            return self._problem("seats", f"The observation shows positions {sorted(s.position for s in obs.seats)}, "
                                          f"not the players' {sorted(game.order)}.")
        reported = obs.problems or reconstruction_problems(obs, self.variant)
        reported = [p for p in reported if blocks_frame(p, obs, game)]
        observed = observed_view(obs, game)
        state = self.state
        if game.centre and state is not None and not state.over:   # pool tiles read as followed where they lie
            latest = state.last_tile.code if state.last_tile is not None else None
            observed = replace(observed, centre=self._pool.kept(obs, observed.centre, latest))
        if reported and state is not None and state.over:
            return self._problem("observation", " ".join(p.message for p in reported))
        if state is None and reported:   # a dealt table with a bad tile: the deal without the parts it touches
            return self._deal_around(reported, observed, game, obs)
        if state is None or (state.over and is_dealt_table(observed)):
            return self._deal(observed, game, obs)
        dealt = self._looks_newly_dealt(state, observed, game)
        first, self._next_deal = self._next_deal, ((observed, obs) if dealt else None)
        if dealt and first is None:
            return self._problem("next_deal", "The table looks newly dealt: the hand is taken as ended if the next "
                                              "frame shows that too.")
        if dealt and first is not None:
            return self._next_hand(first, observed, game)
        if state.over:
            return []
        return self._follow(obs, state, observed, reported, game)

    def _deal_around(self, reported: Sequence, observed: TableView, game: GameContext,
                     obs: TableObservation) -> list[Event]:
        """A dealt table with a bad tile: the deal without the parts the problems touch (reported). Copies too
        many of a kind a doubtful tile is read as are the engine's to judge: the deal tries its other readings."""
        doubtful = {plain_code(d.taken) for d in doubts_of_deal(obs, game)}
        reported = [p for p in reported if p.kind not in COPY_PROBLEMS or not p.tiles
                    or not {plain_code(c) for c in p.tiles} <= doubtful]
        if with_unread_tile(observed, game) is not None:   # one tile short: dealt unread (:mod:`.deal`)
            reported = [p for p in reported if p.kind != "hand_size" or p.position != game.order[game.camera]]
        if not reported:
            return self._deal(observed, game, obs)
        blank = TableView(tuple(SeatView((), "unseen", (), (), None, (), ()) for _ in observed.seats), (), ())
        patched = with_problem_parts_pending(blank, observed, reported, game)
        self._problem("observation", " ".join(p.message for p in reported)
                      + ("" if patched is None else " Those parts are left out; the rest is followed."))
        if patched is None:
            return []
        return self._deal(patched, game, obs)

    def _looks_newly_dealt(self, state: PlayState, observed: TableView, game: GameContext) -> bool:
        """``observed`` shows a dealt table after a played one, the camera player's hand another (by
        :data:`NEW_DEAL_TILES` tiles at least)."""
        hand = observed.seats[game.camera].hand
        return is_dealt_table(observed) and any(s.discards or s.hand.melds for s in state.seats) and \
            len(hand) in game.variant.hand_sizes and \
            tiles_new_in(engine_view(state, game).seats[game.camera].hand, hand) >= NEW_DEAL_TILES

    def _next_hand(self, first: tuple[TableView, TableObservation], observed: TableView,
                   game: GameContext) -> list[Event]:
        """A dealt table after a played one, in two frames in a row (``first``, then ``observed``), the camera player's
        hand another: the hand ended unseen (an exhaustive draw, or the camera player's tsumo, which its
        always-open hand cannot show) and the next one was dealt as the first of them shows, then played on to
        the second (one frame that misses every row, or misreads the hand, is no deal)."""
        self._next_deal = None
        ended = self.finish()
        if self.state is None or not self.state.over:
            return ended
        out = ended + self._deal(first[0], game, first[1])
        if self.state is not None and not self.state.over and first[0] != observed:
            out += self._extend(explain(self.state, observed, game, self.max_nodes) or [])
        return out

    def _follow(self, obs: TableObservation, state: PlayState, observed: TableView, reported: Sequence,
                game: GameContext) -> list[Event]:
        """A frame of the hand being played: the parts with problems left pending, readings already followed
        kept or (disputed, or shown otherwise by a call) corrected, the checks, then the shortest explanation
        the engine accepts (:meth:`_explained`); the frame's readings of the deal's doubtful tiles are weighed
        after it (:meth:`_weigh_doubts`)."""
        reported = self._settle_by_copies(reported)
        state, followed = self._replayed(game)     # a doubt settled by the copies replayed the hand
        reported = [p for p in reported if not _short_by_unread(p, followed, observed, game)]
        observed, reported = self._missed_tiles(followed, observed, reported, game)
        pending = CAMERA_HAND_PENDING and any(_camera_short(p, game) for p in reported)
        if pending:
            observed, reported = self._camera_hand_pending(followed, observed, reported, game)
        path = self._aside_read(obs, state, followed, observed, reported, game) if reported else None
        if path is not None and pending and not CAMERA_MOVES_WHILE_PENDING and _moves_seat(path, game.camera):
            path = None
        if path is not None:   # a tile set aside misread, read as what the game lets lie there
            return self._followed(path, obs, game)
        if reported:   # follow the rest of the frame; the parts with problems wait (pending)
            patched = with_problem_parts_pending(followed, observed, reported, game)
            self._problem("observation", " ".join(p.message for p in reported)
                          + ("" if patched is None else " Those parts are left as they were; the rest is followed."))
            if patched is None:
                return []
            observed = patched
        if self._correct_rows(state, followed, observed, game):
            state, followed = self._replayed(game)
        observed = with_followed_readings(followed, observed, game, self._unseen)
        if self._called_discard(followed, observed, game):
            state, followed = self._replayed(game)
        found = [m for check in CHECKS for m in check(followed, observed, game)]
        path, cam = None, game.camera
        if found:   # a discard taken by a call whose meld cannot be read: the call the discard allows
            path = self._call(obs, state, followed, observed, game)
            if path is None:
                return self._problem("impossible", " ".join(found))
        if path is None:
            path = self._explained(obs, state, followed, observed, game)
        if path is not None and pending and not CAMERA_MOVES_WHILE_PENDING and _moves_seat(path, cam):
            path = None   # the camera player moved: what it drew or threw, only a frame that reads its hand says
        if path is None:
            changed = describe_difference(followed, observed, game)
            return self._problem("unexplained", f"No moves in turn order explain what changed ({changed}); the "
                                                "frame is skipped.")
        new = self._followed(path, obs, game)
        if observed.seats[cam].missed and self.state is not None:   # which of the hand's tiles the frame missed
            held = engine_view(self.state, game).seats[cam].hand
            self.missed = tuple(sorted_codes((Counter(held) - Counter(observed.seats[cam].hand)).elements()))
        return new

    def _missed_tiles(self, followed: TableView, observed: TableView, reported: Sequence, game: GameContext
                      ) -> tuple[TableView, list]:
        """The frame's camera hand read a tile or two short (the detector missed them): the view that lets the
        hand be followed with those tiles unseen (:func:`.views.with_missed_tiles`), its hand-size problem
        dropped; the tiles missed are remembered for the next frame (:attr:`_recent_missed`)."""
        short = [p for p in reported if _camera_short(p, game)]
        missed = with_missed_tiles(followed, observed, game, self._recent_missed) \
            if short or self._recent_missed else None
        if missed is None:
            if not short:
                self._recent_missed = Counter()
            return observed, list(reported)
        self._recent_missed = Counter(missed.seats[game.camera].missed)
        return missed, [p for p in reported if not _camera_short(p, game)]

    def _camera_hand_pending(self, followed: TableView, observed: TableView, reported: Sequence,
                             game: GameContext) -> tuple[TableView, list]:
        """The frame's camera hand read with too few or too many tiles, and not as a tile or two missed
        (:meth:`_missed_tiles`): the hand taken as followed (pending) so that the rest of the frame can be
        followed (a seat camera's own hand, small and blurred, read short frame after frame: generated
        hong-kong hand 0); the problem is said and dropped. An explanation of such a frame that moves the camera
        player is taken only with :data:`CAMERA_MOVES_WHILE_PENDING` (:meth:`_follow`)."""
        short = [p for p in reported if _camera_short(p, game)]
        s = followed.seats[game.camera]
        seats = list(observed.seats)
        seats[game.camera] = replace(seats[game.camera], hand=s.hand, state=s.state, right=s.right, missed=())
        self._problem("observation", " ".join(p.message for p in short) + " The hand is left as it was; the rest "
                                                                          "is followed.")
        return replace(observed, seats=tuple(seats)), [p for p in reported if not _camera_short(p, game)]

    def _followed(self, path, obs: TableObservation, game: GameContext) -> list[Event]:
        """The frame followed along ``path``: its events taken, then its readings of the deal's doubtful tiles
        weighed and the camera hand's sure readings counted."""
        new = self._extend(path)
        self._weigh_doubts(obs, game)
        self._count_sure(obs, game)
        self._remember_pool(obs, game)
        return new

    def _take_late_dora(self, new: list[Event]) -> list[Event]:
        """The deal was taken with no dora indicator (no frame showed it yet: a far, small tile): the first one
        followed, which the search can only take as a kan dora that no kong turned, is the deal's. The deal is
        rewritten with it and the hand replayed (:attr:`settled`, why "late dora"); ``new`` (the frame's events)
        without it."""
        start = hand_start(self.events)
        for k in range(start + 1, len(self.events)):
            ev = self.events[k]
            if not isinstance(ev, NewDora):
                continue
            self._dora_unseen = False
            if self.states[k - 1].kongs_made or self.states[k - 1].dora_indicators:
                return new
            deal = self.events[start]
            assert isinstance(deal, Deal)
            events = self.events[:start] + [replace(deal, dora_indicators=(ev.tile,))] + self.events[start + 1:k] \
                + self.events[k + 1:]
            states = play_events(None, events[start:])
            if states is None:
                return new
            self.events, self.states = events, self.states[:start] + list(states)
            self.settled.append((self.frames, -1, "dora", "", ev.tile.code, "late dora"))
            return [e for e in new if e is not ev]
        return new

    def _remember_pool(self, obs: TableObservation | None, game: GameContext) -> None:
        """Where the followed centre pool's tiles lie in the frame just followed (:class:`.pool.PoolPlaces`)."""
        if not game.centre or self.state is None:
            return
        if obs is None:
            self._pool.clear()
        else:
            self._pool.remember(obs, engine_view(self.state, game).centre)

    def _aside_read(self, obs: TableObservation, state: PlayState, followed: TableView, observed: TableView,
                    reported: Sequence, game: GameContext):
        """A tile newly set aside read as a kind that never lies there (reported as no bonus tile): the path
        with it read as what does lie there (:func:`aside_targets`) when the engine explains the frame so, the
        frame's other problems left pending; the reading is recorded in :attr:`readings`. None otherwise."""
        for _, target, (seat, part, was, now) in aside_targets(obs, followed, observed, game):
            position = game.order[seat]
            rest = [p for p in reported if not (p.kind == "bad_meld" and p.position == position
                                                and set(p.tiles or ()) <= set(observed.seats[seat].bonus))]
            if len(rest) == len(reported):
                continue
            patched = with_problem_parts_pending(followed, target, rest, game) if rest else target
            if patched is None:
                continue
            target = with_followed_readings(followed, patched, game, self._unseen)
            if any(m for check in CHECKS for m in check(followed, target, game)):
                continue
            path = self._read_so(state, target, game, (seat, part, was, now))
            if path is not None:
                return path
        return None

    def _aside_at_deal(self, followed: TableView, observed: TableView, game: GameContext):
        """A seat's area set aside newly shows bonus tiles that no move explains (the first frames missed them:
        far, small tiles): the hand replayed from a deal that sets them aside for that seat, and the path from
        there to the frame, when the engine explains it so; recorded in :attr:`readings` (part "dealt aside").
        None otherwise."""
        start = hand_start(self.events)
        for seat, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
            added = [c for c in newly_aside(s.bonus, v.bonus) if is_bonus(c)]
            if not added:
                continue
            events = log_with_deal_aside(self.events, start, seat, added)
            states = play_events(None, events[start:])
            if states is None:
                continue
            path = explain(states[-1], observed, game, max(200, self.max_nodes // 4))
            if path is None:
                continue
            self.events, self.states = events, self.states[:start] + list(states)
            self.readings.append((self.frames, seat, "dealt aside", "", " ".join(added)))
            return path
        return None

    def _replayed(self, game: GameContext) -> tuple[PlayState, TableView]:
        """The state the replayed hand reached (the log was rewritten) and what it shows the camera."""
        state = self.state
        assert state is not None
        return state, engine_view(state, game)

    def _explained(self, obs: TableObservation, state: PlayState, followed: TableView, observed: TableView,
                   game: GameContext):
        """The path from ``state`` to ``observed`` as the frame reads it, else with what the game says a tile must have
        been, in this order: a newly seen tile's close alternatives, the camera player's hand re-read (the log
        rewritten), its less likely alternatives, a call whose meld cannot be read, a discard never seen; None
        when nothing explains the frame."""
        path = explain(state, observed, game, self.max_nodes)
        if path is None:   # a doubtful tile of the deal read otherwise, or shown on the table as another reading
            path = self._doubts_read(state, followed, observed, game)
        if path is None:   # bonus tiles the first frames missed, set aside at the deal
            path = self._aside_at_deal(followed, observed, game)
        if path is not None:
            return path
        alternatives = alternative_targets(obs, followed, observed, game)
        # a newly seen tile read doubtfully: its close alternatives first
        path = self._alternative(state, alternatives, game, 0.0, ALTERNATIVE_CLOSE)
        if path is None:   # a tile of the hand not yet read surely was read wrongly so far
            path = self._reread_followed(followed, observed, game, sure=False)
        if path is None:   # one frame misreading tiles is likelier than frames that read a tile surely
            path = self._alternative(state, alternatives, game, ALTERNATIVE_CLOSE, math.inf)
        if path is None:   # ... and a tile read surely so far kept as it was read, the new one misread
            sure = {c for c, n in self._sure.items() if n >= SURE_FRAMES}
            path = self._alternative(state, sure_hand_targets(obs, followed, observed, game, sure), game,
                                     -math.inf, math.inf)
        if path is None:
            path = self._reread_followed(followed, observed, game, sure=True)
        if path is None:   # a call whose meld cannot be read, its discard never followed
            path = self._call(obs, state, followed, observed, game)
        if path is None:
            path = self._unseen_discard(state, followed, observed, game)
        if path is None:   # the engine refuses the frame: a doubtful tile of the deal it needs read otherwise
            path = self._doubts_the_game_needs(followed, observed, game)
        return path

    def _alternative(self, state: PlayState, alternatives, game: GameContext, low: float, high: float):
        """The first of the newly seen tiles' alternative readings (:func:`alternative_targets`, likeliest
        first) less likely than the reading by a log ratio in [``low``, ``high``) that lets the engine explain
        the frame: its path, or None."""
        for cost, target, reading in alternatives:
            path = self._read_so(state, target, game, reading) if low <= cost < high else None
            if path is not None:
                return path
        return None

    def _read_so(self, state: PlayState, target: TableView, game: GameContext, reading: tuple[int, str, str, str]):
        """The path the engine finds from ``state`` to ``target``, a frame with one tile read otherwise
        (``reading``: seat, part, read, taken), within an alternative's budget; the reading is recorded in
        :attr:`readings` when one is found."""
        path = explain(state, target, game, max(200, self.max_nodes // 4))
        if path is not None:
            self.readings.append((self.frames, *reading))
        return path

    def _call(self, obs: TableObservation, state: PlayState, followed: TableView, observed: TableView,
              game: GameContext):
        """The first call of :func:`call_targets` that passes the checks and that the engine explains: its
        path (recorded in :attr:`readings`), or None."""
        budget = max(200, self.max_nodes // 4)
        for target, (seat, part, was, now) in call_targets(obs, state, followed, observed, game):
            if any(m for check in CHECKS for m in check(followed, target, game)):
                continue
            path = explain(state, target, game, budget)
            if path is None and state.seats[seat].in_riichi:
                path = self._unriichi(seat, target, game, budget)
            if path is not None:
                self.readings.append((self.frames, seat, part, was, now))
                return path
        return None

    def _unseen_discard(self, state: PlayState, followed: TableView, observed: TableView, game: GameContext):
        """The camera player's hand lost a tile that shows nowhere new while its row shows nothing new: its
        discard was missed by the detector (a blank white dragon on pale cloth). The first such tile the engine
        explains as discarded is followed (recorded in :attr:`readings`, part "unseen"), and kept in the row in
        later frames that miss it too: the path, or None. Not in Hong Kong: its discards lie in one pool,
        where a tile kept though unseen could no longer be told from one called later."""
        cam = game.camera
        s, v = followed.seats[cam], observed.seats[cam]
        if game.centre or v.state != "faces" or "bk" in v.hand or v.discards != s.discards:
            return None
        shown = public_tiles(Counter(), observed) - public_tiles(Counter(), followed)
        budget = max(200, self.max_nodes // 4)
        for code in sorted(set((Counter(s.hand) - Counter(v.hand)).elements())):
            if shown[code]:
                continue
            seats = list(observed.seats)
            seats[cam] = replace(v, discards=v.discards + (code,))
            path = explain(state, replace(observed, seats=tuple(seats)), game, budget)
            if path is not None:
                self._unseen[(cam, len(s.discards))] = code
                self.readings.append((self.frames, cam, "unseen", "", code))
                return path
        return None

    def _unriichi(self, seat: int, target: TableView, game: GameContext, budget: int):
        """A seat followed as in riichi calls a discard, which a player in riichi never does: the tile read
        lying sideways in its row was a misread (a far tile boxed on the wrong axis). Its riichi is taken back,
        the engine replays the hand, and the call is explained again: the path (the log rewritten, recorded in
        :attr:`readings` as part "no riichi"), or None (nothing changed)."""
        start = hand_start(self.events)
        events = [replace(e, riichi=False) if isinstance(e, Discard) and e.seat == seat and e.riichi and i >= start
                  else e for i, e in enumerate(self.events)]
        states = play_events(None, events[start:])
        if states is None:
            return None
        seats = list(target.seats)
        seats[seat] = replace(seats[seat], sideways=None)
        path = explain(states[-1], replace(target, seats=tuple(seats)), game, budget)
        if path is None:
            return None
        row = target.seats[seat].discards
        self.events, self.states = events, self.states[:start] + list(states)
        self.readings.append((self.frames, seat, "no riichi", " ".join(row), " ".join(row)))
        return path

    def _called_discard(self, followed: TableView, observed: TableView, game: GameContext) -> bool:
        """A call shows the discard it took as another tile than the one followed
        (:func:`.corrections.call_rereads_discard`): the discard event takes the called tile and the engine
        replays the hand (refused: nothing changes). True when the log was rewritten."""
        found = call_rereads_discard(self.events, followed, observed, game)
        if found is None:
            return False
        k, was, now = found
        start = hand_start(self.events)
        events = list(self.events)
        thrown = events[k]
        assert isinstance(thrown, Discard)
        events[k] = replace(thrown, tile=Tile.from_code(now))
        states = play_events(None, events[start:])
        if states is None:
            return False
        self.events, self.states = events, self.states[:start] + list(states)
        self.readings.append((self.frames, thrown.seat, "called", was, now))
        return True

    def _correct_rows(self, state: PlayState, followed: TableView, observed: TableView, game: GameContext) -> bool:
        """A followed discard read as the same other tile for :data:`DISPUTE_FRAMES` frames in a row takes
        that reading: its discard event is rewritten and the engine replays the hand (refused: the followed
        reading stays). True when the log was rewritten."""
        now = row_disputes(followed, observed, game)
        disputes = {}
        for seat, place, code in now:
            was, count = self._disputes.get((seat, place), (code, 0))
            disputes[(seat, place)] = (code, count + 1 if was == code else 1)
        self._disputes = disputes
        for (seat, place), (code, count) in sorted(disputes.items()):
            if count < DISPUTE_FRAMES or (seat, place, code) in self._refused:
                continue
            start = hand_start(self.events)
            events = log_with_discard_reread(self.events, start, state, seat, place, code)
            states = play_events(None, events[start:]) if events is not None else None
            if events is None or states is None:
                self._refused.add((seat, place, code))     # the engine refuses that reading: not tried again
                continue
            was = followed.seats[seat].discards[place]
            self.events, self.states = events, self.states[:start] + list(states)
            self.corrected.append((self.frames, seat, was, code))
            del self._disputes[(seat, place)]
            return True
        return False

    def _count_sure(self, obs: TableObservation, game: GameContext) -> None:
        """After a followed frame: for each code of the followed camera hand, how many frames in a row have
        read every copy of it the hand holds with at least :data:`SURE_READING` (:meth:`_reread` leaves such
        tiles for last)."""
        state = self.state
        assert state is not None
        held = Counter(engine_view(state, game).seats[game.camera].hand)
        read = Counter(str(a.get("code")) for a in part_tiles(obs, game.camera, "hand", game)
                       if float(a.get("confidence", 0.0)) >= SURE_READING)
        self._sure = {c: self._sure.get(c, 0) + 1 if read[c] >= n else 0 for c, n in held.items()}

    def _reread_followed(self, followed: TableView, observed: TableView, game: GameContext, sure: bool):
        """:meth:`_reread`, its rewritten log followed: the path, or None."""
        fixed = self._reread(followed, observed, game, sure)
        if fixed is None:
            return None
        (was, now), events, states, path = fixed
        self.events, self.states = events, states
        self.rereads.append((self.frames, was, now))
        return path

    def _reread(self, followed: TableView, observed: TableView, game: GameContext, sure: bool = False):
        """When nothing explains a change: is one tile of the camera player's hand read wrongly so far? A tile
        of the followed hand that the observation lacks is taken for one of the codes that newly show (in the
        hand, or in a discard row, meld or bonus area where it may have gone): the event that brought it in
        (its latest draw, else the deal) is corrected, the engine replays the hand, and the change is
        explained again. Only tiles read surely for :data:`SURE_FRAMES` frames in a row (``sure``), or only
        the others, are taken: one frame misreading a sure tile is likelier, so those are tried last.
        Returns ((read before, read now), the corrected events, their states, the path) or None."""
        cam = game.camera
        old, new = Counter(followed.seats[cam].hand), Counter(observed.seats[cam].hand)
        gone = sorted(c for c in set((old - new).elements()) if (self._sure.get(c, 0) >= SURE_FRAMES) == sure)
        if not gone or "bk" in new or sum((old - new).values()) > 3:
            return None
        shown = (new - old) + (public_tiles(Counter(), observed) - public_tiles(Counter(), followed))
        candidates = sorted(c for c in shown if c != "bk")
        budget = max(200, self.max_nodes // 4)
        for was in gone:
            for now in candidates:
                if now == was:
                    continue
                events = log_with_hand_tile_reread(self.events, cam, was, now)
                states = play_events(None, events) if events is not None else None
                if states is None:
                    continue
                path = explain(states[-1], observed, game, budget)
                if path is not None:
                    return (was, now), events, list(states), path
        return None

    def _deal(self, observed: TableView, game: GameContext, obs: TableObservation | None = None,
              waited: bool = False) -> list[Event]:
        """The deal a dealt table shows (``obs``: its observation, whose unsure tiles are dealt as read and kept
        as doubts: :mod:`.deal`), then what the table shows after it; a table already played is dealt only when
        no deal was followed yet and the camera player has not played (:meth:`_may_deal_late`), and one with no
        dora indicator after :data:`LATE_DORA_WAIT` frames that show none (``waited``: the wait is over)."""
        late = not is_dealt_table(observed)
        if late and not self._may_deal_late(observed, game):
            if self._dora_wait_from is not None:   # the camera player played while the deal waited for the dora
                return self._deal_waited(observed, game)
            return self._problem("no_deal", "The table already shows discards or melds: waiting for a new deal.")
        unread = with_unread_tile(observed, game)   # the camera hand one tile short: that tile dealt unread
        found = self._deal_problems(observed, game, camera=unread is None)
        no_dora = game.dora and not observed.dora
        if no_dora and late and not waited and not found:
            # a table already played with no indicator: a tile lying where the indicator lies may have been read
            # as a discard; a few frames to show it, then the deal from the first of them
            if self._dora_waits >= LATE_DORA_WAIT:
                return self._deal_waited(observed, game)
            self._dora_waits += 1
            self._dora_wait_from = self._dora_wait_from or (observed, obs)
            return self._problem("impossible", "The table shows play already and no dora indicator: waiting for a "
                                               "frame that shows it.")
        if found:
            return self._problem("impossible", " ".join(found))
        doubts = (doubts_of_deal(obs, game) if obs is not None else []) + ([unread_doubt(game)] if unread else [])
        dealt = self._dealt(self._deal_event(unread or observed, game), doubts)
        if isinstance(dealt, str):
            return self._problem("impossible", dealt)
        deal, states = dealt
        path = explain(states[-1], observed, game, self.max_nodes)
        if late and path is None:
            return self._problem("no_deal", "The table shows play already, and no deal leads to it: waiting for "
                                            "a new deal.")
        # the first indicator the table shows is the deal's
        self._dora_unseen, self._dora_waits, self._dora_wait_from = no_dora, 0, None
        if no_dora:
            self._problem("no_dora", "The dealt table shows no dora indicator yet: the deal is taken without it, "
                                     "and the first one the table shows is the deal's.")
        self._disputes, self._refused, self._unseen = {}, set(), {}   # places in the rows of the hand before
        self._doubts, self._doubt_misses, self._recent_missed = doubts, set(), Counter()
        self.doubted += [(self.frames, d.seat, d.part, d.taken, tuple(d.readings())) for d in doubts]
        self.settled += [(self.frames, d.seat, d.part, was, d.taken, "copies") for d in doubts
                         for was in sorted(d.ruled_out)]
        out = self._extend([((deal,), states)]) + self._extend(path or [])
        self._remember_pool(obs, game)
        return out

    def _deal_waited(self, observed: TableView, game: GameContext) -> list[Event]:
        """The wait for a dora indicator is over (:data:`LATE_DORA_WAIT` frames, or the camera player played): the
        deal from the first frame that waited, without it, and the path from there to ``observed``."""
        first, obs = self._dora_wait_from or (observed, None)
        self._dora_wait_from = None
        out = self._deal(first, game, obs, waited=True)
        if self.state is not None and not self.state.over and first != observed:
            out += self._extend(explain(self.state, observed, game, self.max_nodes) or [])
        return out

    def _may_deal_late(self, observed: TableView, game: GameContext) -> bool:
        """A table already played may be taken as dealt when no hand was followed yet (its dealt frames were
        misread) and the camera player has not played: its hand is the dealt one, and what the others did
        since is for the search to explain (Hong Kong: no more discards in the centre than the seats before
        the camera player's)."""
        cam = observed.seats[game.camera]
        return self.state is None and not cam.discards and not cam.melds and \
            (not game.centre or len(observed.centre) <= game.camera)

    def _deal_problems(self, observed: TableView, game: GameContext, camera: bool = True) -> list[str]:
        """Why a dealt table cannot be dealt as seen, in plain words (``camera``: the camera player's hand
        checked too; not where one tile of it is dealt unread)."""
        found = (check_camera(None, observed, game) if camera else []) + check_hidden(None, observed, game)
        if len(observed.dora) > 1:   # no kong before the deal: one of them is a misread (a standing hand's top)
            found.append(f"A dealt table shows one dora indicator, not {len(observed.dora)} "
                         f"({' '.join(observed.dora)}): waiting for a frame that shows one.")
        return found

    def _deal_event(self, observed: TableView, game: GameContext) -> Deal:
        """The deal as the table shows it: the camera player's hand (a tile beyond the hand's size is the
        dealer's first draw, inferred after it), hidden hands as backs, the tiles set aside, the dora."""
        size = game.variant.hand_size
        hand = observed.seats[game.camera].hand[:size]
        hands = tuple(hand_text(hand if i == game.camera else ["bk"] * size, v.bonus)
                      for i, v in enumerate(observed.seats))
        return Deal(self.variant.name, hands, dora_indicators=" ".join(observed.dora),  # type: ignore[arg-type]
                    options=dict(self.options))  # type: ignore[arg-type]  # the event parses both

    def _dealt(self, deal: Deal, doubts: list[Doubt]) -> tuple[Deal, tuple[PlayState, ...]] | str:
        """The deal and its state as the engine plays it; where the engine refuses it (a fifth copy), the deal
        with one doubtful tile read as another of its readings (the reading refused is ruled out); else why
        the dealt table cannot be."""
        states = play_events(None, [deal])
        if states is not None:
            return deal, states
        for d in doubts:
            for now in d.readings()[:DOUBT_TRIES]:
                fixed = log_with_deal_tile([deal], 0, d.seat, d.part, d.taken, now)
                states = play_events(None, fixed) if fixed is not None else None
                if fixed is not None and states is not None:
                    assert isinstance(fixed[0], Deal)
                    d.ruled_out.add(d.taken)
                    d.taken = now
                    return fixed[0], states
        from assistant.play import IllegalEvent, apply

        try:
            apply(None, deal)
        except (IllegalEvent, ValueError) as e:
            return f"The dealt table cannot be: {e}"
        return "The dealt table cannot be."

    # ------------------------------------------------------------------ the deal's doubtful tiles settled

    def _open_doubts(self) -> list[Doubt]:
        return [d for d in self._doubts if not d.closed]

    def _replayed_with(self, doubt: Doubt, now: str) -> tuple[list[Event], tuple[PlayState, ...]] | None:
        """The log with the hand's deal holding ``now`` for the doubtful tile, and the states the engine
        replays it to; None (the reading ruled out) where the engine refuses it."""
        start = hand_start(self.events)
        events = log_with_deal_tile(self.events, start, doubt.seat, doubt.part, doubt.taken, now)
        states = play_events(None, events[start:]) if events is not None else None
        if events is None or states is None:
            doubt.ruled_out.add(now)
            return None
        return events, states

    def _commit(self, doubt: Doubt, now: str, why: str, events: list[Event],
                states: tuple[PlayState, ...]) -> None:
        """The doubtful tile settled as ``now`` (``why``: :attr:`settled`): the rewritten log and its replayed
        states followed. A reading the table refused (anything but the frames' evidence) is ruled out."""
        start = hand_start(self.events)
        self.events, self.states = events, self.states[:start] + list(states)
        self.settled.append((self.frames, doubt.seat, doubt.part, doubt.taken, now, why))
        if why != "frames":
            doubt.ruled_out.add(doubt.taken)
        doubt.taken = now

    def _weigh_doubts(self, obs: TableObservation, game: GameContext) -> None:
        """After a followed frame: each open doubt gathers the frame's readings of its tile (closed where its
        tile left the part), and one whose evidence has come to favour another reading is settled as it."""
        state = self.state
        assert state is not None
        followed = engine_view(state, game)
        for d in self._open_doubts():
            if d.unread:
                if not unread_left(state, d.seat):   # the engine used it up: the tile the seat played
                    self._settle_unread(d)
                continue
            if d.taken not in part_codes(followed, d):
                d.closed = True
                continue
            found = frame_evidence(d, obs, followed, game)
            if found:
                d.weigh(found)
            now = d.best()
            replayed = self._replayed_with(d, now) if now is not None else None
            if now is not None and replayed is not None:
                self._commit(d, now, "frames", *replayed)

    def _settle_unread(self, doubt: Doubt) -> None:
        """The camera hand's unread tile left the hand (a discard or a call used it up): the deal rewritten
        with the first tile the seat played since that the engine replays the hand with; the doubt closes."""
        doubt.closed = True
        for code in played_by(self.events, hand_start(self.events), doubt.seat):
            replayed = self._replayed_with(doubt, code)
            if replayed is not None:
                self._commit(doubt, code, "discard", *replayed)
                return

    def _settle_by_copies(self, reported: Sequence) -> list:
        """The problems left after settling each copy too many of a kind a doubtful tile is read as: its other
        readings, likeliest first, until the engine replays the hand with one."""
        left = []
        for p in reported:
            codes = set(p.tiles or []) if p.kind in COPY_PROBLEMS else set()
            doubts = [d for d in self._open_doubts() if codes and (d.taken in codes or plain_code(d.taken) in codes)]
            if not any(self._settled_as_any(d, "copies") for d in doubts):
                left.append(p)
        return left

    def _settled_as_any(self, doubt: Doubt, why: str) -> bool:
        """The doubtful tile settled as the first of its other readings the engine replays the hand with."""
        for now in doubt.readings()[:DOUBT_TRIES]:
            replayed = self._replayed_with(doubt, now)
            if replayed is not None:
                self._commit(doubt, now, why, *replayed)
                return True
        return False

    def _doubts_read(self, state: PlayState, followed: TableView, observed: TableView, game: GameContext):
        """A frame the engine cannot explain as read, with the deal's doubtful tiles: read as the readings the
        deal took where the frame reads one as another (the evidence decides, not one frame), else with one
        settled as a reading the table newly shows (its discard, a meld); the path, or None."""
        doubts = self._open_doubts()
        if not doubts:
            return None
        kept = with_doubts_kept(followed, observed, doubts, game)
        path = explain(state, kept, game, max(200, self.max_nodes // 4)) if kept is not None else None
        if path is not None:
            return path
        shown = newly_shown(followed, observed, game)
        tries = [(d, now) for d in doubts for now in d.readings() if shown[now]]
        tries += [(d, now) for d in doubts if d.unread for now in sorted(shown) if fits(now, d.part, game.variant)]
        return self._doubts_settled(observed, game, tries, lambda d, now, state: (
            "discard" if discarded_as(followed, observed, game, now) else "shown"))

    def _doubts_the_game_needs(self, followed: TableView, observed: TableView, game: GameContext):
        """A frame nothing explains, where a doubtful tile of the deal matters to the engine: the table shows
        more copies of its reading than the set has, or (a tile of the camera player's hand) a call of the
        camera player's or a hand laid down to win. The path with one of its other readings, or None."""
        cam = game.camera
        played = not shows_melds(followed.seats[cam].melds, observed.seats[cam].melds) or bool(
            newly_face_up(followed, observed, game))
        tries = [(d, now) for d in self._open_doubts()
                 if shows_every_copy(observed, d.taken, game) or (d.part == "hand" and played)
                 for now in d.readings()]
        return self._doubts_settled(observed, game, tries, lambda d, now, state: (
            "copies" if copies_rule_out(state, d.taken, now, self.variant) else "game"))

    def _doubts_settled(self, observed: TableView, game: GameContext, tries: Sequence[tuple[Doubt, str]],
                        why: Callable[[Doubt, str, PlayState], str]):
        """The path to ``observed`` from the hand replayed with a doubtful tile of the deal read as another of its
        readings (``tries``: (doubt, reading), :data:`DOUBT_TRIES` at most), which is then settled so (``why``
        it: of the doubt, the reading and the state the path reaches); None when none explains the frame."""
        keys = {(d.seat, d.part, d.taken, now, self.state, observed): (d, now) for d, now in tries}
        for key, (d, now) in list((k, t) for k, t in keys.items() if k not in self._doubt_misses)[:DOUBT_TRIES]:
            replayed = self._replayed_with(d, now)
            if replayed is None:
                continue
            start = replayed[1][-1]   # the frame may still read the tile as the deal had it: that reading kept
            target = with_doubts_kept(engine_view(start, game), observed, [replace(d, taken=now)], game)
            path = explain(start, target or observed, game, min(DOUBT_NODES, self.max_nodes))
            if path is None:
                self._doubt_misses.add(key)
                continue
            self._commit(d, now, why(d, now, path[-1][1][-1] if path else start), *replayed)
            return path
        return None

    def finish(self) -> list[Event]:
        """The hand is over (the table is being cleared): the camera player's own tsumo, which its always-open
        hand cannot show, else an exhaustive draw with the camera player listed when its hand is ready (ready
        hands laid face up and wins are inferred when the table shows them; a ron winner takes the tile)."""
        state, game = self.state, self._ctx
        if state is None or state.over or game is None:
            return []
        game.budget.left = self.frame_nodes
        cam = game.camera
        hand = engine_view(state, game).seats[cam].hand
        if state.phase == "own_turn" and state.turn == cam \
                and is_winning_shape(hand, melds_of(state, cam), self.variant):
            end: Event = Tsumo(cam)
        else:
            end = ExhaustiveDraw((cam,) if is_ready(state, cam) else ())
        states = play_events(state, [end])
        if states is None:
            return self._problem("unexplained", f"The hand cannot end as {end.type.replace('_', ' ')} now.")
        return self._extend([((end,), states)])

    def log(self) -> list[dict]:
        return [e.to_json() for e in self.events]


def _moves_seat(path, seat: int) -> bool:
    """An event of ``path`` is a move of ``seat`` (its draw, discard, call, kong, kita, bonus tile or win)."""
    return any(getattr(e, "seat", None) == seat or seat in getattr(e, "seats", ()) for events, _ in path
               for e in events)


def _camera_short(problem, game: GameContext) -> bool:
    """``problem`` says the camera player's hand counts too few or too many tiles."""
    return problem.kind == "hand_size" and problem.position == game.order[game.camera]


def _short_by_unread(problem, followed: TableView, observed: TableView, game: GameContext) -> bool:
    """``problem`` says the camera player's hand is short by exactly the tiles of its deal not read yet (left out
    of the camera's view: :mod:`.deal`): it is no problem."""
    unread = followed.seats[game.camera].unread
    return bool(unread) and problem.kind == "hand_size" and problem.position == game.order[game.camera] and \
        tile_count(observed, game.camera) + unread in game.variant.hand_sizes
