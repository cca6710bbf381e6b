"""Calibration: the mapping from a camera frame to table coordinates.

Table frame (see :mod:`vision.zones`): millimetres, origin at the table centre, ``z`` up, position 0 (the
near side / camera player) at ``-y``, positions counter-clockwise. A :class:`Calibration` holds the
homography from image pixels to the table plane ``z = 0``; when the camera's focal length can be recovered
from it (any view that is not exactly straight down), :meth:`Calibration.homography_at` also maps to the
plane of lying tile faces (``z`` = tile thickness), which matters for steep seat cameras.

Two ways to get one, both pure numpy/cv2:

* :func:`from_corners`: four table corners clicked by the user, in the order near-left, near-right,
  far-right, far-left as seen from position 0, and the table's playing-surface size. Saved per camera as
  JSON (:func:`save` / :func:`load`) under ``$MAHJONG_CALIBRATION_DIR`` or
  ``~/.config/mahjong-assistant/calibration/<camera-id>.json``.
* :func:`estimate_from_tiles`: from the detected tile quads alone. Lying tiles are rectangles of one size,
  turned by multiples of 90 degrees on the table; a robust Levenberg-Marquardt fit finds the homography that
  maps every such quad to an axis-aligned tile (standing tiles and scattered discards fall out as outliers).
  The scale comes from a nominal tile width, the centre from the wall ring (or the extent of the tiles),
  and position 0 is the side nearest the bottom of the image.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np


def _cross2(a, b):
    """z of the cross product of 2-D vectors (rows)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


NOMINAL_TILE_MM = 26.0          # riichi-size tiles; Hong Kong sets are larger (pass tile_width_mm)
THICKNESS_RATIO = 0.72          # tile thickness / width, for the face plane of lying tiles
DEFAULT_TABLE_MM = 850.0


def default_dir() -> Path:
    env = os.environ.get("MAHJONG_CALIBRATION_DIR")
    return Path(env).expanduser() if env else Path.home() / ".config" / "mahjong-assistant" / "calibration"


def apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to N x 2 points."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


@dataclass
class Pose:
    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    focal_known: bool

    @property
    def position(self) -> np.ndarray:
        return -self.R.T @ self.t


def decompose(table_to_image: np.ndarray, image_size: tuple[int, int], default_hfov: float = 60.0) -> Pose:
    """Camera pose from a table(z=0)->image homography, assuming square pixels and the principal point at
    the image centre; the focal length is solved from the plane's orthogonality (falls back to
    ``default_hfov`` for views too close to straight down)."""
    w, h = image_size
    cx, cy = w / 2.0, h / 2.0
    G = np.asarray(table_to_image, np.float64)
    G = G / np.linalg.norm(G[:, :2])
    a = G[0] - cx * G[2]
    b = G[1] - cy * G[2]
    c = G[2]
    alpha = np.array([a[0] * a[1] + b[0] * b[1], a[0] ** 2 + b[0] ** 2 - a[1] ** 2 - b[1] ** 2])
    beta = np.array([c[0] * c[1], c[0] ** 2 - c[1] ** 2])
    f_default = (w / 2) / math.tan(math.radians(default_hfov) / 2)
    f, known = f_default, False
    denom = float(alpha @ alpha)
    if denom > 0:
        x = -float(alpha @ beta) / denom
        if x > 0:
            f_est = 1.0 / math.sqrt(x)
            hfov = math.degrees(2 * math.atan(w / 2 / f_est))
            # trust it only when the view is tilted enough for the perspective terms to carry information
            tilt = float(np.hypot(c[0], c[1]) * f_est)
            if 15 < hfov < 140 and tilt > 0.05:
                f, known = f_est, True
    K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    M = np.linalg.inv(K) @ G
    lam = (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1])) / 2
    if M[2, 2] < 0:
        lam = -lam
    r1, r2 = M[:, 0] / lam, M[:, 1] / lam
    U, _, Vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    R = U @ Vt
    if np.linalg.det(R) < 0:
        R[:, 2] *= -1
    return Pose(K, R, M[:, 2] / lam, known)


