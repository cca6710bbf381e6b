"""The "Your tiles" API tests' stand-ins: a recogniser that offers mean-colour features, a camera-like feed
holding it, and the web app on them (tile sets under the test's own folder)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from webui import create_app
from webui.feed import ScriptedDemoFeed


class StandInRecognizer:
    """What a camera feed's recogniser offers the teacher: features of crops and a tile set to read with."""

    def __init__(self):
        self.tileset = None

    def features(self, crops):
        m = np.asarray(crops, np.float64).reshape(len(crops), -1, 3).mean(1) / 255.0
        return np.tile(m, 64)

    def use_tileset(self, ts):
        self.tileset = ts


class CameraLikeFeed(ScriptedDemoFeed):
    def __init__(self):
        super().__init__(auto=False, fps=20)
        self.rec = StandInRecognizer()

    def recognizer(self):
        return self.rec


@contextmanager
def tileset_app(tmp_path, monkeypatch) -> Iterator:
    monkeypatch.setenv("MAHJONG_ASSISTANT_TILESETS", str(tmp_path / "sets"))
    app = create_app({"FEED": CameraLikeFeed(), "DATA_DIR": str(tmp_path), "MATCH_DB": str(tmp_path / "m.db"),
                      "TESTING": True})
    app.extensions["hub"].start()
    try:
        yield app
    finally:
        app.extensions["hub"].stop()
