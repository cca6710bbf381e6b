"""Generated video of whole hands: a hand played by the engine, filmed frame by frame.

:func:`play_hand` plays one hand of a rule system with :func:`assistant.play.apply` (seeded random legal
play: draws and discards, some chows, pongs and kongs, kita in sanma, bonus tiles in hong-kong, korean-3p and
three-kaki, sinking and swapping Fei, riichi where legal, ending in a win or an exhaustive draw; abortive draws
are avoided). :func:`camera_log` is that script *as a camera sees it* (the projection the event inferrer of
:mod:`vision.follow` is checked against). :func:`generate_hand_video` turns every state that shows on the table
into a frame: the semantic table (:class:`~datasets.table_scene.TableTruth`), the tile placements, per-tile
labels (:func:`~datasets.table_scene.label_tiles`) and, on request, a rendered image.

Table conventions (those of :mod:`datasets.table_scene`): position 0 is the camera player, whose concealed
hand lies face up; the other hands stand (seen as backs; a hand the camera would see from the front lies face
down instead) or lie face down. Melds show the claimed tile sideways on the side of its source, an added
kong's tile beyond it, a concealed kong ``bk X X bk`` (Hong Kong ``X bk bk X``); the riichi tile lies sideways
in the discard row (when it is called, the next discard lies sideways); a called discard leaves the row (Hong
Kong: the centre pool); sanma's Norths and every bonus tile lie in the bonus area right of the melds; the dora
indicators stand on the dead wall. At the end the hands that show are laid face up: the winner's (a lone ron
winner takes the discard, or the added tile of the kong it robs, into its hand, set apart at the right like a
drawn tile; several winners leave it), every loser's too in three-kaki, and the ready hands at an exhaustive
draw.

Frames are consistent with the physical table: the geometry is fixed for the whole hand (sized for the
longest rows the hand will have), the bonus area keeps a slot for every bonus tile the hand will show, the
per-tile jitter is keyed by the tile's place (not drawn in sequence), Hong Kong discards keep the spot where
they were thrown, and the wall loses stacks from one end. So a tile keeps its place when nothing happened to
it; the hands of the player to move shift as tiles come and go, like real hands.

Everything is deterministic by ``seed``.

Engine seats are dealer-relative (0 = East); table positions are physical (0 = camera, counter-clockwise).
:attr:`HandVideo.dealer` is the dealer's position; :meth:`HandVideo.seat_of` maps a position to its seat.
"""

from __future__ import annotations

import hashlib
import math
import random
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from assistant.play.dealing import action_event, shuffled_deal, wall_event

from .camera import Camera
from .layout import TileDims
from .table_scene import (
    MeldTruth,
    SeatTruth,
    TableGeometry,
    TablePlacement,
    TableScene,
    TableTruth,
    _Planner,
    label_tiles,
    random_dims,
    sideways_index,
    table_camera,
    wall_slots,
)

NORTH_KIND = 30
#: events the camera never sees: they leave the table as it was
INVISIBLE = ("pass", "riichi")
VIEWS = ("seat", "overhead")   # cameras on the camera player's side of the table


# --------------------------------------------------------------------------- random legal play


@dataclass(frozen=True)
class PlayStyle:
    """How the random players play: chances of a win when one is legal, a call of a discard, a special
    move on one's own turn (kong, kita, riichi, sinking or swapping a Fei), a pass said aloud, and of the
    discard that keeps the hand closest to ready; ``max_kongs`` keeps four-kan aborts away."""

    win: float = 0.6
    call: float = 0.4
    special: float = 0.35
    say_pass: float = 0.2
    greedy: float = 0.8
    max_kongs: int = 3


_KONGS = ("closed_kong", "added_kong", "open_kong")


def _allowed(state, actions, style: PlayStyle) -> list:
    """Legal actions the generator uses: no nine-terminals abort, no kong past ``max_kongs``."""
    out = [a for a in actions if a.legal and a.kind not in ("nine_terminals", "pass")]
    if state.kongs_made >= style.max_kongs:
        out = [a for a in out if a.kind not in _KONGS]
    return out


def _closest_discards(state, discards):
    from assistant.analysis import shanten
    from assistant.hand import Hand

    hand = state.seats[state.turn].hand
    scored = []
    for a in discards:
        rest = list(hand.concealed)
        rest.remove(a.tile)
        scored.append((shanten(Hand(tuple(rest), hand.melds), state.variant).minimum, a))
    best = min(x for x, _ in scored)
    return [a for x, a in scored if x == best]


def _own_turn(state, pool, rng, style):
    from assistant.calls import legal_actions

    acts = _allowed(state, legal_actions(state, state.turn), style)
    if any(a.kind == "tsumo" for a in acts) and rng.random() < style.win:
        return action_event(next(a for a in acts if a.kind == "tsumo"))
    special = [a for a in acts if a.kind not in ("discard", "tsumo")]
    if special and rng.random() < style.special:
        return action_event(rng.choice(special))
    discards = [a for a in acts if a.kind == "discard"] or acts
    if style.greedy and len(discards) > 1 and rng.random() < style.greedy:
        discards = _closest_discards(state, discards)
    return action_event(rng.choice(discards))


