"""A generated hand's frames as the live pipeline sees them when every tile is read right: each labelled face
painted as a flat quad whose colour names its kind (outlined, so a tile that moves changes the picture), and
a stand-in recogniser that boxes exactly the painted faces and reads a crop by the colour at its centre
(anything else reads as "not a tile"). What the page then shows is the pipeline's and the engine's doing,
not the models'. A label with ``top3`` ([(code, probability), ...]) is painted so that it reads so instead: a
misreading with the classifier's alternatives, as the models give them."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from datasets.codes import TILE_CODES
from vision import geometry as G
from vision.boxes import TileBoxes
from vision.inference import NONE_INDEX
from vision.sources import Frame, SourceStatus

_G, _R = 200, 120     # the green and red of every painted face; blue says the kind


def boxes_in(boxes: TileBoxes, regions=None) -> TileBoxes:
    """A stand-in detector's answer: all of ``boxes``, or those whose centre lies in one of ``regions``
    (x0, y0, x1, y1), as the live pipeline asks for the changed parts of a frame."""
    if regions is None or not len(boxes):
        return boxes.take(slice(None))
    c = boxes.obb[:, :2]
    inside = np.zeros(len(c), bool)
    for x0, y0, x1, y1 in regions:
        inside |= (c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)
    return boxes.take(inside) if inside.any() else TileBoxes.empty()


class PaintedLabels:
    """A :class:`vision.inference.Recognizer` for :meth:`paint`-ed frames."""

    scales = (640,)
    nms_iou = 0.3
    MARK = 8      # the frame's k-th label with a top3 is painted with red _R + MARK * k

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.boxes = TileBoxes.empty()
        self.readings: list[list[tuple[str, float]]] = []   # the top3 of the labels painted marked, in order

    def paint(self, labels, size=(1280, 720)) -> np.ndarray:
        w, h = size
        img = np.full((h, w, 3), 30, np.uint8)
        quads = np.array([lab["corners"] for lab in labels], np.float64).reshape(-1, 4, 2)
        self.readings = []
        for lab, q in zip(labels, quads, strict=True):
            k = TILE_CODES.index(lab["code"] if lab["face_up"] else "bk")
            pts = np.round(q).astype(np.int32)
            red = _R
            if lab.get("top3"):
                self.readings.append([(str(c), float(p)) for c, p in lab["top3"]])
                red = _R + self.MARK * len(self.readings)
            cv2.fillConvexPoly(img, pts, (4 * k + 10, _G, red))
            cv2.polylines(img, [pts], True, (0, 0, 0), 2)
        self.boxes = TileBoxes(G.quad_to_obb(quads) if len(quads) else np.zeros((0, 5)), quads, np.ones(len(labels)),
                               np.array([1.0 if lab["face_up"] else 0.0 for lab in labels]))
        return img

    def detect_boxes(self, image, regions=None, **kw):
        return boxes_in(self.boxes, regions)

    def classify(self, crops, variant=None):
        p = np.zeros((len(crops), len(TILE_CODES) + 1))
        for i, c in enumerate(crops):
            h, w = c.shape[:2]
            px = c[h // 2 - 4:h // 2 + 4, w // 2 - 4:w // 2 + 4].reshape(-1, 3).astype(int)
            ok = np.abs(px[:, 1] - _G) < 3
            mark = int(round((np.median(px[:, 2]) - _R) / self.MARK))
            ok &= np.abs(px[:, 2] - (_R + self.MARK * mark)) < 3
            if ok.mean() > 0.8 and 0 < mark <= len(self.readings):
                for code, q in self.readings[mark - 1]:
                    p[i, TILE_CODES.index(code)] = q
            elif ok.mean() > 0.8 and mark == 0:
                p[i, int(round((np.median(px[ok, 0]) - 10) / 4))] = 1.0
            else:
                p[i, NONE_INDEX] = 1.0
        return p, np.zeros(len(crops))


class SteppedSource:
    """A frame source the test steps: :meth:`show` an image for ``reads`` frames, then nothing new until the
    next :meth:`show`; :meth:`wait_read` returns once the reader has taken all of them and come back."""

    name = "painted"

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._image: np.ndarray | None = None
        self._left = 0
        self._index = 0
        self._idle = True

    def show(self, image: np.ndarray, reads: int = 4) -> None:
        with self._cond:
            self._image, self._left, self._idle = image, reads, False
            self._cond.notify_all()

    def wait_read(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._idle:
                if not self._cond.wait(max(0.0, deadline - time.monotonic())):
                    raise AssertionError("the feed did not read the frames shown")

    def wait_frame(self, last_index: int = -1, timeout: float = 1.0) -> Frame | None:
        with self._cond:
            if self._left == 0:
                self._idle = True          # the frames before were read (the reader is back for more)
                self._cond.notify_all()
                self._cond.wait(timeout)
            if self._left == 0 or self._image is None:
                return None
            self._left -= 1
            self._index += 1
            return Frame(self._image.copy(), self._index, time.monotonic())

    def status(self) -> SourceStatus:
        return SourceStatus(self.name, state="live")

    def stop(self) -> None:
        pass
