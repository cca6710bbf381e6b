"""Tile images: ``/tiles/<code>.png``, the files ``webui/static/tiles/<code>.png`` rendered ahead of time by
``python -m datasets.assets.tiles`` (the page never renders tiles: run-time code does not import ``datasets``).

Each file is read once per process and sent with a long ``Cache-Control`` and an ETag.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from flask import Blueprint, Response, current_app, request

from .errors import ApiError
from .feed import TILE_CODES

bp = Blueprint("tiles", __name__)

TILES_DIR = Path(__file__).resolve().parent / "static" / "tiles"

_lock = threading.Lock()
_cache: dict[str, tuple[bytes, str]] = {}


def tile_png(code: str, folder: Path = TILES_DIR) -> tuple[bytes, str]:
    """(PNG bytes, ETag) of one tile image; FileNotFoundError when the images were not built."""
    key = f"{folder}/{code}"
    with _lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    data = (folder / f"{code}.png").read_bytes()
    etag = hashlib.sha1(data).hexdigest()[:16]
    with _lock:
        _cache[key] = (data, etag)
    return data, etag


@bp.get("/tiles/<code>.png")
def tile(code: str):
    if code not in TILE_CODES:
        raise ApiError(f"unknown tile {code!r}", 404)
    try:
        data, etag = tile_png(code, Path(current_app.config.get("TILES_DIR") or TILES_DIR))
    except FileNotFoundError:
        raise ApiError("the tile images are not built: run `python -m datasets.assets.tiles`", 503) from None
    if request.if_none_match and etag in request.if_none_match:
        return Response(status=304, headers={"ETag": f'"{etag}"'})
    age = int(current_app.config.get("TILE_CACHE_SECONDS", 86400))
    return Response(data, mimetype="image/png",
                    headers={"Cache-Control": f"public, max-age={age}", "ETag": f'"{etag}"'})
