"""Your tiles: enroll the table's own tile set from one photo, choose the set in use, and let every correction
tapped on the live page teach that set at once (``vision.tilesets``)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

import numpy as np
from flask import Blueprint, current_app, jsonify, render_template, request

from .errors import ApiError, get_str, json_body

bp = Blueprint("tilesets", __name__)


class Teacher:
    """Teaches the tile set in use from corrections on one worker thread of its own (a correction is answered
    at once; the set reads better a second or two later), and keeps the feed's recogniser on it.

    Corrections wait in a bounded queue (:attr:`MAX_PENDING`, the oldest give way) and are coalesced: every
    correction waiting when a lesson starts is taught in that one lesson, and the same crop corrected again
    before it is taught once, with its latest code."""

    MAX_PENDING = 64

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self.last: dict[str, Any] | None = None
        self._queue: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()   # (set, crop key) -> crop
        self._codes: dict[tuple[str, str], str] = {}
        self._context: dict[str, np.ndarray] = {}   # set -> crops of the latest corrected frame's other tiles
        self._feed = None
        self._worker: threading.Thread | None = None
        self._busy = False
        self._teaching: str | None = None   # the set of the running lesson
        self._since: float | None = None
        self.lessons = 0

    def apply(self, feed, name: str | None) -> bool:
        """Put the set ``name`` (None: none) on the feed's recogniser; False when the feed has none."""
        from vision import tilesets as T

        rec = feed.recognizer() if feed is not None else None
        if rec is None or not hasattr(rec, "use_tileset"):
            return False
        rec.use_tileset(T.TileSet.load(name) if name else None)
        return True

    def teach(self, feed, image: np.ndarray | None, corners, code: str, others=()) -> bool:
        """Queue one corrected tile (its box in ``image``) for the set in use; False when no set is in use or
        the feed reads no tiles. ``others`` (corners of the frame's other tiles) are the set's other tiles the
        lesson must read no worse (:func:`vision.tilesets.learn`'s ``context``)."""
        import hashlib

        from vision import geometry as G
        from vision import tilesets as T

        name = T.active_name()
        rec = feed.recognizer() if feed is not None else None
        if name is None or rec is None or image is None or corners is None:
            return False
        obb = G.quad_to_obb(np.asarray(corners, np.float64).reshape(1, 4, 2))
        crop = G.warp_crops(image, obb, G.CROP_SIZE)[0]
        key = (name, hashlib.sha1(np.ascontiguousarray(crop).tobytes()).hexdigest())
        quads = [np.asarray(q, np.float64).reshape(4, 2) for q in list(others)[:T.MAX_CONTEXT]]
        context = G.warp_crops(image, G.quad_to_obb(np.stack(quads)), G.CROP_SIZE) if quads else None
        with self._lock:
            self._queue.pop(key, None)
            self._queue[key], self._codes[key] = crop, code
            if context is not None:
                self._context[name] = context   # the latest frame's other tiles
            while len(self._queue) > self.MAX_PENDING:
                old, _ = self._queue.popitem(last=False)
                self._codes.pop(old, None)
            self._feed = feed
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="tileset-teacher", daemon=True)
                self._worker.start()
            self._lock.notify_all()
        return True

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def state(self) -> dict[str, Any]:
        """What the page shows while it teaches: ``busy`` (a lesson runs), the set it teaches (None when idle),
        ``waiting`` (corrections queued for the next lesson) and ``since`` (when the running lesson began)."""
        with self._lock:
            return {"busy": self._busy, "set": self._teaching, "waiting": len(self._queue), "since": self._since}

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until every queued correction has been taught; False on timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._queue and not self._busy, timeout)

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    self._lock.wait()
                name = next(iter(self._queue))[0]   # the set of the oldest correction: all of that set's
                keys = [k for k in self._queue if k[0] == name]
                items = [(self._queue.pop(k), self._codes.pop(k)) for k in keys]
                context = self._context.pop(name, None)
                feed, self._busy = self._feed, True
                self._teaching, self._since = name, time.time()
            report = None
            try:
                report = self._lesson(feed, name, items, context)
            finally:
                with self._lock:
                    self.last = {**report, "time": time.time()} if report else self.last
                    self._busy, self._teaching, self._since = False, None, None
                    self.lessons += 1
                    self._lock.notify_all()

    def _lesson(self, feed, name: str, items: list[tuple[np.ndarray, str]], context: np.ndarray | None = None
                ) -> dict[str, Any]:
        from vision import tilesets as T

        rec = feed.recognizer() if feed is not None else None
        if rec is None:
            return {"set": name, "error": "the camera reads no tiles"}
        try:
            with T.locked(name):   # from reading the set to saving it: a removed set does not come back
                ts = T.TileSet.load(name)
                report = T.learn(ts, np.stack([c for c, _ in items]), [k for _, k in items], rec,
                                 source="correction on the page", context=context)
            rec.use_tileset(ts)
        except (T.TileSetError, OSError, ValueError) as e:
            report = {"set": name, "error": str(e)}
        except Exception as e:  # noqa: BLE001 - the one worker must outlive a lesson that fails
            report = {"set": name, "error": f"{type(e).__name__}: {e}"}
        return report


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
    good, damaged = T.summaries()   # from each set's summary: no example is read
    sets = [{k: info[k] for k in ("name", "variant", "examples", "kinds", "adapted", "network", "history")}
            for info in good]
    feed = hub.feed
    return jsonify({"sets": sets, "damaged": damaged, "active": T.active_name(), "variant": variant,
                    "layout": rows, "reads_tiles": feed.recognizer() is not None, "last_lesson": _teacher().last,
                    "teaching": _teacher().state(), "adapting": T.adapting()})


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
    from vision.inference import ImageError, ImageTooLarge, TileRecognizer, decode_image

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
        raise ApiError(str(e), 413 if isinstance(e, ImageTooLarge) else 415, "image") from None
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


def teach_correction(feed, image, corners, code: str, others=()) -> bool:
    """Called by the live page's correction: teach the set in use (see :class:`Teacher`); ``others``: the
    corners of the frame's other tiles (what the lesson must read no worse)."""
    return _teacher().teach(feed, image, corners, code, others)
