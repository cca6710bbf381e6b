"""Real-tiles photos read through the whole path (``TileRecognizer.recognize``): the eval-models rows (i).

A labelled tile is *boxed* when a tile the path reports has an axis-aligned box at IoU >= 0.5 with it (one-to-one,
best pairs first), and *read right* when that tile's code is the label's. The labels are not exhaustive (often
only the rack row is boxed), so precision is counted **over the labelled regions**: a reported tile counts only
when its box overlaps a labelled box (IoU >= ``REGION_IOU``) or its centre lies inside one; tiles reported
elsewhere are neither right nor wrong. Tile F1 is computed per photo (then averaged) and over all photos pooled.

    >>> score_photo(np.array([[0, 0, 10, 14], [10, 0, 20, 14], [50, 50, 60, 64]]), ["1m", "2m", "bk"],
    ...             np.array([[0, 0, 10, 14], [11, 0, 21, 14]]), ["1m", "3m"])
    {'labels': 2, 'boxed': 2, 'right': 1, 'reported': 2, 'per_kind': {'1m': (1, 1), '3m': (0, 1)}}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from datasets.real_tiles import LabelledPhoto, photos
from vision import geometry as G
from vision.inference import draw_overlay

BOX_IOU = 0.5
REGION_IOU = 0.1


def _in_regions(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    if not len(pred):
        return np.zeros(0, bool)
    if not len(gt):
        return np.zeros(len(pred), bool)
    iou = G.box_iou(pred, gt)
    c = (pred[:, :2] + pred[:, 2:]) / 2
    inside = ((c[:, None, 0] >= gt[None, :, 0]) & (c[:, None, 0] <= gt[None, :, 2])
              & (c[:, None, 1] >= gt[None, :, 1]) & (c[:, None, 1] <= gt[None, :, 3]))
    return (iou >= REGION_IOU).any(1) | inside.any(1)


def score_photo(pred: np.ndarray, pred_codes: list[str], gt: np.ndarray, gt_codes: list[str]) -> dict:
    """Counts for one photo: labels, boxed, read right, tiles reported in the labelled regions, and per kind
    (read right, labels)."""
    pred = np.asarray(pred, np.float64).reshape(-1, 4)
    gt = np.asarray(gt, np.float64).reshape(-1, 4)
    pairs = G.greedy_match(G.box_iou(pred, gt), BOX_IOU) if len(pred) and len(gt) else []
    right_g = {g for p, g in pairs if pred_codes[p] == gt_codes[g]}
    per_kind: dict[str, tuple[int, int]] = {}
    for g, code in enumerate(gt_codes):
        r, n = per_kind.get(code, (0, 0))
        per_kind[code] = (r + (g in right_g), n + 1)
    return {"labels": len(gt), "boxed": len(pairs), "right": len(right_g),
            "reported": int(_in_regions(pred, gt).sum()), "per_kind": per_kind}


def f1(right: int, reported: int, labels: int) -> float:
    """Tile F1 from the tiles read right, reported (in the labelled regions) and labelled.

    >>> round(f1(8, 10, 12), 4)
    0.7273
    """
    if labels == 0 and reported == 0:
        return 1.0
    p = right / reported if reported else 0.0
    r = right / labels if labels else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def eval_real_tiles(rec, root: Path, split: str = "test", skip_real_scenes: bool = True,
                    overlay_dir: Path | None = None, n_overlays: int = 0, variant: str | None = None) -> dict:
    """The rows (i) for ``split`` of real-tiles (see the module's docstring). ``skip_real_scenes``: the photos
    that are also real-scenes photos are left out (the detector's path was tuned on real-scenes valid)."""
    out = read_photos(rec, photos(split, root, skip_real_scenes=skip_real_scenes), variant, overlay_dir, n_overlays,
                      f"real-tiles-{split}")
    return {**out, "split": split, "skip_real_scenes": skip_real_scenes}


def read_photos(rec, pics: Iterable[LabelledPhoto], variant: str | None = None, overlay_dir: Path | None = None,
                n_overlays: int = 0, overlay_name: str = "real-tiles") -> dict:
    """Labelled photos read through the whole path and scored (:func:`score_photo`), summed over the photos;
    the first ``n_overlays`` drawn with their labels (magenta) into ``overlay_dir``."""
    tot = {"labels": 0, "boxed": 0, "right": 0, "reported": 0}
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_photo = []
    for i, ph in enumerate(pics):
        res = rec.recognize(ph.image, variant=variant)
        pb = G.aabb(np.array([t.corners for t in res.tiles]).reshape(-1, 4, 2))
        s = score_photo(pb, [t.code for t in res.tiles], ph.boxes, ph.codes)
        for k in tot:
            tot[k] += s[k]
        for code, (r, n) in s["per_kind"].items():
            kinds[code][0] += r
            kinds[code][1] += n
        per_photo.append(f1(s["right"], s["reported"], s["labels"]))
        if overlay_dir is not None and i < n_overlays:
            vis = draw_overlay(ph.image, res.tiles)
            for b in ph.boxes:
                cv2.rectangle(vis, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (255, 0, 255), 1)
            cv2.imwrite(str(Path(overlay_dir) / f"{overlay_name}-{i:02d}.jpg"), vis)
    n = max(1, tot["labels"])
    return {"photos": len(per_photo), "labels": tot["labels"], "boxed": tot["boxed"] / n,
            "read_right": tot["right"] / max(1, tot["boxed"]),
            "precision": tot["right"] / max(1, tot["reported"]), "recall": tot["right"] / n,
            "f1_per_photo": float(np.mean(per_photo)) if per_photo else 0.0,
            "f1_pooled": f1(tot["right"], tot["reported"], tot["labels"]),
            "per_kind": {k: v[0] / v[1] for k, v in sorted(kinds.items(), key=lambda kv: _order(kv[0]))}}


TALL = 1.25   # a label box this much taller than wide, in an upright photo, holds a tile standing upright


def upright_crops(root: Path, split: str, skip_real_scenes: bool = True, quarter: bool = False) -> np.ndarray:
    """Crops of the labelled tiles that stand upright in their photo (boxes clearly taller than wide: the
    photos are upright), cut upright as the classifier reads them; ``quarter``: cut through the box a quarter
    turned instead (what the classifier sees of a tile the detector boxed on the wrong axis)."""
    out = []
    for ph in photos(split, root, skip_real_scenes=skip_real_scenes):
        b = ph.boxes
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        tall = h >= TALL * w
        if tall.any():
            size = [h, w, np.full(len(b), 90.0)] if quarter else [w, h, np.zeros(len(b))]
            obb = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, *size], 1)[tall]
            out.append(G.warp_crops(ph.image, obb, G.CROP_SIZE))
    return np.concatenate(out) if out else np.zeros((0, G.CROP_SIZE[1], G.CROP_SIZE[0], 3), np.uint8)


