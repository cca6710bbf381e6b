"""Tile face artwork from the shared art pack (``shared/art``), rasterised and cached.

The art root is never copied into the project: it is read in place (default ``$MAHJONG_ART`` or
``../shared/art`` relative to the current directory) and rasters are cached under
``~/.cache/mahjong-assistant/art`` (or ``$MAHJONG_ART_CACHE``). Every face is returned as a
premultiplied BGRA *ink layer* of the face texture size, to be composited onto a tile body with
:func:`datasets.procedural.compose_face`, exactly like the procedural faces.

Sources (see ``shared/art/README.md`` and ``MANIFEST.csv``):

* SVG faces (FluffyStuff, xhokir, samoheen-hk, lietxia, I.Mahjong ``glyph-svg``) - need an SVG
  rasteriser: the ``cairosvg`` module, or an ``rsvg-convert`` / ``resvg`` / ``inkscape`` binary;
* game-icons animal/face silhouettes - fitted into the middle of the face and coloured;
* the four I.Mahjong OTF fonts - standard tiles by code point, red fives by ligature (Pillow with
  libraqm); monochrome, frame removed, coloured.

When the root, the rasteriser or Pillow is missing the corresponding sources are simply absent:
:meth:`ArtLibrary.entries` returns fewer entries and callers fall back to procedural faces.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .codes import TILE_CODES
from .procedural import FACE_SIZE, INKS, REDS

try:  # Pillow is optional (font entries only).
    from PIL import Image, ImageDraw, ImageFont, features
except ImportError:  # pragma: no cover - depends on the environment
    Image = ImageDraw = ImageFont = features = None

Rasteriser = Callable[[Path, int, int], np.ndarray | None]

_ICON_PACK = "game-icons-animals"
_FONT_PACK = "imahjong-fonts"
_BODY_FOLDERS = {"fluffystuff/Black"}  # faces drawn for a dark body: composite onto its Front.svg
_FONT_FRAME = 0.06  # I.Mahjong glyphs carry a tile outline this thick (fraction of width): erased

# Code points / ligatures of the I.Mahjong fonts (see shared/art/imahjong-fonts/GLYPHS.txt).
_FONT_TEXT: dict[str, str] = {
    **{f"{r}z": chr(0x1F000 + r - 1) for r in range(1, 5)},
    "5z": "\U0001F006", "6z": "\U0001F005", "7z": "\U0001F004",
    **{f"{r}m": chr(0x1F007 + r - 1) for r in range(1, 10)},
    **{f"{r}s": chr(0x1F010 + r - 1) for r in range(1, 10)},
    **{f"{r}p": chr(0x1F019 + r - 1) for r in range(1, 10)},
}
_FONT_LIGATURES: dict[str, str] = {"0m": "0m", "0p": "0p", "0s": "0s"}


def default_art_root() -> Path:
    """``$MAHJONG_ART`` if set, else ``../shared/art`` relative to the current directory."""
    env = os.environ.get("MAHJONG_ART")
    return Path(env) if env else Path.cwd() / ".." / "shared" / "art"


def default_cache_dir() -> Path:
    """``$MAHJONG_ART_CACHE`` if set, else ``~/.cache/mahjong-assistant/art``."""
    env = os.environ.get("MAHJONG_ART_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "mahjong-assistant" / "art"


@dataclass(frozen=True)
class ArtEntry:
    """One piece of artwork for one tile code (a manifest row, or a glyph of a font)."""

    pack: str
    file: str
    code: str
    license: str
    text: str = ""  # glyph text for font entries

    @property
    def is_font(self) -> bool:
        """True for a glyph drawn from an OTF font."""
        return self.file.lower().endswith((".otf", ".ttf"))

    @property
    def set_key(self) -> str:
        """The art set this entry belongs to (pack + folder, or pack + font file)."""
        where = self.file if self.is_font else os.path.dirname(self.file)
        return f"{self.pack}/{where}" if where else self.pack

    @property
    def monochrome(self) -> bool:
        """True when the artwork is a single-colour silhouette to be coloured when rendered."""
        return self.pack in (_ICON_PACK, _FONT_PACK)


# --------------------------------------------------------------------------- rasterisers


def _decode_png(data: bytes) -> np.ndarray | None:
    """PNG bytes -> straight-alpha BGRA uint8 (None when undecodable)."""
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None:
        return None
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _cairosvg_rasteriser() -> Rasteriser | None:
    try:
        import cairosvg  # noqa: PLC0415 - optional dependency
    except (ImportError, OSError):
        return None

    def run(path: Path, w: int, h: int) -> np.ndarray | None:
        return _decode_png(cairosvg.svg2png(url=str(path), output_width=w, output_height=h))

    return run


def _binary_rasteriser(name: str) -> Rasteriser | None:
    exe = shutil.which(name)
    if exe is None:
        return None

    def run(path: Path, w: int, h: int) -> np.ndarray | None:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.png")
            if name == "rsvg-convert":
                cmd = [exe, "-w", str(w), "-h", str(h), "-o", out, str(path)]
            elif name == "resvg":
                cmd = [exe, "-w", str(w), "-h", str(h), str(path), out]
            else:
                cmd = [exe, str(path), "--export-type=png", f"--export-filename={out}",
                       f"--export-width={w}", f"--export-height={h}"]
            subprocess.run(cmd, capture_output=True, timeout=60, check=False)
            if not os.path.exists(out):
                return None
            with open(out, "rb") as fh:
                img = _decode_png(fh.read())
        return None if img is None else cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)

    return run


@functools.lru_cache(maxsize=1)
def find_rasteriser() -> tuple[str, Rasteriser] | None:
    """The first available SVG rasteriser as ``(name, function)``, or None."""
    found = _cairosvg_rasteriser()
    if found is not None:
        return "cairosvg", found
    for name in ("rsvg-convert", "resvg", "inkscape"):
        found = _binary_rasteriser(name)
        if found is not None:
            return name, found
    return None


def _raqm_available() -> bool:
    return features is not None and bool(features.check("raqm"))


# --------------------------------------------------------------------------- pixel helpers


def _premultiply(bgra: np.ndarray) -> np.ndarray:
    """Straight-alpha BGRA -> premultiplied BGRA (uint8)."""
    a = bgra[..., 3:].astype(np.float32) / 255.0
    out = bgra.astype(np.float32)
    out[..., :3] *= a
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _over(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Premultiplied ``top`` over premultiplied ``bottom``."""
    a = top[..., 3:].astype(np.float32) / 255.0
    out = top.astype(np.float32) + bottom.astype(np.float32) * (1 - a)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _colourise(alpha: np.ndarray, colour: tuple[int, int, int]) -> np.ndarray:
    """A coverage mask -> premultiplied BGRA ink of one colour."""
    a = alpha.astype(np.float32)[..., None] / 255.0
    bgr = np.asarray(colour, np.float32)[None, None, :] * a
    return np.clip(np.concatenate([bgr, a * 255.0], axis=2) + 0.5, 0, 255).astype(np.uint8)


