"""The demo hand as a film that the recognition models read: the run-time side, which only reads the files
(``python -m datasets.assets.film`` makes them, about a minute; ``python -m webui.demo.film --check`` reads them
with the models).

The scripted demo (``webui/demo/demo.json``, made by ``python -m datasets.assets.demo``) shows the page with a
scripted "detector"; this film shows the same hand as a camera would, and ``serve --source demo-film`` reads
every frame with the shipped models through :class:`vision.live.LiveAnalyzer`, as it reads a camera:

* ``webui/demo/film/frame_NN.jpg`` — one frame per state the camera sees, cropped to the tiles;
* ``webui/demo/film/film.json`` — the rule system, seating, the camera (intrinsics and pose in the crop: the
  calibration), what happens at each frame and the camera player's log of the hand (what a perfect reading
  infers; ``tests`` and ``eval`` compare with it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
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
    """How the live analyser reads the film (the page and :func:`follow` alike): full passes by frame count,
    not by the clock, so that what it reads does not depend on the machine's speed."""
    return {"full_pass_s": None, "full_pass_frames": 8}


def follow(path: str | Path | None = None, repeats: int = ANALYSES_PER_FRAME, recognizer: Any = None
           ) -> dict[str, Any]:
    """Read the film with the models as the page does (each frame ``repeats`` times through a
    :class:`vision.live.LiveAnalyzer`) and compare the inferred log with the film's: {"matched", "events",
    "first_difference", "problems", "seconds"}."""
    import cv2

    from assistant.play.events import Event
    from vision.follow import compare_logs
    from vision.live import LiveAnalyzer

    t0 = time.time()
    doc, frames = load(path)
    la = LiveAnalyzer(doc["variant"], camera_id="demo-film", recognizer=recognizer, calibration=calibration_of(doc),
                      positions=doc["positions"], dealer=doc["dealer"], **analyzer_options())
    for k, data in enumerate(frames):
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        for _ in range(repeats):
            la.process(image)
        print(f"\r  frame {k + 1}/{len(frames)}", end="", flush=True, file=sys.stderr)
    print("", file=sys.stderr)
    game = la._game
    got = game.inferrer.events if game is not None else []
    want = [Event.from_json(e) for e in doc["log"]]
    matched, first = compare_logs(got, want)
    problems = [p.message for p in game.inferrer.problems] if game is not None else []
    return {"matched": matched, "events": len(want), "first_difference": first, "problems": problems,
            "seconds": round(time.time() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m webui.demo.film", description="Read the demo film with the "
                                "models and print how much of the hand's log is inferred (make it with "
                                "python -m datasets.assets.film).")
    p.add_argument("--out", default=str(HERE), help="the film's folder (default: the package's demo film)")
    p.add_argument("--check", action="store_true", help="(the default) read the film and compare the logs")
    a = p.parse_args(argv)
    r = follow(a.out)
    print(f"demo film read by the models: {r['matched']}/{r['events']} events of the camera player's log "
          f"inferred ({r['seconds']} s)")
    if r["first_difference"]:
        print(f"first difference: {r['first_difference']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