def unsure_share(rec, crops: np.ndarray, below: float = 0.25) -> dict:
    """The share of ``crops`` whose likeliest tile kind is below ``below`` (``vision.inference.TURN_CHECK``: the
    path reads such a box again a quarter turned, which finds a sideways tile boxed upright)."""
    if not len(crops):
        return {"n": 0, "share": float("nan")}
    p, _ = rec.classify(crops)
    return {"n": len(crops), "share": float((p[:, :-1].max(1) < below).mean())}


def flip_accuracy(rec, crops: np.ndarray) -> dict:
    """The flip head on upright crops and the same crops turned upside down: the share it gets right."""
    if not len(crops):
        return {"n": 0, "accuracy": float("nan")}
    _, up = rec.classify(crops)
    _, down = rec.classify(np.ascontiguousarray(crops[:, ::-1, ::-1]))
    return {"n": 2 * len(crops), "accuracy": float(((up < 0.5).sum() + (down > 0.5).sum()) / (2 * len(crops)))}


def _order(code: str) -> tuple[int, str]:
    return ("mpszfgah".find(code[-1]) if len(code) == 2 else 99, code)


def format_rows(r: dict, prev: dict | None = None) -> list[tuple[str, str, str]]:
    """(metric, ours, previous) rows of one split's result."""
    def pct(v):
        return f"{100 * v:.1f}%"

    def rows(x):
        return [(f"(i) real tiles {x['split']}: boxed @0.5", f"{pct(x['boxed'])} ({x['labels']} tiles/"
                 f"{x['photos']} img)"),
                ("    read right (of those boxed)", pct(x["read_right"])),
                ("    tile F1 per photo (labelled regions)", f"{x['f1_per_photo']:.3f}"),
                ("    precision / recall (pooled)", f"{pct(x['precision'])} / {pct(x['recall'])}"),
                ("    worst kind (read right of labelled)", _worst(x))] + \
            ([("    flip head (upright tiles, and turned)", f"{pct(x['flip']['accuracy'])} ({x['flip']['n']} crops)")]
             if "flip" in x else []) + \
            ([("    quarter-turned faces read unsure", f"{pct(x['quarter']['share'])} ({x['quarter']['n']} crops)")]
             if "quarter" in x else [])

    ours = rows(r)
    theirs = dict(rows(prev)) if prev else {}
    return [(a, b, theirs.get(a, "")) for a, b in ours]


def _worst(x: dict) -> str:
    if not x["per_kind"]:
        return "-"
    k, v = min(x["per_kind"].items(), key=lambda kv: kv[1])
    return f"{k} {100 * v:.0f}%"


def per_kind_line(x: dict) -> str:
    return (f"real tiles {x['split']} per kind, read right of labelled (%): "
            + ", ".join(f"{k} {100 * v:.0f}" for k, v in x["per_kind"].items()))
