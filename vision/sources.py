"""Frame sources: a camera by index, a video file, an image file or folder, a network stream URL.

One capture thread per source keeps only the newest frame (older frames are dropped, never queued), so
whoever reads always gets what the camera sees now. A source that fails (camera unplugged, stream
dropped) is reopened with exponential backoff; its :class:`SourceStatus` says what is going on, and
nothing raises into the reader.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
VIDEO_EXTENSIONS = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mjpeg", ".mjpg")


@dataclass
class Frame:
    image: np.ndarray  # H x W x 3, BGR uint8
    index: int  # frame counter of this source
    timestamp: float  # time.monotonic() when captured


@dataclass
class SourceStatus:
    """What a source is doing: ``state`` is one of starting, live, reconnecting, ended, error."""

    name: str
    state: str = "starting"
    message: str = ""
    frames: int = 0
    fps: float = 0.0
    reconnects: int = 0
    last_frame_at: float | None = None
    history: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "name": self.name, "state": self.state, "message": self.message, "frames": self.frames,
            "fps": round(self.fps, 1), "reconnects": self.reconnects,
        }


class FrameSource:
    """Base class: a thread reads frames with ``_read()`` and keeps the newest one."""

    #: stop after the last frame instead of reopening (files); live sources reopen
    finite = False

    def __init__(self, name: str, *, backoff_start: float = 0.5, backoff_max: float = 10.0,
                 loop: bool = False, pace_fps: float | None = None) -> None:
        self.name = name
        self.loop = loop
        self.pace_fps = pace_fps
        self._status = SourceStatus(name)
        self._lock = threading.Lock()
        self._new = threading.Condition(self._lock)
        self._latest: Frame | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._backoff_start = backoff_start
        self._backoff_max = backoff_max

    # --- subclass interface ---------------------------------------------------------------
    def _open(self) -> None:
        """Open the device/file; raise OSError with a clear message on failure."""

    def _read(self) -> np.ndarray | None:
        """Next frame, or None at the end of a finite source / on a read failure."""
        raise NotImplementedError

    def _close(self) -> None:
        """Release the device/file."""

    # --- public API -------------------------------------------------------------------------
    def start(self) -> FrameSource:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"capture:{self.name}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def latest(self) -> Frame | None:
        """The newest frame (or None before the first one)."""
        with self._lock:
            return self._latest

    def wait_frame(self, after: int = -1, timeout: float = 1.0) -> Frame | None:
        """Block until a frame newer than index ``after`` exists (or timeout); return the newest."""
        deadline = time.monotonic() + timeout
        with self._new:
            while self._latest is None or self._latest.index <= after:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._stop.is_set():
                    return self._latest if self._latest is not None and self._latest.index > after else None
                self._new.wait(remaining)
            return self._latest

    def status(self) -> SourceStatus:
        with self._lock:
            return SourceStatus(**{**self._status.__dict__, "history": list(self._status.history)})

    # --- capture loop ---------------------------------------------------------------------------
    def _set(self, state: str, message: str = "") -> None:
        with self._lock:
            self._status.state = state
            self._status.message = message
            self._status.history.append(f"{state}: {message}" if message else state)
            del self._status.history[:-20]

    def _run(self) -> None:
        backoff = self._backoff_start
        index = 0
        window: list[float] = []
        while not self._stop.is_set():
            try:
                self._open()
            except OSError as e:
                if self.finite:
                    self._set("error", str(e))
                    return
                self._set("reconnecting", f"{e}; retrying in {backoff:.1f} s")
                with self._lock:
                    self._status.reconnects += 1
                if self._stop.wait(backoff):
                    break
                backoff = min(backoff * 2, self._backoff_max)
                continue
            self._set("live")
            got_any = False
            while not self._stop.is_set():
                t_read = time.monotonic()
                try:
                    image = self._read()
                except Exception as e:  # a decoder error must not kill the thread
                    image = None
                    self._set("reconnecting", f"read failed: {e}")
                if image is None:
                    break
                got_any = True
                backoff = self._backoff_start
                now = time.monotonic()
                window.append(now)
                window = [t for t in window if now - t <= 2.0]
                frame = Frame(image, index, now)
                index += 1
                with self._new:
                    self._latest = frame
                    self._status.frames = index
                    self._status.last_frame_at = now
                    self._status.fps = (len(window) - 1) / (window[-1] - window[0]) if len(window) > 1 else 0.0
                    self._new.notify_all()
                if self.pace_fps:
                    self._stop.wait(max(0.0, 1.0 / self.pace_fps - (time.monotonic() - t_read)))
            self._close()
            if self._stop.is_set():
                break
            if self.finite and not self.loop:
                self._set("ended", "end of input")
                return
            if self.finite and self.loop and got_any:
                continue
            self._set("reconnecting", f"no frames; retrying in {backoff:.1f} s")
            with self._lock:
                self._status.reconnects += 1
            if self._stop.wait(backoff):
                break
            backoff = min(backoff * 2, self._backoff_max)
        self._set("stopped")


class CaptureSource(FrameSource):
    """A camera index, a video file or a stream URL, through OpenCV's VideoCapture."""

    def __init__(self, target: int | str, **kw) -> None:
        super().__init__(str(target), **kw)
        self.target = target
        self.finite = isinstance(target, str) and not _is_url(target)
        self._cap: Any = None   # the cv2.VideoCapture while open

    def _open(self) -> None:
        import cv2

        if self.finite and not os.path.exists(str(self.target)):
            raise OSError(f"video file not found: {self.target}")
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            what = "camera" if isinstance(self.target, int) else ("stream" if not self.finite else "video")
            raise OSError(f"cannot open {what} {self.target}")
        try:
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # keep the driver's queue short where supported
        except Exception:
            pass
        self._cap = cap

    def _read(self) -> np.ndarray | None:
        ok, image = self._cap.read()
        return image if ok and image is not None and image.size else None

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class ImageSource(FrameSource):
    """One image file or a folder of images, played in name order (looped for a demo)."""

    finite = True

    def __init__(self, path: str, fps: float = 5.0, loop: bool = False) -> None:
        super().__init__(path, loop=loop, pace_fps=fps)
        self.path = path
        self._files: list[str] = []
        self._i = 0

    def _open(self) -> None:
        p = Path(self.path)
        if p.is_dir():
            files = sorted(str(f) for f in p.iterdir() if f.suffix.lower() in IMAGE_EXTENSIONS)
        elif p.is_file():
            files = [str(p)]
        else:
            files = sorted(f for f in glob.glob(self.path) if f.lower().endswith(IMAGE_EXTENSIONS))
        if not files:
            raise OSError(f"no images at {self.path}")
        self._files = files
        self._i = 0

    def _read(self) -> np.ndarray | None:
        import cv2

        while self._i < len(self._files):
            f = self._files[self._i]
            self._i += 1
            image = cv2.imread(f, cv2.IMREAD_COLOR)
            if image is not None:
                return image
            self._set("live", f"skipped unreadable image {f}")
        return None


