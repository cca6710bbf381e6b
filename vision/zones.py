"""Seat zones in table coordinates, for 3 and 4 players.

Table frame (what :mod:`vision.calibration` maps frames to): millimetres, origin at the table centre, ``z``
up; *position* 0 is the near side (the camera player for a seat camera) at ``-y``, and positions go
counter-clockwise (1 = right, 2 = across, 3 = left), which is the turn order (rules README §3). A seat's
own frame has ``x`` to the player's right and ``d`` = distance from the centre towards the player:
``world = Rz(90 * position) @ (x, -d)``.

Each side, from the centre outwards (the layout of ``datasets/table_scene.py``, which follows the rules):

* **centre** (``d`` < ``centre_half``): Hong Kong's scattered discards (they fill the whole wall square);
* **discards**: rows of six from ``discard_start`` towards the player;
* **wall**: the two-high wall ring (``wall_outer - tile_h`` to ``wall_outer``), the dead wall with the
  dora indicators on top;
* **outer** band beyond the wall: from left to right the player's **hand**, the **melds** (first call
  rightmost) and the **bonus** area (flowers, seasons, animals, faces, sunk Fei, set-aside Norths).

Ownership is a *pinwheel*: a side owns the points of its band from its left boundary all the way to the
corner on its right (melds, which grow from the right corner, and long third discard rows stay with their
owner; the wall on each side runs from just past its left neighbour's wall to the corner on its right).
All lengths scale with the tile width, so the same zones serve a table calibrated by its corners (mm) or
estimated from the tiles.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

ZONES = ("centre", "discards", "wall", "outer")

#: tiles a row of backs needs to set the wall ring when another side shows such a row (stacks left at a
#: hand's end can be fewer; a stray box inside the ring is one)
WALL_ROW_MIN = 3


def seat_rotation(position: int) -> np.ndarray:
    """2x2 rotation from a seat frame (x right, y towards the centre) to the table frame."""
    c, s = np.cos(np.pi / 2 * position), np.sin(np.pi / 2 * position)
    return np.array([[c, -s], [s, c]])


@functools.lru_cache(maxsize=64)
def _rotation(position: int) -> np.ndarray:
    """:func:`seat_rotation`, kept (read-only): the zones map single points thousands of times a frame."""
    r = seat_rotation(position)
    r.flags.writeable = False
    return r


def to_seat(xy: np.ndarray, position: int) -> np.ndarray:
    """Table points (N x 2) -> seat frame (N x 2: x to the player's right, d = distance towards the player)."""
    p = np.asarray(xy, np.float64).reshape(-1, 2) @ _rotation(position)  # = R^T p
    p[:, 1] = -p[:, 1]
    return p


def from_seat(xd: np.ndarray, position: int) -> np.ndarray:
    """Seat frame (x, d) -> table points."""
    p = np.array(xd, np.float64).reshape(-1, 2)
    p[:, 1] = -p[:, 1]
    return p @ _rotation(position).T


def toward_centre(position: int) -> np.ndarray:
    """Unit vector from the player at ``position`` towards the centre: the "up" of a tile they read."""
    return seat_rotation(position) @ np.array([0.0, 1.0])


def pinwheel_owner(xy: np.ndarray, b: float) -> np.ndarray:
    """Position owning each point for a pinwheel of half-size ``b`` (-1 inside the square)."""
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    owner = np.full(len(xy), -1, int)
    for k in range(4):
        s = to_seat(xy, k)
        owner[(s[:, 1] >= b) & (s[:, 0] >= -b) & (owner < 0)] = k
    return owner


def _split_overlapping(rows: list, seat_xy: np.ndarray, u: float) -> list:
    """Rows (centre distance, member indices) with any row whose tiles overlap along it cut by distance
    until they do not: tiles of one row never overlap, so such a cluster holds rows that map close together
    (seen from a low camera, the far wall's top layer, the standing hand just behind it and the melds beside
    that hand lie a few mm apart on the plane of lying faces)."""
    out = []
    todo = list(rows)
    while todo:
        c, m = todo.pop()
        if len(m) >= 4:
            x, d = seat_xy[m, 0], seat_xy[m, 1]
            overlaps = int(np.sum(np.diff(np.sort(x)) < 0.5 * u))
            if overlaps >= 2:
                order = np.argsort(d)
                gaps = np.diff(d[order])
                cut = int(np.argmax(gaps[1:-1])) + 2       # two tiles at least on each side
                if gaps[cut - 1] > 0.15 * u:
                    todo += [(float(np.median(d[part])), m[part]) for part in (order[:cut], order[cut:])]
                    continue
        out.append((c, m))
    return sorted(out, key=lambda r: r[0])


@dataclass
class TableZones:
    """Zone boundaries of one table (mm). Build with :meth:`default` or :meth:`fit`."""

    tile_w: float
    tile_h: float
    discard_start: float          # far edge of the first discard row
    wall_outer: float             # outer edge of the wall ring (half-size of the wall square)
    players: int = 4
    positions: tuple[int, ...] = (0, 1, 2, 3)   # occupied sides, in turn order
    fitted_from: str = "default"
    inner_limits: dict = field(default_factory=dict)   # side -> radial end of the discard band (fitted)
    outer_limits: dict = field(default_factory=dict)   # side -> radial start of the hand/meld row (fitted)
    wall_centres: dict = field(default_factory=dict)   # side -> distance of the wall row's centre line (fitted)
    rows: dict = field(default_factory=dict, repr=False)
    wall_candidates: dict = field(default_factory=dict, repr=False)   # side -> (row distance, top-plane d)
    wall_sides: tuple = ()                             # sides whose wall row was seen (fitted from its tiles)

    # ------------------------------------------------------------------ construction
    @classmethod
    def default(cls, tile_w: float, tile_h: float | None = None, players: int = 4) -> TableZones:
        """Nominal zones for a tile width (the generator's mean proportions)."""
        h = tile_h or 1.36 * tile_w
        start = 3.45 * tile_w
        return cls(tile_w, h, start, start + 3 * (h + 0.02 * tile_w) + h + 0.55 * tile_w, players,
                   (0, 1, 2, 3) if players == 4 else (0, 1, 2))

    @classmethod
    def fit(cls, xy: np.ndarray, codes: list[str], tile_w: float, tile_h: float, players: int = 4,
            wall_xy: np.ndarray | None = None, standing: np.ndarray | None = None,
            wall_shift=None, discard_rows: bool = True, tall: np.ndarray | None = None,
            faces_on_wall: bool = True) -> TableZones:
        """Zones adapted to the tiles seen.

        ``xy``: tile centres on the plane of lying faces; ``wall_xy``: the same tiles mapped onto the plane
        of the wall's top layer (one tile thickness higher: seen from a low camera a wall-top tile maps
        noticeably outwards on the lower plane); ``standing``: tiles whose mapped shape is too tall to lie
        flat. Per side (the square's face each tile is nearest to, middle part only: the corners hold the
        neighbours' melds), tile centres are clustered by distance from the centre into rows; the wall row
        is the innermost row of lying backs beyond the discards, and its top-plane distance gives the wall
        ring. Each side's band limits sit between its rows. ``wall_shift(side, d)`` maps a top-plane
        distance to the lying plane (for sides whose wall is not seen). ``faces_on_wall``: the rule system
        shows face-up tiles on the wall (dora indicators); without them a row with face-up tiles is no wall (a
        seat camera sees the far melds just beyond the wall's top)."""
        z = cls.default(tile_w, tile_h, players)
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        if not len(xy):
            return z
        wall_xy = xy if wall_xy is None else np.asarray(wall_xy, np.float64).reshape(-1, 2)
        standing = np.zeros(len(xy), bool) if standing is None else np.asarray(standing, bool)
        tall = standing if tall is None else np.asarray(tall, bool) | standing
        u, h = tile_w, tile_h
        backs = np.array([c == "bk" for c in codes])
        seat_xy = np.stack([to_seat(xy, k) for k in range(4)])          # 4 x N x 2
        side_of = np.argmax(seat_xy[:, :, 1], axis=0)
        rows_of, found, standing_rows = {}, {}, {}
        for k in range(4):
            sel = np.nonzero((side_of == k) & (np.abs(seat_xy[k, :, 0]) < 0.7 * seat_xy[k, :, 1]) & ~standing)[0]
            if not len(sel):
                continue
            d = seat_xy[k, sel, 1]
            order = np.argsort(d)
            groups: list[tuple[list[float], list[int]]] = []    # (distances d, members (indices into xy))
            for i in order:
                if groups and d[i] - groups[-1][0][-1] < 0.45 * u:
                    groups[-1][0].append(d[i])
                    groups[-1][1].append(sel[i])
                else:
                    groups.append(([d[i]], [sel[i]]))
            rows = [(float(np.median(ds)), np.array(m)) for ds, m in groups if max(ds) > 2.5 * u]
            rows_of[k] = _split_overlapping(rows, seat_xy[k], u)
            # standing tiles (a hand) bound the wall band from outside
            st = np.nonzero((side_of == k) & (np.abs(seat_xy[k, :, 0]) < 0.7 * seat_xy[k, :, 1]) & standing)[0]
            if len(st) >= 2:
                standing_rows[k] = float(np.median(seat_xy[k, st, 1]))
        # the first discard row (about 3.5 tile widths out) bounds where the wall can be: three rows and a
        # small gap further; a face-down hand lies well beyond that
        firsts = [rows[0][0] for rows in rows_of.values() if rows and rows[0][0] < 5.5 * u]
        c0 = float(np.median(firsts)) if firsts and discard_rows else None
        for k, rows in rows_of.items():
            for ri, (c, m) in enumerate(rows):
                if c > 5.5 * u and np.mean(backs[m]) >= (0.25 if faces_on_wall else 0.9) and np.mean(tall[m]) < 0.5:
                    top = float(np.median(to_seat(wall_xy[m], k)[:, 1]))
                    # a wall-top row sits three rows and a small gap beyond the first discard row (measured
                    # on its own plane); a hand (a tile height further out) is rejected on either plane
                    if c0 is not None and top - c0 > 3 * h + 1.7 * u and c - c0 > 3 * h + 2.1 * u:
                        break
                    if c0 is not None and top - c0 > 3 * h + 2.1 * u:
                        break
                    found[k] = (ri, c, top, len(m))
                    break
        z.rows = {k: [(round(c, 1), len(m), round(float(np.mean(backs[m])), 2)) for c, m in rows]
                  for k, rows in rows_of.items()}
        walls = {}
        if found:
            # the wall is the innermost ring of backs: a candidate further out is a face-down hand or a row
            # of melds with concealed kongs on a side whose wall is gone. A row of one or two tiles sets the
            # ring only where no side shows a longer row (a stray box inside the ring is no wall)
            rows_long = [f for f in found.values() if f[3] >= WALL_ROW_MIN] or list(found.values())
            W = min(f[2] for f in rows_long) + h / 2
            # ... unless every longer row lies where a hand does (well beyond the nominal ring) and a short one
            # where the wall does: the last stacks of a wall nearly drawn, beside a face-down hand
            short = [f for f in found.values() if f[3] < WALL_ROW_MIN and abs(f[2] + h / 2 - z.wall_outer) < 0.8 * h]
            if short and W - z.wall_outer > 0.8 * h:
                W = min(f[2] for f in short) + h / 2
            walls = {k: f[:3] for k, f in found.items() if abs(f[2] + h / 2 - W) < 0.55 * u}
        z.wall_candidates = {k: (round(f[1], 1), round(f[2], 1)) for k, f in found.items()}
        if walls:
            z.wall_outer = float(np.median([f[2] for f in walls.values()])) + h / 2
            z.fitted_from = "wall"
            z.wall_sides = tuple(sorted(walls))
        elif discard_rows:
            ends = [c for rows in rows_of.values() for c, _ in rows if c < 8.0 * u]
            if ends:
                # the wall stands beyond room for three discard rows, however many are laid out yet
                last = max(max(ends), c0 + 2 * (h + 0.02 * u)) if c0 is not None else max(ends)
                z.wall_outer = last + h / 2 + 0.45 * u + h
                z.fitted_from = "discards"
        z.inner_limits, z.outer_limits = {}, {}
        for k in range(4):
            rows = rows_of.get(k, [])
            if k in walls:
                ri, c, _ = walls[k]
                z.wall_centres[k] = c
                prev = [r[0] for r in rows if r[0] < c - 0.45 * u]
                nxt = sorted([r[0] for r in rows if r[0] > c + 0.3 * u]
                             + [v for kk, v in standing_rows.items() if kk == k and v > c + 0.45 * u])
                z.inner_limits[k] = max((c + prev[-1]) / 2, c - h / 2 - 0.35 * u) if prev else c - h / 2 - 0.2 * u
                z.outer_limits[k] = min((c + nxt[0]) / 2, c + h / 2 + 0.6 * u) if nxt else c + h / 2 + 0.45 * u
            else:
                # no wall seen on this side: limits for tiles lying on the table; a stray wall-top tile is
                # looked for where the top layer would appear
                c = z.wall_outer - h / 2
                z.wall_centres[k] = float(wall_shift(k, c)) if wall_shift is not None else c
                z.inner_limits[k] = c - h / 2 - 0.2 * u
                # ... and kept inside the band: seen from a low camera across the table, the top layer maps out
                # towards the hand row (a tile lying beyond the wall starts a small gap past its outer edge)
                z.outer_limits[k] = max(c + h / 2 + 0.45 * u, z.wall_centres[k] + 0.3 * h)
        return z

    # ------------------------------------------------------------------ boundaries
    @property
    def wall_inner(self) -> float:
        return self.wall_outer - self.tile_h

    @property
    def centre_half(self) -> float:
        """Pinwheel half-size of the discard band (between the first row's left edge and far edge)."""
        return min(3.2 * self.tile_w, self.discard_start - 0.25 * self.tile_w)

    @property
    def inner_limit(self) -> float:
        """Square half-size inside which a tile is in the discard band or the centre."""
        return self.wall_inner - 0.35 * self.tile_h

    @property
    def outer_limit(self) -> float:
        """Square half-size beyond which a tile is in the hand/meld/bonus band."""
        return self.wall_outer + 0.45 * self.tile_w

    @property
    def wall_pinwheel(self) -> float:
        return self.wall_outer - 0.75 * self.tile_h - 0.25 * self.tile_w

    @property
    def outer_pinwheel(self) -> float:
        return self.wall_outer + 0.3 * self.tile_w

    # ------------------------------------------------------------------ queries
    def inner_limit_of(self, position: int) -> float:
        return float(self.inner_limits.get(position, self.inner_limit))

    def outer_limit_of(self, position: int) -> float:
        return float(self.outer_limits.get(position, self.outer_limit))

    def _wall_side(self, p: np.ndarray, seat_xy: np.ndarray | None = None) -> int:
        """The side whose wall row line passes nearest ``p`` (within its span), or -1. ``seat_xy``: ``p`` in
        each side's seat frame already (``[side, (x, d)]``)."""
        best, best_k = None, -1
        for k, c in self.wall_centres.items():
            x, d = to_seat(p[None], k)[0] if seat_xy is None else seat_xy[k]
            span = c + self.tile_h / 2 + 0.5 * self.tile_w
            if abs(x) > span:
                continue
            delta = abs(d - c)
            if delta < self.tile_h / 2 + 0.35 * self.tile_w and (best is None or delta < best):
                best, best_k = delta, k
        return best_k

    def locate(self, xy: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """(position per point, zone per point): zone in ``ZONES``; the centre has position -1."""
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        pos = np.full(len(xy), -1, int)
        zones = []
        own_in = pinwheel_owner(xy, self.centre_half)
        own_wall = pinwheel_owner(xy, self.wall_pinwheel)
        own_out = pinwheel_owner(xy, self.outer_pinwheel)
        limits = np.array([self.outer_limit_of(j) for j in range(4)])
        seat_xy = np.stack([to_seat(xy, j) for j in range(4)], 1)   # [point, side, (x, d)]
        dists = seat_xy[:, :, 1]
        for i in range(len(xy)):
            k = own_out[i]
            # beyond the outer limit of its own side, or of any side: out past the wall square's corner (the
            # far end of a row, e.g. bonus tiles, lies beyond the neighbour's wall line, while its own side's
            # limit may be pushed out by a wall seen at a grazing angle)
            if k >= 0 and np.any(dists[i] > limits):
                zones.append("outer")
                pos[i] = k
                continue
            k = self._wall_side(xy[i], seat_xy[i]) if self.wall_centres else own_wall[i]
            if k >= 0 and dists[i, k] > self.inner_limit_of(k):
                zones.append("wall")
                pos[i] = k
                continue
            # beyond the discard band but off every wall row's line: out towards the hand row when past the
            # line's band, else a wall tile
            k = own_out[i] if own_out[i] >= 0 else own_wall[i]
            if k >= 0 and dists[i, k] > self.inner_limit_of(k):
                line = self.wall_centres.get(k, self.wall_outer - self.tile_h / 2)
                zones.append("outer" if dists[i, k] > line + self.tile_h / 2 else "wall")
                pos[i] = k
                continue
            if own_in[i] < 0:
                zones.append("centre")
            else:
                zones.append("discards")
                pos[i] = own_in[i]
        return pos, zones

    def regions(self, table_half: float | None = None) -> list[tuple[int, str, np.ndarray]]:
        """Nominal zone polygons (table mm) for drawing: (position, name, N x 2 polygon).

        Names: centre, discards, wall (with the dead wall and dora indicators), hand, melds, bonus."""
        u, h = self.tile_w, self.tile_h
        half = table_half or self.outer_limit + 4.5 * h
        out = [(-1, "centre", np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * self.centre_half)]
        for k in range(4):
            def rect(x0, x1, d0, d1, k=k):
                return from_seat(np.array([[x0, d1], [x1, d1], [x1, d0], [x0, d0]]), k)
            b = self.centre_half
            out.append((k, "discards", rect(-b, self.inner_limit, b, self.inner_limit)))
            out.append((k, "wall", rect(-self.wall_pinwheel, self.wall_outer, self.inner_limit, self.outer_limit)))
            ob = self.outer_pinwheel
            row_far, row_near = self.outer_limit, half
            out.append((k, "hand", rect(-ob, ob - 8.0 * u, row_far, row_near)))
            out.append((k, "melds", rect(ob - 8.0 * u, half - 3.0 * u, row_far, row_near)))
            out.append((k, "bonus", rect(half - 3.0 * u, half, row_far, row_near)))
        return out

    def own_hand_region(self, table_half: float | None = None, position: int = 0) -> np.ndarray:
        """The near player's hand row (a seat camera's own hand): the outer band of ``position``."""
        half = table_half or self.outer_limit + 4.5 * self.tile_h
        ob = self.outer_pinwheel
        return from_seat(np.array([[-ob, half], [half, half], [half, self.outer_limit], [-ob, self.outer_limit]]),
                         position)

    def to_dict(self) -> dict:
        return {"tile_mm": [round(self.tile_w, 2), round(self.tile_h, 2)],
                "discard_start_mm": round(self.discard_start, 1), "wall_outer_mm": round(self.wall_outer, 1),
                "players": self.players, "positions": list(self.positions), "fitted_from": self.fitted_from,
                "inner_limits_mm": {k: round(v, 1) for k, v in self.inner_limits.items()},
                "outer_limits_mm": {k: round(v, 1) for k, v in self.outer_limits.items()}}
