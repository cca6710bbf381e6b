"""Train the oriented tile detector (CenterNet-style, stride 4) and export it to ONNX.

CPU recipe (2 cores, ~45 min; the shipped model):

    python -m datasets.generate --out /tmp/mj/synth-train --count 1600 --seed 1 --quiet
    python -m models.train_detector --data /tmp/mj/synth-train --steps 3000 --threads 2 \
        --work ~/.cache/mahjong-assistant/train/detector --export models/detector.onnx

GPU recipe (longer, better): ``--recipe gpu`` (batch 32, crop 512, 40,000 steps on cuda) with more scenes
(e.g. ``--count 20000``). Training data: synthetic scenes (rendered at 1280x720, used at 640 on the long
side) plus the real-scenes ``train`` split (axis-aligned class-agnostic boxes: no angle loss, heat loss
only near the labelled rows because the labels are not exhaustive). Never the real-scenes valid/test splits.

Deterministic: batch ``k`` is drawn from ``default_rng([seed, k])``; checkpoints every ``--ckpt-every``
steps in ``--work`` (``last.pt``); rerunning the same command resumes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from models.nets import DET_STRIDE, TileDetector
from models.onnx_weights import freeze_norms, load_folded_convs, onnx_values
from vision.geometry import quad_to_obb

SYNTH_SCALE = 0.5  # 1280x720 scenes are used at 640x360
REAL_ROOT = Path(os.environ.get("MAHJONG_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


# --------------------------------------------------------------------------- data


class SynthScenes:
    """Synthetic scenes of one or more ``datasets.generate`` folders, cached at the working scale."""

    def __init__(self, roots: list[str]):
        self.roots = [Path(r) for r in roots]
        self.items: list[tuple[Path, dict]] = []
        self.cache: dict[int, np.ndarray] = {}
        self.refresh()

    def refresh(self) -> None:
        items = []
        for root in self.roots:
            path = root / "labels.jsonl"
            if not path.is_file():
                continue
            with open(path) as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        break  # a line being written
                    items.append((root, rec))
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def get(self, i: int) -> tuple[np.ndarray, list[dict]]:
        root, rec = self.items[i]
        if i not in self.cache:
            img = cv2.imread(str(root / rec["image"]))
            self.cache[i] = cv2.resize(img, None, fx=SYNTH_SCALE, fy=SYNTH_SCALE, interpolation=cv2.INTER_AREA)
        tiles = []
        for t in rec["tiles"]:
            q = (np.asarray(t["corners"], np.float64) + 0.5) * SYNTH_SCALE - 0.5
            tiles.append({"quad": q, "face_up": t["face_up"], "occluded": t["occluded"]})
        return self.cache[i], tiles


def same_as_real_tiles(root: Path, splits: tuple[str, ...]) -> set[str]:
    """File names (``train/images/x.jpg``) of real-scenes photos that are the same photo as a real-tiles photo of
    ``splits`` (real-tiles ``provenance.csv``)."""
    import csv

    path = root / "provenance.csv"
    if not path.is_file():
        return set()
    with open(path, newline="") as fh:
        return {r["same_photo_in_real_scenes"].removeprefix("real-scenes/") for r in csv.DictReader(fh)
                if r.get("same_photo_in_real_scenes") and r["split"] in splits}


def load_real(split: str, root: Path = REAL_ROOT / "real-scenes",
              skip: set[str] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """(image, boxes [N, 4] x0 y0 x1 y1 pixels) of a real-scenes split (suspect stretched images skipped, and
    the files named in ``skip``, e.g. ``train/images/x.jpg``)."""
    out = []
    suspect = set()
    sfile = root / "suspect-stretched-images.txt"
    if sfile.is_file():
        suspect = {line.strip() for line in sfile.read_text().splitlines() if line.strip()}
    img_dir = root / split / "images"
    if not img_dir.is_dir():
        return out
    for img_path in sorted(img_dir.iterdir()):
        if f"{split}/images/{img_path.name}" in suspect or f"{split}/images/{img_path.name}" in (skip or ()):
            continue
        lab = root / split / "labels-tile" / (img_path.stem + ".txt")
        img = cv2.imread(str(img_path))
        if img is None or not lab.is_file():
            continue
        h, w = img.shape[:2]
        rows = [list(map(float, ln.split()[1:5])) for ln in lab.read_text().splitlines() if ln.strip()]
        b = np.array(rows, np.float64).reshape(-1, 4)
        boxes = np.stack([(b[:, 0] - b[:, 2] / 2) * w, (b[:, 1] - b[:, 3] / 2) * h,
                          (b[:, 0] + b[:, 2] / 2) * w, (b[:, 1] + b[:, 3] / 2) * h], 1)
        out.append((img, boxes))
    return out


def _gaussian(heat: np.ndarray, cx: float, cy: float, sigma: float) -> None:
    h, w = heat.shape
    r = int(math.ceil(3 * sigma))
    x0, x1 = max(0, int(cx) - r), min(w, int(cx) + r + 2)
    y0, y1 = max(0, int(cy) - r), min(h, int(cy) + r + 2)
    if x0 >= x1 or y0 >= y1:
        return
    xs = np.arange(x0, x1)[None, :]
    ys = np.arange(y0, y1)[:, None]
    g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
    np.maximum(heat[y0:y1, x0:x1], g, out=heat[y0:y1, x0:x1])


def make_targets(quads: np.ndarray, face_up: np.ndarray, ignore: np.ndarray, angle_known,
                 out_hw: tuple[int, int], region: np.ndarray | None = None) -> np.ndarray:
    """Dense target maps [12, H, W]: heat, heat-mask, off x/y, log w/h, cos/sin 2t, face-up, reg-mask,
    angle-mask, face-up-mask (quads in input pixels). ``angle_known``: one bool for all, or one per quad."""
    H, W = out_hw
    known = np.broadcast_to(np.asarray(angle_known, bool), (len(quads),))
    t = np.zeros((12, H, W), np.float32)
    t[1] = 1.0 if region is None else region
    if len(quads):
        obb = quad_to_obb(quads)
        s = DET_STRIDE
        for k, (cx, cy, w, h, th) in enumerate(obb):
            gx, gy = (cx - (s - 1) / 2) / s, (cy - (s - 1) / 2) / s
            ix, iy = int(math.floor(gx + 0.5)), int(math.floor(gy + 0.5))
            if min(w, h) < 3 or not (0 <= ix < W and 0 <= iy < H):
                if 0 <= ix < W and 0 <= iy < H:
                    t[1, max(0, iy - 1):iy + 2, max(0, ix - 1):ix + 2] = 0
                continue
            if ignore[k]:
                r = max(1, int(0.25 * min(w, h) / s))
                t[1, max(0, iy - r):iy + r + 1, max(0, ix - r):ix + r + 1] = 0
                continue
            sigma = max(0.7, 0.17 * min(w, h) / s)
            _gaussian(t[0], gx, gy, sigma)
            t[2, iy, ix], t[3, iy, ix] = gx - ix, gy - iy
            t[4, iy, ix], t[5, iy, ix] = math.log(w), math.log(h)
            a = math.radians(2 * th)
            t[6, iy, ix], t[7, iy, ix] = math.cos(a), math.sin(a)
            t[8, iy, ix] = float(face_up[k])
            t[9, iy, ix] = 1.0
            t[10, iy, ix] = 1.0 if known[k] else 0.0
            t[11, iy, ix] = 1.0
        # exact peaks: the gaussian max is 1 only at the integer cell nearest the centre
        t[0][t[9] > 0] = 1.0
    return t


def colour_aug(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    f = img.astype(np.float32)
    f = f * rng.uniform(0.6, 1.35) + rng.uniform(-30, 30)
    f = f * rng.uniform(0.85, 1.15, 3)[None, None]
    if rng.random() < 0.15:
        g = f.mean(2, keepdims=True)
        f = np.repeat(g, 3, 2)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), float(rng.uniform(0.4, 1.5)))
    if rng.random() < 0.3:
        f = f + rng.normal(0, rng.uniform(2, 8), f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


def load_real_tiles(split: str, root: Path, skip_stems: set[str] | None = None) -> list[tuple]:
    """(image, boxes [N, 4], "tiles") of a real-tiles split (``datasets.real_tiles``): labelled per tile, so the
    heat loss is taught only around each labelled tile (:func:`label_region`) and the axis of a clearly tall or
    wide box is taught too."""
    from datasets.real_tiles import photos

    return [(ph.image, ph.boxes, "tiles") for ph in photos(split, root)
            if not skip_stems or Path(ph.name).stem not in skip_stems]


AXIS_KNOWN = 1.25    # a real-tiles box this much taller than wide (or wider than tall) shows the tile's axis
REGION_GROW = 0.3    # the heat loss is taught this many tile sizes around each labelled real-tiles box


def label_region(q2: np.ndarray, hw: tuple[int, int], grow: float = REGION_GROW) -> np.ndarray:
    """[H, W] mask (stride cells) of the cells within ``grow`` tile sizes of some labelled quad (input pixels):
    the labels are not exhaustive, so only there is a cell with no tile known to be background.

    >>> q = np.array([[[8, 8], [24, 8], [24, 32], [8, 32]]], float)
    >>> m = label_region(q, (12, 12)); int(m.sum()), float(m[1, 1]), float(m[9, 9])
    (80, 1.0, 0.0)
    """
    H, W = hw
    region = np.zeros((H, W), np.float32)
    for q in np.asarray(q2, np.float64).reshape(-1, 4, 2):
        lo, hi = q.min(0), q.max(0)
        g = grow * float(np.min(hi - lo))
        x0, y0 = np.clip(np.floor((lo - g) / DET_STRIDE), 0, [W, H]).astype(int)
        x1, y1 = np.clip(np.ceil((hi + g) / DET_STRIDE), 0, [W, H]).astype(int)
        region[y0:y1, x0:x1] = 1.0
    return region


def sample(synth: SynthScenes, real: list, rng: np.random.Generator, crop: int, real_prob: float):
    """One augmented training crop and its target maps."""
    use_real = bool(real) and rng.random() < real_prob
    per_tile = False
    axis_known = np.zeros(0, bool)
    if use_real:
        img, boxes, *how = real[int(rng.integers(len(real)))]
        per_tile = bool(how) and how[0] == "tiles"
        img = cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA) if max(img.shape) > 800 else img
        sc0 = 640 / max(img.shape[:2])
        b = boxes * sc0
        bw, bh = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        c = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)
        # face frame: tall boxes upright, wide boxes on their side (the angle loss is masked anyway)
        th = np.where(bh >= bw, 0.0, 90.0)
        fw, fh = np.minimum(bw, bh), np.maximum(bw, bh)
        axis_known = (fh >= AXIS_KNOWN * fw) if per_tile else np.zeros(len(b), bool)
        from vision.geometry import obb_to_quad
        quads = obb_to_quad(np.stack([c[:, 0], c[:, 1], fw, fh, th], 1))
        face_up = np.ones(len(b), bool)
        ignore = np.zeros(len(b), bool)
        angle = float(rng.choice([0.0, 180.0]))
        scale = sc0 * float(np.exp(rng.uniform(math.log(0.7), math.log(1.4))))
    else:
        i = int(rng.integers(len(synth)))
        img, tiles = synth.get(i)
        quads = np.array([t["quad"] for t in tiles]).reshape(-1, 4, 2)
        face_up = np.array([t["face_up"] for t in tiles], bool)
        ignore = np.array([t["occluded"] > 0.6 for t in tiles], bool)
        angle = float(rng.uniform(0, 360)) if rng.random() < 0.5 else 0.0
        scale = float(np.exp(rng.uniform(math.log(0.6), math.log(1.6))))
    h, w = img.shape[:2]
    # affine: rotate by `angle` (clockwise) and scale about a random point, put it at the crop centre
    px, py = rng.uniform(0.1 * w, 0.9 * w), rng.uniform(0.1 * h, 0.9 * h)
    if len(quads) and rng.random() < 0.7:  # mostly centre the crop near tiles
        q = quads[int(rng.integers(len(quads)))].mean(0)
        px, py = q[0] + rng.normal(0, crop / 4 / scale), q[1] + rng.normal(0, crop / 4 / scale)
    a = math.radians(angle)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * scale
    tvec = np.array([crop / 2, crop / 2]) - R @ np.array([px, py])
    M = np.concatenate([R, tvec[:, None]], 1)
    out = cv2.warpAffine(img, M, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=(114, 114, 114))
    out = colour_aug(out, rng)
    q2 = quads @ R.T + tvec if len(quads) else quads
    H = W = crop // DET_STRIDE
    region = None
    if use_real and per_tile:
        region = label_region(q2, (H, W))
    elif use_real:
        region = np.zeros((H, W), np.float32)
        if len(q2):
            size = np.median(np.linalg.norm(q2[:, 0] - q2[:, 2], axis=1))
            lo, hi = q2.reshape(-1, 2).min(0) - 0.5 * size, q2.reshape(-1, 2).max(0) + 0.5 * size
            x0, y0 = np.clip(np.floor(lo / DET_STRIDE), 0, W).astype(int)
            x1, y1 = np.clip(np.ceil(hi / DET_STRIDE), 0, W).astype(int)
            region[y0:y1, x0:x1] = 1.0
    tgt = make_targets(q2, face_up, ignore, axis_known if use_real else True, (H, W), region)
    return out, tgt


def batch(synth, real, seed: int, step: int, n: int, crop: int, real_prob: float):
    rng = np.random.default_rng([seed, step])
    xs, ts = zip(*(sample(synth, real, rng, crop, real_prob) for _ in range(n)), strict=False)
    x = torch.from_numpy(np.stack(xs).transpose(0, 3, 1, 2).astype(np.float32) / 255.0)
    return x, torch.from_numpy(np.stack(ts))


# --------------------------------------------------------------------------- loss


def det_loss(out: torch.Tensor, t: torch.Tensor, size_weight: float = 1.0) -> tuple[torch.Tensor, dict]:
    """The detector's loss: focal heat, and L1 of offset, size (weighted ``size_weight``: how well a box fits its
    tile, which the classifier's crop depends on), angle and face-up where they are labelled."""
    heat, hmask = t[:, 0], t[:, 1]
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat == 1).float()
    neg = (1 - pos) * hmask
    pos_l = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_l = -(torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * neg).sum()
    npos = pos.sum().clamp(min=1)
    l_heat = (pos_l + neg_l) / npos
    reg = t[:, 9]
    nreg = reg.sum().clamp(min=1)
    l_off = (F.l1_loss(out[:, 1:3], t[:, 2:4], reduction="none").sum(1) * reg).sum() / nreg
    l_size = (F.l1_loss(out[:, 3:5], t[:, 4:6], reduction="none").sum(1) * reg).sum() / nreg
    am = t[:, 10]
    l_ang = (F.l1_loss(out[:, 5:7], t[:, 6:8], reduction="none").sum(1) * am).sum() / am.sum().clamp(min=1)
    fm = t[:, 11]
    l_fu = (F.binary_cross_entropy_with_logits(out[:, 7], t[:, 8], reduction="none") * fm).sum() / fm.sum().clamp(min=1)
    total = l_heat + l_off + size_weight * l_size + l_ang + 0.5 * l_fu
    return total, {"heat": l_heat.item(), "off": l_off.item(), "size": l_size.item(), "ang": l_ang.item(),
                   "fu": l_fu.item()}


