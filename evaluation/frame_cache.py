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


def reading_code_digest(root: Path | None = None) -> str:
    """A digest of the source that turns a frame into readings (``vision/`` without :data:`NOT_READING`)."""
    root = root or Path(__file__).resolve().parents[1] / "vision"
    h = hashlib.sha1()
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if rel.parts[0] in NOT_READING:
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

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rec, name)

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
        if path.is_file():
            try:
                with open(path, "rb") as fh:
                    out, scales = pickle.load(fh)
                self._keep_scales(image, scales)
                self.hits += 1
                return out
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
                pass   # a damaged entry: read the frame again and write it anew
        out = self._rec.recognize(image, variant=variant, **kw)
        self.misses += 1
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump((out, self._scales(image)), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        return out

__all__ = ["CachedRecognizer", "NOT_READING", "reading_code_digest"]
