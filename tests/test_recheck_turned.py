"""Unsure readings are checked a quarter turned (vision.inference.recheck_turned)."""

import numpy as np
import pytest

from vision.inference import CLASSIFIER_PATH, DETECTOR_PATH, KINDS, NONE_INDEX, recheck_turned

K = len(KINDS)
SEVEN_Z = KINDS.index("7z")


def _probs(rows):
    """Probabilities with ``p`` on kind ``k`` and the rest spread over every other tile kind."""
    out = np.zeros((len(rows), K))
    for i, (k, p) in enumerate(rows):
        others = [j for j in range(K) if j not in (k, NONE_INDEX)]
        out[i, others] = (1 - p) / len(others)
        out[i, k] = p
    return out


def test_a_sure_turned_reading_replaces_an_unsure_one():
    obb = np.array([[100.0, 100.0, 30.0, 40.0, 0.0], [200.0, 100.0, 30.0, 40.0, 0.0], [300.0, 100.0, 30.0, 40.0, 0.0]])
    probs = _probs([(SEVEN_Z, 0.1), (SEVEN_Z, 0.9), (NONE_INDEX, 0.8)])
    flip = np.array([0.2, 0.2, 0.2])
    seen = []

    def classify(crops):
        seen.append(len(crops))
        return _probs([(SEVEN_Z, 0.6)] * len(crops)), np.full(len(crops), 0.7)

    image = np.zeros((200, 400, 3), np.uint8)
    o2, p2, f2 = recheck_turned(image, obb, probs, flip, classify)
    assert seen == [1]                                        # only the unsure tile is read again
    assert o2[0].tolist() == [100.0, 100.0, 40.0, 30.0, 90.0]  # turned: width and height swapped
    assert p2[0, SEVEN_Z] == pytest.approx(0.6) and f2[0] == pytest.approx(0.7)
    assert o2[1:].tolist() == obb[1:].tolist() and (p2[1:] == probs[1:]).all()
    assert obb[0, 4] == 0.0                                   # the input is not changed


def test_an_unsure_not_a_tile_is_checked_turned_too():
    # a classifier that reads a quarter-turned face as no tile at all (0.13, the demo film's sideways riichi 7z
    # boxed upright) rather than as a tile unsurely: the turned box reads it (0.75)
    obb = np.array([[100.0, 100.0, 30.0, 40.0, 0.0], [200.0, 100.0, 30.0, 40.0, 0.0]])
    probs = np.full((2, K), 0.87 / (K - 1))
    probs[:, NONE_INDEX] = 0.13
    probs[1] = 0.0
    probs[1, NONE_INDEX] = 1.0                                # sure it is no tile: not read again
    seen = []

    def classify(crops):
        seen.append(len(crops))
        return _probs([(SEVEN_Z, 0.75)] * len(crops)), np.zeros(len(crops))

    o2, p2, _ = recheck_turned(np.zeros((200, 300, 3), np.uint8), obb, probs, np.zeros(2), classify)
    assert seen == [1] and p2[0].argmax() == SEVEN_Z and o2[0, 4] == 90.0 and (p2[1] == probs[1]).all()


def test_a_weak_box_read_unsurely_as_no_tile_is_made_sure():
    from vision.inference import drop_weak

    probs = np.full((2, K), 0.87 / (K - 1))
    probs[:, NONE_INDEX] = 0.13
    out = drop_weak(np.array([0.3, 0.8]), probs, 0.5)         # the weak box only: it is not checked turned then
    assert out[0, NONE_INDEX] == 1.0 and (out[1] == probs[1]).all()


def test_a_turned_reading_not_surer_changes_nothing():
    obb = np.array([[100.0, 100.0, 30.0, 40.0, 10.0]])
    probs = _probs([(SEVEN_Z, 0.2)])
    flip = np.zeros(1)

    def classify(crops):                                     # 0.35: not twice as sure, below 0.5
        return _probs([(SEVEN_Z, 0.35)]), np.zeros(1)

    o2, p2, _ = recheck_turned(np.zeros((200, 200, 3), np.uint8), obb, probs, flip, classify)
    assert o2 is obb and p2 is probs


@pytest.mark.skipif(not (DETECTOR_PATH.is_file() and CLASSIFIER_PATH.is_file()), reason="models not exported")
def test_the_riichi_tile_of_the_demo_film_reads_sideways():
    """East's riichi discard (7z, sideways) in the demo film: the detector boxes it upright, the turned check
    reads it as 7z lying a quarter turned."""
    import cv2

    from vision.inference import TileRecognizer
    from webui.demo.film import load

    doc, frames = load()
    step = next(i for i, s in enumerate(doc["steps"]) if s["event"] == "East declares riichi with 7z")
    image = cv2.imdecode(np.frombuffer(frames[step], np.uint8), cv2.IMREAD_COLOR)
    tiles = TileRecognizer().recognize(image, variant="sanma").tiles
    discards = [t for t in tiles if 600 < t.corners[:, 1].mean() < 720 and 120 < t.corners[:, 0].mean() < 260]
    assert sorted(t.code for t in discards) == ["1m", "7z"]
    seven = next(t for t in discards if t.code == "7z")
    one = next(t for t in discards if t.code == "1m")
    assert seven.rotation in (90, 270) and one.rotation == 0