class ArraySource(FrameSource):
    """Frames from a Python callable or list (tests, generated demos)."""

    finite = True

    def __init__(self, frames: list[np.ndarray] | Callable[[int], np.ndarray | None], name: str = "frames",
                 fps: float | None = None, loop: bool = False) -> None:
        super().__init__(name, loop=loop, pace_fps=fps)
        self._frames = frames
        self._i = 0

    def _open(self) -> None:
        self._i = 0

    def _read(self) -> np.ndarray | None:
        if callable(self._frames):
            image = self._frames(self._i)
        else:
            image = self._frames[self._i] if self._i < len(self._frames) else None
        self._i += 1
        return image


def _is_url(text: str) -> bool:
    return "://" in text


def open_source(spec: str | int, *, loop: bool = False, fps: float = 5.0) -> FrameSource:
    """A source from a user's ``--source``: a camera index (``0``), a URL, a video, an image or a folder.

    The source is started; read its :meth:`~FrameSource.status` for errors (it never raises for a bad
    device or path).
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return CaptureSource(int(spec)).start()
    spec = str(spec)
    if _is_url(spec):
        return CaptureSource(spec).start()
    lower = spec.lower()
    if os.path.isdir(spec) or lower.endswith(IMAGE_EXTENSIONS) or any(c in spec for c in "*?["):
        return ImageSource(spec, fps=fps, loop=loop).start()
    return CaptureSource(spec, loop=loop).start()


def list_cameras(max_index: int = 8) -> list[dict]:
    """Cameras that open, with their frame size (probes indices 0..max_index-1)."""
    import cv2

    found: list[dict] = []
    devices = sorted(glob.glob("/dev/video*"))
    if os.name == "posix" and os.path.isdir("/dev") and not devices and os.uname().sysname == "Linux":
        return found  # Linux exposes every camera as /dev/videoN: none attached
    for i in range(max_index):
        if devices and f"/dev/video{i}" not in devices:
            continue
        cap = cv2.VideoCapture(i)
        try:
            if cap.isOpened():
                ok, frame = cap.read()
                found.append({
                    "index": i,
                    "device": f"/dev/video{i}" if devices else None,
                    "width": int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
                    "height": int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
                    "reads": bool(ok),
                })
        finally:
            cap.release()
    return found