def _window(state, pool, rng, style):
    from assistant.calls import legal_actions, resolve_claims
    from assistant.play import ExhaustiveDraw, Pass, Ron

    n = state.players
    others = [(state.turn + k) % n for k in range(1, n)]
    claims = {seat: _allowed(state, legal_actions(state, seat), style) for seat in others}
    rons = [a for seat in others for a in claims[seat] if a.kind == "ron"]
    if rons and rng.random() < style.win:
        return Ron(tuple(a.seat for a in resolve_claims(state, rons).winners))
    unpassed = [s for s in others if s not in state.window_passes]
    if state.phase == "kong_window":
        if unpassed and rng.random() < style.say_pass:
            return Pass(rng.choice(unpassed))
        return wall_event(state.turn, pool, replacement=True)
    calls = [a for seat in others for a in claims[seat] if a.kind in ("chow", "pong", "open_kong")]
    if calls and rng.random() < style.call:
        return action_event(rng.choice(calls))
    if unpassed and rng.random() < style.say_pass:
        return Pass(rng.choice(unpassed))
    if state.live_wall == 0:
        return ExhaustiveDraw()
    return wall_event(state.next_seat(state.turn), pool, replacement=False)


def _next_event(state, pool, rng, style):
    from assistant.play import ExhaustiveDraw

    if state.phase == "turn_start":
        if state.live_wall == 0:
            return ExhaustiveDraw()
        return wall_event(state.turn, pool, replacement=state.owed is not None)
    if state.phase == "own_turn":
        return _own_turn(state, pool, rng, style)
    return _window(state, pool, rng, style)


def _kan_dora(state, pool):
    """Riichi: the kan dora indicator turned over right after each kong (None when none is owed)."""
    from assistant.play import NewDora

    if "riichi" not in state.variant.calls or len(state.dora_indicators) >= 1 + state.kongs_made:
        return None
    i = max(i for i, t in enumerate(pool) if t.is_playing)
    t = pool.pop(i)
    pool.insert(0, t)   # it belongs to the dead wall now
    return NewDora(t)


def play_hand(variant: str, seed: int, *, short_wall: int | None = None, style: PlayStyle | None = None,
              max_events: int = 1000) -> tuple[list, list]:
    """Play one hand; returns (events, states after each event). ``short_wall``: only that many live tiles
    (shorter hands)."""
    from assistant.play import apply

    style = style or PlayStyle()
    rng = random.Random(f"hand-video:{variant}:{seed}")
    deal, pool = shuffled_deal(variant, rng, short_wall)
    state = apply(None, deal)
    events, states = [deal], [state]
    while state.ending is None and len(events) < max_events:
        ev = _next_event(state, pool, rng, style)
        state = apply(state, ev)
        events.append(ev)
        states.append(state)
        if ev.type in _KONGS and state.ending is None:
            dora = _kan_dora(state, pool)
            if dora is not None:
                state = apply(state, dora)
                events.append(dora)
                states.append(state)
    return events, states


# --------------------------------------------------------------------------- the camera's view of the script


def _distance(players: int, discarder: int, seat: int) -> int:
    return (seat - discarder) % players


def _project_deal(ev, before, after, cam):
    from assistant.play import Deal
    from vision.follow import hand_text

    hands = []
    for i, s in enumerate(after.seats):
        tiles = [t.code for t in s.hand.concealed] if i == cam else ["bk"] * len(s.hand.concealed)
        hands.append(hand_text(tiles, [t.code for t in s.hand.bonus]))
    return [Deal(ev.variant, tuple(hands), dora_indicators=ev.dora_indicators)]


def _project_draw(ev, before, after, cam):
    return [type(ev)(ev.seat, ev.tile if ev.seat == cam else "bk")]


def _project_claim(ev, before, after, cam):
    from assistant.tiles import sort_key

    meld = after.seats[ev.seat].hand.melds[-1]
    rest = list(meld.tiles)
    rest.remove(before.last_tile)
    return [type(ev)(ev.seat, tuple(sorted(rest, key=sort_key)), meld.format())]


def _project_closed_kong(ev, before, after, cam):
    from assistant.play import ClosedKong
    from assistant.tiles import Tile, sort_key

    meld = after.seats[ev.seat].hand.melds[-1]
    tiles = tuple(sorted(meld.tiles, key=sort_key)) if ev.seat == cam else ()
    return [ClosedKong(ev.seat, Tile(ev.tile.kind), tiles)]


def _reveals(state, seats, cam, drawn_by=None) -> list:
    """Reveals of the hidden hands among ``seats`` (the tile drawn face down named for ``drawn_by``)."""
    from assistant.play import Reveal
    from vision.follow import hand_text

    out = []
    for s in seats:
        if s != cam:
            drawn = state.drawn_tile if s == drawn_by else None
            out.append(Reveal(s, hand_text([t.code for t in state.seats[s].hand.concealed]), drawn))
    return out


