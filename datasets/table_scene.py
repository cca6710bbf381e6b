"""Semantic table scenes: a legal-looking table state of one rule system, laid out and (optionally) rendered.

:func:`generate_table` draws a random table state from a rule system's tile set (copies, red fives, bonus
tiles and jokers respected): for each seat a concealed hand, melds in call order, a discard row (or, in Hong
Kong, discards scattered in the centre), bonus tiles and set-aside Norths, plus the dora indicators. Seats
are *positions* on the physical table: 0 = the near side (the camera player in a seat view), then
counter-clockwise (1 = right, 2 = across, 3 = left), which is also the turn order (rules README §3). Three-
player tables leave one of the positions 1-3 empty.

:func:`layout_table` places every tile with the :mod:`datasets.layout` primitives (seat frame ``x`` to the
player's right, ``d`` = distance from the table centre towards the player, world = ``Rz(90 * position)``):

* **hand** in one row (standing, lying face up or lying face down), centred; the drawn tile of the player to
  move sits apart at the right end;
* **melds** right of the hand, in call order from the right (first call rightmost), bottom edges on the
  hand row's player-side edge; the claimed tile lies sideways at the index given by its source: 4 players
  ``@1`` (previous, on the left) = leftmost, ``@2`` (across) = middle (second tile of a kong), ``@3`` (next,
  on the right) = rightmost; 3 players ``@1`` leftmost, ``@2`` (the next player) rightmost. The other tiles of
  a meld follow in ascending order of what they count as (so a Fei's place says what it stands for). An
  added kong's fourth tile lies sideways *beyond* the sideways tile (towards the centre, the way score sheets
  draw it "stacked"); a concealed kong shows two backs: ``bk X X bk``, in Hong Kong ``X bk bk X``;
* **bonus area** (flowers, seasons, animals, faces, sunk Fei, set-aside Norths) at the right end of the row,
  right of the melds;
* **discards** in rows of six, left to right from the player's view, the first row nearest the centre and
  later rows towards the player (the third row runs on); the riichi tile lies sideways, its far edge on the
  row's far edge. Hong Kong discards lie scattered, unordered, anywhere inside the wall square;
* **walls** of two-high face-down stacks around the centre (each side's wall runs from just past the left
  neighbour's wall to the corner on its right); riichi's dead wall holds the dora indicators face up on the
  top layer, from the third stack on, left to right from the wall owner's view.

:func:`label_tiles` gives per-tile labels without rendering (visible side, image corners TL, TR, BR, BL of
the face as it reads upright, face_up, rotation, table-plane position), :func:`render_scene` renders through
:mod:`datasets.scene`'s renderer, and :func:`generate_table_scene` ties it together with a camera that sees
the whole table.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from assistant.variants import variant_names

from .camera import Camera, rot_z
from .layout import Placement, SeatPlanner, TileDims

VIEWS = ("overhead", "seat", "oblique")
RULE_SYSTEMS = tuple(variant_names())


def _cross2(a, b):
    """z of the cross product of 2-D vectors (rows)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# --------------------------------------------------------------------------- ground truth


@dataclass
class MeldTruth:
    """One shown set. ``tiles`` are the physical tiles left to right from the owner's view."""

    type: str                      # chow, pong, kong
    tiles: list[str]               # physical codes (jk included), layout order
    stands_for: list[str]          # what each tile counts as
    face_up: list[bool]            # False for the backs of a concealed kong
    sideways: int | None           # index of the sideways (claimed) tile
    source: int | None             # seats back in turn order the claimed tile came from (@k)
    added: str | None = None       # the added tile of an added kong (lies beyond the sideways tile)
    concealed: bool = False
    notation: str = ""


@dataclass
class SeatTruth:
    position: int                  # physical side: 0 near, 1 right, 2 across, 3 left
    hand: list[str]                # concealed tiles, left to right from the player's view
    hand_mode: str                 # standing, face_up, face_down
    drawn: bool                    # the last hand tile is a freshly drawn tile set apart
    melds: list[MeldTruth] = field(default_factory=list)  # in call order (first call first)
    discards: list[str] = field(default_factory=list)     # in order (empty in Hong Kong)
    riichi: int | None = None      # index into discards of the sideways riichi tile
    bonus: list[str] = field(default_factory=list)        # flowers, seasons, animals, faces, sunk Fei
    norths: list[str] = field(default_factory=list)       # sanma: Norths set aside (kita)


@dataclass
class TableTruth:
    variant: str
    players: int
    seats: list[SeatTruth]         # in turn order (increasing position)
    dora: list[str] = field(default_factory=list)         # dora indicators in reveal order
    centre_discards: list[str] = field(default_factory=list)  # Hong Kong: every discard, unordered
    wall_tiles: int = 0            # tiles left in the walls (face down)

    def seat(self, position: int) -> SeatTruth | None:
        return next((s for s in self.seats if s.position == position), None)

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------- tile pool