@dataclass
class Calibration:
    """Image pixels <-> table plane. ``homography`` maps image points to the table plane z = 0 (mm)."""

    homography: np.ndarray
    image_size: tuple[int, int]
    camera_id: str = "default"
    source: str = "corners"               # corners, tiles, camera (known pose, e.g. synthetic)
    corners_px: list | None = None        # the clicked corners (from_corners)
    table_size_mm: tuple[float, float] | None = None
    tile_mm: tuple[float, float] | None = None   # tile width, height measured/assumed
    created: float = field(default_factory=time.time)
    quality: dict = field(default_factory=dict)
    _pose: Pose | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ geometry
    @property
    def pose(self) -> Pose:
        if self._pose is None:
            self._pose = decompose(np.linalg.inv(self.homography), self.image_size)
        return self._pose

    def homography_at(self, z: float) -> np.ndarray:
        """Image -> the horizontal plane at height ``z`` mm (0: the table; tile thickness: lying faces)."""
        if abs(z) < 1e-9:
            return self.homography
        p = self.pose
        G = p.K @ np.column_stack([p.R[:, 0], p.R[:, 1], p.R[:, 2] * z + p.t])
        H = np.linalg.inv(G)
        return H / H[2, 2]

    def image_to_table(self, pts: np.ndarray, z: float = 0.0) -> np.ndarray:
        return apply_h(self.homography_at(z), pts)

    def table_to_image(self, pts: np.ndarray, z: float = 0.0) -> np.ndarray:
        return apply_h(np.linalg.inv(self.homography_at(z)), pts)

    def rotated(self, quarter_turns: int) -> Calibration:
        """The same calibration with the table frame turned by ``quarter_turns`` x 90 degrees counter-
        clockwise, i.e. position ``k`` becomes position ``k - quarter_turns`` (use it when the near side was
        guessed wrong)."""
        k = quarter_turns % 4
        c, s = [1, 0, -1, 0][k], [0, 1, 0, -1][k]
        Rz = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1.0]])
        return Calibration(Rz @ self.homography, self.image_size, self.camera_id, self.source, self.corners_px,
                           self.table_size_mm, self.tile_mm, self.created, dict(self.quality))

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        d = {"camera_id": self.camera_id, "image_size": list(self.image_size), "source": self.source,
             "homography": np.asarray(self.homography).tolist(), "corners_px": self.corners_px,
             "table_size_mm": list(self.table_size_mm) if self.table_size_mm else None,
             "tile_mm": list(self.tile_mm) if self.tile_mm else None, "created": self.created,
             "quality": self.quality}
        p = self.pose
        d["focal_px"] = round(float(p.K[0, 0]), 2) if p.focal_known else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        return cls(np.asarray(d["homography"], np.float64), tuple(d["image_size"]), d.get("camera_id", "default"),
                   d.get("source", "corners"), d.get("corners_px"),
                   tuple(d["table_size_mm"]) if d.get("table_size_mm") else None,
                   tuple(d["tile_mm"]) if d.get("tile_mm") else None, d.get("created", time.time()),
                   d.get("quality", {}))


def _safe_id(camera_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(camera_id)).strip("._") or "default"


def save(cal: Calibration, directory: str | Path | None = None) -> Path:
    """Write ``<dir>/<camera-id>.json`` (directories created); returns the path."""
    d = Path(directory).expanduser() if directory else default_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{_safe_id(cal.camera_id)}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cal.to_dict(), indent=2))
    tmp.replace(path)
    return path


def load(camera_id: str, directory: str | Path | None = None) -> Calibration | None:
    """The saved calibration of ``camera_id``, or None when there is none (or it is unreadable)."""
    d = Path(directory).expanduser() if directory else default_dir()
    path = d / f"{_safe_id(camera_id)}.json"
    if not path.is_file():
        return None
    try:
        return Calibration.from_dict(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError):
        return None


# --------------------------------------------------------------------------- from corners


def _table_size(size_mm: float | tuple[float, float]) -> tuple[float, float]:
    """A table's (width, depth) in mm, given as one side (a square table) or both."""
    if isinstance(size_mm, (int, float, np.number)):
        return size_mm, size_mm
    width, depth = size_mm
    return width, depth


