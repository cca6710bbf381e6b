"""Tiles the detector missed inside a row: boxes for the gaps of rows of like tiles.

Tiles on a table stand or lie side by side: a hand, a discard row, a wall. In a dense row the detector
sometimes misses a tile (its neighbours' boxes absorb it), and a hand read one tile short is useless to the
engine. Two boxes of the same size and direction, on one line along their width axis, whose distance is
a whole number of tile pitches with no box between them, mark the places of the missing tiles: this module
proposes boxes there. The classifier then decides — a proposal read as "not a tile" (a deliberate gap
between a hand and its melds, cloth) or read without confidence is dropped by :func:`accept`.
"""

from __future__ import annotations

import numpy as np

MAX_MISSING = 2          # proposals per gap at most (a longer gap is a deliberate separation)
SIZE_TOL = 0.25          # relative difference of width and height of the two ends
ANGLE_TOL = 12.0         # degrees (modulo 180) between the two ends' axes
LATERAL_TOL = 0.3        # off the row line, in tile heights
PITCH_RANGE = (0.75, 1.3)  # pitch of the proposals in box widths (detector boxes run a little wider than faces)
PITCH_TOL = 0.15         # a gap must be this close to a whole number of the row's pitches
MIN_CONFIDENCE = 0.5     # a proposal's reading must be at least this sure
MAX_NONE = 0.2           # ... and "not a tile" at most this likely


def _axes(theta_deg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.radians(theta_deg)
    right = np.stack([np.cos(t), np.sin(t)], 1)
    up = np.stack([np.sin(t), -np.cos(t)], 1)
    return right, up


def row_gaps(obb: np.ndarray, max_missing: int = MAX_MISSING) -> np.ndarray:
    """Proposed boxes [M, 5] (cx, cy, w, h, theta) for tiles missing between the boxes ``obb`` [N, 5]
    (theta modulo 180 or 360: only the axis counts). Each gap is proposed once."""
    obb = np.asarray(obb, np.float64).reshape(-1, 5)
    n = len(obb)
    if n < 2:
        return np.zeros((0, 5))
    c, w, h = obb[:, :2], obb[:, 2], obb[:, 3]
    right, up = _axes(obb[:, 4])
    d = c[None, :, :] - c[:, None, :]                      # d[i, j] = c_j - c_i
    u = np.einsum("ijk,ik->ij", d, right)                  # along i's width axis
    v = np.einsum("ijk,ik->ij", d, up)                     # across it
    dtheta = np.abs((obb[None, :, 4] - obb[:, None, 4] + 90.0) % 180.0 - 90.0)
    alike = ((np.abs(w[None, :] / w[:, None] - 1) < SIZE_TOL) & (np.abs(h[None, :] / h[:, None] - 1) < SIZE_TOL)
             & (dtheta < ANGLE_TOL))
    on_line = np.abs(v) < LATERAL_TOL * h[:, None]
    # each box's nearest neighbour on either side of its line (the axis is only known modulo 180 degrees),
    # whatever its kind: a gap is only a gap when nothing lies in it
    pairs: list[tuple[int, int]] = []
    for i in range(n):
        for side in (1.0, -1.0):
            ahead = (side * u[i] > 0.3 * w[i]) & (np.abs(v[i]) < 0.6 * h[i])
            ahead[i] = False
            if ahead.any():
                j = int(np.argmin(np.where(ahead, side * u[i], np.inf)))
                if alike[i, j] and on_line[i, j] and (min(i, j), max(i, j)) not in pairs:
                    pairs.append((min(i, j), max(i, j)))
    # rows: boxes joined by neighbour pairs; a row's pitch (centre to centre of touching tiles, in pixels) is
    # the median of its pair distances (most neighbours touch; a box off-centre or a gap moves it little)
    root = list(range(n))

    def find(a: int) -> int:
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    for i, j in pairs:
        root[find(i)] = find(j)
    dist = {(i, j): abs(u[i, j]) for i, j in pairs}
    by_row: dict[int, list[float]] = {}
    for (i, j), dd in dist.items():
        by_row.setdefault(find(i), []).append(dd)
    touching = [dist[p] / ((w[p[0]] + w[p[1]]) / 2) for p in pairs]
    touching = [r for r in touching if PITCH_RANGE[0] <= r <= PITCH_RANGE[1]]
    overall = float(np.median(touching)) if touching else 1.0     # in box widths, over the frame
    row_pitch = {}
    for r, ds in by_row.items():
        row_pitch[r] = float(np.median(ds))
    out = []
    for i, j in pairs:
        width, height = (w[i] + w[j]) / 2, (h[i] + h[j]) / 2
        pitch = row_pitch[find(i)]
        if pitch / width > PITCH_RANGE[1]:      # no touching tiles in this row: the frame's usual pitch
            pitch = overall * width
        steps = int(round(dist[i, j] / pitch))   # tiles missing + 1
        if not 2 <= steps <= max_missing + 1 or abs(dist[i, j] / (steps * pitch) - 1) > PITCH_TOL:
            continue
        for m in range(1, steps):
            cx, cy = c[i] + m * d[i, j] / steps
            out.append([cx, cy, width, height, obb[i, 4]])
    return np.array(out, np.float64).reshape(-1, 5)


def accept(probs: np.ndarray, none_index: int) -> np.ndarray:
    """[M] bool: which proposals' classifier readings ([M, K] probabilities) are tiles, read with confidence."""
    probs = np.asarray(probs, np.float64)
    if len(probs) == 0:
        return np.zeros(0, bool)
    tiles = probs.copy()
    tiles[:, none_index] = 0.0
    return (tiles.max(1) >= MIN_CONFIDENCE) & (probs[:, none_index] <= MAX_NONE)


__all__ = ["accept", "row_gaps"]