def _code(kind: int, red: bool = False) -> str:
    from assistant.tiles import Tile

    return Tile(kind, red).code


def full_set(variant) -> list[str]:
    """Every physical tile of the rule system's set as codes (red fives replace plain fives)."""
    out = []
    for kind, n in sorted(variant.copies.items()):
        red = int(variant.red_fives.get(kind, 0))
        out += ([_code(kind, True)] * red if red else []) + [_code(kind)] * (n - red)
    return out


def _plain(code: str) -> str:
    return "5" + code[1] if code[0] == "0" else code


def _kind(code: str) -> int:
    from assistant.tiles import Tile

    return Tile.from_code(code).kind


def is_bonus_code(code: str) -> bool:
    return len(code) == 2 and code[1] in "fgah"


class _Pool:
    """The undealt tiles; draws remove them, so no kind is used more often than the set holds."""

    def __init__(self, codes: list[str], rng: np.random.Generator):
        self.codes = list(codes)
        rng.shuffle(self.codes)
        self.rng = rng

    def count(self, pred) -> int:
        return sum(1 for c in self.codes if pred(c))

    def take(self, pred) -> str | None:
        idx = [i for i, c in enumerate(self.codes) if pred(c)]
        if not idx:
            return None
        return self.codes.pop(idx[int(self.rng.integers(len(idx)))])

    def take_code(self, code: str) -> str | None:
        """One tile of ``code``'s kind, preferring the exact code (red fives are drawn like plain fives)."""
        exact = [i for i, c in enumerate(self.codes) if c == code]
        same = [i for i, c in enumerate(self.codes) if _plain(c) == _plain(code)]
        idx = same if not exact or self.rng.random() < 0.5 else exact
        if not idx:
            return None
        return self.codes.pop(idx[int(self.rng.integers(len(idx)))])

    def plain_count(self, code: str) -> int:
        return sum(1 for c in self.codes if _plain(c) == _plain(code))


def _playing(code: str) -> bool:
    return code != "jk" and not is_bonus_code(code)


# --------------------------------------------------------------------------- meld sampling


def sideways_index(source: int, size: int, players: int) -> int:
    """Index of the sideways tile in a meld of ``size`` tiles claimed from ``source`` seats back."""
    if source == 1:
        return 0
    if players == 4 and source == 2:
        return 1
    return size - 1


def source_of_sideways(index: int, size: int, players: int) -> int | None:
    """Inverse of :func:`sideways_index` (None for an index no source gives)."""
    for source in range(1, players):
        if sideways_index(source, size, players) == index:
            return source
    return None


def _notation(meld: MeldTruth) -> str:
    from assistant.hand import make_meld
    from assistant.tiles import Tile

    tiles = [Tile.from_code(c) for c in meld.tiles]
    stands = [Tile.from_code(c) for c in meld.stands_for]
    if meld.added:
        tiles.append(Tile.from_code(meld.added))
        stands.append(Tile.from_code(meld.added))
    m = make_meld(tiles, stands, concealed=meld.concealed, added=bool(meld.added), source=meld.source)
    return m.format()


def _order_meld(claimed: tuple[str, str], others: list[tuple[str, str]], side: int) -> list[tuple[str, str]]:
    """The claimed tile at ``side``, the other (code, stands_for) pairs in ascending order of stands_for."""
    from assistant.tiles import Tile, sort_key

    rest = sorted(others, key=lambda p: (sort_key(Tile.from_code(p[1])), p[0] == "jk"))
    rest.insert(side, claimed)
    return rest


