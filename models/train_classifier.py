"""Train the tile classifier (55 kinds + ``none``, plus a 0/180 flip head) and export it to ONNX.

CPU recipe (2 cores, ~35 min; the shipped model):

    python -m datasets.generate --out /tmp/mj/synth-train --count 1600 --seed 1 --quiet
    python -m models.classifier_data --scenes /tmp/mj/synth-train --out /tmp/mj/cls-bank.npz \
        --renders-per-code 300 --per-scene 25
    python -m models.train_classifier --bank /tmp/mj/cls-bank.npz --steps 2400 --threads 2 \
        --work ~/.cache/mahjong-assistant/train/classifier --export models/classifier.onnx

GPU recipe: ``--recipe gpu`` (cuda, batch 512, 20,000 steps) on a bigger bank (more scenes, more renders).

Model selection (which checkpoint is exported) uses the real-crops ``train`` + ``val`` splits, which the
data rules allow for validation only; they are never trained on. The real-crops ``test`` split is not read.
Deterministic: batch ``k`` is drawn from ``default_rng([seed, k])``; ``--work``/last.pt resumes.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from models.classifier_onnx import export_onnx, load_onnx_weights
from models.nets import CROP_H, CROP_W, TileClassifier
from models.onnx_weights import freeze_norms
from models.train_detector import REAL_ROOT

KIND_NAMES: tuple[str, ...]  # filled from the bank


def load_real_crops(splits: tuple[str, ...], root: Path = REAL_ROOT / "real-crops") -> tuple[np.ndarray, list[str]]:
    """Real crops of the given splits resized to 72x96 (BGR uint8) and their codes."""
    xs, codes = [], []
    labels = root / "labels.csv"
    if not labels.is_file():
        return np.zeros((0, CROP_H, CROP_W, 3), np.uint8), []
    with open(labels, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["split"] not in splits:
                continue
            img = cv2.imread(str(root / row["file"]))
            if img is None:
                continue
            xs.append(cv2.resize(img, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA))
            codes.append(row["tile_code"])
    return np.stack(xs) if xs else np.zeros((0, CROP_H, CROP_W, 3), np.uint8), codes


def augment(x: np.ndarray, rng: np.random.Generator, colour_free: np.ndarray | None = None,
            grey_p: float = 0.12, permute_p: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Batch augmentation of upright crops [N, H, W, 3]: 180-degree flips (returned), shifts, colour, grey.

    ``permute_p``: chance to permute the colour channels of crops whose kind does not depend on colour
    (``colour_free`` [N] bool; red fives do): real sets print numerals in blue, red or black."""
    n = len(x)
    out = np.empty_like(x)
    flip = rng.random(n) < 0.5
    for i in range(n):
        img = x[i]
        dx, dy = rng.integers(-3, 4, 2)
        s = rng.uniform(0.94, 1.06)
        M = np.array([[s, 0, dx + (1 - s) * CROP_W / 2], [0, s, dy + (1 - s) * CROP_H / 2]], np.float32)
        img = cv2.warpAffine(img, M, (CROP_W, CROP_H), borderMode=cv2.BORDER_REPLICATE)
        if flip[i]:
            img = img[::-1, ::-1]
        out[i] = img
    f = out.astype(np.float32)
    f = f * rng.uniform(0.75, 1.2, (n, 1, 1, 1)) + rng.uniform(-20, 20, (n, 1, 1, 1))
    grey = rng.random(n) < grey_p
    f[grey] = f[grey].mean(-1, keepdims=True)
    if permute_p > 0 and colour_free is not None:
        for i in np.nonzero((rng.random(n) < permute_p) & colour_free)[0]:
            f[i] = f[i][..., rng.permutation(3)]
    return np.clip(f, 0, 255).astype(np.uint8), flip


def to_tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)).astype(np.float32) / 255.0)


@torch.no_grad()
def predict(model: TileClassifier, x: np.ndarray, device: str = "cpu", bs: int = 256):
    model.eval()
    kinds, flips = [], []
    for i in range(0, len(x), bs):
        k, f = model(to_tensor(x[i:i + bs]).to(device))
        kinds.append(k.argmax(1).cpu().numpy())
        flips.append((f[:, 0] > 0).cpu().numpy())
    model.train()
    if getattr(model, "frozen_norms", False):
        freeze_norms(model)
    if not kinds:
        return np.zeros(0, int), np.zeros(0, bool)
    return np.concatenate(kinds), np.concatenate(flips)