def table_corner_points(size_mm: float | tuple[float, float] = DEFAULT_TABLE_MM) -> np.ndarray:
    """Table coordinates of the corners near-left, near-right, far-right, far-left (seen from position 0)."""
    sx, sy = _table_size(size_mm)
    return np.array([[-sx / 2, -sy / 2], [sx / 2, -sy / 2], [sx / 2, sy / 2], [-sx / 2, sy / 2]], np.float64)


def from_corners(corners_px, image_size: tuple[int, int], table_size_mm: float | tuple[float, float] = DEFAULT_TABLE_MM,
                 camera_id: str = "default") -> Calibration:
    """Calibration from the four table corners clicked in the image (near-left, near-right, far-right,
    far-left as seen from position 0). Raises ValueError for degenerate input."""
    img = np.asarray(corners_px, np.float64).reshape(-1, 2)
    if len(img) != 4:
        raise ValueError(f"need 4 corners, got {len(img)}")
    # the four points must form a convex quadrilateral in image order (no three collinear)
    cross = [_cross2(img[(i + 1) % 4] - img[i], img[(i + 2) % 4] - img[(i + 1) % 4]) for i in range(4)]
    if not (all(c > 1e-6 for c in cross) or all(c < -1e-6 for c in cross)):
        raise ValueError("the four corners must form a convex quadrilateral, clicked in order around the table")
    width, depth = _table_size(table_size_mm)
    size = (float(width), float(depth))
    tab = table_corner_points(size)
    H, _ = cv2.findHomography(img.astype(np.float64), tab.astype(np.float64), 0)
    if H is None:
        raise ValueError("the four corners do not define a table plane")
    return Calibration(H / H[2, 2], (image_size[0], image_size[1]), camera_id, "corners", img.tolist(), size)


def from_camera(K: np.ndarray, R: np.ndarray, t: np.ndarray, image_size: tuple[int, int],
                camera_id: str = "synthetic") -> Calibration:
    """Calibration from a known pinhole pose (``x_cam = R x_world + t``)."""
    G = K @ np.column_stack([R[:, 0], R[:, 1], t])
    H = np.linalg.inv(G)
    cal = Calibration(H / H[2, 2], (image_size[0], image_size[1]), camera_id, "camera")
    cal._pose = Pose(np.asarray(K, float), np.asarray(R, float), np.asarray(t, float), True)
    return cal


# --------------------------------------------------------------------------- from tiles