def _sample_meld(kind: str, variant, pool: _Pool, rng: np.random.Generator, players: int) -> MeldTruth | None:
    chow_suits = variant.chow_suits
    jokers = variant.has_jokers
    if kind == "chow":
        if not chow_suits:
            return None
        for _ in range(20):
            suit = str(rng.choice(list(chow_suits)))
            start = int(rng.integers(1, 8))
            ranks = [start, start + 1, start + 2]
            codes = [f"{r}{suit}" for r in ranks]
            use_jk = jokers and rng.random() < 0.25 and pool.count(lambda c: c == "jk") > 0
            claimed_at = int(rng.integers(3))
            jk_at = int(rng.choice([i for i in range(3) if i != claimed_at])) if use_jk else -1
            if any(pool.plain_count(c) < 1 for i, c in enumerate(codes) if i != jk_at):
                continue
            taken = [pool.take_code(c) if i != jk_at else pool.take(lambda x: x == "jk") for i, c in enumerate(codes)]
            claimed = (taken[claimed_at], _plain(taken[claimed_at]))
            others = [(taken[i], codes[i]) for i in range(3) if i != claimed_at]
            order = _order_meld(claimed, others, 0)
            m = MeldTruth("chow", [c for c, _ in order], [s for _, s in order], [True] * 3, 0, 1)
            m.notation = _notation(m)
            return m
        return None
    size = 3 if kind in ("pong", "added_kong") else 4
    need = 4 if kind in ("open_kong", "added_kong", "closed_kong") else 3
    use_jk = kind == "pong" and jokers and rng.random() < 0.2 and pool.count(lambda c: c == "jk") > 0
    candidates = sorted({_plain(c) for c in pool.codes if _playing(c)
                         and pool.plain_count(c) >= (need - (1 if use_jk else 0))})
    if not candidates:
        return None
    base = candidates[int(rng.integers(len(candidates)))]
    taken = [pool.take_code(base) for _ in range((need - 1) if use_jk else need)]
    if use_jk:
        taken.append(pool.take(lambda x: x == "jk"))
    if kind == "closed_kong":
        faces = [True, False, False, True] if variant.name == "hong-kong" else [False, True, True, False]
        m = MeldTruth("kong", taken, [_plain(c) for c in taken], faces, None, None, concealed=True)
        m.notation = _notation(m)
        return m
    source = int(rng.integers(1, players))
    side = sideways_index(source, size, players)
    added = None
    if kind == "added_kong":
        added = taken.pop()
    real = [c for c in taken if c != "jk"]
    claimed = real[int(rng.integers(len(real)))]
    taken.remove(claimed)
    others = [(c, base if c == "jk" else _plain(c)) for c in taken]
    order = _order_meld((claimed, _plain(claimed)), others, side)
    mtype = "pong" if kind in ("pong", "added_kong") else "kong"
    m = MeldTruth("kong" if added else mtype, [c for c, _ in order], [s for _, s in order],
                  [True] * len(order), side, source, added=added)
    m.notation = _notation(m)
    return m


# --------------------------------------------------------------------------- table state


def generate_table(variant, rng: np.random.Generator, empty_position: int | None = None) -> TableTruth:
    """A random, legal-looking table state of ``variant`` (a RuleSystem or its name)."""
    from assistant.tiles import Tile, sort_key
    from assistant.variants import get_variant

    v = get_variant(variant) if isinstance(variant, str) else variant
    players = v.players
    positions = [0, 1, 2, 3]
    if players == 3:
        positions.remove(int(rng.integers(1, 4)) if empty_position is None else empty_position)
    pool = _Pool(full_set(v), rng)
    hk = v.name == "hong-kong"
    calls = v.calls
    meld_kinds, weights = [], []
    for k, w in (("chow", 0.35), ("pong", 0.4), ("open_kong", 0.08), ("added_kong", 0.08), ("closed_kong", 0.09)):
        call = {"chow": "chow", "pong": "pong", "open_kong": "open_kong", "added_kong": "added_kong",
                "closed_kong": "closed_kong"}[k]
        if call in calls:
            meld_kinds.append(k)
            weights.append(w)
    weights = np.array(weights) / sum(weights)
    turns = int(rng.integers(0, 19))  # discards per seat, roughly
    to_move = int(rng.integers(players))
    seats: list[SeatTruth] = []
    n_kongs = 0
    for i, pos in enumerate(positions):
        n_melds = int(rng.choice([0, 1, 2, 3, 4], p=[0.38, 0.27, 0.19, 0.11, 0.05]))
        melds = []
        for _ in range(n_melds):
            kind = str(rng.choice(meld_kinds, p=weights))
            if "kong" in kind and n_kongs >= 4:
                kind = "pong"
            m = _sample_meld(kind, v, pool, rng, players)
            if m is not None:
                melds.append(m)
                n_kongs += m.type == "kong"
        drawn = i == to_move
        n_hand = 13 - 3 * len(melds) + (1 if drawn else 0)
        hand = [pool.take(lambda c: _playing(c) or (c == "jk")) for _ in range(n_hand)]
        hand = [c for c in hand if c is not None]
        body = hand[:-1] if drawn else hand
        body.sort(key=lambda c: sort_key(Tile.from_code(c)))
        if rng.random() < 0.15 and len(body) > 2:  # some players do not sort
            a, b = rng.choice(len(body), 2, replace=False)
            body[a], body[b] = body[b], body[a]
        hand = body + ([hand[-1]] if drawn else [])
        mode = str(rng.choice(["standing", "face_up", "face_down"], p=[0.8, 0.12, 0.08]))
        seats.append(SeatTruth(pos, hand, mode, drawn, melds))
    # the dead wall / reserve is never drawn: keep it out of the pool while discards are drawn
    reserve = [pool.codes.pop() for _ in range(min(len(pool.codes), int(v.dead_wall)))]
    dora = []
    if v.name == "sanma":
        dora = reserve[:1 + n_kongs]
    # bonus tiles, Norths, discards
    for s in seats:
        if v.bonus_kinds:
            for _ in range(int(rng.choice([0, 1, 2, 3, 4], p=[0.35, 0.3, 0.2, 0.1, 0.05]))):
                t = pool.take(is_bonus_code)
                if t:
                    s.bonus.append(t)
        if v.has_jokers and rng.random() < 0.25:
            t = pool.take(lambda c: c == "jk")
            if t:
                s.bonus.append(t)  # a sunk Fei
        if "kita" in calls:
            for _ in range(int(rng.choice([0, 1, 2], p=[0.6, 0.3, 0.1]))):
                t = pool.take(lambda c: c == "4z")
                if t:
                    s.norths.append(t)
        n_disc = max(0, min(21, turns + int(rng.integers(-1, 2))))
        discards = [pool.take(_playing) for _ in range(n_disc)]
        s.discards = [c for c in discards if c is not None]
        if "riichi" in calls and s.discards and not any(not m.concealed for m in s.melds) and rng.random() < 0.35:
            s.riichi = int(rng.integers(len(s.discards)))
    centre = []
    if hk:
        for s in seats:
            centre += s.discards
            s.discards = []
        centre = centre[:40]
    return TableTruth(v.name, players, seats, dora, centre, wall_tiles=len(pool.codes) + len(reserve))


