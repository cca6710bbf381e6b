"""Rows of tiles completed: tiles the detector missed in a row, boxes astride two tiles.

Tiles on a table stand or lie side by side: a hand, a discard row, a wall. In a dense row the detector
sometimes misses a tile (its neighbours' boxes absorb it) or draws one box across two tiles, and a hand read
one tile short is useless to the engine. Two ways to find the places of the tiles, both leaving the decision
to the classifier (a place read as "not a tile", or without confidence, is dropped: :func:`accept`):

* :func:`row_lattices`: a row of at least ``LATTICE_MIN`` surely read boxes gets a fitted pitch and phase, and
  every slot of it is a place (a few beyond its ends too);
* :func:`row_gaps`: two like boxes on one line whose distance is a whole number of pitches, with nothing
  between them, mark the places of the missing tiles.

:func:`complete_rows` does both for a frame's classified boxes (``TileRecognizer.recognize`` and the live
analyser call it).
"""

from __future__ import annotations

from dataclasses import dataclass

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


def _pair_geometry(obb: np.ndarray):
    """(centres, widths, heights, d, u, v, dtheta): d[i, j] = c_j - c_i, u/v its parts along/across i's width
    axis, dtheta the angle between the two axes (modulo 180 degrees)."""
    c, w, h = obb[:, :2], obb[:, 2], obb[:, 3]
    right, up = _axes(obb[:, 4])
    d = c[None, :, :] - c[:, None, :]
    u = np.einsum("ijk,ik->ij", d, right)
    v = np.einsum("ijk,ik->ij", d, up)
    dtheta = np.abs((obb[None, :, 4] - obb[:, None, 4] + 90.0) % 180.0 - 90.0)
    return c, w, h, d, u, v, dtheta


def _groups(n: int, pairs) -> tuple[list[int], list[list[int]]]:
    """Connected groups of 0..n-1 joined by ``pairs``: (each index's group label, the groups)."""
    root = list(range(n))

    def find(a: int) -> int:
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    for i, j in pairs:
        root[find(i)] = find(j)
    label = [find(i) for i in range(n)]
    groups: dict[int, list[int]] = {}
    for i, g in enumerate(label):
        groups.setdefault(g, []).append(i)
    return label, list(groups.values())


def _neighbours(u: np.ndarray, v: np.ndarray, w: np.ndarray, h: np.ndarray) -> list[tuple[int, int]]:
    """(i, j): j is the nearest box on one side of i along i's width axis, roughly on its line (the axis is only
    known modulo 180 degrees: both sides), whatever its kind (a gap is only a gap when nothing lies in it)."""
    n = len(w)
    near = np.abs(v) < 0.6 * h[:, None]
    np.fill_diagonal(near, False)
    out = []
    for side in (1.0, -1.0):
        ahead = near & (side * u > 0.3 * w[:, None])
        dist = np.where(ahead, side * u, np.inf)
        j = np.argmin(dist, axis=1)
        has = np.isfinite(dist[np.arange(n), j])
        out += [(int(i), int(j[i])) for i in np.nonzero(has)[0]]
    return out


