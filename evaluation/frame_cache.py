"""Readings of rendered frames kept on disk, so that a change to the table's rebuilding or to the follower is
measured in minutes (``eval-video --from-images --cache DIR``) instead of reading every frame again.

A frame's reading is keyed by the frame's pixels, the rule system, the model files and the source of the
reading code (every module of ``vision/`` but those that rebuild and follow the table from the readings:
:data:`NOT_READING`); any change to those reads the frame afresh. Entries are written whole or not at all (a
crash leaves no half-written file) and are only ever read back by this module (pickles of
:class:`vision.inference.Result`; never point ``--cache`` at a folder others write to).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

#: modules of ``vision/`` that work on the readings and never change them: editing them keeps the cache
NOT_READING = ("follow", "reconstruct.py", "observation.py", "seen.py", "zones.py", "live.py", "tracking.py",
               "sources.py", "tileset_cli.py")


def reading_code_digest(root: Path | None = None, leave_out: tuple[str, ...] = NOT_READING) -> str:
    """A digest of the source that turns a frame into readings (``vision/`` without :data:`NOT_READING`)."""
    root = root or Path(__file__).resolve().parents[1] / "vision"
    h = hashlib.sha1()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if rel.parts[0] in leave_out:
            continue
        h.update(str(rel).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _file_digest(path: str | os.PathLike) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


class CachedRecognizer:
    """A :class:`vision.inference.TileRecognizer` whose ``recognize`` reads each frame once per cache: later
    runs get the same :class:`~vision.inference.Result` back from ``folder``. Everything else is the
    recogniser's own. ``hits`` and ``misses`` count the frames of this run."""

    def __init__(self, recognizer: Any, folder: str | os.PathLike, model_files: tuple[str, ...] = ()):
        self._rec = recognizer
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"--cache {folder}: cannot make the folder ({exc.strerror})") from None
        files = model_files or tuple(str(p) for p in (getattr(recognizer, "det_path", None),
                                                       getattr(recognizer, "cls_path", None)) if p)
        self._base = hashlib.sha1("|".join([reading_code_digest(), *(_file_digest(f) for f in files)])
                                  .encode()).hexdigest()
        self.hits = self.misses = 0
        self._films: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rec, name)

    def read_frame(self, video: Any, frame: Any) -> list:
        """The tiles read on ``frame`` of a generated hand ``video`` (:mod:`datasets.hand_video`), read as a
        video's frames are (``sticky``), taken from the cache without rendering the frame when the hand, the
        frame, the generator's code, the fonts it draws with and the recogniser's scale choices are those of a
        frame read before."""
        if self._films is None:   # the generator's code and the fonts it draws faces with make the pixels
            from datasets.fonts import cjk_fonts

            fonts = ",".join(f"{Path(f.path).name}:{f.index}" for f in cjk_fonts())
            self._films = reading_code_digest(Path(__file__).resolve().parents[1] / "datasets", ()) + "|" + fonts
        auto = getattr(self._rec, "_auto", None)
        state = sorted(auto.items()) if isinstance(auto, dict) else None
        ident = (video.variant, video.seed, video.view, getattr(video, "look_seed", None), len(video.frames),
                 frame.index, frame.event_index, state)
        path = self.folder / f"frame-{hashlib.sha1(f'{self._base}|{self._films}|{ident!r}'.encode()).hexdigest()}.pkl"
        got = self._load(path)
        if got is not None:
            out, size, after = got
            if isinstance(auto, dict):   # the scale choice reading the frame made, as if it had been read
                if after is None:
                    auto.pop(size, None)
                else:
                    auto[size] = after
            self.hits += 1
            return out
        image = video.render(frame)
        out = self.recognize(image, variant=video.variant, sticky=True)   # the frame's pixels read before, if so
        size = (image.shape[1], image.shape[0])
        self._store(path, (out.tiles, size, auto.get(size) if isinstance(auto, dict) else None))
        return out.tiles

    @staticmethod
    def _load(path: Path):
        if not path.is_file():
            return None
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
            return None   # a damaged entry: read the frame again and write it anew

    def _store(self, path: Path, value: Any) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def key(self, image: np.ndarray, variant: str | None, **kw: Any) -> str:
        h = hashlib.sha1(self._base.encode())
        h.update(repr((image.shape, str(image.dtype), variant, sorted(kw.items()))).encode())
        h.update(np.ascontiguousarray(image).tobytes())
        return h.hexdigest()

    def _scales(self, image: np.ndarray) -> tuple | None:
        scales_for = getattr(self._rec, "scales_for", None)
        return tuple(scales_for((image.shape[1], image.shape[0]))) if scales_for else None

    def _keep_scales(self, image: np.ndarray, scales: tuple | None) -> None:
        """The recogniser's scale choice for frames of this size set as reading the frame left it (a video's
        frames are read ``sticky``: the next frame starts where this one left the choice)."""
        auto = getattr(self._rec, "_auto", None)
        if scales is None or not isinstance(auto, dict):
            return
        size = (image.shape[1], image.shape[0])
        if scales == tuple(self._rec.scales):
            auto.pop(size, None)
        else:
            auto[size] = scales

    def recognize(self, image: np.ndarray, variant: str | None = None, **kw: Any):
        path = self.folder / f"{self.key(image, variant, scales=self._scales(image), **kw)}.pkl"
        got = self._load(path)
        if got is not None:
            out, scales = got
            self._keep_scales(image, scales)
            self.hits += 1
            return out
        out = self._rec.recognize(image, variant=variant, **kw)
        self.misses += 1
        self._store(path, (out, self._scales(image)))
        return out

__all__ = ["CachedRecognizer", "NOT_READING", "reading_code_digest"]
