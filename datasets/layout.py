"""Table layouts of real play: where every tile of a synthetic scene lies and how it is turned.

Positions are planned per seat in a *seat frame* (``x`` to the player's right, ``y`` from the
player towards the table centre, millimetres) and rotated to the world frame: seat ``k`` sits at
``Rz(90 k)`` of seat 0, which is at ``-y`` (the camera player's seat). Turn order is
counter-clockwise, so seat 1 is the player on seat 0's right.

Each seat gets a hand (standing, or lying face up / face down), melds with one sideways tile
(concealed kongs show two backs), discard rows of six with an optional sideways riichi tile,
a wall of two-high stacks (one dead wall with dora indicators turned face up) and a few tiles
scattered on the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .camera import rot_x, rot_y, rot_z
from .codes import BONUS_CODES, HONOUR_CODES, JOKER, RED_FIVES, SUIT_CODES

# A standing tile: local x -> seat x, local y (face up) -> world z, face normal -> towards the player.
_STAND = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
_FLIP = rot_y(180.0)  # lying face down


@dataclass(frozen=True)
class TileDims:
    """Tile size in millimetres: face width, face height, thickness."""

    w: float
    h: float
    t: float

    def corners(self) -> np.ndarray:
        """The 8 box corners in the tile frame (front face ``z = +t/2``), see :data:`BOX_FACES`."""
        w, h, t = self.w / 2, self.h / 2, self.t / 2
        return np.array([[-w, h, t], [w, h, t], [w, -h, t], [-w, -h, t],
                         [-w, h, -t], [w, h, -t], [w, -h, -t], [-w, -h, -t]], np.float64)


@dataclass
class Placement:
    """One tile in the world: true code, rotation (tile frame -> world) and box centre."""

    code: str
    R: np.ndarray
    center: np.ndarray
    zone: str
    seat: int
    face_up: bool = True


@dataclass
class LayoutConfig:
    """Probabilities and counts of the layout generator."""

    p_three_players: float = 0.25
    p_walls: float = 0.7
    p_own_hand_lying: float = 0.15
    p_other_hand_lying: float = 0.1
    max_melds: int = 3
    max_discards: int = 21
    max_scattered: int = 4


# --------------------------------------------------------------------------- tile codes


class CodeSampler:
    """Draws tile codes for one scene from a variant-like mixture that keeps rare kinds frequent."""

    def __init__(self, rng: np.random.Generator):
        kind = rng.choice(["riichi", "hk", "kaki", "mixed"], p=[0.3, 0.2, 0.15, 0.35])
        weights: dict[str, float] = {c: 1.0 for c in SUIT_CODES + HONOUR_CODES}
        if kind in ("riichi", "mixed"):
            weights.update({c: 0.4 for c in RED_FIVES})
        if kind in ("hk", "kaki", "mixed"):
            weights.update({c: 0.5 for c in BONUS_CODES[:8]})
        if kind in ("kaki", "mixed"):
            weights.update({c: 0.5 for c in BONUS_CODES[8:]})
            weights[JOKER] = 0.8
        self.codes = list(weights)
        p = np.array([weights[c] for c in self.codes])
        self.p = p / p.sum()
        self.rng = rng
        self.kind = str(kind)

    def draw(self, n: int, sort: bool = False) -> list[str]:
        """``n`` codes; ``sort`` orders them like a player sorts a hand."""
        idx = self.rng.choice(len(self.codes), size=n, p=self.p)
        if sort:
            idx = np.sort(idx)
        return [self.codes[i] for i in idx]


# --------------------------------------------------------------------------- placement helpers


class SeatPlanner:
    """Places tiles in one seat's frame and converts them to world placements."""

    def __init__(self, seat: int, dims: TileDims, rng: np.random.Generator, out: list[Placement]):
        self.seat, self.dims, self.rng, self.out = seat, dims, rng, out
        self.world = rot_z(90.0 * seat)

    def _jitter(self, pos: float = 0.4, yaw: float = 1.2) -> tuple[float, float, float]:
        return (float(self.rng.normal(0, pos)), float(self.rng.normal(0, pos)),
                float(self.rng.normal(0, yaw)))

    def _add(self, code: str, R_seat: np.ndarray, x: float, y: float, base_z: float, zone: str,
             face_up: bool) -> Placement:
        """Rest the rotated box on ``base_z`` at seat position (x, y) and record it."""
        R = self.world @ R_seat
        lowest = float((self.dims.corners() @ R.T)[:, 2].min())
        center = self.world @ np.array([x, y, 0.0])
        center[2] = base_z - lowest
        placement = Placement(code, R, center, zone, self.seat, face_up)
        self.out.append(placement)
        return placement

    def lying(self, code: str, x: float, y: float, yaw: float, face_up: bool, zone: str,
              layer: int = 0) -> Placement:
        """A tile lying on the table (or on ``layer`` tiles); ``yaw`` 0 = face reads from this seat."""
        jx, jy, jyaw = self._jitter()
        R = rot_z(yaw + jyaw) @ (np.eye(3) if face_up else _FLIP)
        return self._add(code, R, x + jx, y + jy, layer * self.dims.t, zone, face_up)

    def standing(self, code: str, x: float, y: float, zone: str, tilt: float = 0.0) -> Placement:
        """A standing tile facing this seat's player, leaning back by ``tilt`` degrees."""
        jx, jy, jyaw = self._jitter(0.3, 1.5)
        R = rot_z(jyaw) @ rot_x(-tilt) @ _STAND
        return self._add(code, R, x + jx, y + jy, 0.0, zone, True)