def row_gaps(obb: np.ndarray, max_missing: int = MAX_MISSING, active: np.ndarray | None = None) -> np.ndarray:
    """Proposed boxes [M, 5] (cx, cy, w, h, theta) for tiles missing between the boxes ``obb`` [N, 5]
    (theta modulo 180 or 360: only the axis counts). Each gap is proposed once; with ``active`` [N] bool only
    gaps next to an active box."""
    obb = np.asarray(obb, np.float64).reshape(-1, 5)
    n = len(obb)
    if n < 2:
        return np.zeros((0, 5))
    c, w, h, d, u, v, dtheta = _pair_geometry(obb)
    alike = ((np.abs(w[None, :] / w[:, None] - 1) < SIZE_TOL) & (np.abs(h[None, :] / h[:, None] - 1) < SIZE_TOL)
             & (dtheta < ANGLE_TOL))
    on_line = np.abs(v) < LATERAL_TOL * h[:, None]
    pairs: list[tuple[int, int]] = []
    for i, j in _neighbours(u, v, w, h):
        if alike[i, j] and on_line[i, j] and (min(i, j), max(i, j)) not in pairs:
            pairs.append((min(i, j), max(i, j)))
    # rows: boxes joined by neighbour pairs; a row's pitch (centre to centre of touching tiles, in pixels) is
    # the median of its pair distances (most neighbours touch; a box off-centre or a gap moves it little)
    label, _ = _groups(n, pairs)
    dist = {(i, j): abs(u[i, j]) for i, j in pairs}
    by_row: dict[int, list[float]] = {}
    for (i, _j), dd in dist.items():
        by_row.setdefault(label[i], []).append(dd)
    touching = [dist[p] / ((w[p[0]] + w[p[1]]) / 2) for p in pairs]
    touching = [r for r in touching if PITCH_RANGE[0] <= r <= PITCH_RANGE[1]]
    overall = float(np.median(touching)) if touching else 1.0     # in box widths, over the frame
    row_pitch = {}
    for r, ds in by_row.items():
        row_pitch[r] = float(np.median(ds))
    out = []
    for i, j in pairs:
        if active is not None and not (active[i] or active[j]):
            continue
        width, height = (w[i] + w[j]) / 2, (h[i] + h[j]) / 2
        pitch = row_pitch[label[i]]
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


# --------------------------------------------------------------------------- whole rows on a lattice

LATTICE_MIN = 4            # a row needs this many confidently read boxes to be put on a lattice
SURE = 0.8                 # a reading this confident is never replaced
INLIER = 0.3               # a box within this share of the pitch of a slot stands in it
EXTEND = 2                 # slots tried beyond each end of a row
EXTEND_SURE = 0.85         # ... taken only when read this surely


@dataclass
class Lattice:
    """Evenly spaced slots along one row of tiles: ``slots`` [K, 5] boxes for slot numbers ``ks``; ``members``
    the boxes of the row and ``slot_of`` each one's slot number (None: between slots)."""

    slots: np.ndarray
    ks: list[int]
    members: list[int]
    slot_of: list[int | None]
    pitch: float


def _rows(obb: np.ndarray, size_tol: float, angle_tol: float, lateral_tol: float) -> list[list[int]]:
    """Boxes joined into rows: chains of nearest neighbours on a common line with axes alike."""
    c, w, h, d, u, v, dtheta = _pair_geometry(obb)
    size = np.sqrt(w * h)
    alike = (np.abs(size[None, :] / size[:, None] - 1) < size_tol) & (dtheta < angle_tol)
    pairs = [(i, j) for i, j in _neighbours(u, v, w, h)
             if alike[i, j] and abs(v[i, j]) < lateral_tol * h[i] and abs(u[i, j]) < 3.5 * w[i]]
    return _groups(len(obb), pairs)[1]


