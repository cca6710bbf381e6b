"""Procedural tile-face renderer of the project's own: every one of the 55 codes, several styles.

A face is rendered as an *ink layer*: a premultiplied BGRA ``uint8`` image (alpha = coverage) that
is composited onto the tile body colour with :func:`compose_face`. Drawing happens at twice the
output size with anti-aliased OpenCV primitives and is downsampled with area averaging.

* dots: circles with rings (three ring styles), the classic layouts and colours;
* bamboo: sticks with nodes, a bird or a big stick for 1s, the M/W shape of 8s;
* characters and honours: CJK font glyphs when a CJK font and Pillow are present
  (:mod:`datasets.fonts`), else simple line glyphs;
* flowers/seasons: a random drawing (independent of the code) with the seat numeral and the
  flower/season character in the top corners - the identity lies in the corners, as on real tiles;
* animals and faces: simple drawn shapes; jk: 飛, 百搭 or a star; bk: the plain coloured back.

Everything is deterministic: :func:`random_style` draws a :class:`FaceStyle` from a numpy
``Generator`` and :func:`render_ink` is a pure (cached) function of code, style and size.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from . import fonts
from .codes import BACK, JOKER, TILE_CODES, is_red_five, rank_of, suit_of

BGR = tuple[int, int, int]

#: Default face texture size (width, height): a 3:4 portrait tile face.
FACE_SIZE: tuple[int, int] = (150, 200)

_SS = 2  # supersampling factor
_SHIFT = 4  # fixed-point bits for OpenCV drawing
_ONE = 1 << _SHIFT

INKS: tuple[BGR, ...] = ((25, 20, 20), (70, 35, 20), (40, 30, 45), (10, 10, 10), (90, 50, 30))
REDS: tuple[BGR, ...] = ((40, 40, 200), (35, 30, 170), (70, 60, 225), (45, 25, 150), (60, 40, 190))
GREENS: tuple[BGR, ...] = ((60, 130, 20), (80, 140, 40), (50, 105, 0), (95, 150, 60), (70, 120, 35))
BLUES: tuple[BGR, ...] = ((165, 75, 20), (140, 60, 40), (185, 105, 30), (120, 45, 10), (150, 90, 60))
BACKS: tuple[BGR, ...] = ((60, 140, 40), (170, 95, 30), (60, 185, 235), (45, 120, 230), (150, 110, 230),
                          (40, 40, 170), (60, 90, 20), (130, 60, 20), (40, 40, 40), (200, 200, 205))

_NUMERALS = "一二三四五六七八九"
_WINDS = "東南西北"
_FLOWER_CHARS = "梅蘭菊竹"
_SEASON_CHARS = "春夏秋冬"
_WIND_LETTERS = "ESWN"


@dataclass(frozen=True)
class FaceStyle:
    """Discrete style parameters of a procedural face set (hashable: used as a cache key)."""

    ink: BGR = INKS[0]
    red: BGR = REDS[0]
    green: BGR = GREENS[0]
    blue: BGR = BLUES[0]
    back: BGR = BACKS[0]
    stroke: float = 1.0          # line-width scale for drawn shapes
    font: int = 0                # index into fonts.cjk_fonts(); -1 = line glyphs
    man_char: str = "萬"          # 萬 or 万
    five_char: str = "五"         # 五 or 伍
    corner_index: bool = False   # small arabic index / wind letter in the top-left corner
    dot_style: int = 0           # 0 rings, 1 ring + flower, 2 coin
    one_sou: str = "bird"        # bird or stick
    white_dragon: int = 1        # 0 blank, 1 frame, 2 double frame
    jk_style: str = "fei"        # fei (飛), baida (百搭) or star
    bonus_seed: int = 0          # seeds the flower/season drawings
    bonus_corner: int = 0        # 0: numeral left, character right; 1: swapped
    back_pattern: int = 0        # 0 plain, 1 faint border, 2 faint emblem


def _pick(rng: np.random.Generator, items: Sequence):
    """One element of ``items`` chosen by ``rng``."""
    return items[int(rng.integers(len(items)))]


def random_style(rng: np.random.Generator, back: BGR | None = None) -> FaceStyle:
    """Draw a face style; ``back`` fixes the back colour (to match a scene's tile set)."""
    n_fonts = len(fonts.cjk_fonts())
    return FaceStyle(
        ink=_pick(rng, INKS), red=_pick(rng, REDS), green=_pick(rng, GREENS), blue=_pick(rng, BLUES),
        back=back if back is not None else _pick(rng, BACKS),
        stroke=float(_pick(rng, (0.8, 1.0, 1.2, 1.4))),
        font=int(rng.integers(n_fonts)) if n_fonts else -1,
        man_char=_pick(rng, ("萬", "萬", "万")), five_char=_pick(rng, ("五", "五", "伍")),
        corner_index=bool(rng.random() < 0.3), dot_style=int(rng.integers(3)),
        one_sou=_pick(rng, ("bird", "bird", "stick")), white_dragon=int(rng.integers(3)),
        jk_style=_pick(rng, ("fei", "baida", "star")), bonus_seed=int(rng.integers(1 << 30)),
        bonus_corner=int(rng.integers(2)), back_pattern=int(rng.integers(3)),
    )


# --------------------------------------------------------------------------- drawing canvas


class _Ink:
    """A supersampled premultiplied BGRA canvas addressed in normalised face coordinates.

    ``(x, y)`` in ``[0, 1]`` spans the inner face area (the face minus a margin); lengths are
    fractions of the inner width.
    """

    def __init__(self, size: tuple[int, int], stroke: float = 1.0, margin: tuple[float, float] = (0.1, 0.08)):
        self.out_size = size
        self.w, self.h = size[0] * _SS, size[1] * _SS
        self.img = np.zeros((self.h, self.w, 4), np.uint8)
        self.x0, self.y0 = margin[0] * self.w, margin[1] * self.h
        self.iw, self.ih = self.w - 2 * self.x0, self.h - 2 * self.y0
        self.stroke = stroke

    # coordinate helpers -------------------------------------------------------------
    def px(self, x: float, y: float) -> tuple[float, float]:
        """Canvas pixel position of a normalised point."""
        return self.x0 + x * self.iw, self.y0 + y * self.ih

    def fix(self, x: float, y: float) -> tuple[int, int]:
        """Fixed-point canvas position of a normalised point."""
        px, py = self.px(x, y)
        return round(px * _ONE), round(py * _ONE)

    def flen(self, r: float) -> int:
        """Fixed-point length of ``r`` inner widths."""
        return max(1, round(r * self.iw * _ONE))

    def thick(self, t: float) -> int:
        """Integer line thickness (canvas pixels) of ``t`` inner widths, scaled by the style."""
        return max(1, round(t * self.iw * self.stroke))

    # primitives ---------------------------------------------------------------------
    def circle(self, x: float, y: float, r: float, colour: BGR | None, thickness: float = -1) -> None:
        """Filled (thickness < 0) or outlined circle; ``colour=None`` erases."""
        t = -1 if thickness < 0 else self.thick(thickness)
        cv2.circle(self.img, self.fix(x, y), self.flen(r), _rgba(colour), t, cv2.LINE_AA, _SHIFT)

    def ellipse(self, x: float, y: float, rx: float, ry: float, angle: float, colour: BGR | None,
                thickness: float = -1, arc: tuple[float, float] = (0, 360)) -> None:
        """Ellipse with semi-axes in inner widths, ``angle`` in degrees."""
        t = -1 if thickness < 0 else self.thick(thickness)
        cv2.ellipse(self.img, self.fix(x, y), (self.flen(rx), self.flen(ry)), angle, arc[0], arc[1],
                    _rgba(colour), t, cv2.LINE_AA, _SHIFT)

    def polyline(self, pts: Sequence[tuple[float, float]], colour: BGR | None, thickness: float,
                 closed: bool = False) -> None:
        """Anti-aliased polyline through normalised points."""
        arr = np.array([self.fix(x, y) for x, y in pts], np.int32).reshape(-1, 1, 2)
        cv2.polylines(self.img, [arr], closed, _rgba(colour), self.thick(thickness), cv2.LINE_AA, _SHIFT)

    def fill(self, pts: Sequence[tuple[float, float]], colour: BGR | None) -> None:
        """Filled polygon through normalised points."""
        arr = np.array([self.fix(x, y) for x, y in pts], np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(self.img, [arr], _rgba(colour), cv2.LINE_AA, _SHIFT)

    def rect(self, x0: float, y0: float, x1: float, y1: float, colour: BGR | None, thickness: float) -> None:
        """Rectangle outline."""
        self.polyline([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour, thickness, closed=True)

    def mask(self, mask: np.ndarray, box: tuple[float, float, float, float], colour: BGR,
             stretch: float = 1.15, grow: int = 0) -> None:
        """Paste a uint8 coverage ``mask`` fitted into the normalised ``box`` (x0, y0, x1, y1)."""
        bx0, by0 = self.px(box[0], box[1])
        bx1, by1 = self.px(box[2], box[3])
        bw, bh = bx1 - bx0, by1 - by0
        gh, gw = mask.shape
        base = min(bw / gw, bh / gh)
        sx, sy = min(bw / gw, base * stretch), min(bh / gh, base * stretch)
        tw, th = max(1, round(gw * sx)), max(1, round(gh * sy))
        m = cv2.resize(mask, (tw, th), interpolation=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR)
        if grow > 0:
            m = cv2.dilate(m, np.ones((grow + 1, grow + 1), np.uint8))
        ox, oy = round(bx0 + (bw - tw) / 2), round(by0 + (bh - th) / 2)
        self.paste(m, ox, oy, colour)

    def paste(self, m: np.ndarray, ox: int, oy: int, colour: BGR) -> None:
        """Premultiplied "over" of a coverage mask at canvas offset (ox, oy), clipped to the canvas."""
        th, tw = m.shape
        x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + tw, self.w), min(oy + th, self.h)
        if x1 <= x0 or y1 <= y0:
            return
        a = m[y0 - oy:y1 - oy, x0 - ox:x1 - ox].astype(np.float32) * (1.0 / 255.0)
        region = self.img[y0:y1, x0:x1]
        src = np.empty_like(region)
        src[:] = _rgba(colour)
        self.img[y0:y1, x0:x1] = cv2.blendLinear(region, src, 1.0 - a, a)

    def result(self) -> np.ndarray:
        """Downsampled premultiplied BGRA image of the requested size."""
        return cv2.resize(self.img, self.out_size, interpolation=cv2.INTER_AREA)


def _rgba(colour: BGR | None) -> tuple[int, int, int, int]:
    """Opaque BGRA of ``colour``; None means "erase" (transparent)."""
    return (0, 0, 0, 0) if colour is None else (int(colour[0]), int(colour[1]), int(colour[2]), 255)


# --------------------------------------------------------------------------- text


# Stroke glyphs (unit box polylines) for the fallback without a CJK font.
_LINE_GLYPHS: dict[str, list[list[tuple[float, float]]]] = {
    "一": [[(0.05, 0.5), (0.95, 0.5)]],
    "二": [[(0.2, 0.3), (0.8, 0.3)], [(0.05, 0.75), (0.95, 0.75)]],
    "三": [[(0.15, 0.15), (0.85, 0.15)], [(0.25, 0.5), (0.75, 0.5)], [(0.05, 0.88), (0.95, 0.88)]],
    "四": [[(0.1, 0.15), (0.1, 0.9)], [(0.1, 0.15), (0.9, 0.15), (0.9, 0.9)], [(0.1, 0.85), (0.9, 0.85)],
           [(0.4, 0.15), (0.3, 0.6)], [(0.6, 0.15), (0.6, 0.55), (0.75, 0.6)]],
    "五": [[(0.15, 0.1), (0.85, 0.1)], [(0.45, 0.1), (0.3, 0.9)], [(0.2, 0.45), (0.75, 0.45), (0.7, 0.9)],
           [(0.05, 0.9), (0.95, 0.9)]],
    "六": [[(0.5, 0.05), (0.55, 0.25)], [(0.05, 0.35), (0.95, 0.35)], [(0.35, 0.55), (0.15, 0.9)],
           [(0.65, 0.55), (0.85, 0.9)]],
    "七": [[(0.05, 0.45), (0.95, 0.35)], [(0.4, 0.05), (0.4, 0.85), (0.9, 0.9), (0.95, 0.75)]],
    "八": [[(0.4, 0.2), (0.3, 0.6), (0.05, 0.9)], [(0.6, 0.15), (0.7, 0.6), (0.95, 0.9)]],
    "九": [[(0.4, 0.05), (0.4, 0.4), (0.1, 0.9)], [(0.05, 0.35), (0.7, 0.35), (0.7, 0.85), (0.95, 0.9)]],
    "中": [[(0.1, 0.3), (0.1, 0.7)], [(0.1, 0.3), (0.9, 0.3), (0.9, 0.7)], [(0.1, 0.7), (0.9, 0.7)],
           [(0.5, 0.02), (0.5, 0.98)]],
}
_LINE_GLYPHS["伍"] = [[(0.2, 0.05), (0.05, 0.5)], [(0.15, 0.3), (0.15, 0.95)]] + [
    [(0.35 + 0.6 * x, y) for x, y in stroke] for stroke in _LINE_GLYPHS["五"]]
# Latin stand-ins (Hershey font) for the other characters when no CJK font is present.
_LATIN_STANDINS = {"萬": "M", "万": "M", "東": "E", "南": "S", "西": "W", "北": "N", "發": "F",
                   "梅": "P", "蘭": "O", "菊": "C", "竹": "B", "春": "Sp", "夏": "Su", "秋": "Au",
                   "冬": "Wi", "飛": "J", "百": "J", "搭": "K"}


def _draw_text(ink: _Ink, text: str, box: tuple[float, float, float, float], colour: BGR,
               style: FaceStyle, stretch: float = 1.15) -> None:
    """Draw ``text`` (one or more characters side by side) fitted into ``box``."""
    mask = fonts.glyph_mask(text, style.font) if style.font >= 0 else None
    if mask is not None:
        grow = 2 if style.stroke >= 1.4 else 0
        ink.mask(mask, box, colour, stretch=stretch, grow=grow)
        return
    if text in _LINE_GLYPHS:
        x0, y0, x1, y1 = box
        side = min(x1 - x0, (y1 - y0) * ink.ih / ink.iw)
        sx, sy = side, side * ink.iw / ink.ih
        ox, oy = x0 + (x1 - x0 - sx) / 2, y0 + (y1 - y0 - sy) / 2
        for stroke in _LINE_GLYPHS[text]:
            ink.polyline([(ox + u * sx, oy + v * sy) for u, v in stroke], colour, 0.07)
        return
    _hershey(ink, "".join(_LATIN_STANDINS.get(ch, ch) for ch in text), box, colour)


def _hershey(ink: _Ink, text: str, box: tuple[float, float, float, float], colour: BGR,
             font: int = cv2.FONT_HERSHEY_DUPLEX) -> None:
    """Draw latin ``text`` with a Hershey font fitted into ``box``."""
    thickness = max(2, round(ink.iw * 0.035 * ink.stroke))
    (tw, th), base = cv2.getTextSize(text, font, 4.0, thickness)
    tmp = np.zeros((th + base + 2 * thickness, tw + 2 * thickness), np.uint8)
    cv2.putText(tmp, text, (thickness, th + thickness), font, 4.0, 255, thickness, cv2.LINE_AA)
    ys, xs = np.nonzero(tmp)
    if len(xs):
        ink.mask(tmp[ys.min():ys.max() + 1, xs.min():xs.max() + 1], box, colour, stretch=1.3)


def _corner_index(ink: _Ink, label: str, colour: BGR) -> None:
    """Small latin index (e.g. ``5`` or ``E``) in the top-left corner of the face."""
    _hershey(ink, label, (-0.06, -0.05, 0.16, 0.13), colour, cv2.FONT_HERSHEY_SIMPLEX)


# --------------------------------------------------------------------------- suits


def _dot(ink: _Ink, x: float, y: float, r: float, colour: BGR, style: FaceStyle,
         accent: BGR | None = None) -> None:
    """One circle of the dots suit, in one of three ring styles."""
    accent = colour if accent is None else accent
    if style.dot_style == 0:
        ink.circle(x, y, r, colour)
        ink.circle(x, y, r * 0.72, None, thickness=r * 0.12)
        ink.circle(x, y, r * 0.38, accent)
        ink.circle(x, y, r * 0.14, None)
    elif style.dot_style == 1:
        ink.circle(x, y, r * 0.9, colour, thickness=r * 0.2)
        for k in range(8):
            a = k * math.pi / 4
            ink.circle(x + 0.42 * r * math.cos(a), y + 0.42 * r * math.sin(a) * ink.iw / ink.ih,
                       r * 0.17, accent)
        ink.circle(x, y, r * 0.2, colour)
    else:
        ink.circle(x, y, r, colour)
        ink.circle(x, y, r * 0.62, None, thickness=r * 0.1)
        for k in range(8):
            a = k * math.pi / 4 + math.pi / 8
            c, s = math.cos(a), math.sin(a) * ink.iw / ink.ih
            ink.polyline([(x + 0.7 * r * c, y + 0.7 * r * s), (x + 0.95 * r * c, y + 0.95 * r * s)],
                         None, r * 0.08)
        ink.circle(x, y, r * 0.25, accent)


def _big_dot(ink: _Ink, style: FaceStyle, red: bool) -> None:
    """The ornate single circle of 1p."""
    outer = style.red if red else style.green
    ink.circle(0.5, 0.5, 0.47, style.blue if not red else outer)
    ink.circle(0.5, 0.5, 0.41, None)
    ink.circle(0.5, 0.5, 0.36, outer)
    ink.circle(0.5, 0.5, 0.3, None, thickness=0.03)
    for k in range(12):
        a = k * math.pi / 6
        ink.circle(0.5 + 0.33 * math.cos(a), 0.5 + 0.33 * math.sin(a) * ink.iw / ink.ih, 0.03, None)
    ink.circle(0.5, 0.5, 0.2, style.red)
    ink.circle(0.5, 0.5, 0.08, None)


_DOT_LAYOUTS: dict[int, tuple[float, list[tuple[float, float]]]] = {
    2: (0.2, [(0.5, 0.25), (0.5, 0.75)]),
    3: (0.16, [(0.2, 0.16), (0.5, 0.5), (0.8, 0.84)]),
    4: (0.19, [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)]),
    5: (0.16, [(0.23, 0.2), (0.77, 0.2), (0.5, 0.5), (0.23, 0.8), (0.77, 0.8)]),
    6: (0.15, [(0.28, 0.14), (0.72, 0.14), (0.28, 0.55), (0.72, 0.55), (0.28, 0.86), (0.72, 0.86)]),
    7: (0.12, [(0.18, 0.09), (0.5, 0.2), (0.82, 0.31), (0.3, 0.6), (0.7, 0.6), (0.3, 0.88), (0.7, 0.88)]),
    8: (0.13, [(x, y) for y in (0.11, 0.37, 0.63, 0.89) for x in (0.3, 0.7)]),
    9: (0.14, [(x, y) for y in (0.14, 0.5, 0.86) for x in (0.18, 0.5, 0.82)]),
}


def _dot_colours(rank: int, red: bool, style: FaceStyle) -> list[BGR]:
    """Colour of each circle of the rank-``rank`` dots tile (classic riichi colouring)."""
    g, b, r = style.green, style.blue, style.red
    if red:
        return [r] * rank
    table = {2: [g, b], 3: [b, r, g], 4: [b, g, g, b], 5: [b, g, r, g, b], 6: [g, g] + [r] * 4,
             7: [g, g, g] + [r] * 4, 8: [b] * 8, 9: [b, b, b, r, r, r, g, g, g]}
    return table[rank]


def _draw_dots(ink: _Ink, rank: int, red: bool, style: FaceStyle) -> None:
    """Dots suit face of ``rank``."""
    if rank == 1:
        _big_dot(ink, style, red)
        return
    radius, positions = _DOT_LAYOUTS[rank]
    for (x, y), colour in zip(positions, _dot_colours(rank, red, style), strict=True):
        _dot(ink, x, y, radius, colour, style, accent=style.red if rank == 5 and not red else None)


def _stick(ink: _Ink, x: float, y: float, length: float, width: float, colour: BGR,
           angle: float = 0.0) -> None:
    """One bamboo stick centred at (x, y); ``length`` in inner heights, ``width`` in widths."""
    dx = math.sin(math.radians(angle)) * length * ink.ih / ink.iw / 2
    dy = math.cos(math.radians(angle)) * length / 2
    top, bot = (x - dx, y - dy), (x + dx, y + dy)
    mid = (x, y)
    ink.polyline([top, bot], colour, width / ink.stroke)
    for px_, py_ in (top, mid, bot):
        ink.ellipse(px_, py_, width * 0.62, width * 0.24, -angle, colour)
    for a, b in ((top, mid), (mid, bot)):
        p = (a[0] + (b[0] - a[0]) * 0.2, a[1] + (b[1] - a[1]) * 0.2)
        q = (a[0] + (b[0] - a[0]) * 0.8, a[1] + (b[1] - a[1]) * 0.8)
        ink.polyline([p, q], None, width * 0.22 / ink.stroke)


def _draw_bird(ink: _Ink, style: FaceStyle) -> None:
    """1s as a simple peacock-like bird."""
    g, b, r = style.green, style.blue, style.red
    for k, ang in enumerate(np.linspace(200, 260, 5)):
        ex, ey = 0.42 + 0.42 * math.cos(math.radians(ang)), 0.7 - 0.25 * math.sin(math.radians(ang))
        ink.polyline([(0.42, 0.68), (ex, ey)], g, 0.035)
        ink.circle(ex, ey, 0.07, r if k % 2 else b)
        ink.circle(ex, ey, 0.03, None)
    ink.ellipse(0.55, 0.5, 0.2, 0.3, 20, g)
    ink.ellipse(0.5, 0.55, 0.09, 0.2, 25, b)
    ink.circle(0.7, 0.17, 0.1, g)
    ink.circle(0.73, 0.15, 0.025, None)
    ink.fill([(0.78, 0.12), (0.95, 0.19), (0.78, 0.22)], r)
    ink.polyline([(0.55, 0.78), (0.5, 0.98)], r, 0.03)
    ink.polyline([(0.65, 0.78), (0.68, 0.98)], r, 0.03)


_STICK_LAYOUTS: dict[int, tuple[float, list[tuple[float, float, float]]]] = {
    2: (0.4, [(0.5, 0.25, 0), (0.5, 0.75, 0)]),
    3: (0.4, [(0.5, 0.25, 0), (0.28, 0.75, 0), (0.72, 0.75, 0)]),
    4: (0.4, [(0.28, 0.25, 0), (0.72, 0.25, 0), (0.28, 0.75, 0), (0.72, 0.75, 0)]),
    5: (0.4, [(0.18, 0.25, 0), (0.82, 0.25, 0), (0.5, 0.5, 0), (0.18, 0.75, 0), (0.82, 0.75, 0)]),
    6: (0.4, [(x, y, 0) for y in (0.25, 0.75) for x in (0.18, 0.5, 0.82)]),
    7: (0.29, [(0.5, 0.15, 0)] + [(x, y, 0) for y in (0.5, 0.85) for x in (0.18, 0.5, 0.82)]),
    8: (0.4, [(0.12, 0.25, 0), (0.38, 0.25, 0), (0.62, 0.25, 0), (0.88, 0.25, 0),
              (0.12, 0.75, 0), (0.38, 0.75, 0), (0.62, 0.75, 0), (0.88, 0.75, 0)]),
    9: (0.29, [(x, y, 0) for y in (0.15, 0.5, 0.85) for x in (0.18, 0.5, 0.82)]),
}
_EIGHT_ANGLES = (0.0, 28.0, -28.0, 0.0, 0.0, -28.0, 28.0, 0.0)


def _stick_colours(rank: int, red: bool, style: FaceStyle) -> list[BGR]:
    """Colour of each stick of the rank-``rank`` bamboo tile."""
    g, b, r = style.green, style.blue, style.red
    if red:
        return [r, r, b, r, r] if rank == 5 else [r] * rank
    table = {2: [g, b], 3: [g, b, b], 4: [g, b, b, g], 5: [g, g, r, g, g], 6: [g] * 3 + [b] * 3,
             7: [r] + [g] * 6, 8: [g, b, b, g, g, b, b, g], 9: [g, r, b, g, r, b, g, r, b]}
    return table[rank]


def _draw_bamboo(ink: _Ink, rank: int, red: bool, style: FaceStyle) -> None:
    """Bamboo suit face of ``rank``."""
    if rank == 1:
        if style.one_sou == "bird":
            _draw_bird(ink, style)
        else:
            _stick(ink, 0.5, 0.5, 0.9, 0.2, style.green)
            ink.circle(0.5, 0.5, 0.07, style.red)
        return
    length, positions = _STICK_LAYOUTS[rank]
    width = 0.1 if rank == 8 else 0.12
    for k, ((x, y, _), colour) in enumerate(zip(positions, _stick_colours(rank, red, style), strict=True)):
        angle = _EIGHT_ANGLES[k] if rank == 8 else 0.0
        _stick(ink, x, y, length, width, colour, angle)


def _draw_characters(ink: _Ink, rank: int, red: bool, style: FaceStyle) -> None:
    """Characters suit: numeral above, 萬 (or 万) below in red."""
    numeral = style.five_char if rank == 5 else _NUMERALS[rank - 1]
    top = (0.12, 0.0, 0.88, 0.42) if not style.corner_index else (0.22, 0.02, 0.92, 0.42)
    _draw_text(ink, numeral, top, style.red if red else style.ink, style)
    _draw_text(ink, style.man_char, (0.04, 0.47, 0.96, 1.0), style.red, style)
    if style.corner_index:
        _corner_index(ink, str(rank), style.red if red else style.ink)


def _draw_honour(ink: _Ink, rank: int, style: FaceStyle) -> None:
    """Winds (東南西北) and dragons (white frame, 發 green, 中 red)."""
    box = (0.0, 0.1, 1.0, 0.9)
    if rank <= 4:
        _draw_text(ink, _WINDS[rank - 1], box, style.ink, style)
        if style.corner_index:
            _corner_index(ink, _WIND_LETTERS[rank - 1], style.ink)
    elif rank == 5:
        if style.white_dragon >= 1:
            ink.rect(0.06, 0.05, 0.94, 0.95, style.blue, 0.06)
        if style.white_dragon == 2:
            ink.rect(0.18, 0.14, 0.82, 0.86, style.blue, 0.025)
    elif rank == 6:
        _draw_text(ink, "發", box, style.green, style)
    else:
        _draw_text(ink, "中", box, style.red, style)


# --------------------------------------------------------------------------- bonus tiles


def _draw_plant(ink: _Ink, rng: np.random.Generator, style: FaceStyle) -> None:
    """A random plant or landscape drawing; carries no information about the tile code."""
    petal = _pick(rng, (style.red, style.blue, (40, 160, 230), (150, 60, 160), style.ink))
    leaf = style.green
    if rng.random() < 0.25:  # landscape: hills, sun, birds
        pts = [(0.0, 0.8)] + [(x, 0.55 + 0.25 * rng.random()) for x in np.linspace(0.1, 0.9, 5)] + [(1.0, 0.8)]
        ink.polyline(pts, leaf, 0.035)
        ink.circle(0.2 + 0.6 * rng.random(), 0.35, 0.08, petal)
        for _ in range(int(rng.integers(1, 4))):
            bx, by = 0.2 + 0.6 * rng.random(), 0.3 + 0.2 * rng.random()
            ink.polyline([(bx - 0.07, by - 0.02), (bx, by + 0.02), (bx + 0.07, by - 0.02)], style.ink, 0.02)
        return
    for _ in range(int(rng.integers(1, 4))):
        x = 0.2 + 0.6 * rng.random()
        pts = [(x, 1.0)]
        for y in np.linspace(0.8, 0.3 + 0.2 * rng.random(), 4):
            x = float(np.clip(x + rng.normal(0, 0.1), 0.05, 0.95))
            pts.append((x, float(y)))
        ink.polyline(pts, style.ink if rng.random() < 0.5 else leaf, 0.025)
        for px_, py_ in pts[1:-1]:
            ink.ellipse(px_ + 0.06, py_, 0.07, 0.025, float(rng.uniform(-50, 50)), leaf)
        fx, fy = pts[-1]
        n = int(rng.integers(4, 7))
        for k in range(n):
            a = 2 * math.pi * k / n
            ink.circle(fx + 0.07 * math.cos(a), fy + 0.05 * math.sin(a), 0.045, petal)
        ink.circle(fx, fy, 0.03, (40, 200, 230))


def _draw_bonus(ink: _Ink, code: str, style: FaceStyle) -> None:
    """Flower or season: random drawing + numeral and character in the top corners."""
    rank, suit = rank_of(code), suit_of(code)
    rng = np.random.default_rng([style.bonus_seed, rank, 0 if suit == "f" else 1])
    _draw_plant(ink, rng, style)
    char = (_FLOWER_CHARS if suit == "f" else _SEASON_CHARS)[rank - 1]
    num_colour = style.red if suit == "f" else style.blue
    left, right = (-0.06, -0.04, 0.2, 0.2), (0.8, -0.04, 1.06, 0.2)
    num_box, char_box = (left, right) if style.bonus_corner == 0 else (right, left)
    _hershey(ink, str(rank), num_box, num_colour)
    _draw_text(ink, char, char_box, style.ink, style)


def _draw_cat(ink: _Ink, c: BGR, style: FaceStyle) -> None:
    ink.ellipse(0.5, 0.68, 0.3, 0.28, 0, c)
    ink.circle(0.5, 0.3, 0.22, c)
    ink.fill([(0.3, 0.22), (0.32, 0.0), (0.45, 0.12)], c)
    ink.fill([(0.7, 0.22), (0.68, 0.0), (0.55, 0.12)], c)
    ink.polyline([(0.78, 0.85), (0.95, 0.7), (0.9, 0.5)], c, 0.06)
    for ex in (0.42, 0.58):
        ink.ellipse(ex, 0.28, 0.04, 0.025, 0, None)
    for dy in (-0.02, 0.02):
        ink.polyline([(0.2, 0.36 + dy), (0.42, 0.37)], style.ink, 0.012)
        ink.polyline([(0.8, 0.36 + dy), (0.58, 0.37)], style.ink, 0.012)


def _draw_mouse(ink: _Ink, c: BGR, style: FaceStyle) -> None:
    ink.ellipse(0.52, 0.6, 0.32, 0.2, -15, c)
    ink.fill([(0.25, 0.55), (0.02, 0.42), (0.3, 0.4)], c)
    ink.circle(0.3, 0.38, 0.1, c)
    ink.circle(0.3, 0.38, 0.05, style.red)
    ink.circle(0.14, 0.44, 0.02, None)
    ink.polyline([(0.82, 0.55), (0.95, 0.75), (0.75, 0.95), (0.5, 0.92)], c, 0.025)


def _draw_rooster(ink: _Ink, c: BGR, style: FaceStyle) -> None:
    for k, ang in enumerate((60, 85, 110)):
        ink.ellipse(0.7, 0.45, 0.28, 0.08, -ang + 40, style.green if k % 2 else style.blue)
    ink.ellipse(0.45, 0.58, 0.28, 0.2, -10, c)
    ink.circle(0.28, 0.28, 0.11, c)
    for dx in (-0.06, 0.0, 0.06):
        ink.circle(0.28 + dx, 0.16, 0.045, style.red)
    ink.fill([(0.17, 0.27), (0.05, 0.31), (0.18, 0.33)], (40, 190, 230))
    ink.ellipse(0.22, 0.4, 0.03, 0.05, 0, style.red)
    ink.circle(0.26, 0.26, 0.02, None)
    ink.polyline([(0.4, 0.75), (0.38, 0.95), (0.3, 0.98)], style.ink, 0.025)
    ink.polyline([(0.52, 0.75), (0.52, 0.95), (0.44, 0.98)], style.ink, 0.025)


def _draw_centipede(ink: _Ink, c: BGR, style: FaceStyle) -> None:
    ts = np.linspace(0.0, 1.0, 9)
    pts = [(0.5 + 0.25 * math.sin(t * 2 * math.pi), 0.08 + 0.86 * t) for t in ts]
    for x, y in pts[1:]:
        ink.polyline([(x - 0.2, y - 0.02), (x + 0.2, y + 0.02)], style.ink, 0.015)
        ink.ellipse(x, y, 0.11, 0.055, 0, c)
    x, y = pts[0]
    ink.circle(x, y, 0.08, style.red)
    ink.polyline([(x - 0.03, y - 0.05), (x - 0.15, y - 0.1)], style.ink, 0.015)
    ink.polyline([(x + 0.03, y - 0.05), (x + 0.15, y - 0.1)], style.ink, 0.015)


def _draw_face_tile(ink: _Ink, rank: int, style: FaceStyle) -> None:
    """Face (people) tiles 1h-4h: king, lady, wizard, monk."""
    skin, ink_c = (150, 190, 235), style.ink
    if rank == 3:  # wizard hat behind the head
        ink.fill([(0.2, 0.38), (0.5, 0.0), (0.8, 0.38)], style.blue)
    if rank == 2:  # headscarf
        ink.ellipse(0.5, 0.5, 0.34, 0.36, 0, style.red)
    ink.ellipse(0.5, 0.82, 0.38, 0.18, 0, style.green if rank != 4 else (40, 110, 190))
    ink.ellipse(0.5, 0.5, 0.24, 0.27, 0, skin)
    for ex in (0.41, 0.59):
        ink.circle(ex, 0.46, 0.025, ink_c)
    ink.ellipse(0.5, 0.6, 0.07, 0.03, 0, style.red, arc=(0, 180))
    if rank == 1:  # crown
        ink.fill([(0.28, 0.28), (0.3, 0.08), (0.4, 0.2), (0.5, 0.04), (0.6, 0.2), (0.7, 0.08), (0.72, 0.28)],
                 (40, 180, 230))
    elif rank == 3:  # beard
        ink.fill([(0.32, 0.6), (0.5, 0.95), (0.68, 0.6), (0.5, 0.7)], (200, 200, 200))
    elif rank == 4:  # prayer beads
        for k in range(7):
            ink.circle(0.3 + 0.4 * k / 6, 0.8 + 0.05 * math.sin(k / 6 * math.pi), 0.03, ink_c)


_ANIMALS = {1: _draw_cat, 2: _draw_mouse, 3: _draw_rooster, 4: _draw_centipede}


def _draw_joker(ink: _Ink, style: FaceStyle) -> None:
    """Joker: 飛 (three-kaki fei), 百搭 stacked, or a star."""
    if style.jk_style == "fei":
        _draw_text(ink, "飛", (0.0, 0.1, 1.0, 0.9), style.green, style)
    elif style.jk_style == "baida":
        _draw_text(ink, "百", (0.1, 0.02, 0.9, 0.48), style.red, style)
        _draw_text(ink, "搭", (0.1, 0.52, 0.9, 0.98), style.red, style)
    else:
        pts = []
        for k in range(10):
            a = -math.pi / 2 + k * math.pi / 5
            r = 0.45 if k % 2 == 0 else 0.18
            pts.append((0.5 + r * math.cos(a), 0.5 + r * math.sin(a) * ink.iw / ink.ih))
        ink.fill(pts, style.red)
        ink.polyline(pts, style.ink, 0.02, closed=True)
        _hershey(ink, "JOKER", (0.1, 0.84, 0.9, 0.98), style.ink)


def _draw_back(ink: _Ink, style: FaceStyle) -> None:
    """The tile back: opaque back colour, optionally a faint border or emblem."""
    ink.img[:] = _rgba(style.back)
    faint = tuple(int(c * 0.85) for c in style.back)
    if style.back_pattern == 1:
        ink.rect(-0.02, -0.02, 1.02, 1.02, faint, 0.03)
    elif style.back_pattern == 2:
        ink.circle(0.5, 0.5, 0.22, faint, thickness=0.03)
        ink.circle(0.5, 0.5, 0.08, faint)


# --------------------------------------------------------------------------- public API


def _draw_code(ink: _Ink, code: str, style: FaceStyle) -> None:
    """Dispatch ``code`` to its drawing function."""
    suit, rank, red = suit_of(code), rank_of(code), is_red_five(code)
    if code == BACK:
        _draw_back(ink, style)
    elif code == JOKER:
        _draw_joker(ink, style)
    elif suit == "p":
        _draw_dots(ink, rank, red, style)
    elif suit == "s":
        _draw_bamboo(ink, rank, red, style)
    elif suit == "m":
        _draw_characters(ink, rank, red, style)
    elif suit == "z":
        _draw_honour(ink, rank, style)
    elif suit in "fg":
        _draw_bonus(ink, code, style)
    elif suit == "a":
        _ANIMALS[rank](ink, (90, 110, 140) if rank != 4 else style.green, style)
    elif suit == "h":
        _draw_face_tile(ink, rank, style)
    else:  # pragma: no cover - guarded by TILE_CODES
        raise ValueError(code)


@functools.lru_cache(maxsize=2048)
def render_ink(code: str, style: FaceStyle = FaceStyle(), size: tuple[int, int] = FACE_SIZE) -> np.ndarray:
    """Premultiplied BGRA ink layer (H x W x 4 uint8) of ``code`` in ``style``; read-only, cached."""
    if code not in TILE_CODES:
        raise ValueError(f"unknown tile code {code!r}")
    ink = _Ink(size, stroke=style.stroke)
    _draw_code(ink, code, style)
    out = ink.result()
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=16)
def _bevel(size: tuple[int, int]) -> np.ndarray:
    """Multiplicative shading (H x W x 3 float32) darkening a face towards its rounded edges."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.minimum.reduce([xx + 0.5, w - xx - 0.5, yy + 0.5, h - yy - 0.5]) / (0.06 * min(w, h))
    shade = 0.8 + 0.2 * np.clip(d, 0, 1) ** 0.5
    return np.repeat(shade[..., None], 3, axis=2)


def compose_face(ink: np.ndarray, body: BGR | np.ndarray, bevel: bool = True) -> np.ndarray:
    """Composite a premultiplied BGRA ink layer over a body colour; returns BGR uint8."""
    h, w = ink.shape[:2]
    transparency = cv2.subtract(255, ink[..., 3]).astype(np.float32) * (1.0 / 255.0)
    base = np.empty((h, w, 3), np.float32)
    base[:] = np.asarray(body, np.float32)
    out = cv2.add(cv2.multiply(base, cv2.merge([transparency] * 3)), ink[..., :3].astype(np.float32))
    if bevel:
        out = cv2.multiply(out, _bevel((w, h)))
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def render_face(code: str, style: FaceStyle = FaceStyle(), face_colour: BGR = (225, 240, 245),
                size: tuple[int, int] = FACE_SIZE) -> np.ndarray:
    """BGR face texture of ``code`` on a ``face_colour`` body (``bk`` gives the coloured back)."""
    return compose_face(render_ink(code, style, size), face_colour)


def random_face(code: str, rng: np.random.Generator, size: tuple[int, int] = FACE_SIZE) -> np.ndarray:
    """A BGR face of ``code`` in a random style on a random ivory/white body (deterministic in ``rng``)."""
    style = random_style(rng)
    body = tuple(int(c) for c in np.clip(np.array([225, 238, 244]) + rng.integers(-25, 12, 3), 0, 255))
    return render_face(code, style, body, size)


def style_without_font(style: FaceStyle) -> FaceStyle:
    """``style`` forced to the line-glyph fallback (for tests and previews)."""
    return replace(style, font=-1)
