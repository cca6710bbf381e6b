"""Classifier training crops made on the fly, shaped like what a detector's box really cuts out of a photo.

Real boxes are not the tight upright crops a renderer gives: the box is turned (up to +-45 degrees) or on the
wrong axis (a sideways tile), misfitted (IoU 0.5-1 with the face), the tile's side and its back layer show,
the camera sees the face in perspective, neighbours of a row stick into the box, the tile may be 12 or 400
pixels tall, and the detector boxes things that are no tile at all: a half of each of two neighbours, a single
pip or stick of a close-up, the tile's edge, cloth, wood, granite, a bamboo mat, keyboard keys. This module
makes such crops, each through :func:`vision.geometry.warp_crops` (the crop path inference uses):

* :class:`FaceBank`: clean face ink layers per kind from every art pack and the procedural renderer (many
  styles), built once (about a minute) and cached; the *held-out* bank uses only art and fonts that training
  never sees (:data:`HELD_OUT_PACKS`, :data:`HELD_OUT_FONTS`), to measure reading a set of unknown looks;
* :class:`CropSynth`: ``batch(n, rng) -> (crops [n, 96, 72, 3], kinds [n], flips [n], flip_known [n])``;
* :func:`place_face`: a given face picture (e.g. a real crop) laid on a table and cut by a misfitted,
  turned box: the "real crops placed as on a table" evaluation.

Deterministic in the generator passed; no file is written except the bank's cache.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import CROP_SIZE, quad_to_obb, warp_crops

from . import fonts
from .art import ArtLibrary
from .codes import TILE_CODES
from .procedural import _FLOWER_CHARS, _SEASON_CHARS, _draw_text, _hershey, _Ink, random_style, render_ink

KINDS: tuple[str, ...] = TILE_CODES + ("none",)
NONE = len(TILE_CODES)
BACK = TILE_CODES.index("bk")
INK_SIZE = (120, 160)          # (w, h) of the bank's face ink layers
HELD_OUT_PACKS: tuple[str, ...] = ("lietxia",)     # art never trained on (the held-out evaluation's looks)
HELD_OUT_FONTS: tuple[str, ...] = ("uming",)       # CJK fonts never trained on (procedural held-out faces)
RED_FIVES = {"0m", "0p", "0s", "5m", "5p", "5s"}   # colour tells them apart: no channel permutation
BODIES = ((222, 236, 242), (236, 240, 241), (212, 232, 244), (230, 236, 240), (244, 244, 244), (198, 222, 238),
          (226, 234, 236), (205, 215, 225), (180, 200, 215), (200, 230, 235), (235, 245, 250))
BACK_LAYERS = ((60, 140, 40), (170, 95, 30), (60, 185, 235), (45, 120, 230), (150, 110, 230), (40, 40, 170),
               (60, 90, 20), (130, 60, 20), (40, 40, 40), (200, 200, 205), (30, 120, 200), (120, 150, 60))


def cache_dir() -> Path:
    env = os.environ.get("MAHJONG_ASSISTANT_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "mahjong-assistant") / "crop-synth"


# --------------------------------------------------------------------------- the face bank


def _font_allowed(held_out: bool) -> list[int]:
    """Indices into fonts.cjk_fonts() that a bank may use (training: none of HELD_OUT_FONTS; held-out: only
    those, or all when the machine has none of them)."""
    refs = fonts.cjk_fonts()
    held = [i for i, r in enumerate(refs) if any(h in Path(r.path).name for h in HELD_OUT_FONTS)]
    if held_out:
        return held or list(range(len(refs))) or [-1]
    return [i for i in range(len(refs)) if i not in held] or [-1]


def _style(rng: np.random.Generator, allowed_fonts: Sequence[int]):
    style = random_style(rng)
    return replace(style, font=int(allowed_fonts[int(rng.integers(len(allowed_fonts)))]))


def _over(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    a = top[..., 3:4].astype(np.float32) / 255.0
    return np.clip(top.astype(np.float32) + bottom.astype(np.float32) * (1 - a) + 0.5, 0, 255).astype(np.uint8)


def _corner_numerals(code: str, rng: np.random.Generator, allowed_fonts: Sequence[int]) -> np.ndarray:
    """Ink with a flower/season's numeral and character where real sets print them (either top corner, side
    by side in one corner, or a Chinese numeral)."""
    style = _style(rng, allowed_fonts)
    rank, suit = int(code[0]), code[1]
    ink = _Ink(INK_SIZE, stroke=style.stroke)
    char = (_FLOWER_CHARS if suit == "f" else _SEASON_CHARS)[rank - 1]
    colour = style.red if rng.random() < 0.5 else style.blue
    char_colour = style.ink if rng.random() < 0.5 else style.red
    left, right = (-0.06, -0.04, 0.2, 0.2), (0.8, -0.04, 1.06, 0.2)
    layout = rng.random()
    if layout < 0.25:
        x0 = -0.06 if rng.random() < 0.7 else 0.5
        _hershey(ink, str(rank), (x0, -0.04, x0 + 0.22, 0.2), colour)
        _draw_text(ink, char, (x0 + 0.22, -0.04, x0 + 0.5, 0.22), char_colour, style)
        return ink.result()
    num_box, char_box = (left, right) if rng.random() < 0.6 else (right, left)
    if layout < 0.4:
        _draw_text(ink, "一二三四"[rank - 1], num_box, colour, style)
    else:
        _hershey(ink, str(rank), num_box, colour)
    if rng.random() < 0.85:
        _draw_text(ink, char, char_box, char_colour, style)
    return ink.result()


class FaceBank:
    """Face ink layers (premultiplied BGRA, :data:`INK_SIZE`) per classifier kind (``none`` has none)."""

    def __init__(self, inks: list[np.ndarray], kinds: np.ndarray):
        self.inks = inks
        self.kinds = np.asarray(kinds, np.int16)
        self.by_kind = [np.nonzero(self.kinds == k)[0] for k in range(len(TILE_CODES))]

    def __len__(self) -> int:
        return len(self.inks)

    def pick(self, kind: int, rng: np.random.Generator) -> np.ndarray:
        idx = self.by_kind[kind]
        return self.inks[int(idx[int(rng.integers(len(idx)))])]

    @classmethod
    def build(cls, per_code: int = 90, bonus_per_code: int = 220, seed: int = 0, held_out: bool = False,
              art: ArtLibrary | None = None, progress: Callable[[str], None] | None = None) -> FaceBank:
        """``per_code`` inks per kind (``bonus_per_code`` for flowers and seasons), art and procedural styles
        mixed; ``held_out`` draws from the held-out packs and fonts only (and the procedural renderer)."""
        art = art if art is not None else ArtLibrary()
        allowed = _font_allowed(held_out)
        rng = np.random.default_rng([seed, 1 if held_out else 0])
        inks, kinds = [], []
        for k, code in enumerate(TILE_CODES):
            entries = [e for e in art.entries(code)
                       if (e.pack in HELD_OUT_PACKS) == held_out and not (held_out and e.is_font)]
            bonus = code[-1] in "fg" and code not in ("jk", "bk")
            n = bonus_per_code if bonus else per_code
            for _ in range(n):
                ink = None
                r = rng.random()
                if bonus and r < 0.45:   # a random flower/season drawing with the right corner numerals
                    donor = f"{int(rng.integers(1, 5))}{'fg'[int(rng.integers(2))]}"
                    base = render_ink(donor, _style(rng, allowed), INK_SIZE).copy()
                    h, w = base.shape[:2]
                    base[: int(0.3 * h), : int(0.4 * w)] = 0
                    base[: int(0.3 * h), w - int(0.4 * w):] = 0
                    ink = _over(_corner_numerals(code, rng, allowed), base)
                elif entries and r < 0.75:
                    e = entries[int(rng.integers(len(entries)))]
                    colour = ((40, 40, 200) if code.startswith("0") else (25, 20, 20)) if rng.random() < 0.5 else \
                        tuple(int(c) for c in rng.integers(0, 120, 3))
                    ink = art.ink(e, INK_SIZE, colour)
                if ink is None:
                    ink = render_ink(code, _style(rng, allowed), INK_SIZE)
                inks.append(np.ascontiguousarray(ink))
                kinds.append(k)
            if progress is not None:
                progress(f"face bank: {code} ({len(inks)} inks)")
        return cls(inks, np.array(kinds))

    @classmethod
    def cached(cls, held_out: bool = False, per_code: int = 90, bonus_per_code: int = 220, seed: int = 0,
               progress: Callable[[str], None] | None = None) -> FaceBank:
        """:meth:`build`, kept in the cache folder (``$MAHJONG_ASSISTANT_CACHE/crop-synth``)."""
        which = "held" if held_out else "train"
        name = f"bank-{which}-{per_code}-{bonus_per_code}-{seed}-f{len(fonts.cjk_fonts())}.npz"
        path = cache_dir() / name
        if path.is_file():
            z = np.load(path)
            return cls(list(z["inks"]), z["kinds"])
        bank = cls.build(per_code, bonus_per_code, seed, held_out, progress=progress)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, inks=np.stack(bank.inks), kinds=bank.kinds)
        os.replace(tmp, path)
        return bank


# --------------------------------------------------------------------------- surfaces


def _noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    g = rng.random((cells + 1, cells + 1)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A table or background texture: felt, wood, granite, bamboo mat, patterned cloth, keyboard keys,
    paper; BGR uint8 [h, w, 3]."""
    kind = rng.random()
    base = rng.integers(0, 256, 3).astype(np.float32)
    if kind < 0.25:     # felt / cloth: a colour with soft noise
        img = base[None, None] * (0.85 + 0.3 * _noise(rng, h, w, int(rng.integers(2, 12))))[..., None]
        img += rng.normal(0, rng.uniform(2, 10), (h, w, 1))
    elif kind < 0.38:   # wood grain
        base = np.array([rng.uniform(30, 120), rng.uniform(60, 160), rng.uniform(100, 210)], np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, math.pi)
        t = xx * math.cos(a) + yy * math.sin(a)
        grain = np.sin(t / rng.uniform(2, 9) + 6 * _noise(rng, h, w, 4)) * 0.5 + 0.5
        img = base[None, None] * (0.75 + 0.35 * grain)[..., None]
    elif kind < 0.5:    # granite / terrazzo: speckles of a few colours
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        cols = rng.integers(0, 256, (4, 3))
        n = int(h * w * rng.uniform(0.004, 0.03))
        ys, xs = rng.integers(0, h, n), rng.integers(0, w, n)
        rs = rng.integers(1, 4, n)
        ci = rng.integers(0, 4, n)
        for y, x, r, c in zip(ys, xs, rs, ci, strict=True):
            cv2.circle(img, (int(x), int(y)), int(r), cols[c].tolist(), -1)
        img = cv2.GaussianBlur(img, (0, 0), 0.7)
    elif kind < 0.62:   # bamboo mat / slats: parallel strips with dark joints
        base = np.array([rng.uniform(60, 150), rng.uniform(130, 200), rng.uniform(170, 235)], np.float32)
        pitch = rng.uniform(5, 30)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, math.pi)
        t = (xx * math.cos(a) + yy * math.sin(a)) % pitch
        img = base[None, None] * (0.9 + 0.2 * _noise(rng, h, w, 6))[..., None]
        img[t < rng.uniform(0.6, 2.5)] *= rng.uniform(0.4, 0.7)
        if rng.random() < 0.5:   # woven: cross joints
            t2 = (xx * -math.sin(a) + yy * math.cos(a)) % (pitch * rng.uniform(2, 6))
            img[t2 < 1.2] *= 0.7
    elif kind < 0.74:   # patterned cloth: checks, stripes, dots, flowers
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        other = rng.integers(0, 256, 3).tolist()
        p = int(rng.integers(6, 40))
        style = rng.integers(3)
        for y in range(0, h, p):
            for x in range(0, w, p):
                if style == 0 and ((x // p + y // p) % 2 == 0):
                    img[y:y + p, x:x + p] = other
                elif style == 1:
                    cv2.circle(img, (x + p // 2, y + p // 2), max(1, p // 4), other, -1)
                elif style == 2 and rng.random() < 0.5:
                    c = (x + int(rng.integers(p)), y + int(rng.integers(p)))
                    for k in range(5):
                        ang = k * 2 * math.pi / 5
                        cv2.circle(img, (int(c[0] + p / 4 * math.cos(ang)), int(c[1] + p / 4 * math.sin(ang))),
                                   max(1, p // 6), other, -1)
    elif kind < 0.86:   # keyboard keys / tiles of another kind: light rounded squares with a letter
        dark = rng.random() < 0.5
        img = np.empty((h, w, 3), np.uint8)
        img[:] = (30, 30, 30) if dark else np.clip(base * 0.5, 0, 255).astype(np.uint8)
        key = int(rng.integers(14, 48))
        gap = max(2, key // 8)
        keycol = (50, 50, 55) if dark else tuple(int(v) for v in rng.integers(180, 250, 3))
        txt = (230, 230, 230) if dark else (40, 40, 40)
        letters = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890"
        for y in range(-key // 2, h, key + gap):
            off = int(rng.integers(0, key))
            for x in range(-off, w, key + gap):
                cv2.rectangle(img, (x, y), (x + key, y + key), keycol, -1, cv2.LINE_AA)
                cv2.putText(img, letters[int(rng.integers(len(letters)))], (x + key // 4, y + 3 * key // 4),
                            cv2.FONT_HERSHEY_SIMPLEX, key / 40, txt, max(1, key // 20), cv2.LINE_AA)
    else:               # paper / plain pale surface with print, or a pale cloth (white tiles on it are hard)
        pale = rng.integers(170, 250, 3).astype(np.float32)
        img = np.clip(pale[None, None] * (0.92 + 0.1 * _noise(rng, h, w, 5))[..., None], 0, 255).astype(np.uint8)
        for _ in range(int(rng.integers(0, 6))):
            y, x = int(rng.integers(h)), int(rng.integers(w))
            cv2.putText(img, "".join(chr(int(c)) for c in rng.integers(65, 91, 6)), (x, y),
                        cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.3, 1.2), (60, 60, 60), 1, cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- a tile on a table


@dataclass
class _Patch:
    image: np.ndarray        # BGR, the camera's pixels around the tile
    quad: np.ndarray         # [4, 2] the main tile's face TL TR BR BL (as it reads upright)
    pitch: np.ndarray        # [2] image vector from the main face's centre to the right neighbour's (0 if none)
    side: np.ndarray | None  # [4, 2] the visible side strip of the main tile, or None


def _face_texture(ink: np.ndarray, body: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """BGR face: the ink on a body with a margin, rounded darker rim."""
    from .procedural import compose_face

    face = compose_face(ink, body)
    if rng.random() < 0.5:  # a wider plain border around the printed area
        p = int(rng.integers(2, 10))
        h, w = face.shape[:2]
        big = np.empty((h + 2 * p, w + 2 * p, 3), np.uint8)
        big[:] = np.clip(body * 0.97, 0, 255).astype(np.uint8)
        big[p:p + h, p:p + w] = face
        face = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return face


def _tile_canvas(faces: Sequence[np.ndarray], rng: np.random.Generator, bg: np.ndarray, body: np.ndarray,
                 layer: np.ndarray, gap: float, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw a row of tiles (the middle one is the main tile) at texture scale on ``bg``; returns the canvas,
    the main face's quad and its side strip (canvas pixels)."""
    canvas = bg.copy()
    h, w = faces[0].shape[:2]
    ch, cw = canvas.shape[:2]
    n = len(faces)
    mid = n // 2
    x0 = cw / 2 - w / 2 - mid * (w + gap)
    y0 = ch / 2 - h / 2
    main_quad = main_side = None
    rim = np.clip(body * rng.uniform(0.7, 0.9), 0, 255)
    for i, face in enumerate(faces):
        x = x0 + i * (w + gap)
        rect = np.array([[x, y0], [x + w, y0], [x + w, y0 + h], [x, y0 + h]], np.float64)
        if depth is not None and np.linalg.norm(depth) > 0.5:
            shifted = rect + depth
            hull = cv2.convexHull(np.concatenate([rect, shifted]).astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(canvas, np.round(hull * 16).astype(np.int32), rim.tolist(), cv2.LINE_AA, 4)
            # the back layer: the far part of the side, in the back's colour
            frac = rng.uniform(0.35, 0.7)
            far = np.concatenate([rect + depth * frac, shifted])
            hull2 = cv2.convexHull(far.astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(canvas, np.round(hull2 * 16).astype(np.int32), layer.tolist(), cv2.LINE_AA, 4)
            if i == mid:
                main_side = np.array([rect[0] + depth, rect[1] + depth, rect[2] + depth, rect[3] + depth])
        xi, yi = int(round(x)), int(round(y0))
        if 0 <= xi and xi + w <= cw:
            canvas[yi:yi + h, xi:xi + w] = face
        if i == mid:
            main_quad = rect
    return canvas, main_quad, main_side


def _homography(rng: np.random.Generator, size_px: float, theta: float, squash: float, squash_axis: float,
                persp: float, src_h: float) -> np.ndarray:
    """Canvas -> image: scale so the face is ``size_px`` tall, squash along one axis (a camera's tilt), a little
    perspective, turn by ``theta`` (degrees clockwise)."""
    s = size_px / src_h
    S = np.diag([s, s, 1.0])
    a = math.radians(squash_axis)
    R1 = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    Q = np.diag([1.0, squash, 1.0])
    t = math.radians(theta)
    R = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]])
    P = np.eye(3)
    P[2, :2] = rng.normal(0, persp, 2) / max(size_px, 1.0)
    return R @ R1 @ Q @ R1.T @ P @ S


def _camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light gradient, exposure, colour cast, shadow or glare, blur, low resolution, noise, JPEG."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    a = rng.uniform(0, 2 * math.pi)
    grad = 1 + rng.uniform(0, 0.4) * ((xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a))
    f = f * grad[..., None] * rng.uniform(0.55, 1.25) + rng.uniform(-25, 25)
    f = f * rng.uniform(0.88, 1.12, 3)[None, None]
    r = rng.random()
    if r < 0.2:   # a shadow over part of it
        pts = rng.uniform(0, 1, (4, 2)) * 64
        m = np.zeros((64, 64), np.float32)
        cv2.fillConvexPoly(m, cv2.convexHull(pts.astype(np.float32)).astype(np.int32), 1.0)
        m = cv2.resize(cv2.GaussianBlur(m, (0, 0), 3.0), (w, h))
        f *= (1 - rng.uniform(0.2, 0.5) * m)[..., None]
    elif r < 0.32:  # glare on a glossy face
        m = np.zeros((64, 64), np.float32)
        cv2.ellipse(m, (int(rng.uniform(0, 64)), int(rng.uniform(0, 64))),
                    (int(rng.uniform(0.05, 0.3) * 64) + 1, int(rng.uniform(0.02, 0.15) * 64) + 1),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        m = cv2.resize(cv2.GaussianBlur(m, (0, 0), 2.0), (w, h))
        f += rng.uniform(40, 140) * m[..., None]
    if rng.random() < 0.5:
        f = cv2.GaussianBlur(f, (0, 0), float(rng.uniform(0.3, 1.4)))
    f = f + rng.normal(0, rng.uniform(0, 8), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


def _tile_angle(rng: np.random.Generator) -> float:
    """How the face's up lies in the image: mostly near the four quarter turns, some anywhere."""
    r = rng.random()
    if r < 0.08:
        return float(rng.uniform(0, 360))
    base = 0.0 if r < 0.5 else float(90 * rng.integers(1, 4))
    return (base + rng.normal(0, 6 if rng.random() < 0.7 else 18)) % 360


RENDER_CAP = 130.0   # faces taller than this are drawn at this height (the 96-pixel crop cannot tell)


def _size_px(rng: np.random.Generator) -> float:
    """Face height in image pixels: log-uniform 16-420 (far tiles of a whole table to phone close-ups),
    drawn at most :data:`RENDER_CAP` tall."""
    return min(RENDER_CAP, float(math.exp(rng.uniform(math.log(16), math.log(420)))))


def lay_tiles(faces: Sequence[np.ndarray], rng: np.random.Generator, backgrounds: Sequence[np.ndarray] = (),
              body: np.ndarray | None = None) -> _Patch:
    """The row ``faces`` (BGR, all one size; the middle one is the main tile) lying on a surface, as a camera
    sees it: turned, tilted, scaled, lit. Returns the image patch and where the main face is in it."""
    h, w = faces[0].shape[:2]
    body = body if body is not None else np.array(BODIES[int(rng.integers(len(BODIES)))], np.float64)
    layer = np.array(BACK_LAYERS[int(rng.integers(len(BACK_LAYERS)))], np.float64)
    if rng.random() < 0.35:
        layer = np.clip(body * rng.uniform(0.8, 0.95), 0, 255)   # one-colour tiles
    gap = float(rng.uniform(0, 0.08) * w)
    span = len(faces) * (w + gap)
    cw, ch = int(span + 2.2 * w), int(3.2 * h)
    if backgrounds:
        src = backgrounds[int(rng.integers(len(backgrounds)))]
        y = int(rng.integers(0, max(1, src.shape[0] - ch // 3)))
        x = int(rng.integers(0, max(1, src.shape[1] - cw // 3)))
        bg = cv2.resize(src[y:y + ch // 3 + 1, x:x + cw // 3 + 1], (cw, ch), interpolation=cv2.INTER_LINEAR)
    else:
        bg = surface(rng, ch // 2, cw // 2)
        bg = cv2.resize(bg, (cw, ch), interpolation=cv2.INTER_LINEAR)
    theta = _tile_angle(rng)
    depth = None
    if rng.random() < 0.85:
        # the side that shows is the one towards the camera: a direction in the image (mostly down), whichever
        # way the tile lies; drawn on the canvas turned back by the tile's angle (a side strip that turned
        # with the tile would tell the classifier which way is up)
        a = rng.normal(math.pi / 2, 0.6) if rng.random() < 0.7 else rng.uniform(0, 2 * math.pi)
        a -= math.radians(theta)
        depth = np.array([math.cos(a), math.sin(a)]) * rng.uniform(0.03, 0.45) * h
    canvas, quad, side = _tile_canvas(faces, rng, bg, body, layer, gap, depth)
    size = _size_px(rng)
    squash = 1.0 if rng.random() < 0.3 else float(rng.uniform(0.45, 1.0))
    centre = quad.mean(0)
    C = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]], np.float64)   # main face at the origin
    H = _homography(rng, size, theta, squash, float(rng.uniform(0, 180)), rng.uniform(0, 0.12), h) @ C
    # the patch: the main tile and what a misfitted box around it may reach
    fq = cv2.perspectiveTransform(quad[None], H)[0]
    c = fq.mean(0)
    reach = min(0.85 * float(np.linalg.norm(fq[2] - fq[0])) + 4, 2 * RENDER_CAP)
    T = np.array([[1, 0, -(c[0] - reach)], [0, 1, -(c[1] - reach)], [0, 0, 1]], np.float64)
    H = T @ H
    pw = ph = int(2 * reach)
    # pre-shrink the canvas when the tile is small in the image (no aliasing); H stays canvas -> image
    warp = H
    shrink = size / h
    if shrink < 0.7:
        f = max(shrink * 1.4, 4.0 / h)
        small = cv2.resize(canvas, (max(2, int(cw * f)), max(2, int(ch * f))), interpolation=cv2.INTER_AREA)
        warp = H @ np.diag([cw / small.shape[1], ch / small.shape[0], 1.0])
        canvas = small
    img = cv2.warpPerspective(canvas, warp, (int(pw), int(ph)), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    Hq = H
    img = _camera(img, rng)
    q = cv2.perspectiveTransform(quad[None], Hq)[0]
    pitch = np.zeros(2)
    if len(faces) > 1:
        c = quad.mean(0)
        right = cv2.perspectiveTransform(np.array([[c, c + [w + gap, 0]]], np.float64), Hq)[0]
        pitch = right[1] - right[0]
    s = cv2.perspectiveTransform(side[None], Hq)[0] if side is not None else None
    return _Patch(img, q, pitch, s)


# --------------------------------------------------------------------------- boxes like a detector's


def jitter_box(obb: np.ndarray, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    """A detector-like box around a true face box: centre off by a few percent, sizes off, turned (mostly a
    few degrees, sometimes up to 45)."""
    o = np.array(obb, np.float64)
    s = math.sqrt(max(o[2] * o[3], 1.0))
    o[:2] += rng.normal(0, 0.05 * scale, 2) * s
    o[2] *= math.exp(rng.normal(0, 0.08 * scale))
    o[3] *= math.exp(rng.normal(0, 0.08 * scale))
    r = rng.random()
    o[4] += rng.normal(0, 3) if r < 0.6 else rng.normal(0, 10) if r < 0.85 else rng.uniform(-45, 45)
    return o


def _cut(img: np.ndarray, obb: np.ndarray, rng: np.random.Generator, wrong_axis: bool = False):
    """The crop a box ``obb`` (true up direction) gives at inference: the detector knows up only modulo 180
    (the flip head decides), so the box's up is folded into [0, 180). Returns (crop, flipped)."""
    o = np.array(obb, np.float64)
    if wrong_axis:
        o[2], o[3] = o[3], o[2]
        o[4] += 90
    theta = o[4] % 360
    flipped = theta >= 180
    o[4] = theta % 180
    margin = float(rng.uniform(-0.03, 0.06))
    return warp_crops(img, o[None], CROP_SIZE, margin)[0], bool(flipped)


class CropSynth:
    """Training crops on the fly (see the module's doc). ``none_share`` of each batch is "not a tile";
    ``back_share`` backs; the rest is spread over the tile kinds (flowers/seasons ``bonus_weight`` times
    as often)."""

    def __init__(self, bank: FaceBank, backgrounds: Sequence[np.ndarray] = (), none_share: float = 0.16,
                 back_share: float = 0.04, bonus_weight: float = 1.5, wrong_axis: float = 0.06,
                 kinds: Sequence[int] | None = None):
        self.bank = bank
        self.backgrounds = list(backgrounds)
        self.none_share, self.back_share, self.wrong_axis = none_share, back_share, wrong_axis
        tile_kinds = [k for k in (kinds if kinds is not None else range(len(TILE_CODES)))
                      if k != BACK and len(bank.by_kind[k])]
        wts = np.array([bonus_weight if TILE_CODES[k][-1] in "fg" else 1.0 for k in tile_kinds])
        self.tile_kinds, self.tile_w = np.array(tile_kinds), wts / wts.sum()
        self.has_back = len(bank.by_kind[BACK]) > 0
        self._pool: list[np.ndarray] = []

    def _surfaces(self, rng: np.random.Generator) -> list[np.ndarray]:
        """A pool of 256 surfaces (each 160x224), an eighth of it renewed per call."""
        if not self._pool:
            self._pool = [surface(rng, 160, 224) for _ in range(256)]
        else:
            for _ in range(32):
                self._pool[int(rng.integers(len(self._pool)))] = surface(rng, 160, 224)
        return self._pool

    def _backs(self) -> list[np.ndarray]:
        return getattr(self, "_current", None) or self.backgrounds

    def _face(self, kind: int, rng: np.random.Generator, body: np.ndarray) -> np.ndarray:
        ink = self.bank.pick(kind, rng)
        if kind == BACK:
            from .procedural import compose_face

            return compose_face(ink, body)
        return _face_texture(ink, body, rng)

    def _row(self, kind: int, rng: np.random.Generator, body: np.ndarray) -> list[np.ndarray]:
        main = self._face(kind, rng, body)
        r = rng.random()
        if r < 0.35:
            return [main]
        n_side = 1 if r < 0.6 else 2
        left = [self._face(int(self._any_kind(rng)), rng, body) for _ in range(n_side)]
        right = [self._face(int(self._any_kind(rng)), rng, body) for _ in range(n_side)]
        return left + [main] + right

    def _any_kind(self, rng: np.random.Generator) -> int:
        return int(rng.choice(self.tile_kinds, p=self.tile_w))

    def sample(self, rng: np.random.Generator) -> tuple[np.ndarray, int, bool, bool]:
        """One crop: (crop, kind, flipped, flip_known)."""
        body = np.array(BODIES[int(rng.integers(len(BODIES)))], np.float64) + rng.integers(-14, 10, 3)
        r = rng.random()
        if r < self.none_share:
            return self._none(rng, body)
        kind = BACK if (r < self.none_share + self.back_share and self.has_back) else self._any_kind(rng)
        if kind == BACK:
            body = np.array(BACK_LAYERS[int(rng.integers(len(BACK_LAYERS)))], np.float64)
        patch = lay_tiles(self._row(kind, rng, body), rng, self._backs(), body)
        obb = jitter_box(quad_to_obb(patch.quad[None])[0], rng)
        wrong = rng.random() < self.wrong_axis
        crop, flipped = _cut(patch.image, obb, rng, wrong)
        if rng.random() < 0.1 and kind not in (BACK,) and TILE_CODES[kind] not in RED_FIVES:
            crop = crop[..., rng.permutation(3)]
        if rng.random() < 0.08:
            crop = np.repeat(crop.mean(-1, keepdims=True).astype(np.uint8), 3, -1)
        return crop, kind, flipped, not wrong and kind != BACK

    def _none(self, rng: np.random.Generator, body: np.ndarray):
        kind = self._any_kind(rng)
        r = rng.random()
        if r < 0.25:     # a surface and nothing else
            h = int(rng.integers(40, 200))
            src = self._backs()[int(rng.integers(len(self._backs())))] if self._backs() else surface(rng, 160, 224)
            img = _camera(cv2.resize(src, (int(h * rng.uniform(0.6, 1.6)), h)), rng)
            ih, iw = img.shape[:2]
            s = rng.uniform(0.3, 0.9) * min(ih, iw)
            obb = np.array([iw / 2, ih / 2, s * rng.uniform(0.6, 1.0), s, rng.uniform(0, 360)])
            return _cut(img, obb, rng)[0], NONE, False, False
        faces = [self._face(self._any_kind(rng), rng, body) for _ in range(3)]
        faces[1] = self._face(kind, rng, body)
        patch = lay_tiles(faces, rng, self._backs(), body)
        obb = quad_to_obb(patch.quad[None])[0]
        if r < 0.5:      # astride two neighbours
            obb[:2] += patch.pitch * rng.choice([-1, 1]) * rng.uniform(0.4, 0.6)
        elif r < 0.72:   # a part of the face: one pip, a stick, a character (a close-up split by the detector)
            f = rng.uniform(0.22, 0.5)
            t = math.radians(obb[4])
            right, up = np.array([math.cos(t), math.sin(t)]), np.array([math.sin(t), -math.cos(t)])
            obb[:2] += right * obb[2] * rng.uniform(-0.5 + f / 2, 0.5 - f / 2) + \
                up * obb[3] * rng.uniform(-0.5 + f / 2, 0.5 - f / 2)
            obb[2] *= f * rng.uniform(0.8, 1.25)
            obb[3] *= f * rng.uniform(0.8, 1.25)
        else:            # a box mostly off the tile
            t = rng.uniform(0, 2 * math.pi)
            obb[:2] += np.array([math.cos(t) * obb[2], math.sin(t) * obb[3]]) * rng.uniform(0.75, 1.1)
        obb[4] += rng.normal(0, 6)
        return _cut(patch.image, obb, rng)[0], NONE, False, False

    def batch(self, n: int, rng: np.random.Generator):
        self._current = self._surfaces(rng) + self.backgrounds
        xs = np.empty((n, CROP_SIZE[1], CROP_SIZE[0], 3), np.uint8)
        ys = np.empty(n, np.int64)
        fl = np.zeros(n, bool)
        known = np.zeros(n, bool)
        for i in range(n):
            xs[i], ys[i], fl[i], known[i] = self.sample(rng)
        return xs, ys, fl, known


# --------------------------------------------------------------------------- a given picture placed


def place_face(picture: np.ndarray, rng: np.random.Generator, turn: float = 30.0,
               iou: tuple[float, float] = (0.6, 0.9), backgrounds: Sequence[np.ndarray] = (),
               return_box: bool = False):
    """A face picture (BGR, e.g. a real tight crop) laid on a varied surface, turned up to ``turn`` degrees,
    cut by a box misfitted to an IoU in ``iou`` with the face, through the inference crop path; upright crop
    (or, ``return_box``, the image and the box [5] to cut it with)."""
    from vision.geometry import obb_to_quad, quad_iou

    face = cv2.resize(picture, INK_SIZE, interpolation=cv2.INTER_AREA)
    h, w = face.shape[:2]
    ch, cw = int(2.4 * h), int(2.4 * w)
    bg = cv2.resize(surface(rng, ch // 2, cw // 2), (cw, ch)) if not backgrounds or rng.random() < 0.5 else \
        cv2.resize(backgrounds[int(rng.integers(len(backgrounds)))], (cw, ch))
    y0, x0 = (ch - h) // 2, (cw - w) // 2
    bg[y0:y0 + h, x0:x0 + w] = face
    size = float(rng.uniform(60, 160))
    theta = float(rng.uniform(-turn, turn))
    s = size / h
    t = math.radians(theta)
    M = np.array([[s * math.cos(t), -s * math.sin(t), 0], [s * math.sin(t), s * math.cos(t), 0]])
    corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
    proj = corners @ M[:, :2].T
    lo = proj.min(0)
    M[:, 2] = -lo + 2
    pw, ph = (proj.max(0) - lo + 4).astype(int)
    img = cv2.warpAffine(bg, M, (int(pw), int(ph)), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
    quad = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float64) @ M[:, :2].T + M[:, 2]
    true = quad_to_obb(quad[None])[0]
    target = rng.uniform(*iou)
    best, best_gap = true, 9.0
    for _ in range(40):   # a box whose IoU with the face is near the target
        o = true.copy()
        sc = rng.uniform(0.05, 0.35)
        o[:2] += rng.normal(0, sc, 2) * np.array([true[2], true[3]])
        o[2] *= math.exp(rng.normal(0, sc))
        o[3] *= math.exp(rng.normal(0, sc))
        o[4] += rng.normal(0, 4)
        gap = abs(quad_iou(obb_to_quad(o[None])[0], quad) - target)
        if gap < best_gap:
            best, best_gap = o, gap
        if gap < 0.02:
            break
    best[4] %= 180.0
    if return_box:
        return img, best
    return warp_crops(img, best[None], CROP_SIZE, 0.0)[0]


# --------------------------------------------------------------------------- a whole photo of laid-out rows


def render_layout(rows: Sequence[Sequence[np.ndarray]], rng: np.random.Generator, size: tuple[int, int] = (1280, 960),
                  body: np.ndarray | None = None, tilt: float = 0.15, turn: float = 6.0,
                  fill: float = 0.8, face_px: float | None = None) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    """A photo from above of face textures (BGR, one size) laid in ``rows`` on a surface, like the enrollment
    layout: returns the image and each tile's face quad (TL TR BR BL) per row. The layout fills ``fill`` of
    the photo, or its faces are ``face_px`` tall (a close-up: rows may then run past the photo's edges)."""
    h, w = rows[0][0].shape[:2]
    body = body if body is not None else np.array(BODIES[int(rng.integers(len(BODIES)))], np.float64)
    gap, row_gap = 0.06 * w, 0.45 * h
    n_cols = max(len(r) for r in rows)
    lw = int(n_cols * (w + gap) + 2 * w)
    lh = int(len(rows) * (h + row_gap) + 1.5 * h)
    W, Hh = size
    s = fill * min(W / lw, Hh / lh) if face_px is None else face_px / h
    # the surface reaches past the photo's edges
    cw, ch = max(int(lw * 1.8), int(1.6 * W / s)), max(int(lh * 1.8), int(1.6 * Hh / s))
    canvas = cv2.resize(surface(rng, ch // 3, cw // 3), (cw, ch), interpolation=cv2.INTER_LINEAR)
    depth = np.array([0.0, 0.12 * h])
    rim = np.clip(body * 0.8, 0, 255).tolist()
    quads = []
    for ri, row in enumerate(rows):
        y = (ch - lh) / 2 + 0.75 * h + ri * (h + row_gap)
        x0 = (cw - len(row) * (w + gap)) / 2
        qrow = []
        for ci, face in enumerate(row):
            x = x0 + ci * (w + gap)
            rect = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
            hull = cv2.convexHull(np.concatenate([rect, rect + depth]).astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(canvas, np.round(hull * 16).astype(np.int32), rim, cv2.LINE_AA, 4)
            xi, yi = int(round(x)), int(round(y))
            canvas[yi:yi + h, xi:xi + w] = face
            qrow.append(rect)
        quads.append(qrow)
    t = math.radians(rng.uniform(-turn, turn))
    A = np.array([[s * math.cos(t), -s * math.sin(t), 0], [s * math.sin(t), s * math.cos(t), 0], [0, 0, 1]])
    P = np.eye(3)
    P[2, 1] = rng.uniform(-tilt, tilt) * 2 / lh   # the far edge of the layout this much smaller
    C = np.array([[1, 0, -cw / 2], [0, 1, -ch / 2], [0, 0, 1]], np.float64)
    T = np.array([[1, 0, W / 2], [0, 1, Hh / 2], [0, 0, 1]], np.float64)
    H = T @ A @ P @ C
    k = min(1.0, s * 1.3)
    small = cv2.resize(canvas, (max(2, int(cw * k)), max(2, int(ch * k))), interpolation=cv2.INTER_AREA)
    warp = H @ np.diag([cw / small.shape[1], ch / small.shape[0], 1.0])
    img = cv2.warpPerspective(small, warp, (W, Hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    img = _camera(img, rng)
    out = [[cv2.perspectiveTransform(q[None], H)[0] for q in qrow] for qrow in quads]
    return img, out


def main(argv: list[str] | None = None) -> int:
    """``python -m datasets.crop_synth --out bank.npz --count N [--held-out] [--preview grid.png]``: a fixed
    bank of made crops (x, y, kinds; flip: upside down as cut, flip_known: whether that is knowable), e.g.
    the int8 calibration set of ``models.quantize``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m datasets.crop_synth", description=main.__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--held-out", action="store_true", help="faces in the held-out styles only")
    ap.add_argument("--preview", help="also write a grid of the first 80 crops, labelled, to this PNG")
    args = ap.parse_args(argv)
    bank = FaceBank.cached(held_out=True, per_code=12, bonus_per_code=30) if args.held_out else FaceBank.cached()
    x, y, flip, known = CropSynth(bank).batch(args.count, np.random.default_rng([args.seed, 99]))
    np.savez(args.out, x=x, y=y.astype(np.int16), kinds=np.array(KINDS), flip=flip, flip_known=known)
    if args.preview:
        tiles = []
        for i in range(min(80, len(x))):
            im = cv2.resize(x[i], (108, 144))
            cv2.putText(im, KINDS[y[i]], (2, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 255), 1)
            tiles.append(im)
        while len(tiles) % 10:
            tiles.append(np.zeros_like(tiles[0]))
        cv2.imwrite(args.preview, np.vstack([np.hstack(tiles[i:i + 10]) for i in range(0, len(tiles), 10)]))
    print(f"wrote {args.out}: {len(y)} crops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
