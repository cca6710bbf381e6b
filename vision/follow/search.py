"""The search: the shortest sequence of moves the engine accepts that leads to a state showing the new table.

Several moves may lie between two stable observations (a frame missed). :func:`explain` searches breadth
first over the candidate events of :data:`.moves.MOVES`, each played by the engine (:func:`play_events`: a
refused event ends its branch), and keeps the shortest sequences whose state shows what the observation shows;
ties are broken by :data:`PREFERENCES`.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import replace

from assistant.play import (
    Discard,
    Draw,
    Event,
    ExhaustiveDraw,
    PlayState,
    ReplacementDraw,
    Ron,
)

from .moves import MOVES
from .tile_codes import sorted_codes
from .views import (
    GameContext,
    TableView,
    engine_view,
    meld_grows,
    shows_hand,
    shows_meld,
    shows_melds,
    still_aside,
)


def play_events(state: PlayState | None, events: Sequence[Event]) -> tuple[PlayState, ...] | None:
    """The states after each of ``events`` as the engine plays them, or None when it refuses one. The camera
    does not count the wall: an exhaustive draw the table shows is judged with the wall taken as empty."""
    from assistant.play import IllegalEvent, apply

    out = []
    try:
        for ev in events:
            if isinstance(ev, ExhaustiveDraw) and state is not None:
                state = replace(state, live_wall=0)
            state = apply(state, ev)
            out.append(state)
    except (IllegalEvent, ValueError):
        return None
    return tuple(out)


def _can_still_reach(state: PlayState, followed: TableView, observed: TableView, game: GameContext) -> bool:
    """Nothing in the state's view ``followed`` that the target (``observed``) rules out (a search branch worth
    going on with)."""
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        r, want = s.discards, v.discards
        open_tile = state.phase == "claim_window" and state.turn == i and r
        if want[:len(r)] != r and not (open_tile and want[:len(r) - 1] == r[:-1]):
            return False
        robbed = state.last_tile.code if state.phase == "kong_window" and state.last_tile is not None else None
        if len(s.melds) > len(v.melds) or not all(
                meld_grows(a, b) or (robbed is not None and a.added == robbed and shows_meld(a.base, b))
                for a, b in zip(s.melds, v.melds, strict=False)):
            return False
        if not still_aside(s.bonus, v.bonus) or not still_aside(s.norths, v.norths):
            return False
    if observed.dora[:len(followed.dora)] != followed.dora:
        return False
    extra = Counter(followed.centre) - Counter(observed.centre)
    return not extra or (state.phase == "claim_window" and state.last_tile is not None
                         and list(extra.elements()) == [state.last_tile.code])


def _shows_target(state: PlayState, followed: TableView, observed: TableView, game: GameContext) -> bool:
    """The state shows what the target shows. A hand that is over matches once its hands are laid down as
    the target shows them; the winning tile may have left its place (a lone ron winner took it)."""
    over = state.over
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        rows_ok = s.discards == v.discards or (over and s.discards[:-1] == v.discards)
        melds_ok = shows_melds(s.melds, v.melds) or (over and len(s.melds) == len(v.melds) and all(
            shows_meld(a, b) or shows_meld(a.base, b) for a, b in zip(s.melds, v.melds, strict=True)))
        if not (rows_ok and melds_ok and (sorted_codes(s.bonus), s.norths) == (sorted_codes(v.bonus), v.norths)):
            return False
        if not game.centre and s.sideways != v.sideways and not over:
            return False
        if i == game.camera:
            if not shows_hand(s, v) and not over:
                return False
        elif v.state == "faces" and s.state != "faces":
            return False
    extra = Counter(followed.centre) - Counter(observed.centre)
    return followed.dora == observed.dora and (followed.centre == observed.centre or (
        over and sum(extra.values()) == 1 and Counter(observed.centre) - Counter(followed.centre) == Counter()))


def _changes_left(followed: TableView, observed: TableView) -> int:
    """How many tiles and hands differ between ``followed`` and ``observed`` (bounds how deep the search goes)."""
    n = len(observed.dora) - len(followed.dora) + abs(len(observed.centre) - len(followed.centre))
    for s, v in zip(followed.seats, observed.seats, strict=True):
        n += abs(len(v.discards) - len(s.discards)) + len(v.melds) - len(s.melds) + len(v.bonus) - len(s.bonus)
        n += len(v.norths) - len(s.norths) + sum(a != b for a, b in zip(s.melds, v.melds, strict=False))
        n += v.state == "faces" and s.state != "faces"
    return n


def _drawn_last(path, observed: TableView, game: GameContext) -> int:
    """0 when the camera player's latest draw in ``path`` is the tile seen apart at the right end of its
    hand (or it drew nothing), else 1: which of two draws came last when both arrive together."""
    drawn = [e.tile.code for events, _ in path for e in events
             if isinstance(e, (Draw, ReplacementDraw)) and e.seat == game.camera]
    return 0 if not drawn or drawn[-1] == observed.seats[game.camera].right else 1


def _taken_last(path, observed: TableView, game: GameContext) -> int:
    """0 when a lone ron winner's taken discard is the tile seen apart at the right end of its hand, else 1:
    which tile was thrown when the discard and the win arrive together."""
    events = [e for step, _ in path for e in step]
    if not events or not isinstance(events[-1], Ron) or len(events[-1].seats) != 1:
        return 0
    thrown = [e.tile.code for e in events if isinstance(e, Discard)]
    return 0 if not thrown or thrown[-1] == observed.seats[events[-1].seats[0]].right else 1


#: tie-breaks between equally short explanations, in order (then the order moves were tried)
PREFERENCES: tuple[Callable, ...] = (_drawn_last, _taken_last)


def _candidates(state: PlayState, view: TableView, observed: TableView, game: GameContext):
    """The candidate event sequences of every move of :data:`.moves.MOVES` from ``state``, in that order."""
    for move in MOVES:
        yield from move(state, view, observed, game)


def explain(start: PlayState, observed: TableView, game: GameContext, max_nodes: int = 3000
            ) -> list[tuple[tuple[Event, ...], tuple[PlayState, ...]]] | None:
    """The shortest sequence of moves the engine accepts from ``start`` to a state that shows ``observed``
    (breadth first, moves tried in :data:`MOVES` order, ties broken by :data:`PREFERENCES`): [(events, the state
    after each)], [] when nothing changed, None when nothing explains it. ``max_nodes`` bounds the states
    judged; the frame's budget (``game.budget``) bounds them too, and they are drawn from it."""
    max_nodes = game.budget.take(max_nodes)
    start_view = engine_view(start, game)
    if _shows_target(start, start_view, observed, game):
        return []
    depth = 4 + 3 * _changes_left(start_view, observed)
    queue: deque = deque([(start, start_view, ())])
    seen = {start}
    found: list = []
    judged = 0
    while queue and judged < max_nodes:
        state, view, path = queue.popleft()
        if len(path) >= depth or state.over or (found and len(path) >= len(found[0])):
            continue
        for events in _candidates(state, view, observed, game):
            if judged >= max_nodes:
                break
            judged += 1
            states = play_events(state, events)
            if states is None:
                continue
            reached = states[-1]
            step = path + ((events, states),)
            reached_view = engine_view(reached, game)
            if _shows_target(reached, reached_view, observed, game):
                found.append(step)      # every shortest explanation, even of the same table
            elif reached not in seen and _can_still_reach(reached, reached_view, observed, game):
                seen.add(reached)
                queue.append((reached, reached_view, step))
    game.budget.spend(judged)
    if not found:
        return None
    return list(min(found, key=lambda p: tuple(pref(p, observed, game) for pref in PREFERENCES)))
