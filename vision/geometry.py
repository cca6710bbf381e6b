"""Pure-numpy pre- and post-processing for the tile models (no model, no onnxruntime needed).

Conventions: image pixels with x right, y down, pixel centres at integer coordinates. An oriented box
(``obb``) is ``(cx, cy, w, h, theta)``: centre, face width and face height (as the face reads upright)
and ``theta``, the direction of the face's up in degrees clockwise from image-up (0 = upright, 90 = the
top of the face points right). ``quad`` corners are TL, TR, BR, BL of the face as it reads upright.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

DET_STRIDE = 4
CROP_SIZE = (72, 96)  # (w, h) of classifier crops


# --------------------------------------------------------------------------- boxes


def obb_to_quad(obb: np.ndarray) -> np.ndarray:
    """[N, 5] (cx, cy, w, h, theta) -> [N, 4, 2] corners TL, TR, BR, BL."""
    obb = np.asarray(obb, np.float64).reshape(-1, 5)
    t = np.radians(obb[:, 4])
    up = np.stack([np.sin(t), -np.cos(t)], 1)
    right = np.stack([np.cos(t), np.sin(t)], 1)
    c = obb[:, None, :2]
    hw, hh = obb[:, 2, None, None] / 2, obb[:, 3, None, None] / 2
    signs = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]], np.float64)  # (right, up) per corner
    return c + signs[None, :, 0, None] * hw * right[:, None] + signs[None, :, 1, None] * hh * up[:, None]


def quad_to_obb(quad: np.ndarray) -> np.ndarray:
    """[N, 4, 2] corners TL, TR, BR, BL -> [N, 5] (cx, cy, w, h, theta in [0, 360))."""
    q = np.asarray(quad, np.float64).reshape(-1, 4, 2)
    c = q.mean(1)
    up = (q[:, 0] + q[:, 1]) / 2 - (q[:, 3] + q[:, 2]) / 2
    h = np.linalg.norm(up, axis=1)
    w = (np.linalg.norm(q[:, 1] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 3], axis=1)) / 2
    theta = np.degrees(np.arctan2(up[:, 0], -up[:, 1])) % 360.0
    return np.concatenate([c, w[:, None], h[:, None], theta[:, None]], 1)


def rotation_of(theta: np.ndarray | float) -> np.ndarray:
    """Quantise an up direction (degrees clockwise from image-up) to 0/90/180/270."""
    return (np.round(np.asarray(theta, np.float64) / 90.0).astype(int) % 4) * 90


def polygon_area(poly) -> float:
    """Area of a simple polygon [K, 2] (shoelace, absolute)."""
    pts = [(float(x), float(y)) for x, y in np.asarray(poly, np.float64).reshape(-1, 2)]
    return abs(_signed_area(pts))


def _signed_area(pts: list[tuple[float, float]]) -> float:
    n = len(pts)
    if n < 3:
        return 0.0
    a = 0.0
    for i in range(n):
        x0, y0 = pts[i]
        x1, y1 = pts[(i + 1) % n]
        a += x0 * y1 - x1 * y0
    return a / 2


def _clip(subject: list, a: tuple[float, float], b: tuple[float, float], sign: float) -> list:
    """Sutherland-Hodgman: keep the part of ``subject`` on the inner side of edge a->b (plain floats: these
    polygons have 4-8 corners, where Python beats numpy's per-call overhead)."""
    if not subject:
        return subject
    dx, dy = b[0] - a[0], b[1] - a[1]
    side = [sign * (dx * (p[1] - a[1]) - dy * (p[0] - a[0])) for p in subject]
    out = []
    n = len(subject)
    for i in range(n):
        p, q = subject[i], subject[(i + 1) % n]
        sp, sq = side[i], side[(i + 1) % n]
        if sp >= -1e-9:
            out.append(p)
        if (sp >= -1e-9) != (sq >= -1e-9):
            t = sp / (sp - sq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def convex_intersection(p1: np.ndarray, p2: np.ndarray) -> float:
    """Intersection area of two convex polygons (any winding)."""
    a = [(float(x), float(y)) for x, y in np.asarray(p1, np.float64).reshape(-1, 2)]
    b = [(float(x), float(y)) for x, y in np.asarray(p2, np.float64).reshape(-1, 2)]
    sign = 1.0 if _signed_area(b) >= 0 else -1.0
    poly = a
    for i in range(len(b)):
        poly = _clip(poly, b[i], b[(i + 1) % len(b)], sign)
        if not poly:
            return 0.0
    return abs(_signed_area(poly))


def quad_iou(q1: np.ndarray, q2: np.ndarray) -> float:
    """IoU of two convex quads [4, 2]."""
    inter = convex_intersection(q1, q2)
    union = polygon_area(np.asarray(q1)) + polygon_area(np.asarray(q2)) - inter
    return inter / union if union > 0 else 0.0


def polygon_areas(polys: np.ndarray) -> np.ndarray:
    """Areas [N] of simple polygons [N, K, 2] (shoelace, absolute)."""
    p = np.asarray(polys, np.float64)
    q = np.roll(p, -1, axis=-2)
    return np.abs((p[..., 0] * q[..., 1] - q[..., 0] * p[..., 1]).sum(-1)) / 2


_MAX_CORNERS = 8   # a quad clipped by another quad's four edges keeps at most 8 corners


def intersection_areas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection areas [K] of the convex quads ``a[k]`` and ``b[k]`` ([K, 4, 2] each, any winding).

    Sutherland-Hodgman vectorised over the pairs: every polygon is kept as 8 corner slots of which the
    first ``n[k]`` are used, clipped by each edge of ``b`` in turn."""
    a = np.asarray(a, np.float64).reshape(-1, 4, 2)
    b = np.asarray(b, np.float64).reshape(-1, 4, 2)
    k = len(a)
    if k == 0:
        return np.zeros(0)
    rows = np.arange(k)[:, None]
    poly = np.zeros((k, _MAX_CORNERS, 2))
    poly[:, :4] = a
    n = np.full(k, 4)
    # orient b's edges so that "inside" is the left of each edge whatever b's winding
    sign = np.where(_signed_areas(b) >= 0, 1.0, -1.0)[:, None]
    slot = np.arange(_MAX_CORNERS)[None]
    for e in range(4):
        p0, p1 = b[:, e], b[:, (e + 1) % 4]
        d = p1 - p0
        used = slot < n[:, None]
        side = sign * (d[:, None, 0] * (poly[..., 1] - p0[:, None, 1])
                       - d[:, None, 1] * (poly[..., 0] - p0[:, None, 0]))
        nxt = (slot + 1) % np.maximum(n, 1)[:, None]
        q = poly[rows, nxt]
        sq = side[rows, nxt]
        inside, inside_q = side >= -1e-9, sq >= -1e-9
        t = side / np.where(side - sq == 0, 1.0, side - sq)
        cross = q * t[..., None] + poly * (1 - t[..., None])
        cand = np.stack([poly, cross], 2).reshape(k, 2 * _MAX_CORNERS, 2)
        keep = np.stack([used & inside, used & (inside != inside_q)], 2).reshape(k, 2 * _MAX_CORNERS)
        order = np.argsort(~keep, axis=1, kind="stable")[:, :_MAX_CORNERS]
        poly = cand[rows, order]
        n = np.minimum(keep.sum(1), _MAX_CORNERS)
    used = slot < n[:, None]
    nxt = (slot + 1) % np.maximum(n, 1)[:, None]
    q = poly[rows, nxt]
    cross = np.where(used, poly[..., 0] * q[..., 1] - q[..., 0] * poly[..., 1], 0.0)
    return np.where(n >= 3, np.abs(cross.sum(1)) / 2, 0.0)


def _signed_areas(quads: np.ndarray) -> np.ndarray:
    q = np.roll(quads, -1, axis=-2)
    return (quads[..., 0] * q[..., 1] - q[..., 0] * quads[..., 1]).sum(-1) / 2


def _overlapping_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) of quads a[i], b[j] whose axis-aligned bounds overlap."""
    amin, amax, bmin, bmax = a.min(1), a.max(1), b.min(1), b.max(1)
    hit = (amin[:, None, 0] < bmax[None, :, 0]) & (bmin[None, :, 0] < amax[:, None, 0])
    hit &= (amin[:, None, 1] < bmax[None, :, 1]) & (bmin[None, :, 1] < amax[:, None, 1])
    i, j = np.nonzero(hit)
    return i, j


def pair_ious(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU [K] of the convex quads a[k] and b[k]."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4, 2), np.asarray(b, np.float64).reshape(-1, 4, 2)
    inter = intersection_areas(a, b)
    union = polygon_areas(a) + polygon_areas(b) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[N, M] IoU of quads a [N, 4, 2] and b [M, 4, 2]; pairs whose bounding boxes miss are 0."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4, 2), np.asarray(b, np.float64).reshape(-1, 4, 2)
    out = np.zeros((len(a), len(b)))
    if len(a) == 0 or len(b) == 0:
        return out
    i, j = _overlapping_pairs(a, b)
    out[i, j] = pair_ious(a[i], b[j])
    return out


def rotated_nms(quads: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.3) -> np.ndarray:
    """Indices kept by greedy NMS over oriented quads, best score first."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    n = len(quads)
    if n == 0:
        return np.zeros(0, int)
    i, j = _overlapping_pairs(quads, quads)
    upper = i < j
    i, j = i[upper], j[upper]
    over = pair_ious(quads[i], quads[j]) > iou_threshold
    i, j = i[over], j[over]
    clash: list[list[int]] = [[] for _ in range(n)]
    for x, y in zip(i.tolist(), j.tolist(), strict=True):
        clash[x].append(y)
        clash[y].append(x)
    keep: list[int] = []
    suppressed = np.zeros(n, bool)
    for idx in np.argsort(-np.asarray(scores), kind="stable").tolist():
        if suppressed[idx]:
            continue
        keep.append(idx)
        suppressed[clash[idx]] = True
    return np.array(keep, int)


def suppress_contained(quads: np.ndarray, scores: np.ndarray, min_cover: float = 0.6,
                       max_area_ratio: float = 0.5, min_score: float = 0.4) -> np.ndarray:
    """Indices kept after dropping boxes lying mostly (>= ``min_cover`` of their area) inside a box at least
    1 / ``max_area_ratio`` times larger with score >= ``min_score`` (pieces of one big tile - its dots or
    characters - found at a finer scale)."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    n = len(quads)
    if n == 0:
        return np.zeros(0, int)
    areas = polygon_areas(quads)
    small, big = _overlapping_pairs(quads, quads)
    ok = (np.asarray(scores)[big] >= min_score) & (areas[small] <= max_area_ratio * areas[big]) & (small != big)
    small, big = small[ok], big[ok]
    covered = intersection_areas(quads[small], quads[big]) >= min_cover * areas[small]
    drop = np.zeros(n, bool)
    drop[small[covered]] = True
    return np.nonzero(~drop)[0]


def aabb(quads: np.ndarray) -> np.ndarray:
    """Axis-aligned [N, 4] (x0, y0, x1, y1) bounds of quads [N, 4, 2]."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    return np.concatenate([q.min(1), q.max(1)], 1)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[N, M] IoU of axis-aligned boxes (x0, y0, x1, y1)."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).clip(0).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).clip(0).prod(-1)
    union = area_a[:, None] + area_b[None] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def greedy_match(iou: np.ndarray, threshold: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching of an [N_pred, M_gt] IoU matrix, best pairs first."""
    pairs: list[tuple[int, int]] = []
    if iou.size == 0:
        return pairs
    idx = np.argsort(-iou, axis=None)
    used_p, used_g = set(), set()
    for flat in idx:
        p, g = divmod(int(flat), iou.shape[1])
        if iou[p, g] < threshold:
            break
        if p in used_p or g in used_g:
            continue
        used_p.add(p)
        used_g.add(g)
        pairs.append((p, g))
    return pairs


# --------------------------------------------------------------------------- detector pre/post


def letterbox(image: np.ndarray, long_side: int = 640, multiple: int = 32) -> tuple[np.ndarray, float]:
    """Resize so the long side is ``long_side`` and pad right/bottom (grey) to multiples of ``multiple``.

    Returns (padded BGR uint8 image, scale) with ``input_xy + 0.5 = (image_xy + 0.5) * scale``."""
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (nw, nh), interpolation=interp)
    ph, pw = -(-nh // multiple) * multiple, -(-nw // multiple) * multiple
    out = np.full((ph, pw, 3), 114, np.uint8)
    out[:nh, :nw] = resized
    return out, scale


#: the longest resize period (source pixels per whole number of output pixels) :func:`resize_window` works by
#: periods; a longer one resizes the whole image
RESIZE_PERIOD_MAX = 512


def resize_plan(src_size: tuple[int, int], size: tuple[int, int], window: tuple[int, int, int, int]
                ) -> tuple[tuple[int, int, int, int], tuple[int, int], tuple[int, int]] | None:
    """How to area-resize only a part of an image of ``src_size`` to ``size`` and get the whole resize's pixels
    in ``window = (x0, y0, x1, y1)`` (output pixels): (the source rectangle, its output size, the window's
    offset in that output), or None when the scale's period is longer than :data:`RESIZE_PERIOD_MAX`.

    The part spans whole periods of the scale (``p`` source pixels to ``q`` output pixels, ``p / q`` the reduced
    ratio): an area resize averages each output pixel's own footprint, and footprints end on period boundaries,
    so such a part gives exactly the whole image's pixels (checked in the tests)."""
    (w, h), (nw, nh) = src_size, size
    x0, y0, x1, y1 = window
    gx, gy = math.gcd(w, nw), math.gcd(h, nh)
    px, qx, py, qy = w // gx, nw // gx, h // gy, nh // gy
    if max(px, py) > RESIZE_PERIOD_MAX:
        return None
    ax, bx = x0 // qx, min(gx, -(-x1 // qx))
    ay, by = y0 // qy, min(gy, -(-y1 // qy))
    return (ax * px, ay * py, bx * px, by * py), ((bx - ax) * qx, (by - ay) * qy), (x0 - ax * qx, y0 - ay * qy)


def resize_window(image: np.ndarray, size: tuple[int, int], window: tuple[int, int, int, int],
                  interpolation: int) -> np.ndarray:
    """``cv2.resize(image, size, interpolation=interpolation)[y0:y1, x0:x1]`` for ``window = (x0, y0, x1, y1)``
    (inside ``size``), resizing only the source around the window when the resize is an area one
    (:func:`resize_plan`): the same pixels, a small part of the work (a local change of a video frame is
    detected on a window of the letterboxed frame). Linear resizing (an enlargement) places its samples by
    floating-point arithmetic that differs between a part and the whole in the last bits: it resizes the whole
    image, as does an area resize whose period is too long."""
    x0, y0, x1, y1 = window
    plan = resize_plan((image.shape[1], image.shape[0]), size, window) if interpolation == cv2.INTER_AREA else None
    if plan is None:
        return cv2.resize(image, size, interpolation=interpolation)[y0:y1, x0:x1]
    (sx0, sy0, sx1, sy1), out_size, (ox, oy) = plan
    part = cv2.resize(image[sy0:sy1, sx0:sx1], out_size, interpolation=interpolation)
    return part[oy:oy + y1 - y0, ox:ox + x1 - x0]


def to_input(image: np.ndarray) -> np.ndarray:
    """BGR uint8 HxWx3 (or a batch) -> float32 NCHW in 0..1."""
    a = np.asarray(image)
    if a.ndim == 3:
        a = a[None]
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -50, 50)))


