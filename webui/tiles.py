"""Tile images: ``/tiles/<code>.png`` rendered from the shared art pack (``datasets.art``, read in place,
never copied into the repository), else from the project's procedural faces (``datasets.procedural``).

Images are rendered once per process, kept in memory and sent with a long ``Cache-Control`` and an ETag.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import cv2
from flask import Blueprint, Response, current_app, request

from .errors import ApiError
from .feed import TILE_CODES

bp = Blueprint("tiles", __name__)

SIZE = (72, 96)  # width, height: shown at 36 x 48 CSS pixels (sharp on 2x screens)
BODY = (236, 246, 249)  # BGR ivory
PREFERRED_SETS = ("fluffystuff/Regular", "samoheen-hk", "imahjong-fonts/glyph-svg/HK", "lietxia")

_lock = threading.Lock()
_cache: dict[str, tuple[bytes, str]] = {}
_library = None
_library_root: str | None = None


def art_root(config_root: str | None) -> Path:
    """``ART_ROOT``, else ``$MAHJONG_ART``, else ``shared/art`` beside the project, else ``../shared/art``."""
    if config_root:
        return Path(config_root)
    env = os.environ.get("MAHJONG_ART")
    if env:
        return Path(env)
    beside = Path(__file__).resolve().parents[2] / "shared" / "art"
    return beside if beside.is_dir() else Path.cwd() / ".." / "shared" / "art"


def _art(root: Path):
    global _library, _library_root
    if _library is None or _library_root != str(root):
        try:
            from datasets.art import ArtLibrary

            _library, _library_root = ArtLibrary(root), str(root)
        except Exception:  # no art support at all: procedural faces
            _library, _library_root = False, str(root)
    return _library or None


def render_tile(code: str, root: Path) -> bytes:
    """PNG bytes of one tile face (art-pack face when available, else procedural)."""
    from datasets.procedural import compose_face, render_face

    face = None
    lib = _art(root)
    if lib is not None and code != "bk":
        entries = lib.entries(code)
        for key in PREFERRED_SETS:
            entry = next((e for e in entries if e.set_key == key), None)
            if entry is not None:
                ink = lib.ink(entry, SIZE)
                if ink is not None:
                    face = compose_face(ink, BODY)
                    break
    if face is None:
        face = render_face(code, face_colour=BODY, size=SIZE)
    ok, buf = cv2.imencode(".png", face)
    if not ok:  # pragma: no cover
        raise RuntimeError(f"cannot encode tile {code}")
    return buf.tobytes()


def tile_png(code: str, root: Path) -> tuple[bytes, str]:
    with _lock:
        hit = _cache.get(code)
        if hit is not None and _library_root == str(root):
            return hit
    data = render_tile(code, root)
    etag = hashlib.sha1(data).hexdigest()[:16]
    with _lock:
        _cache[code] = (data, etag)
    return data, etag


@bp.get("/tiles/<code>.png")
def tile(code: str):
    if code not in TILE_CODES:
        raise ApiError(f"unknown tile {code!r}", 404)
    data, etag = tile_png(code, art_root(current_app.config.get("ART_ROOT")))
    if request.if_none_match and etag in request.if_none_match:
        return Response(status=304, headers={"ETag": f'"{etag}"'})
    age = int(current_app.config.get("TILE_CACHE_SECONDS", 86400))
    return Response(data, mimetype="image/png",
                    headers={"Cache-Control": f"public, max-age={age}", "ETag": f'"{etag}"'})
