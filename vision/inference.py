"""Tile recognition with the shipped ONNX models: oriented detection, then one batched classification.

``TileRecognizer`` creates each onnxruntime session once (CPU, 2 threads by default) and reuses it::

    rec = TileRecognizer()
    result = rec.recognize(bgr_image)   # its tiles: Tile records (``Result.to_dict``: the ``detect --json``)

All pre/post-processing lives in :mod:`vision.geometry` (pure numpy, tested without a model).
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import cv2
import numpy as np

from . import geometry as G
from .boxes import TileBoxes
from .kinds import BACK_INDEX, CLASSIFIER_PATH, DETECTOR_PATH, KINDS, MODELS_DIR, NONE_INDEX  # noqa: F401

DETECT_LONG_SIDE = 640
DETECT_SCALES: tuple[int, ...] = (640, 320)  # long sides the detector runs at (see detect_boxes)
COARSE_MIN_SIDE = 16.0  # input pixels: the smallest face a coarser scale may add
CLOSEUP_SCALE = 160     # long side of one more pass when the coarsest scale's big faces are CLOSEUP_SIDE or more
CLOSEUP_SIDE = 28.0     # input pixels (at the coarsest scale): a close-up's faces, split into pips at 640
SMALL_FACE = 15.0       # input pixels: face short side (smaller quarter) below which a finer scale is used
AIM_FACE = 22.0         # input pixels: what a finer scale aims for (the smaller quarter of the faces)
UPSCALE_LIMIT = 2.0     # a finer scale enlarges the frame at most this many times (a whole table filmed at 720p)
UPSCALE_SIDE = 2560     # ... and never past this long side (a 4K frame is read at most at its own size)
FEW_BOXES = 4           # a full-frame pass at the base scale finding fewer boxes tries twice that scale once
MAX_PIXELS = 80_000_000      # larger images are refused (decoding them alone takes seconds and GBs)
MIN_SIDE = 16                # smaller images give an empty result


class ImageError(ValueError):
    """The input is not a usable image (message says why)."""


class ImageTooLarge(ImageError):
    """The image has more than :data:`MAX_PIXELS` pixels (refused before it is decoded when its header says so)."""


def load_image(path: str | os.PathLike) -> np.ndarray:
    """Read an image file as BGR uint8, turned upright as its EXIF orientation says; grey, 16-bit and alpha
    images are converted. Raises ImageError (ImageTooLarge over :data:`MAX_PIXELS`)."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no such file")
    if not p.is_file():
        raise ImageError(f"{p}: not a regular file")
    data = p.read_bytes()
    if not data:
        raise ImageError(f"{p}: empty file")
    return decode_image(data, str(p))


#: JPEG markers without a length: TEM, RST0-RST7, SOI, EOI
_JPEG_STANDALONE = frozenset([0x01, *range(0xD0, 0xDA)])
#: JPEG start-of-frame markers (the frame's size follows): SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC)
_JPEG_SOF = frozenset([0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF])


def jpeg_segments(data: bytes):
    """(marker, start, length) of each segment of a JPEG's header up to its first scan, found as decoders
    (libjpeg) find them: bytes that are not 0xFF before a marker are skipped, so are any number of 0xFF fill
    bytes and a stuffed 0xFF00; a length below 2 skips only itself. ``start`` is where the segment's data begins
    (after its length), ``length`` how many bytes of data it declares (0 for a marker without a length)."""
    n = len(data)
    i = 2   # after SOI, which a decoder wants in the first two bytes
    while i < n:
        while i < n and data[i] != 0xFF:
            i += 1
        while i < n and data[i] == 0xFF:
            i += 1
        if i >= n:
            return
        marker = data[i]
        i += 1
        if marker == 0x00:
            continue
        if marker in _JPEG_STANDALONE:
            yield marker, i, 0
            if marker == 0xD9:
                return
            continue
        if i + 2 > n:
            return
        seg = int.from_bytes(data[i:i + 2], "big")
        yield marker, i + 2, max(seg - 2, 0)
        if marker == 0xDA:   # start of scan: the frame header came before it, if at all
            return
        i += max(seg, 2)


def declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) an encoded image declares in its header, without decoding it (None if unknown).
    PNG and JPEG headers are read here (JPEG's segments as a decoder walks them, :func:`jpeg_segments`); other
    formats through Pillow when it is installed (an image Pillow itself calls a decompression bomb raises
    ImageTooLarge)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"\xff\xd8":  # JPEG: the first start-of-frame marker, as the decoder reads it
        for marker, start, _ in jpeg_segments(data):
            if marker in _JPEG_SOF:
                if start + 5 > len(data):   # the frame header: precision, height, width
                    return None
                height, width = data[start + 1:start + 3], data[start + 3:start + 5]
                return int.from_bytes(width, "big"), int.from_bytes(height, "big")
        return None
    try:
        import io

        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(io.BytesIO(data)) as im:
            return int(im.width), int(im.height)
    except Image.DecompressionBombError:
        raise ImageTooLarge(f"image too large (over {MAX_PIXELS // 1_000_000} MP)") from None
    except Exception:  # noqa: BLE001 - not readable by Pillow: let OpenCV decide
        return None


def _tiff_orientation(tiff: bytes) -> int:
    """The orientation tag (274) of an EXIF block's first directory (a TIFF header), 1 when absent or bad."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return 1
    big = tiff[:2] == b"MM"

    def number(a: int, b: int) -> int:
        return int.from_bytes(tiff[a:b], "big" if big else "little")

    at = number(4, 8)
    if at + 2 > len(tiff):
        return 1
    for k in range(number(at, at + 2)):
        e = at + 2 + 12 * k
        if e + 12 > len(tiff):
            break
        if number(e, e + 2) == 0x0112:   # a SHORT (type 3) is left-justified in the entry's 4 value bytes
            value = number(e + 8, e + 10) if number(e + 2, e + 4) == 3 else number(e + 8, e + 12)
            return value if 1 <= value <= 8 else 1
    return 1


def exif_orientation(data: bytes) -> int:
    """The EXIF orientation (1-8; 1: stored upright) an encoded image declares: a JPEG's APP1 segment or a PNG's
    eXIf chunk read here, other formats through Pillow when it is installed."""
    if data[:2] == b"\xff\xd8":
        for marker, start, length in jpeg_segments(data):
            if marker == 0xE1 and data[start:start + 6] == b"Exif\x00\x00":
                return _tiff_orientation(data[start + 6:start + length])
        return 1
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        i = 8
        while i + 8 <= len(data):
            size, kind = int.from_bytes(data[i:i + 4], "big"), data[i + 4:i + 8]
            if kind == b"eXIf":
                return _tiff_orientation(data[i + 8:i + 8 + size])
            if kind in (b"IDAT", b"IEND"):
                return 1
            i += 12 + size
        return 1
    try:
        import io

        from PIL import Image
    except ImportError:
        return 1
    try:
        with Image.open(io.BytesIO(data)) as im:
            value = int(im.getexif().get(0x0112, 1))
    except Exception:  # noqa: BLE001 - not readable by Pillow: no orientation
        return 1
    return value if 1 <= value <= 8 else 1


def apply_orientation(img: np.ndarray, orientation: int) -> np.ndarray:
    """``img`` as a viewer shows it whose EXIF orientation is ``orientation`` (as Pillow's exif_transpose)."""
    if orientation == 2:
        return img[:, ::-1]
    if orientation == 3:
        return img[::-1, ::-1]
    if orientation == 4:
        return img[::-1]
    if orientation == 5:
        return img.swapaxes(0, 1)
    if orientation == 6:
        return np.rot90(img, -1)
    if orientation == 7:
        return img.swapaxes(0, 1)[::-1, ::-1]
    if orientation == 8:
        return np.rot90(img, 1)
    return img


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode encoded image bytes (see :func:`load_image`); images declaring over MAX_PIXELS are refused
    before decoding (ImageTooLarge); a photo stored turned with an EXIF orientation is turned upright."""
    size = declared_size(data)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise ImageTooLarge(f"{name}: image too large ({size[0]}x{size[1]}, limit {MAX_PIXELS // 1_000_000} MP)")
    buf = np.frombuffer(data, np.uint8)
    try:
        img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)   # (which applies no EXIF orientation: done below)
    except cv2.error as exc:  # e.g. over OpenCV's pixel limit
        raise ImageError(f"{name}: cannot decode ({exc.msg.strip() if hasattr(exc, 'msg') else exc})") from None
    if img is None:
        raise ImageError(f"{name}: not an image (or an unsupported format / too large to decode)")
    return normalize_image(apply_orientation(img, exif_orientation(data)), name)


def normalize_image(img: np.ndarray, name: str = "image") -> np.ndarray:
    """Any decoded array -> BGR uint8 H x W x 3 (raises ImageError for unusable arrays)."""
    a = np.asarray(img)
    if a.ndim not in (2, 3) or a.size == 0:
        raise ImageError(f"{name}: not an image array (shape {a.shape})")
    if a.shape[0] * a.shape[1] > MAX_PIXELS:
        raise ImageTooLarge(f"{name}: image too large ({a.shape[1]}x{a.shape[0]}, limit {MAX_PIXELS // 1_000_000} MP)")
    if a.dtype == np.uint16:
        a = (a >> 8).astype(np.uint8)
    elif a.dtype != np.uint8:
        a = np.clip(a.astype(np.float64) * (255.0 if a.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
    if a.ndim == 2:
        a = cv2.cvtColor(a, cv2.COLOR_GRAY2BGR)
    elif a.shape[2] == 1:
        a = cv2.cvtColor(a[..., 0], cv2.COLOR_GRAY2BGR)
    elif a.shape[2] == 4:
        alpha = a[..., 3:4].astype(np.float32) / 255.0
        a = np.clip(a[..., :3] * alpha + 255 * (1 - alpha), 0, 255).astype(np.uint8)  # onto white
    elif a.shape[2] != 3:
        raise ImageError(f"{name}: unsupported channel count {a.shape[2]}")
    return np.ascontiguousarray(a)


@dataclass
class Tile:
    """One recognised tile, in original image pixels."""

    code: str
    confidence: float                 # classifier probability of ``code``
    top3: list[tuple[str, float]]     # best three tile kinds with probabilities
    corners: np.ndarray               # [4, 2] TL, TR, BR, BL of the face as it reads upright
    face_up: bool
    rotation: int                     # 0/90/180/270: the face's up, clockwise from image-up
    angle: float                      # same, unquantised degrees in [0, 360)
    det_score: float                  # detector centre score

    def to_dict(self) -> dict:
        return {"code": self.code, "confidence": round(self.confidence, 4),
                "top3": [{"code": c, "p": round(p, 4)} for c, p in self.top3],
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "face_up": self.face_up, "rotation": self.rotation, "angle": round(self.angle, 1),
                "det_score": round(self.det_score, 4)}


@dataclass
class Result:
    tiles: list[Tile]
    width: int
    height: int
    timing_ms: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"width": self.width, "height": self.height, "count": len(self.tiles),
                "tiles": [t.to_dict() for t in self.tiles],
                "timing_ms": {k: round(v, 2) for k, v in self.timing_ms.items()}}


def _session(path: Path, threads: int):
    import onnxruntime as ort

    if not path.is_file():
        raise FileNotFoundError(f"model file {path} not found (train it: see models/MODEL_CARD.md)")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def _network_session(data: bytes, threads: int, name: str):
    """A session of a tile set's adapted classifier (ONNX bytes); ValueError naming the set when it is none."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    try:
        sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own kinds for a damaged file
        raise ValueError(f"tile set {name!r}: its adapted classifier cannot be loaded ({exc})"[:300]) from None
    if {o.name for o in sess.get_outputs()} < {"kind_logits", "flip_logit"}:
        raise ValueError(f"tile set {name!r}: its adapted classifier has not the classifier's outputs")
    return sess


#: The detector's centre-score threshold. A box it scores below WEAK_SCORE whose best reading is below
#: WEAK_CONFIDENCE is taken for "not a tile" (drop_weak). Chosen on real-scenes *valid* and 20 textured frames
#: with no tile that the evaluation does not use (python -m evaluation.threshold, 2026-12-02): against no such
#: rule, recall 0.864 -> 0.864, precision 0.574 -> 0.630, boxes per empty 1280x720 frame 21.9 -> 14.4. Raising
#: the threshold itself to 0.5 gave 0.861 / 0.798 / 2.9 on those but lost the demo film's small overhead tiles
#: (7 of 24 events followed), and WEAK_CONFIDENCE 0.7 lost 5 of its first frame's tiles: not taken.
DET_THRESHOLD = 0.3
WEAK_SCORE = 0.5
WEAK_CONFIDENCE = 0.5


def drop_weak(scores: np.ndarray, probs: np.ndarray, confidence: float) -> np.ndarray:
    """Boxes the detector was unsure of (centre score below ``WEAK_SCORE``) and the classifier too (best kind below
    ``confidence``) read as "not a tile": what textured surfaces with no tile give. The probabilities, changed
    only for those rows (a copy when any is)."""
    if confidence <= 0 or len(probs) == 0:
        return probs
    weak = (np.asarray(scores)[: len(probs)] < WEAK_SCORE) & (probs.max(1) < confidence)
    weak &= (probs.argmax(1) != NONE_INDEX) | (probs[:, NONE_INDEX] < 1.0)   # an unsure "none" too: made sure
    if not weak.any():
        return probs
    out = probs.copy()
    out[weak] = 0.0
    out[weak, NONE_INDEX] = 1.0
    return out


SURE_BOX = 0.5       # a detector centre score from which a box is taken to hold a tile ...
DOUBTED_NONE = 0.5   # ... when its reading says "not a tile" below this and its likeliest tile kind ...
TILE_SHARE = 0.5     # ... is at least this share of that "not a tile"


def doubted_none(scores: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Boxes the detector is sure of whose reading says "not a tile" only unsurely, with a tile kind close
    behind, read as that kind (a blank white dragon lying a little turned in a meld reads so: no tile 0.46,
    5z 0.40). The probabilities, changed only for those rows (a copy when any is).

    >>> p = np.zeros((3, len(KINDS))); p[:, NONE_INDEX] = 0.46; p[:, 0] = 0.40; p[2, 0] = 0.1
    >>> [KINDS[k] for k in doubted_none(np.array([0.75, 0.3, 0.75]), p).argmax(1)]
    ['1m', 'none', 'none']
    """
    if not len(probs):
        return probs
    tile = probs.copy()
    tile[:, NONE_INDEX] = 0.0
    pn = probs[:, NONE_INDEX]
    take = (np.asarray(scores)[: len(probs)] >= SURE_BOX) & (probs.argmax(1) == NONE_INDEX) & (pn < DOUBTED_NONE) \
        & (tile.max(1) >= TILE_SHARE * pn)
    if not take.any():
        return probs
    out = probs.copy()
    out[take] = tile[take] / tile[take].sum(1, keepdims=True)
    return out


@runtime_checkable
class Recognizer(Protocol):
    """What the live pipeline reads a frame with (:class:`TileRecognizer`; stand-ins in tests): boxes for a
    frame (or its changed ``regions``) and readings of crops ([n, 56] probabilities, [n] flip)."""

    scales: tuple[int, ...]

    def detect_boxes(self, image: np.ndarray, **kw: Any) -> TileBoxes: ...

    def classify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class RecognizerFeatures:
    """The optional parts of a :class:`Recognizer`, read once in one place: its ``lock`` (one frame in the
    sessions at a time), ``read_boxes`` (boxes read again a few degrees turned), ``read_mask`` (a tile set's
    own kinds), ``scales_for`` (scales chosen per frame size), ``weak_confidence`` (:func:`drop_weak`) and
    ``fill_rows`` (rows completed)."""

    lock: Any
    read_boxes: Callable | None = None
    read_mask: Callable | None = None
    scales_for: Callable | None = None
    weak_confidence: float = 0.0
    fill_rows: bool = False

    @classmethod
    def of(cls, rec: Any) -> RecognizerFeatures:
        if not isinstance(rec, Recognizer):
            raise TypeError(f"{type(rec).__name__} is not a tile recogniser (detect_boxes, classify, scales)")
        return cls(getattr(rec, "lock", None) or threading.Lock(), getattr(rec, "read_boxes", None),
                   getattr(rec, "read_mask", None), getattr(rec, "scales_for", None),
                   float(getattr(rec, "weak_confidence", 0.0) or 0.0), bool(getattr(rec, "fill_rows", False)))


class TileRecognizer:
    """Detector + classifier sessions, created once and reused for every frame (a :class:`Recognizer`)."""

    def __init__(self, detector: str | os.PathLike = DETECTOR_PATH, classifier: str | os.PathLike = CLASSIFIER_PATH,
                 threads: int = 2, det_threshold: float = DET_THRESHOLD, nms_iou: float = 0.3,
                 min_confidence: float = 0.0, weak_confidence: float = WEAK_CONFIDENCE,
                 scales: tuple[int, ...] = DETECT_SCALES, head: dict[str, np.ndarray] | Literal["auto"] | None = "auto",
                 auto_scale: bool = False, fill_rows: bool = True, tileset=None, turns: bool = True,
                 closeups: bool = True):
        self.det = _session(Path(detector), threads)
        self.cls = _session(Path(classifier), threads)
        self.lock = threading.Lock()   # one frame in the sessions at a time (callers that share it take it)
        self._base_cls = self.cls   # the classifier file's own session (a tile set's network replaces self.cls)
        self._threads = threads
        self.cls_path = str(classifier)
        self.det_path = str(detector)
        self._has_features = any(o.name == "features" for o in self.cls.get_outputs())
        # a finetuned kind head (weight [56, F], bias [56]) replacing the shipped one ("auto": the one saved)
        self.head: dict[str, np.ndarray] | None = None
        if isinstance(head, str):
            from .heads import load_head

            self.head = load_head() if self._has_features else None
        else:
            self.head = head
        self._base_head = self.head
        self.tileset = None      # a vision.tilesets.TileSet: its adapted model and its kinds
        self._set_mask = None
        if tileset is not None:
            self.use_tileset(tileset)
        self.scales = tuple(scales)
        self.closeup_scale = CLOSEUP_SCALE if closeups else 0
        self.auto_scale = auto_scale
        self.fill_rows = fill_rows   # complete rows (vision.rows) and read unsure tiles again turned
        self.turns = turns           # read unsure boxes again a few degrees turned (read_boxes)
        self._auto: dict[tuple[int, int], tuple[int, ...]] = {}   # frame size -> the scales chosen for it
        self.det_threshold = det_threshold
        self.weak_confidence = weak_confidence
        self.nms_iou = nms_iou
        self.min_confidence = min_confidence

    def use_tileset(self, tileset) -> None:
        """Read with a tile set (``vision.tilesets.TileSet``, or None for none): its adapted classifier (or its
        adapted kind head), when it was adapted from this classifier, replaces the shipped one, and only the
        set's kinds are read. ValueError when the set's classifier cannot be loaded."""
        cls, head, mask = self._base_cls, self._base_head, None
        if tileset is not None:
            if self._has_features:
                from .heads import shipped_head

                try:
                    shipped = shipped_head(Path(self.cls_path).parent)
                except OSError:
                    shipped = None
                network = tileset.network_for(shipped) if shipped is not None else None
                set_head = tileset.head_for(shipped) if shipped is not None else None
                if network is not None:
                    cls, head = _network_session(network, self._threads, tileset.name), None
                elif set_head is not None:
                    head = set_head
            mask = tileset.kind_mask()
        with self.lock:   # between two frames of a pipeline that shares this recogniser
            self.tileset, self.cls, self.head, self._set_mask = tileset, cls, head, mask

    # -- the two stages, usable separately -------------------------------------------------------
    def scales_for(self, size: tuple[int, int]) -> tuple[int, ...]:
        """The detector's scales for frames of ``size`` (w, h): ``self.scales`` unless a sticky full-frame pass
        on a frame of that size found the tiles too small for them (see :meth:`detect_boxes`)."""
        return self._auto.get((int(size[0]), int(size[1])), self.scales)

    def _rescale(self, size: tuple[int, int], scales: tuple[int, ...], boxes: TileBoxes) -> tuple[int, ...] | None:
        """New scales for frames of ``size`` when the tiles of a full-frame pass at ``scales`` were too small
        (a quarter of the confident faces' short sides below ``SMALL_FACE`` input pixels at the finest scale:
        the far side of a seat camera's view counts; the frame enlarged up to ``UPSCALE_LIMIT`` times, to a long
        side of ``UPSCALE_SIDE`` at most, where its own pixels are not enough), or so small that the base scale
        found fewer than ``FEW_BOXES`` (twice that scale is tried), or, after an earlier change, have grown too
        big for it; None when ``scales`` suit them."""
        score = boxes.score
        top, long_side = max(scales), max(size)
        base = max(self.scales)
        limit = max(long_side, min(int(UPSCALE_LIMIT * long_side), UPSCALE_SIDE))
        if len(score) < FEW_BOXES:   # faces too small to be found at all here (or no tiles): once, twice as fine
            new = min(limit, 2 * top) // 32 * 32
            return (new, new // 2) if top == base and new > top else None
        side = np.percentile(np.minimum(boxes.obb[:, 2], boxes.obb[:, 3])[score >= np.median(score)], 25)
        face = side * top / long_side
        if face < SMALL_FACE and top < limit:
            new = int(min(limit, top * AIM_FACE / max(face, 1.0)) + 31) // 32 * 32
            return (new, new // 2) if new > top else None
        if top > base and face > 3 * AIM_FACE:
            return self.scales
        return None

    def detect_boxes(self, image: np.ndarray, scales: tuple[int, ...] | None = None,
                     regions=None, context: float = 0.0, auto: bool | None = None,
                     sticky: bool = False) -> TileBoxes:
        """Oriented boxes (theta modulo 180) in original pixels.

        The detector runs at each long side of ``scales`` (default ``self.scales``); boxes are merged by
        rotated NMS and boxes lying inside a much larger confident box (a big tile's dots found at the finer
        scale) are dropped.

        ``regions`` (``[(x0, y0, x1, y1), ...]`` in original pixels) runs the detector only on those parts of
        the frame, at the same scale as the full-frame pass (so tile sizes are what the detector learnt): each
        region grown by ``context`` pixels is cut from the letterboxed frame on the 32-pixel grid of the
        full-frame input (same pixels, same network alignment), and only boxes whose centre lies inside the
        region itself are returned (boxes near a window's edge lack context).

        ``auto`` (default: ``auto_scale`` when no ``scales`` are given): a full-frame pass whose tiles are too
        small for the detector (a whole table filmed from afar: faces under ``SMALL_FACE`` input pixels) is
        run again at a finer scale. ``sticky`` (a video: the frames of one camera): the choice is kept for
        frames of that size (:meth:`scales_for`), which then start at the finer scales; without it every
        image decides for itself."""
        size = (image.shape[1], image.shape[0])
        auto = (self.auto_scale and scales is None) if auto is None else auto
        if scales is None:
            scales = self.scales_for(size) if sticky else self.scales
        scales = tuple(scales)
        boxes = self._detect_at(image, scales, regions, context)
        if auto and regions is None:
            new = self._rescale(size, scales, boxes)
            if new is not None:
                if sticky and new == self.scales:
                    self._auto.pop(size, None)
                elif sticky:
                    self._auto[size] = new
                if max(new) > max(scales):
                    boxes = self._detect_at(image, new, None, context)
        return boxes

    def _detect_at(self, image: np.ndarray, scales: tuple[int, ...], regions, context: float) -> TileBoxes:
        top = max(scales)
        parts = []
        finer = None
        boxed: _Letterboxed | None = None     # the windowed passes' frames (regions given)
        passes = list(scales)
        k = 0
        while k < len(passes):
            long_side = passes[k]
            k += 1
            if regions is None:
                inp, scale, finer = _letterbox(image, long_side, finer)
                maps = self.det.run(None, {"image": G.to_input(inp)})[0]
                part = TileBoxes.from_arrays(G.decode_maps(maps, scale, self.det_threshold, nms_iou=self.nms_iou))
            else:
                boxed = _Letterboxed(image, long_side, boxed)
                scale = boxed.scale
                part = self._detect_windows(boxed, regions, context)
            if long_side < top:  # coarser scales only add big tiles (>= 16 px short side there)
                side = np.minimum(part.obb[:, 2], part.obb[:, 3]) * scale
                coarse = side[side >= COARSE_MIN_SIDE]
                if (self.closeup_scale and k == len(passes) and long_side > self.closeup_scale and regions is None
                        and len(coarse) and float(np.median(coarse)) >= CLOSEUP_SIDE):
                    passes.append(self.closeup_scale)   # faces this big here: a close-up, read once more coarser
                part = part.take(side >= COARSE_MIN_SIDE)
                if not len(part):
                    continue          # nothing to merge: the finer scale's boxes need no second NMS
            parts.append(part)
        if len(passes) == 1 and len(parts) == 1 and (regions is None or len(regions) <= 1):
            return parts[0]
        merged = TileBoxes.concat(parts)
        if len(parts) > 1 or (regions is not None and len(regions) > 1):
            merged = merged.take(G.rotated_nms(merged.corners, merged.score, self.nms_iou))
        if len(passes) == 1:
            return merged
        return merged.take(G.suppress_contained(merged.corners, merged.score))

    def _detect_windows(self, inp: _Letterboxed, regions, context: float) -> TileBoxes:
        """Detector outputs on parts of a letterboxed frame (see :meth:`detect_boxes`)."""
        ih, iw = inp.shape
        scale = inp.scale
        out = []
        for x0, y0, x1, y1 in regions:
            wx0, wy0, wx1, wy1 = snap_window((x0 - context, y0 - context, x1 + context, y1 + context), scale, iw, ih)
            if wx1 - wx0 < 32 or wy1 - wy0 < 32:
                continue
            maps = self.det.run(None, {"image": G.to_input(inp.window(wx0, wy0, wx1, wy1))})[0]
            decoded = TileBoxes.from_arrays(G.decode_maps(maps, scale, self.det_threshold, nms_iou=self.nms_iou))
            part = decoded.shifted(np.array([wx0, wy0], np.float64) / scale)  # window input pixels -> frame pixels
            c = part.obb[:, :2]
            out.append(part.take((c[:, 0] >= x0) & (c[:, 0] < x1) & (c[:, 1] >= y0) & (c[:, 1] < y1)))
        if not out:
            return empty_boxes()
        return TileBoxes.concat(out)

    def classify(self, crops: np.ndarray, variant: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Upright crops [N, 96, 72, 3] BGR uint8 -> (probabilities [N, 56], flip probability [N]).

        ``variant`` (a rule system's name) reads only its tile kinds: the others get probability 0, so a face
        the set lacks is read as its likeliest kind in the set with that kind's own (low) probability as
        confidence; backs and "not a tile" are always kept."""
        if len(crops) == 0:
            return np.zeros((0, len(KINDS))), np.zeros(0)
        if self.head is not None:
            logits, flip, feats = self.cls.run(["kind_logits", "flip_logit", "features"], {"crops": G.to_input(crops)})
            logits = feats @ self.head["weight"].T + self.head["bias"]
        else:
            logits, flip = self.cls.run(["kind_logits", "flip_logit"], {"crops": G.to_input(crops)})
        probs = G.softmax(logits, 1)
        mask = self.read_mask(variant)
        if mask is not None:
            probs = np.where(mask[None, :], probs, 0.0)
        return probs, G.sigmoid(flip[:, 0].astype(np.float64))

    def read_mask(self, variant: str | None = None) -> np.ndarray | None:
        """[56] bool: the kinds read (the rule system's, and the tile set's when one is in use), or None."""
        mask = kind_mask(variant) if variant is not None else None
        if self._set_mask is not None:
            mask = self._set_mask if mask is None else (mask & self._set_mask)
        return mask

    def read_boxes(self, image: np.ndarray, obb: np.ndarray, variant: str | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Classify the oriented boxes ``obb`` [N, 5] of ``image``; a box read without confidence (a tile kind
        below ``TURN_READ``) is read again turned a few degrees either way (``TURNS``) and the surest reading
        is kept (a box a little off the tile's axis)."""
        probs, flip = self.classify(G.warp_crops(image, obb, G.CROP_SIZE), variant)
        if not self.turns or not len(probs):
            return probs, flip
        unsure = np.nonzero((probs.argmax(1) != NONE_INDEX) & (probs.max(1) < TURN_READ))[0]
        if not len(unsure):
            return probs, flip
        turned = np.concatenate([obb[unsure] + [0, 0, 0, 0, d] for d in TURNS])
        p2, f2 = self.classify(G.warp_crops(image, turned, G.CROP_SIZE), variant)
        probs, flip = probs.copy(), flip.copy()
        for j in range(len(TURNS)):
            pj, fj = p2[j * len(unsure):(j + 1) * len(unsure)], f2[j * len(unsure):(j + 1) * len(unsure)]
            better = (pj.argmax(1) != NONE_INDEX) & (pj.max(1) > probs[unsure].max(1))
            probs[unsure[better]], flip[unsure[better]] = pj[better], fj[better]
        return probs, flip

    def features(self, crops: np.ndarray) -> np.ndarray:
        """The classifier's pooled features of upright crops [N, 96, 72, 3] (what finetuning trains on)."""
        if not self._has_features:
            raise ValueError("this classifier model has no 'features' output; "
                             "re-export it with models.train_classifier")
        return self._base_cls.run(["features"], {"crops": G.to_input(crops)})[0]

    def complete_rows(self, image: np.ndarray, boxes: TileBoxes, probs: np.ndarray, flip: np.ndarray,
                      variant: str | None = None) -> tuple[TileBoxes, np.ndarray, np.ndarray]:
        """Classified boxes completed along their rows (:func:`vision.rows.complete_rows`): boxes read as "not a
        tile" or replaced by a better reading of their row's slot are dropped, tiles the detector missed in a row
        are added (detector score 0)."""
        from .rows import complete_rows

        keep, add_obb, add_p, add_f = complete_rows(image, boxes.obb, probs, lambda c: self.classify(c, variant))
        boxes = boxes.take(keep)
        probs, flip = probs[keep], flip[keep]
        if not len(add_obb):
            return boxes, probs, flip
        added = TileBoxes(add_obb, G.obb_to_quad(add_obb), np.zeros(len(add_obb)),
                          (add_p.argmax(1) != BACK_INDEX).astype(np.float64))
        return TileBoxes.concat([boxes, added]), np.concatenate([probs, add_p]), np.concatenate([flip, add_f])

    def recheck_turned(self, image: np.ndarray, obb: np.ndarray, probs: np.ndarray, flip: np.ndarray,
                       variant: str | None = None, which: np.ndarray | None = None):
        """Boxes read without confidence (below ``TURN_CHECK``, "not a tile" included) are read again
        turned a quarter (width and height swapped): a tile lying sideways whose box the detector drew upright
        reads right only so. The turned reading replaces the first where it is clearly surer. ``which`` [N]
        bool limits the check (default: all). Returns (obb, probs, flip), copies where changed."""
        return recheck_turned(image, obb, probs, flip, lambda c: self.classify(c, variant), which)

    # -- the whole path -----------------------------------------------------------------------------
    def recognize(self, image: np.ndarray, keep_none: bool = False, variant: str | None = None,
                  sticky: bool = False) -> Result:
        """Every tile of ``image``; ``variant``: read only that rule system's kinds (see :meth:`classify`);
        ``sticky``: the image is a frame of a video (the detector's scale choice is kept, see
        :meth:`detect_boxes`)."""
        img = normalize_image(image)
        h, w = img.shape[:2]
        if min(h, w) < MIN_SIDE:
            return Result([], w, h, {"total": 0.0})
        with self.lock:
            t0 = time.perf_counter()
            boxes = self.detect_boxes(img, sticky=sticky)
            t1 = time.perf_counter()
            probs, flip = self.read_boxes(img, boxes.obb, variant)
            probs = drop_weak(boxes.score, probs, self.weak_confidence)
            if self.fill_rows:
                obb, probs, flip = self.recheck_turned(img, boxes.obb, probs, flip, variant)
                if obb is not boxes.obb:
                    boxes = boxes.turned(obb)
            probs = doubted_none(boxes.score, probs)
            if self.fill_rows:
                boxes, probs, flip = self.complete_rows(img, boxes, probs, flip, variant)
            t2 = time.perf_counter()
        tiles = assemble(boxes, probs, flip, keep_none, self.min_confidence)
        t3 = time.perf_counter()
        return Result(tiles, w, h, {"detect": (t1 - t0) * 1e3, "classify": (t2 - t1) * 1e3,
                                    "total": (t3 - t0) * 1e3})


@functools.lru_cache(maxsize=32)
def kind_mask(variant: str) -> np.ndarray:
    """[56] bool: the classifier kinds that a table of rule system ``variant`` can show (backs and "not a
    tile" included). Raises ValueError for an unknown rule system."""
    from assistant.variants import get_variant

    from .reconstruct import in_set

    v = get_variant(variant)
    mask = np.array([in_set(k, v) for k in KINDS])
    mask.setflags(write=False)
    return mask


class _Letterboxed:
    """A frame letterboxed at ``long_side`` as :func:`_letterbox` does it, resized only where it is read (the
    windows of a local change: a 1280x720 frame's area resize alone is ~10 ms). ``finer``: the next finer
    scale's, which this one is resized from when its size is a whole multiple of this one's, as
    :func:`_letterbox` does; every pixel is the whole-frame pass's (:func:`geometry.resize_plan`)."""

    def __init__(self, image: np.ndarray, long_side: int, finer: _Letterboxed | None = None):
        h, w = image.shape[:2]
        self.image = image
        self.scale = long_side / max(h, w)
        self.size = (max(1, int(round(w * self.scale))), max(1, int(round(h * self.scale))))
        nw, nh = self.size
        self.shape = (-(-nh // 32) * 32, -(-nw // 32) * 32)
        self.finer = None
        if finer is not None:
            fw, fh = finer.size
            if fw % nw == 0 and fh % nh == 0 and fw // nw == fh // nh and fw // nw > 1:
                self.finer = finer
        self._whole: np.ndarray | None = None

    def _resized(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """Pixels ``[y0:y1, x0:x1]`` of the frame resized (without the padding)."""
        if self.finer is not None:     # a whole multiple: its period is the factor, never too long
            plan = G.resize_plan(self.finer.size, self.size, (x0, y0, x1, y1))
            assert plan is not None
            (sx0, sy0, sx1, sy1), out_size, (ox, oy) = plan
            part = cv2.resize(self.finer._resized(sx0, sy0, sx1, sy1), out_size, interpolation=cv2.INTER_AREA)
            return part[oy:oy + y1 - y0, ox:ox + x1 - x0]
        if self.scale < 1:
            return G.resize_window(self.image, self.size, (x0, y0, x1, y1), cv2.INTER_AREA)
        if self._whole is None:
            self._whole = cv2.resize(self.image, self.size, interpolation=cv2.INTER_LINEAR)
        return self._whole[y0:y1, x0:x1]

    def window(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """Pixels ``[y0:y1, x0:x1]`` of the letterboxed frame (grey beyond the frame, as the letterbox pads)."""
        out = np.full((y1 - y0, x1 - x0, 3), 114, np.uint8)
        cx1, cy1 = min(x1, self.size[0]), min(y1, self.size[1])
        if cx1 > x0 and cy1 > y0:
            out[:cy1 - y0, :cx1 - x0] = self._resized(x0, y0, cx1, cy1)
        return out


def _letterbox(image: np.ndarray, long_side: int, finer=None) -> tuple[np.ndarray, float, tuple]:
    """:func:`geometry.letterbox`, from the finer scale's resized frame when it is an exact multiple of this
    one (an area average of area averages: 6 ms less for 1280x720 -> 320, whose 3-channel INTER_AREA resize
    is slow). Returns (input, scale, what the next coarser scale can start from)."""
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    if finer is not None:
        resized, fw, fh = finer
        if fw % nw == 0 and fh % nh == 0 and fw // nw == fh // nh and fw // nw > 1:
            small = cv2.resize(resized, (nw, nh), interpolation=cv2.INTER_AREA)
            ph, pw = -(-nh // 32) * 32, -(-nw // 32) * 32
            out = np.full((ph, pw, 3), 114, np.uint8)
            out[:nh, :nw] = small
            return out, scale, (small, nw, nh)
    out, scale = G.letterbox(image, long_side)
    return out, scale, (out[:nh, :nw], nw, nh)


TURN_READ = 0.6      # readings below this are read again a few degrees turned (read_boxes)
TURNS = (-8.0, 8.0)  # ... at these turns (degrees)
TURN_CHECK = 0.25    # readings below this are checked a quarter turned (recheck_turned)
TURN_GAIN = 2.0      # ... and the turned reading is taken when this many times surer, and at least 0.5


def recheck_turned(image: np.ndarray, obb: np.ndarray, probs: np.ndarray, flip: np.ndarray, classify,
                   which: np.ndarray | None = None):
    """See :meth:`TileRecognizer.recheck_turned`; ``classify(crops) -> (probs, flip)``."""
    if not len(probs):
        return obb, probs, flip
    conf = probs.max(1)
    # an unsure "not a tile" too: a classifier that reads a quarter-turned face as no tile at all (rather than
    # as a tile, unsurely) says so of a sideways tile the detector boxed upright (boxes the detector itself was
    # unsure of were dropped as no tile before: vision.inference.drop_weak)
    unsure = conf < TURN_CHECK
    if which is not None:
        unsure &= np.asarray(which, bool)
    idx = np.nonzero(unsure)[0]
    if not len(idx):
        return obb, probs, flip
    turned = obb[idx].copy()
    turned[:, [2, 3]] = turned[:, [3, 2]]
    turned[:, 4] = (turned[:, 4] + 90.0) % 360.0
    p, f = classify(G.warp_crops(image, turned, G.CROP_SIZE))
    tile_p = p.copy()
    tile_p[:, NONE_INDEX] = 0.0
    better = (p.argmax(1) != NONE_INDEX) & (tile_p.max(1) >= TURN_GAIN * conf[idx]) & (tile_p.max(1) >= 0.5)
    if not better.any():
        return obb, probs, flip
    obb, probs, flip = obb.copy(), probs.copy(), flip.copy()
    obb[idx[better]] = turned[better]
    probs[idx[better]] = p[better]
    flip[idx[better]] = f[better]
    return obb, probs, flip


def empty_boxes() -> TileBoxes:
    """A detector result without boxes."""
    return TileBoxes.empty()


def snap_window(rect, scale: float, width: int, height: int, multiple: int = 32) -> tuple[int, int, int, int]:
    """A rectangle in original pixels -> the smallest window of the detector input (letterboxed at ``scale``,
    ``width`` x ``height``) covering it, with corners on the ``multiple`` grid, clipped to the input."""
    x0, y0, x1, y1 = ((float(v) + 0.5) * scale - 0.5 for v in rect)
    wx0 = max(0, int(np.floor(x0 / multiple)) * multiple)
    wy0 = max(0, int(np.floor(y0 / multiple)) * multiple)
    wx1 = min(width, int(np.ceil(x1 / multiple)) * multiple)
    wy1 = min(height, int(np.ceil(y1 / multiple)) * multiple)
    return wx0, wy0, max(wx0, wx1), max(wy0, wy1)


def assemble(boxes: TileBoxes, probs: np.ndarray, flip: np.ndarray, keep_none: bool = False,
             min_confidence: float = 0.0) -> list[Tile]:
    """Combine detector boxes (theta mod 180) with classifier outputs into :class:`Tile` records."""
    tiles: list[Tile] = []
    if len(probs) == 0:
        return tiles
    best = probs.argmax(1)
    tile_probs = probs[:, :NONE_INDEX]
    idx3, p3 = G.topk(tile_probs, 3)
    for i in range(len(probs)):
        k = int(best[i])
        if k == NONE_INDEX and not keep_none:
            continue
        code = KINDS[k]
        if probs[i, k] < min_confidence:
            continue
        obb = boxes.obb[i].copy()
        face_up = k != BACK_INDEX
        if face_up and flip[i] > 0.5:
            obb[4] = (obb[4] + 180.0) % 360.0
        quad = G.obb_to_quad(obb[None])[0]
        tiles.append(Tile(code=code, confidence=float(probs[i, k]),
                          top3=[(KINDS[int(j)], float(p)) for j, p in zip(idx3[i], p3[i], strict=False)],
                          corners=quad, face_up=face_up, rotation=int(G.rotation_of(obb[4])),
                          angle=float(obb[4] % 360.0), det_score=float(boxes.score[i])))
    return tiles


def draw_overlay(image: np.ndarray, tiles: list[Tile]) -> np.ndarray:
    """A copy of ``image`` with each tile's quad (green face-up, blue face-down), its top edge thick, and code."""
    out = normalize_image(image).copy()
    scale = max(1.0, max(out.shape[:2]) / 1000)
    for t in tiles:
        q = np.round(t.corners).astype(np.int32)
        colour = (0, 200, 0) if t.face_up else (230, 120, 0)
        if t.confidence < 0.6:
            colour = (0, 0, 230)
        cv2.polylines(out, [q], True, colour, max(1, int(scale)), cv2.LINE_AA)
        cv2.line(out, tuple(q[0]), tuple(q[1]), (0, 220, 255), max(2, int(2 * scale)), cv2.LINE_AA)
        c = q.mean(0).astype(int)
        cv2.putText(out, t.code, (int(c[0]) - 8, int(c[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale,
                    (0, 0, 0), max(2, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, t.code, (int(c[0]) - 8, int(c[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale,
                    (255, 255, 255), max(1, int(scale)), cv2.LINE_AA)
    return out


_DEFAULT: TileRecognizer | None = None


def default_recognizer() -> TileRecognizer:
    """Process-wide recogniser (sessions created on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TileRecognizer()
    return _DEFAULT
