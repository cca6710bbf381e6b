"""Furiten (sanma) and the sacred discard (korean-3p): when a seat may not win on another player's tile,
and what each of its waits is good for (call-legality.md §5, sanma.md §12, korean-3p.md §7).

* **sanma** — permanent: any wait (with or without a yaku) among the seat's own discards, including
  discards others called away, blocks every win on a discard or a robbed kong; temporary: a winning
  tile let pass since the seat's last discard; riichi: a winning tile let pass after riichi (rest of
  the hand). A self-draw is never blocked.
* **korean-3p** — sacred discard, by ``sacred_discard``: ``per_tile`` (default: a tile the seat
  discarded earlier cannot be won on, its other waits stay open), ``all_waits`` (any wait in the
  discards blocks every discard win), ``off``. It also blocks robbing a kong; passing never matters.
* **hong-kong**, **three-kaki** — no memory: nothing here ever blocks a win.

Nothing in this module changes a state; :func:`record_pass` returns a new one.

A seat whose hand holds face-down tiles (``bk``, :attr:`~assistant.table.SeatState.hidden`) has waits
nobody at the table can know: :func:`seat_waits`, :func:`waits_in_discards` and
:func:`winning_readings` raise :class:`~assistant.table.HandNotKnown` for it; :func:`ron_blocker`
applies only what needs no hand (a passed tile, korean-3p's per-tile sacred discard); :func:`could_take`
is False (a pass by such a seat is not recorded); :func:`wait_labels` is empty.
"""

from __future__ import annotations

from typing import NamedTuple

from .analysis import Decomposition, Wait, decompositions, waits
from .hand import Hand
from .table import Notice, TableState, notice, replace_seat, win_value_check
from .tiles import Tile, kind_code

LABELS = ("can ron", "tsumo only", "no yaku", "below the minimum", "no live tiles")


def furiten_rule(state: TableState) -> str:
    """Which discard-memory rule the table plays: ``furiten`` (sanma), ``per_tile`` / ``all_waits`` /
    ``off`` (korean-3p's ``sacred_discard`` option) or ``none`` (hong-kong, three-kaki)."""
    if "sacred_discard" in state.variant.options:
        return str(state.option("sacred_discard"))
    if state.variant.has_riichi:
        return "furiten"
    return "none"


def _hand13(state: TableState, seat: int) -> Hand:
    s = state.seats[state.check_seat(seat)]
    state.check_known(seat, "its waits")
    v = state.variant
    if v.hand_stage(s.hand.tile_count) != "waiting":
        raise ValueError(f"seat {seat}: holds {s.hand.tile_count} tiles (its own turn); waits are read from a "
                         f"{v.hand_size}-tile hand, after the discard")
    return Hand(s.hand.concealed, s.hand.melds, ())


def seat_waits(state: TableState, seat: int) -> list[Wait]:
    """The seat's waits (formal: with or without a yaku), each with its live count: copies in the set
    minus every copy the seat can see (own hand and melds, all discards, melds, bonus areas, indicators)."""
    return waits(_hand13(state, seat), state.variant, state.visible_tiles(seat))


def waits_in_discards(state: TableState, seat: int) -> list[int]:
    """Kinds of the seat's waits that it has discarded this hand (called-away discards included)."""
    own = state.seats[seat].discard_kinds
    return [w.tile.kind for w in waits(_hand13(state, seat), state.variant) if w.tile.kind in own]


def winning_readings(state: TableState, seat: int, tile: Tile) -> list[Decomposition]:
    """The readings of the seat's hand completed by ``tile`` (empty when it does not win)."""
    state.check_known(seat, f"whether {tile.code} completes its hand")
    hand = state.seats[seat].hand
    return decompositions(hand, state.variant, list(hand.concealed) + [tile])


def ron_blocker(state: TableState, seat: int, tile: Tile) -> Notice | None:
    """The furiten / sacred-discard notice that stops ``seat`` winning on another player's ``tile``
    (a discard or a robbed kong), or None. Self-draws are never blocked. For a seat with face-down tiles
    only the checks that need no hand are made (its waits are not known)."""
    rule = furiten_rule(state)
    s = state.seats[state.check_seat(seat)]
    known = not s.hidden
    if rule == "furiten":
        hit = waits_in_discards(state, seat) if known else []
        if hit:
            return notice("FURITEN_OWN_DISCARD", wait=kind_code(hit[0]))
        if s.in_riichi and s.passed_since_riichi:
            return notice("FURITEN_RIICHI", tile=kind_code(s.passed_since_riichi[0].kind))
        if s.passed_since_discard:
            return notice("FURITEN_TEMPORARY", tile=kind_code(s.passed_since_discard[0].kind))
    elif rule == "per_tile":
        if tile.kind in s.discard_kinds:
            return notice("SACRED_DISCARD", tile=kind_code(tile.kind))
    elif rule == "all_waits" and known:
        hit = waits_in_discards(state, seat)
        if hit:
            return notice("SACRED_DISCARD_ALL_WAITS", wait=kind_code(hit[0]))
    return None


