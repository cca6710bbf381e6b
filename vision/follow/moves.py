"""Candidate moves: one function per kind of move (:data:`MOVES`) proposes the events that the difference
between what the followed state shows the camera (``followed``) and the new observation (``observed``)
suggests.

Each move only proposes: a draw of the tile the camera player's hand gained, a discard of a tile newly in a
row, a call of the sideways tile of a new meld, a kong, a kita, a Fei sunk or swapped, a kan dora indicator,
the end of the hand (:mod:`.endings`). The engine judges every proposal (:func:`.search.play_events`), and the
search (:func:`.search.explain`) puts the accepted ones in turn order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from assistant.play import (
    AddedKong,
    BonusTile,
    Chow,
    ClosedKong,
    Discard,
    Draw,
    Event,
    Kita,
    NewDora,
    OpenKong,
    PlayState,
    Pong,
    ReplacementDraw,
    SinkFei,
    SwapFei,
)
from assistant.tiles import Tile, sort_key

from .endings import hand_endings
from .tile_codes import is_bonus, plain_code, sorted_codes, without
from .views import (
    GameContext,
    ReadMeld,
    TableView,
    as_claimed,
    fei_swapped,
    newly_aside,
    newly_face_up,
    shows_meld,
)

#: what a move proposes: candidate events, each a short sequence
Proposals = Iterator[tuple[Event, ...]]
#: a kind of move: the candidate events it proposes from a state (and what it shows) towards a target; the
#: engine judges each (:func:`.search.play_events`)
Move = Callable[[PlayState, TableView, TableView, GameContext], Proposals]


def _next_new_meld(followed: TableView, observed: TableView, seat: int) -> ReadMeld | None:
    have, want = followed.seats[seat].melds, observed.seats[seat].shown
    return want[len(have)] if len(want) > len(have) else None


def _camera_needs(followed: TableView, observed: TableView, game: GameContext) -> list[str]:
    """Tiles the camera player may have drawn: what its hand gained, what it throws or shows later."""
    s, v = followed.seats[game.camera], observed.seats[game.camera]
    need = set((Counter(v.hand) - Counter(s.hand)).elements())
    need.update(v.discards[len(s.discards):] if v.discards[:len(s.discards)] == s.discards else ())
    need.update((Counter(observed.centre) - Counter(followed.centre)).elements())
    for w, have in zip(observed.seats, followed.seats, strict=True):
        for m in w.shown[len(have.melds):]:
            need.update(m.tiles)
        for m, h in zip(w.shown, have.melds, strict=False):
            if not shows_meld(h, m.key):
                need.update(m.tiles + ((m.added,) if m.added else ()))
    need.update(v.norths[len(s.norths):])
    need.update(c for c in newly_aside(s.bonus, v.bonus) if c == "jk")
    return [c for c in sorted_codes(need - {"bk"}) if not is_bonus(c)]


def _owed(state: PlayState) -> bool:
    return state.owed is not None and state.phase in ("turn_start", "kong_window")


def _drawer(state: PlayState, game: GameContext) -> int | None:
    """Who takes the next tile from the wall: the turn seat at its turn start, the next seat after a discard."""
    if state.phase == "turn_start" and state.owed is None:
        return state.turn
    if state.phase == "claim_window":
        return game.next(state.turn)
    return None


def _draws(state, followed, observed, game):
    seat = _drawer(state, game)
    if seat is not None:
        for code in (_camera_needs(followed, observed, game) if seat == game.camera else ["bk"]):
            yield (Draw(seat, code),)


def _replacements(state, followed, observed, game):
    if _owed(state):
        for code in (_camera_needs(followed, observed, game) if state.turn == game.camera else ["bk"]):
            yield (ReplacementDraw(state.turn, code),)


def _bonus_draws(state, followed, observed, game):
    seat = state.turn if _owed(state) else _drawer(state, game)
    if seat is None:
        return
    new = newly_aside(followed.seats[seat].bonus, observed.seats[seat].bonus)
    if new and is_bonus(new[0]):
        yield (BonusTile(seat, new[0]),)


def _discard_candidates(followed: TableView, observed: TableView, game: GameContext, seat: int) -> list[str]:
    """The tiles ``seat`` may have discarded: new in its row (or Hong Kong's pool), claimed by a new meld, taken
    by a ron winner or, for another seat, the tile the camera player's hand gained; the camera player's own
    discards come out of its hand."""
    s, v = followed.seats[seat], observed.seats[seat]
    out: set[str] = set()
    if game.centre:
        out.update((Counter(observed.centre) - Counter(followed.centre)).elements())
    elif len(v.discards) > len(s.discards) and v.discards[:len(s.discards)] == s.discards:
        out.add(v.discards[len(s.discards)])
    for other in range(game.players):         # a discard claimed before the camera saw it
        m = _next_new_meld(followed, observed, other) if other != seat else None
        if m is not None and not m.concealed and m.sideways is not None and m.source == game.back(other, seat):
            out.add(m.tiles[m.sideways])
    for other in newly_face_up(followed, observed, game):   # ... or taken by a ron winner
        if other != seat and game.stage(observed, other) == "discarding":
            out.update(observed.seats[other].hand)
    if seat != game.camera:
        out.update((Counter(observed.seats[game.camera].hand) - Counter(followed.seats[game.camera].hand)).elements())
    if seat == game.camera:
        out &= set(s.hand)
    return [c for c in sorted_codes(out) if c not in ("jk", "bk") and not is_bonus(c)]


def _discards(state, followed, observed, game):
    if state.phase != "own_turn":
        return
    seat = state.turn
    s, v = followed.seats[seat], observed.seats[seat]
    declared = state.seats[seat].in_riichi
    for code in _discard_candidates(followed, observed, game, seat):
        idx = len(s.discards)
        # a new sideways tile at the row's end, not owed by a called riichi tile, declares riichi
        riichi = not game.centre and not declared and s.sideways is None and v.sideways == idx \
            and v.discards[idx:idx + 1] == (code,)
        yield (Discard(seat, code, riichi=riichi),)


def _meld_notation(meld: ReadMeld) -> str:
    from assistant.hand import make_meld

    tiles = [Tile.from_code(c) for c in meld.tiles]
    stands = [Tile.from_code(c) for c in meld.stands] if len(meld.stands) == len(meld.tiles) else None
    return make_meld(tiles, stands, source=meld.source).format()


_CLAIMS = {"chow": Chow, "pong": Pong, "kong": OpenKong}


def _claims(state, followed, observed, game):
    if state.phase != "claim_window" or state.last_tile is None:
        return
    discarder, last = state.turn, state.last_tile.code
    for k in range(1, game.players):
        seat = (discarder + k) % game.players
        m = _next_new_meld(followed, observed, seat)
        if m is not None:
            m = as_claimed(m, last, game.back(seat, discarder))
        if m is None or m.concealed or m.sideways is None or m.source != game.back(seat, discarder):
            continue
        if m.tiles[m.sideways] != last:
            continue
        shown = m.base
        used = [c for i, c in enumerate(shown.tiles) if i != shown.sideways]
        if seat == game.camera and without(followed.seats[seat].hand, used) is None:
            continue
        cls = _CLAIMS[shown.type]
        yield (cls(seat, tuple(sorted((Tile.from_code(c) for c in used), key=sort_key)), _meld_notation(shown)),)


def _closed_kongs(state, followed, observed, game):
    if state.phase != "own_turn":
        return
    seat = state.turn
    m = _next_new_meld(followed, observed, seat)
    if m is None or not m.concealed:
        return
    face = m.key.codes[0]
    if face == "bk":
        return
    used: tuple[Tile, ...] = ()
    if seat == game.camera:
        codes = [c for c in followed.seats[seat].hand if plain_code(c) == face]
        if len(codes) != 4:
            return
        used = tuple(sorted((Tile.from_code(c) for c in codes), key=sort_key))
    yield (ClosedKong(seat, face, used),)


def _added_kongs(state, followed, observed, game):
    if state.phase != "own_turn":
        return
    seat = state.turn
    for have, want in zip(followed.seats[seat].melds, observed.seats[seat].melds, strict=False):
        if have.added is None and want.added is not None and want.base == have:
            yield (AddedKong(seat, want.added),)


def _kitas(state, followed, observed, game):
    seat = state.turn
    if state.phase == "own_turn" and game.kita and len(observed.seats[seat].norths) > len(followed.seats[seat].norths):
        yield (Kita(seat),)


def _sink_feis(state, followed, observed, game):
    if state.phase != "own_turn" or not game.jokers:
        return
    new = newly_aside(followed.seats[state.turn].bonus, observed.seats[state.turn].bonus)
    if new and new[0] == "jk":
        yield (SinkFei(state.turn),)


def _swap_feis(state, followed, observed, game):
    if state.phase != "own_turn" or not game.jokers:
        return
    seat = state.turn
    owners = range(game.players) if game.variant.options.get("swap_from_others", False) else (seat,)
    for owner in owners:
        for i, (have, want) in enumerate(zip(followed.seats[owner].melds, observed.seats[owner].melds, strict=False)):
            if fei_swapped(have, want):
                code = next(iter((Counter(want.codes) - Counter(have.codes)).elements()))
                yield (SwapFei(seat, code, owner, i),)


def _new_dora(state, followed, observed, game):
    """A kan dora indicator (the engine judges whether a kong turned one)."""
    n = len(followed.dora)
    if game.dora and len(observed.dora) > n and observed.dora[:n] == followed.dora:
        yield (NewDora(observed.dora[n]),)


#: every kind of move, in the order ties between equally short explanations are broken
MOVES: tuple[Move, ...] = (_new_dora, _claims, hand_endings, _bonus_draws, _draws, _replacements, _closed_kongs,
                           _added_kongs, _kitas, _sink_feis, _swap_feis, _discards)
