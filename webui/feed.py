"""The feed interface between the camera pipeline and the web app, a scripted demo feed and a camera feed.

A :class:`TableFeed` runs ONE background loop (started once, shared by every viewer) that captures a
frame, analyses it and publishes

* the latest frame as JPEG bytes with its frame number and capture time (:meth:`TableFeed.latest_jpeg`,
  :meth:`TableFeed.wait_frame`), and
* a *snapshot* (:class:`webui.snapshot.FeedSnapshot`, :meth:`TableFeed.snapshot`) whose ``version`` grows
  whenever its content changes (:meth:`TableFeed.wait_version` blocks until then); the page gets it as
  (:meth:`FeedSnapshot.to_json`; the table state, the engine's TableState JSON, beside it)::

    {"version": 7, "frame": 412, "time": 1764500000.12,       # epoch seconds of the frame it describes
     "size": [960, 720],                                      # frame width, height in pixels
     "camera": "demo",                                        # key of this camera's calibration
     "tiles": [{"id": "t14", "code": "6z", "confidence": 0.41, "corners": [[x, y] x 4],  # TL TR BR BL
                "face_up": true, "corrected": false, "zone": "hand", "seat": 0}],
     "zones": [{"name": "hand", "seat": 0, "polygon": [[x, y], ...]}],
     "event": "East declares riichi with 7z",                  # what just happened, in words ("" if unknown)
     "win": {"seat": 0, "tile": "6s", "tsumo": false, "discarder": 2} | null,
     "problems": ["..."],                                     # plain-words problems for the page
     "step": 3, "steps": 24}                                  # a demo's step (null for a camera)

:meth:`TableFeed.correct` overrides the code of one recognised tile: the override is applied at once
(a new snapshot version) and stays for as long as the tile keeps its id (the tracker's job).

:class:`ScriptedDemoFeed` plays the bundled demo hand (``webui/demo``) without a camera.
:class:`CameraFeed` wraps :func:`vision.sources.open_source` and an injectable frame analyser (the
detector + table reconstruction, once they land); without one it shows the camera and says so.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.seen import SeenTile, SeenWin, ZoneOutline

from .snapshot import FeedSnapshot
from .words import place_words, tile_words

if TYPE_CHECKING:
    from vision.live import FrameResult

DEMO_DIR = Path(__file__).resolve().parent / "demo"
MODELS_MISSING = ("recognition models not installed: the tile detector (vision/detect.py) and the table "
                  "reconstruction are needed to read tiles from a picture; type the hand instead")


class RecognitionUnavailable(RuntimeError):
    """Raised by a frame/photo analyser whose models are not installed."""


def default_analyze_image(data: bytes) -> dict[str, Any]:
    """The photo analyser until the detector lands: always :class:`RecognitionUnavailable`."""
    raise RecognitionUnavailable(MODELS_MISSING)


def _tile_codes() -> frozenset[str]:
    from vision.inference import KINDS

    return frozenset(k for k in KINDS if k != "none")


TILE_CODES = _tile_codes()


class TableFeed:
    """Base of every feed: the shared loop thread, frame and snapshot publication, corrections.

    Subclasses implement :meth:`_tick` (one loop iteration: capture, analyse, publish) and
    :meth:`_rebuild` (a fresh snapshot after a correction or a configuration change).
    """

    name = "feed"

    def __init__(self, fps: float = 10.0) -> None:
        self.fps = float(fps)
        self._lock = threading.Lock()
        self._frame_cond = threading.Condition(self._lock)
        self._snap_cond = threading.Condition(threading.Lock())
        self._jpeg: tuple[int, bytes, float] | None = None  # frame number, bytes, capture time (epoch)
        self._frame_no = 0
        self._snapshot = FeedSnapshot(0, time.time(), (0, 0), self.name)
        self._version = 0
        self._corrections: dict[str, str] = {}
        self._variant = "sanma"
        self._options: dict[str, Any] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = threading.Lock()
        self._loop_times: list[float] = []
        self._loop_cpu: list[float] = []
        self._publish_times: list[float] = []
        self._latencies: list[float] = []
        self._overruns = 0
        self._state_name = "starting"
        self._message = ""
        self._rebuild_lock = threading.RLock()  # one snapshot rebuild at a time (loop vs. corrections)

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> TableFeed:
        """Start the one shared loop (idempotent: a second call does nothing)."""
        with self._started:
            if self._thread is None:
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name=f"feed:{self.name}", daemon=True)
                self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        t = self._thread
        if t is not None:
            t.join(timeout=5)
        self._thread = None
        with self._frame_cond:
            self._frame_cond.notify_all()
        with self._snap_cond:
            self._snap_cond.notify_all()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        period = 1.0 / self.fps
        next_at = time.monotonic()
        while not self._stop.is_set():
            t0, c0 = time.monotonic(), time.thread_time()
            try:
                self._tick()
            except Exception as e:  # the loop must survive a bad frame or a bad analysis
                self._state_name, self._message = "error", f"{type(e).__name__}: {e}"
            took = time.monotonic() - t0
            with self._lock:
                self._loop_times.append(took)
                self._loop_cpu.append(time.thread_time() - c0)  # the loop's own work, without waiting for a CPU
                del self._loop_times[:-50]
                del self._loop_cpu[:-50]
                if took > period:
                    self._overruns += 1
            next_at += period
            delay = next_at - time.monotonic()
            if delay < -period:  # fell behind: do not try to catch up with a burst
                next_at = time.monotonic()
                delay = 0.0
            if self._stop.wait(max(0.0, delay)):
                break

    def _tick(self) -> None:  # pragma: no cover - every feed overrides it
        raise NotImplementedError

    def _rebuild(self) -> None:
        """Recompute the snapshot from the last analysed frame (after a correction or configure)."""

    def _refresh(self) -> None:
        with self._rebuild_lock:
            self._rebuild()

    # --- publication (called from the loop) -----------------------------------------------------
    def _publish_frame(self, jpeg: bytes, captured: float) -> int:
        now = time.time()
        with self._frame_cond:
            self._frame_no += 1
            self._jpeg = (self._frame_no, jpeg, captured)
            self._publish_times.append(time.monotonic())
            del self._publish_times[:-30]
            self._latencies.append(now - captured)
            del self._latencies[:-30]
            self._frame_cond.notify_all()
            return self._frame_no

    def _publish_snapshot(self, snap: FeedSnapshot) -> None:
        with self._snap_cond:
            self._version += 1
            self._snapshot = replace(snap, version=self._version)
            self._snap_cond.notify_all()

    # --- readers (any thread) --------------------------------------------------------------------
    def latest_jpeg(self) -> tuple[int, bytes, float] | None:
        with self._lock:
            return self._jpeg

    def wait_frame(self, after: int = 0, timeout: float = 1.0) -> tuple[int, bytes, float] | None:
        """Block until a frame numbered above ``after`` exists (or ``timeout``); return the newest or None."""
        deadline = time.monotonic() + timeout
        with self._frame_cond:
            while self._jpeg is None or self._jpeg[0] <= after:
                left = deadline - time.monotonic()
                if left <= 0 or self._stop.is_set():
                    return None
                self._frame_cond.wait(left)
            return self._jpeg

    @property
    def version(self) -> int:
        with self._snap_cond:
            return self._version

    @property
    def condition(self) -> threading.Condition:
        """Notified on every new snapshot version."""
        return self._snap_cond

    def wait_version(self, after: int, timeout: float = 1.0) -> int:
        """Block until the snapshot version exceeds ``after`` (or ``timeout``); return the version."""
        deadline = time.monotonic() + timeout
        with self._snap_cond:
            while self._version <= after and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._snap_cond.wait(left)
            return self._version

    def hand_logs(self) -> list:
        """The hands this feed followed event by event (:class:`assistant.play.HandLog`, oldest first); none for
        a feed that follows no game."""
        analyze = getattr(self, "analyze", None)
        logs = getattr(analyze, "hand_logs", None)
        return list(logs()) if callable(logs) else []

    def snapshot(self) -> FeedSnapshot:
        """The current snapshot, with the live status line."""
        with self._snap_cond:
            snap = self._snapshot
        return replace(snap, status=self.status())

    def status(self) -> dict[str, Any]:
        """Source state, frame rate, latency and loop time (the page's status line)."""
        with self._lock:
            pts = list(self._publish_times)
            fps = (len(pts) - 1) / (pts[-1] - pts[0]) if len(pts) > 1 and pts[-1] > pts[0] else 0.0
            lat = sorted(self._latencies)
            loop = sorted(self._loop_times)
            cpu = max(self._loop_cpu) if self._loop_cpu else None
            return {
                "source": self.name, "state": self._state_name, "message": self._message,
                "fps": round(fps, 1), "latency_ms": round(1000 * lat[len(lat) // 2], 1) if lat else None,
                "loop_ms": round(1000 * loop[len(loop) // 2], 2) if loop else None,
                "loop_max_ms": round(1000 * loop[-1], 2) if loop else None,
                "loop_cpu_max_ms": round(1000 * cpu, 2) if cpu is not None else None,
                "budget_ms": round(1000 / self.fps, 1), "overruns": self._overruns, "frames": self._frame_no,
            }

    # --- corrections and configuration ----------------------------------------------------------
    def correct(self, tile_id: str, code: str) -> SeenTile:
        """Override the code of recognised tile ``tile_id``; applied at once, kept over frames.

        Raises KeyError for a tile id not in the current snapshot, ValueError for an unknown code.
        Returns the tile as it was before the correction.
        """
        if code not in TILE_CODES:
            raise ValueError(f"unknown tile code {code!r}")
        with self._snap_cond:
            tile = self._snapshot.tile(tile_id)
        if tile is None:
            raise KeyError(tile_id)
        with self._lock:
            self._corrections[tile_id] = code
        self._refresh()
        return tile

    def corrections(self) -> dict[str, str]:
        with self._lock:
            return dict(self._corrections)

    def configure(self, variant: str, options: dict[str, Any] | None = None, me: int | None = None) -> None:
        """The rule system and table options the table is played with, and the user's seat (from the settings
        page; a camera feed follows the hand with the camera player in that seat)."""
        with self._lock:
            self._variant, self._options = variant, dict(options or {})
        self._refresh()

    def recognizer(self) -> Any:
        """The tile recogniser reading this feed (a tile set can be put on it), or None (the demos)."""
        return None

    def settings_note(self) -> str | None:
        """Why the settings' rule system and seat do not reach this feed's table (None: they do)."""
        return None

    def tile_crop(self, tile_id: str) -> np.ndarray | None:
        """An upright BGR crop of a tile in the current frame (stored with a correction), or None."""
        tile = self.snapshot().tile(tile_id)
        image = self.frame_image()
        if tile is None or image is None:
            return None
        from vision import geometry as G

        obb = G.quad_to_obb(np.asarray(tile.corners, np.float64).reshape(1, 4, 2))
        return G.warp_crops(image, obb, G.CROP_SIZE)[0]   # as the classifier reads it

    def frame_image(self) -> np.ndarray | None:
        """The latest frame decoded as BGR (for crops and calibration)."""
        latest = self.latest_jpeg()
        if latest is None:
            return None
        import cv2

        return cv2.imdecode(np.frombuffer(latest[1], np.uint8), cv2.IMREAD_COLOR)

    def _apply_corrections(self, tiles: Sequence[SeenTile]) -> tuple[SeenTile, ...]:
        fixes = self.corrections()
        return tuple(t.corrected_to(fixes[t.id]) if t.id in fixes else t for t in tiles)


def low_confidence_problems(tiles: Sequence[SeenTile], threshold: float = 0.6) -> list[str]:
    """A note for each tile read unsurely, in players' words ("The tile in East's discards was read as a
    face-down tile, only 55 % sure: tap it to check or correct it.")."""
    out = []
    for t in tiles:
        if t.corrected or t.confidence >= threshold:
            continue
        where = place_words(t.place)
        out.append(f"{'The tile ' + where if where else 'A tile'} was read as {tile_words(t.code)}, only "
                   f"{round(100 * t.confidence)} % sure: tap it to check or correct it.")
    return out


# ------------------------------------------------------------------------------------------------
# The scripted demo


def load_demo(path: str | Path | None = None) -> tuple[dict[str, Any], list[bytes]]:
    """The bundled demo (``demo.json`` and its frames); run ``python -m datasets.assets.demo`` to rebuild."""
    root = Path(path) if path is not None else DEMO_DIR
    doc = json.loads((root / "demo.json").read_text())
    frames = [(root / s["frame"]).read_bytes() for s in doc["steps"]]
    return doc, frames


def rebuild_state(truth: dict[str, Any], ids: dict[str, Any], code_of: dict[str, str]) -> dict[str, Any]:
    """The table state JSON with every tile replaced by the code read for its tile id."""
    state = copy.deepcopy(truth)

    def code(tid: str | None, fallback: str | None) -> str | None:
        return code_of.get(tid, fallback) if tid else fallback

    for s, sid in zip(state["seats"], ids["seats"], strict=True):
        concealed = "".join(code(t, "") or "" for t in sid["concealed"])
        melds = re.findall(r"[\[\{\(][^\]\}\)]*[\]\}\)]", s["hand"])
        new_melds = []
        for m, meld_ids in zip(melds, sid["melds"], strict=True):
            end = re.search(r"(@\d+)?\+?[\]\}\)]$", m)
            if end is None:
                raise ValueError(f"meld {m!r} of the demo's state is not closed")
            suffix = end.group(0)
            new_melds.append(m[0] + "".join(code(t, "") or "" for t in meld_ids) + suffix)
        bonus = s["hand"].split("|", 1)[1].strip() if "|" in s["hand"] else ""
        s["hand"] = " ".join(p for p in [concealed, *new_melds] if p) + (f" | {bonus}" if bonus else "")
        discards: list[str | dict[str, Any] | None] = []
        for d, tid in zip(s["discards"], sid["discards"], strict=True):
            if isinstance(d, str):
                discards.append(code(tid, d))
            else:
                discards.append({**d, "tile": code(tid, d["tile"])})
        s["discards"] = discards
    state["dora_indicators"] = "".join(code(t, "") or "" for t in ids["dora_indicators"])
    if state.get("last_tile"):
        state["last_tile"] = code(ids.get("last_tile"), state["last_tile"])
    if state.get("drawn_tile"):
        state["drawn_tile"] = code(ids.get("drawn_tile"), state["drawn_tile"])
    return state


def _decode_frame(data: bytes) -> np.ndarray:
    """A demo's frame (JPEG bytes) as BGR; ValueError when it is no picture."""
    import cv2

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("a frame of the demo is not a picture: make the demo again")
    return image


def _next_step(feed: Any, now: float) -> int | None:
    """The step a demo feed moves to now (a :meth:`goto` first, else the next one once the step has been shown
    ``step_seconds``, the last ``hold_steps`` times longer, looping when ``loop``), or None to stay."""
    with feed._lock:
        target, feed._goto = feed._goto, None
    if target is None and feed.auto and feed._step >= 0:
        hold = feed.step_seconds * (feed.hold_steps if feed._step == len(feed.steps) - 1 else 1.0)
        if now - feed._step_started >= hold:
            target = feed._step + 1
            if target >= len(feed.steps):
                target = 0 if feed.loop else feed._step
    return target


class ScriptedDemoFeed(TableFeed):
    """Plays the bundled demo hand with no camera: one rendered frame per step, ``step_seconds`` apart.

    ``loop``: start over after the last step (which is held ``hold_steps`` times longer). ``auto``
    False: stay on a step until :meth:`goto` (tests). Frames are republished at ``fps`` so that MJPEG
    viewers see a live stream; the snapshot changes only when the step or a correction changes it.
    ``live_frames``: like a camera, every frame is a new JPEG (the frame number and time stamped in a
    corner, encoded in the loop) — what :mod:`webui.bench_live` loads the server with.
    """

    name = "demo"

    def __init__(self, path: str | Path | None = None, *, step_seconds: float = 2.0, fps: float = 10.0,
                 loop: bool = True, hold_steps: float = 4.0, auto: bool = True, start_step: int = 0,
                 live_frames: bool = False) -> None:
        super().__init__(fps)
        self.doc, self._frames = load_demo(path)
        self.steps = self.doc["steps"]
        self.step_seconds = float(step_seconds)
        self.loop = loop
        self.hold_steps = float(hold_steps)
        self.auto = auto
        self._step = -1
        self._goto = start_step
        self._step_started = time.monotonic()
        self._step_time = time.time()
        self._state_name = "live"
        self._last_valid: dict[str, Any] | None = None
        self.live_frames = live_frames
        self._decoded: tuple[int, np.ndarray] | None = None   # the step's frame, decoded (live_frames)

    @property
    def step(self) -> int:
        return self._step

    def goto(self, step: int) -> None:
        """Jump to a step (shown by the next loop iteration)."""
        if not 0 <= step < len(self.steps):
            raise ValueError(f"step {step}: the demo has steps 0-{len(self.steps) - 1}")
        with self._lock:
            self._goto = step

    def _tick(self) -> None:
        now = time.monotonic()
        target = _next_step(self, now)
        if target is not None and target != self._step:
            with self._rebuild_lock:
                self._step, self._step_started, self._step_time = target, now, time.time()
                self._rebuild()
        elif target is not None:
            self._step_started = now
        # the camera "captures" the current step's frame now
        captured = time.time()
        if not self.live_frames:
            self._publish_frame(self._frames[self._step], captured)
            return
        import cv2

        decoded = self._decoded
        if decoded is None or decoded[0] != self._step:
            decoded = self._decoded = (self._step, _decode_frame(self._frames[self._step]))
        image = decoded[1].copy()
        cv2.putText(image, f"{self._frame_no + 1} {time.strftime('%H:%M:%S')}", (8, image.shape[0] - 10),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        self._publish_frame(buf.tobytes(), captured)

    def _rebuild(self) -> None:
        if self._step < 0:
            return
        step = self.steps[self._step]
        tiles = self._apply_corrections([SeenTile.from_json(t) for t in step["tiles"]])
        code_of = {t.id: t.code for t in tiles}
        problems = low_confidence_problems(tiles)
        with self._lock:
            variant, options = self._variant, dict(self._options)
        read = rebuild_state(step["state"], step["ids"], code_of)
        if variant != read["variant"]:
            problems.append(f"The demo table plays {read['variant']}; the {variant} setting applies to typed "
                            "hands, photos and the camera feed.")
        elif options:
            read["options"] = options
        from assistant.table import TableState

        state: dict[str, Any] | None = read
        try:
            TableState.from_json(read)
            self._last_valid = read
        except ValueError as e:
            problems.append(f"The table as read is impossible ({e}); showing the last consistent table.")
            state = self._last_valid
        win = None
        if step.get("win") and state is not None:
            win = SeenWin.from_json({**step["win"], "tile": state.get("last_tile") or step["win"]["tile"]})
        w, h = self.doc["size"]
        self._publish_snapshot(FeedSnapshot(
            self._frame_no + 1, self._step_time, (w, h), self.doc.get("camera", "demo"), tiles,
            tuple(ZoneOutline.from_json(z) for z in step["zones"]), state, step["event"], win, tuple(problems),
            step=self._step, steps=len(self.steps)))


# ------------------------------------------------------------------------------------------------
# A real camera

FrameAnalyzer = Callable[[np.ndarray, dict[str, str]], "FrameResult"]
"""``analyze(image_bgr, corrections)`` -> a :class:`vision.live.FrameResult`: the detector + reconstruction +
tracking; ``corrections`` (tile id -> code) must be applied to its output."""


def _content(seen: FrameResult | FeedSnapshot) -> tuple:
    """What a frame's result and a snapshot are compared by (a change publishes a new snapshot)."""
    return (json.dumps(seen.state, sort_keys=True, default=str), tuple((t.id, t.code) for t in seen.tiles),
            seen.event, json.dumps(None if seen.win is None else seen.win.to_json(), sort_keys=True, default=str),
            tuple(seen.problems))


class CameraFeed(TableFeed):
    """A camera index, video file, image folder or stream URL (:func:`vision.sources.open_source`), or a
    frame source already open (anything with ``wait_frame``, ``status`` and ``stop``, as
    :class:`vision.sources.FrameSource`).

    ``analyze`` (see :data:`FrameAnalyzer`) turns a frame into tiles and a table state; without it the
    page shows the camera with a "recognition models not installed" problem.
    """

    def __init__(self, source: Any, analyze: FrameAnalyzer | None = None, *, fps: float = 10.0,
                 jpeg_quality: int = 80, loop: bool = True, camera_key: str | None = None) -> None:
        super().__init__(fps)
        opened = hasattr(source, "wait_frame")
        self.source_spec = getattr(source, "name", "source") if opened else source
        self.analyze = analyze
        self.jpeg_quality = jpeg_quality
        self.name = f"camera {self.source_spec}"
        self.camera_key = camera_key or str(self.source_spec)
        self._loop_source = loop
        self._source = source if opened else None
        self._last_index = -1
        self._last_image: np.ndarray | None = None
        self._last_result: FrameResult | None = None
        self._last_time = time.time()

    def start(self) -> TableFeed:
        if self._source is None:
            from vision.sources import open_source

            self._source = open_source(self.source_spec, loop=self._loop_source, fps=self.fps)
        return super().start()

    def stop(self) -> None:
        super().stop()
        if self._source is not None:
            self._source.stop()

    def _tick(self) -> None:
        import cv2

        src = self._source
        assert src is not None   # opened by start(), before the loop runs
        st = src.status()
        self._state_name, self._message = st.state, st.message
        frame = src.wait_frame(self._last_index, timeout=1.0 / self.fps)
        if frame is None:
            return
        self._last_index = frame.index
        captured = time.time() - (time.monotonic() - frame.timestamp)
        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            return
        result = self.analyze(frame.image, self.corrections()) if self.analyze is not None else None
        self._last_image, self._last_result, self._last_time = frame.image, result, captured
        self._publish_frame(buf.tobytes(), captured)
        changed = result is not None and _content(result) != _content(self._snapshot)
        if changed or self._snapshot.size == (0, 0):
            self._refresh()

    def _rebuild(self) -> None:
        snap = self._compose()
        if snap is not None:
            self._publish_snapshot(snap)

    def _compose(self) -> FeedSnapshot | None:
        """The snapshot of the last analysed frame (None before the first)."""
        image = self._last_image
        if image is None:
            return None
        size = (int(image.shape[1]), int(image.shape[0]))
        result = self._last_result
        if result is None:   # no analyser: the camera only
            return FeedSnapshot(self._frame_no, self._last_time, size, self.camera_key, problems=(
                "Recognition models not installed: showing the camera only. Type a hand on the photo page to "
                "analyse it.",))
        tiles = self._apply_corrections(result.tiles)
        problems = (*result.problems, *low_confidence_problems(tiles))
        return FeedSnapshot(self._frame_no, self._last_time, size, self.camera_key, tiles, result.zones,
                            result.state, result.event, result.win, problems)

    def status(self) -> dict[str, Any]:
        st = super().status()
        timing = self._last_result.timing if self._last_result is not None else None
        if timing:
            st["recognition_ms"] = timing.get("total_ms")  # ("analysis_ms" is the hub's engine analysis)
            st["stages_ms"] = {k[:-3]: v for k, v in timing.items() if k.endswith("_ms") and k != "total_ms"}
        return st

    def recognizer(self) -> Any:
        return getattr(self.analyze, "recognizer", None)

    def configure(self, variant: str, options: dict[str, Any] | None = None, me: int | None = None) -> None:
        if self.analyze is not None and hasattr(self.analyze, "variant"):
            self.analyze.variant = variant  # the analyser rebuilds the table with the table's rule system
        if me is not None and self.analyze is not None and hasattr(self.analyze, "me"):
            self.analyze.me = int(me)       # the camera player's seat: whose hand the followed game shows
        if self.analyze is not None and hasattr(self.analyze, "options"):
            self.analyze.options = dict(options or {})  # the table options: each deal the camera sees has them
        super().configure(variant, options, me)


class FilmDemoFeed(CameraFeed):
    """The demo hand as a film (:mod:`webui.demo.film`) read by the recognition models, as a camera is read:
    each frame is shown for ``step_seconds`` (the last ``hold_steps`` times longer) and analysed, on a thread of
    its own, by a :class:`vision.live.LiveAnalyzer` that knows the film's camera and seating; after the last
    frame it starts over with a fresh analyser (``loop``). ``auto`` False: stay on a frame until :meth:`goto`
    (tests).

    Raises :class:`RecognitionUnavailable` when the models do not load, FileNotFoundError when the film is
    missing."""

    name = "demo film"

    def __init__(self, path: str | Path | None = None, *, step_seconds: float = 2.0, fps: float = 10.0,
                 loop: bool = True, hold_steps: float = 4.0, auto: bool = True, recognizer: Any = None) -> None:
        from .demo.film import calibration_of, load

        self.doc, self._frames = load(path)
        self._calibration = calibration_of(self.doc)
        self._recognizer = recognizer
        super().__init__("demo-film", self._analyzer(), fps=fps, camera_key="demo-film")
        self.steps = self.doc["steps"]
        self.step_seconds = float(step_seconds)
        self.hold_steps = float(hold_steps)
        self.loop = loop
        self.auto = auto
        self._step = -1
        self._goto: int | None = 0
        self._step_started = time.monotonic()
        self._images: dict[int, np.ndarray] = {}
        self._analysed = 0
        self._analysed_with: dict[str, str] = {}
        self._new_hand = False
        self._result_version = 0
        self._seen_version = -1
        self._reader: threading.Thread | None = None
        from .demo.film import ANALYSES_PER_FRAME

        self.analyses_per_step = ANALYSES_PER_FRAME

    def _analyzer(self):
        try:
            from vision.live import LiveAnalyzer

            if self._recognizer is None:
                from vision.inference import TileRecognizer

                self._recognizer = TileRecognizer()
            from .demo.film import analyzer_options

            return LiveAnalyzer(self.doc["variant"], camera_id="demo-film", recognizer=self._recognizer,
                                calibration=self._calibration, positions=self.doc["positions"],
                                dealer=self.doc["dealer"], **analyzer_options())
        except (OSError, ImportError, RuntimeError, ValueError) as e:
            raise RecognitionUnavailable(f"the demo film needs the recognition models: {e}") from e

    @property
    def step(self) -> int:
        return self._step

    def frames_read(self) -> tuple[int, int]:
        """(the frame shown, how many times the models have read it)."""
        with self._lock:
            return self._step, self._analysed

    def goto(self, step: int) -> None:
        if not 0 <= step < len(self.steps):
            raise ValueError(f"step {step}: the demo film has frames 0-{len(self.steps) - 1}")
        with self._lock:
            self._goto = step

    def start(self) -> TableFeed:  # no capture source: the frames are in memory
        TableFeed.start(self)
        with self._started:
            if self._reader is None or not self._reader.is_alive():
                self._reader = threading.Thread(target=self._read_frames, name="demo-film-reader", daemon=True)
                self._reader.start()
        return self

    def stop(self) -> None:
        TableFeed.stop(self)
        if self._reader is not None:
            self._reader.join(timeout=10)
        self._reader = None

    def _image(self, step: int) -> np.ndarray:

        image = self._images.get(step)
        if image is None:
            image = self._images[step] = _decode_frame(self._frames[step])
        return image

    def _read_frames(self) -> None:
        """The models' thread: reads the frame shown a fixed number of times (as often as ``python -m
        evaluation.demo_film`` reads it, so the page shows the same on a fast or a slow machine), and again
        after a correction; the frame loop only publishes, so it keeps its budget while the models work."""
        while not self._stop.is_set():
            corrections = self.corrections()
            with self._lock:
                step, fresh = self._step, self._new_hand
                need = step >= 0 and (self._analysed < self.analyses_per_step or corrections != self._analysed_with)
                if need:
                    self._new_hand = False
            if not need:
                self._stop.wait(0.02)
                continue
            if fresh:                        # a new hand: a fresh reading of the table
                self.analyze = self._analyzer()
            image = self._image(step)
            captured = time.time()           # the frame is "captured" when the models start reading it
            analyze = self.analyze
            assert analyze is not None       # (made with the feed, and again for each new hand)
            try:
                result = analyze(image, corrections)
            except Exception as e:  # noqa: BLE001 - the demo must go on; the page says what failed
                from vision.live import FrameResult

                result = replace(self._last_result or FrameResult(), problems=(f"Recognition failed on a frame: {e}",))
            with self._lock:
                if self._step == step:
                    self._analysed += 1
                self._analysed_with = corrections
                self._last_image, self._last_result, self._last_time = image, result, captured
                self._result_version += 1

    def _tick(self) -> None:
        now = time.monotonic()
        target = _next_step(self, now)
        if target is not None and target != self._step:
            with self._lock:     # (step, times read) change together: see frames_read()
                if target < self._step:
                    self._new_hand = True
                self._analysed, self._step, self._step_started = 0, target, now
        elif target is not None:
            self._step_started = now
        self._state_name, self._message = "live", ""
        self._publish_frame(self._frames[self._step], time.time())
        with self._lock:
            version = self._result_version
        if self._last_image is not None and (version != self._seen_version or self._snapshot.step != self._step):
            self._seen_version = version
            self._refresh()

    def recognizer(self) -> Any:
        return None   # the demo film is read with the shipped models only (its tiles are no user's set)

    def settings_note(self) -> str | None:
        return (f"The demo film is a {self.doc['variant']} hand with its own seating: the rule system, options and "
                "seat chosen here apply to cameras (serve --source), photos and typed hands, not to the film.")

    def configure(self, variant: str, options: dict[str, Any] | None = None, me: int | None = None) -> None:
        # the film's rule system and seating are known: the settings apply to typed hands, photos and cameras
        # (giving them to the analyser would read the film as another game)
        TableFeed.configure(self, variant, options, me)

    def _compose(self) -> FeedSnapshot | None:
        snap = super()._compose()
        if snap is None:
            return None
        # the frame's place in the film, and what the script does there (the page shows what was read)
        snap = replace(snap, step=self._step, steps=len(self.steps), script=self.steps[self._step]["event"])
        with self._lock:
            variant = self._variant
        if variant != self.doc["variant"]:
            snap = replace(snap, problems=(*snap.problems, f"The demo table plays {self.doc['variant']}; the "
                                           f"{variant} setting applies to typed hands, photos and the camera feed."))
        return snap

    def status(self) -> dict[str, Any]:
        st = super().status()
        st["source"] = "demo film (read by the models)"
        return st


__all__ = ["MODELS_MISSING", "CameraFeed", "FilmDemoFeed", "FrameAnalyzer", "RecognitionUnavailable",
           "ScriptedDemoFeed",
           "TableFeed", "default_analyze_image", "load_demo", "low_confidence_problems", "rebuild_state"]