_SYNTH = None


def _make_synth(backgrounds_dir: str, per_code: int = 90, bonus_per_code: int = 220, wrong_axis: float = 0.06):
    from datasets.crop_synth import CropSynth, FaceBank

    bank = FaceBank.cached(per_code=per_code, bonus_per_code=bonus_per_code)
    backgrounds = []
    if backgrounds_dir and Path(backgrounds_dir).is_dir():
        for p in sorted(Path(backgrounds_dir).glob("*.jpg"))[:200]:
            img = cv2.imread(str(p))
            if img is not None:
                backgrounds.append(cv2.resize(img, (224, 224), interpolation=cv2.INTER_AREA))
    return CropSynth(bank, backgrounds, wrong_axis=wrong_axis)


def _synth_init(backgrounds_dir: str, per_code: int = 90, bonus_per_code: int = 220, wrong_axis: float = 0.06) -> None:
    global _SYNTH
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    _SYNTH = _make_synth(backgrounds_dir, per_code, bonus_per_code, wrong_axis)


def _synth_batch(job: tuple[int, int, int]):
    seed, step, n = job
    return _SYNTH.batch(n, np.random.default_rng([seed, step]))


def synth_batches(args, work: Path):
    """A function ``start_step -> iterator of batches`` of crops made on the fly (batch k depends only on
    (seed, k), whatever the number of workers). Workers are spawned (not forked: a fork of a process whose
    OpenCV/torch thread pools run can hang) and each loads the cached face bank."""
    t0 = time.time()
    synth = _make_synth(args.real_backgrounds, args.bank_per_code, args.bank_bonus, args.wrong_axis)  # caches the bank
    print(f"face bank {len(synth.bank)} inks, {len(synth.backgrounds)} real backgrounds ({time.time() - t0:.0f}s)",
          flush=True)

    def run(start: int):
        jobs = ((args.seed, k, args.batch) for k in range(start, args.steps))
        if args.workers <= 0:
            global _SYNTH
            _SYNTH = synth
            return map(_synth_batch, jobs)
        import multiprocessing as mp

        pool = mp.get_context("spawn").Pool(args.workers, _synth_init,
                                            (args.real_backgrounds, args.bank_per_code, args.bank_bonus,
                                             args.wrong_axis))
        return pool.imap(_synth_batch, jobs, chunksize=1)

    return run


def placed_real(x: np.ndarray, seed: int = 4242) -> np.ndarray:
    """Real crops laid on a table: turned up to 30 degrees, boxes misfitted to IoU 0.6-0.9 (the
    ``datasets.crop_synth.place_face`` evaluation), each from its own seed."""
    from datasets.crop_synth import place_face

    return np.stack([place_face(img, np.random.default_rng([seed, i])) for i, img in enumerate(x)]) if len(x) \
        else np.zeros((0, CROP_H, CROP_W, 3), np.uint8)


