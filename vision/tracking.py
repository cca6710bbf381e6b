"""Per-tile tracking across frames, with code voting, a stability threshold and user corrections.

Tiles are matched from frame to frame by their position on the table plane (mm, see
:mod:`vision.calibration`): a detection joins the nearest live track within ``match_radius`` tile widths
(greedy, nearest pairs first); the rest start new tracks. Each track keeps

* a **vote** over the last ``window`` frames (the codes seen, weighted by classifier confidence);
* a **believed code** that changes only when another code has won the vote in ``stable_frames``
  consecutive frames (a new track has no believed code until then), so a one-frame misread or a hand
  passing over the tile changes nothing;
* a **correction**: :meth:`TileTracker.correct` pins the code a user gave for that track; the model's
  readings are ignored from then on;
* an **anchor**: where the tile lay when its code became stable. A tile that has not moved (within
  ``move_tolerance`` tile widths) and has not been turned over keeps its class, so the classifier need not
  run on it again: :meth:`TileTracker.plan` says, before classification, which detections need it.

Typical loop::

    plan = tracker.plan(xy, face_up)                  # geometry only
    codes = classify([d for d, need in zip(dets, plan.classify) if need])
    tracker.update(xy, face_up, codes_or_none_per_detection, confidences)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Track:
    track_id: int
    xy: np.ndarray                          # latest table position (mm)
    face_up: bool
    anchor: np.ndarray                      # position where the code was last confirmed
    first_frame: int
    last_frame: int
    code: str | None = None                 # believed code (None until stable)
    corrected: str | None = None            # user's code, overrides the model
    candidate: str | None = None            # a code waiting to be believed
    candidate_frames: int = 0               # consecutive frames it has won the vote
    votes: deque = field(default_factory=lambda: deque(maxlen=7))   # (code, confidence) per frame
    hits: int = 0
    moved: bool = True                      # moved or turned since the code was confirmed

    @property
    def believed(self) -> str | None:
        return self.corrected if self.corrected is not None else self.code

    @property
    def stable(self) -> bool:
        return self.corrected is not None or (self.code is not None and not self.moved)

    def vote(self) -> tuple[str | None, float]:
        """The code with the largest summed confidence over the window, and its share of the total."""
        totals: dict[str, float] = {}
        for code, conf in self.votes:
            if code is not None:
                totals[code] = totals.get(code, 0.0) + max(conf, 1e-3)
        if not totals:
            return None, 0.0
        best = max(totals, key=lambda code: totals[code])
        return best, totals[best] / sum(totals.values())

    def to_dict(self) -> dict:
        return {"track_id": self.track_id, "xy": [round(float(v), 1) for v in self.xy], "face_up": self.face_up,
                "code": self.believed, "model_code": self.code, "corrected": self.corrected,
                "stable": self.stable, "first_frame": self.first_frame, "last_frame": self.last_frame}


@dataclass
class Plan:
    """Per detection of a frame: the track it continues (None: a new tile) and whether to classify it."""

    track_ids: list[int | None]
    classify: list[bool]


class TileTracker:
    def __init__(self, tile_mm: float = 26.0, stable_frames: int = 3, match_radius: float = 0.45,
                 move_tolerance: float = 0.2, max_missing: int = 15, window: int = 7):
        self.tile_mm = float(tile_mm)
        self.stable_frames = int(stable_frames)
        self.match_radius = float(match_radius)
        self.move_tolerance = float(move_tolerance)
        self.max_missing = int(max_missing)
        self.window = int(window)
        self.tracks: dict[int, Track] = {}
        self.frame = -1
        self._next_id = 1

    # ------------------------------------------------------------------ association
    def _associate(self, xy: np.ndarray) -> list[int | None]:
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        live = [t for t in self.tracks.values()]
        out: list[int | None] = [None] * len(xy)
        if not live or not len(xy):
            return out
        T = np.array([t.xy for t in live])
        D = np.linalg.norm(xy[:, None, :] - T[None, :, :], axis=2)
        limit = self.match_radius * self.tile_mm
        pairs = sorted((D[i, j], i, j) for i, j in zip(*np.nonzero(D <= limit), strict=False))
        used_d, used_t = set(), set()
        for _, i, j in pairs:
            if i in used_d or j in used_t:
                continue
            out[i] = live[j].track_id
            used_d.add(i)
            used_t.add(j)
        return out

    def plan(self, xy: np.ndarray, face_up=None) -> Plan:
        """Which detections continue which tracks, and which need the classifier: new tiles, tiles that
        moved or were turned over, and tracks whose code is not stable yet. Changes nothing."""
        ids = self._associate(xy)
        fu = [None] * len(ids) if face_up is None else list(face_up)
        need = []
        for i, tid in enumerate(ids):
            if tid is None:
                need.append(True)
                continue
            t = self.tracks[tid]
            if t.corrected is not None:
                need.append(False)
                continue
            moved = bool(np.linalg.norm(np.asarray(xy[i]) - t.anchor) > self.move_tolerance * self.tile_mm)
            turned = fu[i] is not None and bool(fu[i]) != t.face_up
            back = t.last_frame < self.frame      # missed in the last frame: maybe another tile put there
            need.append(not t.stable or moved or turned or back)
        return Plan(ids, need)

    # ------------------------------------------------------------------ update
    def update(self, xy: np.ndarray, face_up=None, codes=None, confidences=None, frame: int | None = None,
               fresh=None) -> list[Track]:
        """Feed one frame: table positions (N x 2), face_up flags, codes (None where the classifier was not
        run) and confidences. ``fresh``: detections where the picture changed since the last frame; a fresh
        reading other than the track's believed code makes the track unsure (its vote starts again, and it
        is not stable until a code wins ``stable_frames`` frames): another tile may lie where this one lay.
        So does a reading of a track that was missed in the frames before (a tile taken away and another put
        in its place); :meth:`plan` asks for such a track to be classified.
        Returns the track of each detection, in order."""
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        n = len(xy)
        self.frame = self.frame + 1 if frame is None else int(frame)
        face_up = [True] * n if face_up is None else [bool(f) for f in face_up]
        codes = [None] * n if codes is None else list(codes)
        fresh = [False] * n if fresh is None else [bool(f) for f in fresh]
        confidences = [1.0] * n if confidences is None else [float(c) for c in confidences]
        ids = self._associate(xy)
        out = []
        for i in range(n):
            tid = ids[i]
            if tid is None:
                t = Track(self._next_id, xy[i].copy(), face_up[i], xy[i].copy(), self.frame, self.frame,
                          votes=deque(maxlen=self.window))
                self.tracks[t.track_id] = t
                self._next_id += 1
            else:
                t = self.tracks[tid]
                if face_up[i] != t.face_up:          # turned over: a different face, start the vote again
                    t.votes.clear()
                    t.code, t.candidate, t.candidate_frames = None, None, 0
                    t.face_up = face_up[i]
                    t.moved = True
                if np.linalg.norm(xy[i] - t.anchor) > self.move_tolerance * self.tile_mm:
                    if not t.moved:
                        # the readings from before it moved may be of another tile (tiles of a row slide when one
                        # is taken out or put in, and the nearest track takes a neighbour's place): the vote
                        # starts again; the believed code stays until a new one wins stable_frames frames
                        t.votes.clear()
                    t.moved = True
                t.xy = xy[i].copy()
                back = t.last_frame < self.frame - 1   # the track was missed: the tile may be another one
                if (fresh[i] or back) and codes[i] is not None and t.code is not None and codes[i] != t.code \
                        and t.corrected is None and not t.moved:
                    t.votes.clear()
                    t.moved = True
            t.last_frame = self.frame
            t.hits += 1
            self._observe(t, codes[i], confidences[i])
            out.append(t)
        # forget tiles unseen for too long
        for tid in [tid for tid, t in self.tracks.items() if self.frame - t.last_frame > self.max_missing]:
            del self.tracks[tid]
        return out

    def _observe(self, t: Track, code: str | None, conf: float) -> None:
        if t.corrected is not None:
            return
        if code is None:
            # not classified this frame: an unmoved, stable tile keeps its class
            if t.stable:
                return
            if t.code is not None and t.moved:
                t.moved = False if self._near_anchor(t) else t.moved
            return
        t.votes.append((code, conf))
        winner, _ = t.vote()
        if winner == t.code:
            t.candidate, t.candidate_frames = None, 0
            if t.moved:
                t.candidate_frames = 0
                t.anchor = t.xy.copy()
                t.moved = False
            return
        if winner == t.candidate:
            t.candidate_frames += 1
        else:
            t.candidate, t.candidate_frames = winner, 1
        if t.candidate_frames >= self.stable_frames:
            t.code = t.candidate
            t.candidate, t.candidate_frames = None, 0
            t.anchor = t.xy.copy()
            t.moved = False

    def _near_anchor(self, t: Track) -> bool:
        return bool(np.linalg.norm(t.xy - t.anchor) <= self.move_tolerance * self.tile_mm)

    # ------------------------------------------------------------------ user
    def correct(self, track_id: int, code: str) -> Track:
        """Pin ``code`` for this track: the model's readings no longer change it. Raises KeyError."""
        t = self.tracks[track_id]
        t.corrected = code
        return t

    def clear_correction(self, track_id: int) -> None:
        self.tracks[track_id].corrected = None

    def track_at(self, xy, radius: float | None = None) -> Track | None:
        """The track nearest a table point (within ``radius`` tile widths, default the match radius)."""
        if not self.tracks:
            return None
        p = np.asarray(xy, np.float64)
        t = min(self.tracks.values(), key=lambda t: float(np.linalg.norm(t.xy - p)))
        r = (radius if radius is not None else self.match_radius) * self.tile_mm
        return t if np.linalg.norm(t.xy - p) <= r else None

    def needs_classification(self) -> list[int]:
        """Ids of live tracks whose code is not settled (new, moved, turned over, or still voting)."""
        return [tid for tid, t in self.tracks.items() if not t.stable]

    def current(self, max_age: int = 0) -> list[Track]:
        """Tracks seen within the last ``max_age`` frames (0: this frame)."""
        return [t for t in self.tracks.values() if self.frame - t.last_frame <= max_age]

    def detections(self, max_age: int = 0) -> list[dict]:
        """The believed tiles as records for :func:`vision.reconstruct.reconstruct` position-wise
        (code and table position; tracks without a believed code are left out)."""
        return [t.to_dict() for t in self.current(max_age) if t.believed is not None]


def table_positions(detections, calibration, face_height: float = 19.0) -> np.ndarray:
    """Table-plane centres (N x 2, mm) of detections (records or objects with ``corners``)."""
    from .calibration import apply_h

    quads = np.array([np.asarray(d["corners"] if isinstance(d, dict) else d.corners, np.float64).reshape(4, 2)
                      for d in detections]).reshape(-1, 4, 2)
    return apply_h(calibration.homography_at(face_height), quads.mean(1)) if len(quads) else np.zeros((0, 2))


def believed_detections(detections, tracks: list[Track]) -> list[dict]:
    """The frame's detections with each code replaced by its track's believed code (the user's correction
    or the stable vote); detections whose track has no believed code yet are left out. Feed the result to
    :func:`vision.reconstruct.reconstruct`."""
    out = []
    for d, t in zip(detections, tracks, strict=True):
        if t.believed is None:
            continue
        rec = dict(d) if isinstance(d, dict) else {"corners": np.asarray(d.corners).tolist(), "face_up": d.face_up,
                                                   "confidence": getattr(d, "confidence", 1.0)}
        rec["code"] = t.believed
        rec["track_id"] = t.track_id
        out.append(rec)
    return out
