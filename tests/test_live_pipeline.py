"""LiveAnalyzer (vision/live.py) on rendered generated table frames, and the photo endpoint with the models."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from vision import inference  # noqa: E402

if not (inference.DETECTOR_PATH.is_file() and inference.CLASSIFIER_PATH.is_file()):
    pytest.skip("recognition models not installed", allow_module_level=True)


class CountingRecognizer:
    """Wraps a TileRecognizer and counts the crops it classifies and the detector calls (with their regions)."""

    def __init__(self, rec):
        self.rec = rec
        self.lock = rec.lock
        self.scales = rec.scales
        self.nms_iou = rec.nms_iou
        self.classified = 0
        self.detect_calls = 0
        self.regions: list = []   # per detector call: None (whole frame) or the regions

    def detect_boxes(self, image, **kw):
        self.detect_calls += 1
        self.regions.append(kw.get("regions"))
        return self.rec.detect_boxes(image, **kw)

    def classify(self, crops):
        self.classified += len(crops)
        return self.rec.classify(crops)


@pytest.fixture(scope="module")
def recognizer():
    return inference.default_recognizer()


@pytest.fixture(scope="module")
def frame():
    from datasets.table_scene import generate_table_scene

    return generate_table_scene("sanma", 3, width=960, height=540, render=True).image


def _analyzer(recognizer, tmp_path):
    from vision.live import LiveAnalyzer

    return LiveAnalyzer("sanma", camera_id="test", recognizer=CountingRecognizer(recognizer),
                        calibration_dir=tmp_path)


def test_stable_ids_and_no_reclassification_on_a_still_frame(recognizer, frame, tmp_path):
    la = _analyzer(recognizer, tmp_path)
    results = [la(frame, {}) for _ in range(5)]
    first = results[0]
    assert len(first.tiles) >= 10
    for r in results[1:]:
        assert [t.id for t in r.tiles] == [t.id for t in first.tiles]
    assert first.timing["calibration"] == "tiles"
    for key in ("detect_ms", "classify_ms", "reconstruct_ms", "total_ms"):
        assert key in results[-1].timing
    # after the tracker's stability threshold every tile is settled: the classifier no longer runs
    before = la.recognizer.classified
    r = la(frame, {})
    assert la.recognizer.classified == before
    assert r.timing["classified"] == 0
    assert r.stable and r.observation is not None and r.state is None
    assert all(t.stable for t in r.tiles)
    assert any(t.place is not None for t in r.tiles)
    assert isinstance(r.problems, tuple) and isinstance(r.event, str)


def test_correction_persists(recognizer, frame, tmp_path):
    la = _analyzer(recognizer, tmp_path)
    for _ in range(4):
        r = la(frame, {})
    tile = r.tiles[0]
    new = "1p" if tile.code != "1p" else "2p"
    r = la(frame, {tile.id: new})
    fixed = next(t for t in r.tiles if t.id == tile.id)
    assert fixed.code == new and fixed.corrected
    r = la(frame, {})  # the feed forgot it: the tracker keeps it
    fixed = next(t for t in r.tiles if t.id == tile.id)
    assert fixed.code == new and fixed.corrected


def test_moved_tile_is_reclassified(recognizer, frame, tmp_path):
    la = _analyzer(recognizer, tmp_path)
    for _ in range(4):
        la(frame, {})
    shifted = np.roll(frame, 40, axis=1)  # every tile moves ~ a tile width: all need the classifier again
    before = la.recognizer.classified
    la(shifted, {})
    assert la.recognizer.classified > before


def test_background_mode_skips_frames(recognizer, frame, tmp_path):
    from vision.live import LiveAnalyzer

    counting = CountingRecognizer(recognizer)
    la = LiveAnalyzer("sanma", camera_id="test", recognizer=counting, calibration_dir=tmp_path, background=True)
    try:
        first = la(frame, {})
        assert first.tiles == ()          # returns at once, before any analysis
        for _ in range(10):                  # a burst of frames while the first is analysed: never queued
            la(frame, {})
        assert la.wait_idle(30)
        assert counting.detect_calls < 11
        assert la(frame, {}).tiles
    finally:
        la.close()


def test_describe_change():
    from vision.live import describe_change

    seat = {"position": 1, "hand": ["1p"] * 13, "melds": [], "discards": ["9p"], "bonus": [], "norths": []}
    before = {"seats": [seat], "dora_indicators": []}
    after = {"seats": [{**seat, "discards": ["9p", "5p"]}], "dora_indicators": []}
    assert describe_change(before, after) == "seat 1 discarded 5p"
    assert describe_change(None, after) == ""


def test_photo_endpoint_reads_tiles(frame, tmp_path):
    from webui.app import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"), "DEMO_STEP_SECONDS": 60})
    ok, buf = cv2.imencode(".jpg", frame)
    r = app.test_client().post("/api/photo", data=buf.tobytes(), content_type="image/jpeg")
    assert r.status_code == 200, r.get_json()
    snap = r.get_json()["snapshot"]
    assert len(snap["tiles"]) >= 10
    assert {"id", "code", "confidence", "corners", "face_up"} <= set(snap["tiles"][0])
    assert snap["overlay"].startswith("data:image/jpeg;base64,")
    assert "own_hand" in snap and "readable" in snap["own_hand"]


def test_photo_endpoint_without_models(tmp_path, monkeypatch):
    from webui.app import create_app

    def broken():
        raise FileNotFoundError("model file not found")

    monkeypatch.setattr(inference, "default_recognizer", broken)
    app = create_app({"DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"), "DEMO_STEP_SECONDS": 60})
    ok, buf = cv2.imencode(".png", np.full((64, 64, 3), 200, np.uint8))
    r = app.test_client().post("/api/photo", data=buf.tobytes(), content_type="image/png")
    assert r.status_code == 503