def tile_axes(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Edge midpoints (left, right, bottom, top) of N x 4 x 2 quads TL, TR, BR, BL. They carry the same
    information for a true perspective quad and for a detector's oriented box, to first order."""
    q = np.asarray(quads, np.float64)
    return (q[:, 0] + q[:, 3]) / 2, (q[:, 1] + q[:, 2]) / 2, (q[:, 2] + q[:, 3]) / 2, (q[:, 0] + q[:, 1]) / 2


def _tile_residuals(H: np.ndarray, quads: np.ndarray, rho: float) -> np.ndarray:
    """Per tile (N x 3): how far H maps each tile from an axis-aligned 1 x rho tile: the length and axis
    alignment of its up vector (mid-bottom -> mid-top, exact for a perspective quad and for a detector's
    oriented box) and the length of its width (approximate for an oriented box)."""
    n = len(quads)
    left, right, bottom, top = tile_axes(quads)
    m = apply_h(H, np.concatenate([left, right, bottom, top])).reshape(4, n, 2)
    wv, hv = m[1] - m[0], m[3] - m[2]
    lw = np.linalg.norm(wv, axis=1) + 1e-9
    lh = np.linalg.norm(hv, axis=1) + 1e-9
    theta = np.arctan2(hv[:, 1], hv[:, 0])
    return np.column_stack([0.5 * (lw - 1), (lh - rho) / rho, np.sin(4 * theta) / 4])


def _lm_fit(quads: np.ndarray, H0: np.ndarray, rho0: float, iters: int = 40, scale: float = 0.08
            ) -> tuple[np.ndarray, float, np.ndarray, float]:
    """Robust (Cauchy, IRLS) Levenberg-Marquardt over the 8 homography entries and the aspect ratio."""
    p = np.append((H0 / H0[2, 2]).ravel()[:8], rho0)

    def unpack(p):
        return np.append(p[:8], 1.0).reshape(3, 3), p[8]

    def per_tile(p):
        H, rho = unpack(p)
        r = _tile_residuals(H, quads, rho)
        # tile aspect ratios of real sets lie within about 1.3-1.42: keep it there
        return np.column_stack([r, np.full(len(r), (rho - 1.36) / 0.06 / max(1.0, np.sqrt(len(r))))])

    def cost_weights(r):
        c = (r ** 2).sum(1)
        return 1.0 / (1.0 + c / scale ** 2), float(np.sum(np.log1p(c / scale ** 2)))

    mu = 1e-3
    r = per_tile(p)
    w, cost = cost_weights(r)
    for _ in range(iters):
        base = (r * np.sqrt(w)[:, None]).ravel()
        J = np.empty((base.size, 9))
        for j in range(9):
            dp = np.zeros(9)
            step = 1e-6 * max(1.0, abs(p[j]))
            dp[j] = step
            J[:, j] = ((per_tile(p + dp) * np.sqrt(w)[:, None]).ravel() - base) / step
        A = J.T @ J
        g = J.T @ base
        improved = False
        for _ in range(8):
            try:
                delta = np.linalg.solve(A + mu * np.diag(np.diag(A) + 1e-9), -g)
            except np.linalg.LinAlgError:
                mu *= 10
                continue
            pn = p + delta
            rn = per_tile(pn)
            if not np.all(np.isfinite(rn)):
                mu *= 10
                continue
            wn, cn = cost_weights(rn)
            if cn < cost:
                p, r, w, cost = pn, rn, wn, cn
                mu = max(mu / 3, 1e-7)
                improved = True
                break
            mu *= 10
        if not improved or np.linalg.norm(delta) < 1e-9:
            break
    H, rho = unpack(p)
    return H, float(rho), w, cost


def _affine_init(quad: np.ndarray, rho: float) -> np.ndarray:
    src = quad[[0, 1, 3]].astype(np.float32)
    dst = np.array([[-0.5, rho / 2], [0.5, rho / 2], [-0.5, -rho / 2]], np.float32)
    A = cv2.getAffineTransform(src, dst).astype(np.float64)
    return np.vstack([A, [0, 0, 1.0]])


def _affine_after(qn: np.ndarray, ell: np.ndarray, rho0: float = 1.36) -> np.ndarray | None:
    """Given the vanishing line ``ell`` (normalised image coords, ell[2] = 1), the homography that sends it
    to infinity and makes the two tile-edge directions the table axes, one tile width long."""
    Hp = np.array([[1.0, 0, 0], [0, 1.0, 0], [ell[0], ell[1], 1.0]])
    den = qn.reshape(-1, 2) @ ell[:2] + 1
    if np.any(den < 0.05):       # the vanishing line would cross the tiles
        return None
    left, right, bottom, top = tile_axes(qn)
    n = len(qn)
    m = apply_h(Hp, np.concatenate([left, right, bottom, top])).reshape(4, n, 2)
    ew, eh = m[1] - m[0], m[3] - m[2]
    theta = np.arctan2(ew[:, 1], ew[:, 0]) % np.pi
    lw = np.linalg.norm(ew, axis=1)
    grid = np.linspace(0, np.pi, 90, endpoint=False)

    def dist(angles, t0):
        return np.abs((angles - t0 + np.pi / 2) % np.pi - np.pi / 2)

    score = np.exp(-(dist(theta[None, :], grid[:, None]) / 0.06) ** 2).sum(1)
    t1 = float(grid[int(np.argmax(score))])
    c1 = dist(theta, t1) < 0.3
    rest = ~c1
    d1 = np.array([math.cos(t1), math.sin(t1)])
    s1 = 1.0 / float(np.median(lw[c1]))
    t2 = None
    if rest.sum() >= 3:
        score2 = np.exp(-(dist(theta[rest][None, :], grid[:, None]) / 0.06) ** 2).sum(1)
        t2 = float(grid[int(np.argmax(score2))])
        c2 = rest & (dist(theta, t2) < 0.3)
        if c2.sum() < 3 or dist(np.array([t2]), t1)[0] < 0.5:
            t2 = None
    if t2 is not None:
        d2 = np.array([math.cos(t2), math.sin(t2)])
        s2 = 1.0 / float(np.median(lw[c2]))
    else:
        hd = np.median(eh[c1], axis=0)
        d2 = hd / (np.linalg.norm(hd) + 1e-12)
        s2 = rho0 / float(np.median(np.linalg.norm(eh[c1], axis=1)))
    if abs(_cross2(d1, d2)) < 0.3:
        return None
    # keep the frame's handedness: the image of (x, y) must turn like the tiles' own (width, up) do
    if np.sign(_cross2(d1, d2)) != np.sign(np.median(_cross2(ew[c1], eh[c1]))):
        d2 = -d2
    M = np.diag([s1, s2]) @ np.linalg.inv(np.column_stack([d1, d2]))
    A = np.eye(3)
    A[:2, :2] = M
    H = A @ Hp
    return H / H[2, 2]


def _robust_cost(H: np.ndarray, qn: np.ndarray, scale: float = 0.08) -> tuple[float, float]:
    """Robust cost of H over all tiles, with the aspect ratio measured on the tiles that fit (clipped)."""
    _, _, bottom, top = tile_axes(qn)
    rho = 1.36
    r = _tile_residuals(H, qn, rho)
    ok = np.sum(r[:, [0, 2]] ** 2, 1) < (2 * scale) ** 2
    if ok.sum() >= 3:
        m = apply_h(H, np.concatenate([bottom[ok], top[ok]])).reshape(2, -1, 2)
        rho = float(np.clip(np.median(np.linalg.norm(m[1] - m[0], axis=1)), 1.1, 1.7))
        r = _tile_residuals(H, qn, rho)
    c = (r ** 2).sum(1)
    return float(np.sum(np.log1p(c / scale ** 2))), rho


def _perspective_starts(qn: np.ndarray, keep: int = 3) -> list[tuple[np.ndarray, float]]:
    """Coarse search over the vanishing line: the best few starting homographies (with their aspect)."""
    found = []
    for radius in np.arange(0.0, 1.45, 0.1):
        for ang in (np.linspace(0, 2 * np.pi, 24, endpoint=False) if radius > 0 else [0.0]):
            ell = np.array([radius * math.cos(ang), radius * math.sin(ang), 1.0])
            H = _affine_after(qn, ell)
            if H is None:
                continue
            cost, rho = _robust_cost(H, qn)
            found.append((cost, H, rho))
    found.sort(key=lambda f: f[0])
    return [(H, rho) for _, H, rho in found[:keep]]


def estimate_from_tiles(detections, image_size: tuple[int, int], tile_width_mm: float = NOMINAL_TILE_MM,
                        camera_id: str = "default", inits: int = 6) -> Calibration:
    """Calibration estimated from tile detections (records with ``corners`` TL, TR, BR, BL and ``code``).

    Needs a dozen or more lying tiles. Raises ValueError when there are too few tiles or no fit converges."""
    corners: list[np.ndarray] = []
    codes: list[str] = []
    for d in detections:
        c = d["corners"] if isinstance(d, dict) else d.corners
        corners.append(np.asarray(c, np.float64).reshape(4, 2))
        codes.append(d["code"] if isinstance(d, dict) else d.code)
    if len(corners) < 8:
        raise ValueError(f"too few tiles to calibrate from ({len(corners)}; need 8 or more lying tiles)")
    quads = np.array(corners)
    face = np.array([c != "bk" for c in codes])
    # lying face-up tiles (discards, melds) share one plane; backs mix the wall's top layer (one tile
    # higher) with standing hands, so they only help when few faces are seen
    fit_sel = face if face.sum() >= 12 else np.ones(len(quads), bool)
    w_img, h_img = image_size
    s = max(w_img, h_img) / 2.0
    N = np.array([[1 / s, 0, -w_img / 2 / s], [0, 1 / s, -h_img / 2 / s], [0, 0, 1.0]])  # pixel -> normalised
    qn = apply_h(N, quads.reshape(-1, 2)).reshape(-1, 4, 2)
    areas = 0.5 * np.abs(_cross2(qn[:, 2] - qn[:, 0], qn[:, 3] - qn[:, 1]))
    # candidates: large tiles near the median size (the largest ones may be standing tiles up close)
    order = np.argsort(-areas)
    med = np.median(areas)
    cands = [i for i in order if areas[i] <= 3 * med][:inits] or list(order[:inits])
    best = None
    qf = qn[fit_sel]
    starts = _perspective_starts(qf)
    starts += [(_affine_init(qn[i], 1.36), 1.36) for i in cands[:2]]
    for H0, rho0 in starts:
        H, rho, w, cost = _lm_fit(qf, H0, rho0)
        if not (1.05 < rho < 1.8):
            continue
        if best is None or cost < best[3]:
            best = (H, rho, w, cost)
    if best is not None:
        # second pass without the tiles that stand (a seat camera sees its own hand's faces upright)
        Hn0 = best[0] @ N
        probe = Calibration(Hn0 / Hn0[2, 2], (image_size[0], image_size[1]))

        xy0 = apply_h(probe.homography, quads.mean(1))
        width0 = np.linalg.norm(apply_h(probe.homography, (quads[:, 1] + quads[:, 2]) / 2)
                                - apply_h(probe.homography, (quads[:, 0] + quads[:, 3]) / 2), axis=1)
        try:
            stand = standing_tiles(probe, quads, xy0, width0, 0.0)
        except (np.linalg.LinAlgError, ValueError):
            stand = np.zeros(len(quads), bool)
        keep = fit_sel & ~stand
        if stand[fit_sel].any() and keep.sum() >= 8:
            H, rho, w, cost = _lm_fit(qn[keep], best[0], best[1])
            if 1.05 < rho < 1.8:
                best = (H, rho, w, cost)
    if best is None:
        raise ValueError("could not fit the table plane to the tiles")
    H, rho, w, cost = best
    r = _tile_residuals(H, qn, rho)
    inliers = (r ** 2).sum(1) < (2 * 0.08) ** 2
    Hn = H @ N  # pixels -> face plane, tile units, arbitrary turn and offset
    # position 0 = the side nearest the image bottom
    a, b = apply_h(Hn, np.array([[w_img / 2, h_img * 0.5], [w_img / 2, h_img * 0.9]]))
    v = b - a
    angle = math.atan2(v[1], v[0])               # direction of "image down" on the table
    k = round((-math.pi / 2 - angle) / (math.pi / 2))   # turn so that it points to -y
    c, s_ = math.cos(k * math.pi / 2), math.sin(k * math.pi / 2)
    Rz = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1.0]])
    Hn = Rz @ Hn
    # table centre: the wall ring or, failing that, the extent of the tiles
    centres = apply_h(Hn, quads.mean(1))
    lying = inliers
    ups = apply_h(Hn, (quads[:, 0] + quads[:, 1]) / 2) - apply_h(Hn, (quads[:, 2] + quads[:, 3]) / 2)
    centre = estimate_centre(centres, codes, lying, 1.0, rho, ups)
    T = np.array([[tile_width_mm, 0, -centre[0] * tile_width_mm], [0, tile_width_mm, -centre[1] * tile_width_mm],
                  [0, 0, 1.0]])
    H_face = T @ Hn                                # image -> lying-face plane (mm)
    H_face = H_face / H_face[2, 2]
    # the face plane lies one tile thickness above the table: move to z = 0 through the camera pose
    pose = decompose(np.linalg.inv(H_face), image_size)
    thick = THICKNESS_RATIO * tile_width_mm
    G0 = pose.K @ np.column_stack([pose.R[:, 0], pose.R[:, 1], pose.t - pose.R[:, 2] * thick])
    H0 = np.linalg.inv(G0)
    cal = Calibration(H0 / H0[2, 2], (image_size[0], image_size[1]), camera_id, "tiles",
                      tile_mm=(tile_width_mm, rho * tile_width_mm),
                      quality={"inliers": int(inliers.sum()), "tiles": len(quads), "aspect": round(rho, 3),
                               "cost": round(float(cost), 3)})
    return cal