def _losers_shown(state, winners) -> list[int]:
    """Three-kaki: the losers show their hands too (their Fei and honour pongs count)."""
    if "sink_fei" not in state.variant.calls:
        return []
    return [s for s in range(state.players) if s not in winners]


def _project_tsumo(ev, before, after, cam):
    from assistant.play import Tsumo

    return _reveals(before, [ev.seat] + _losers_shown(before, [ev.seat]), cam, ev.seat) + [Tsumo(ev.seat)]


def _project_ron(ev, before, after, cam):
    from assistant.play import Ron

    seats = sorted(ev.seats, key=lambda s: _distance(before.players, before.turn, s))
    return _reveals(before, seats + _losers_shown(before, seats), cam) + [Ron(tuple(seats))]


def _project_exhaustive(ev, before, after, cam):
    from assistant.play import ExhaustiveDraw

    tenpai = sorted(after.ending.tenpai)
    return _reveals(before, tenpai, cam) + [ExhaustiveDraw(tuple(tenpai))]


def _unchanged(ev, before, after, cam):
    return [ev]


def _unseen(ev, before, after, cam):
    return []


_PROJECTIONS = {
    "deal": _project_deal, "draw": _project_draw, "replacement_draw": _project_draw, "chow": _project_claim,
    "pong": _project_claim, "open_kong": _project_claim, "closed_kong": _project_closed_kong,
    "tsumo": _project_tsumo, "ron": _project_ron, "exhaustive_draw": _project_exhaustive,
    "pass": _unseen, "riichi": _unseen,
}


def camera_log(events: Sequence, camera_seat: int, states: Sequence | None = None) -> list:
    """The script as a camera at ``camera_seat`` (an engine seat) sees it: hidden hands and hidden draws as
    ``bk`` (a concealed kong of another seat as its kind only), claims with the tiles shown from the hand
    (sorted) and the meld as shown; at the end the hands laid face up are revealed (``Reveal``, the tile a
    winner drew face down named) before the Tsumo / Ron (winners first, nearest the discarder first; in
    three-kaki every loser too) or before an exhaustive draw (the ready hands, listed as ``tenpai``); passes
    and riichi sticks are left out. ``states``: the states after each event (replayed when not given)."""
    from assistant.play import replay

    if states is None:
        states = replay(events[0].variant, events)
    out = []
    for i, ev in enumerate(events):
        before = states[i - 1] if i else None
        out += _PROJECTIONS.get(ev.type, _unchanged)(ev, before, states[i], camera_seat)
    return out


# --------------------------------------------------------------------------- the physical table per state


@dataclass
class _Physical:
    """What the engine state does not keep: which tile of each meld was claimed (and added), the discards in
    the order they were thrown (Hong Kong's centre pool keeps them where they landed), the bonus areas in the
    order tiles were set aside, the hands laid face up at the end, and a ron's discard taken by its winner
    (a lone winner takes the tile into its hand; several winners leave it where it lies)."""

    claimed: dict = field(default_factory=dict)    # (seat, meld index) -> Tile
    added: dict = field(default_factory=dict)      # (seat, meld index) -> Tile
    thrown: list = field(default_factory=list)     # (seat, index in the engine's row)
    aside: dict = field(default_factory=dict)      # seat -> bonus area codes in the order they were set aside
    shown: tuple = ()                              # seats whose hands lie face up at the end
    taken: tuple | None = None                     # a lone ron winner took the tile: (winner, discarder, meld)
    last_added: tuple | None = None                # (seat, meld index) of the latest added kong

    def after(self, ev, before, after) -> _Physical:
        new = _Physical(dict(self.claimed), dict(self.added), list(self.thrown), dict(self.aside), self.shown,
                        self.taken, self.last_added)
        kind = ev.type
        if kind == "deal":
            new.aside = {i: [t.code for t in s.hand.bonus] for i, s in enumerate(after.seats)}
        elif kind == "bonus":
            new.aside[ev.seat] = new.aside[ev.seat] + [ev.tile.code]
        elif kind == "kita":
            new.aside[ev.seat] = new.aside[ev.seat] + ["4z"]
        elif kind == "sink_fei":
            new.aside[ev.seat] = new.aside[ev.seat] + ["jk"]
        elif kind == "discard":
            new.thrown.append((ev.seat, len(after.seats[ev.seat].discards) - 1))
        elif kind in ("chow", "pong", "open_kong"):
            new.claimed[(ev.seat, len(after.seats[ev.seat].hand.melds) - 1)] = before.last_tile
        elif kind == "added_kong":
            old, now = before.seats[ev.seat].hand.melds, after.seats[ev.seat].hand.melds
            idx = next(i for i, (a, b) in enumerate(zip(old, now, strict=True)) if a != b)
            new.added[(ev.seat, idx)] = ev.tile
            new.last_added = (ev.seat, idx)
        elif kind == "tsumo":
            new.shown = (ev.seat, *_losers_shown(before, [ev.seat]))
        elif kind == "ron":
            new.shown = (*ev.seats, *_losers_shown(before, ev.seats))
            if len(ev.seats) == 1 and before.phase == "claim_window":          # the discard
                new.taken = (ev.seats[0], before.turn, None)
            elif len(ev.seats) == 1 and before.declaration == "added_kong":    # the added tile of a kong
                new.taken = (ev.seats[0], before.turn, self.last_added[1])
        elif kind == "exhaustive_draw":
            new.shown = tuple(after.ending.tenpai)
        return new


