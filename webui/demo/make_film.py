"""Render the demo film (build time: it draws the hand with :mod:`datasets`): ``python -m webui.demo.make_film``
[--out DIR] [--look N] [--quality Q]; the page and :mod:`webui.demo.film` only read the files it writes."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from .film import FORMAT, FRAMING, HERE, LOOK, QUALITY, RENDER_SIZE, SCRIPT, VIEW, describe, script_events


def film(size: tuple[int, int] = RENDER_SIZE, look: int = LOOK, view: str = VIEW, framing: str = FRAMING):
    """The filmed hand (:class:`datasets.hand_video.HandVideo`)."""
    from datasets.hand_video import generate_hand_video

    return generate_hand_video("sanma", 0, events=script_events(), view=view, framing=framing, look_seed=look,
                               width=size[0], height=size[1])


def _crop_box(video, margin: float = 0.06) -> tuple[int, int, int, int]:
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
        image = video.render(f)[y0:y1, x0:x1]
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
    p = argparse.ArgumentParser(prog="python -m webui.demo.make_film", description="Render the demo film.")
    p.add_argument("--out", default=str(HERE), help="folder to write (default: the package's demo film)")
    p.add_argument("--look", type=int, default=LOOK, help="seed of the tile set, cloth and light")
    p.add_argument("--quality", type=int, default=QUALITY, help="JPEG quality")
    a = p.parse_args(argv)
    make(Path(a.out), look=a.look, quality=a.quality)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
