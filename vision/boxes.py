"""The detector's boxes as they go from detection to reading, tracking and the table: :class:`TileBoxes`.

A frame's boxes are one row each in four arrays of the same length, in original image pixels. The detector
(:meth:`vision.inference.TileRecognizer.detect_boxes`, or any :class:`vision.inference.Recognizer`) gives
them; the classifier reads them; the live pipeline keeps the last frame's (:mod:`vision.live`)::

    boxes = recognizer.detect_boxes(image)
    crops = warp_crops(image, boxes.obb)
    sure = boxes.take(boxes.score >= 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .geometry import obb_to_quad

#: what indexes boxes: a bool mask [N], indices, or a slice
Selection = np.ndarray | Sequence[int] | slice


@dataclass(frozen=True, eq=False)
class TileBoxes:
    """N oriented boxes, one row each:

    * ``obb`` [N, 5]: centre x, y, width, height, angle in degrees (the detector's: modulo 180);
    * ``corners`` [N, 4, 2]: TL, TR, BR, BL;
    * ``score`` [N]: the detector's centre score (0 for a box that row completion added);
    * ``face_up`` [N]: the detector's probability that the tile lies face up.
    """

    obb: np.ndarray
    corners: np.ndarray
    score: np.ndarray
    face_up: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "obb", np.asarray(self.obb).reshape(-1, 5))
        object.__setattr__(self, "corners", np.asarray(self.corners).reshape(-1, 4, 2))
        sizes = {len(self.obb), len(self.corners), len(self.score), len(self.face_up)}
        if len(sizes) != 1:
            raise ValueError(f"tile boxes of unequal lengths: obb {len(self.obb)}, corners {len(self.corners)}, "
                             f"score {len(self.score)}, face_up {len(self.face_up)}")

    @classmethod
    def empty(cls) -> TileBoxes:
        """No box."""
        return cls(np.zeros((0, 5)), np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0))

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> TileBoxes:
        """Boxes from the detector's decoded maps (:func:`vision.geometry.decode_maps`: obb, quad, score,
        face_up)."""
        return cls(arrays["obb"], arrays["quad"], arrays["score"], arrays["face_up"])

    @classmethod
    def concat(cls, parts: Sequence[TileBoxes]) -> TileBoxes:
        """The boxes of ``parts``, in order."""
        if not parts:
            return cls.empty()
        return cls(np.concatenate([p.obb for p in parts]), np.concatenate([p.corners for p in parts]),
                   np.concatenate([p.score for p in parts]), np.concatenate([p.face_up for p in parts]))

    def __len__(self) -> int:
        return len(self.obb)

    def take(self, which: Selection) -> TileBoxes:
        """The boxes ``which`` selects (a bool mask, indices or a slice), in that order."""
        if not isinstance(which, slice):
            which = np.asarray(which)
            if which.dtype != bool:
                which = which.astype(int).reshape(-1)   # ([] is no box, not a float index)
        return TileBoxes(self.obb[which], self.corners[which], self.score[which], self.face_up[which])

    def turned(self, obb: np.ndarray) -> TileBoxes:
        """The same boxes with the oriented boxes ``obb`` [N, 5] instead (the corners made from them)."""
        return TileBoxes(obb, obb_to_quad(obb), self.score, self.face_up)

    def shifted(self, offset: np.ndarray) -> TileBoxes:
        """The boxes moved by ``offset`` (x, y) pixels."""
        obb = self.obb.copy()
        obb[:, :2] += offset
        return TileBoxes(obb, self.corners + offset, self.score, self.face_up)

    def centres(self) -> np.ndarray:
        """[N, 2]: the mean of each box's corners."""
        return self.corners.mean(1) if len(self) else np.zeros((0, 2))


__all__ = ["Selection", "TileBoxes"]