# --------------------------------------------------------------------------- layout


@dataclass
class TablePlacement(Placement):
    """A placement with its place in the table state: ``role`` = (part, seat position, index, sub-index)."""

    role: tuple = ()


class _Planner(SeatPlanner):
    """A SeatPlanner that records :class:`TablePlacement` with the current role."""

    role: tuple = ()

    def _add(self, code, R_seat, x, y, base_z, zone, face_up):
        R = self.world @ R_seat
        lowest = float((self.dims.corners() @ R.T)[:, 2].min())
        center = self.world @ np.array([x, y, 0.0])
        center[2] = base_z - lowest
        p = TablePlacement(code, R, center, zone, self.seat, face_up, role=self.role)
        self.out.append(p)
        return p

    def _jitter(self, pos: float = 0.4, yaw: float = 1.2):
        return (float(self.rng.normal(0, pos * self.jitter)), float(self.rng.normal(0, pos * self.jitter)),
                float(self.rng.normal(0, yaw * self.jitter)))

    jitter: float = 1.0


@dataclass
class TableGeometry:
    """Distances of one table (mm): tile size, gap, discard start, wall, hand rows, table half-size."""

    w: float
    h: float
    t: float
    gap: float
    discard_start: float
    wall_outer: float
    table_half: float
    row_edge: dict = field(default_factory=dict)  # position -> player-side edge of the hand row (d)

    @property
    def wall_inner(self) -> float:
        return self.wall_outer - self.h


def _row_plan(seat: SeatTruth, geo: TableGeometry, rng: np.random.Generator) -> list[tuple]:
    """(x_center, item) for the melds and bonus row right of the hand, right to left."""
    d = geo
    x = geo.table_half - float(rng.uniform(8, 25))
    items = []
    bonus = seat.bonus + seat.norths
    for k, code in enumerate(reversed(bonus)):
        x -= d.w / 2
        items.append(("bonus", len(bonus) - 1 - k, code, x))
        x -= d.w / 2 + d.gap
    if bonus:
        x -= float(rng.uniform(0.3, 0.6)) * d.w
    for mi, meld in enumerate(seat.melds):
        for ti in reversed(range(len(meld.tiles))):
            width = d.h if ti == meld.sideways else d.w
            x -= width / 2
            items.append(("meld", mi, ti, x))
            x -= width / 2 + d.gap
        x -= float(rng.uniform(0.2, 0.5)) * d.w
    return items, x