# --------------------------------------------------------------------------- layout pieces


@dataclass(frozen=True)
class _Geometry:
    """Distances of one scene's layout (seat frame, mm)."""

    gap: float
    discard_start: float   # distance of the first discard row's far edge from the centre
    wall_half: float       # outer half-size of the wall square
    hand_y: float          # hand row centre (negative: towards the player)
    table_half: float      # half-size of the playing cloth


def _geometry(dims: TileDims, rng: np.random.Generator) -> _Geometry:
    gap = float(rng.uniform(0.2, 1.0))
    stride = dims.w + gap
    discard_start = 3 * stride + float(rng.uniform(6, 16))
    wall_half = max(17 * stride / 2, discard_start + 3 * (dims.h + gap) + dims.h + float(rng.uniform(5, 15)))
    hand_y = -(wall_half + float(rng.uniform(20, 45)) + dims.t / 2)
    table_half = -hand_y + dims.t + float(rng.uniform(60, 110))
    return _Geometry(gap, discard_start, wall_half, hand_y, table_half)


def _meld_tiles(codes: CodeSampler, rng: np.random.Generator) -> list[tuple[str, bool, bool]]:
    """One meld as (code, sideways, face_up) triples: chow, pong, open or concealed kong."""
    kind = rng.choice(["chow", "pong", "kong", "concealed"], p=[0.4, 0.35, 0.15, 0.1])
    first = codes.draw(1)[0]
    if kind == "chow" and first[1] in "mps" and first[0] != "0":
        start = min(int(first[0]), 7)
        tiles = [f"{start + k}{first[1]}" for k in range(3)]
    else:
        tiles = [first] * (3 if kind in ("chow", "pong") else 4)
    if kind == "concealed":
        return [(tiles[0], False, False), (tiles[1], False, True), (tiles[2], False, True), (tiles[3], False, False)]
    side = int(rng.integers(len(tiles)))
    return [(c, k == side, True) for k, c in enumerate(tiles)]


def _place_melds(plan: SeatPlanner, codes: CodeSampler, geo: _Geometry, n_melds: int) -> float:
    """Melds right-aligned at the table edge; returns the x of their left end."""
    d, rng = plan.dims, plan.rng
    x = geo.table_half - float(rng.uniform(10, 40))
    y_bottom = geo.hand_y - d.t / 2 - float(rng.uniform(0, 10))
    for _ in range(n_melds):
        for code, sideways, face_up in reversed(_meld_tiles(codes, rng)):
            width = d.h if sideways else d.w
            depth = d.w if sideways else d.h
            x -= width / 2 + geo.gap
            plan.lying(code, x, y_bottom + depth / 2, 90.0 if sideways else 0.0, face_up, "meld")
            x -= width / 2
        x -= float(rng.uniform(4, 14))
    return x


def _place_hand(plan: SeatPlanner, codes: CodeSampler, geo: _Geometry, n_tiles: int, right_limit: float,
                mode: str) -> None:
    """The concealed hand: ``mode`` is standing, face_up or face_down, centred left of the melds."""
    d, rng = plan.dims, plan.rng
    tiles = codes.draw(n_tiles, sort=True)
    drawn = n_tiles % 3 == 2  # a freshly drawn tile sits apart at the right end
    stride = d.w + geo.gap
    length = n_tiles * stride + (0.6 * d.w if drawn else 0.0)
    x0 = min(-length / 2, right_limit - 15 - length) + float(rng.normal(0, 8))
    tilt = float(rng.uniform(0, 12))
    for k, code in enumerate(tiles):
        x = x0 + (k + 0.5) * stride + (0.6 * d.w if drawn and k == n_tiles - 1 else 0.0)
        if mode == "standing":
            plan.standing(code, x, geo.hand_y, "hand", tilt)
        else:
            plan.lying(code, x, geo.hand_y - d.t / 2 + d.h / 2, 0.0, mode == "face_up", "hand")


