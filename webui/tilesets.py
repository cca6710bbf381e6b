"""Your tiles: enroll the table's own tile set from one photo, choose the set in use, and let every correction
tapped on the live page teach that set at once (``vision.tilesets``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
from flask import Blueprint, current_app, jsonify, render_template, request

from .errors import ApiError, get_str, json_body

bp = Blueprint("tilesets", __name__)


class Teacher:
    """Teaches the tile set in use from corrections, one at a time on a thread of its own (a correction is
    answered at once; the set reads better a second or two later), and keeps the feed's recogniser on it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = threading.Lock()
        self.last: dict[str, Any] | None = None
        self._queue: list[tuple[np.ndarray, str]] = []

    def apply(self, feed, name: str | None) -> bool:
        """Put the set ``name`` (None: none) on the feed's recogniser; False when the feed has none."""
        from vision import tilesets as T

        rec = feed.recognizer() if feed is not None else None
        if rec is None or not hasattr(rec, "use_tileset"):
            return False
        rec.use_tileset(T.TileSet.load(name) if name else None)
        return True

    def teach(self, feed, image: np.ndarray | None, corners, code: str) -> bool:
        """Queue one corrected tile (its box in ``image``) for the set in use; False when no set is in use or
        the feed reads no tiles."""
        from vision import geometry as G
        from vision import tilesets as T

        name = T.active_name()
        rec = feed.recognizer() if feed is not None else None
        if name is None or rec is None or image is None or corners is None:
            return False
        obb = G.quad_to_obb(np.asarray(corners, np.float64).reshape(1, 4, 2))
        crop = G.warp_crops(image, obb, G.CROP_SIZE)[0]
        with self._lock:
            self._queue.append((crop, code))
        threading.Thread(target=self._run, args=(feed, name), daemon=True).start()
        return True

    def _run(self, feed, name: str) -> None:
        from vision import tilesets as T

        with self._busy:
            with self._lock:
                items, self._queue = self._queue, []
            if not items:
                return
            rec = feed.recognizer()
            try:
                ts = T.TileSet.load(name)
                report = T.learn(ts, np.stack([c for c, _ in items]), [k for _, k in items], rec,
                                 source="correction on the page")
                rec.use_tileset(ts)
            except (T.TileSetError, OSError, ValueError) as e:
                report = {"set": name, "error": str(e)}
            with self._lock:
                self.last = {**report, "time": time.time()}


def _teacher() -> Teacher:
    ext = current_app.extensions
    if "tileset_teacher" not in ext:
        ext["tileset_teacher"] = Teacher()
    return ext["tileset_teacher"]


@bp.get("/your-tiles")
def page():
    return render_template("tilesets.html")


@bp.get("/api/tilesets")
def list_sets():
    from vision import tilesets as T

    hub = current_app.extensions["hub"]
    variant = request.args.get("variant") or hub.settings.get()["variant"]
    try:
        rows = T.layout_rows(variant)
    except ValueError as e:
        raise ApiError(str(e), field="variant") from None
    sets = []
    for name in T.list_sets():
        try:
            info = T.TileSet.load(name).summary()
        except T.TileSetError:
            continue
        sets.append({k: info[k] for k in ("name", "variant", "examples", "kinds", "adapted", "history")})
    feed = hub.feed
    return jsonify({"sets": sets, "active": T.active_name(), "variant": variant, "layout": rows,
                    "reads_tiles": feed.recognizer() is not None, "last_lesson": _teacher().last})


@bp.post("/api/tilesets/active")
def set_active():
    """``{"name": "club-set"}`` (or ``null``): the set the camera reads with from now on."""
    from vision import tilesets as T

    data = json_body()
    name = data.get("name")
    if name is not None:
        name = get_str(data, "name", required=True, max_len=40)
    try:
        T.use(T.check_name(name) if name else None)
    except T.TileSetError as e:
        raise ApiError(str(e), 404 if "no tile set" in str(e) else 400, "name") from None
    applied = _teacher().apply(current_app.extensions["hub"].feed, name)
    return jsonify({"active": T.active_name(), "applied_to_camera": applied})


@bp.post("/api/tilesets/enroll")
def enroll():
    """Multipart: ``name``, ``variant``, ``image`` (one photo of the layout's rows): learn the set and use it."""
    from vision import tilesets as T
    from vision.inference import ImageError, TileRecognizer, decode_image

    name = (request.form.get("name") or "").strip()
    variant = (request.form.get("variant") or current_app.extensions["hub"].settings.get()["variant"]).strip()
    f = request.files.get("image")
    if f is None:
        raise ApiError("send the layout photo as the multipart field 'image'", field="image")
    try:
        T.check_name(name)
        T.layout_rows(variant)
    except T.TileSetError as e:
        raise ApiError(str(e), field="name") from None
    except ValueError as e:
        raise ApiError(str(e), field="variant") from None
    data = f.read()
    if not data:
        raise ApiError("the photo is empty", field="image")
    try:
        image = decode_image(data, "the photo")
    except ImageError as e:
        raise ApiError(str(e), 413 if "image too large" in str(e) else 415, "image") from None
    try:
        rec = TileRecognizer(head=None)
    except Exception as e:  # noqa: BLE001 - the models do not load
        raise ApiError(f"the recognition models are not available ({type(e).__name__})", 503) from None
    try:
        report = T.enroll(name, image, rec, variant)
    except T.TileSetError as e:
        raise ApiError(str(e), 422, "image") from None
    T.use(name)
    applied = _teacher().apply(current_app.extensions["hub"].feed, name)
    return jsonify({**{k: v for k, v in report.items() if not isinstance(v, float) or v == v},
                    "active": name, "applied_to_camera": applied})


def teach_correction(feed, image, corners, code: str) -> bool:
    """Called by the live page's correction: teach the set in use (see :class:`Teacher`)."""
    return _teacher().teach(feed, image, corners, code)
