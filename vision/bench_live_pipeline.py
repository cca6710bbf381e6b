"""Frames/s and per-stage times of the live pipeline (vision.live.LiveAnalyzer) against the raw recogniser.

    python -m vision.bench_live_pipeline [--frames 30] [--scenes 2] [--width 1280 --height 720]

A sequence of rendered generated tables (datasets.table_scene), each held for frames/scenes frames with
fresh sensor noise per frame (a still camera on a still table), then the next table. The same run times
``TileRecognizer.recognize`` on every frame (the baseline) and ``LiveAnalyzer.process`` (detect every frame,
classify only what the tracker asks for, rebuild the table).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def make_frames(n: int, scenes: int, width: int, height: int, variant: str, seed: int = 3) -> list[np.ndarray]:
    from datasets.table_scene import generate_table_scene

    rng = np.random.default_rng(seed)
    bases = [generate_table_scene(variant, seed + k, width=width, height=height, render=True).image
             for k in range(scenes)]
    out = []
    for i in range(n):
        base = bases[min(i * scenes // n, scenes - 1)]
        noise = rng.normal(0, 2.0, base.shape)
        out.append(np.clip(base + noise, 0, 255).astype(np.uint8))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--scenes", type=int, default=2)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--variant", default="sanma")
    args = ap.parse_args(argv)

    from .inference import TileRecognizer
    from .live import LiveAnalyzer

    frames = make_frames(args.frames, args.scenes, args.width, args.height, args.variant)
    rec = TileRecognizer()
    rec.recognize(frames[0])  # warm up the sessions for both runs

    t0 = time.perf_counter()
    raw = [rec.recognize(f).timing_ms for f in frames]
    raw_s = time.perf_counter() - t0

    la = LiveAnalyzer(args.variant, camera_id="bench", recognizer=rec, calibration_dir="/nonexistent-bench")
    t0 = time.perf_counter()
    live = [la.process(f, {})["timing"] for f in frames]
    live_s = time.perf_counter() - t0

    def med(rows, key):
        return statistics.median(r[key] for r in rows)

    n = len(frames)
    print(f"{n} frames {args.width}x{args.height}, {args.scenes} table(s), variant {args.variant}")
    print(f"raw recogniser : {n / raw_s:6.2f} frames/s   detect {med(raw, 'detect'):7.1f} ms  "
          f"classify {med(raw, 'classify'):7.1f} ms  total {med(raw, 'total'):7.1f} ms (medians)")
    print(f"live pipeline  : {n / live_s:6.2f} frames/s   detect {med(live, 'detect_ms'):7.1f} ms  "
          f"classify {med(live, 'classify_ms'):7.1f} ms  reconstruct {med(live, 'reconstruct_ms'):6.1f} ms  "
          f"total {med(live, 'total_ms'):7.1f} ms (medians)")
    print(f"crops classified: live {la.counts['classified']} of {la.counts['detections']} detections "
          f"({100 * la.counts['classified'] / max(1, la.counts['detections']):.0f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
