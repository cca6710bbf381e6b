"""Render the demo film (build time: it draws the hand with :mod:`datasets`): ``python -m datasets.assets.film``
[--out DIR] [--look N] [--quality Q]; the page and :mod:`webui.demo.film` only read the files it writes."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from assistant.play.events import Event
from datasets.art import ArtLibrary
from datasets.hand_video import HandVideo, generate_hand_video
from webui.demo.film import FORMAT, HERE

#: the hand (sanma; East, the dealer, is the camera player): the story of :mod:`datasets.assets.demo_script`
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


def script_events() -> list[Event]:
    """:data:`SCRIPT` as engine events."""
    return [Event.from_json(e) for e in SCRIPT]


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


def film(size: tuple[int, int] = RENDER_SIZE, look: int = LOOK, view: str = VIEW, framing: str = FRAMING
         ) -> HandVideo:
    """The filmed hand."""
    return generate_hand_video("sanma", 0, events=script_events(), view=view, framing=framing, look_seed=look,
                               width=size[0], height=size[1])


def no_artwork() -> ArtLibrary:
    """An art library without artwork: the film shows the project's own procedural faces only (no artwork of
    ``shared/art`` ends up in the repository), and the same film is built from whichever folder the command
    runs in (the default library looks for ``../shared/art`` from there)."""
    return ArtLibrary(root=os.devnull)


def _crop_box(video: HandVideo, margin: float = 0.06) -> tuple[int, int, int, int]:
    """The part of the frame every tile of the film lies in, with a margin, on a 16-pixel grid."""
    pts = np.concatenate([np.array(lab["corners"]) for f in video.frames for lab in f.labels])
    w, h = video.camera_model.width, video.camera_model.height
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    mx, my = margin * (x1 - x0), margin * (y1 - y0)
    x0, y0 = max(0, int(x0 - mx)) // 16 * 16, max(0, int(y0 - my)) // 16 * 16
    x1, y1 = min(w, -(-int(x1 + mx) // 16) * 16), min(h, -(-int(y1 + my) // 16) * 16)
    return x0, y0, x1, y1


def make(out: Path = HERE, size: tuple[int, int] = RENDER_SIZE, look: int = LOOK, quality: int = QUALITY,
         quiet: bool = False) -> dict[str, Any]:
    import cv2

    t0 = time.time()
    video = film(size, look)
    art = no_artwork()
    x0, y0, x1, y1 = _crop_box(video)
    cam = video.camera_model
    K = np.array(cam.K, np.float64).copy()
    K[0, 2] -= x0
    K[1, 2] -= y0
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("frame_*.jpg"):
        old.unlink()
    steps = []
    for f in video.frames:
        image = video.render(f, art)[y0:y1, x0:x1]
        name = f"frame_{f.index:02d}.jpg"
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise RuntimeError(f"could not encode {name}")
        (out / name).write_bytes(buf.tobytes())
        event = SCRIPT[f.event_index]
        steps.append({"frame": name, "event_index": f.event_index, "event": describe(event)})
        if not quiet:
            print(f"\r  frame {f.index + 1}/{len(video.frames)}", end="", flush=True)
    doc = {"format": FORMAT, "version": 1, "variant": video.variant, "size": [x1 - x0, y1 - y0],
           "positions": list(video.positions), "dealer": video.dealer, "camera_position": video.camera,
           "camera": {"K": K.tolist(), "R": np.asarray(cam.R).tolist(), "t": np.asarray(cam.t).tolist()},
           "render": {"size": list(size), "crop": [x0, y0, x1, y1], "view": VIEW, "framing": FRAMING, "look": look,
                      "quality": quality},
           "steps": steps, "log": [e.to_json() for e in video.camera_log()]}
    (out / "film.json").write_text(json.dumps(doc, indent=1))
    if not quiet:
        total = sum(p.stat().st_size for p in out.glob("frame_*.jpg"))
        print(f"\r  {len(steps)} frames, {x1 - x0}x{y1 - y0}, {total / 1e6:.1f} MB, written to {out} "
              f"in {time.time() - t0:.0f} s")
    return doc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.assets.film", description="Render the demo film.")
    p.add_argument("--out", default=str(HERE), help="folder to write (default: the package's demo film)")
    p.add_argument("--look", type=int, default=LOOK, help="seed of the tile set, cloth and light")
    p.add_argument("--quality", type=int, default=QUALITY, help="JPEG quality")
    a = p.parse_args(argv)
    make(Path(a.out), look=a.look, quality=a.quality)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
