"""Repairs: one bad tile does not stop the hand.

Before a frame is explained, its target is mended: a reading the followed state already accepted (a discard,
which one lies sideways, a meld, a tile set aside, a dora indicator) keeps its followed reading when the new
frame reads it otherwise, a followed discard the detector missed keeps its place
(:func:`with_followed_readings`), and an observation problem confined to a part of a seat leaves that part as
the followed state shows it while the rest of the frame is followed (:func:`with_problem_parts_pending`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .checks import taken_from_pool
from .tile_codes import plain_code, sorted_codes
from .views import GameContext, SeatView, TableView, meld_grows, still_aside


def _missed_at(have: Sequence[str], want: Sequence[str]) -> int | None:
    """The place of the one followed discard that row ``want`` lacks, the rest in order (new discards may
    follow): a tile the detector missed (white dragons on pale cloth above all); None when the row does not
    read so. Not the latest followed discard: that one may have been called."""
    n = len(have)
    if n < 2 or len(want) < n - 1 or list(want[:n]) == list(have) or list(want[:n - 1]) == list(have[:n - 1]):
        return None      # ... or the row reads as the latest discard gone (two alike before it: 9p 9p)
    for i in range(n - 1):
        if list(want[:i]) == list(have[:i]) and list(want[i:n - 1]) == list(have[i + 1:]):
            return i
    return None


def _inserted(seat: SeatView, place: int, code: str) -> SeatView:
    """The view with ``code`` put back into its discard row at ``place`` (the sideways tile's index kept on
    its tile)."""
    side = seat.sideways + 1 if seat.sideways is not None and seat.sideways >= place else seat.sideways
    return replace(seat, discards=seat.discards[:place] + (code,) + seat.discards[place:], sideways=side)


def with_followed_readings(followed: TableView, observed: TableView, game: GameContext,
                           unseen: dict[tuple[int, int], str] | None = None) -> TableView:
    """The target with readings the followed state already accepted kept: a discard (and which one lies
    sideways), a meld, a tile set aside or a dora indicator already followed that the new frame reads otherwise
    or misses keeps its followed reading (the camera player's hand is re-read instead:
    :meth:`EventInferrer._reread`).
    ``unseen``: (seat, place in its row) -> the discard followed there though never seen."""
    seats = [_seat_with_followed_readings(i, s, v, game, unseen or {})
             for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True))]
    dora = observed.dora
    n = min(len(followed.dora), len(dora))
    if dora[:n] != followed.dora[:n] or len(dora) < len(followed.dora):   # indicators stay turned over
        dora = followed.dora + dora[len(followed.dora):]
    target = replace(observed, seats=tuple(seats), dora=dora)
    return replace(target, centre=centre_with_followed_readings(followed, target, game))


def centre_with_followed_readings(followed: TableView, observed: TableView, game: GameContext) -> tuple[str, ...]:
    """Hong Kong's centre pool (in no order) with the readings already followed kept: a followed tile the frame
    no longer reads and no new meld or winner took, where the frame reads a new tile of its suit there, is taken
    as re-read as that tile (:func:`_reread_as`: the nearest in number) and keeps its followed reading. It
    runs on every frame; it changes something only where a followed tile is still gone, which is where the
    observation's pool tiles have no places (made by hand): with places, :class:`.pool.PoolPlaces` has already
    read each tile at a followed place as followed and kept the ones the detector missed (generated hong-kong
    hand 2: its 2m discard read 1m when thrown and 2m once the next discards lay around it was "a 1m
    vanished", and the hand stopped there)."""
    if not game.centre:
        return observed.centre
    gone = Counter(followed.centre) - Counter(observed.centre)
    new = Counter(observed.centre) - Counter(followed.centre)
    pool = Counter(observed.centre)
    for tile in sorted_codes(gone.elements()):
        if taken_from_pool(followed, observed, game, tile):
            continue
        reread = _reread_as(tile, new)
        if reread is not None:
            new[reread] -= 1
            pool[reread] -= 1
            pool[tile] += 1
    return observed.centre if pool == Counter(observed.centre) else sorted_codes(pool.elements())


def _reread_as(tile: str, new: Counter) -> str | None:
    """The tile of ``new`` (codes to counts) a followed ``tile`` was likeliest re-read as: of its suit (an honour:
    any honour), nearest in number; None when ``new`` has none of its suit."""
    suit = tile[-1]
    options = [c for c, k in new.items() if k > 0 and c[-1] == suit and c[0].isdigit() and tile[0].isdigit()]
    if not options:
        return None
    return min(options, key=lambda c: (0 if suit == "z" else abs(int(c[0]) - int(tile[0])), c))


def _seat_with_followed_readings(index: int, followed: SeatView, observed: SeatView, game: GameContext,
                                 unseen: dict[tuple[int, int], str]) -> SeatView:
    """Seat ``index`` as ``observed`` with what the ``followed`` seat already accepted kept."""
    for (seat, place), code in sorted(unseen.items()):   # discards followed though never seen
        if seat == index and place < len(followed.discards) and observed.discards[place:place + 1] != (code,) \
                and observed.discards[:place] == followed.discards[:place]:
            observed = _inserted(observed, place, code)
    missed = _missed_at(followed.discards, observed.discards)
    if missed is not None:    # a followed discard missed by the detector (a blank white dragon): kept
        observed = _inserted(observed, missed, followed.discards[missed])
    changes: dict[str, Any] = {}
    n = min(len(followed.discards), len(observed.discards))
    if observed.discards[:n] != followed.discards[:n]:
        changes["discards"] = followed.discards[:n] + observed.discards[n:]
    side = observed.sideways
    if not game.centre and side != followed.sideways and (side is None or side < len(followed.discards)):
        changes["sideways"] = followed.sideways   # which tile of the followed row lies sideways is settled too
    melds = list(observed.melds)
    for j, (a, b) in enumerate(zip(followed.melds, observed.melds, strict=False)):
        if not meld_grows(a, b) and a.type == b.type and len(a.codes) == len(b.codes):
            melds[j] = a
    if melds != list(observed.melds):
        changes["melds"] = tuple(melds)
    for part in ("bonus", "norths"):
        kept = _still_set_aside(getattr(followed, part), getattr(observed, part))
        if kept is not None:
            changes[part] = kept
    return replace(observed, **changes) if changes else observed


def _still_set_aside(have: Sequence[str], want: Sequence[str]) -> tuple[str, ...] | None:
    """Tiles set aside stay there: the followed ones (``have``) with the tiles the frame newly shows set aside
    (``want``; read otherwise: the tiles after as many as were followed; fewer: the frame missed one), or
    None when every followed tile is read so."""
    if still_aside(have, want):
        return None
    if len(want) >= len(have):
        return sorted_codes(have) + tuple(want[len(have):])
    return sorted_codes(have) + tuple((Counter(want) - Counter(have)).elements())


#: observation problems the frame can be followed around: the part of the seat they are in is left as the
#: followed state shows it (pending) while the rest of the frame is followed
_PART_OF = {"bad_discard": "discards", "riichi": "sideways", "norths": "aside", "bad_source": "melds",
            "bad_meld": None, "too_many_copies": None, "not_in_set": None, "too_many_red": None}


def with_problem_parts_pending(followed: TableView, observed: TableView, problems: Sequence,
                               game: GameContext) -> TableView | None:
    """The target with the parts that ``problems`` touch taken from the ``followed`` state's view, so that the
    rest of the frame can be followed (a copy too many is left out where it newly shows outside the camera
    player's hand); None when a problem touches only what cannot be left pending (the camera player's hand,
    no place)."""
    seats = list(observed.seats)
    dora = observed.dora
    for p in problems:
        tiles = set(getattr(p, "tiles", []) or [])
        if p.kind not in _PART_OF:
            return None
        if p.position is not None:
            i = game.order.index(p.position) if p.position in game.order else None
            if i is None:
                return None
            aside = tiles and tiles <= set(observed.seats[i].bonus + observed.seats[i].norths)
            where = [(i, _PART_OF[p.kind] or ("aside" if aside else "melds"))]
        else:   # a tile kind or a copy count: every part where the tile newly shows
            plain = {plain_code(c) for c in tiles}
            where = _parts_newly_showing(followed, observed, plain)
            if _newly_shows(followed.dora, observed.dora, plain):
                dora = followed.dora
            if not where and dora == observed.dora:
                return None
        for i, part in where:
            seats[i] = _left_pending(followed.seats[i], seats[i], part)
    return replace(observed, seats=tuple(seats), dora=dora)


def _newly_shows(have: Sequence[str], want: Sequence[str], plain: set[str]) -> bool:
    """A tile of a kind in ``plain`` (plain codes) is in ``want`` and not in ``have``."""
    return any(plain_code(c) in plain for c in (Counter(want) - Counter(have)).elements())


def _parts_newly_showing(followed: TableView, observed: TableView, plain: set[str]) -> list[tuple[int, str]]:
    """(seat, part) of every discard row, meld area and area set aside where a tile of ``plain`` newly shows."""
    where = []
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        if _newly_shows(s.discards, v.discards, plain):
            where.append((i, "discards"))
        if _newly_shows([c for m in s.melds for c in m.codes], [c for m in v.melds for c in m.codes], plain):
            where.append((i, "melds"))
        if _newly_shows(s.bonus + s.norths, v.bonus + v.norths, plain):
            where.append((i, "aside"))
    return where


def _left_pending(followed: SeatView, observed: SeatView, part: str) -> SeatView:
    """The ``observed`` seat with ``part`` (discards, sideways, melds, aside) as the ``followed`` seat shows
    it."""
    if part == "discards":
        return replace(observed, discards=followed.discards, sideways=followed.sideways)
    if part == "sideways":
        return replace(observed, sideways=followed.sideways)
    if len(observed.melds) < len(followed.melds):   # a followed meld read in the area set aside: kept
        observed = replace(observed, melds=followed.melds, shown=())
    if part == "melds":   # tiles set aside that a bad group took in stay set aside
        stayed = still_aside(followed.bonus, observed.bonus) and still_aside(followed.norths, observed.norths)
        kept: dict[str, Any] = {} if stayed else {"bonus": followed.bonus, "norths": followed.norths}
        return replace(observed, melds=followed.melds, shown=observed.shown[:len(followed.melds)], **kept)
    return replace(observed, bonus=followed.bonus, norths=followed.norths)
