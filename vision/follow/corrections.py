"""Corrections of the followed log: where an earlier reading turns out wrong, the event that followed it is
rewritten, and the inferrer has the engine replay the hand from its deal (:func:`hand_start`).

Four readings are corrected so: a followed discard read as the same other tile for :data:`DISPUTE_FRAMES`
frames in a row (:func:`row_disputes`, :func:`log_with_discard_reread`), a discard that a call shows was
another tile (:func:`call_rereads_discard`), a tile of the camera player's hand that the table shows was
another (:func:`log_with_hand_tile_reread`), and a doubtful tile of the deal settled otherwise
(:mod:`.deal`, :func:`log_with_deal_tile`); bonus tiles first seen after the deal that no turn sets aside were
set aside at the deal (:func:`log_with_deal_aside`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from assistant.play import (
    Deal,
    Discard,
    Draw,
    Event,
    PlayState,
    ReplacementDraw,
)
from assistant.tiles import Tile, parse_tiles

from .tile_codes import hand_text
from .views import GameContext, TableView

#: frames in a row a followed discard must be read as the same other tile before the log takes that reading
#: (a user's correction, or a better view): fewer is one frame's misreading, which the followed reading outlasts
DISPUTE_FRAMES = 3


def row_disputes(followed: TableView, observed: TableView, game: GameContext) -> set[tuple[int, int, str]]:
    """(seat, place in its row, the tile read there now) where a seat's followed row, not shorter, is read with
    exactly one tile otherwise before its latest discard (more than one: a tile missed or a row misplaced,
    which shifts the rest, not a misreading)."""
    if game.centre:
        return set()
    out = set()
    for i, (s, v) in enumerate(zip(followed.seats, observed.seats, strict=True)):
        differ = [(j, b) for j, (a, b) in enumerate(zip(s.discards, v.discards, strict=False)) if a != b]
        # the latest discard read otherwise may have been called and another thrown: not a misreading
        if len(differ) == 1 and differ[0][1] != "bk" and differ[0][0] < len(s.discards) - 1 \
                and len(v.discards) >= len(s.discards):
            out.add((i, *differ[0]))
    return out


def log_with_discard_reread(events: Sequence[Event], start: int, state: PlayState, seat: int, place: int,
                            now: str) -> list[Event] | None:
    """``events`` (the hand's deal at ``start``) with the discard at ``place`` of ``seat``'s visible row (in
    ``state``, the state after them) read as ``now``, or None when no discard event is found for it."""
    row = [k for k, d in enumerate(state.seats[seat].discards) if d.called_by is None]
    if place >= len(row):
        return None
    nth = row[place]            # the seat's nth discard of the hand
    seen = -1
    out = list(events)
    for k in range(start, len(out)):
        ev = out[k]
        if isinstance(ev, Discard) and ev.seat == seat:
            seen += 1
            if seen == nth:
                out[k] = replace(ev, tile=Tile.from_code(now))
                return out
    return None


def call_rereads_discard(events: Sequence[Event], followed: TableView, observed: TableView,
                         game: GameContext) -> tuple[int, str, str] | None:
    """When the latest event is a discard and a new meld claims another tile from its seat where it lay: the
    call shows what the discard was (read wrongly). Returns (the discard's index in ``events``, read, now)."""
    if not events or not isinstance(events[-1], Discard):
        return None
    ev = events[-1]
    d, was = ev.seat, ev.tile.code
    if game.centre:
        if Counter(followed.centre) - Counter(observed.centre) != Counter([was]):
            return None
    else:
        r = followed.seats[d].discards
        if not r or r[-1] != was or observed.seats[d].discards != r[:-1]:
            return None
    for j, w in enumerate(observed.seats):
        for m in w.shown[len(followed.seats[j].melds):]:
            if m.sideways is not None and not m.concealed and m.source == game.back(j, d):
                now = m.tiles[m.sideways]
                return (len(events) - 1, was, now) if now != was else None
    return None


def hand_start(events: Sequence[Event]) -> int:
    """The index of the current hand's deal in ``events`` (a rewritten event replays the hand from there)."""
    return max(i for i, e in enumerate(events) if isinstance(e, Deal))


def log_with_hand_tile_reread(events: Sequence[Event], seat: int, was: str, now: str) -> list[Event] | None:
    """``events`` with the camera player's ``was`` read as ``now`` where it came into the hand (its latest
    draw of ``was``, else the deal), or None when no event brought it in."""
    out = list(events)
    for k in range(len(out) - 1, -1, -1):
        ev: Any = out[k]
        if isinstance(ev, (Draw, ReplacementDraw)) and ev.seat == seat and ev.tile.code == was:
            out[k] = replace(ev, tile=Tile.from_code(now))
            return out
        if isinstance(ev, Deal):
            return log_with_deal_tile(out, k, seat, "hand", was, now)
    return None


def log_with_deal_tile(events: Sequence[Event], start: int, seat: int, part: str, was: str,
                       now: str) -> list[Event] | None:
    """``events`` with the deal at ``start`` holding ``now`` where it was read ``was``: in ``seat``'s hand
    (part ``hand``), among its tiles set aside at the deal (``bonus``) or as the dora indicator (``dora``);
    None when the deal holds no ``was`` there."""
    deal = events[start]
    assert isinstance(deal, Deal)
    out = list(events)
    if part == "dora":
        dora = [t.code for t in deal.dora_indicators]
        if was not in dora:
            return None
        dora[dora.index(was)] = now
        out[start] = replace(deal, dora_indicators=" ".join(dora))  # type: ignore[arg-type]  # the event parses it
        return out
    main, _, bonus = deal.hands[seat].partition("|")
    tiles = {"hand": [t.code for t in parse_tiles(main)],
             "bonus": [t.code for t in parse_tiles(bonus)] if bonus.strip() else []}
    if was not in tiles[part]:
        return None
    tiles[part][tiles[part].index(was)] = now
    hands = list(deal.hands)
    hands[seat] = hand_text(tiles["hand"], tiles["bonus"])
    out[start] = replace(deal, hands=tuple(hands))
    return out


def log_with_deal_aside(events: Sequence[Event], start: int, seat: int, added: Sequence[str]) -> list[Event]:
    """``events`` with the deal at ``start`` holding ``added`` among ``seat``'s tiles set aside at the deal (bonus
    tiles the first frames missed: a far, small tile)."""
    deal = events[start]
    assert isinstance(deal, Deal)
    main, _, bonus = deal.hands[seat].partition("|")
    aside = [t.code for t in parse_tiles(bonus)] if bonus.strip() else []
    hands = list(deal.hands)
    hands[seat] = hand_text([t.code for t in parse_tiles(main)], aside + list(added))
    out = list(events)
    out[start] = replace(deal, hands=tuple(hands))
    return out
