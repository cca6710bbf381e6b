"""A crop bank of real tiles (``../shared/data/real-tiles``) cut the way the detector cuts them at run time.

For every labelled tile of a split:

* the **detector's own box** matched to the label (axis-aligned IoU >= ``--match-iou``), warped at full
  resolution exactly as ``TileRecognizer.read_boxes`` warps it (``vision.geometry.warp_crops``): its turn,
  misfit and margin are those of real detections;
* ``--jitter N`` boxes made from the label itself, turned (up to 15 degrees), shifted and scaled as misfitted
  detections are (so tiles the detector misses are learnt too);
* "not a tile": boxes astride two neighbouring labelled tiles of a row (what a detector's stray box between two
  tiles shows). Unlabelled regions are never taken as "not a tile": the labels are not exhaustive.

Which way up a crop lies: the photos are upright (never mirrored), so a box whose up axis is within 45 degrees of
the image's vertical is taken to stand upright (unless the shipped flip head is sure it does not: then the lie is
left unknown); a sideways box takes the shipped flip head's word where it is sure (< 0.15 or > 0.85), else its lie
is unknown (``flip_known`` False: the flip head is not taught on it). Crops are stored upright where the lie is
known, as cut where not.

    python -m models.real_tiles_bank --split train --jitter 2 --out /tmp/mj/real-tiles-train.npz
    python -m models.real_tiles_bank --split valid --jitter 0 --no-none --out /tmp/mj/real-tiles-valid.npz

The bank has ``x`` [N, 96, 72, 3] uint8, ``y`` [N] (indices into ``kinds``), ``flip_known`` [N], ``source``
[N] (0 detector box, 1 jittered label box, 2 astride two tiles) and ``photo`` [N] (index into ``photos``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from datasets.real_tiles import DEFAULT_ROOT, photos
from vision import geometry as G
from vision.inference import KINDS, TileRecognizer

NONE = KINDS.index("none")
UPRIGHT_AXIS = 45.0     # degrees: a box whose up axis is this close to the image's vertical stands upright
SURE_FLIP = 0.85        # the shipped flip head's word is taken on a sideways box beyond this (or below 1 - it)
DOUBT_UPRIGHT = 0.9     # ... and an upright-looking box is left unknown when the head says upside down beyond this


def lie_of(theta: np.ndarray, flip_prob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(upside_down [N], known [N]) of crops cut at ``theta`` (degrees in [0, 180), the box's up direction) given
    the shipped flip head's probability that each crop is upside down.

    >>> lie_of(np.array([5.0, 175.0, 90.0, 90.0, 10.0]), np.array([0.5, 0.5, 0.95, 0.5, 0.97]))
    (array([False,  True,  True, False, False]), array([ True,  True,  True, False, False]))
    """
    theta = np.asarray(theta, np.float64) % 180.0
    upright = theta < UPRIGHT_AXIS
    down = theta > 180.0 - UPRIGHT_AXIS
    sideways = ~(upright | down)
    flip = np.where(sideways, flip_prob > 0.5, down)
    known = np.where(sideways, (flip_prob > SURE_FLIP) | (flip_prob < 1 - SURE_FLIP),
                     np.where(upright, flip_prob <= DOUBT_UPRIGHT, flip_prob >= 1 - DOUBT_UPRIGHT))
    return flip.astype(bool), known.astype(bool)


CLEAR_AXIS = 1.15   # a label box this much wider than tall (or taller than wide) shows which way its tile lies


