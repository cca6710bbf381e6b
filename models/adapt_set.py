"""Adapt the classifier's later stages to one physical tile set (PyTorch: the optional extra ``adapt``).

A set's few photos show a new design of faces (bamboo birds, flowers, fonts); the kind head alone cannot learn it
(its input features are the shipped network's). Here the network's later stages are fine-tuned as well:

* the early stages (``features[:CUT]``: the stem down to 128 channels at 6x5) stay the shipped ones, frozen; the
  set's examples go through them once, in :data:`VIEWS` jittered views each (turned, misfitted, lighter or
  darker, upside down half of the time, so the flip head is taught too);
* the later stages (``features[CUT:]``: the last residual block and the 1x1 convolution to 192 features) and both
  heads are trained, from the shipped weights, with each batch half the set's examples and half **generic
  examples** of every kind replayed (``classifier_replay_mid.npz`` beside the classifier: the early stages'
  activations of real-tiles ``train`` crops and made crops, stored as uint8; see :mod:`models.replay_features`),
  so kinds the set has not shown yet do not drift;
* the result is exported as an int8 ONNX classifier (:func:`export_int8`), calibrated on the set's own crops,
  which ``--tileset`` then reads instead of the shipped one.

The guard (kept only while it reads the held-back examples better than the shipped models and generic
examples no worse) is :func:`vision.tilesets.learn`'s. Deterministic by seed; up to 4 threads.
"""

from __future__ import annotations

import copy
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CUT = 6                  # features[:CUT] frozen (stem .. conv to 128 channels), features[CUT:] adapted
MID_REPLAY_FILE = "classifier_replay_mid.npz"
STEPS = 150              # optimiser steps of one adaptation
BATCH = 64               # set examples per step (as many generic ones beside them)
LR = 1e-3
ANCHOR = 1e-2            # pull of the adapted weights back towards the shipped ones (L2 on the difference)
FLIP_WEIGHT = 0.5        # weight of the flip head's loss
REPLAY_RATIO = 1.0       # generic examples per set example in a batch
DISTILL = 1.0            # weight of the generic examples read as the shipped model reads them (KL)


def available() -> bool:
    """Whether adapting the network can run here (``torch`` and ``onnx`` importable)."""
    return importlib.util.find_spec("torch") is not None and importlib.util.find_spec("onnx") is not None


MISSING = ("PyTorch is not installed: only the last layer was adapted (pip install 'mahjong-assistant[adapt]' "
           "adapts the network itself)")


@dataclass
class MidReplay:
    """Generic examples at the cut: uint8 activations (``x * scale[c]`` is channel ``c``'s value), their kinds,
    which way up each lay (0 upright, 1 upside down, -1 unknown), the ones to replay and the ones to check with."""

    train_x: np.ndarray      # [N, 128, 6, 5] uint8
    train_y: np.ndarray      # [N] kind index
    train_flip: np.ndarray   # [N] 0, 1 or -1
    val_x: np.ndarray
    val_y: np.ndarray
    scale: np.ndarray        # [128] float32

    def decode(self, x: np.ndarray):
        import torch

        return torch.from_numpy(x.astype(np.float32) * self.scale[None, :, None, None])


def load_mid_replay(models_dir: Path, fingerprint: str) -> MidReplay | None:
    """The mid-level replay beside the classifier, or None when there is none or it belongs to another
    classifier (its head fingerprint is not ``fingerprint``)."""
    try:
        with np.load(Path(models_dir) / MID_REPLAY_FILE) as z:
            if str(z["fingerprint"]) != fingerprint:
                return None
            return MidReplay(z["train_x"], z["train_y"].astype(np.int64), z["train_flip"].astype(np.int64),
                             z["val_x"], z["val_y"].astype(np.int64), z["scale"].astype(np.float32))
    except (OSError, KeyError, ValueError):
        return None


