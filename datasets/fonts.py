"""Find fonts with CJK glyphs and rasterise single characters as masks.

Uses Pillow when it is installed (optional); without Pillow or without a CJK font every function
here degrades to "no font", and :mod:`datasets.procedural` draws simple line glyphs instead.
Fonts are looked up in ``$MAHJONG_CJK_FONTS`` (paths separated by ``os.pathsep``), then with
``fc-list :lang=zh``, then by globbing the usual font folders.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass

import numpy as np

try:  # Pillow is optional.
    from PIL import Image, ImageDraw, ImageFont
except ImportError:  # pragma: no cover - depends on the environment
    Image = ImageDraw = ImageFont = None

_PROBE = "萬發蘭"
_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts"),
              os.path.expanduser("~/.local/share/fonts"), "/Library/Fonts", "C:/Windows/Fonts")
_NAME_HINTS = ("cjk", "wqy", "droidsansfallback", "sourcehan", "notosanssc", "notosanstc",
               "notoserifsc", "notoseriftc", "arphic", "uming", "ukai", "msjh", "msyh", "simsun")


@dataclass(frozen=True)
class FontRef:
    """One font face: a file and the face index inside it (for .ttc collections)."""

    path: str
    index: int = 0


def pillow_available() -> bool:
    """True when Pillow can be imported."""
    return ImageFont is not None


def _fc_list_candidates() -> list[FontRef]:
    """Faces that fontconfig says cover Chinese, one per file (a TC/HK face preferred)."""
    if shutil.which("fc-list") is None:
        return []
    try:
        out = subprocess.run(["fc-list", "-f", "%{file}\t%{index}\t%{family}\n", ":lang=zh"],
                             capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    best: dict[str, tuple[int, int]] = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or not parts[1].isdigit():
            continue
        path, index, family = parts[0], int(parts[1]), parts[2]
        if "Mono" in family:
            continue
        rank = 0 if ("TC" in family or "HK" in family) else 1
        if path not in best or (rank, index) < best[path]:
            best[path] = (rank, index)
    return [FontRef(path, best[path][1]) for path in sorted(best)]


def _glob_candidates() -> list[FontRef]:
    """Font files whose names suggest CJK coverage."""
    found: list[FontRef] = []
    for root in _FONT_DIRS:
        for ext in ("ttf", "ttc", "otf"):
            for path in glob.glob(os.path.join(root, "**", f"*.{ext}"), recursive=True):
                name = os.path.basename(path).lower().replace("-", "").replace("_", "")
                if any(h in name for h in _NAME_HINTS):
                    found.append(FontRef(path, 0))
    return sorted(set(found), key=lambda f: (f.path, f.index))


def _has_cjk(ref: FontRef) -> bool:
    """True when ``ref`` loads and draws the probe characters (not as .notdef boxes)."""
    try:
        font = ImageFont.truetype(ref.path, 48, index=ref.index)
    except OSError:
        return False
    missing = _raw_mask(font, "\U000f0000")
    for ch in _PROBE:
        mask = _raw_mask(font, ch)
        if mask is None or (missing is not None and mask.shape == missing.shape
                            and np.array_equal(mask, missing)):
            return False
    return True


@functools.lru_cache(maxsize=1)
def cjk_fonts() -> tuple[FontRef, ...]:
    """All usable CJK font faces on this machine (empty without Pillow or without such fonts)."""
    if not pillow_available():
        return ()
    env = os.environ.get("MAHJONG_CJK_FONTS", "")
    refs = [FontRef(p, 0) for p in env.split(os.pathsep) if p and os.path.exists(p)]
    refs += _fc_list_candidates() or _glob_candidates()
    seen: set[FontRef] = set()
    usable = []
    for ref in refs:
        if ref not in seen and _has_cjk(ref):
            usable.append(ref)
        seen.add(ref)
    return tuple(usable[:8])


def _raw_mask(font, text: str) -> np.ndarray | None:
    """Draw ``text`` with a Pillow font; return the tight uint8 mask or None if empty."""
    left, top, right, bottom = font.getbbox(text)
    if right <= left or bottom <= top:
        return None
    img = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), text, fill=255, font=font)
    arr = np.asarray(img)
    ys, xs = np.nonzero(arr)
    if len(xs) == 0:
        return None
    return arr[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


@functools.lru_cache(maxsize=1024)
def glyph_mask(text: str, font_index: int, px: int = 160) -> np.ndarray | None:
    """Tight uint8 mask of ``text`` drawn with ``cjk_fonts()[font_index]`` at ``px`` pixels.

    Returns None when no such font exists or the text draws nothing.
    """
    fonts = cjk_fonts()
    if not fonts or not 0 <= font_index < len(fonts):
        return None
    ref = fonts[font_index]
    font = ImageFont.truetype(ref.path, px, index=ref.index)
    return _raw_mask(font, text)


NO_CJK_WARNING = ("warning: no CJK font found (install fonts-noto-cjk, or list font files in $MAHJONG_CJK_FONTS): "
                  "procedural faces print latin stand-ins for characters and honours, which real tiles never "
                  "show and the shipped classifier was not trained on; synthetic figures and training data made "
                  "here are not comparable with those of the model card")


def warn_without_cjk(stream=None) -> bool:
    """Print :data:`NO_CJK_WARNING` to ``stream`` (stderr) when no CJK font is usable; True if it warned."""
    import sys

    if cjk_fonts():
        return False
    print(NO_CJK_WARNING, file=stream or sys.stderr)
    return True

