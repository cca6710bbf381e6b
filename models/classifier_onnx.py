"""The classifier as ONNX: start a :class:`models.nets.TileClassifier` from an exported file (float or int8) and
export one (outputs ``kind_logits``, ``flip_logit`` and ``features``). Used by training and by adapting a tile set
(:mod:`models.adapt_set`); needs ``torch`` and ``onnx``."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import torch

from models.nets import CROP_H, CROP_W, TileClassifier
from models.onnx_weights import load_folded_convs, onnx_values


def load_onnx_weights(model: TileClassifier, path: str) -> None:
    """Start ``model`` from an exported classifier (float or int8 QDQ ONNX, e.g. the shipped one): its
    convolutions carry the batch norms folded in, so each norm is set to the identity (and must stay frozen:
    :func:`freeze_norms`); int8 weights are dequantised. A ``<stem>_head.npz`` beside the file (the float
    kind head) is preferred to the ONNX file's own kind head."""
    g, value = onnx_values(path)
    gemms = [n for n in g.node if n.op_type == "Gemm"]
    if len(gemms) != 2:
        raise ValueError(f"{path}: {len(gemms)} linear layers; the classifier has 2")
    load_folded_convs(model, g, value, path)
    with torch.no_grad():
        heads = {}
        for node in gemms:
            w = value(node.input[1])
            heads["flip" if w.shape[0] == 1 else "kind"] = (w, value(node.input[2]))
        head_file = Path(path).with_name(Path(path).stem + "_head.npz")
        if head_file.is_file():
            h = np.load(head_file)
            heads["kind"] = (h["weight"].astype(np.float32), h["bias"].astype(np.float32))
        for name in ("kind", "flip"):
            w, b = heads[name]
            layer = getattr(model, name)
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
            layer.bias.copy_(torch.from_numpy(np.ascontiguousarray(b)))


class _WithFeatures(torch.nn.Module):
    """The classifier with its pooled features as a third output (what `finetune` retrains a head on)."""

    def __init__(self, model: TileClassifier) -> None:
        super().__init__()
        self.model = model

    def forward(self, crops):
        f = self.model.features(crops).mean(dim=(2, 3))
        return self.model.kind(f), self.model.flip(f), f


def export_onnx(model: TileClassifier, path: str, kinds: list[str], quiet: bool = False) -> None:
    """ONNX with outputs kind_logits, flip_logit and features; the kind head's weights go beside it
    (``<path stem>_head.npz``) so `mahjong-assistant finetune` can start from them."""
    model = model.cpu().eval()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():   # the TorchScript exporter's deprecation notices (it is the one that folds
        warnings.simplefilter("ignore", DeprecationWarning)   # these small graphs exactly)
        torch.onnx.export(_WithFeatures(model), (torch.zeros(1, 3, CROP_H, CROP_W),), path, opset_version=17,
                          input_names=["crops"], output_names=["kind_logits", "flip_logit", "features"],
                          dynamic_axes={"crops": {0: "n"}, "kind_logits": {0: "n"}, "flip_logit": {0: "n"},
                                        "features": {0: "n"}},
                          dynamo=False)
    np.savez(Path(path).with_name(Path(path).stem + "_head.npz"),
             weight=model.kind.weight.detach().numpy(), bias=model.kind.bias.detach().numpy(),
             kinds=np.array(kinds))
    try:
        import onnx

        m = onnx.load(path)
        entry = m.metadata_props.add()
        entry.key, entry.value = "kinds", ",".join(kinds)
        onnx.save(m, path)
    except ImportError:  # metadata is a convenience; vision/inference.py knows the kinds
        pass
    if not quiet:
        print(f"exported {path} ({os.path.getsize(path) / 1e6:.2f} MB)", flush=True)