def _place_discards(plan: SeatPlanner, codes: CodeSampler, geo: _Geometry, n_tiles: int) -> None:
    """Rows of six from the centre towards the player, one sideways riichi tile maybe."""
    d, rng = plan.dims, plan.rng
    riichi = int(rng.integers(n_tiles)) if n_tiles and rng.random() < 0.35 else -1
    x_left = -3 * (d.w + geo.gap) + float(rng.normal(0, 3))
    x = x_left
    for k, code in enumerate(codes.draw(n_tiles)):
        row = min(k // 6, 2)  # the third row runs on past six tiles
        if k % 6 == 0 and k < 18:
            x = x_left
        sideways = k == riichi
        width = d.h if sideways else d.w
        y_far = -(geo.discard_start + row * (d.h + geo.gap))
        depth = d.w if sideways else d.h
        plan.lying(code, x + width / 2, y_far - depth / 2, 90.0 if sideways else 0.0, True, "discard")
        x += width + geo.gap


def _place_wall(plan: SeatPlanner, codes: CodeSampler, geo: _Geometry, dead_wall: bool) -> None:
    """A row of two-high face-down stacks; the dead wall shows dora indicators face up."""
    d, rng = plan.dims, plan.rng
    stride = d.w + geo.gap
    n_stacks = int(rng.integers(4, 18)) if not dead_wall else 7
    first = int(rng.integers(0, 18 - n_stacks))
    y = -(geo.wall_half - d.h / 2)
    n_dora = int(rng.integers(1, 3)) if dead_wall else 0
    for k in range(first, first + n_stacks):
        x = -geo.wall_half + (k + 0.5) * stride
        bottom, top = codes.draw(2)
        plan.lying(bottom, x, y, 0.0, False, "wall", layer=0)
        is_dora = dead_wall and n_stacks - 3 - n_dora < k - first <= n_stacks - 3
        plan.lying(top, x, y, 0.0, is_dora, "dora" if is_dora else "wall", layer=1)


def _place_scattered(out: list[Placement], dims: TileDims, codes: CodeSampler, rng: np.random.Generator,
                     geo: _Geometry, count: int) -> None:
    """A few loose tiles anywhere free on the cloth, any yaw, face up or down."""
    occupied = [(p.center[:2], 0.75 * dims.h) for p in out]
    planner = SeatPlanner(0, dims, rng, out)
    for code in codes.draw(count):
        for _ in range(20):
            xy = rng.uniform(-geo.table_half + dims.h, geo.table_half - dims.h, size=2)
            if all(np.linalg.norm(xy - c) > r + 0.75 * dims.h for c, r in occupied):
                face_up = bool(rng.random() < 0.7)
                planner.lying(code, float(xy[0]), float(xy[1]), float(rng.uniform(0, 360)), face_up, "scattered")
                occupied.append((xy, 0.75 * dims.h))
                break


def build_layout(dims: TileDims, rng: np.random.Generator, config: LayoutConfig | None = None
                 ) -> tuple[list[Placement], dict]:
    """All tiles of one table; returns the placements and a small description for the metadata."""
    cfg = config or LayoutConfig()
    codes = CodeSampler(rng)
    geo = _geometry(dims, rng)
    seats = [0, 1, 2, 3]
    if rng.random() < cfg.p_three_players:
        seats.remove(int(rng.integers(1, 4)))
    walls = rng.random() < cfg.p_walls
    dead_seat = int(rng.integers(4))
    out: list[Placement] = []
    for seat in seats:
        plan = SeatPlanner(seat, dims, rng, out)
        n_melds = int(rng.integers(0, cfg.max_melds + 1)) if rng.random() < 0.6 else 0
        left_of_melds = _place_melds(plan, codes, geo, n_melds)
        p_lying = cfg.p_own_hand_lying if seat == 0 else cfg.p_other_hand_lying
        mode = "standing" if rng.random() >= p_lying else str(rng.choice(["face_up", "face_down"]))
        n_hand = 13 - 3 * n_melds + int(rng.random() < 0.3)
        _place_hand(plan, codes, geo, n_hand, left_of_melds, mode)
        _place_discards(plan, codes, geo, int(rng.integers(0, cfg.max_discards + 1)))
    if walls:
        for seat in range(4):
            _place_wall(SeatPlanner(seat, dims, rng, out), codes, geo, dead_wall=seat == dead_seat)
    _place_scattered(out, dims, codes, rng, geo, int(rng.integers(0, cfg.max_scattered + 1)))
    info = {"players": len(seats), "walls": bool(walls), "deck": codes.kind,
            "table_half_mm": round(geo.table_half, 1), "hand_y_mm": round(geo.hand_y, 1)}
    return out, info