def find_peaks(heat: np.ndarray, threshold: float, max_peaks: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """(ys, xs) of 3x3 local maxima of ``heat`` [H, W] above ``threshold``, strongest first."""
    h, w = heat.shape
    pad = np.pad(heat, 1, constant_values=-np.inf)
    m = np.max(np.stack([pad[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)]), 0)
    ys, xs = np.nonzero((heat >= m) & (heat > threshold))
    order = np.argsort(-heat[ys, xs], kind="stable")[:max_peaks]
    return ys[order], xs[order]


def decode_maps(maps: np.ndarray, scale: float = 1.0, threshold: float = 0.3, stride: int = DET_STRIDE,
                nms_iou: float = 0.3, max_peaks: int = 400) -> dict[str, np.ndarray]:
    """Detector output [8, H, W] (or [1, 8, H, W]) -> boxes in original-image pixels.

    Returns ``obb`` [N, 5] (theta in [0, 180): the face's up or its opposite), ``quad`` [N, 4, 2],
    ``score`` [N] and ``face_up`` [N] (probability), after rotated NMS."""
    m = np.asarray(maps, np.float32)
    if m.ndim == 4:
        m = m[0]
    heat = sigmoid(m[0])
    ys, xs = find_peaks(heat, threshold, max_peaks)
    cx = (xs + m[1, ys, xs]) * stride + (stride - 1) / 2
    cy = (ys + m[2, ys, xs]) * stride + (stride - 1) / 2
    w, h = np.exp(np.clip(m[3, ys, xs], -3, 7)), np.exp(np.clip(m[4, ys, xs], -3, 7))
    theta = (np.degrees(np.arctan2(m[6, ys, xs], m[5, ys, xs])) / 2) % 180.0
    obb = np.stack([cx, cy, w, h, theta], 1).astype(np.float64) if len(ys) else np.zeros((0, 5))
    obb[:, :2] = (obb[:, :2] + 0.5) / scale - 0.5  # input pixel centres -> image pixel centres
    obb[:, 2:4] /= scale
    score = heat[ys, xs].astype(np.float64)
    face_up = sigmoid(m[7, ys, xs]).astype(np.float64)
    quad = obb_to_quad(obb)
    keep = rotated_nms(quad, score, nms_iou)
    return {"obb": obb[keep], "quad": quad[keep], "score": score[keep], "face_up": face_up[keep]}


# --------------------------------------------------------------------------- classifier pre/post


def crop_affine(obb: np.ndarray, size: tuple[int, int] = CROP_SIZE, margin: float = 0.0) -> np.ndarray:
    """2x3 matrix mapping crop pixels to image pixels for an oriented box (upright face crop)."""
    cx, cy, w, h, theta = (float(v) for v in obb)
    cw, ch = size
    t = math.radians(theta)
    up = np.array([math.sin(t), -math.cos(t)])
    right = np.array([math.cos(t), math.sin(t)])
    sx, sy = w * (1 + 2 * margin) / cw, h * (1 + 2 * margin) / ch
    # crop pixel (u, v): offset from the crop centre ((cw-1)/2, (ch-1)/2); v grows downwards = -up
    a = np.stack([right * sx, -up * sy], 1)
    b = np.array([cx, cy]) - a @ np.array([(cw - 1) / 2, (ch - 1) / 2])
    return np.concatenate([a, b[:, None]], 1)


def warp_crops(image: np.ndarray, obbs: np.ndarray, size: tuple[int, int] = CROP_SIZE,
               margin: float = 0.0) -> np.ndarray:
    """Upright crops [N, h, w, 3] uint8 of the oriented boxes ``obbs`` [N, 5] (theta = face up)."""
    obbs = np.asarray(obbs, np.float64).reshape(-1, 5)
    out = np.zeros((len(obbs), size[1], size[0], 3), np.uint8)
    ih, iw = image.shape[:2]
    for i, o in enumerate(obbs):
        M = crop_affine(o, size, margin)
        shrink = max(o[2] / size[0], o[3] / size[1]) * (1 + 2 * margin) / AA_SHRINK
        if shrink > 1.0:
            # a box much bigger than the crop (a close-up): area-average its neighbourhood down first, so the
            # crop is not aliased (bilinear sampling alone skips most of the pixels)
            r = 0.5 * math.hypot(o[2], o[3]) * (1 + 2 * margin) + 2
            x0, y0 = max(0, int(o[0] - r)), max(0, int(o[1] - r))
            x1, y1 = min(iw, int(math.ceil(o[0] + r)) + 1), min(ih, int(math.ceil(o[1] + r)) + 1)
            if x1 - x0 >= 2 and y1 - y0 >= 2:
                sw, sh = max(1, int(round((x1 - x0) / shrink))), max(1, int(round((y1 - y0) / shrink)))
                small = cv2.resize(image[y0:y1, x0:x1], (sw, sh), interpolation=cv2.INTER_AREA)
                kx, ky = sw / (x1 - x0), sh / (y1 - y0)
                # image pixel p -> small pixel ((p - origin + 0.5) * k - 0.5)
                S = np.array([[kx, 0, (0.5 - x0) * kx - 0.5], [0, ky, (0.5 - y0) * ky - 0.5]])
                M2 = S[:, :2] @ M
                M2[:, 2] += S[:, 2]
                out[i] = cv2.warpAffine(small, M2, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                        borderMode=cv2.BORDER_REPLICATE)
                continue
        out[i] = cv2.warpAffine(image, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


#: boxes more than this many times the crop's size are area-averaged before the warp (see warp_crops)
AA_SHRINK = 1.6


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    z = np.asarray(x, np.float64)
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def topk(probs: np.ndarray, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(indices [N, k], probabilities [N, k]) of the k most probable classes per row."""
    p = np.asarray(probs).reshape(len(probs), -1)
    k = min(k, p.shape[1])
    idx = np.argsort(-p, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(p, idx, 1)
