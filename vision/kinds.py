"""What the models are and read: the model files and the classifier's kinds (no dependencies: every part of
vision/ may import it)."""

from __future__ import annotations

import os
from pathlib import Path

MODELS_DIR = Path(os.environ.get("MAHJONG_MODELS", Path(__file__).resolve().parents[1] / "models"))
DETECTOR_PATH = MODELS_DIR / "detector.onnx"
CLASSIFIER_PATH = MODELS_DIR / "classifier.onnx"

#: classifier classes: the 55 codes of datasets.codes.TILE_CODES (canonical order) + "none" (not a tile)
KINDS: tuple[str, ...] = (
    "1m", "2m", "3m", "4m", "0m", "5m", "6m", "7m", "8m", "9m",
    "1p", "2p", "3p", "4p", "0p", "5p", "6p", "7p", "8p", "9p",
    "1s", "2s", "3s", "4s", "0s", "5s", "6s", "7s", "8s", "9s",
    "1z", "2z", "3z", "4z", "5z", "6z", "7z",
    "1f", "2f", "3f", "4f", "1g", "2g", "3g", "4g", "1a", "2a", "3a", "4a", "1h", "2h", "3h", "4h",
    "jk", "bk", "none",
)
NONE_INDEX = KINDS.index("none")
BACK_INDEX = KINDS.index("bk")

__all__ = ["BACK_INDEX", "CLASSIFIER_PATH", "DETECTOR_PATH", "KINDS", "MODELS_DIR", "NONE_INDEX"]