# --------------------------------------------------------------------------- export


def export_onnx(model: TileDetector, path: str) -> None:
    model = model.cpu().eval()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (torch.zeros(1, 3, 384, 640),), path, opset_version=17, input_names=["image"],
                      output_names=["maps"], dynamic_axes={"image": {0: "n", 2: "h", 3: "w"},
                                                           "maps": {0: "n", 2: "h4", 3: "w4"}},
                      dynamo=False)
    print(f"exported {path} ({os.path.getsize(path) / 1e6:.2f} MB)", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", default=["/tmp/mj/synth-train"], help="datasets.generate folders")
    ap.add_argument("--real", default=str(REAL_ROOT / "real-scenes"), help="real-scenes root ('' = none)")
    ap.add_argument("--real-prob", type=float, default=0.2, help="share of the batch from real photos")
    ap.add_argument("--real-tiles", default="", help="also the real-tiles train split (datasets.real_tiles; the "
                    "folder, e.g. ../shared/data/real-tiles): labelled per tile; real-scenes train photos that are "
                    "the same photo as a real-tiles train or valid one are then left out")
    ap.add_argument("--init-onnx", help="start from an exported detector (e.g. models/detector.onnx): its batch norms "
                    "are folded, so they stay frozen")
    ap.add_argument("--work", default=str(Path.home() / ".cache/mahjong-assistant/train/detector"))
    ap.add_argument("--export", default="models/detector.onnx")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--crop", type=int, default=320)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--size-weight", type=float, default=1.0,
                    help="weight of the box-size loss against the others (a box's fit is what its crop reads)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-every", type=int, default=100)
    ap.add_argument("--refresh-every", type=int, default=200, help="re-read labels.jsonl (growing datasets)")
    ap.add_argument("--stop-after", type=int, help="stop at this step (schedule still planned for --steps)")
    ap.add_argument("--recipe", choices=["cpu", "gpu"], default="cpu",
                    help="gpu: cuda, batch 32, crop 512, 40000 steps (overrides those options)")
    args = ap.parse_args(argv)
    if args.recipe == "gpu":
        args.batch, args.crop, args.steps = 32, 512, 40000
    device = "cuda" if args.recipe == "gpu" and torch.cuda.is_available() else "cpu"
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    work = Path(args.work).expanduser()
    work.mkdir(parents=True, exist_ok=True)

    synth = SynthScenes(args.data)
    skip = set()
    if args.real_tiles:
        skip = same_as_real_tiles(Path(args.real_tiles), ("train", "valid"))
    real = load_real("train", Path(args.real), skip) if args.real else []
    n_scenes = len(real)
    if args.real_tiles:
        real += load_real_tiles("train", Path(args.real_tiles))
    print(f"synthetic scenes: {len(synth)}, real train images: {n_scenes} of real-scenes"
          f"{f' ({len(skip)} left out: in real-tiles)' if skip else ''}, {len(real) - n_scenes} of real-tiles",
          flush=True)
    model = TileDetector().to(device)
    if args.init_onnx:
        g, value = onnx_values(args.init_onnx)
        load_folded_convs(model, g, value, args.init_onnx)
        model.frozen_norms = True
        print(f"initialised from {args.init_onnx} (batch norms folded and frozen)", flush=True)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad or not args.init_onnx],
                            lr=args.lr, weight_decay=1e-4)
    step = 0
    ckpt = work / "last.pt"
    if ckpt.is_file():
        state = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step = state["step"]
        print(f"resumed from {ckpt} at step {step}", flush=True)
    warm = min(200, args.steps // 10)
    t0, last = time.time(), {}
    model.train()
    if args.init_onnx:
        freeze_norms(model)
    end = min(args.steps, args.stop_after or args.steps)
    while step < end:
        if step % args.refresh_every == 0:
            synth.refresh()
        lr = args.lr * (step + 1) / warm if step < warm else \
            args.lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, args.steps - warm)))
        for g in opt.param_groups:
            g["lr"] = lr
        x, t = batch(synth, real, args.seed, step, args.batch, args.crop, args.real_prob)
        out = model(x.to(device))
        loss, parts = det_loss(out, t.to(device), args.size_weight)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        opt.step()
        step += 1
        last = parts
        if step % 20 == 0 or step == args.steps:
            el = time.time() - t0
            print(f"step {step}/{args.steps} loss {loss.item():.3f} "
                  + " ".join(f"{k} {v:.3f}" for k, v in parts.items())
                  + f" lr {lr:.2e} scenes {len(synth)} {el:.0f}s", flush=True)
        if step % args.ckpt_every == 0 or step == end:
            tmp = work / "last.pt.tmp"
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                        "args": vars(args)}, tmp)
            os.replace(tmp, ckpt)
    torch.save({"model": model.state_dict(), "step": step, "args": vars(args), "last": last}, work / "final.pt")
    if args.export:
        export_onnx(model, args.export)
    return 0


if __name__ == "__main__":
    sys.exit(main())
