"""Derive a classifier crop bank from another: fewer backs of the whole tables, more cloth as "not a tile".

A classifier fine-tuned on ``classifier_data --table-scenes`` banks learnt to read dark cloth beside dark-backed
tiles as a back (a false ``bk`` in a face-up hand stops the hand from being followed). This keeps the bank but
drops a share of the back crops from index ``--from-index`` on (where the table crops start) and adds "not a
tile" crops of cloth next to the tiles of other generated tables (tile-sized patches 1-3 tile heights from a
tile, on no tile: where a detector's false box lands).

    python -m models.rebalance_bank --bank /tmp/mj/cls-bank3.npz --from-index 38865 --drop-backs 0.6667 \\
        --cloth-tables 600 --cloth-seed 710000 --out /tmp/mj/cls-bank4.npz
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from datasets.codes import TILE_CODES
from vision.geometry import CROP_SIZE, quad_to_obb, warp_crops

from .classifier_data import NONE, table_frames


def cloth_patches(image: np.ndarray, labels: list[dict], rng: np.random.Generator, count: int = 6,
                  tries: int = 40) -> list[np.ndarray]:
    """Up to ``count`` tile-sized crops of the table next to the labelled tiles but on none of them."""
    obb = quad_to_obb(np.array([t["corners"] for t in labels]))
    s0 = float(np.median(obb[:, 3]))
    h, w = image.shape[:2]
    out: list[np.ndarray] = []
    for _ in range(tries):
        if len(out) >= count:
            break
        s = s0 * rng.uniform(0.7, 1.4)
        k = int(rng.integers(len(obb)))
        a = rng.uniform(0, 2 * math.pi)
        r = s * rng.uniform(1.0, 3.0)
        c = obb[k, :2] + r * np.array([math.cos(a), math.sin(a)])
        if not (0 <= c[0] < w and 0 <= c[1] < h):
            continue
        if np.linalg.norm(obb[:, :2] - c, axis=1).min() < 0.85 * s:
            continue
        o = np.array([c[0], c[1], s * 0.75, s, rng.uniform(0, 360)])
        out.append(warp_crops(image, o[None], CROP_SIZE)[0])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--from-index", type=int, default=0, help="only backs from this crop index on are dropped")
    ap.add_argument("--drop-backs", type=float, default=0.0, help="share of those backs dropped")
    ap.add_argument("--cloth-tables", type=int, default=0)
    ap.add_argument("--cloth-seed", type=int, default=710000)
    ap.add_argument("--per-table", type=int, default=6)
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args(argv)
    if not 0.0 <= args.drop_backs <= 1.0:
        ap.error(f"--drop-backs must be between 0 and 1, not {args.drop_backs}")
    t0 = time.time()
    with np.load(args.bank) as b:
        x, y, kinds = b["x"], b["y"], b["kinds"]
    rng = np.random.default_rng(args.seed)
    backs = np.nonzero((np.arange(len(y)) >= args.from_index) & (y == TILE_CODES.index("bk")))[0]
    drop = np.zeros(len(y), bool)
    drop[rng.choice(backs, int(len(backs) * args.drop_backs), replace=False)] = True
    cloth: list[np.ndarray] = []
    for i, (image, labels) in enumerate(table_frames(args.cloth_tables, args.cloth_seed)):
        cloth += cloth_patches(image, labels, rng, args.per_table)
        if (i + 1) % 50 == 0:
            print(f"cloth tables {i + 1}/{args.cloth_tables} ({time.time() - t0:.0f}s)", flush=True)
    parts_x, parts_y = [x[~drop]], [y[~drop]]
    if cloth:
        parts_x.append(np.stack(cloth))
        parts_y.append(np.full(len(cloth), NONE, y.dtype))
    np.savez(args.out, x=np.concatenate(parts_x), y=np.concatenate(parts_y), kinds=kinds)
    print(f"wrote {args.out}: dropped {drop.sum()} of {len(backs)} backs, added {len(cloth)} cloth crops "
          f"({time.time() - t0:.0f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
