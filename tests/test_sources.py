import time

import cv2
import numpy as np

from vision.sources import ArraySource, CaptureSource, FrameSource, ImageSource, open_source


def wait_state(src, states, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = src.status()
        if st.state in states:
            return st
        time.sleep(0.02)
    return src.status()


def test_missing_video_file_gives_an_error_status_not_an_exception(tmp_path):
    src = open_source(str(tmp_path / "missing.mp4"))
    st = wait_state(src, {"error"})
    src.stop()
    assert st.state == "error" and "not found" in st.message


def test_unreadable_stream_reconnects_with_backoff():
    src = CaptureSource("rtsp://127.0.0.1:9/none", backoff_start=0.05, backoff_max=0.1).start()
    deadline = time.monotonic() + 10
    while src.status().reconnects < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    st = src.status()
    src.stop()
    assert st.reconnects >= 2 and st.state in ("reconnecting", "stopped")
    assert src.latest() is None


def test_image_folder_plays_in_order_and_skips_bad_files(tmp_path):
    for i in range(3):
        img = np.full((20, 30, 3), i * 60, np.uint8)
        cv2.imwrite(str(tmp_path / f"f{i}.png"), img)
    (tmp_path / "f1b.png").write_bytes(b"not an image")
    src = ImageSource(str(tmp_path), fps=200).start()
    seen = []
    last = -1
    while True:
        f = src.wait_frame(last, timeout=2)
        if f is None:
            break
        seen.append(int(f.image[0, 0, 0]))
        last = f.index
    st = wait_state(src, {"ended"})
    assert seen[-1] == 120 and st.state == "ended" and st.frames == 3


class FlakyCamera(FrameSource):
    """Opens, gives 3 frames, drops, fails to open twice, then works again."""

    def __init__(self):
        super().__init__("flaky", backoff_start=0.01, backoff_max=0.02)
        self.opens = 0
        self.n = 0

    def _open(self):
        self.opens += 1
        if self.opens in (2, 3):
            raise OSError("camera unplugged")
        self.n = 0

    def _read(self):
        self.n += 1
        if self.opens == 1 and self.n > 3:
            return None  # the camera drops
        return np.full((4, 4, 3), self.n, np.uint8)


def test_camera_that_drops_is_reopened_and_status_reports_it():
    cam = FlakyCamera().start()
    deadline = time.monotonic() + 5
    while cam.opens < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    f = cam.wait_frame(3, timeout=2)
    st = cam.status()
    cam.stop()
    assert f is not None and st.reconnects >= 2
    assert any("camera unplugged" in h for h in st.history)


def test_reader_gets_the_newest_frame_not_a_queue():
    frames = [np.full((2, 2, 3), i % 256, np.uint8) for i in range(500)]
    src = ArraySource(frames).start()
    wait_state(src, {"ended"})
    f = src.latest()
    assert f.index == 499  # everything older was dropped, not queued