def wrong_axis(theta: float, box: np.ndarray) -> bool:
    """Whether a detector box at ``theta`` (degrees, its up direction modulo 180) lies across the axis its label
    box clearly shows: an upright box on a tile lying sideways (or the other way). Such a crop shows the face a
    quarter turned; it is not learnt as the tile, or the classifier would read a quarter-turned face as surely as
    an upright one and the path's quarter-turn check (``vision.inference.recheck_turned``) could never find
    that a sideways tile was boxed upright.

    >>> wrong_axis(5.0, np.array([0, 0, 40, 30])), wrong_axis(90.0, np.array([0, 0, 40, 30]))
    (True, False)
    >>> wrong_axis(175.0, np.array([0, 0, 30, 40])), wrong_axis(10.0, np.array([0, 0, 32, 34]))
    (False, False)
    """
    w, h = float(box[2] - box[0]), float(box[3] - box[1])
    t = float(theta) % 180.0
    upright = t < UPRIGHT_AXIS or t > 180.0 - UPRIGHT_AXIS
    return (upright and w >= CLEAR_AXIS * h) or (not upright and h >= CLEAR_AXIS * w)


def label_obbs(boxes: np.ndarray) -> np.ndarray:
    """Oriented boxes [N, 5] standing on axis-aligned label boxes: upright when taller than wide, else sideways
    (theta 90: which way is learnt from the flip head or left unknown).

    >>> label_obbs(np.array([[0, 0, 10, 14], [0, 0, 14, 10]])).tolist()
    [[5.0, 7.0, 10.0, 14.0, 0.0], [7.0, 5.0, 10.0, 14.0, 90.0]]
    """
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    side = w > h * 1.1
    return np.stack([cx, cy, np.where(side, h, w), np.where(side, w, h), np.where(side, 90.0, 0.0)], 1)


