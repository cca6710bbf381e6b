"""``python -m evaluation.demo_film``: the demo film (``webui/demo/film/``) read with the models through the live
pipeline, as ``serve`` reads it, and the log followed compared with the film's (24 events from the deal to the
win). The run-time side that loads the film is :mod:`webui.demo.film`."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.logs import compare_logs
from webui.demo.film import ANALYSES_PER_FRAME, HERE, analyzer_options, calibration_of, load


def follow(path: str | Path | None = None, repeats: int = ANALYSES_PER_FRAME, recognizer: Any = None
           ) -> dict[str, Any]:
    """Read the film with the models as the page does (each frame ``repeats`` times through a
    :class:`vision.live.LiveAnalyzer`) and compare the inferred log with the film's: {"matched", "events",
    "first_difference", "problems", "seconds"}."""
    import cv2

    from assistant.play.events import Event
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
    p = argparse.ArgumentParser(prog="python -m evaluation.demo_film", description="Read the demo film with the "
                                "models and print how much of the hand's log is inferred (make it with "
                                "python -m datasets.assets.film).")
    p.add_argument("--out", default=str(HERE), help="the film's folder (default: the package's demo film)")
    a = p.parse_args(argv)
    r = follow(a.out)
    print(f"demo film read by the models: {r['matched']}/{r['events']} events of the camera player's log "
          f"inferred ({r['seconds']} s)")
    if r["first_difference"]:
        print(f"first difference: {r['first_difference']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
