"""The live-camera frame analyser behind ``mahjong-assistant serve --source``.

:class:`LiveAnalyzer` is a :data:`webui.feed.FrameAnalyzer`: ``analyze(image_bgr, corrections) -> snapshot
fields``. Per analysed frame it

1. runs the detector (oriented boxes, no classification);
2. maps each box to the table plane (the camera's saved calibration, else one estimated from the tiles of
   the first frames and then reused) and asks :class:`vision.tracking.TileTracker` which boxes need the
   classifier (new, moved, turned over or still-voting tiles); only those are classified;
3. feeds the tracker (votes, stability, user corrections pinned on their track);
4. rebuilds the table from the believed codes with :func:`vision.reconstruct.reconstruct`.

It returns ``tiles`` (id ``t<track id>``), ``zones`` (none yet: each tile carries its ``zone``/``seat``),
``state`` None (a full engine state needs every hand), ``observation`` (the rebuilt table), ``event`` (what
changed since the last stable observation), ``problems`` and ``timing`` (ms per stage).

``background=True`` (what the server uses) runs the analysis on a worker thread: a call hands the newest
frame over (replacing one still waiting: frames are skipped, never queued) and returns the latest finished
result at once, so the camera stream never waits for the models.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from . import geometry as G
from .inference import BACK_INDEX, KINDS, NONE_INDEX, normalize_image
from .tracking import TileTracker

FACE_HEIGHT_MM = 19.0      # lying faces are one tile thickness above the table
RECALIBRATE_FRAMES = 10    # without any calibration, retry the estimate every this many frames
NOT_TILE_FRAMES = 10      # frames a "not a tile" reading is remembered at its place
CALIBRATION_POLL_S = 2.0   # re-read a saved calibration file this often (the calibration page may save one)


def _seat_name(position) -> str:
    return "table" if position is None else f"seat {position}"


def describe_change(before: dict | None, after: dict) -> str:
    """A short text of what changed between two observations (dicts of ``TableObservation.to_dict``)."""
    if before is None:
        return ""
    parts: list[str] = []
    old = {s["position"]: s for s in before.get("seats", [])}
    for s in after.get("seats", []):
        p, o = s["position"], old.get(s["position"])
        if o is None:
            continue
        if s["discards"][:len(o["discards"])] == o["discards"] and len(s["discards"]) > len(o["discards"]):
            for c in s["discards"][len(o["discards"]):]:
                parts.append(f"{_seat_name(p)} discarded {c}")
        elif s["discards"] != o["discards"]:
            parts.append(f"{_seat_name(p)} discards changed")
        new_melds = [m["notation"] or "".join(m["tiles"]) for m in s["melds"]]
        old_melds = [m["notation"] or "".join(m["tiles"]) for m in o["melds"]]
        for m in Counter(new_melds) - Counter(old_melds):
            parts.append(f"{_seat_name(p)} called {m}")
        gained = Counter(s["hand"]) - Counter(o["hand"])
        lost = Counter(o["hand"]) - Counter(s["hand"])
        if len(s["hand"]) == len(o["hand"]) + 1 and sum(gained.values()) == 1:
            parts.append(f"{_seat_name(p)} drew {next(iter(gained))}" if next(iter(gained)) != "bk"
                         else f"{_seat_name(p)} drew")
        elif gained or lost:
            if not any(x.startswith(_seat_name(p)) for x in parts):
                parts.append(f"{_seat_name(p)} hand changed")
        for c in (Counter(s["bonus"] + s["norths"]) - Counter(o["bonus"] + o["norths"])).elements():
            parts.append(f"{_seat_name(p)} set aside {c}")
    new_dora = Counter(after.get("dora_indicators", [])) - Counter(before.get("dora_indicators", []))
    for c in new_dora.elements():
        parts.append(f"new dora indicator {c}")
    for c in (Counter(after.get("centre_discards", [])) - Counter(before.get("centre_discards", []))).elements():
        parts.append(f"{c} discarded to the centre")
    return "; ".join(parts)


class LiveAnalyzer:
    """Detector + tracker + classifier-on-demand + reconstruction for a camera feed (see the module doc)."""

    def __init__(self, variant: str = "sanma", camera_id: str = "default", recognizer=None, *,
                 calibration_dir: str | Path | None = None, tile_mm: float = 26.0, background: bool = False,
                 tracker: TileTracker | None = None, min_interval_s: float = 0.0) -> None:
        if recognizer is None:
            from .inference import TileRecognizer

            recognizer = TileRecognizer()  # raises when the models are missing: the caller falls back
        self.recognizer = recognizer
        self.variant = variant
        self.camera_id = str(camera_id)
        self.calibration_dir = calibration_dir
        self.tile_mm = float(tile_mm)
        self.tracker = tracker or TileTracker(tile_mm=self.tile_mm)
        self.background = background
        self.min_interval_s = float(min_interval_s)
        self.calibration = None
        self._calibration_source: str | None = None     # "saved" | "tiles" | None
        self._cal_checked = -1e9
        self._cal_mtime: float | None = None
        self._frames = 0
        self._info: dict[int, dict[str, Any]] = {}      # track id -> last classifier reading
        self._not_tiles: list[tuple[np.ndarray, int]] = []  # (table xy, frame) of boxes read as "not a tile"
        self._stable_obs: dict | None = None            # last observation seen while every tile was stable
        self._last_event = ""
        self.timing: dict[str, float] = {}
        self.counts = Counter()                          # frames, detections, classified (totals)
        self._result: dict[str, Any] = {"tiles": [], "zones": [], "state": None, "event": "", "win": None,
                                        "problems": [], "observation": None, "timing": {}}
        # background worker
        self._slot: tuple[np.ndarray, dict[str, str]] | None = None
        self._cond = threading.Condition()
        self._worker: threading.Thread | None = None
        self._busy = False
        self._stop = False
        self._error: str | None = None

    # ------------------------------------------------------------------ hook
    def __call__(self, image: np.ndarray, corrections: dict[str, str] | None = None) -> dict[str, Any]:
        if not self.background:
            return self.process(image, corrections)
        with self._cond:
            self._slot = (image, dict(corrections or {}))  # replaces a frame still waiting: skip, never queue
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="live-analyzer", daemon=True)
                self._worker.start()
            self._cond.notify_all()
            result = dict(self._result)
            if self._error:
                result["problems"] = [f"Recognition failed on a frame: {self._error}", *result.get("problems", [])]
            return result

    def _work(self) -> None:
        while True:
            with self._cond:
                while self._slot is None and not self._stop:
                    self._cond.wait(1.0)
                if self._stop:
                    return
                image, corrections = self._slot
                self._slot = None
                self._busy = True
            t0 = time.monotonic()
            try:
                self.process(image, corrections)
                self._error = None
            except Exception as e:  # noqa: BLE001 - keep analysing the next frames
                self._error = f"{type(e).__name__}: {e}"
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
            left = self.min_interval_s - (time.monotonic() - t0)
            if left > 0:
                time.sleep(left)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Background mode: wait until no frame is waiting or being analysed (tests)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._slot is not None or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()

    @property
    def result(self) -> dict[str, Any]:
        return dict(self._result)

    # ------------------------------------------------------------------ calibration
    def _load_saved(self, size: tuple[int, int]):
        from . import calibration as C

        cal = C.load(self.camera_id, self.calibration_dir)
        if cal is not None:
            return cal
        # the web page's calibration file: {"camera", "corners", "image_size"}
        if self.calibration_dir is None:
            return None
        import json
        import re

        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", self.camera_id).strip(".") or "camera"
        path = Path(self.calibration_dir) / f"{safe}.json"
        try:
            doc = json.loads(path.read_text())
            corners = np.asarray(doc["corners"], np.float64)
            w0, h0 = doc.get("image_size") or size
            corners = corners * [size[0] / w0, size[1] / h0]
            return C.from_corners(corners, size, camera_id=self.camera_id)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _saved_mtime(self) -> float | None:
        from . import calibration as C

        d = Path(self.calibration_dir).expanduser() if self.calibration_dir else C.default_dir()
        mt = None
        for p in {d / f"{C._safe_id(self.camera_id)}.json"}:
            try:
                mt = max(mt or 0.0, p.stat().st_mtime)
            except OSError:
                pass
        return mt

    def _refresh_calibration(self, size: tuple[int, int]) -> None:
        now = time.monotonic()
        if now - self._cal_checked < CALIBRATION_POLL_S:
            return
        self._cal_checked = now
        mt = self._saved_mtime()
        if mt is not None and (self._calibration_source != "saved" or mt != self._cal_mtime):
            cal = self._load_saved(size)
            if cal is not None:
                if self.calibration is not None:
                    self.tracker.tracks.clear()  # a new table frame: positions are not comparable
                    self._not_tiles.clear()
                self.calibration, self._calibration_source, self._cal_mtime = cal, "saved", mt

    # ------------------------------------------------------------------ one frame
    def process(self, image: np.ndarray, corrections: dict[str, str] | None = None) -> dict[str, Any]:
        """Analyse one frame synchronously; returns (and keeps) the snapshot fields."""
        rec = self.recognizer
        img = normalize_image(image)
        h, w = img.shape[:2]
        size = (w, h)
        self._refresh_calibration(size)
        self._apply_corrections(corrections or {})
        lock = getattr(rec, "_lock", None) or threading.Lock()
        t0 = time.perf_counter()
        with lock:
            boxes = rec.detect_boxes(img)
        t1 = time.perf_counter()
        n = len(boxes["obb"])
        centres = boxes["quad"].reshape(-1, 4, 2).mean(1) if n else np.zeros((0, 2))
        det_up = boxes["face_up"] > 0.5 if n else np.zeros(0, bool)
        probs = np.zeros((n, len(KINDS)))
        flip = np.zeros(n)
        classified = np.zeros(n, bool)

        def classify(sel: np.ndarray) -> None:
            idx = np.nonzero(sel & ~classified)[0]
            if not len(idx):
                return
            crops = G.warp_crops(img, boxes["obb"][idx], G.CROP_SIZE)
            with lock:
                p, f = rec.classify(crops)
            probs[idx], flip[idx] = p, f
            classified[idx] = True

        if self.calibration is None and n and (self._frames % RECALIBRATE_FRAMES == 0):
            classify(np.ones(n, bool))
            self._estimate_calibration(boxes, probs, size)
        xy = self._positions(centres, boxes)
        plan = self.tracker.plan(xy, det_up)
        need = np.asarray(plan.classify, bool) if n else np.zeros(0, bool)
        # boxes the classifier called "not a tile" at the same place lately are not classified again until
        # the memory expires (NOT_TILE_FRAMES)
        self._not_tiles = [(p, f) for p, f in self._not_tiles if self._frames - f < NOT_TILE_FRAMES]
        if self._not_tiles and n:
            known = np.array([p for p, _ in self._not_tiles])
            near = np.linalg.norm(xy[:, None, :] - known[None], axis=2).min(1) <= (
                self.tracker.move_tolerance * self.tracker.tile_mm)
            skip = near & np.array([tid is None for tid in plan.track_ids])
            need &= ~skip
            skipped = skip
        else:
            skipped = np.zeros(n, bool)
        classify(need)
        t2 = time.perf_counter()

        best = probs.argmax(1) if n else np.zeros(0, int)
        keep = [i for i in range(n) if not (classified[i] and best[i] == NONE_INDEX) and not skipped[i]]
        self._not_tiles += [(xy[i].copy(), self._frames) for i in range(n)
                            if classified[i] and best[i] == NONE_INDEX]
        codes, confs = [], []
        for i in keep:
            if classified[i]:
                codes.append(KINDS[int(best[i])])
                confs.append(float(probs[i, best[i]]))
            else:
                codes.append(None)
                confs.append(1.0)
        tracks = self.tracker.update(xy[keep], det_up[keep], codes, confs)
        tiles, records = [], []
        for j, (i, t) in enumerate(zip(keep, tracks, strict=True)):
            info = self._info.setdefault(t.track_id, {})
            obb = boxes["obb"][i].copy()
            if classified[i]:
                k = int(best[i])
                tile_p = probs[i, :NONE_INDEX]
                top = np.argsort(-tile_p)[:3]
                info["top3"] = [{"code": KINDS[int(q)], "p": round(float(tile_p[q]), 4)} for q in top]
                info["confidence"] = float(probs[i, k])
                if k != BACK_INDEX and flip[i] > 0.5:
                    obb[4] = (obb[4] + 180.0) % 360.0
                info["angle"] = float(obb[4] % 360.0)
            elif "angle" in info:  # the detector's angle is modulo 180: keep the side the classifier saw up
                d = (obb[4] - info["angle"]) % 360.0
                if 90.0 < d < 270.0:
                    obb[4] = (obb[4] + 180.0) % 360.0
                info["angle"] = float(obb[4] % 360.0)
            code = t.believed or t.vote()[0] or codes[j]
            if code is None:
                continue
            quad = G.obb_to_quad(obb[None])[0]
            conf = 1.0 if t.corrected else float(info.get("confidence", 1.0))
            tile = {"id": f"t{t.track_id}", "code": code, "confidence": round(conf, 4),
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                    "face_up": code != "bk", "stable": t.stable, "top3": info.get("top3", []),
                    "corrected": t.corrected is not None}
            tiles.append(tile)
            if t.believed is not None:
                records.append({"code": t.believed, "corners": quad, "face_up": t.believed != "bk",
                                "confidence": conf, "track_id": t.track_id})
        for tid in [tid for tid in self._info if tid not in self.tracker.tracks]:
            del self._info[tid]

        observation, problems = None, []
        if self.calibration is None:
            problems.append("The table is not calibrated yet (too few tiles to estimate it): calibrate it on the "
                            "calibration page.")
        elif records:
            try:
                from .reconstruct import reconstruct

                obs = reconstruct(records, self.calibration, self.variant)
                observation = obs.to_dict()
                where = {a["index"]: a for a in obs.assignments}
                by_track = {r["track_id"]: where.get(n_) for n_, r in enumerate(records)}
                for tile in tiles:
                    a = by_track.get(int(tile["id"][1:]))
                    if a is not None:
                        tile["zone"], tile["seat"] = a["part"], a["position"]
                observation.pop("assignments", None)
                problems += [p.message for p in obs.problems]
            except (ValueError, KeyError, IndexError) as e:
                problems.append(f"The table could not be rebuilt from this frame: {e}")
        t3 = time.perf_counter()

        settled = all(t.stable for t in tracks)
        if observation is not None and settled:
            change = describe_change(self._stable_obs, observation)
            if change:
                self._last_event = change
            self._stable_obs = observation
        self._frames += 1
        self.counts.update(frames=1, detections=n, classified=int(classified.sum()))
        self.timing = {"detect_ms": round((t1 - t0) * 1e3, 2), "classify_ms": round((t2 - t1) * 1e3, 2),
                       "reconstruct_ms": round((t3 - t2) * 1e3, 2), "total_ms": round((t3 - t0) * 1e3, 2),
                       "detections": n, "classified": int(classified.sum()),
                       "calibration": self._calibration_source}
        self._result = {"tiles": tiles, "zones": [], "state": None, "event": self._last_event, "win": None,
                        "problems": problems, "observation": observation, "timing": dict(self.timing),
                        "stable": settled}
        return dict(self._result)

    def _apply_corrections(self, corrections: dict[str, str]) -> None:
        for tile_id, code in corrections.items():
            try:
                tid = int(str(tile_id).lstrip("t"))
            except ValueError:
                continue
            t = self.tracker.tracks.get(tid)
            if t is not None and t.corrected != code:
                self.tracker.correct(tid, code)

    def _estimate_calibration(self, boxes: dict[str, np.ndarray], probs: np.ndarray, size) -> None:
        from . import calibration as C

        best = probs.argmax(1)
        dets = [{"corners": boxes["quad"][i], "code": KINDS[int(best[i])]} for i in range(len(best))
                if best[i] != NONE_INDEX]
        try:
            self.calibration = C.estimate_from_tiles(dets, size, self.tile_mm, self.camera_id)
            self._calibration_source = "tiles"
            self.tracker.tracks.clear()  # earlier positions were in image units
            self._not_tiles.clear()
        except ValueError:
            self.calibration = None

    def _positions(self, centres: np.ndarray, boxes: dict[str, np.ndarray]) -> np.ndarray:
        if not len(centres):
            return np.zeros((0, 2))
        if self.calibration is not None:
            from .calibration import apply_h

            return apply_h(self.calibration.homography_at(FACE_HEIGHT_MM), centres)
        # no calibration: image positions scaled so that a tile is about tile_mm wide
        short = np.median(np.minimum(boxes["obb"][:, 2], boxes["obb"][:, 3]))
        return centres * (self.tile_mm / max(float(short), 1.0))


def photo_snapshot(data: bytes, variant: str = "sanma", camera_id: str = "photo", calibration_dir=None,
                   recognizer=None) -> dict[str, Any]:
    """A photo (encoded bytes) as a feed snapshot: tiles (ids ``p1``...), the rebuilt table in ``observation``,
    the own hand's waits / discard advice in ``own_hand`` (:func:`vision.analyze.analyze_image`), the photo
    with the tiles drawn as a JPEG data URL in ``overlay``, ``state`` None. Raises ``ImageError``."""
    import base64

    import cv2

    from .analyze import analyze_image
    from .inference import Tile, decode_image, default_recognizer, draw_overlay

    image = decode_image(data, "photo")
    rec = recognizer or default_recognizer()
    t0 = time.perf_counter()
    res = analyze_image(image, variant, camera_id, calibration_dir, recognizer=rec)
    took = (time.perf_counter() - t0) * 1e3
    tiles = [{"id": f"p{i + 1}", "code": t["code"], "confidence": t["confidence"], "corners": t["corners"],
              "face_up": t["face_up"], "top3": t["top3"], "corrected": False} for i, t in enumerate(res["tiles"])]
    drawn = draw_overlay(image, [Tile(t["code"], t["confidence"], [], np.asarray(t["corners"], np.float64),
                                      t["face_up"], 0, 0.0, 1.0) for t in tiles])
    ok, buf = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
    table = res.get("table")
    problems = [p["message"] for p in (table or {}).get("problems", [])]
    if res.get("table_error"):
        problems.append(f"The table could not be rebuilt from the photo: {res['table_error']}")
    if not tiles:
        problems.append("No tile was found in the photo.")
    return {"frame": 0, "time": time.time(), "size": [int(image.shape[1]), int(image.shape[0])], "camera": camera_id,
            "tiles": tiles, "zones": [], "state": None, "event": "", "win": None, "problems": problems,
            "observation": table, "own_hand": res.get("own_hand"),
            "overlay": "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode() if ok else None,
            "timing": {"total_ms": round(took, 1)}}


__all__ = ["LiveAnalyzer", "describe_change", "photo_snapshot"]
