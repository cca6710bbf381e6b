"""Perspective-rectified, upright face crops from a scene and its labels (classifier training data).

The label corners are TL, TR, BR, BL of the face as it reads upright, so mapping them onto the
corners of a portrait rectangle gives an upright crop whatever the tile's rotation in the image.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

#: Default crop size (width, height): portrait, big enough for flower/season corner numerals.
CROP_SIZE: tuple[int, int] = (72, 96)


@dataclass
class FaceCrop:
    """One upright face crop with its label."""

    image: np.ndarray   # H x W x 3 uint8 BGR
    code: str
    rotation: int       # rotation of the tile in the source image (the crop itself is upright)
    face_up: bool
    occluded: float
    label_index: int    # index of the label in the scene's label list


def _field(label: Any, name: str) -> Any:
    """A label field from a TileLabel or from its dict form (JSON Lines)."""
    return label[name] if isinstance(label, Mapping) else getattr(label, name)


def rectify(image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CROP_SIZE,
            margin: float = 0.0) -> np.ndarray:
    """Warp the face quad ``corners`` (TL, TR, BR, BL; pixel centres at integers) to an upright
    ``size`` (w, h) crop; ``margin`` widens the crop by that fraction of the face on every side."""
    w, h = size
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    face_to_image = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    # crop pixel (u, v) -> face coordinates in [-margin, 1 + margin]
    span = 1.0 + 2.0 * margin
    crop_to_face = np.array([[span / w, 0, span / (2 * w) - margin],
                             [0, span / h, span / (2 * h) - margin], [0, 0, 1]], np.float64)
    M = face_to_image.astype(np.float64) @ crop_to_face
    return cv2.warpPerspective(image, M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def face_crops(image: np.ndarray, labels: Iterable[Any], size: tuple[int, int] = CROP_SIZE,
               margin: float = 0.0, max_occluded: float = 0.15, min_side_px: float = 16.0,
               include_backs: bool = True, jitter: float = 0.0,
               rng: np.random.Generator | None = None) -> list[FaceCrop]:
    """Upright crops of the labelled faces of one scene.

    Faces more than ``max_occluded`` hidden, with a side shorter than ``min_side_px`` or (unless
    ``include_backs``) showing the back are skipped. ``jitter`` moves every corner randomly by up
    to that fraction of the face size (needs ``rng``) to imitate imperfect detections.
    """
    crops = []
    for index, label in enumerate(labels):
        if float(_field(label, "occluded")) > max_occluded:
            continue
        if not include_backs and not _field(label, "face_up"):
            continue
        corners = np.asarray(_field(label, "corners"), np.float64)
        sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
        if sides.min() < min_side_px:
            continue
        if jitter > 0 and rng is not None:
            corners = corners + rng.uniform(-jitter, jitter, corners.shape) * sides.mean()
        crops.append(FaceCrop(rectify(image, corners, size, margin), str(_field(label, "code")),
                              int(_field(label, "rotation")), bool(_field(label, "face_up")),
                              float(_field(label, "occluded")), index))
    return crops
