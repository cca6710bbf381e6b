"""The demo hand as a film that the recognition models read: the run-time side, which only reads the files
(``python -m datasets.assets.film`` makes them, about a minute; ``python -m evaluation.demo_film`` reads them
with the models and compares the log followed with the film's).

The scripted demo (``webui/demo/demo.json``, made by ``python -m datasets.assets.demo``) shows the page with a
scripted "detector"; this film shows the same hand as a camera would, and ``serve --source demo-film`` reads
every frame with the shipped models through :class:`vision.live.LiveAnalyzer`, as it reads a camera:

* ``webui/demo/film/frame_NN.jpg`` — one frame per state the camera sees, cropped to the tiles;
* ``webui/demo/film/film.json`` — the rule system, seating, the camera (intrinsics and pose in the crop: the
  calibration), what happens at each frame and the camera player's log of the hand (what a perfect reading
  infers; ``tests`` and ``eval`` compare with it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent / "film"
FORMAT = "mahjong-assistant/demo-film"


def calibration_of(doc: dict[str, Any]):
    """The film's calibration (a known camera: intrinsics and pose in the cropped frame)."""
    from vision.calibration import from_camera

    cam = doc["camera"]
    return from_camera(np.array(cam["K"]), np.array(cam["R"]), np.array(cam["t"]), tuple(doc["size"]),
                       camera_id="demo-film")


def load(path: str | Path | None = None) -> tuple[dict[str, Any], list[bytes]]:
    """(film.json, the frames' JPEG bytes). Raises FileNotFoundError with the command that makes them."""
    folder = Path(path) if path else HERE
    doc_path = folder / "film.json"
    if not doc_path.is_file():
        raise FileNotFoundError(f"{doc_path} not found: make the demo film with `python -m datasets.assets.film`")
    doc = json.loads(doc_path.read_text())
    if doc.get("format") != FORMAT:
        raise ValueError(f"{doc_path} is not a demo film ({FORMAT})")
    return doc, [(folder / s["frame"]).read_bytes() for s in doc["steps"]]


ANALYSES_PER_FRAME = 4   # times each frame is read (the tracker believes a code after 3 agreeing frames)


def analyzer_options() -> dict[str, Any]:
    """How the live analyser reads the film (the page and ``evaluation.demo_film`` alike): full passes by frame
    count, not by the clock, so that what it reads does not depend on the machine's speed."""
    return {"full_pass_s": None, "full_pass_frames": 8}
