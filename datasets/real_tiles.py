"""The real-tiles photos (``../shared/data/real-tiles``, CC BY 4.0): real table photos with every labelled tile
boxed (axis-aligned YOLO boxes) in this project's codes.

    >>> parse_labels("18 0.5 0.25 0.1 0.2\\n", (200, 100), ("1m",) * 18 + ("1s",))
    (array([[ 90.,  15., 110.,  35.]]), ['1s'])

Labels are not exhaustive: in many photos only the rack row is boxed, so a box found outside every label is not
known to be wrong. ``test`` is for evaluation only; ``valid`` for selection; ``train`` may train shipped models.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DEFAULT_ROOT = Path(os.environ.get("MAHJONG_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")) \
    / "real-tiles"
SPLITS = ("train", "valid", "test")


@dataclass(frozen=True)
class LabelledPhoto:
    """One photo and its labelled tiles: ``boxes`` [N, 4] (x0, y0, x1, y1 in pixels) and their ``codes``."""

    name: str
    image: np.ndarray
    boxes: np.ndarray
    codes: list[str]
    same_as_real_scenes: str = ""   # the real-scenes photo this one is ('' when none)


def read_classes(root: Path = DEFAULT_ROOT) -> tuple[str, ...]:
    """The class codes, class id i on line i of ``classes.txt``."""
    path = Path(root) / "classes.txt"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the real-tiles data set is not at {root}")
    return tuple(ln.strip() for ln in path.read_text().splitlines() if ln.strip())


def parse_labels(text: str, size: tuple[int, int], classes: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """YOLO lines ``id cx cy w h`` (normalised) of an image of ``size`` (w, h) -> pixel boxes and codes."""
    w, h = size
    rows = [ln.split() for ln in text.splitlines() if ln.strip()]
    if not rows:
        return np.zeros((0, 4)), []
    ids = [int(r[0]) for r in rows]
    b = np.array([[float(v) for v in r[1:5]] for r in rows], np.float64)
    boxes = np.stack([(b[:, 0] - b[:, 2] / 2) * w, (b[:, 1] - b[:, 3] / 2) * h,
                      (b[:, 0] + b[:, 2] / 2) * w, (b[:, 1] + b[:, 3] / 2) * h], 1)
    return boxes, [classes[i] for i in ids]


def _same_photos(root: Path) -> dict[str, str]:
    path = root / "provenance.csv"
    if not path.is_file():
        return {}
    with open(path, newline="") as fh:
        return {Path(r["file"]).name: r.get("same_photo_in_real_scenes", "") or "" for r in csv.DictReader(fh)}


def photos(split: str, root: Path = DEFAULT_ROOT, limit: int | None = None,
           skip_real_scenes: bool = False) -> Iterator[LabelledPhoto]:
    """The labelled photos of ``split``, in file-name order. ``skip_real_scenes`` leaves out the photos that are
    also in real-scenes (what a model selected on real-scenes valid must not be judged on)."""
    if split not in SPLITS:
        raise ValueError(f"unknown real-tiles split {split!r} (one of {', '.join(SPLITS)})")
    root = Path(root)
    classes = read_classes(root)
    same = _same_photos(root)
    folder = root / split / "images"
    n = 0
    for p in sorted(folder.glob("*.jpg")):
        if skip_real_scenes and same.get(p.name):
            continue
        img = cv2.imread(str(p))
        lab = root / split / "labels" / (p.stem + ".txt")
        if img is None or not lab.is_file():
            continue
        boxes, codes = parse_labels(lab.read_text(), (img.shape[1], img.shape[0]), classes)
        yield LabelledPhoto(p.name, img, boxes, codes, same.get(p.name, ""))
        n += 1
        if limit is not None and n >= limit:
            return