def row_lattices(obb: np.ndarray, confidence: np.ndarray, backs: np.ndarray | None = None,
                 active: np.ndarray | None = None) -> list[Lattice]:
    """Lattices of the rows with at least ``LATTICE_MIN`` boxes read with confidence ``SURE`` (``confidence``
    [N]: each box's reading, 0 for "not a tile"): pitch and phase fitted to the confident boxes, slots from
    ``EXTEND`` before the first member to ``EXTEND`` after the last, never past a box standing between slots.
    A row mostly of backs (``backs`` [N] bool: read as a back; a wall) is not extended. ``active`` [N] bool:
    only rows with an active box (a live frame's changed part) are fitted."""
    obb = np.asarray(obb, np.float64).reshape(-1, 5)
    confidence = np.asarray(confidence, np.float64)
    out: list[Lattice] = []
    if len(obb) < LATTICE_MIN:
        return out
    for row in _rows(obb, 0.5, 20.0, 0.45):
        if active is not None and not np.any(np.asarray(active, bool)[row]):
            continue
        sure = [i for i in row if confidence[i] >= SURE]
        if len(sure) < LATTICE_MIN:
            continue
        c = obb[row, :2]
        centre = c.mean(0)
        _, _, vt = np.linalg.svd(c - centre)
        e = vt[0]
        if e[0] < 0 or (abs(e[0]) < 1e-9 and e[1] < 0):
            e = -e
        t = (c - centre) @ e
        s = (c - centre) @ np.array([-e[1], e[0]])
        ts = np.array([t[row.index(i)] for i in sure])
        wts = confidence[sure]
        width = float(np.median(obb[sure, 2]))
        # grid search of pitch and phase: the confident boxes' weighted closeness to their slots
        ps = np.linspace(0.65 * width, 1.25 * width, 49)[:, None, None]
        phis = ps * (np.arange(24) / 24.0)[None, :, None]
        r = (ts[None, None, :] - phis + ps / 2) % ps - ps / 2
        score = np.sum(wts * np.clip(1 - np.abs(r) / (INLIER * ps), 0, None), axis=2)
        bi, bj = np.unravel_index(int(np.argmax(score)), score.shape)   # first best: the shortest pitch
        p, phi = float(ps[bi, 0, 0]), float(phis[bi, bj, 0])
        # refine on the inliers: t = phi + k p by least squares
        k_sure = np.round((ts - phi) / p)
        inl = np.abs(ts - phi - k_sure * p) < INLIER * p
        if inl.sum() < max(LATTICE_MIN, int(np.ceil(0.7 * len(sure)))):
            continue
        if len(np.unique(k_sure[inl])) >= 2:
            A = np.stack([np.ones(int(inl.sum())), k_sure[inl]], 1)
            phi, p = np.linalg.lstsq(A, ts[inl], rcond=None)[0]
        if not 0.6 * width <= p <= 1.3 * width:
            continue
        k_all = np.round((t - phi) / p).astype(int)
        slot_of = [int(k) if abs(tt - phi - k * p) < INLIER * p else None for tt, k in zip(t, k_all, strict=True)]
        k_in = [k for k in slot_of if k is not None]
        lo, hi = min(k_in), max(k_in)
        # confident boxes between slots (a meld's sideways tile) bound the extension
        off = [tt for i, tt, k in zip(row, t, slot_of, strict=True) if k is None and confidence[i] >= SURE]
        ext = 0 if backs is not None and 2 * int(np.sum(backs[row])) > len(row) else EXTEND
        lo_ext, hi_ext = lo - ext, hi + ext
        for tt in off:
            k = (tt - phi) / p
            if k < lo:
                lo_ext = max(lo_ext, int(np.floor(k)) + 1)
            elif k > hi:
                hi_ext = min(hi_ext, int(np.ceil(k)) - 1)
        ks = list(range(lo_ext, hi_ext + 1))
        line_s = float(np.median(s))
        tw = min(width, p)
        aspect = float(np.clip(np.median(obb[sure, 3] / obb[sure, 2]), 1.0, 1.6))
        theta = float(np.degrees(np.arctan2(e[1], e[0])) % 180.0)   # a box's width axis runs along its row
        normal = np.array([-e[1], e[0]])
        slots = np.array([[*(centre + (phi + k * p) * e + line_s * normal), tw, tw * aspect, theta] for k in ks])
        out.append(Lattice(slots.reshape(-1, 5), ks, row, slot_of, float(p)))
    return out