class SetAdapter:
    """The shipped classifier in PyTorch (from its ONNX file), split at :data:`CUT`, and what adapts it."""

    def __init__(self, classifier: str | Path, threads: int | None = None) -> None:
        import torch

        from models.classifier_onnx import load_onnx_weights
        from models.nets import TileClassifier
        from models.onnx_weights import freeze_norms

        torch.set_num_threads(max(1, threads if threads is not None else min(4, os.cpu_count() or 1)))
        self.base = TileClassifier()
        load_onnx_weights(self.base, str(classifier))
        freeze_norms(self.base)
        self.base.eval()

    # -- forward passes ------------------------------------------------------------------------------
    def early(self, crops: np.ndarray, batch: int = 256):
        """The frozen early stages' activations of uint8 upright crops [N, 96, 72, 3]: float tensor [N, 128, 6, 5]."""
        import torch

        from vision.geometry import to_input

        outs = []
        with torch.no_grad():
            for i in range(0, len(crops), batch):
                outs.append(self.base.features[:CUT](torch.from_numpy(to_input(crops[i:i + batch]))))
        return torch.cat(outs) if outs else torch.zeros((0, 128, 6, 5))

    @staticmethod
    def late(model, mid):
        """(kind logits, flip logit) of activations at the cut through ``model``'s later stages."""
        f = model.features[CUT:](mid).mean(dim=(2, 3))
        f = model.drop(f)
        return model.kind(f), model.flip(f)[:, 0]

    def kinds_of(self, model, mid, mask: np.ndarray | None) -> np.ndarray:
        """The kind each activation is read as (argmax over the ``mask``'s kinds)."""
        return self.probabilities(model, mid, mask).argmax(1)

    def probabilities(self, model, mid, mask: np.ndarray | None) -> np.ndarray:
        """[N, kinds] probabilities of activations at the cut (0 outside the ``mask``'s kinds)."""
        import torch

        from vision.geometry import softmax

        model.eval()
        with torch.no_grad():
            logits = self.late(model, mid)[0].numpy().astype(np.float64)
        return softmax(np.where(mask[None], logits, -1e9) if mask is not None else logits, 1)

    def accuracy(self, model, mid, labels: np.ndarray, mask: np.ndarray | None) -> float:
        if not len(labels):
            return float("nan")
        return float(np.mean(self.kinds_of(model, mid, mask) == labels))

    # -- adapting ------------------------------------------------------------------------------------
    def fit(self, mid, labels: np.ndarray, lie: np.ndarray, replay: MidReplay | None, *, seed: int = 0,
            steps: int | None = None, batch: int | None = None, lr: float | None = None,
            anchor_weight: float | None = None, replay_ratio: float | None = None, distill: float | None = None):
        """A copy of the shipped classifier whose later stages and heads were trained on the set's examples
        (activations ``mid`` of their views, kinds ``labels``, ``lie`` 1 where a view lies upside down, 0 upright,
        -1 where no lie is known: "not a tile", backs) and the generic ``replay``."""
        import torch
        import torch.nn.functional as F

        steps, batch = STEPS if steps is None else steps, BATCH if batch is None else batch
        lr, anchor_weight = LR if lr is None else lr, ANCHOR if anchor_weight is None else anchor_weight
        replay_ratio = REPLAY_RATIO if replay_ratio is None else replay_ratio
        distill = DISTILL if distill is None else distill
        model = copy.deepcopy(self.base)
        params = [p for m in (model.features[CUT:], model.kind, model.flip) for p in m.parameters() if p.requires_grad]
        anchor = [p.detach().clone() for p in params]
        opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(1, steps))
        rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        y_set = torch.from_numpy(np.asarray(labels, np.int64))
        lie = np.asarray(lie, np.int64)
        f_set = torch.from_numpy(np.maximum(lie, 0).astype(np.float32))
        k_set = torch.from_numpy((lie >= 0).astype(np.float32))
        teacher = None
        if replay is not None and distill > 0:   # the shipped model's readings of the generic examples
            with torch.no_grad():
                parts = [replay.decode(replay.train_x[k:k + 512]) for k in range(0, len(replay.train_y), 512)]
                teacher = torch.cat([torch.log_softmax(self.late(self.base, p)[0], 1) for p in parts])
        for _ in range(steps):
            i = rng.integers(0, len(labels), min(batch, len(labels)))
            xs, ys, fs, fk = [mid[i]], [y_set[i]], [f_set[i]], [k_set[i]]
            if replay is not None and len(replay.train_y):
                j = rng.integers(0, len(replay.train_y), max(1, int(round(replay_ratio * len(i)))))
                xs.append(replay.decode(replay.train_x[j]))
                ys.append(torch.from_numpy(replay.train_y[j]))
                rf = replay.train_flip[j]
                fs.append(torch.from_numpy(np.maximum(rf, 0).astype(np.float32)))
                fk.append(torch.from_numpy((rf >= 0).astype(np.float32)))
            x, y, f, known = torch.cat(xs), torch.cat(ys), torch.cat(fs), torch.cat(fk)
            model.train()
            freeze_batch_norms(model)
            kind, flip = self.late(model, x)
            loss = F.cross_entropy(kind, y)
            if teacher is not None:   # generic examples read as the shipped model reads them
                n = len(i)
                loss = loss + distill * F.kl_div(torch.log_softmax(kind[n:], 1), teacher[j], log_target=True,
                                                 reduction="batchmean")
            loss = loss + FLIP_WEIGHT * (F.binary_cross_entropy_with_logits(flip, f, reduction="none") * known
                                         ).sum() / known.sum().clamp(min=1)
            loss = loss + anchor_weight * sum(((p - a) ** 2).sum() for p, a in zip(params, anchor, strict=True))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        return model

    def export_int8(self, model, calibration: np.ndarray) -> bytes:
        """``model`` as an int8 ONNX classifier (the shipped one's outputs), calibrated on ``calibration``
        (uint8 crops, e.g. the set's own): the file's bytes."""
        from models.classifier_onnx import export_onnx
        from models.quantize import quantize_crops
        from vision.inference import KINDS

        with tempfile.TemporaryDirectory() as tmp:
            fp = Path(tmp) / "classifier.onnx"
            export_onnx(model, str(fp), list(KINDS), quiet=True)
            out = quantize_crops(fp, calibration, Path(tmp) / "classifier-int8.onnx")
            return out.read_bytes()


def freeze_batch_norms(model) -> None:
    """Batch norms stay in inference mode (the shipped weights have them folded to the identity)."""
    import torch

    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()