def estimate_centre(xy: np.ndarray, codes: list[str], lying: np.ndarray, tile_w: float, tile_h: float,
                    ups: np.ndarray | None = None) -> np.ndarray:
    """Table centre from tile centres (table axes known, offset not): per axis, the middle between the
    first discard rows of the two opposite players (face-up tiles read by each, near the axis), else the
    middle of the wall ring, else the middle of the tiles' extent."""
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    lying = np.asarray(lying, bool)
    pts = xy[lying] if lying.any() else xy
    centre = (np.percentile(pts, 1, axis=0) + np.percentile(pts, 99, axis=0)) / 2
    face = np.array([c != "bk" for c in codes]) & lying
    backs = np.array([c == "bk" for c in codes]) & lying
    u = tile_w
    for _ in range(3):
        rel = xy - centre
        new = centre.copy()
        for axis in (0, 1):
            other = 1 - axis
            done = False
            if ups is not None:
                # readers on the -axis side see "up" towards +axis, and the other way round
                up = np.asarray(ups)[:, axis] / (np.linalg.norm(ups, axis=1) + 1e-9)
                near = np.abs(rel[:, other]) < 3.0 * u
                lo = face & near & (up > 0.8) & (rel[:, axis] < 0) & (rel[:, axis] > -8 * u)
                hi = face & near & (up < -0.8) & (rel[:, axis] > 0) & (rel[:, axis] < 8 * u)
                first = 3.45 * u + tile_h / 2          # nominal distance of a first discard row
                if lo.sum() >= 2 and hi.sum() >= 2:
                    first_lo = np.max(rel[lo, axis])     # the first rows: nearest the centre
                    first_hi = np.min(rel[hi, axis])
                    if 4 * u < first_hi - first_lo < 11 * u:
                        new[axis] = centre[axis] + (first_lo + first_hi) / 2
                        done = True
                elif lo.sum() >= 3 or hi.sum() >= 3:      # one player on this axis (three at the table)
                    if lo.sum() >= 3:
                        new[axis] = centre[axis] + np.max(rel[lo, axis]) + first
                    else:
                        new[axis] = centre[axis] + np.min(rel[hi, axis]) - first
                    done = True
            if not done:
                sides: list[float | None] = []
                for sign in (-1, 1):
                    d = sign * rel[:, axis]
                    sel = backs & (d > 6.3 * u) & (d < 11.5 * u) & (np.abs(rel[:, other]) < d)
                    if sel.sum() >= 3:
                        vals = np.sort(d[sel])
                        best = max(vals, key=lambda lo_: int(np.sum((vals >= lo_) & (vals < lo_ + 0.6 * u))))
                        sides.append(float(np.median(vals[(vals >= best) & (vals < best + 0.6 * u)])))
                    else:
                        sides.append(None)
                if sides[0] is not None and sides[1] is not None:
                    new[axis] = centre[axis] + (sides[1] - sides[0]) / 2
        centre = new
    return centre


