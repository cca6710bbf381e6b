"""The demo hand as a film that the recognition models read (made by ``python -m webui.demo.make_film``, about
a minute; ``python -m webui.demo.film --check`` reads it with the models).

The scripted demo (:mod:`webui.demo.script`) shows the page with a scripted "detector"; this film shows the
same hand as a camera would: the engine plays :data:`SCRIPT`, :func:`datasets.hand_video.generate_hand_video`
films it (procedural faces only: no artwork of ``shared/art`` ends up in the repository) from straight above,
and ``serve --source demo-film`` reads every frame with the shipped models through
:class:`vision.live.LiveAnalyzer`, as it reads a camera. It writes

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

#: the hand (sanma; East, the dealer, is the camera player): the story of :mod:`webui.demo.script`
SCRIPT: list[dict[str, Any]] = [
    {"type": "deal", "variant": "sanma", "hands": ["1m2p3p4p5p6p7p9p9p4s5s7s8s", "1p1p8p9m1s2s3s6s2z3z4z5z5z",
                                                   "9m9m4p6p8p1s1s5s7s6s2z3z5z"],
     "dora_indicators": "3s", "live_wall": 55},
    {"type": "draw", "seat": 0, "tile": "7z"}, {"type": "discard", "seat": 0, "tile": "1m"},
    {"type": "draw", "seat": 1, "tile": "2p"}, {"type": "discard", "seat": 1, "tile": "6s"},
    {"type": "draw", "seat": 2, "tile": "3p"}, {"type": "discard", "seat": 2, "tile": "5z"},
    {"type": "pong", "seat": 1}, {"type": "discard", "seat": 1, "tile": "9m"}, {"type": "pass", "seat": 2},
    {"type": "draw", "seat": 2, "tile": "7p"}, {"type": "discard", "seat": 2, "tile": "2z"},
    {"type": "draw", "seat": 0, "tile": "9s"}, {"type": "discard", "seat": 0, "tile": "7z", "riichi": True},
    {"type": "draw", "seat": 1, "tile": "8s"}, {"type": "discard", "seat": 1, "tile": "1p"},
    {"type": "draw", "seat": 2, "tile": "2p"}, {"type": "discard", "seat": 2, "tile": "4p"},
    {"type": "draw", "seat": 0, "tile": "1z"}, {"type": "discard", "seat": 0, "tile": "1z"},
    {"type": "draw", "seat": 1, "tile": "4p"}, {"type": "discard", "seat": 1, "tile": "4z"},
    {"type": "draw", "seat": 2, "tile": "1z"}, {"type": "discard", "seat": 2, "tile": "6s"},
    {"type": "ron", "seats": [0]},
]

VIEW, FRAMING, LOOK = "top", "tiles", 3
RENDER_SIZE = (1920, 1080)     # rendered, then cropped to the tiles
QUALITY = 80


def script_events() -> list:
    from assistant.play.events import Event

    return [Event.from_json(e) for e in SCRIPT]


def calibration_of(doc: dict[str, Any]):
    """The film's calibration (a known camera: intrinsics and pose in the cropped frame)."""
    from vision.calibration import from_camera

    cam = doc["camera"]
    return from_camera(np.array(cam["K"]), np.array(cam["R"]), np.array(cam["t"]), tuple(doc["size"]),
                       camera_id="demo-film")


def describe(event: dict[str, Any]) -> str:
    """What happens, in words (East, South, West: the dealer first)."""
    who = ("East", "South", "West")
    t = event["type"]
    if t == "deal":
        return "Deal: East (the camera player) holds 13 tiles"
    if t == "ron":
        return f"{who[event['seats'][0]]} wins by ron"
    seat = who[event["seat"]]
    if t == "discard":
        return f"{seat} {'declares riichi with' if event.get('riichi') else 'discards'} {event['tile']}"
    if t == "draw":
        return f"{seat} draws" + (f" {event['tile']}" if event["seat"] == 0 else "")
    return f"{seat} {t}s"


def load(path: str | Path | None = None) -> tuple[dict[str, Any], list[bytes]]:
    """(film.json, the frames' JPEG bytes). Raises FileNotFoundError with the command that makes them."""
    folder = Path(path) if path else HERE
    doc_path = folder / "film.json"
    if not doc_path.is_file():
        raise FileNotFoundError(f"{doc_path} not found: make the demo film with `python -m webui.demo.make_film`")
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
                                "python -m webui.demo.make_film).")
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
