"""The live-camera frame analyser behind ``mahjong-assistant serve --source``.

:class:`LiveAnalyzer` is a :data:`webui.feed.FrameAnalyzer`: ``analyze(image_bgr, corrections) -> snapshot
fields``. Each frame is first compared with the last analysed one (:class:`ChangeDetector`: a downscaled
grey difference, thresholded above sensor noise and JPEG artefacts, cleaned up morphologically), which picks
one of four passes:

* **none** - nothing changed: the previous result is returned as it is (no detection, no classification,
  no reconstruction); only the frame counters move;
* **replay** - nothing changed but some tracks are still voting (or a user correction / the rule system
  changed): the unchanged boxes are fed to the tracker again with their last classifier reading (the
  pixels are the same, so the reading would be too), without detector or classifier;
* **local** - some regions changed: the detector runs only on those regions (grown by about two tile sizes,
  on the full-frame pass's 32-pixel grid and scale), the boxes found there replace the tracked boxes
  inside them, tracked boxes elsewhere are kept as they were, and only new or moved tiles are classified;
* **full** - the first frame, a large change (more than ``large_change`` of the frame: camera moved,
  lighting), a new calibration, or every ``full_pass_s`` seconds / ``full_pass_frames`` frames anyway so
  that no drift accumulates: the detector on the whole frame.

Then, as for every analysed frame,

1. each box is mapped to the table plane (the camera's saved calibration, else one estimated from the tiles
   of the first frames and then reused) and :class:`vision.tracking.TileTracker` says which boxes need the
   classifier (new, moved, turned over or still-voting tiles); only those are classified;
2. the tracker is fed (votes, stability, user corrections pinned on their track);
3. the table is rebuilt from the believed codes with :func:`vision.reconstruct.reconstruct` - only when a
   believed code, a tile's place or the set of tiles changed; otherwise the last rebuild is reused.

With a calibration, the detector's coarse (320) pass is skipped when the calibration says that no tile face
can be large enough for it to add anything (``models/MODEL_CARD.md``: it only adds very large faces).

It returns a :class:`FrameResult`: ``tiles`` (id ``t<track id>``), ``zones`` (each tile carries its
``zone``/``seat``), ``state`` (the followed game's table state), ``observation`` (the rebuilt table), ``event``
(the followed game's last events in words), ``problems``, ``stable`` and ``timing`` (ms per stage and the pass
taken); :meth:`FrameResult.to_json` is what the page gets. A ``None`` frame (a camera drop) returns the last result.

``background=True`` (what the server uses) runs the analysis on a worker thread: a call hands the newest
frame over (replacing one still waiting: frames are skipped, never queued) and returns the latest finished
result at once, so the camera stream never waits for the models.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from . import geometry as G
from .boxes import TileBoxes
from .inference import (
    BACK_INDEX,
    COARSE_MIN_SIDE,
    KINDS,
    NONE_INDEX,
    RecognizerFeatures,
    doubted_none,
    drop_weak,
    normalize_image,
    recheck_turned,
)
from .observation import TableObservation, describe_change
from .rows import complete_rows
from .seen import SeenTile, SeenWin, TilePlace, ZoneOutline, corners_of
from .tracking import TileTracker

if TYPE_CHECKING:
    from .follow import TableGame

FACE_HEIGHT_MM = 19.0      # lying faces are one tile thickness above the table
RECALIBRATE_FRAMES = 10    # without any calibration, retry the estimate every this many frames
NOT_TILE_FRAMES = 10      # frames a "not a tile" reading is remembered at its place
CALIBRATION_POLL_S = 2.0   # re-read a saved calibration file this often (the calibration page may save one)
FULL_PASS_S = 2.0          # a full detector pass at least this often, whatever changed
LARGE_CHANGE = 0.4         # changed share of the frame above which a full pass is run
MARGIN_TILES = 2.0         # a changed region is detected with this many tile sizes around it
COARSE_SAFETY = 1.5        # the coarse pass is kept unless faces stay this many times below its minimum


@dataclass(frozen=True)
class FrameResult:
    """What the live pipeline made of one frame: the ``tiles`` seen, the fitted ``zones``, the followed game's
    table ``state`` (the engine's table state JSON, as :class:`vision.follow.TableGame` gives it) and its last
    ``event`` in words, the ``win`` being scored, ``problems`` in plain words, the stable ``observation``
    rebuilt from the tiles (whole: the followed game reads its assignments), ``timing`` of the stages and
    whether every tile is ``stable``. :meth:`to_json` serialises it at the page's edge (the observation as
    :meth:`TableObservation.page_view` shows it)."""

    tiles: tuple[SeenTile, ...] = ()
    zones: tuple[ZoneOutline, ...] = ()
    state: dict[str, Any] | None = None
    event: str = ""
    win: SeenWin | None = None
    problems: tuple[str, ...] = ()
    observation: TableObservation | None = None
    timing: dict[str, Any] = field(default_factory=dict)
    stable: bool = False

    def to_json(self) -> dict[str, Any]:
        obs = self.observation
        return {"tiles": [t.to_json() for t in self.tiles], "zones": [z.to_json() for z in self.zones],
                "state": self.state, "event": self.event, "win": None if self.win is None else self.win.to_json(),
                "problems": list(self.problems), "observation": None if obs is None else obs.page_view(),
                "timing": dict(self.timing), "stable": self.stable}


#: a believed tile's place for the rebuild's cache: (track id, code, quarter turns, table xy)
_Place = tuple[int, str, int, np.ndarray]


@dataclass(frozen=True, eq=False)
class _Rebuild:
    """The last reconstruction: what it was made from (the rule system and the believed tiles' codes and
    turns: ``key``; the ``calibration``; the tracks' places ``xy``) and what it made (the ``observation``, its
    page ``view``, each track's assignment ``by_track``, the ``problems`` and the fitted ``zones``)."""

    key: tuple
    calibration: Any
    xy: dict[int, np.ndarray]
    observation: TableObservation
    view: dict[str, Any]
    by_track: dict[int, dict[str, Any] | None]
    problems: tuple[str, ...]
    zones: tuple[ZoneOutline, ...]


class ChangeDetector:
    """Where a frame differs from a reference frame, cheaply (about a millisecond at 1280x720).

    Frames are shrunk ``step`` times (area average, so sensor noise and JPEG blocks mostly average out) to
    grey; a cell has changed when it differs from the reference by more than ``threshold`` grey levels, or
    ``noise_k`` robust noise sigmas of the whole difference when that is larger, after removing the median
    difference (a small exposure drift); a morphological opening drops isolated cells. A global shift above
    ``threshold`` or a noise level far above it (a lighting change, a shaking camera) counts as a change of
    the whole frame. :meth:`update` copies the analysed parts of a frame into the reference, so changes too
    slow to show between two frames still add up until they are seen."""

    def __init__(self, step: int = 4, threshold: float = 10.0, noise_k: float = 6.0, open_cells: int = 2):
        self.step = int(step)
        self.threshold = float(threshold)
        self.noise_k = float(noise_k)
        self.kernel = np.ones((open_cells, open_cells), np.uint8) if open_cells > 1 else None
        self.reference: np.ndarray | None = None   # int16 grey, shrunk

    def small(self, image: np.ndarray) -> np.ndarray:
        """The shrunk grey version of a BGR frame that :meth:`compare` and :meth:`update` take."""
        h, w = image.shape[:2]
        step = self.step
        if step % 2 == 0 and w >= 2 * step and h >= 2 * step:  # a bilinear halving is a 2x2 mean, and cheap
            image = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
            step //= 2
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image  # grey first: 5x faster
        gh, gw = grey.shape[:2]
        return cv2.resize(grey, (max(1, gw // step), max(1, gh // step)), interpolation=cv2.INTER_AREA)

    def compare(self, small: np.ndarray) -> tuple[np.ndarray | None, float]:
        """(uint8 mask of changed cells, changed share of the frame); (None, 1.0) without a comparable
        reference or after a frame-wide change."""
        ref = self.reference
        if ref is None or ref.shape != small.shape:
            return None, 1.0
        d = small.astype(np.int16) - ref
        sample = d[::2, ::2]
        offset = float(np.median(sample))
        sigma = 1.4826 * float(np.median(np.abs(sample - offset)))
        threshold = max(self.threshold, self.noise_k * sigma)
        if abs(offset) > self.threshold or threshold > 2 * self.threshold:
            return None, 1.0
        mask = (np.abs(d - np.int16(round(offset))) > threshold).astype(np.uint8)
        if self.kernel is not None:  # an opening; explicit anchors, or an even kernel shifts the mask by a cell
            k = self.kernel.shape[0]
            mask = cv2.dilate(cv2.erode(mask, self.kernel, anchor=(0, 0)), self.kernel, anchor=(k - 1, k - 1))
        return mask, float(mask.mean())

    def regions(self, mask: np.ndarray) -> list[tuple[float, float, float, float]]:
        """Bounding rectangles (x0, y0, x1, y1; frame pixels) of the changed areas of a mask."""
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        s = self.step
        return [(float(x * s), float(y * s), float((x + w) * s), float((y + h) * s))
                for x, y, w, h, _area in stats[1:n]]

    def update(self, small: np.ndarray, rects=None) -> None:
        """Make ``small`` the reference: all of it, or only inside ``rects`` (frame pixels)."""
        if rects is None or self.reference is None or self.reference.shape != small.shape:
            self.reference = small.astype(np.int16)
            return
        s = self.step
        h, w = small.shape[:2]
        for x0, y0, x1, y1 in rects:
            a, b = max(0, int(x0 // s)), max(0, int(y0 // s))
            c, d = min(w, int(-(-x1 // s))), min(h, int(-(-y1 // s)))
            if c > a and d > b:
                self.reference[b:d, a:c] = small[b:d, a:c]

    def reset(self) -> None:
        self.reference = None


def grow_rects(rects, by: float, width: int, height: int, join: float = 0.0
               ) -> list[tuple[float, float, float, float]]:
    """Rectangles grown by ``by`` pixels, clipped to the frame; ones closer than ``join`` pixels merged."""
    out = [(max(0.0, x0 - by), max(0.0, y0 - by), min(float(width), x1 + by), min(float(height), y1 + by))
           for x0, y0, x1, y1 in rects]
    merged = True
    while merged and len(out) > 1:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] <= b[2] + join and b[0] <= a[2] + join and a[1] <= b[3] + join and b[1] <= a[3] + join:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


@dataclass(frozen=True, eq=False)
class _Tracked:
    """The boxes of the last analysed frame's tracks and, box by box, its track id."""

    boxes: TileBoxes = field(default_factory=TileBoxes.empty)
    tid: np.ndarray = field(default_factory=lambda: np.zeros(0, int))


@dataclass(eq=False)
class _Frame:
    """One frame in the live pipeline's hands: the image, the pass chosen for it, its boxes and, box by box,
    what is known of each (arrays of the same length, grown by :meth:`add`)."""

    img: np.ndarray
    size: tuple[int, int]
    mode: str                      # full, local, replay
    reason: str
    cores: list[tuple[float, float, float, float]] | None   # the changed regions (local)
    share: float                   # how much of the frame changed
    feats: RecognizerFeatures
    scales: tuple[int, ...] | None
    boxes: TileBoxes = field(default_factory=TileBoxes.empty)
    carried: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))   # unchanged since the last frame
    prev_tid: np.ndarray = field(default_factory=lambda: np.zeros(0, int))   # its track there (-1: none)
    centres: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    det_up: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    xy: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))         # on the table plane
    probs: np.ndarray = field(default_factory=lambda: np.zeros((0, len(KINDS))))
    raw: np.ndarray = field(default_factory=lambda: np.zeros((0, len(KINDS))))
    flip: np.ndarray = field(default_factory=lambda: np.zeros(0))
    classified: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    replayed: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # its last reading reused
    skipped: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))   # lately read as no tile there
    in_set: np.ndarray = field(default_factory=lambda: np.ones((1, len(KINDS)), bool))
    best: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    keep: list[int] = field(default_factory=list)                            # the boxes that are tiles
    classify_s: float = 0.0

    @property
    def n(self) -> int:
        return len(self.boxes)

    def start(self, boxes: TileBoxes, carried: np.ndarray, prev_tid: np.ndarray) -> None:
        n = len(boxes)
        self.boxes, self.carried, self.prev_tid = boxes, carried, prev_tid
        self.centres = boxes.centres()
        self.det_up = boxes.face_up > 0.5 if n else np.zeros(0, bool)
        self.probs = np.zeros((n, len(KINDS)))
        self.flip = np.zeros(n)
        self.classified = np.zeros(n, bool)
        self.replayed = np.zeros(n, bool)

    def add(self, new: TileBoxes, positions: Callable[[np.ndarray, TileBoxes], np.ndarray], p_new: np.ndarray,
            f_new: np.ndarray, tids: np.ndarray) -> None:
        """Boxes found after classification (a row's missed tile, a known tile read again), read as ``p_new``
        (within the set): appended to every per-box array, and kept. ``positions(centres, boxes)``: their
        places on the table plane."""
        m, n = len(new), self.n
        self.boxes = TileBoxes.concat([self.boxes, new])
        self.xy = np.concatenate([self.xy, positions(new.corners.mean(1), self.boxes)])
        self.det_up = np.concatenate([self.det_up, new.face_up > 0.5])
        self.raw, self.probs = np.concatenate([self.raw, p_new]), np.concatenate([self.probs, p_new])
        self.flip = np.concatenate([self.flip, f_new])
        self.classified = np.concatenate([self.classified, np.ones(m, bool)])
        self.replayed = np.concatenate([self.replayed, np.zeros(m, bool)])
        self.carried = np.concatenate([self.carried, np.zeros(m, bool)])
        self.prev_tid = np.concatenate([self.prev_tid, tids])
        self.skipped = np.concatenate([self.skipped, np.zeros(m, bool)])
        self.best = self.probs.argmax(1)
        self.keep.extend(range(n, n + m))


class LiveAnalyzer:
    """Change-driven detector + tracker + classifier-on-demand + reconstruction for a camera feed (see the
    module doc).

    ``full_pass_s`` / ``full_pass_frames``: a full pass at least this often (seconds of wall clock / frames
    received; None: never for that reason); ``large_change``: the changed share of the frame above which a
    full pass runs; ``margin_tiles``: how far around a changed region the detector looks, in tile sizes (half
    of it is re-detected, the other half is context); ``changes``: the :class:`ChangeDetector` (its threshold).
    ``change_driven=False`` runs a full pass on every frame; ``skip_coarse=False`` keeps the detector's coarse
    scale whatever the calibration says; ``rebuild_cache=False`` rebuilds the table on every analysed frame."""

    def __init__(self, variant: str = "sanma", camera_id: str = "default", recognizer=None, *,
                 calibration_dir: str | Path | None = None, tile_mm: float = 26.0, background: bool = False,
                 tracker: TileTracker | None = None, min_interval_s: float = 0.0, change_driven: bool = True,
                 full_pass_s: float | None = FULL_PASS_S, full_pass_frames: int | None = None,
                 large_change: float = LARGE_CHANGE, margin_tiles: float = MARGIN_TILES, skip_coarse: bool = True,
                 rebuild_cache: bool = True, changes: ChangeDetector | None = None, calibration=None,
                 positions: Sequence[int] | None = None, dealer: int = 0) -> None:
        if recognizer is None:
            from .inference import TileRecognizer

            recognizer = TileRecognizer()  # raises when the models are missing: the caller falls back
        self.recognizer = recognizer
        self._feats: tuple[Any, RecognizerFeatures] | None = None   # (the recogniser, its optional parts)
        # a TileRecognizer (not a stand-in): it can choose finer detector scales for small tiles
        self._scaling = hasattr(recognizer, "scales_for")
        self.variant = variant
        self.camera_id = str(camera_id)
        self.calibration_dir = calibration_dir
        self.tile_mm = float(tile_mm)
        self.tracker = tracker or TileTracker(tile_mm=self.tile_mm)
        self.background = background
        self.min_interval_s = float(min_interval_s)
        self.change_driven = bool(change_driven)
        self.full_pass_s = full_pass_s
        self.full_pass_frames = full_pass_frames
        self.large_change = float(large_change)
        self.margin_tiles = float(margin_tiles)
        self.skip_coarse = bool(skip_coarse)
        self.rebuild_cache = bool(rebuild_cache)
        self.changes = changes or ChangeDetector()
        # the seating when the match knows it: the occupied positions (three players leave one side empty)
        # and the dealer's position (the camera player's own, 0, by default)
        self.positions = sorted(int(p) for p in positions) if positions is not None else None
        self.dealer = int(dealer)
        self._options: dict[str, Any] = {}
        self._me: int | None = None      # the camera player's seat (dealer-relative), when the user gave it
        self.calibration = calibration
        self._calibration_source: str | None = "given" if calibration is not None else None  # saved | tiles
        self._cal_checked = -1e9
        self._cal_mtime: float | None = None
        self._frames = 0
        self._info: dict[int, dict[str, Any]] = {}      # track id -> last classifier reading
        self._not_tiles: list[tuple[np.ndarray, int]] = []  # (table xy, frame) of boxes read as "not a tile"
        self._stable_obs: dict | None = None            # the page view of the last table seen all stable
        self._game: TableGame | None = None             # events -> engine state
        self._state: dict | None = None                 # the engine's table state JSON (hidden hands as bk)
        self._game_problems: list[str] = []
        self._fed: TableObservation | None = None    # the observation the game was last fed
        self._win: SeenWin | None = None                # the followed hand's win (TableGame.win)
        self._last_event = ""
        # change-driven state
        self._last: _Tracked | None = None               # boxes of the last analysed frame's tracks
        self._since_full = 0                             # analysed frames since the last full pass
        self._full_t = -1e9                              # time.monotonic() of the last full pass
        self._force_full = True
        self._size: tuple[int, int] | None = None
        self._result_variant: str | None = None
        self._rebuilt: _Rebuild | None = None            # inputs and outputs of the last reconstruction
        self._scales_cache: tuple | None = None
        self.timing: dict[str, Any] = {}
        self.counts: Counter[str] = Counter()   # frames, detections, classified, replayed, dropped, frames per pass
        self._result = FrameResult()
        # background worker
        self._slot: tuple[np.ndarray, dict[str, str]] | None = None
        self._cond = threading.Condition()
        self._worker: threading.Thread | None = None
        self._busy = False
        self._stop = False
        self._error: str | None = None

    # ------------------------------------------------------------------ hook
    def __call__(self, image: np.ndarray, corrections: dict[str, str] | None = None) -> FrameResult:
        if not self.background:
            return self.process(image, corrections)
        with self._cond:
            self._slot = (image, dict(corrections or {}))  # replaces a frame still waiting: skip, never queue
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="live-analyzer", daemon=True)
                self._worker.start()
            self._cond.notify_all()
            result = self._result
            if self._error:
                result = replace(result, problems=(f"Recognition failed on a frame: {self._error}",) + result.problems)
            return result

    def _work(self) -> None:
        while True:
            with self._cond:
                while self._slot is None and not self._stop:
                    self._cond.wait(1.0)
                if self._stop or self._slot is None:   # (no frame after the wait: stopped)
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
    def result(self) -> FrameResult:
        return self._result

    @property
    def me(self) -> int | None:
        """The camera player's seat (0 = East) as the user set it; the dealer then sits ``me`` seats before
        the camera player. Setting it starts following the hand anew."""
        return self._me

    @me.setter
    def me(self, seat: int | None) -> None:
        seat = None if seat is None else int(seat)
        if seat != self._me:
            self._me = seat
            self._game, self._state, self._win = None, None, None

    @property
    def options(self) -> dict[str, Any]:
        """The table options (the settings page's) the followed game is played with: each deal the camera sees
        carries them; a change applies from the next deal (a hand is not replayed under other rules)."""
        return dict(self._options)

    @options.setter
    def options(self, value: dict[str, Any] | None) -> None:
        self._options = dict(value or {})
        if self._game is not None:
            self._game.inferrer.options = dict(self._options)

    def _dealer_for(self, ring: list[int]) -> int:
        """The dealer's position on the table ``ring`` (occupied positions, turn order): the user's seat when
        given (the camera player, position 0, is seat ``me``), else the configured dealer."""
        if self._me is not None and 0 in ring:
            return ring[(ring.index(0) - self._me) % len(ring)]
        return self.dealer if self.dealer in ring else ring[0]

    def _positions_for(self) -> list[int] | None:
        """The known seating when it fits the rule system's number of players (else the frame tells)."""
        from assistant.variants import get_variant

        try:
            players = get_variant(self.variant).players
        except ValueError:
            return None
        return self.positions if self.positions is not None and len(self.positions) == players else None

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
            # nothing saved by the page: the one `mahjong-assistant calibrate` saved, if any
            return C.load(self.camera_id, None)

    def _saved_mtime(self) -> float | None:
        from . import calibration as C

        dirs = {C.default_dir()} | ({Path(self.calibration_dir).expanduser()} if self.calibration_dir else set())
        mt = None
        for p in {d / f"{C._safe_id(self.camera_id)}.json" for d in dirs}:
            try:
                mt = max(mt or 0.0, p.stat().st_mtime)
            except OSError:
                pass
        return mt

    def _refresh_calibration(self, size: tuple[int, int]) -> None:
        if self._calibration_source == "given":
            return
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
                self._force_full = True

    # ------------------------------------------------------------------ one frame
    def process(self, image: np.ndarray | None, corrections: dict[str, str] | None = None) -> FrameResult:
        """Analyse one frame synchronously; returns (and keeps) what it made of it. The stages, in order:
        choose the pass (:meth:`_choose_pass`), find the boxes (:meth:`_detect`), read them (:meth:`_read`),
        complete rows and keep lost tiles (:meth:`_complete`), track (:meth:`_track`), rebuild the table
        (:meth:`_rebuild`), follow the game (:meth:`_follow_game`) and account (:meth:`_account`)."""
        if image is None:  # a camera drop: keep the last result
            self._frames += 1
            self.counts.update(frames=1, dropped=1)
            self.timing = {**self._zero_timing(), "pass": "dropped"}
            self._result = replace(self._result, timing=dict(self.timing))
            return self._result
        img = normalize_image(image)
        h, w = img.shape[:2]
        size = (w, h)
        self._refresh_calibration(size)
        corrected = self._apply_corrections(corrections or {})
        t0 = time.perf_counter()
        small = self.changes.small(img) if self.change_driven else None
        mode, reason, cores, share = self._choose_pass(small, size)
        if mode == "none" and (corrected or self.variant != self._result_variant or self._voting()):
            mode = "replay"
        t_diff = time.perf_counter()
        if mode == "none":
            self._frames += 1
            self._since_full += 1
            self.counts.update(frames=1, none=1)
            self.timing = {**self._zero_timing(), "diff_ms": round((t_diff - t0) * 1e3, 2),
                           "total_ms": round((t_diff - t0) * 1e3, 2), "pass": "none", "changed": round(share, 4)}
            self._result = replace(self._result, timing=dict(self.timing))
            return self._result

        if self._feats is None or self._feats[0] is not self.recognizer:   # read once per recogniser
            self._feats = (self.recognizer, RecognizerFeatures.of(self.recognizer))
        work = _Frame(img, size, mode, reason, cores, share, self._feats[1], self._detect_scales(size))
        prev = self._last if self._last is not None else _Tracked()
        self._detect(work, prev)
        t1 = time.perf_counter()
        self._read(work)
        self._complete(work, prev)
        tiles, records, places, settled = self._track(work)
        t2 = time.perf_counter()
        table, problems, rebuilt = self._rebuild(records, places)
        if table is not None:
            tiles = self._placed(tiles, table.by_track)
        t3 = time.perf_counter()
        if table is not None and settled:
            self._follow_change(table)
        self._account(work, small, rebuilt, (t0, t_diff, t1, t2, t3))
        if table is not None:
            problems = self._with_missed_said(table.observation, problems)
        self._result = FrameResult(tuple(tiles), table.zones if table else (), self._state, self._last_event,
                                   self._win, tuple(problems + self._game_problems),
                                   table.observation if table else None, dict(self.timing), settled)
        return self._result

    def _follow_change(self, table: _Rebuild) -> None:
        """A table seen with every tile stable: its change in words, and the game followed when it changed."""
        change = describe_change(self._stable_obs, table.view)
        if change and self._state is None:
            # the table's change in positions only until a game is followed: then the status bar names
            # the engine's events (a change it did not accept is no event: "seat 1 drew" for a misread)
            self._last_event = change
        if change or self._stable_obs is None or self._game is None or self._game.variant != self.variant:
            self._follow_game(table.observation)
        self._stable_obs = table.view

    # ---- the stages of a frame

    def _detect(self, w: _Frame, prev: _Tracked) -> None:
        """Boxes: the detector on the whole frame (full), on the changed regions (local), or the last frame's
        boxes as they were (replay)."""
        rec = self.recognizer
        scale_kw = {} if w.scales is None else {"scales": w.scales}
        tile_px = self._tile_px(w.size)
        if w.mode == "full":
            with w.feats.lock:
                # finer scales for small tiles, kept for this camera's frames
                auto_kw = {"auto": True, "sticky": True} if self._scaling else {}
                boxes = rec.detect_boxes(w.img, **scale_kw, **auto_kw)
            carried = np.zeros(len(boxes), bool)
            prev_tid = np.full(len(boxes), -1)
        elif w.mode == "local":
            context = tile_px * self.margin_tiles / 2
            local = self._local_scales(w.size, w.cores or [], context)
            if local is not None:
                scale_kw = {"scales": local}
            with w.feats.lock:
                sticky_kw = {"sticky": True} if self._scaling else {}
                new = rec.detect_boxes(w.img, regions=w.cores, context=context, **scale_kw, **sticky_kw)
            boxes, carried, prev_tid = self._merge(prev, new, w.cores or [])
        else:  # replay
            boxes = prev.boxes
            carried = np.ones(len(boxes), bool)
            prev_tid = prev.tid
        w.start(boxes, carried, prev_tid)

    def _classify(self, w: _Frame, sel: np.ndarray) -> None:
        """Read the boxes ``sel`` not read yet this frame: an unchanged box keeps the reading of its last
        classification, the others go to the classifier (unsure ones read again a few degrees turned)."""
        idx = np.nonzero(sel & ~w.classified)[0]
        fresh = []
        for i in idx:
            reading = self._info.get(int(w.prev_tid[i]), {}).get("reading") if w.carried[i] else None
            if reading is not None:
                w.probs[i], w.flip[i] = reading
                w.classified[i] = w.replayed[i] = True
            else:
                fresh.append(i)
        if not fresh:
            return
        tc = time.perf_counter()
        with w.feats.lock:
            if w.feats.read_boxes is not None:
                p, f = w.feats.read_boxes(w.img, w.boxes.obb[fresh])
            else:
                p, f = self.recognizer.classify(G.warp_crops(w.img, w.boxes.obb[fresh], G.CROP_SIZE))
        w.probs[fresh], w.flip[fresh] = p, f
        w.classified[fresh] = True
        w.classify_s += time.perf_counter() - tc

    def _read_in_set(self, w: _Frame, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """More crops read at once, within the rule system's (and the tile set's) kinds."""
        tc = time.perf_counter()
        with w.feats.lock:
            p_r, f_r = self.recognizer.classify(crops)
        w.classify_s += time.perf_counter() - tc
        return np.where(w.in_set, p_r, 0.0), f_r

    def _read(self, w: _Frame) -> None:
        """Which boxes the classifier reads (the tracker's plan, the changed part of the frame, not the places
        lately read as no tile), then the readings within the rule system's kinds, unsure ones a quarter
        turned, unsure boxes read unsurely dropped; ``w.keep``: the boxes that are tiles."""
        n = w.n
        if self.calibration is None and n and (self._frames % RECALIBRATE_FRAMES == 0):
            self._classify(w, np.ones(n, bool))
            self._estimate_calibration(w.boxes, w.probs, w.size)
        w.xy = self._positions(w.centres, w.boxes)
        plan = self.tracker.plan(w.xy, w.det_up)
        need = np.asarray(plan.classify, bool) if n else np.zeros(0, bool)
        if n and (w.mode == "local" or w.reason == "large change"):
            # where the picture changed, a tile may be another one even where it lies in the same place (a row
            # slides when a tile is taken out or put in, and a neighbour lands where a tile was): read again
            need |= ~w.carried
        # boxes the classifier called "not a tile" at the same place lately are not classified again until
        # the memory expires (NOT_TILE_FRAMES)
        self._not_tiles = [(p, f) for p, f in self._not_tiles if self._frames - f < NOT_TILE_FRAMES]
        if self._not_tiles and n:
            known = np.array([p for p, _ in self._not_tiles])
            near = np.linalg.norm(w.xy[:, None, :] - known[None], axis=2).min(1) <= (
                self.tracker.move_tolerance * self.tracker.tile_mm)
            w.skipped = near & np.array([tid is None for tid in plan.track_ids])
            need &= ~w.skipped
        else:
            w.skipped = np.zeros(n, bool)
        self._classify(w, need)
        w.in_set = _kind_mask(self.variant)[None, :]
        set_mask = w.feats.read_mask(None) if w.feats.read_mask is not None else None   # a tile set's own kinds
        if set_mask is not None:
            w.in_set = w.in_set & set_mask[None, :]
        fresh_read = w.classified & ~w.replayed
        if fresh_read.any():
            # unsure readings (within the rule system's kinds) checked a quarter turned: a sideways tile boxed
            # upright reads right only so
            obb2, turned_p, w.flip = recheck_turned(w.img, w.boxes.obb, np.where(w.in_set, w.probs, 0.0), w.flip,
                                                    lambda crops: self._read_in_set(w, crops), which=fresh_read)
            if obb2 is not w.boxes.obb:
                changed = np.any(obb2 != w.boxes.obb, axis=1)
                w.probs = w.probs.copy()
                w.probs[changed] = turned_p[changed]
                w.boxes = w.boxes.turned(obb2)
        w.raw = w.probs    # what the classifier said (kept per track); read within the rule system's kinds below
        w.probs = np.where(w.in_set, w.raw, 0.0) if n else w.raw
        if n and w.feats.weak_confidence:   # unsure box, unsure reading: a textured surface, no tile
            w.probs = np.where(w.classified[:, None], drop_weak(w.boxes.score, w.probs, w.feats.weak_confidence),
                               w.probs)
        if n:   # a sure box read "not a tile" only unsurely, a tile kind close behind: that tile
            w.probs = np.where(w.classified[:, None], doubted_none(w.boxes.score, w.probs), w.probs)
        w.best = w.probs.argmax(1) if n else np.zeros(0, int)
        w.keep = [i for i in range(n) if not (w.classified[i] and w.best[i] == NONE_INDEX) and not w.skipped[i]]

    def _complete(self, w: _Frame, prev: _Tracked) -> None:
        """Rows completed (tiles the detector missed in a row added, boxes astride two tiles replaced) and
        known tiles that no kept box stands for any more read again at their last box."""
        if w.mode != "replay" and w.feats.fill_rows and w.keep:
            # tracked tiles that were not read again this frame are taken as they are
            row_probs = w.probs.copy()
            row_probs[w.skipped] = 0.0
            row_probs[w.skipped, NONE_INDEX] = 1.0
            # only rows in the part of the frame detected afresh (the rest was completed when it changed)
            row_keep, extra, p_new, f_new = complete_rows(w.img, w.boxes.obb, row_probs,
                                                          lambda crops: self._read_in_set(w, crops),
                                                          sure=~w.classified & ~w.skipped, active=~w.carried)
            w.keep = [i for i in w.keep if row_keep[i]]
            if len(extra):
                up = p_new.argmax(1) != BACK_INDEX
                w.add(TileBoxes(extra, G.obb_to_quad(extra), np.zeros(len(extra)), up.astype(float)), self._positions,
                      p_new, f_new, np.full(len(extra), -1))
        if w.mode != "replay" and len(prev.boxes):
            # a known tile that no kept box stands for any more (the detector missed it, or its box went astride
            # it and a neighbour): its last box is read again, and kept if it still reads as the tile it was
            kept_obb = w.boxes.obb[w.keep] if w.keep else np.zeros((0, 5))
            lost = [int(j) for j in np.nonzero(self._lost(prev.boxes.obb, kept_obb, np.ones(len(prev.boxes), bool)))[0]
                    if (t := self.tracker.tracks.get(int(prev.tid[j]))) is not None and t.believed is not None]
            if lost:
                p_v, f_v = self._read_in_set(w, G.warp_crops(w.img, prev.boxes.obb[lost], G.CROP_SIZE))
                again = [k for k, j in enumerate(lost) if KINDS[int(p_v[k].argmax())] ==
                         self.tracker.tracks[int(prev.tid[j])].believed and p_v[k].max() >= 0.5]
                if again:
                    sel = [lost[k] for k in again]
                    w.add(prev.boxes.take(sel), self._positions, p_v[again], f_v[again], prev.tid[sel])

    def _track(self, w: _Frame) -> tuple[list[SeenTile], list[dict[str, Any]], list[_Place], bool]:
        """The kept boxes through the tracker: (the page's tiles, the believed tiles for the reconstruction,
        their places, whether every tile is stable); the tracks' readings, angles and top-3 kept."""
        n = w.n
        self._not_tiles += [(w.xy[i].copy(), self._frames) for i in range(n)
                            if w.classified[i] and w.best[i] == NONE_INDEX]
        keep = w.keep
        codes: list[str | None] = []
        confs: list[float] = []
        for i in keep:
            if w.classified[i]:
                codes.append(KINDS[int(w.best[i])])
                confs.append(float(w.probs[i, w.best[i]]))
            else:
                codes.append(None)
                confs.append(1.0)
        tracks = self.tracker.update(w.xy[keep], w.det_up[keep], codes, confs,
                                     fresh=[not w.carried[i] and w.mode != "full" or w.reason == "large change"
                                            for i in keep])
        obbs = w.boxes.obb[keep].copy() if keep else np.zeros((0, 5))
        for j, (i, t) in enumerate(zip(keep, tracks, strict=True)):
            info = self._info.setdefault(t.track_id, {})
            if w.classified[i]:
                info["reading"] = (w.raw[i], float(w.flip[i]))
                k = int(w.best[i])
                if not w.replayed[i] or "top3" not in info:
                    tile_p = w.probs[i, :NONE_INDEX]
                    top = np.argsort(-tile_p)[:3]
                    info["top3"] = tuple((KINDS[int(q)], round(float(tile_p[q]), 4)) for q in top)
                    info["confidence"] = float(w.probs[i, k])
                if k != BACK_INDEX and w.flip[i] > 0.5:
                    obbs[j, 4] = (obbs[j, 4] + 180.0) % 360.0
                info["angle"] = float(obbs[j, 4] % 360.0)
            elif "angle" in info:  # the detector's angle is modulo 180: keep the side the classifier saw up
                d = (obbs[j, 4] - info["angle"]) % 360.0
                if 90.0 < d < 270.0:
                    obbs[j, 4] = (obbs[j, 4] + 180.0) % 360.0
                info["angle"] = float(obbs[j, 4] % 360.0)
        quads = G.obb_to_quad(obbs)
        turns = G.rotation_of(obbs[:, 4])
        corners = np.round(quads, 1).tolist()
        tiles: list[SeenTile] = []
        records: list[dict[str, Any]] = []
        places: list[_Place] = []
        for j, t in enumerate(tracks):
            code = t.believed or t.vote()[0] or codes[j]
            if code is None:
                continue
            info = self._info[t.track_id]
            conf = 1.0 if t.corrected else float(info.get("confidence", 1.0))
            tiles.append(SeenTile(f"t{t.track_id}", code, round(conf, 4), corners_of(corners[j]), code != "bk",
                                  t.stable, info.get("top3", ()), t.corrected is not None))
            if t.believed is not None:
                records.append({"code": t.believed, "corners": quads[j], "face_up": t.believed != "bk",
                                "confidence": conf, "track_id": t.track_id,
                                "top3": () if t.corrected else info.get("top3", ())})
                places.append((t.track_id, t.believed, int(turns[j]), t.xy))
        for tid in [tid for tid in self._info if tid not in self.tracker.tracks]:
            del self._info[tid]
        self._last = _Tracked(w.boxes.take(keep), np.array([t.track_id for t in tracks], int))
        return tiles, records, places, all(t.stable for t in tracks)

    def _account(self, w: _Frame, small, rebuilt: bool, times: tuple[float, float, float, float, float]) -> None:
        """The reference frame, the pass bookkeeping, the counts and the timing of the stages."""
        t0, t_diff, t1, t2, t3 = times
        mode = w.mode
        # the reference frame: all of it after a full pass, the re-detected regions after a local one
        if self.change_driven:
            if mode == "full":
                self.changes.update(small)
            elif mode == "local":
                self.changes.update(small, w.cores)
        if mode == "full":
            self._since_full, self._full_t, self._force_full = 0, time.monotonic(), False
        else:
            self._since_full += 1
        self._size = w.size
        self._result_variant = self.variant
        self._frames += 1
        n, rec = w.n, self.recognizer
        n_cls = int((w.classified & ~w.replayed).sum())
        self.counts.update({"frames": 1, mode: 1, "detections": 0 if mode == "replay" else n - int(w.carried.sum()),
                            "classified": n_cls, "replayed": int(w.replayed.sum()), "rebuilt": int(rebuilt)})
        self.timing = {"detect_ms": 0.0 if mode == "replay" else round((t1 - t_diff) * 1e3, 2),
                       "classify_ms": round(w.classify_s * 1e3, 2),
                       "track_ms": round((t2 - t1 - w.classify_s) * 1e3, 2),
                       "reconstruct_ms": round((t3 - t2) * 1e3, 2),
                       "diff_ms": round((t_diff - t0) * 1e3, 2), "total_ms": round((t3 - t0) * 1e3, 2),
                       "detections": n, "classified": n_cls, "calibration": self._calibration_source,
                       "pass": mode, "reason": w.reason, "regions": len(w.cores or []), "changed": round(w.share, 4),
                       "scales": list(w.scales) if w.scales is not None else list(
                           rec.scales_for(w.size) if self._scaling else getattr(rec, "scales", ())),
                       "rebuilt": rebuilt}

    def hand_logs(self) -> list:
        """The hands the camera followed, as :class:`assistant.play.HandLog` (oldest first, the current last)."""
        game = self._game
        return game.hand_logs() if game is not None else []

    def _follow_game(self, observation: TableObservation) -> None:
        """Feed a changed stable observation to the hand being followed, whole: the follower's repairs read
        its assignments and their classifier readings (its problems are kept in ``_game_problems`` until the
        next change, so that every frame shows them)."""
        from .follow import TableGame

        game = self._game
        if game is None or game.variant != self.variant:
            seating = self._positions_for()
            ring = seating or sorted(int(s.position) for s in observation.seats)
            game = self._game = TableGame(self.variant, camera=0, dealer=self._dealer_for(ring) if ring else 0,
                                          positions=seating, options=self._options)
            self._state, self._win = None, None
        self._fed = observation
        try:
            state = game.feed(observation)
        except (ValueError, KeyError, IndexError) as e:  # an observation the inferrer cannot read
            self._game_problems = [f"The game could not be followed from this frame: {e}"]
            return
        if state is not None:
            self._state = state
        if game.last_events:     # the engine's events in players' words, not the raw change
            self._last_event = game.describe()
        self._win = SeenWin.from_json(game.win) if game.win else None
        self._game_problems = list(game.problems)

    def _with_missed_said(self, observation: TableObservation, problems: list[str]) -> list[str]:
        """The frame's problems, where the followed game took the camera hand's count as tiles the camera missed
        (:attr:`vision.follow.EventInferrer.missed`) said so instead of "a tile is missed or misplaced"."""
        game = self._game
        if game is None or self._fed is not observation or not game.inferrer.missed:
            return problems
        position = game.inferrer.camera     # the camera player's position
        short = {p.message for p in observation.problems if p.kind == "hand_size" and p.position == position}
        tiles = " ".join(game.inferrer.missed)
        said = (f"Your {tiles} is not seen in this frame (the camera missed it): your hand is followed as it was."
                if len(game.inferrer.missed) == 1 else
                f"Your {tiles} are not seen in this frame (the camera missed them): your hand is followed as it was.")
        return [m for m in problems if m not in short] + [said]

    @staticmethod
    def _zero_timing() -> dict[str, Any]:
        return {"detect_ms": 0.0, "classify_ms": 0.0, "track_ms": 0.0, "reconstruct_ms": 0.0, "diff_ms": 0.0,
                "total_ms": 0.0, "detections": 0, "classified": 0}

    # ------------------------------------------------------------------ change-driven helpers
    def _choose_pass(self, small, size) -> tuple[str, str, list | None, float]:
        """(pass, reason, changed regions grown to their detection cores, changed share of the frame)."""
        if not self.change_driven:
            return "full", "every frame", None, 1.0
        if self._force_full or self._last is None or self._size != size:
            return "full", "start", None, 1.0
        if self.calibration is None and self._frames % RECALIBRATE_FRAMES == 0:
            return "full", "calibrating", None, 1.0
        periodic = (self.full_pass_frames is not None and self._since_full + 1 >= self.full_pass_frames) or (
            self.full_pass_s is not None and time.monotonic() - self._full_t >= self.full_pass_s)
        mask, share = self.changes.compare(small)
        if periodic:
            # a full pass that falls on a change reads every tile again (tiles may have slid into each other's
            # places), like a large change; otherwise known tiles keep their readings
            return "full", "large change" if mask is None or share > 0.0 else "periodic", None, 1.0
        if mask is None:
            return "full", "large change", None, share
        if share <= 0.0:
            return "none", "no change", None, 0.0
        if share > self.large_change:
            return "full", "large change", None, share
        half = self._tile_px(size) * self.margin_tiles / 2
        cores = grow_rects(self.changes.regions(mask), half, size[0], size[1], join=2 * half)
        area = sum((min(size[0], x1 + half) - max(0, x0 - half)) * (min(size[1], y1 + half) - max(0, y0 - half))
                   for x0, y0, x1, y1 in cores)
        if area > 0.6 * size[0] * size[1]:  # about as dear as the whole frame
            return "full", "large change", None, share
        return "local", "local change", cores, share

    def _voting(self) -> bool:
        """Whether a track of the last analysed frame still waits for its code to settle."""
        if self._last is None:
            return False
        tracks = self.tracker.tracks
        return any((t := tracks.get(int(tid))) is not None and not t.stable for tid in self._last.tid)

    def _tile_px(self, size) -> float:
        """A tile's size in frame pixels (the median long side of the tracked boxes)."""
        if self._last is not None and len(self._last.boxes) >= 3:
            return float(np.median(self._last.boxes.obb[:, 2:4].max(1)))
        return 0.035 * max(size)

    def _merge(self, prev: _Tracked, new: TileBoxes, cores: list[tuple[float, float, float, float]]
               ) -> tuple[TileBoxes, np.ndarray, np.ndarray]:
        """The last frame's boxes outside the re-detected regions, plus the boxes found inside them (a kept
        box overlapping a new one, a tile on a region's edge found again, gives way to it). Returns (boxes,
        carried, the track id of each carried box (-1: new))."""
        old = prev.boxes
        c = old.obb[:, :2]
        inside = np.zeros(len(c), bool)
        for x0, y0, x1, y1 in cores:
            inside |= (c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)
        keep = ~inside
        if len(new) and keep.any():
            iou = getattr(self.recognizer, "nms_iou", 0.3)
            lo, hi = old.corners.min(1), old.corners.max(1)
            for q in new.corners:
                qlo, qhi = q.min(0), q.max(0)
                near = np.nonzero(keep & (lo[:, 0] < qhi[0]) & (qlo[0] < hi[:, 0]) & (lo[:, 1] < qhi[1])
                                  & (qlo[1] < hi[:, 1]))[0]
                for i in near:
                    if G.quad_iou(old.corners[i], q) > iou:
                        keep[i] = False
        boxes = TileBoxes.concat([old.take(keep), new])
        carried = np.concatenate([np.ones(int(keep.sum()), bool), np.zeros(len(new), bool)])
        prev_tid = np.concatenate([prev.tid[keep], np.full(len(new), -1)])
        return boxes, carried, prev_tid

    @staticmethod
    def _lost(prev_obb: np.ndarray, new_obb: np.ndarray, among: np.ndarray) -> np.ndarray:
        """[len(prev_obb)] bool: the boxes ``prev_obb`` [N, 5] (``among`` them) that no box of ``new_obb`` [M, 5]
        stands for: boxes are paired one to one, nearest first, within half a tile (one box astride two tiles
        stands for one)."""
        lost = np.asarray(among, bool).copy()
        if lost.any() and len(new_obb):
            c, nc = prev_obb[:, :2], new_obb[:, :2]
            side = np.minimum(prev_obb[:, 2], prev_obb[:, 3])
            D = np.linalg.norm(c[:, None, :] - nc[None, :, :], axis=2)
            pairs = np.argwhere(D <= 0.5 * side[:, None])
            used_p: set[int] = set()
            used_n: set[int] = set()
            for i, j in sorted(map(tuple, pairs), key=lambda ij: D[ij]):
                if i not in used_p and j not in used_n:
                    used_p.add(i)
                    used_n.add(j)
            lost &= np.array([i not in used_p for i in range(len(c))])
        return lost

    def _detect_scales(self, size) -> tuple[int, ...] | None:
        """The detector's scales for this camera: None (the recogniser's own) unless the calibration says that
        no tile face can reach the size a coarse scale adds (``COARSE_MIN_SIDE`` there), then without it."""
        rec = self.recognizer
        scales = tuple(rec.scales_for(size) if self._scaling else getattr(rec, "scales", ()) or ())
        if not self.skip_coarse or self.calibration is None or len(scales) < 2:
            return None
        cache = self._scales_cache
        if cache is None or cache[0] is not self.calibration or cache[1] != (size, scales):
            keep = _scales_for_faces(scales, self._max_face_px(size), size)
            cache = self._scales_cache = (self.calibration, (size, scales), keep if keep != scales else None)
        return cache[2]

    def _local_scales(self, size, regions, context: float) -> tuple[int, ...] | None:
        """The detector's scales for a local pass over ``regions`` (grown by ``context`` pixels): those of
        :meth:`_detect_scales` without a coarser scale that no tile face in those parts of the frame can reach
        (the calibration says how wide a tile is there: a change near the camera may hold big faces, one across
        the table does not). None: the frame's scales as they are."""
        if not self.skip_coarse or self.calibration is None or not regions:
            return None
        rec = self.recognizer
        scales = self._detect_scales(size) or \
            tuple(rec.scales_for(size) if self._scaling else getattr(rec, "scales", ()) or ())
        if len(scales) < 2:
            return None
        keep = _scales_for_faces(scales, self._max_face_px(size, regions, context), size)
        return keep if keep != scales else None

    def _max_face_px(self, size, regions=None, context: float = 0.0) -> float:
        """The largest width in frame pixels a tile (``tile_mm``) can have anywhere on the table in view, or
        within ``regions`` of the frame (``(x0, y0, x1, y1)`` pixels, grown by ``context``)."""
        cal = self.calibration
        try:
            H = cal.homography_at(FACE_HEIGHT_MM)    # image -> table (mm)
            G_ = np.linalg.inv(H)                    # table (mm) -> image
        except (np.linalg.LinAlgError, ValueError):
            return float("inf")
        if regions:
            g = np.linspace(0.0, 1.0, 5)
            img = np.array([(x0 - context + u * (x1 - x0 + 2 * context), y0 - context + v * (y1 - y0 + 2 * context))
                            for x0, y0, x1, y1 in regions for u in g for v in g])
            t = np.c_[np.clip(img, 0, [size[0] - 1, size[1] - 1]), np.ones(len(img))] @ H.T
            if np.any(t[:, 2] <= 1e-9):        # part of a region lies beyond the table's horizon
                return float("inf")
            pts = t[:, :2] / t[:, 2:]
        else:
            table = getattr(cal, "table_size_mm", None)
            half = 0.5 * max(table) + 4 * self.tile_mm if table else 550.0   # the table and the hands at its edge
            g = np.linspace(-half, half, 15)
            pts = np.array([(x, y) for x in g for y in g])
        out = 0.0
        for dx, dy in ((self.tile_mm, 0.0), (0.0, self.tile_mm)):
            a = np.c_[pts, np.ones(len(pts))] @ G_.T
            b = np.c_[pts + [dx, dy], np.ones(len(pts))] @ G_.T
            ok = (a[:, 2] > 1e-9) & (b[:, 2] > 1e-9)
            pa, pb = a[ok, :2] / a[ok, 2:], b[ok, :2] / b[ok, 2:]
            seen = (pa[:, 0] >= 0) & (pa[:, 0] < size[0]) & (pa[:, 1] >= 0) & (pa[:, 1] < size[1])
            if seen.any():
                out = max(out, float(np.linalg.norm(pb[seen] - pa[seen], axis=1).max()))
        return out if out > 0 else float("inf")

    def _rebuild(self, records: list[dict[str, Any]], places: list[_Place]
                 ) -> tuple[_Rebuild | None, list[str], bool]:
        """(the rebuilt table, problems, rebuilt): the table from the believed tiles; the last rebuild is reused
        when the believed codes, the tiles' turns and places (within the tracker's move tolerance), the rule
        system and the calibration are all the same."""
        problems: list[str] = []
        if self.calibration is None:
            problems.append("The table is not calibrated yet (too few tiles to estimate it): calibrate it on the "
                            "calibration page.")
            self._rebuilt = None
            return None, problems, False
        if not records:
            self._rebuilt = None
            return None, problems, False
        key = (self.variant, tuple(sorted(p[:3] for p in places)))
        xy = {p[0]: p[3] for p in places}
        tol = self.tracker.move_tolerance * self.tracker.tile_mm
        old = self._rebuilt
        rebuilt = not (self.rebuild_cache and old is not None and old.key == key
                       and old.calibration is self.calibration
                       and all(np.linalg.norm(xy[t] - old.xy[t]) <= tol for t in xy))
        if rebuilt or old is None:
            try:
                old = self._rebuilt = self._rebuild_table(records, key, xy)
            except (ValueError, KeyError, IndexError) as e:
                self._rebuilt = None
                problems.append(f"The table could not be rebuilt from this frame: {e}")
                return None, problems, True
        return old, problems + list(old.problems), rebuilt

    def _rebuild_table(self, records: list[dict[str, Any]], key: tuple, xy: dict[int, np.ndarray]) -> _Rebuild:
        """The table rebuilt from the believed tiles ``records``: the observation whole (its assignments with
        their classifier readings: what the followed game repairs misreadings with), the page's view of it
        (without its assignments: the page finds which tile lies where in its tiles) and where each track's
        tile lies."""
        from .reconstruct import reconstruct

        obs = reconstruct(records, self.calibration, self.variant, positions=self._positions_for())
        where = {a["index"]: a for a in obs.assignments}
        by_track = {r["track_id"]: where.get(n_) for n_, r in enumerate(records)}
        notes = [f"Tile t{records[c['index']]['track_id']} reads as {c['read']}, but the table would then "
                 f"show more {c['read']} than the set has: taken for {c['now']}, its next best reading. "
                 "Tap it to check or correct it." for c in obs.meta.get("copies_reread", [])]
        return _Rebuild(key, self.calibration, {t: v.copy() for t, v in xy.items()}, obs, obs.page_view(), by_track,
                        tuple(notes + [p.message for p in obs.problems]),
                        tuple(self._zone_outlines(obs.zones_fitted, obs.meta.get("occupied"))))

    @staticmethod
    def _placed(tiles: list[SeenTile], by_track: dict[int, dict[str, Any] | None]) -> list[SeenTile]:
        """The tiles with their places on the rebuilt table; a tile the table's counts read again takes the
        table's code (the classifier's kept in ``read_as``) unless a user corrected it."""
        out = []
        for tile in tiles:
            a = by_track.get(int(tile.id[1:]))
            if a is not None:
                tile = replace(tile, place=TilePlace(a["part"], a["position"]))
                if a["code"] != tile.code and not tile.corrected:   # read again by the table's counts
                    tile = replace(tile, read_as=tile.code, code=a["code"])
            out.append(tile)
        return out

    def _zone_outlines(self, zones, occupied) -> list[ZoneOutline]:
        """The fitted zones as the page draws them: {name, seat (engine seat, None for the centre), polygon in
        image pixels} for the centre and each occupied side's discards, hand and melds."""
        if zones is None or self.calibration is None:
            return []
        ring = sorted(int(p) for p in (occupied or self._positions_for() or range(4)))
        dealer = self._dealer_for(ring) if ring else 0
        out = []
        for position, name, poly in zones.regions():
            if name not in ("centre", "discards", "hand", "melds") or (position >= 0 and position not in ring):
                continue
            pts = self.calibration.table_to_image(np.asarray(poly, float), z=0.0)
            if not np.all(np.isfinite(pts)):
                continue
            seat = None if position < 0 else (ring.index(position) - ring.index(dealer)) % len(ring)
            out.append(ZoneOutline(name, seat, corners_of(np.round(pts, 1).tolist())))
        return out

    def _apply_corrections(self, corrections: dict[str, str]) -> bool:
        """Pin the users' codes on their tracks; whether any changed."""
        changed = False
        for tile_id, code in corrections.items():
            try:
                tid = int(str(tile_id).lstrip("t"))
            except ValueError:
                continue
            t = self.tracker.tracks.get(tid)
            if t is not None and t.corrected != code:
                self.tracker.correct(tid, code)
                changed = True
        return changed

    def _estimate_calibration(self, boxes: TileBoxes, probs: np.ndarray, size: tuple[int, int]) -> None:
        from . import calibration as C

        best = probs.argmax(1)
        dets = [{"corners": boxes.corners[i], "code": KINDS[int(best[i])]} for i in range(len(best))
                if best[i] != NONE_INDEX]
        try:
            self.calibration = C.estimate_from_tiles(dets, size, self.tile_mm, self.camera_id)
            self._calibration_source = "tiles"
            self.tracker.tracks.clear()  # earlier positions were in image units
            self._not_tiles.clear()
            self._rebuilt = None
        except ValueError:
            self.calibration = None

    def _positions(self, centres: np.ndarray, boxes: TileBoxes) -> np.ndarray:
        if not len(centres):
            return np.zeros((0, 2))
        if self.calibration is not None:
            from .calibration import apply_h

            return apply_h(self.calibration.homography_at(FACE_HEIGHT_MM), centres)
        # no calibration: image positions scaled so that a tile is about tile_mm wide
        short = np.median(np.minimum(boxes.obb[:, 2], boxes.obb[:, 3]))
        return centres * (self.tile_mm / max(float(short), 1.0))


def _scales_for_faces(scales: tuple[int, ...], face: float, size) -> tuple[int, ...]:
    """The detector's ``scales`` a frame of ``size`` needs when its tile faces are at most ``face`` pixels wide: the
    finest, and a coarser one only where such a face reaches the size it adds (``COARSE_MIN_SIDE`` there, with
    ``COARSE_SAFETY`` to spare)."""
    top = max(scales)
    return tuple(s for s in scales if s == top or face * s / max(size) * COARSE_SAFETY >= COARSE_MIN_SIDE)


def _kind_mask(variant: str) -> np.ndarray:
    """The classifier kinds of ``variant`` (every kind for a rule system the engine does not know)."""
    from .inference import kind_mask

    try:
        return kind_mask(variant)
    except (ValueError, KeyError):
        return np.ones(len(KINDS), bool)


@dataclass(frozen=True)
class PhotoSnapshot:
    """A photo read as the page shows it (a feed snapshot without a followed game): the photo's ``size``, the
    ``camera`` whose calibration was looked for, the ``tiles`` found (ids ``p1``...), ``problems`` in plain
    words, the rebuilt ``table`` and the own hand's waits or discard advice (``own_hand``) as
    :func:`vision.analyze.analyze_image` gives them, the photo with the tiles drawn as a JPEG data URL
    (``overlay``), how long the reading took and when it was made. :meth:`to_json` is what the page gets."""

    size: tuple[int, int]
    camera: str
    tiles: tuple[SeenTile, ...]
    problems: tuple[str, ...]
    table: dict[str, Any] | None
    own_hand: dict[str, Any] | None
    overlay: str | None
    total_ms: float
    time: float

    def to_json(self) -> dict[str, Any]:
        return {"frame": 0, "time": self.time, "size": list(self.size), "camera": self.camera,
                "tiles": [t.to_json() for t in self.tiles], "zones": [], "state": None, "event": "", "win": None,
                "problems": list(self.problems), "observation": self.table, "own_hand": self.own_hand,
                "overlay": self.overlay, "timing": {"total_ms": self.total_ms}}


def photo_snapshot(data: bytes, variant: str = "sanma", camera_id: str = "photo", calibration_dir=None,
                   recognizer=None) -> PhotoSnapshot:
    """A photo (encoded bytes) read: the tiles, the rebuilt table and the own hand's waits / discard advice
    (:func:`vision.analyze.analyze_image`), and the photo with the tiles drawn. Raises ``ImageError``."""
    import base64

    from .analyze import analyze_image
    from .inference import Tile, decode_image, default_recognizer, draw_overlay

    image = decode_image(data, "photo")
    rec = recognizer or default_recognizer()
    t0 = time.perf_counter()
    res = analyze_image(image, variant, camera_id, calibration_dir, recognizer=rec)
    took = (time.perf_counter() - t0) * 1e3
    tiles = tuple(SeenTile.from_json({**t, "id": f"p{i + 1}"}) for i, t in enumerate(res["tiles"]))
    drawn = draw_overlay(image, [Tile(t.code, t.confidence, [], np.asarray(t.corners, np.float64), t.face_up, 0, 0.0,
                                      1.0) for t in tiles])
    ok, buf = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
    table = res.get("table")
    problems = [p["message"] for p in (table or {}).get("problems", [])]
    if res.get("table_error"):
        problems.append(f"The table could not be rebuilt from the photo: {res['table_error']}")
    if not tiles:
        problems.append("No tile was found in the photo.")
    overlay = "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode() if ok else None
    return PhotoSnapshot((int(image.shape[1]), int(image.shape[0])), camera_id, tiles, tuple(problems), table,
                         res.get("own_hand"), overlay, round(took, 1), time.time())


__all__ = ["ChangeDetector", "FrameResult", "LiveAnalyzer", "PhotoSnapshot", "describe_change", "grow_rects",
           "photo_snapshot"]