def complete_rows(image: np.ndarray, obb: np.ndarray, probs: np.ndarray, classify, none_index: int | None = None,
                  back_index: int | None = None, sure: np.ndarray | None = None, active: np.ndarray | None = None):
    """Complete the rows of classified boxes ``obb`` [N, 5] (``probs`` [N, K]; ``classify(crops) -> (probs,
    flip)`` reads new boxes):

    1. rows of at least ``LATTICE_MIN`` confidently read boxes are put on a lattice (:func:`row_lattices`);
       a slot read as a tile with confidence (:func:`accept`) takes the place of the unsure or "not a tile"
       boxes standing in it (a box astride two tiles of a dense row is one) and of unsure boxes between it and
       its neighbours; an empty slot read so is added (a tile the detector missed); beyond a row's ends only
       a sure reading of a face, for a row mostly of faces, where no kept box lies;
    2. boxes read as "not a tile" go, and a box is proposed at each place of a shorter row where tiles are
       missing (:func:`row_gaps`), kept when read as a tile with confidence.

    ``sure`` [N] bool: boxes never replaced (a tracked tile whose reading is settled); ``active`` [N] bool: only
    rows and gaps with an active box are looked at (a live frame's changed part). Returns (keep [N] bool,
    added boxes [M, 5], their probabilities [M, K], their flip probabilities [M])."""
    from .geometry import CROP_SIZE, warp_crops

    obb = np.asarray(obb, np.float64).reshape(-1, 5)
    n = len(obb)
    k_all = probs.shape[1] if n else 0
    if none_index is None or back_index is None:
        from .kinds import BACK_INDEX, NONE_INDEX

        none_index = NONE_INDEX if none_index is None else none_index
        back_index = BACK_INDEX if back_index is None else back_index
    empty = (np.zeros((0, 5)), np.zeros((0, k_all)), np.zeros(0))
    if n == 0:
        return np.zeros(0, bool), *empty
    tile_p = probs.copy()
    tile_p[:, none_index] = 0.0
    is_none = probs.argmax(1) == none_index
    conf = np.where(is_none, 0.0, tile_p.max(1))
    if sure is not None:
        conf = np.where(sure, 1.0, conf)
        is_none &= ~sure
    keep = ~is_none
    added_obb, added_p, added_f = [], [], []
    is_back = probs.argmax(1) == back_index
    lattices = row_lattices(obb, conf, is_back, active)
    # the slots worth reading: empty ones and those where only unsure boxes stand
    todo = []       # (lattice, slot number, slot box, boxes standing there)
    for lat in lattices:
        by_slot: dict[int, list[int]] = {}
        for i, k in zip(lat.members, lat.slot_of, strict=True):
            if k is not None:
                by_slot.setdefault(k, []).append(i)
        for j, k in enumerate(lat.ks):
            here = by_slot.get(k, [])
            if max((conf[i] for i in here), default=0.0) < SURE:
                todo.append((lat, k, lat.slots[j], here, min(by_slot), max(by_slot)))
    if todo:
        slots = np.array([t[2] for t in todo])
        sp, sf = classify(warp_crops(image, slots, CROP_SIZE))
        ok = accept(sp, none_index)
        s_tile = sp.copy()
        s_tile[:, none_index] = 0.0
        s_conf = s_tile.max(1)
        centres = obb[:, :2]
        taken: dict[int, list[int]] = {}
        for g, (lat, k, _, here, lo, hi) in enumerate(todo):
            if not ok[g] or s_conf[g] <= max((conf[i] for i in here), default=0.0):
                continue
            if not lo <= k <= hi:
                # beyond a row of faces: a sure reading of a face (cloth next to a row can pass for a back),
                # where no tile of another row lies
                if s_conf[g] < EXTEND_SURE or sp[g].argmax() == back_index:
                    continue
                if ((np.linalg.norm(centres - slots[g, :2], axis=1) < 0.6 * lat.pitch) & keep).any():
                    continue
            keep[here] = False
            taken.setdefault(id(lat), []).append(g)
            added_obb.append(slots[g])
            added_p.append(sp[g])
            added_f.append(sf[g])
        for lat in lattices:   # unsure boxes between slots that a taken slot covers go
            gs = taken.get(id(lat))
            if not gs:
                continue
            for i, k in zip(lat.members, lat.slot_of, strict=True):
                if k is None and conf[i] < SURE and np.min(
                        np.linalg.norm(slots[gs, :2] - centres[i], axis=1)) < 0.6 * lat.pitch:
                    keep[i] = False
    now = np.concatenate([obb[keep], np.array(added_obb).reshape(-1, 5)])
    now_active = None if active is None else np.concatenate([np.asarray(active, bool)[keep],
                                                             np.ones(len(added_obb), bool)])
    extra = row_gaps(now, active=now_active)
    if len(extra):
        p, f = classify(warp_crops(image, extra, CROP_SIZE))
        ok = accept(p, none_index)
        added_obb += list(extra[ok])
        added_p += list(p[ok])
        added_f += list(f[ok])
    if not added_obb:
        return keep, *empty
    return keep, np.array(added_obb), np.array(added_p), np.array(added_f)


__all__ = ["Lattice", "accept", "complete_rows", "row_gaps", "row_lattices"]
