"""How the detector's thresholds trade real tiles for false boxes: ``python -m evaluation.threshold``.

For each ``--weak-confidence`` (and ``--det-threshold``) it reads real-scenes *valid* (never test) and
``--frames`` textured 1280x720 frames with no tile (seed 777: not the frames eval-models scores) and prints the
class-agnostic recall and precision of the boxes (IoU 0.5 with the labels) and the false boxes per empty frame,
each beside the first setting's figures, measured in the same run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from evaluation.recognition import DEFAULT_DATA, read_real_scenes
from vision import geometry as G
from vision.inference import DET_THRESHOLD, TileRecognizer


def measure(rec: TileRecognizer, scenes, frames) -> dict[str, float]:
    matched = reported = labelled = 0
    for _, img, gt in scenes:
        tiles = rec.recognize(img).tiles
        pb = G.aabb(np.array([t.corners for t in tiles]).reshape(-1, 4, 2))
        matched += len(G.greedy_match(G.box_iou(pb, gt), 0.5))
        reported += len(tiles)
        labelled += len(gt)
    empty = sum(len(rec.recognize(f).tiles) for f in frames)
    return {"recall": matched / max(1, labelled), "precision": matched / max(1, reported),
            "empty": empty / max(1, len(frames))}


def main(argv: list[str] | None = None) -> int:
    import cv2

    from datasets.crop_synth import _camera, surface

    ap = argparse.ArgumentParser(prog="python -m evaluation.threshold", description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--weak-confidence", type=float, nargs="+", default=[0.0, 0.5, 0.7])
    ap.add_argument("--det-threshold", type=float, default=DET_THRESHOLD)
    ap.add_argument("--frames", type=int, default=20)
    args = ap.parse_args(argv)
    scenes = read_real_scenes(Path(args.data) / "real-scenes", "valid")
    frames = []
    for i in range(args.frames):
        rng = np.random.default_rng([777, i])
        frames.append(_camera(cv2.resize(surface(rng, 360, 640), (1280, 720), interpolation=cv2.INTER_LINEAR), rng))
    first = None
    print(f"real-scenes valid: {len(scenes)} photos; {len(frames)} empty frames; detector threshold "
          f"{args.det_threshold}")
    for c in args.weak_confidence:
        rec = TileRecognizer(threads=1, det_threshold=args.det_threshold, weak_confidence=c)
        m = measure(rec, scenes, frames)
        first = first or m
        print(f"weak confidence {c:.2f}: recall {m['recall']:.3f} (first {first['recall']:.3f})  precision "
              f"{m['precision']:.3f} ({first['precision']:.3f})  false boxes per empty frame {m['empty']:.1f} "
              f"({first['empty']:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