def jitter_obbs(obb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The boxes turned (normal, sd 6 degrees, at most 15), shifted (up to 8 % of a side) and each side scaled
    0.88-1.12: what misfitted detections look like."""
    o = np.array(obb, np.float64).reshape(-1, 5)
    n = len(o)
    turn = np.clip(rng.normal(0, 6.0, n), -15, 15)
    shift = rng.uniform(-0.08, 0.08, (n, 2)) * o[:, 2:4]
    t = np.radians(o[:, 4])
    o[:, 0] += shift[:, 0] * np.cos(t) - shift[:, 1] * np.sin(t)
    o[:, 1] += shift[:, 0] * np.sin(t) + shift[:, 1] * np.cos(t)
    o[:, 2:4] *= rng.uniform(0.88, 1.12, (n, 2))
    o[:, 4] = (o[:, 4] + turn) % 180.0
    return o


def astride_obbs(boxes: np.ndarray, limit: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``limit`` upright boxes centred between two labelled tiles side by side in a row (the size of the
    first; their centres less than 1.3 widths apart and a quarter of a height level)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(b) < 2:
        return np.zeros((0, 5))
    c = (b[:, :2] + b[:, 2:]) / 2
    wh = b[:, 2:] - b[:, :2]
    out = []
    for i in range(len(b)):
        d = c - c[i]
        near = (d[:, 0] > 0.5 * wh[i, 0]) & (d[:, 0] < 1.3 * wh[i, 0]) & (np.abs(d[:, 1]) < 0.25 * wh[i, 1])
        for j in np.nonzero(near)[0][:1]:
            m = (c[i] + c[j]) / 2
            out.append([m[0], m[1], wh[i, 0], wh[i, 1], 0.0])
    out = np.array(out, np.float64).reshape(-1, 5)
    if len(out) > limit:
        out = out[rng.choice(len(out), limit, replace=False)]
    return out


def build(split: str, root: Path, jitter: int, none_per_photo: int, match_iou: float, seed: int,
          limit: int | None = None, threads: int = 2, progress=print, rec=None) -> dict[str, np.ndarray]:
    """The bank of ``split`` (see the module's docstring); ``rec``: the detector and flip head to cut and judge
    with (default: the shipped models, no user head)."""
    rec = rec or TileRecognizer(threads=threads, head=None, fill_rows=False)
    xs, ys, known, source, photo_ix, names = [], [], [], [], [], []
    t0 = time.time()
    for k, ph in enumerate(photos(split, root, limit)):
        rng = np.random.default_rng([seed, k])
        names.append(ph.name)
        ids = np.array([KINDS.index(c) for c in ph.codes], np.int64)
        det = rec.detect_boxes(ph.image)
        pairs = G.greedy_match(G.box_iou(G.aabb(det.corners), ph.boxes), match_iou) if len(det) else []
        pairs = [(p, g) for p, g in pairs if not wrong_axis(det.obb[p, 4], ph.boxes[g])]
        obbs = [det.obb[[p for p, _ in pairs]].reshape(-1, 5)]
        labels = [ids[[g for _, g in pairs]]]
        kinds_of = [np.zeros(len(pairs), np.int64)]
        for _ in range(jitter):
            obbs.append(jitter_obbs(label_obbs(ph.boxes), rng))
            labels.append(ids)
            kinds_of.append(np.ones(len(ids), np.int64))
        if none_per_photo:
            a = astride_obbs(ph.boxes, none_per_photo, rng)
            obbs.append(a)
            labels.append(np.full(len(a), NONE, np.int64))
            kinds_of.append(np.full(len(a), 2, np.int64))
        obb = np.concatenate(obbs)
        if not len(obb):
            continue
        crops = G.warp_crops(ph.image, obb, G.CROP_SIZE)
        _, flip_prob = rec.classify(crops)
        flip, sure = lie_of(obb[:, 4], flip_prob)
        y = np.concatenate(labels)
        sure &= y != NONE
        turn = flip & sure
        crops[turn] = crops[turn, ::-1, ::-1]
        xs.append(crops)
        ys.append(y)
        known.append(sure)
        source.append(np.concatenate(kinds_of))
        photo_ix.append(np.full(len(y), k, np.int64))
        if progress and (k + 1) % 25 == 0:
            n = sum(len(v) for v in ys)
            progress(f"{split}: {k + 1} photos, {n} crops ({time.time() - t0:.0f} s)")
    if not xs:
        raise SystemExit(f"no labelled photos in {root / split}")
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "flip_known": np.concatenate(known),
            "source": np.concatenate(source), "photo": np.concatenate(photo_ix), "photos": np.array(names),
            "kinds": np.array(KINDS)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=str(DEFAULT_ROOT), help="the real-tiles folder")
    ap.add_argument("--split", default="train", choices=("train", "valid"),
                    help="train (to train on) or valid (to select on); test is never made into a bank")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jitter", type=int, default=2, help="jittered label boxes per tile")
    ap.add_argument("--none-per-photo", type=int, default=4, help="'not a tile' boxes astride two tiles per photo")
    ap.add_argument("--no-none", action="store_true", help="no 'not a tile' boxes")
    ap.add_argument("--match-iou", type=float, default=0.4, help="a detector box is a label's at this IoU")
    ap.add_argument("--limit", type=int, help="at most this many photos")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--detector", help="the detector whose boxes are cut (default: the shipped one; the classifier "
                    "learns best from the boxes of the detector it will read with)")
    args = ap.parse_args(argv)
    root = Path(args.root)
    if not (root / args.split / "images").is_dir():
        print(f"error: {root / args.split / 'images'} not found (--root: the real-tiles folder)", file=sys.stderr)
        return 2
    rec = None
    if args.detector:
        if not Path(args.detector).is_file():
            print(f"error: {args.detector} not found", file=sys.stderr)
            return 2
        rec = TileRecognizer(detector=args.detector, threads=args.threads, head=None, fill_rows=False)
    bank = build(args.split, root, args.jitter, 0 if args.no_none else args.none_per_photo, args.match_iou,
                 args.seed, args.limit, args.threads, rec=rec)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **bank)
    src = np.bincount(bank["source"], minlength=3)
    print(f"wrote {args.out}: {len(bank['y'])} crops of {len(bank['photos'])} photos (detector boxes {src[0]}, "
          f"jittered label boxes {src[1]}, astride two tiles {src[2]}; lie known {bank['flip_known'].mean():.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