def _meld_truth(meld, claimed, added, players: int, hk: bool, robbed: bool = False) -> MeldTruth:
    from assistant.tiles import JOKER, sort_key

    pairs = list(zip(meld.tiles, meld.stands_for, strict=True))
    if meld.concealed:
        pairs.sort(key=lambda p: (sort_key(p[1]), p[0].kind == JOKER))
        faces = [True, False, False, True] if hk else [False, True, True, False]
        return MeldTruth("kong", [t.code for t, _ in pairs], [s.code for _, s in pairs], faces, None, None,
                         concealed=True, notation=meld.format())
    if added is not None:
        pairs.remove(next(p for p in pairs if p[0] == added))
    take = next(p for p in pairs if p[0] == claimed and p[0].kind != JOKER)
    pairs.remove(take)
    pairs.sort(key=lambda p: (sort_key(p[1]), p[0].kind == JOKER))
    side = sideways_index(meld.source, len(pairs) + 1, players)
    pairs.insert(side, take)
    if robbed:      # the robbing winner took the added tile: the pong is left
        return MeldTruth("pong", [t.code for t, _ in pairs], [s.code for _, s in pairs], [True] * len(pairs), side,
                         meld.source, notation=meld.format())
    mtype = "kong" if added is not None else meld.type
    return MeldTruth(mtype, [t.code for t, _ in pairs], [s.code for _, s in pairs], [True] * len(pairs), side,
                     meld.source, added=added.code if added is not None else None, notation=meld.format())


def _visible_row(discards) -> tuple[list[str], int | None]:
    """The uncalled discards and the index of the sideways tile (the riichi tile, or the next discard when
    the riichi tile was called)."""
    row, side, owed = [], None, False
    for d in discards:
        if d.called_by is not None:
            owed = owed or d.riichi
            continue
        if (d.riichi or owed) and side is None:
            side = len(row)
            owed = False
        row.append(d.tile.code)
    return row, side


def table_truth(state, phys: _Physical, positions: Sequence[int], dealer: int, camera: int,
                modes: dict[int, str]) -> tuple[TableTruth, list]:
    """The semantic table of ``state``; also the identities of Hong Kong's centre tiles (for the layout)."""
    from assistant.tiles import sort_key

    hk = state.variant.name == "hong-kong"
    sanma = "kita" in state.variant.calls
    n = state.players
    order = _turn_order(positions, dealer)
    seats = []
    for pos in sorted(positions):
        seat = order.index(pos)
        s = state.seats[seat]
        concealed = list(s.hand.concealed)
        extra = None
        if phys.taken is not None and phys.taken[0] == seat:
            extra = state.last_tile                     # the ron tile, set apart like a drawn tile
        elif state.phase == "own_turn" and state.turn == seat and state.drawn_tile in concealed:
            extra = state.drawn_tile
            concealed.remove(extra)
        concealed.sort(key=sort_key)
        drawn = extra is not None
        if drawn:
            concealed.append(extra)
        mode = "face_up" if pos == camera or seat in phys.shown else modes[pos]
        taken = phys.taken if phys.taken is not None and phys.taken[1] == seat else None
        melds = [_meld_truth(m, phys.claimed.get((seat, i)), phys.added.get((seat, i)), n, hk,
                             robbed=taken is not None and taken[2] == i) for i, m in enumerate(s.hand.melds)]
        rows = s.discards[:-1] if taken is not None and taken[2] is None else s.discards
        row, side = ([], None) if hk else _visible_row(rows)
        aside = phys.aside[seat]
        bonus = [c for c in aside if not (sanma and c == "4z")]
        norths = [c for c in aside if sanma and c == "4z"]
        seats.append(SeatTruth(pos, [t.code for t in concealed], mode, drawn, melds, row, side, bonus, norths))
    centre, ids = [], []
    if hk:
        gone = (phys.taken[1], len(state.seats[phys.taken[1]].discards) - 1) \
            if phys.taken and phys.taken[2] is None else None
        for seat, i in phys.thrown:
            d = state.seats[seat].discards[i]
            if d.called_by is None and (seat, i) != gone:
                centre.append(d.tile.code)
                ids.append((seat, i))
    truth = TableTruth(state.variant.name, n, seats, [t.code for t in state.dora_indicators], centre,
                       wall_tiles=state.live_wall + state.dead_wall)
    return truth, ids


