"""The classifier's kind head (its last layer: pooled features -> kinds) as files: the shipped one beside the
model, a user's finetuned one, and the softmax regression that adapts one (numpy; used by ``finetune`` and by
tile sets)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HEAD_FILE = "classifier_head_finetuned.npz"


def data_dir() -> Path:
    return Path(os.environ.get("MAHJONG_ASSISTANT_WEB_DATA", Path.home() / ".local/share/mahjong-assistant/web"))


def finetuned_head_path() -> Path:
    return Path(os.environ.get("MAHJONG_FINETUNED_HEAD", data_dir() / HEAD_FILE))


def head_fingerprint(head: dict[str, np.ndarray]) -> str:
    """Identifies a shipped kind head: a finetuned head is only valid on top of the model it was trained from."""
    import hashlib

    h = hashlib.sha256(np.ascontiguousarray(head["weight"], np.float32).tobytes())
    h.update(np.ascontiguousarray(head["bias"], np.float32).tobytes())
    return h.hexdigest()[:16]


def shipped_head(models_dir: Path | None = None) -> dict[str, np.ndarray]:
    from .kinds import CLASSIFIER_PATH

    path = (models_dir or CLASSIFIER_PATH.parent) / "classifier_head.npz"
    with np.load(path) as z:
        return {"weight": z["weight"].astype(np.float32), "bias": z["bias"].astype(np.float32)}


REPLAY_FILE = "classifier_replay.npz"


def load_replay(models_dir: Path | None = None, shipped: dict[str, np.ndarray] | None = None
                ) -> dict[str, np.ndarray] | None:
    """The generic examples kept beside the classifier (``models.replay_features``: pooled features of crops of
    every kind, ``train_x/train_y`` to replay and ``val_x/val_y`` to check with), or None when there are none or
    they belong to another classifier (their head fingerprint differs from ``shipped``'s)."""
    from .kinds import CLASSIFIER_PATH

    path = (models_dir or CLASSIFIER_PATH.parent) / REPLAY_FILE
    try:
        with np.load(path) as z:
            out = {k: z[k] for k in ("train_x", "train_y", "val_x", "val_y", "fingerprint")}
    except (OSError, KeyError, ValueError):
        return None
    head = shipped if shipped is not None else shipped_head(models_dir)
    if str(out["fingerprint"]) != head_fingerprint(head) or out["train_x"].shape[1:] != head["weight"].shape[1:]:
        return None
    return {"train_x": out["train_x"].astype(np.float32), "train_y": out["train_y"].astype(np.int64),
            "val_x": out["val_x"].astype(np.float32), "val_y": out["val_y"].astype(np.int64)}


def load_head(path: Path | None = None) -> dict[str, np.ndarray] | None:
    """The finetuned head if one was saved (and fits the shipped model), else None."""
    path = path or finetuned_head_path()
    if not path.is_file():
        return None
    try:
        with np.load(path) as z:
            head = {"weight": z["weight"].astype(np.float32), "bias": z["bias"].astype(np.float32)}
            base = str(z["base"]) if "base" in z.files else None
    except (OSError, ValueError, KeyError):
        return None
    try:
        ref = shipped_head()
    except OSError:
        return None
    if head["weight"].shape != ref["weight"].shape or base != head_fingerprint(ref):
        # trained on top of another (older) shipped model: its features mean something else now
        print(f"ignoring {path}: it was finetuned from a different classifier (run `mahjong-assistant finetune` "
              "again)", file=sys.stderr)
        return None
    return head


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train_head(feats: np.ndarray, labels: np.ndarray, init: dict[str, np.ndarray], steps: int = 300,
               lr: float = 0.5, decay: float = 1e-3) -> dict[str, np.ndarray]:
    """Softmax regression on features from the shipped head, pulled back towards it by ``decay``."""
    w, b = init["weight"].astype(np.float64).copy(), init["bias"].astype(np.float64).copy()
    w0, b0 = w.copy(), b.copy()
    scale = np.abs(feats).mean() + 1e-6
    x = feats / scale  # keep the step size independent of the feature scale
    w *= scale
    w0 *= scale
    onehot = np.eye(w.shape[0])[labels]
    n = len(x)
    for _ in range(steps):
        p = _softmax(x @ w.T + b)
        g = (p - onehot) / n
        w -= lr * (g.T @ x + decay * (w - w0))
        b -= lr * (g.sum(axis=0) + decay * (b - b0))
    return {"weight": (w / scale).astype(np.float32), "bias": b.astype(np.float32)}


__all__ = ["HEAD_FILE", "REPLAY_FILE", "data_dir", "finetuned_head_path", "head_fingerprint", "load_head",
           "load_replay", "shipped_head", "train_head"]