def could_take(state: TableState, seat: int) -> bool:
    """Whether ``seat`` could have won on the open tile, as furiten counts it (sanma.md §12): any reading
    of a discard (a win without a yaku included), an added kan, an ankan with kokushi; a set-aside North
    only where the table lets it be robbed. False for a seat with face-down tiles: that cannot be known."""
    if state.phase not in ("claim_window", "kong_window") or seat == state.turn or state.seats[seat].hidden:
        return False
    assert state.last_tile is not None
    reads = winning_readings(state, seat, state.last_tile)
    if not reads:
        return False
    kokushi = any(d.form == "thirteen_orphans" for d in reads)
    if state.phase == "claim_window" or state.declaration == "added_kong":
        return True
    if state.declaration == "closed_kong":
        return kokushi and bool(state.option("kokushi_rob_ankan", False))
    if state.declaration == "kita":
        rob = state.option("rob_kita", "none")
        return rob == "any" or (rob == "kokushi" and kokushi)
    return False


def record_pass(state: TableState, seat: int) -> TableState:
    """The state after ``seat`` lets the open tile go: under sanma furiten a tile it could have taken is
    added to ``passed_since_discard`` (and ``passed_since_riichi`` in riichi). Other tables keep no
    memory, so the state is returned unchanged."""
    state.check_seat(seat)
    if furiten_rule(state) != "furiten" or not could_take(state, seat):
        return state
    assert state.last_tile is not None
    s = state.seats[seat]
    tile = Tile(state.last_tile.kind)
    changes: dict[str, tuple[Tile, ...]] = {"passed_since_discard": s.passed_since_discard + (tile,)}
    if s.in_riichi:
        changes["passed_since_riichi"] = s.passed_since_riichi + (tile,)
    return replace_seat(state, seat, **changes)


class WaitLabel(NamedTuple):
    """One wait of a ready seat: the tile, its live copies, what it is good for (:data:`LABELS`) and why."""

    tile: Tile
    live: int
    label: str
    reason: str


def wait_labels(state: TableState, seat: int) -> list[WaitLabel]:
    """Label every wait of the seat's 13-tile hand (empty when it is not ready).

    ``no live tiles`` — every copy is in sight; ``no yaku`` / ``below the minimum`` — not even a
    self-draw on it would be a legal win; ``tsumo only`` — furiten / sacred discard, or only a self-draw
    reaches the yaku or the minimum (the reason says which); ``can ron`` — a discard win is allowed (the
    reason notes when no scorer checked its value). Values come from :func:`~assistant.table.win_value_check`.
    Empty for a seat whose hand holds face-down tiles (its waits are not known).
    """
    out: list[WaitLabel] = []
    if state.seats[state.check_seat(seat)].hidden:
        return out
    for w in seat_waits(state, seat):
        tile = w.tile
        if w.live == 0:
            out.append(WaitLabel(tile, 0, "no live tiles",
                                 f"Every {tile.code} is already in sight, so none can come."))
            continue
        tsumo = win_value_check(state, seat, tile, tsumo=True, hypothetical=True)
        if tsumo.blocks:
            assert tsumo.notice is not None
            label = "no yaku" if tsumo.status == "no_yaku" else "below the minimum"
            out.append(WaitLabel(tile, w.live, label, tsumo.notice.message))
            continue
        blocker = ron_blocker(state, seat, tile)
        if blocker is not None:
            out.append(WaitLabel(tile, w.live, "tsumo only", blocker.message))
            continue
        ron = win_value_check(state, seat, tile, tsumo=False, hypothetical=True)
        if ron.blocks:
            assert ron.notice is not None
            out.append(WaitLabel(tile, w.live, "tsumo only", ron.notice.message))
            continue
        out.append(WaitLabel(tile, w.live, "can ron", ron.notice.message if ron.notice else ""))
    return out