def standing_tiles(calibration: Calibration, quads: np.ndarray, xy: np.ndarray, width: np.ndarray,
                   face_height: float, errors: bool = False):
    """Which quads are standing tiles: their image "up" vector matches a vertical tile at that spot better
    than any of the four ways a tile can lie flat there (needs the camera pose; without it, a mapped shape
    much taller than a lying tile). With ``errors``: (standing, relative distance of each "up" from a
    standing tile's vertical)."""
    n = len(quads)
    up_img = (quads[:, 0] + quads[:, 1]) / 2 - (quads[:, 3] + quads[:, 2]) / 2
    tw = float(np.median(width)) if n else 26.0
    th = 1.36 * tw
    to_img = {z: np.linalg.inv(calibration.homography_at(z)) for z in (0.0, face_height, th)}
    # standing: the face centre is about half a tile high; its up is the vertical
    centre_img = quads.mean(1)
    base = apply_h(calibration.homography_at(th / 2), centre_img)
    v_stand = apply_h(to_img[th], base) - apply_h(to_img[0.0], base)
    e_stand = np.minimum(np.linalg.norm(up_img - v_stand, axis=1), np.linalg.norm(up_img + v_stand, axis=1))
    e_stand /= np.maximum(np.linalg.norm(v_stand, axis=1), 1e-6)
    # lying (any turn): the up vector maps to a tile height on the face plane
    up_table = apply_h(calibration.homography_at(face_height), centre_img + up_img / 2) - \
        apply_h(calibration.homography_at(face_height), centre_img - up_img / 2)
    e_lie = np.abs(np.linalg.norm(up_table, axis=1) / np.maximum(width, 1e-6) / 1.36 - 1)
    standing = (e_stand < 0.35) & (e_lie > 0.15) & (e_stand < 0.6 * e_lie)
    return (standing, e_stand) if errors else standing
