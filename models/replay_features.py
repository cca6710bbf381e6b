"""Generic examples for adapting a tile set's head: the classifier's pooled features of crops of every kind, kept
beside the classifier (``classifier_replay.npz``), so that learning a set replays them in every fit and checks the
adapted head on held-back ones (``vision.tilesets.learn``): a set's few photos show a few kinds, and a head fitted
to those alone read the set's other kinds worse (real-tiles set IMG_20231214: F1 0.98 -> 0.35, eval-learning).

Features, not images, are kept (192 numbers per example, float16): they are as much a product of training as the
weights are, and the photos stay in ``../shared``. Built from crop banks of the training data only (real-tiles
train cut by ``models.real_tiles_bank``, made crops of ``datasets.crop_synth`` for the kinds real photos lack: red
fives, jokers, animals, faces, backs), for the classifier they go with (its head's fingerprint is stored: a
replay of another classifier is not used).

    python -m models.replay_features --classifier models/classifier.onnx \\
        --bank /tmp/mj/rt-train-det1b.npz --bank /tmp/mj/replay-made.npz --out models/classifier_replay.npz \\
        --mid-out models/classifier_replay_mid.npz

``--mid-out`` (needs torch and onnx) also keeps the same examples as the early stages' activations
(:mod:`models.adapt_set`: 128x6x5 per example, uint8 with a scale per channel), which adapting a set's network
replays; half of the examples whose lie is known are turned upside down first, so the flip head is replayed too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

PER_KIND = 24      # replayed examples per kind
VAL_PER_KIND = 8   # held-back examples per kind (the generic check)


def pick(y: np.ndarray, n_kinds: int, per_kind: int, val_per_kind: int, rng: np.random.Generator
         ) -> tuple[np.ndarray, np.ndarray]:
    """Indices (replay, check) with up to ``per_kind`` and ``val_per_kind`` examples of each kind, disjoint.

    >>> r, v = pick(np.array([0, 0, 0, 1, 1, 2]), 3, 1, 1, np.random.default_rng(0))
    >>> sorted(np.concatenate([r, v]).tolist()) == sorted(set(np.concatenate([r, v]).tolist())), len(r), len(v)
    (True, 3, 2)
    """
    train: list[int] = []
    val: list[int] = []
    for k in range(n_kinds):
        idx = rng.permutation(np.nonzero(y == k)[0])
        nv = min(val_per_kind, len(idx) // 2)      # at least half of a rare kind's examples are replayed
        val.extend(idx[:nv].tolist())
        train.extend(idx[nv:nv + per_kind].tolist())
    return np.array(train, np.int64), np.array(val, np.int64)


def read_banks(banks: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, kinds, lie) of the banks together: lie 0 upright, 1 upside down as stored, -1 unknown (a bank of
    real tiles stores its crops upright where ``flip_known``; a made bank says ``flip`` where ``flip_known``)."""
    from vision.inference import KINDS

    xs, ys, lies = [], [], []
    for b in banks:
        with np.load(b) as z:
            if [str(k) for k in z["kinds"]] != list(KINDS):
                raise SystemExit(f"{b}: its kinds are not the classifier's")
            xs.append(z["x"])
            ys.append(z["y"].astype(np.int64))
            known = z["flip_known"].astype(bool) if "flip_known" in z.files else np.zeros(len(z["y"]), bool)
            flip = z["flip"].astype(np.int64) if "flip" in z.files else np.zeros(len(z["y"]), np.int64)
            lies.append(np.where(known, flip, -1))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(lies)


def build_mid(classifier: Path, x: np.ndarray, y: np.ndarray, lie: np.ndarray, tr: np.ndarray, va: np.ndarray,
              seed: int = 0) -> dict[str, np.ndarray]:
    """The examples ``tr`` (replayed) and ``va`` (checked) as uint8 activations at :data:`models.adapt_set.CUT`."""
    from models.adapt_set import SetAdapter
    from vision.heads import head_fingerprint, shipped_head

    rng = np.random.default_rng([seed, 1])
    crops, lie = x.copy(), lie.copy()
    turn = (lie >= 0) & (rng.random(len(lie)) < 0.5)
    crops[turn] = crops[turn][:, ::-1, ::-1]
    lie[turn] = 1 - lie[turn]
    ad = SetAdapter(classifier, threads=2)
    mid_tr, mid_va = ad.early(crops[tr]).numpy(), ad.early(crops[va]).numpy()
    scale = np.maximum(np.concatenate([mid_tr, mid_va]).max(axis=(0, 2, 3)), 1e-6) / 255.0

    def q(a: np.ndarray) -> np.ndarray:
        return np.clip(np.round(a / scale[None, :, None, None]), 0, 255).astype(np.uint8)

    return {"train_x": q(mid_tr), "train_y": y[tr], "train_flip": lie[tr], "val_x": q(mid_va), "val_y": y[va],
            "scale": scale.astype(np.float32),
            "fingerprint": np.array(head_fingerprint(shipped_head(classifier.parent)))}


def build(classifier: Path, banks: list[Path], per_kind: int = PER_KIND, val_per_kind: int = VAL_PER_KIND,
          seed: int = 0, mid: bool = False) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    from vision.heads import head_fingerprint, shipped_head
    from vision.inference import KINDS, TileRecognizer

    x, y, lie = read_banks(banks)
    rng = np.random.default_rng(seed)
    tr, va = pick(y, len(KINDS), per_kind, val_per_kind, rng)
    rec = TileRecognizer(classifier=classifier, head=None)

    def feats(idx: np.ndarray) -> np.ndarray:
        return np.concatenate([rec.features(x[idx[i:i + 256]]) for i in range(0, len(idx), 256)]) if len(idx) \
            else np.zeros((0, 192), np.float32)

    pooled = {"train_x": feats(tr).astype(np.float16), "train_y": y[tr], "val_x": feats(va).astype(np.float16),
              "val_y": y[va], "fingerprint": np.array(head_fingerprint(shipped_head(classifier.parent)))}
    return pooled, build_mid(classifier, x, y, lie, tr, va, seed) if mid else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--classifier", default="models/classifier.onnx", help="the classifier (its head npz beside it)")
    ap.add_argument("--bank", action="append", required=True, help="a crop bank (x, y, kinds); may be repeated")
    ap.add_argument("--out", default="models/classifier_replay.npz")
    ap.add_argument("--per-kind", type=int, default=PER_KIND)
    ap.add_argument("--val-per-kind", type=int, default=VAL_PER_KIND)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mid-out", help="also the activations at the cut (models.adapt_set) to this .npz")
    args = ap.parse_args(argv)
    for p in [args.classifier, *args.bank]:
        if not Path(p).is_file():
            print(f"error: {p} not found", file=sys.stderr)
            return 2
    out, mid = build(Path(args.classifier), [Path(b) for b in args.bank], args.per_kind, args.val_per_kind,
                     args.seed, mid=bool(args.mid_out))
    np.savez_compressed(args.out, **out)
    if mid is not None:
        np.savez_compressed(args.mid_out, **mid)
        print(f"wrote {args.mid_out} ({Path(args.mid_out).stat().st_size / 1e6:.1f} MB)")
    print(f"wrote {args.out}: {len(out['train_y'])} replayed examples, {len(out['val_y'])} held back, "
          f"{len(set(out['train_y'].tolist()))} kinds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
