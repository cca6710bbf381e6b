"""``mahjong-assistant finetune``: adapt the classifier to a tile set from the user's corrections.

Only the last layer (the kind head: 192 pooled features -> 56 kinds) is retrained, on the crops the web
page stored when a user corrected a tile (``corrections.jsonl`` + ``crops/`` in the corrections folder).
The shipped ONNX model is never changed: the new head is saved beside the user's data and used instead of
the shipped head when present; deleting it (or ``--reset``) falls back to the shipped model. Accuracy before
and after is measured on a held-back part of the corrections that training never sees.

Training is plain numpy: softmax regression started from the shipped head, with weight decay towards it, so
a few dozen corrections move the model only where they have to.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .heads import (  # noqa: F401 - the head files and their training live in vision.heads
    HEAD_FILE,
    data_dir,
    finetuned_head_path,
    head_fingerprint,
    load_head,
    shipped_head,
    train_head,
)


def read_corrections(root: Path) -> list[tuple[np.ndarray, str]]:
    """(crop image, corrected code) for every stored correction whose crop can be read."""
    import cv2

    from .kinds import KINDS

    path = root / "corrections.jsonl"
    if not path.is_file():
        raise ValueError(f"no corrections at {root} (tap a tile on the live page to correct it first)")
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line after a crash
            code, crop = rec.get("code"), rec.get("crop")
            if code not in KINDS or not crop:
                continue
            image = cv2.imread(str(root / crop), cv2.IMREAD_COLOR)
            if image is not None:
                out.append((cv2.resize(image, (72, 96), interpolation=cv2.INTER_AREA), code))
    return out


def finetune(corrections_dir: Path, holdout: float = 0.25, seed: int = 0, steps: int = 300,
             save_to: Path | None = None, recognizer=None) -> dict:
    """Retrain the kind head on the corrections; report accuracy before/after on the held-back part.
    ValueError when ``holdout`` is no share (0 < holdout < 1) or leaves no correction to train on or none held
    back; a head that is not finite is never saved."""
    from .inference import KINDS, TileRecognizer

    if not (isinstance(holdout, (int, float)) and 0 < holdout < 1):
        raise ValueError(f"--holdout {holdout}: give the share of the corrections held back to measure, between 0 "
                         "and 1 (such as 0.25)")
    if steps < 1:
        raise ValueError(f"--steps {steps}: at least 1")
    samples = read_corrections(corrections_dir)
    if len(samples) < 4:
        raise ValueError(f"only {len(samples)} usable corrections in {corrections_dir}; at least 4 are needed")
    n_hold = max(1, int(round(holdout * len(samples))))
    if n_hold >= len(samples):
        raise ValueError(f"--holdout {holdout} holds back all {len(samples)} corrections: none would be left to "
                         "train on (give a smaller share)")
    rec = recognizer or TileRecognizer(head=None)
    crops = np.stack([s[0] for s in samples])
    labels = np.array([KINDS.index(s[1]) for s in samples])
    feats = rec.features(crops)
    order = np.random.default_rng(seed).permutation(len(samples))
    hold, train = order[:n_hold], order[n_hold:]
    base = shipped_head()
    before = float(np.mean((feats[hold] @ base["weight"].T + base["bias"]).argmax(1) == labels[hold]))
    head = train_head(feats[train], labels[train], base, steps=steps)
    after = float(np.mean((feats[hold] @ head["weight"].T + head["bias"]).argmax(1) == labels[hold]))
    result: dict[str, Any] = {"corrections": len(samples), "trained_on": int(len(train)), "held_back": int(n_hold),
                              "accuracy_before": before, "accuracy_after": after, "saved": None}
    finite = all(np.isfinite(v).all() for v in head.values())
    result["finite"] = bool(finite)
    if finite and after >= before:
        path = save_to or finetuned_head_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, base=np.array(head_fingerprint(base)), weight=head["weight"], bias=head["bias"])
        os.replace(tmp, path)
        result["saved"] = str(path)
    return result


def cmd_finetune(args: argparse.Namespace) -> int:
    if args.reset:
        path = finetuned_head_path()
        if path.exists():
            path.unlink()
        print(f"removed the finetuned head; the shipped classifier is used ({path})")
        return 0
    root = Path(args.corrections or data_dir() / "corrections")
    try:
        res = finetune(root, args.holdout, args.seed, args.steps)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{res['corrections']} corrections: trained on {res['trained_on']}, held back {res['held_back']}")
    print(f"held-back accuracy: shipped head {res['accuracy_before']:.1%} -> finetuned {res['accuracy_after']:.1%}")
    if res["saved"]:
        print(f"saved {res['saved']} (used from now on; `mahjong-assistant finetune --reset` goes back)")
    elif not res.get("finite", True):
        print("not saved: training diverged (the head is not finite); the shipped one stays")
    else:
        print("not saved: the finetuned head did worse on the held-back corrections; the shipped one stays")
    return 0


def register(sub) -> None:
    p = sub.add_parser("finetune", help="retrain the classifier's last layer on your tile corrections")
    p.add_argument("--corrections", help="corrections folder (default: the web page's, "
                                         "$MAHJONG_ASSISTANT_WEB_DATA/corrections)")
    p.add_argument("--holdout", type=float, default=0.25, help="share held back to measure before/after")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reset", action="store_true", help="drop the finetuned head and use the shipped model")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_finetune)