def held_out_crops(n: int = 2000, seed: int = 777) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Crops of faces in styles training never sees (``FaceBank(held_out=True)``), the same geometry: crops,
    kinds, whether each lies upside down and whether that is knowable (a face, not "none" or a back)."""
    from datasets.crop_synth import CropSynth, FaceBank

    synth = CropSynth(FaceBank.cached(held_out=True, per_code=12, bonus_per_code=30))
    return synth.batch(n, np.random.default_rng(seed))


def flip_accuracy(model: TileClassifier, x: np.ndarray, flipped: np.ndarray, known: np.ndarray,
                  device: str = "cpu") -> float:
    """Share of the crops whose lie is knowable for which the flip head says rightly whether they are upside
    down (``flipped``)."""
    if not known.any():
        return float("nan")
    _, pf = predict(model, x[known], device)
    return float((pf == flipped[known]).mean())


def export_checkpoint(work: Path, path: str) -> int:
    """Export ``work``'s best checkpoint (else its last) to ``path``; exit status 2 when there is none."""
    ckpt = next((work / n for n in ("best.pt", "last.pt") if (work / n).is_file()), None)
    if ckpt is None or not path:
        print(f"error: no checkpoint in {work}" if ckpt is None else "error: --export names no file", file=sys.stderr)
        return 2
    state = torch.load(ckpt, map_location="cpu", weights_only=False)
    kinds = list(state["kinds"])
    model = TileClassifier(len(kinds))
    model.load_state_dict(state["model"])
    print(f"exporting {ckpt} (step {state['step']})", flush=True)
    export_onnx(model, path, kinds)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", default="/tmp/mj/cls-bank.npz")
    ap.add_argument("--work", default=str(Path.home() / ".cache/mahjong-assistant/train/classifier"))
    ap.add_argument("--export", default="models/classifier.onnx")
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--stop-after", type=int, help="stop at this step (schedule still planned for --steps)")
    ap.add_argument("--init", help="start from this checkpoint's weights (fine-tuning phase)")
    ap.add_argument("--init-onnx", help="start from an exported classifier (e.g. models/classifier.onnx, int8 "
                    "or float): its batch norms are folded, so they stay frozen")
    ap.add_argument("--val-bank", help="a synthetic crop bank (other seeds) for model selection besides the real "
                    "crops: the exported checkpoint is the best mean of both accuracies")
    ap.add_argument("--grey-p", type=float, default=0.12)
    ap.add_argument("--flip-weight", type=float, default=0.5, help="weight of the flip head's loss")
    ap.add_argument("--flip-in-selection", action="store_true",
                    help="the flip head's accuracy (held-out styles, --val-bank tables) counts in model selection")
    ap.add_argument("--select", choices=["all", "real"], default="all",
                    help="real: only the real-photo figures (real crops train+val, placed, the --val-bank of real "
                    "tiles and its flip) choose the exported checkpoint; the rendered ones are printed only")
    ap.add_argument("--permute-p", type=float, default=0.0, help="colour-channel permutation (not red fives)")
    ap.add_argument("--synth", action="store_true",
                    help="train on crops made on the fly (datasets.crop_synth: turned, misfitted, sideways boxes, "
                    "tiles on varied surfaces, 'not a tile' parts and textures) instead of a --bank")
    ap.add_argument("--workers", type=int, default=1, help="--synth: processes making the crops")
    ap.add_argument("--mix-bank", default=None, help="--synth: also draw a share of each batch from this crop bank "
                    "(models.classifier_data, e.g. rendered tables), augmented as --bank is")
    ap.add_argument("--mix-share", type=float, default=0.35, help="--mix-bank: its share of each batch")
    ap.add_argument("--mix-balance", type=float, default=0.5,
                    help="--mix-bank: a kind's crops are drawn with weight count^-b (0.5: a kind comes up as the "
                    "square root of its count; 1: every kind as often, so the few flowers and seasons of real "
                    "photos as often as the suits)")
    ap.add_argument("--wrong-axis", type=float, default=0.06,
                    help="--synth: share of made crops boxed on the wrong axis (a sideways tile boxed upright) and "
                    "still taught as their kind; 0 keeps a quarter-turned face unsure, which the path's quarter-turn "
                    "check needs to find sideways tiles boxed upright")
    ap.add_argument("--bank-per-code", type=int, default=90, help="--synth: face inks per tile kind (styles)")
    ap.add_argument("--bank-bonus", type=int, default=220, help="--synth: face inks per flower/season")
    ap.add_argument("--real-backgrounds", default=str(REAL_ROOT / "real-scenes" / "train" / "images"),
                    help="--synth: photos whose pixels may lie under and around the rendered tiles (real-scenes "
                    "train split only; '' = none)")
    ap.add_argument("--recipe", choices=["cpu", "gpu"], default="cpu",
                    help="gpu: cuda, batch 512, 20000 steps (overrides those options)")
    ap.add_argument("--export-only", action="store_true",
                    help="export the best checkpoint in --work so far (a run still going on, or stopped) and stop")
    args = ap.parse_args(argv)
    if args.export_only:
        return export_checkpoint(Path(args.work).expanduser(), args.export)
    if args.recipe == "gpu":
        args.batch, args.steps = 512, 20000
    device = "cuda" if args.recipe == "gpu" and torch.cuda.is_available() else "cpu"
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    work = Path(args.work).expanduser()
    work.mkdir(parents=True, exist_ok=True)

    if args.synth:
        from datasets.crop_synth import KINDS as SYNTH_KINDS

        kinds = list(SYNTH_KINDS)
        n_kinds = len(kinds)
        none, back = kinds.index("none"), kinds.index("bk")
        batches = synth_batches(args, work)
        mix = None
        if args.mix_bank:
            mb = np.load(args.mix_bank)
            if [str(k) for k in mb["kinds"]] != kinds:
                raise SystemExit(f"{args.mix_bank}: its kinds differ from the made crops'")
            my = mb["y"].astype(np.int64)
            mcounts = np.bincount(my, minlength=n_kinds).astype(np.float64)
            mw = np.maximum(mcounts[my], 1) ** -args.mix_balance
            # a bank of real crops (models.real_tiles_bank) says which crops' lie is known
            mknown = mb["flip_known"].astype(bool) if "flip_known" in mb.files else np.ones(len(my), bool)
            mix = (mb["x"], my, mw / mw.sum(),
                   ~np.isin(my, [kinds.index(c) for c in ("5m", "0m", "5p", "0p", "5s", "0s")]), mknown)
            print(f"mixing {args.mix_share:.0%} of each batch from {args.mix_bank} ({len(my)} crops)", flush=True)
    else:
        bank = np.load(args.bank)
        x_all, y_all, kinds = bank["x"], bank["y"].astype(np.int64), [str(k) for k in bank["kinds"]]
        n_kinds = len(kinds)
        none = kinds.index("none")
        back = kinds.index("bk")
        # class-balanced sampling weights (sqrt of inverse frequency)
        counts = np.bincount(y_all, minlength=n_kinds).astype(np.float64)
        w = 1.0 / np.sqrt(np.maximum(counts[y_all], 1))
        w /= w.sum()
        colour_free = ~np.isin(y_all, [kinds.index(c) for c in ("5m", "0m", "5p", "0p", "5s", "0s")])
        print(f"bank {len(y_all)} crops, {n_kinds} kinds (min {counts.min():.0f}/kind)", flush=True)
    rx, rcodes = load_real_crops(("train", "val"))
    ry = np.array([kinds.index(c) for c in rcodes], np.int64)
    print(f"real validation crops {len(ry)}", flush=True)
    px = np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    hx, hy = px, np.zeros(0, np.int64)
    hf = hk = np.zeros(0, bool)
    if args.synth:
        px = placed_real(rx)
        hx, hy, hf, hk = held_out_crops()
        print(f"real validation crops placed as on a table {len(px)}, held-out style crops {len(hy)}", flush=True)

    vx, vy = np.zeros((0, CROP_H, CROP_W, 3), np.uint8), np.zeros(0, np.int64)
    vf = vk = np.zeros(0, bool)
    if args.val_bank:
        vb = np.load(args.val_bank)
        if [str(k) for k in vb["kinds"]] != kinds:
            raise SystemExit(f"{args.val_bank}: its kinds differ from {args.bank}'s")
        vx, vy = vb["x"], vb["y"].astype(np.int64)
        # every other crop turned upside down: the flip head is judged on the validation tables too
        vf = np.arange(len(vy)) % 2 == 1
        vx = vx.copy()
        vx[vf] = vx[vf, ::-1, ::-1]
        vk = (vy != kinds.index("none")) & (vy != kinds.index("bk"))
        if "flip_known" in vb.files:   # real crops (models.real_tiles_bank): only those whose lie is known
            vk &= vb["flip_known"].astype(bool)
        print(f"synthetic validation crops {len(vy)}", flush=True)

    model = TileClassifier(n_kinds).to(device)
    if args.init_onnx:
        load_onnx_weights(model, args.init_onnx)
        model.frozen_norms = True
        freeze_norms(model)
        print(f"initialised from {args.init_onnx} (batch norms folded and frozen)", flush=True)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=5e-4)
    step, best = 0, -1.0
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location=device, weights_only=False)["model"])
        print(f"initialised from {args.init}", flush=True)
    ckpt = work / "last.pt"
    if ckpt.is_file():
        state = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, best = state["step"], state.get("best", -1.0)
        print(f"resumed from {ckpt} at step {step} (best selection score {best:.4f})", flush=True)

    def evaluate(best: float) -> float:
        real_acc = synth_acc = float("nan")
        scores = []
        if len(ry):
            pk, _ = predict(model, rx, device)
            real_acc = float((pk == ry).mean())
            scores.append(real_acc)
        if len(vy):
            pk, _ = predict(model, vx, device)
            synth_acc = float((pk == vy).mean())
            scores.append(synth_acc)
        extra = ""
        if (args.flip_in_selection or args.select == "real") and len(vy):
            vflip = flip_accuracy(model, vx, vf, vk, device)
            scores.append(vflip)
            extra += f", flip (validation tables) {vflip:.4f}"
        if len(px):
            pk, _ = predict(model, px, device)
            placed = float((pk == ry).mean())
            scores.append(placed)
            extra += f", real placed {placed:.4f}"
        if len(hy):
            pk, _ = predict(model, hx, device)
            held = float((pk == hy).mean())
            if args.select != "real":
                scores.append(held)
            extra += f", held-out styles {held:.4f}"
            if args.flip_in_selection or args.select == "real":
                hflip = flip_accuracy(model, hx, hf, hk, device)
                if args.select != "real":
                    scores.append(hflip)
                extra += f", flip (held-out) {hflip:.4f}"
        score = float(np.mean(scores)) if scores else float("nan")
        if scores and score >= best:
            best = score
            torch.save({"model": model.state_dict(), "step": step, "real_val": real_acc,
                        "synth_val": synth_acc, "kinds": kinds}, work / "best.pt")
        print(f"eval step {step}: real train+val top-1 {real_acc:.4f}, synthetic validation {synth_acc:.4f}"
              f"{extra} (selection score {score:.4f}, best {best:.4f})", flush=True)
        return best

    if step == 0 and args.init_onnx:     # the starting point competes too
        best = evaluate(best)
    if args.synth:
        batches = batches(step)
    warm = min(150, args.steps // 10)
    t0 = time.time()
    model.train()
    if getattr(model, "frozen_norms", False):
        freeze_norms(model)
    end = min(args.steps, args.stop_after or args.steps)
    while step < end:
        lr = args.lr * (step + 1) / warm if step < warm else \
            args.lr * 0.5 * (1 + np.cos(np.pi * (step - warm) / max(1, args.steps - warm)))
        for g in opt.param_groups:
            g["lr"] = lr
        if args.synth:
            xb, yk, flip, known = next(batches)
            if mix is not None:  # a share of the batch from a crop bank (rendered tables: their look kept)
                mx, my, mw, mfree, mknown = mix
                mrng = np.random.default_rng([args.seed, step, 7])
                nb = int(round(len(yk) * args.mix_share))
                idx = mrng.choice(len(my), nb, p=mw)
                bx, bflip = augment(mx[idx], mrng, mfree[idx], args.grey_p, args.permute_p)
                xb, yk, flip, known = xb.copy(), yk.copy(), flip.copy(), known.copy()
                xb[-nb:], yk[-nb:], flip[-nb:] = bx, my[idx], bflip
                known[-nb:] = (my[idx] != none) & (my[idx] != back) & mknown[idx]
            yb = torch.from_numpy(yk).to(device)
            fb = torch.from_numpy(flip.astype(np.float32)).to(device)
            fmask = torch.from_numpy(known.astype(np.float32)).to(device)
        else:
            rng = np.random.default_rng([args.seed, step])
            idx = rng.choice(len(y_all), args.batch, p=w)
            xb, flip = augment(x_all[idx], rng, colour_free[idx], args.grey_p, args.permute_p)
            yb = torch.from_numpy(y_all[idx]).to(device)
            fb = torch.from_numpy(flip.astype(np.float32)).to(device)
            fmask = ((yb != none) & (yb != back)).float()
        k, f = model(to_tensor(xb).to(device))
        l_kind = F.cross_entropy(k, yb, label_smoothing=0.05)
        l_flip = (F.binary_cross_entropy_with_logits(f[:, 0], fb, reduction="none") * fmask).sum() \
            / fmask.sum().clamp(min=1)
        loss = l_kind + args.flip_weight * l_flip
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 20 == 0:
            acc = (k.argmax(1) == yb).float().mean().item()
            print(f"step {step}/{args.steps} loss {loss.item():.3f} kind {l_kind.item():.3f} "
                  f"flip {l_flip.item():.3f} acc {acc:.3f} lr {lr:.2e} {time.time() - t0:.0f}s", flush=True)
        if step % args.eval_every == 0 or step == end:
            best = evaluate(best)
            tmp = work / "last.pt.tmp"
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "best": best,
                        "args": vars(args), "kinds": kinds}, tmp)
            os.replace(tmp, ckpt)
    final = work / "best.pt" if (work / "best.pt").is_file() else ckpt
    model.load_state_dict(torch.load(final, map_location=device, weights_only=False)["model"])
    print(f"exporting {final}", flush=True)
    if args.export:
        export_onnx(model, args.export, kinds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
