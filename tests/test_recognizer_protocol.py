"""The live pipeline reads frames through the Recognizer protocol; its optional parts are read in one place."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vision.boxes import TileBoxes
from vision.inference import Recognizer, RecognizerFeatures


class Bare:
    scales = (640,)

    def detect_boxes(self, image, **kw):
        return TileBoxes.empty()

    def classify(self, crops):
        return np.zeros((len(crops), 56)), np.zeros(len(crops))


class Full(Bare):
    weak_confidence = 0.5
    fill_rows = True

    def __init__(self):
        self.lock = threading.Lock()

    def read_boxes(self, image, obb):
        return self.classify(obb)

    def read_mask(self, variant=None):
        return None


def test_a_bare_recogniser_has_no_optional_parts():
    f = RecognizerFeatures.of(Bare())
    assert isinstance(Bare(), Recognizer)
    assert (f.read_boxes, f.read_mask, f.scales_for, f.weak_confidence, f.fill_rows) == (None, None, None, 0.0, False)
    assert hasattr(f.lock, "acquire")        # a lock of its own


def test_the_optional_parts_are_found():
    rec = Full()
    f = RecognizerFeatures.of(rec)
    assert f.lock is rec.lock and f.read_boxes == rec.read_boxes and f.read_mask == rec.read_mask
    assert (f.weak_confidence, f.fill_rows) == (0.5, True)


def test_what_is_no_recogniser_is_refused():
    with pytest.raises(TypeError, match="object is not a tile recogniser"):
        RecognizerFeatures.of(object())
