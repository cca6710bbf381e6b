"""Other readings of a frame: when the engine cannot explain a frame, what the game says a tile must have been.

:func:`alternative_targets` takes one newly seen tile as one of its classifier's top-3 alternatives;
:func:`call_targets` takes a new meld that reads as no meld (or is read among the tiles set aside) for the call
the vanished discard allows. Each is a target (:class:`~.views.TableView`) for the search; the engine judges
which reading the game allows, and the inferrer records the one taken (:attr:`.inferrer.EventInferrer.readings`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from assistant.play import PlayState
from assistant.tiles import Tile, kind_code

from ..observation import TableObservation
from .checks import misplaced_meld_tiles
from .tile_codes import is_bonus, plain_code, sorted_codes
from .views import GameContext, ReadMeld, TableView

#: the least probability of a classifier's alternative reading that the follower tries
ALTERNATIVE_FLOOR = 0.05
#: alternative readings tried for one frame at most (likeliest first)
ALTERNATIVES_TRIED = 8
#: an alternative at least a third as likely as the reading (log ratio below this) is tried before the camera
#: player's hand is re-read (a doubtful discard of a tile read surely while it was in the hand), a less likely
#: one after
ALTERNATIVE_CLOSE = math.log(3.0)


def alternative_targets(obs: TableObservation, followed: TableView, observed: TableView, game: GameContext
                        ) -> list[tuple[float, TableView, tuple[int, str, str, str]]]:
    """The target with one newly seen tile (a new discard, a tile new in the camera player's hand, a new dora
    indicator or centre discard) read as one of its classifier's top-3 alternatives (probability at least
    :data:`ALTERNATIVE_FLOOR`, a kind the rule system has): [(how much less likely: log ratio, target, (seat,
    part, read, now))], likeliest first. The engine then judges which reading the game allows (a discard
    comes out of the known hand, copies left in the set ...)."""
    from ..reconstruct import in_set

    out = []
    for a in obs.assignments:
        top, code, part, pos = a.get("top3") or [], str(a.get("code")), str(a.get("part")), a.get("position")
        if not top or part not in ("discard", "hand", "dora", "centre"):
            continue
        i = game.order.index(pos) if pos in game.order else None
        read_p = next((q for c, q in top if c == code), a.get("confidence", 1.0))
        for alt, q in top:
            if alt == code or q < ALTERNATIVE_FLOOR or alt in ("bk", "none") or not in_set(alt, game.variant) \
                    or is_bonus(alt):
                continue
            new = _with_tile_read_as(followed, observed, game, part, i, a.get("at"), code, alt)
            if new is not None:
                cost = math.log(max(read_p, 1e-6) / max(q, 1e-6))
                out.append((cost, new, (-1 if i is None else i, part, code, alt)))
    out.sort(key=lambda o: o[0])
    return out[:ALTERNATIVES_TRIED]


def _with_tile_read_as(followed: TableView, observed: TableView, game: GameContext, part: str, seat: int | None,
                       at: Any, code: str, alt: str) -> TableView | None:
    """``observed`` with the newly seen ``code`` in ``part`` (of ``seat``, at place ``at`` where the part has places)
    read as ``alt``, or None when the tile is not new there."""
    if part == "discard" and seat is not None:
        return _with_discard_read_as(followed, observed, seat, at, code, alt)
    if part == "hand" and seat == game.camera:
        return _with_hand_tile_read_as(followed, observed, seat, code, alt)
    if part == "dora":
        if isinstance(at, int) and len(followed.dora) <= at < len(observed.dora) and observed.dora[at] == code:
            return replace(observed, dora=observed.dora[:at] + (alt,) + observed.dora[at + 1:])
        return None
    if part == "centre" and (Counter(observed.centre) - Counter(followed.centre))[code]:
        centre = list(observed.centre)
        centre.remove(code)
        return replace(observed, centre=sorted_codes(centre + [alt]))
    return None


def _with_discard_read_as(followed: TableView, observed: TableView, seat: int, at: Any, code: str,
                          alt: str) -> TableView | None:
    s, v = followed.seats[seat], observed.seats[seat]
    if not (isinstance(at, int) and len(s.discards) <= at < len(v.discards) and v.discards[at] == code):
        return None
    seats = list(observed.seats)
    seats[seat] = replace(v, discards=v.discards[:at] + (alt,) + v.discards[at + 1:])
    return replace(observed, seats=tuple(seats))


def sure_hand_targets(obs: TableObservation, followed: TableView, observed: TableView, game: GameContext,
                      sure: Collection[str]) -> list[tuple[float, TableView, tuple[int, str, str, str]]]:
    """Where a tile of the followed camera hand that earlier frames read surely (``sure``) is missing and
    another code is new in the hand: the target with one new tile read as the sure one, whatever its top 3
    (one frame misreading a tile is likelier than every frame before misreading it). [(the new tile's
    reading's log probability, negated: least sure first), target, (seat, "hand", read, now)]."""
    cam = game.camera
    old, new = Counter(followed.seats[cam].hand), Counter(observed.seats[cam].hand)
    gone = sorted(c for c in (old - new) if c in sure)
    if not gone:
        return []
    position = game.order[cam]
    confidence: dict[str, float] = {}
    for a in obs.assignments:
        if a.get("part") == "hand" and a.get("position") == position:
            code = str(a.get("code"))
            confidence[code] = min(confidence.get(code, 1.0), float(a.get("confidence", 1.0)))
    out = []
    for code in sorted(new - old):
        for was in gone:
            target = _with_hand_tile_read_as(followed, observed, cam, code, was)
            if target is not None:
                out.append((-math.log(max(confidence.get(code, 1.0), 1e-6)), target, (cam, "hand", code, was)))
    out.sort(key=lambda o: -o[0])
    return out[:ALTERNATIVES_TRIED]


def _with_hand_tile_read_as(followed: TableView, observed: TableView, seat: int, code: str,
                            alt: str) -> TableView | None:
    s, v = followed.seats[seat], observed.seats[seat]
    if not (Counter(v.hand) - Counter(s.hand))[code]:
        return None
    hand = list(v.hand)
    hand.remove(code)
    seats = list(observed.seats)
    seats[seat] = replace(v, hand=sorted_codes(hand + [alt]), right=alt if v.right == code else v.right)
    return replace(observed, seats=tuple(seats))


#: how much less likely than its reading (log ratio) a tile newly set aside is taken to be the rule system's
#: only kind that lies there (sanma's North) when its top 3 do not hold that kind: after any top-3 reading
SOLE_ASIDE_COST = math.log(20.0)
#: ... and only when it is read less surely than this (a sure reading there is a tile laid near the area set
#: aside: a discard on its way to the row, a meld)
SOLE_ASIDE_SURE = 0.75


def sets_aside(code: str, game: GameContext) -> bool:
    """Whether ``code`` lies in an area set aside on this game's table: a bonus tile, a sunk Fei where the set
    has jokers, a North where the rules have kita."""
    return is_bonus(code) or (code == "jk" and game.jokers) or (code == "4z" and game.kita)


def aside_targets(obs: TableObservation, followed: TableView, observed: TableView, game: GameContext
                  ) -> list[tuple[float, TableView, tuple[int, str, str, str]]]:
    """A seat's area set aside newly shows one tile, read as a kind that never lies there (a far North set
    aside read 1s, a flower read 7p): the target with that tile read as one of its top-3 readings that does lie
    there (probability at least :data:`ALTERNATIVE_FLOOR`, a kind of the set), or, read less surely than
    :data:`SOLE_ASIDE_SURE`, as the rule system's only kind that does (:func:`~vision.reconstruct.sole_aside`:
    sanma's North, at :data:`SOLE_ASIDE_COST`).
    [(how much less likely: log ratio, target, (seat, "aside", read, now))], likeliest first. The engine then
    judges whether the seat could set that tile aside now (its turn, copies left in the set ...)."""
    from ..reconstruct import in_set, sole_aside

    sole = sole_aside(game.variant)
    out = []
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        have, shows = Counter(s.bonus + s.norths), Counter(v.bonus + v.norths)
        new = list((shows - have).elements())
        if have - shows or len(new) != 1 or sets_aside(new[0], game) or new[0] not in v.bonus:
            continue
        code = new[0]
        read = next((a for a in obs.assignments if a.get("part") in ("bonus", "north")
                     and a.get("position") == game.order[i] and str(a.get("code")) == code), {})
        top = [(str(c), float(q)) for c, q in read.get("top3") or []]
        read_p = next((q for c, q in top if c == code), float(read.get("confidence", 1.0)))
        alts = [(math.log(max(read_p, 1e-6) / max(q, 1e-6)), c) for c, q in top
                if c != code and q >= ALTERNATIVE_FLOOR and sets_aside(c, game) and in_set(c, game.variant)]
        if sole is not None and all(c != sole for _, c in alts) and read_p < SOLE_ASIDE_SURE:
            alts.append((max([SOLE_ASIDE_COST] + [cost for cost, _ in alts]), sole))
        for cost, alt in alts:
            out.append((cost, _with_aside_read_as(observed, i, code, alt, game), (i, "aside", code, alt)))
    out.sort(key=lambda o: o[0])
    return out[:ALTERNATIVES_TRIED]


def _with_aside_read_as(observed: TableView, seat: int, code: str, alt: str, game: GameContext) -> TableView:
    """``observed`` with the tile ``code`` of the seat's area set aside read as ``alt`` (in its place among the
    bonus tiles; a North among the Norths set aside)."""
    v = observed.seats[seat]
    bonus, norths = list(v.bonus), list(v.norths)
    at = bonus.index(code)      # (Norths set aside are read 4z: a misread tile is among the bonus tiles)
    kita = alt == "4z" and game.kita
    bonus[at:at + 1] = [] if kita else [alt]
    norths += [alt] if kita else []
    seats = list(observed.seats)
    seats[seat] = replace(v, bonus=tuple(bonus), norths=tuple(norths))
    return replace(observed, seats=tuple(seats))


#: a seat's meld area must show at least this many tiles more than its followed melds for a call to be taken
#: from the discard it took when the new meld itself cannot be read (a far tile is often missed too)
CALL_TILES_SEEN = 2
#: the least top-3 probability of a kind a new meld's tiles read for it to be tried as the tile a call took
#: when that discard was never seen
MELD_CALL_FLOOR = 0.02


def call_targets(obs: TableObservation, state: PlayState, followed: TableView, observed: TableView, game: GameContext
                 ) -> list[tuple[TableView, tuple[int, str, str, str]]]:
    """When the discard just followed vanished (from its row, or the centre pool) and no readable meld shows
    it, but a seat's meld area shows new tiles that make no meld (a far pong misread, one of its tiles
    missed): the melds that call could have made of that discard (pong, chow where the rules have it, an open
    kong when four tiles show), best fitting the new tiles' top-3 readings first, as targets: [(target, (seat,
    "call", the tiles as read, the meld))]. The engine judges which call is legal."""
    found = _called_discard(state, followed, observed, game)
    if found is None:
        return []
    d, gone = found
    out = []
    for j in range(game.players):
        melds = len(followed.seats[j].melds)
        if j == d or len(observed.seats[j].shown) > melds or len(observed.seats[j].melds) > melds:
            continue   # a meld read there: the checks and the moves judge it
        out += _seat_call_targets(obs, followed, observed, game, j, d, gone)
    return out


def _called_discard(state: PlayState, followed: TableView, observed: TableView,
                    game: GameContext) -> tuple[int, str | None] | None:
    """(the seat whose discard a call may have taken, that discard: None where it was never seen) when the
    table reads so, else None."""
    d = state.turn
    gone: str | None = None
    same_pool = Counter(observed.centre) == Counter(followed.centre)
    unmoved = observed.seats[d].discards == followed.seats[d].discards and (not game.centre or same_pool)
    if state.phase == "claim_window" and state.last_tile is not None and unmoved:
        d = game.next(d)     # nobody took the discard: the next seat drew and threw a tile called at once
        if observed.seats[d].discards != followed.seats[d].discards:
            return None
    elif state.phase == "claim_window" and state.last_tile is not None:
        gone = state.last_tile.code
        if game.centre:
            if Counter(followed.centre) - Counter(observed.centre) != Counter([gone]):
                return None
        elif observed.seats[d].discards != followed.seats[d].discards[:-1]:
            return None
    elif state.phase in ("turn_start", "own_turn"):
        # the seat to move discarded unseen and the tile was called at once: which tile, the new meld's
        # readings say (pongs and kongs of them; the moves add the draw and the discard)
        if observed.seats[d].discards != followed.seats[d].discards or (game.centre and not same_pool):
            return None
    else:
        return None
    return d, gone


def _seat_call_targets(obs: TableObservation, followed: TableView, observed: TableView, game: GameContext, caller: int,
                       discarder: int, gone: str | None) -> list[tuple[TableView, tuple[int, str, str, str]]]:
    """The targets of :func:`call_targets` where seat ``caller`` called the discard of seat ``discarder``
    (``gone``: the discard, None where it was never seen)."""
    raw = _meld_tiles_read(obs, game.order[caller], game)
    fresh = len(raw) - sum(len(k.codes) for k in followed.seats[caller].melds)
    alike = gone is not None and all(plain_code(str(a.get("code"))) == plain_code(gone) for a in raw[-fresh:])
    if fresh < CALL_TILES_SEEN and not (fresh >= 1 and alike):
        return []
    # the tiles of the melds not yet followed (all of them where the groups are cut otherwise)
    raw = [a for a in raw if a.get("part") == "bonus" or (isinstance(a.get("at"), (list, tuple)) and a["at"]
                                                          and a["at"][0] >= len(followed.seats[caller].melds))] or raw
    probs = [{str(c): float(q) for c, q in (a.get("top3") or [[a.get("code"), 1.0]])} for a in raw]
    taken = _favoured_kinds(probs, game) if gone is None else [gone]
    shapes = _call_shapes(taken, gone, fresh, caller, discarder, game)
    read = " ".join(str(a.get("code")) for a in raw)

    def fit(codes: tuple[str, ...]) -> float:
        return sum(max(p.get(c, 0.0) for c in set(codes)) for p in probs)

    out = []
    for kind, codes in sorted(shapes, key=lambda x: -fit(x[1])):
        meld = ReadMeld(kind, codes, 0, game.back(caller, discarder), None, False, codes)
        seats = list(observed.seats)
        seats[caller] = replace(observed.seats[caller], melds=followed.seats[caller].melds + (meld.key,),
                                shown=observed.seats[caller].shown + (meld,))
        out.append((replace(observed, seats=tuple(seats)), (caller, "call", read, " ".join(sorted_codes(codes)))))
    return out


def _meld_tiles_read(obs: TableObservation, position: int, game: GameContext) -> list[dict]:
    """The assignments of the tiles read in the seat's melds, then those read in its area set aside that no
    bonus area takes (a meld laid there: :func:`.checks.misplaced_meld_tiles`)."""
    melds = [a for a in obs.assignments if a.get("part") == "meld" and a.get("position") == position]
    aside = [a for a in obs.assignments if a.get("part") == "bonus" and a.get("position") == position]
    return melds + [a for a in aside if misplaced_meld_tiles([str(a.get("code"))], game)]


def _favoured_kinds(probs: list[dict[str, float]], game: GameContext) -> list[str]:
    """The (at most three) kinds the new meld tiles' readings favour, where the discard called was never seen."""
    from ..reconstruct import in_set

    seen: Counter[str] = Counter()
    for p in probs:
        seen.update({c: q for c, q in p.items() if q >= MELD_CALL_FLOOR and c not in ("bk", "none", "jk")
                     and not is_bonus(c) and in_set(c, game.variant)})
    return [c for c, _ in seen.most_common(3)]


def _call_shapes(taken: list[str], gone: str | None, fresh: int, caller: int, discarder: int,
                 game: GameContext) -> list[tuple[str, tuple[str, ...]]]:
    """(kind, the claimed tile first) of the melds seat ``caller`` may have made of ``taken``: pongs, a chow
    from the left where the rules have them, kongs where ``fresh`` (the new tiles seen) is four or more."""
    shapes: list[tuple[str, tuple[str, ...]]] = [("pong", (c,) * 3) for c in taken]
    if gone is not None and game.variant.can_chow and caller == game.next(discarder):
        shapes += [("chow", (gone, kind_code(a), kind_code(b)))
                   for a, b in game.variant.chow_shapes(Tile.from_code(gone).kind)]
    if fresh >= 4:
        shapes += [("kong", (c,) * 4) for c in taken]
    return shapes