def layout_table(truth: TableTruth, dims: TileDims, rng: np.random.Generator, jitter: float = 1.0
                 ) -> tuple[list[TablePlacement], TableGeometry]:
    """World placements of every tile of ``truth`` (see the module docstring for the conventions)."""
    w, h, t = dims.w, dims.h, dims.t
    gap = float(rng.uniform(0.3, 1.0))
    stride = w + gap
    a = 3 * stride + float(rng.uniform(6, 16))
    rows_end = a + 3 * (h + gap)
    W = max(rows_end + float(rng.uniform(10, 22)) + h, 9 * stride + h / 2 + 2)
    geo = TableGeometry(w, h, t, gap, a, W, 0.0)
    # hand rows: far enough from the wall for the melds (an added tile sticks out beyond the sideways one)
    for s in truth.seats:
        has_added = any(m.added for m in s.melds)
        far = 2 * w + gap if has_added else h
        natural = W + float(rng.uniform(30, 50)) + (t if s.hand_mode == "standing" else h)
        geo.row_edge[s.position] = max(natural, W + 8 + far)
    geo.table_half = max(geo.row_edge.values()) + float(rng.uniform(40, 90))
    # every row (hand, melds, bonus) must fit between the left neighbour's corner and the right edge
    for s in truth.seats:
        length = (len(s.hand) + 0.6) * stride + 1.8 * w + (len(s.bonus) + len(s.norths) + 0.6) * stride
        length += sum(len(m.tiles) * stride + (h - w if m.sideways is not None else 0) + 0.5 * w for m in s.melds)
        geo.table_half = max(geo.table_half, length - W + 0.6 * w + 25)
    out: list[TablePlacement] = []
    for s in truth.seats:
        plan = _Planner(s.position, dims, rng, out)
        plan.jitter = jitter
        edge = geo.row_edge[s.position]
        items, left_of_melds = _row_plan(s, geo, rng)
        delta = float(rng.uniform(0, 6))
        for kind, i, j, x in items:
            if kind == "bonus":
                plan.role = ("bonus", s.position, i)
                code = j
                plan.lying(code, x, -(edge + delta - h / 2), 0.0, True, "meld")
                continue
            meld = s.melds[i]
            code, up = meld.tiles[j], meld.face_up[j]
            plan.role = ("meld", s.position, i, j)
            if j == meld.sideways:
                plan.lying(code, x, -(edge + delta - w / 2), 90.0, True, "meld")
                if meld.added:
                    plan.role = ("meld", s.position, i, "added")
                    plan.lying(meld.added, x, -(edge + delta - w - gap - w / 2), 90.0, True, "meld")
            else:
                plan.lying(code, x, -(edge + delta - h / 2), 0.0, up, "meld")
        # hand
        n = len(s.hand)
        length = n * stride + (0.6 * w if s.drawn else 0.0)
        x0 = min(-length / 2 + float(rng.normal(0, 8)), left_of_melds - float(rng.uniform(1.0, 1.8)) * w - length)
        tilt = float(rng.uniform(0, 12))
        for k, code in enumerate(s.hand):
            x = x0 + (k + 0.5) * stride + (0.6 * w if s.drawn and k == n - 1 else 0.0)
            plan.role = ("hand", s.position, k)
            if s.hand_mode == "standing":
                plan.standing(code, x, -(edge - t / 2), "hand", tilt)
            else:
                plan.lying(code, x, -(edge - h / 2), 0.0, s.hand_mode == "face_up", "hand")
        # discards
        x_left = -3 * stride + float(rng.normal(0, 2))
        x = x_left
        for k, code in enumerate(s.discards):
            row = min(k // 6, 2)
            if k % 6 == 0 and k < 18:
                x = x_left
            sideways = k == s.riichi
            width = h if sideways else w
            depth = w if sideways else h
            d_far = a + row * (h + gap)
            plan.role = ("discard", s.position, k)
            plan.lying(code, x + width / 2, -(d_far + depth / 2), 90.0 if sideways else 0.0, True, "discard")
            x += width + gap
    _place_walls(truth, geo, dims, rng, out, jitter)
    if truth.centre_discards:
        _place_centre(truth, geo, dims, rng, out, jitter)
    return out, geo


def wall_slots(geo: TableGeometry) -> int:
    """Stacks per side: each wall runs from just past its left neighbour's wall to the corner on its right."""
    return int((2 * geo.wall_outer - geo.h - geo.gap) // (geo.w + geo.gap))


def _place_walls(truth: TableTruth, geo: TableGeometry, dims: TileDims, rng, out, jitter) -> None:
    n_side = wall_slots(geo)
    ring = 4 * n_side
    stacks = min(truth.wall_tiles // 2, ring)
    start = int(rng.integers(ring))
    codes = ["bk"] * (2 * stacks)  # the codes of wall tiles are never seen
    dora = list(truth.dora)
    planners = {}
    for k in range(stacks):
        slot = (start + k) % ring
        side, j = divmod(slot, n_side)
        if side not in planners:
            planners[side] = _Planner(side, dims, rng, out)
            planners[side].jitter = jitter
        plan = planners[side]
        x = -geo.wall_outer + geo.h + geo.gap + (j + 0.5) * (geo.w + geo.gap)
        y = -(geo.wall_outer - geo.h / 2)
        plan.role = ("wall", side, slot, 0)
        plan.lying(codes[2 * k], x, y, 0.0, False, "wall", layer=0)
        is_dora = bool(truth.dora) and 2 <= k < 2 + len(dora)
        if is_dora:
            plan.role = ("dora", side, k - 2)
            plan.lying(dora[k - 2], x, y, 0.0, True, "dora", layer=1)
        else:
            plan.role = ("wall", side, slot, 1)
            plan.lying(codes[2 * k + 1], x, y, 0.0, False, "wall", layer=1)


def _place_centre(truth: TableTruth, geo: TableGeometry, dims: TileDims, rng, out, jitter) -> None:
    """Hong Kong discards: scattered inside the wall square, any yaw, not overlapping."""
    half = geo.wall_inner - 12.0 - dims.h / 2
    sep = math.hypot(dims.w, dims.h) + 1.0
    placed: list[np.ndarray] = []
    plan = _Planner(0, dims, rng, out)
    plan.jitter = jitter
    kept = []
    for code in truth.centre_discards:
        for _ in range(60):
            xy = rng.uniform(-half, half, 2)
            if all(np.linalg.norm(xy - p) > sep for p in placed):
                placed.append(xy)
                plan.role = ("centre", -1, len(kept))
                plan.lying(code, float(xy[0]), float(xy[1]), float(rng.uniform(0, 360)), True, "scattered")
                kept.append(code)
                break
    truth.centre_discards = kept


# --------------------------------------------------------------------------- camera


def _fits(camera: Camera, pts: np.ndarray, margin: float) -> bool:
    uv, depth = camera.project(pts)
    if depth.min() < 50:
        return False
    return bool(np.all((uv >= margin) & (uv <= [camera.width - 1 - margin, camera.height - 1 - margin])))


def table_camera(view: str, rng: np.random.Generator, geo: TableGeometry, width: int, height: int,
                 points: np.ndarray | None = None, margin: float = 8.0, start: float = 1.0) -> Camera:
    """A camera of ``view`` that sees every point of ``points`` (default: the whole table square).

    Each random pose starts at ``start`` times its usual distance and backs off until everything fits: a
    ``start`` below 1 frames the points tightly (the camera comes as close as they allow)."""
    half = geo.table_half
    if points is None:
        points = np.array([[x, y, 0.0] for x in (-half, half) for y in (-half, half)])
    cam = None
    for _ in range(40):
        make, dist = _camera_maker(view, rng, width, height)
        dist *= start
        for _ in range(30 + int(round(max(0.0, -math.log(start)) / math.log(1.08)))):
            cam = make(dist)
            if _fits(cam, points, margin):
                return cam
            dist *= 1.08
    return cam


def _camera_maker(view: str, rng: np.random.Generator, width: int, height: int):
    """(camera at distance d, starting distance) for one random pose of ``view``."""
    if view == "top":   # straight down over the table's centre, the camera player's side at the bottom
        hfov = float(rng.uniform(50, 65))

        def make(d):
            return Camera.look_at(np.array([0.0, 0.0, d]), np.zeros(3), np.array([0.0, 1.0, 0.0]), hfov, width, height)
        return make, float(rng.uniform(900, 1200))
    if view == "overhead":
        target = np.array([rng.normal(0, 30), rng.normal(0, 30), 0.0])
        offset = np.array([rng.normal(0, 60), rng.normal(0, 60), 0.0])
        hfov = float(rng.uniform(50, 75))
        up = rot_z(float(rng.uniform(0, 360))) @ np.array([0.0, 1.0, 0.0])
        dist = float(rng.uniform(900, 1200))

        def make(d):
            return Camera.look_at(target + offset * d / 1000 + np.array([0, 0, d]), target, up, hfov, width, height)
        return make, dist
    if view == "seat":
        hfov = float(rng.uniform(65, 85))
        elev = math.radians(float(rng.uniform(38, 58)))
        tx, ty = float(rng.normal(0, 30)), float(rng.uniform(-60, 40))
        roll = float(rng.normal(0, 2))
        dist = float(rng.uniform(650, 800))

        def make(d):
            eye = np.array([tx, ty - d * math.cos(elev), d * math.sin(elev)])
            return Camera.look_at(eye, np.array([tx, ty, 0.0]), np.array([0.0, 0, 1]), hfov, width, height, roll)
        return make, dist
    azimuth = math.radians(float(rng.uniform(0, 360)))
    elev = math.radians(float(rng.uniform(45, 72)))
    target = np.array([rng.normal(0, 40), rng.normal(0, 40), 0.0])
    hfov = float(rng.uniform(45, 70))
    roll = float(rng.normal(0, 3))
    dist = float(rng.uniform(800, 1100))

    def make(d):
        direction = np.array([math.cos(azimuth) * math.cos(elev), math.sin(azimuth) * math.cos(elev), math.sin(elev)])
        return Camera.look_at(target + d * direction, target, np.array([0.0, 0, 1]), hfov, width, height, roll)
    return make, dist


# --------------------------------------------------------------------------- labels without rendering


def _face_corners(p: Placement, dims: TileDims, face: int) -> np.ndarray:
    from .render import BOX_FACES

    corners = dims.corners() @ p.R.T + p.center
    return corners[list(BOX_FACES[face])]


def label_tiles(placements: list[TablePlacement], camera: Camera, dims: TileDims, min_cos: float = 0.25,
                min_area_px: float = 40.0) -> list[dict]:
    """Per-tile labels by projection (no rendering): the visible side, corners TL, TR, BR, BL of the face as
    it reads upright, face_up, rotation, the table-plane position of the tile (mm) and its role.

    A side is visible when it faces the camera at more than ``acos(min_cos)`` from grazing and covers at
    least ``min_area_px``; a lying tile with another tile on top of it is hidden.
    """
    from .scene import quad_rotation

    eye = camera.position
    centres = np.array([p.center for p in placements]) if placements else np.zeros((0, 3))

    def side_seen(p):
        normal = p.R @ np.array([0.0, 0.0, 1.0])
        for face, n in ((0, normal), (1, -normal)):
            quad3 = _face_corners(p, dims, face)
            view = eye - quad3.mean(0)
            if float(n @ view / np.linalg.norm(view)) > min_cos:
                return face
        return None

    # a standing hand is seen as a whole or not at all: its middle tile decides
    hand_face = {}
    for seat in {p.role[1] for p in placements if p.role and p.role[0] == "hand"}:
        tiles = [p for p in placements if p.role and p.role[0] == "hand" and p.role[1] == seat]
        mid = tiles[len(tiles) // 2]
        if abs(float((mid.R @ np.array([0.0, 0, 1]))[2])) < 0.7:   # standing
            hand_face[seat] = side_seen(mid)
    labels = []
    for i, p in enumerate(placements):
        if p.role and p.role[0] == "hand" and p.role[1] in hand_face:
            face = hand_face[p.role[1]]
        else:
            face = side_seen(p)
        if face is None:
            continue
        quad3 = _face_corners(p, dims, face)
        normal = p.R @ np.array([0.0, 0.0, 1.0])
        n = normal if face == 0 else -normal
        if n[2] > 0.7:  # lying, this side up: hidden under a tile on top of it
            near = np.linalg.norm(centres[:, :2] - p.center[:2], axis=1) < 0.45 * dims.w
            if np.any(near & (centres[:, 2] > p.center[2] + 0.5 * dims.t)):
                continue
        uv, depth = camera.project(quad3)
        if depth.min() <= 30:
            continue
        area = 0.5 * abs(float(_cross2(uv[2] - uv[0], uv[3] - uv[1])))
        if area < min_area_px:
            continue
        inside = bool(np.all((uv >= -0.5) & (uv <= [camera.width - 0.5, camera.height - 0.5])))
        if not inside:
            continue
        code = p.code if face == 0 else "bk"
        rotation, angle = quad_rotation(uv)
        labels.append({"code": code, "corners": uv.round(2).tolist(), "face_up": face == 0, "rotation": rotation,
                       "angle": round(angle, 2),
                       "table_xy": [round(float(p.center[0]), 2), round(float(p.center[1]), 2)],
                       "zone": p.zone, "seat": p.seat, "role": list(p.role), "placement": i})
    return labels


def quad_to_obb(q: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """Centre, face width, face height and up angle (degrees clockwise from image-up) of a quad TL, TR, BR, BL:
    the oriented box a detector predicts (same as ``vision.geometry.quad_to_obb``)."""
    q = np.asarray(q, np.float64)
    up = (q[0] + q[1]) / 2 - (q[3] + q[2]) / 2
    w = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    return q.mean(0), float(w), float(np.linalg.norm(up)), math.degrees(math.atan2(up[0], -up[1])) % 360.0


def obb_corners(c: np.ndarray, w: float, h: float, theta: float) -> np.ndarray:
    t = math.radians(theta)
    up = np.array([math.sin(t), -math.cos(t)])
    right = np.array([math.cos(t), math.sin(t)])
    return np.array([c - right * w / 2 + up * h / 2, c + right * w / 2 + up * h / 2,
                     c + right * w / 2 - up * h / 2, c - right * w / 2 - up * h / 2])


def noisy_detections(labels: list[dict], rng: np.random.Generator, sigma: float = 0.03, obb: bool = True,
                     back_flip: bool = True) -> list[dict]:
    """Detector-like records from labels. With ``obb`` (the default) the quad becomes the detector's
    oriented box (centre, width, height, up angle) with noise: centre ``sigma`` x the tile's pixel size,
    width and height ``sigma`` relative, angle ``sigma`` radians; without it, every corner gets noise.
    Backs are turned by 180 degrees at random (a back has no up). Codes are kept."""
    from .scene import quad_rotation

    out = []
    for lab in labels:
        q = np.asarray(lab["corners"], np.float64)
        size = math.sqrt(max(1.0, 0.5 * abs(float(_cross2(q[2] - q[0], q[3] - q[1])))))
        if obb:
            c, w, h, theta = quad_to_obb(q)
            c = c + rng.normal(0, sigma * size, 2)
            w *= 1 + rng.normal(0, sigma)
            h *= 1 + rng.normal(0, sigma)
            theta += math.degrees(rng.normal(0, sigma))
            q = obb_corners(c, w, h, theta)
        else:
            q = q + rng.normal(0, sigma * size * 0.5, 2) + rng.normal(0, sigma * size * 0.5 + 0.2, (4, 2))
        if back_flip and lab["code"] == "bk" and rng.random() < 0.5:
            q = np.roll(q, 2, axis=0)
        rotation, angle = quad_rotation(q)
        out.append({"code": lab["code"], "confidence": 1.0, "corners": q.tolist(), "face_up": lab["face_up"],
                    "rotation": rotation, "angle": round(angle, 2)})
    return out


# --------------------------------------------------------------------------- scene


@dataclass
class TableScene:
    truth: TableTruth
    placements: list[TablePlacement]
    geometry: TableGeometry
    dims: TileDims
    camera: Camera
    view: str
    labels: list[dict]
    image: np.ndarray | None = None

    @property
    def homography(self) -> np.ndarray:
        """Image -> table plane (z = 0, mm, origin at the table centre, seat 0 at -y)."""
        return np.linalg.inv(self.camera.plane_homography())

    def homography_at(self, z: float) -> np.ndarray:
        """Image -> the horizontal plane at height ``z`` (a lying tile's face is at z = thickness)."""
        c = self.camera
        return np.linalg.inv(c.K @ np.column_stack([c.R[:, 0], c.R[:, 1], c.R[:, 2] * z + c.t]))

    def to_dict(self) -> dict:
        """Plain structure: table state, per-tile labels, image -> table homography (z = 0) and metadata."""
        return {"truth": self.truth.to_dict(), "labels": self.labels,
                "homography": np.round(self.homography / self.homography[2, 2], 9).tolist(), "meta": self.meta()}

    def meta(self) -> dict:
        return {"variant": self.truth.variant, "players": self.truth.players, "view": self.view,
                "tile_mm": [round(self.dims.w, 2), round(self.dims.h, 2), round(self.dims.t, 2)],
                "table_half_mm": round(self.geometry.table_half, 1),
                "wall_outer_mm": round(self.geometry.wall_outer, 1),
                "camera_position_mm": [round(float(v), 1) for v in self.camera.position],
                "image_size": [self.camera.width, self.camera.height]}


def random_dims(rng: np.random.Generator) -> TileDims:
    w = float(rng.uniform(23, 30))
    return TileDims(w, w * float(rng.uniform(1.3, 1.42)), w * float(rng.uniform(0.6, 0.85)))


def generate_table_scene(variant: str, seed: int, view: str | None = None, width: int = 1280, height: int = 720,
                         render: bool = False, art=None, jitter: float = 1.0) -> TableScene:
    """A table state of ``variant``, laid out, seen by a camera of ``view`` (random when None) that sees
    the whole table; labels by projection, and the rendered image when ``render``."""
    rng = np.random.default_rng(seed)
    truth = generate_table(variant, rng)
    dims = random_dims(rng)
    placements, geo = layout_table(truth, dims, rng, jitter)
    drawn = str(rng.choice(VIEWS, p=[0.4, 0.35, 0.25]))
    view = view or drawn
    pts = np.array([c for p in placements for c in (dims.corners() @ p.R.T + p.center)])
    camera = table_camera(view, rng, geo, width, height, points=pts)
    scene = TableScene(truth, placements, geo, dims, camera, view, label_tiles(placements, camera, dims))
    if render:
        scene.image, rendered = render_scene(scene, rng, art)
        scene.rendered_labels = rendered
    return scene


def render_scene(scene: TableScene, rng: np.random.Generator, art=None, effects_on: bool = True
                 ) -> tuple[np.ndarray, list[dict]]:
    """Render through :mod:`datasets.scene`'s renderer: (BGR image, labels with exact occlusion)."""
    from . import effects
    from .art import ArtLibrary
    from .render import Canvas, render_boxes, shadow_polygons
    from .scene import make_labels, random_light, random_tile_set, tile_object

    library = art if isinstance(art, ArtLibrary) else ArtLibrary(art)
    tiles = random_tile_set(rng, library, 0.5)
    tiles.dims = scene.dims  # the layout's size, the set's look
    light, ambient = random_light(rng)
    eye = scene.camera.position
    objects, info = [], {}
    for k, p in enumerate(scene.placements):
        obj, code = tile_object(p, tiles, k + 1, eye)
        objects.append(obj)
        info[k + 1] = (code, p)
    canvas = Canvas(effects.render_table(scene.camera, rng, scene.geometry.table_half + 60))
    effects.apply_shadows(canvas.image, shadow_polygons(scene.camera, objects, light), rng)
    quads = render_boxes(canvas, scene.camera, objects, light, ambient)
    labels = make_labels(canvas, quads, info, 12, 0.1)
    if effects_on:
        image = effects.post_process(canvas.image, rng)
    else:
        image = np.clip(canvas.image + 0.5, 0, 255).astype(np.uint8)
    # tie every label back to its placement (role) through its quad
    keys = {tuple(np.round(q, 2).ravel()): lid for lid, q in quads.items()}
    out = []
    for lab in labels:
        d = lab.to_dict()
        lid = keys.get(tuple(np.asarray(d["corners"]).ravel()))
        if lid is not None:
            p = info[lid][1]
            d["role"] = list(p.role)
            d["placement"] = lid - 1
            d["table_xy"] = [round(float(p.center[0]), 2), round(float(p.center[1]), 2)]
        out.append(d)
    return image, out
