"""How a hand ends on the table: hidden hands laid face up, or the open tile taken by a lone winner.

:func:`hand_endings` is the move (:data:`.moves.MOVES`) that proposes the end the table shows: the reveals
(winners first) and a ``Tsumo``, a ``Ron`` or an ``ExhaustiveDraw``, each of :data:`ENDINGS` tried in order.
The shapes are judged here only as far as the proposal needs (:func:`is_winning_shape`); the engine judges
the win.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from assistant.play import (
    Event,
    ExhaustiveDraw,
    PlayState,
    Reveal,
    Ron,
    Tsumo,
)
from assistant.tiles import Tile

from .tile_codes import hand_text, sorted_codes, without
from .views import GameContext, TableView, newly_face_up


def is_winning_shape(hand: Sequence[str], melds: Sequence[Any], variant) -> bool:
    """The concealed tiles ``hand`` with the engine's ``melds`` form a winning hand (shape only: yaku and
    minimums are the scorer's, which judges the win)."""
    from assistant.analysis import is_complete
    from assistant.hand import Hand

    try:
        return is_complete(Hand(tuple(Tile.from_code(c) for c in hand), tuple(melds)), variant)
    except (ValueError, StopIteration):
        return False


def _robbed(state: PlayState, followed: TableView, observed: TableView) -> bool:
    """The turn seat's added kong lost its added tile (the open tile): a robbing winner took it."""
    if state.phase != "kong_window" or state.declaration != "added_kong" or state.last_tile is None:
        return False
    return any(have.added == state.last_tile.code and want == have.base
               for have, want in zip(followed.seats[state.turn].melds, observed.seats[state.turn].melds, strict=False))


def _open_tile_taken(state: PlayState, followed: TableView, observed: TableView, game: GameContext) -> bool:
    """The open tile left its place without a meld (the discard its row or Hong Kong's pool, an added tile
    its kong): a lone ron winner took it."""
    if state.phase == "kong_window":
        return _robbed(state, followed, observed)
    if state.phase != "claim_window" or state.last_tile is None:
        return False
    if game.centre:
        return list((Counter(followed.centre) - Counter(observed.centre)).elements()) == [state.last_tile.code]
    row = followed.seats[state.turn].discards
    return bool(row) and observed.seats[state.turn].discards == row[:-1]


def melds_of(state: PlayState, seat: int) -> tuple:
    """The engine's melds of ``seat``."""
    return state.seats[seat].hand.melds


def _tsumo_end(state, followed, observed, game, shown):
    """The seat holding 14 tiles shows a winning hand (or the camera player, whose hand is always seen, wins
    and the others show theirs: three-kaki)."""
    if state.phase != "own_turn" or \
            any(game.stage(observed, s) != ("discarding" if s == state.turn else "waiting") for s in shown):
        return None
    turn = state.turn
    if turn in shown and is_winning_shape(observed.seats[turn].hand, melds_of(state, turn), game.variant):
        return [turn], Tsumo(turn)
    if turn == game.camera and shown \
            and is_winning_shape(followed.seats[turn].hand, melds_of(state, turn), game.variant):
        return [], Tsumo(turn)
    return None


def _ron_taken_end(state, followed, observed, game, shown):
    """A lone winner took the open discard into its hand (14 tiles shown: 13 + the tile)."""
    if not _open_tile_taken(state, followed, observed, game):
        return None
    last, cam = state.last_tile.code, game.camera
    mine = followed.seats[cam].hand
    if observed.seats[cam].hand == sorted_codes(mine + (last,)) \
            and is_winning_shape(mine + (last,), melds_of(state, cam), game.variant):
        return ([], Ron((cam,))) if all(game.stage(observed, s) == "waiting" for s in shown) else None
    winners = [s for s in shown if game.stage(observed, s) == "discarding" and last in observed.seats[s].hand
               and is_winning_shape(observed.seats[s].hand, melds_of(state, s), game.variant)]
    if len(winners) != 1 or any(game.stage(observed, s) != "waiting" for s in shown if s not in winners):
        return None
    return winners, Ron((winners[0],))


def _ron_left_end(state, followed, observed, game, shown):
    """Several winners on one discard (it stays where it lies), or robbing a kong, kita or flower."""
    if state.phase not in ("claim_window", "kong_window") or state.last_tile is None \
            or any(game.stage(observed, s) != "waiting" for s in shown):
        return None
    last = state.last_tile.code
    winners = sorted((s for s in shown if s != state.turn
                      and is_winning_shape(observed.seats[s].hand + (last,), melds_of(state, s), game.variant)),
                     key=lambda s: game.back(s, state.turn))
    if len(winners) >= (1 if state.phase == "kong_window" else 2):
        return winners, Ron(tuple(winners))
    return None


def _draw_end(state, followed, observed, game, shown):
    """No win: the ready hands are shown at an exhaustive draw (the camera player's counted when ready)."""
    if state.phase not in ("claim_window", "turn_start") or not shown \
            or any(game.stage(observed, s) != "waiting" for s in shown):
        return None
    ready = (game.camera,) if is_ready(state, game.camera) else ()
    return [], ExhaustiveDraw(tuple(shown) + ready)


def is_ready(state: PlayState, seat: int) -> bool:
    """The seat's hand is ready (tenpai) as the engine judges it."""
    from assistant.play import is_tenpai

    try:
        return is_tenpai(state, seat)
    except ValueError:
        return False


#: how a hand can end on the table, tried in order
ENDINGS = (_tsumo_end, _ron_taken_end, _ron_left_end, _draw_end)


def hand_endings(state, followed, observed, game):
    """The hand is over: hidden hands laid face up (:data:`ENDINGS`), or the camera player took the open
    discard into its hand. Reveals: winners first, then the other hands in seat order."""
    shown = newly_face_up(followed, observed, game)
    if not shown and not _open_tile_taken(state, followed, observed, game):
        return
    for end in ENDINGS:
        found = end(state, followed, observed, game, shown)
        if found is None:
            continue
        winners, event = found
        events: list[Event] = []
        for s in winners + [s for s in shown if s not in winners]:
            hand = observed.seats[s].hand
            if isinstance(event, Ron) and game.stage(observed, s) == "discarding":
                hand = without(hand, [state.last_tile.code]) or ()   # the ron tile it took is not a concealed tile
            drawn = observed.seats[s].right if isinstance(event, Tsumo) and s == state.turn else None
            events.append(Reveal(s, hand_text(hand), drawn))
        yield tuple(events) + (event,)