def _turn_order(positions: Sequence[int], dealer: int) -> list[int]:
    ring = sorted(positions)
    k = ring.index(dealer)
    return ring[k:] + ring[:k]


# --------------------------------------------------------------------------- a stable layout


def _hash_uniforms(key: tuple, n: int) -> list[float]:
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8 * n).digest()
    return [(v + 0.5) / 2.0 ** 64 for v in struct.unpack(f"<{n}Q", digest)]


class _Keyed:
    """Random values keyed by a name instead of drawn in sequence: the same key gives the same value in
    every frame, whatever else is on the table."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._cache: dict = {}

    def uniform(self, key, low: float, high: float) -> float:
        return low + (high - low) * _hash_uniforms((self.seed, "u", key), 1)[0]

    def integers(self, key, n: int) -> int:
        return min(n - 1, int(n * _hash_uniforms((self.seed, "i", key), 1)[0]))

    def normals(self, key, n: int) -> tuple[float, ...]:
        """``n`` standard normal values (Box-Muller), cached."""
        got = self._cache.get(key)
        if got is None:
            u = _hash_uniforms((self.seed, "n", key), 2 * ((n + 1) // 2))
            out = []
            for a, b in zip(u[::2], u[1::2], strict=True):
                r = math.sqrt(-2.0 * math.log(a))
                out += [r * math.cos(2 * math.pi * b), r * math.sin(2 * math.pi * b)]
            got = self._cache[key] = tuple(out[:n])
        return got


class _StablePlanner(_Planner):
    """A table_scene planner whose jitter is keyed by the tile's role (its place on the table), or by
    ``anchor`` when set (a tile whose role index changes while it stays put)."""

    keyed: _Keyed
    anchor: tuple | None = None

    def _jitter(self, pos: float = 0.4, yaw: float = 1.2):
        a, b, c = self.keyed.normals(("jitter",) + tuple(self.anchor or self.role), 3)
        return pos * self.jitter * a, pos * self.jitter * b, yaw * self.jitter * c


class StableLayout:
    """Where every tile of a hand's frames lies: :func:`datasets.table_scene.layout_table`'s conventions with
    a geometry fixed for the whole hand (sized from every frame's truth), reserved bonus slots and keyed
    jitter, so unchanged tiles stay where they are from frame to frame."""

    def __init__(self, truths: Sequence[TableTruth], dims: TileDims, seed: int, jitter: float = 1.0) -> None:
        self.dims = dims
        self.key = _Keyed(seed)
        self.jitter = jitter
        k = self.key
        w, h, t = dims.w, dims.h, dims.t
        gap = k.uniform("gap", 0.3, 1.0)
        stride = w + gap
        a = 3 * stride + k.uniform("discard_start", 6, 16)
        rows_end = a + 3 * (h + gap)
        W = max(rows_end + k.uniform("wall", 10, 22) + h, 9 * stride + h / 2 + 2)
        geo = TableGeometry(w, h, t, gap, a, W, 0.0)
        last = truths[-1]
        positions = [s.position for s in last.seats]
        self.bonus_slots = {p: max(len(tr.seat(p).bonus) + len(tr.seat(p).norths) for tr in truths) for p in positions}
        for p in positions:
            added = any(m.added for tr in truths for m in tr.seat(p).melds)
            natural = W + k.uniform(("row", p), 30, 50) + h
            geo.row_edge[p] = max(natural, W + 8 + (2 * w + gap if added else h))
        geo.table_half = max(geo.row_edge.values()) + k.uniform("table", 40, 90)
        for p in positions:
            hand = max(len(tr.seat(p).hand) for tr in truths)
            length = (hand + 0.6) * stride + 1.8 * w + (self.bonus_slots[p] + 0.6) * stride
            length += sum(len(m.tiles) * stride + (h - w if m.sideways is not None else 0) + 0.5 * w
                          for m in last.seat(p).melds)
            geo.table_half = max(geo.table_half, length - W + 0.6 * w + 25)
        self.geometry = geo
        self._centre_spots: dict = {}      # centre tile identity -> (x, y, yaw)
        self._free_cells: list | None = None

    def _planner(self, seat: int, out: list) -> _StablePlanner:
        plan = _StablePlanner(seat, self.dims, None, out)
        plan.keyed = self.key
        plan.jitter = self.jitter
        return plan

    def place(self, truth: TableTruth, centre_ids: Sequence = ()) -> list[TablePlacement]:
        out: list[TablePlacement] = []
        for s in truth.seats:
            self._place_seat(s, out)
        self._place_walls(truth, out)
        if truth.centre_discards:
            self._place_centre(truth.centre_discards, centre_ids, out)
        return out

    def _place_seat(self, s: SeatTruth, out: list) -> None:
        geo, k, p = self.geometry, self.key, s.position
        w, h, t, gap = geo.w, geo.h, geo.t, geo.gap
        stride = w + gap
        plan = self._planner(p, out)
        edge = geo.row_edge[p]
        delta = k.uniform(("delta", p), 0, 6)
        right = geo.table_half - k.uniform(("right", p), 8, 25)
        slots = self.bonus_slots[p]
        for i, code in enumerate(s.bonus + s.norths):
            plan.role = ("bonus", p, i)
            x = right - (slots - i - 0.5) * w - (slots - 1 - i) * gap
            plan.lying(code, x, -(edge + delta - h / 2), 0.0, True, "meld")
        x = right - slots * stride
        if slots:
            x -= k.uniform(("bonus_gap", p), 0.3, 0.6) * w
        for mi, meld in enumerate(s.melds):
            for ti in reversed(range(len(meld.tiles))):
                width = h if ti == meld.sideways else w
                x -= width / 2
                plan.role = ("meld", p, mi, ti)
                if ti == meld.sideways:
                    plan.lying(meld.tiles[ti], x, -(edge + delta - w / 2), 90.0, True, "meld")
                    if meld.added:
                        plan.role = ("meld", p, mi, "added")
                        plan.lying(meld.added, x, -(edge + delta - w - gap - w / 2), 90.0, True, "meld")
                else:
                    plan.lying(meld.tiles[ti], x, -(edge + delta - h / 2), 0.0, meld.face_up[ti], "meld")
                x -= width / 2 + gap
            x -= k.uniform(("meld_gap", p, mi), 0.2, 0.5) * w
        n = len(s.hand)
        length = n * stride + (0.6 * w if s.drawn else 0.0)
        x0 = min(-length / 2 + 8 * k.normals(("hand_x", p), 1)[0],
                 x - k.uniform(("hand_gap", p), 1.0, 1.8) * w - length)
        tilt = k.uniform(("tilt", p), 0, 12)
        for i, code in enumerate(s.hand):
            x = x0 + (i + 0.5) * stride + (0.6 * w if s.drawn and i == n - 1 else 0.0)
            plan.role = ("hand", p, i)
            if s.hand_mode == "standing":
                plan.standing(code, x, -(edge - t / 2), "hand", tilt)
            else:
                plan.lying(code, x, -(edge - h / 2), 0.0, s.hand_mode == "face_up", "hand")
        x_left = -3 * stride + 2 * k.normals(("discards_x", p), 1)[0]
        x = x_left
        for i, code in enumerate(s.discards):
            row = min(i // 6, 2)
            if i % 6 == 0 and i < 18:
                x = x_left
            sideways = i == s.riichi
            width, depth = (h, w) if sideways else (w, h)
            plan.role = ("discard", p, i)
            plan.lying(code, x + width / 2, -(geo.discard_start + row * (h + gap) + depth / 2),
                       90.0 if sideways else 0.0, True, "discard")
            x += width + gap

    def _place_walls(self, truth: TableTruth, out: list) -> None:
        geo = self.geometry
        n_side = wall_slots(geo)
        ring = 4 * n_side
        stacks = min(truth.wall_tiles // 2, ring)
        start = self.key.integers("wall_start", ring)
        planners: dict[int, _StablePlanner] = {}
        for k in range(stacks):
            slot = (start + k) % ring
            side, j = divmod(slot, n_side)
            plan = planners.setdefault(side, self._planner(side, out))
            x = -geo.wall_outer + geo.h + geo.gap + (j + 0.5) * (geo.w + geo.gap)
            y = -(geo.wall_outer - geo.h / 2)
            plan.role = ("wall", side, slot, 0)
            plan.lying("bk", x, y, 0.0, False, "wall", layer=0)
            if 2 <= k < 2 + len(truth.dora):
                plan.role = ("dora", side, k - 2)
                plan.lying(truth.dora[k - 2], x, y, 0.0, True, "dora", layer=1)
            else:
                plan.role = ("wall", side, slot, 1)
                plan.lying("bk", x, y, 0.0, False, "wall", layer=1)

    def _cells(self) -> list[tuple[float, float]]:
        geo = self.geometry
        half = geo.wall_inner - 10.0
        cw, ch = geo.w + 6.0, geo.h + 6.0
        nx, ny = int(2 * half // cw), int(2 * half // ch)
        x0, y0 = -nx * cw / 2, -ny * ch / 2
        return [(x0 + (i + 0.5) * cw, y0 + (j + 0.5) * ch) for j in range(ny) for i in range(nx)]

    def _place_centre(self, codes: Sequence[str], ids: Sequence, out: list) -> None:
        """Hong Kong discards: each stays on the free spot of the centre where it landed (a loose grid, face
        up, either way round)."""
        if self._free_cells is None:
            self._free_cells = self._cells()
        present = set(ids)
        for key in [k for k in self._centre_spots if k not in present]:    # claimed tiles free their spot
            self._free_cells.append(self._centre_spots.pop(key)[:2])
        plan = self._planner(0, out)
        for k, (code, key) in enumerate(zip(codes, ids, strict=True)):
            spot = self._centre_spots.get(key)
            if spot is None:
                free = self._free_cells
                xy = free.pop(self.key.integers(("cell", key), len(free))) if free else (0.0, 0.0)
                spot = self._centre_spots[key] = (xy[0], xy[1], 180.0 * self.key.integers(("turn", key), 2))
            plan.role, plan.anchor = ("centre", -1, k), ("centre", key)
            plan.lying(code, spot[0], spot[1], spot[2], True, "scattered")
        plan.anchor = None


class _Labeller:
    """:func:`~datasets.table_scene.label_tiles` for successive frames of one camera: a tile that has not
    moved keeps its label (a standing hand is labelled as a whole, as label_tiles does)."""

    def __init__(self, camera, dims: TileDims) -> None:
        self.camera, self.dims = camera, dims
        self._cache: dict = {}

    def __call__(self, placements: Sequence[TablePlacement]) -> list[dict]:
        keys = [(tuple(p.role), p.code, p.face_up, p.center.tobytes(), p.R.tobytes()) for p in placements]
        hands: dict = {}
        for i, p in enumerate(placements):
            if p.role and p.role[0] == "hand":
                hands.setdefault(p.role[1], []).append(i)
        for idx in hands.values():   # a hand tile's label depends on its whole hand
            whole = tuple(keys[i] for i in idx)
            for j, i in enumerate(idx):
                keys[i] = (whole, j)
        need = [i for i, k in enumerate(keys) if k not in self._cache]
        if need:
            got = {need[lab["placement"]]: lab for lab in label_tiles([placements[i] for i in need], self.camera,
                                                                      self.dims)}
            for i in need:
                self._cache[keys[i]] = got.get(i)
        return [{**lab, "placement": i} for i, k in enumerate(keys) if (lab := self._cache[k]) is not None]


# --------------------------------------------------------------------------- the video


@dataclass
class Frame:
    """One settled state of the table: after script event ``event_index``."""

    index: int
    event_index: int
    truth: TableTruth
    placements: list
    labels: list[dict]
    image: np.ndarray | None = None


@dataclass
class HandVideo:
    variant: str
    seed: int
    events: list                  # the script (engine events, dealer-relative seats)
    states: list                  # the state after each event
    positions: list[int]          # occupied table positions
    dealer: int                   # the dealer's (East's) position
    camera: int                   # the camera player's position
    frames: list[Frame]
    layout: StableLayout
    camera_model: Camera
    view: str
    look_seed: int | None = None  # the seed of the camera and rendering when not ``seed``

    @property
    def dims(self) -> TileDims:
        return self.layout.dims

    @property
    def order(self) -> list[int]:
        """Positions in turn order from the dealer (index = engine seat)."""
        return _turn_order(self.positions, self.dealer)

    def seat_of(self, position: int) -> int:
        return self.order.index(position)

    @property
    def camera_seat(self) -> int:
        return self.seat_of(self.camera)

    def camera_log(self) -> list:
        """The script as the camera sees it (:func:`camera_log`)."""
        return camera_log(self.events, self.camera_seat, self.states)

    def calibration(self):
        """The camera's calibration, as ``eval-reconstruction`` uses it (``--calibration camera``)."""
        from vision.calibration import from_camera

        c = self.camera_model
        return from_camera(c.K, c.R, c.t, (c.width, c.height))

    def scene(self, frame: Frame) -> TableScene:
        return TableScene(frame.truth, frame.placements, self.layout.geometry, self.dims, self.camera_model,
                          self.view, frame.labels, frame.image)

    def render(self, frame: Frame, art=None) -> np.ndarray:
        """The frame's image (the same tile set, light and camera noise pattern in every frame)."""
        from .table_scene import render_scene

        if frame.image is None:
            look = self.seed if self.look_seed is None else self.look_seed
            frame.image, _ = render_scene(self.scene(frame), np.random.default_rng([look, 7]), art)
        return frame.image


def seating(players: int, seed: int) -> tuple[list[int], int, dict[int, str]]:
    """Where the players of hand ``seed`` sit: the occupied positions (three players leave one of 1-3
    empty), the dealer's position and how each hand is held (``standing`` or ``face_down``; the camera
    player's lies face up)."""
    rng = np.random.default_rng([seed, 2])
    positions = [0, 1, 2, 3]
    if players == 3:
        positions.remove(int(rng.integers(1, 4)))
    dealer = int(rng.choice(positions))
    modes = {p: str(rng.choice(["standing", "face_down"], p=[0.7, 0.3])) for p in positions}
    return positions, dealer, modes


def _shots(events, states, positions, dealer, camera, modes) -> list[tuple[int, TableTruth, list]]:
    """(event index, table truth, centre tile identities) of every state that shows on the table."""
    phys = _Physical()
    shots: list[tuple[int, TableTruth, list]] = []
    for i, ev in enumerate(events):
        phys = phys.after(ev, states[i - 1] if i else None, states[i])
        if ev.type in INVISIBLE:
            continue
        truth, ids = table_truth(states[i], phys, positions, dealer, camera, modes)
        if shots and truth == shots[-1][1]:
            continue
        shots.append((i, truth, ids))
    return shots


def _film(shots, layout: StableLayout, cam, dims: TileDims) -> list[Frame]:
    labeller = _Labeller(cam, dims)
    frames = []
    for k, (i, truth, ids) in enumerate(shots):
        placements = layout.place(truth, ids)
        frames.append(Frame(k, i, truth, placements, labeller(placements)))
    return frames


def _tile_points(placed: Sequence[Sequence], dims: TileDims) -> np.ndarray:
    """The box corners of every tile placed in any frame (what a tightly framing camera must see)."""
    box = dims.corners()
    return np.concatenate([box @ p.R.T + p.center for ps in placed for p in ps])


def _peeked(frames: Sequence[Frame], camera: int) -> set[int]:
    """Positions whose concealed hand the camera sees face up while it is still hidden."""
    out = set()
    for f in frames:
        for lab in f.labels:
            role = lab["role"]
            if role[0] == "hand" and role[1] != camera and lab["code"] != "bk" and \
                    f.truth.seat(role[1]).hand_mode == "standing":
                out.add(role[1])
    return out


def generate_hand_video(variant: str, seed: int, *, view: str | None = None, width: int = 1280, height: int = 720,
                        short_wall: int | None = None, style: PlayStyle | None = None, render: bool = False,
                        art=None, jitter: float = 1.0, framing: str = "table",
                        look_seed: int | None = None, events: Sequence | None = None) -> HandVideo:
    """Play a hand of ``variant`` and film it: one frame per state that shows on the table (passes and
    riichi sticks change nothing the camera sees, and are left out). ``view``: ``seat`` or ``overhead``
    (random when None; both from the camera player's side), or ``top`` (straight down over the table's
    centre, the camera player at the bottom of the picture). ``framing``: ``table`` (the camera sees the
    whole table square) or ``tiles`` (it comes as close as every tile of the hand allows: bigger tiles).
    ``look_seed``: the seed of the tile size, camera and rendering (default ``seed``): the same hand filmed
    by another camera. ``events``: film this script (engine events, a deal first) instead of a hand played
    at random (the bundled demo of the web page)."""
    if framing not in ("table", "tiles"):
        raise ValueError(f"framing must be 'table' or 'tiles', not {framing!r}")
    from assistant.variants import get_variant

    v = get_variant(variant)
    if events is None:
        events, states = play_hand(v.name, seed, short_wall=short_wall, style=style)
    else:
        from assistant.play import apply

        events, states, state = list(events), [], None
        for ev in events:
            state = apply(state, ev)
            states.append(state)
    positions, dealer, modes = seating(v.players, seed)
    camera = 0
    look = seed if look_seed is None else int(look_seed)
    rng = np.random.default_rng([look, 1])
    shots = _shots(events, states, positions, dealer, camera, modes)
    dims = random_dims(rng)
    layout = StableLayout([s[1] for s in shots], dims, seed, jitter)
    half = layout.geometry.table_half
    pts = np.array([[x, y, z] for x in (-half, half) for y in (-half, half) for z in (0.0, dims.h)])
    start = 1.0
    if framing == "tiles":
        pts = _tile_points([layout.place(t, ids) for _, t, ids in shots], dims)
        start = 0.4
    view = view or str(rng.choice(VIEWS))
    cam = table_camera(view, rng, layout.geometry, width, height, points=pts, start=start)
    layout = StableLayout([s[1] for s in shots], dims, seed, jitter)     # a fresh one films (it keeps state)
    frames = _film(shots, layout, cam, dims)
    peeked = _peeked(frames, camera)
    if peeked:       # the camera would read those standing hands: those players keep their hands lying face down
        modes = {p: "face_down" if p in peeked else m for p, m in modes.items()}
        shots = _shots(events, states, positions, dealer, camera, modes)
        layout = StableLayout([s[1] for s in shots], dims, seed, jitter)
        frames = _film(shots, layout, cam, dims)
    video = HandVideo(v.name, seed, events, states, positions, dealer, camera, frames, layout, cam, view, look_seed)
    if render:
        for f in frames:
            video.render(f, art)
    return video


def frame_detections(video: HandVideo, frame: Frame, noise: float = 0.03, seed: int = 0) -> list[dict]:
    """Detector-like records of a frame from its labels (``eval-reconstruction --from-labels``): oriented
    boxes with ``noise`` x tile size of noise, backs turned at random; ``noise`` 0 keeps the exact quads."""
    from .table_scene import noisy_detections

    if not noise:
        return [{"code": lab["code"], "confidence": 1.0, "corners": lab["corners"], "face_up": lab["face_up"]}
                for lab in frame.labels]
    return noisy_detections(frame.labels, np.random.default_rng([video.seed, seed, frame.index]), sigma=noise)


__all__ = ["Frame", "HandVideo", "PlayStyle", "StableLayout", "camera_log", "frame_detections",
           "generate_hand_video", "play_hand", "seating", "table_truth"]