def _erase_border(img: np.ndarray, frac: float) -> np.ndarray:
    """Zero a border ``frac`` of the width (plus one pixel) thick on every side of ``img``."""
    b = int(round(frac * img.shape[1])) + 1
    out = img.copy()
    out[:b], out[-b:], out[:, :b], out[:, -b:] = 0, 0, 0, 0
    return out


# --------------------------------------------------------------------------- the library


class ArtLibrary:
    """Tile artwork by code, read from an art root and rasterised into a cache directory."""

    def __init__(self, root: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None,
                 use_fonts: bool = True):
        self.root = Path(root) if root is not None else default_art_root()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self._rasteriser = find_rasteriser() if (self.root / "MANIFEST.csv").is_file() else None
        self._use_fonts = use_fonts and ImageFont is not None
        self._entries = self._load_entries()
        self._memory: dict[tuple[ArtEntry, tuple[int, int]], np.ndarray | None] = {}

    # ------------------------------------------------------------------ manifest
    @property
    def available(self) -> bool:
        """True when at least one piece of artwork can be rendered."""
        return any(self._entries.values())

    def _load_entries(self) -> dict[str, list[ArtEntry]]:
        """Usable entries per tile code (empty lists when the root is missing)."""
        entries: dict[str, list[ArtEntry]] = {code: [] for code in TILE_CODES}
        manifest = self.root / "MANIFEST.csv"
        if not manifest.is_file():
            return entries
        with open(manifest, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        for row in rows:
            entry = ArtEntry(row["pack"], row["file"], row["tile_code"], row["license"])
            if entry.code == "multi" and self._use_fonts:
                for code, text in self._font_glyphs():
                    entries[code].append(ArtEntry(entry.pack, entry.file, code, entry.license, text))
            elif entry.code in entries and self._rasteriser is not None:
                if (self.root / entry.pack / entry.file).is_file():
                    entries[entry.code].append(entry)
        return entries

    @staticmethod
    def _font_glyphs() -> list[tuple[str, str]]:
        """(code, text) pairs drawable from an I.Mahjong font with this Pillow build."""
        pairs = list(_FONT_TEXT.items())
        if _raqm_available():
            pairs += list(_FONT_LIGATURES.items())
        return pairs

    def entries(self, code: str) -> list[ArtEntry]:
        """All usable artwork for ``code`` (may be empty)."""
        return list(self._entries.get(code, []))

    def codes(self) -> list[str]:
        """Codes with at least one usable piece of artwork."""
        return [code for code in TILE_CODES if self._entries[code]]

    # ------------------------------------------------------------------ rendering
    def ink(self, entry: ArtEntry, size: tuple[int, int] = FACE_SIZE,
            colour: tuple[int, int, int] = INKS[3]) -> np.ndarray | None:
        """Premultiplied BGRA ink layer of ``entry`` at ``size`` (w, h); None if it cannot be drawn.

        ``colour`` paints monochrome sources (fonts, icons); coloured SVGs ignore it.
        """
        key = (entry, size)
        if key not in self._memory:
            self._memory[key] = self._render(entry, size)
        coverage = self._memory[key]
        if coverage is None:
            return None
        if entry.monochrome:
            return _colourise(coverage[..., 3], colour)
        return coverage

    def set_keys(self) -> list[str]:
        """All art sets with at least one usable entry, sorted."""
        return sorted({e.set_key for entries in self._entries.values() for e in entries})

    def random_ink(self, code: str, rng: np.random.Generator, size: tuple[int, int] = FACE_SIZE,
                   prefer: str | None = None) -> tuple[np.ndarray, ArtEntry] | None:
        """A random piece of artwork for ``code`` as ``(ink, entry)``, or None when there is none.

        With ``prefer`` (a :attr:`ArtEntry.set_key`) entries of that set are used when it has any.
        """
        entries = self._entries.get(code, [])
        preferred = [e for e in entries if e.set_key == prefer]
        entries = preferred or entries
        if not entries:
            return None
        entry = entries[int(rng.integers(len(entries)))]
        colour = REDS[int(rng.integers(len(REDS)))] if code.startswith("0") else \
            INKS[int(rng.integers(len(INKS)))]
        ink = self.ink(entry, size, colour)
        return None if ink is None else (ink, entry)

    def _render(self, entry: ArtEntry, size: tuple[int, int]) -> np.ndarray | None:
        """Uncoloured premultiplied BGRA raster of ``entry`` (monochrome ones keep their alpha)."""
        try:
            if entry.is_font:
                return self._render_font(entry, size)
            if entry.pack == _ICON_PACK:
                return self._render_icon(entry, size)
            ink = self._raster(entry.pack, entry.file, size)
            if ink is None:
                return None
            if entry.pack == _FONT_PACK:  # glyph-svg outlines: same tile frame as the fonts
                return _erase_border(ink, _FONT_FRAME + 0.01)
            folder = f"{entry.pack}/{os.path.dirname(entry.file)}"
            if folder in _BODY_FOLDERS:
                body = self._raster(entry.pack, f"{os.path.dirname(entry.file)}/Front.svg", size)
                if body is not None:
                    ink = _over(ink, body)
            return ink
        except (OSError, ValueError, RuntimeError) as exc:  # a broken file must not stop a dataset run
            warnings.warn(f"art: cannot render {entry.pack}/{entry.file}: {exc}", stacklevel=2)
            return None

    def _raster(self, pack: str, file: str, size: tuple[int, int]) -> np.ndarray | None:
        """Premultiplied BGRA raster of an SVG at ``size``, through the on-disk cache."""
        if self._rasteriser is None:
            return None
        path = self.root / pack / file
        if not path.is_file():
            return None
        digest = hashlib.sha1(path.read_bytes()).hexdigest()[:12]
        cached = self.cache_dir / pack / f"{file.replace('/', '__')}.{size[0]}x{size[1]}.{digest}.png"
        img = cv2.imread(str(cached), cv2.IMREAD_UNCHANGED) if cached.is_file() else None
        if img is None or img.ndim != 3 or img.shape[2] != 4:
            img = self._rasteriser[1](path, size[0], size[1])
            if img is None:
                return None
            self._write_cache(cached, img)
        return _premultiply(img)

    @staticmethod
    def _write_cache(path: Path, img: np.ndarray) -> None:
        """Atomically write a PNG into the cache (silently skipped when the cache is not writable)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(suffix=".png", dir=path.parent)
            os.close(fd)
            cv2.imwrite(tmp, img)
            os.replace(tmp, path)
        except OSError:
            pass

    def _render_icon(self, entry: ArtEntry, size: tuple[int, int]) -> np.ndarray | None:
        """A square silhouette fitted into the middle of the face (coverage in alpha)."""
        w, h = size
        side = int(round(min(w, h) * 0.78))
        icon = self._raster(entry.pack, entry.file, (side, side))
        if icon is None:
            return None
        out = np.zeros((h, w, 4), np.uint8)
        x0, y0 = (w - side) // 2, (h - side) // 2
        out[y0:y0 + side, x0:x0 + side, 3] = icon[..., 3]
        return out

    def _render_font(self, entry: ArtEntry, size: tuple[int, int]) -> np.ndarray | None:
        """An I.Mahjong glyph stretched to the face, its tile outline erased (coverage in alpha)."""
        alpha = _font_glyph(str(self.root / entry.pack / entry.file), entry.text, 2 * size[1])
        if alpha is None:
            return None
        w, h = size
        out = np.zeros((h, w, 4), np.uint8)
        out[..., 3] = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_AREA)
        return _erase_border(out, _FONT_FRAME)


@functools.lru_cache(maxsize=512)
def _font_glyph(path: str, text: str, px: int) -> np.ndarray | None:
    """Coverage mask of one tile glyph (cropped to the glyph's tile bounding box)."""
    if not os.path.isfile(path):
        return None
    engine = ImageFont.Layout.RAQM if _raqm_available() else ImageFont.Layout.BASIC
    font = ImageFont.truetype(path, px, layout_engine=engine)
    left, top, right, bottom = font.getbbox(text)
    if right <= left or bottom <= top:
        return None
    img = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(img).text((-left, -top), text, fill=255, font=font)
    arr = np.asarray(img)
    return arr.copy() if arr.any() else None
