"""Start a PyTorch network from an exported ONNX file (float or int8 QDQ) whose batch norms were folded into
its convolutions: each norm becomes the identity and must stay frozen (:func:`freeze_norms`) while fine-tuning."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import torch


def onnx_values(path: str):
    """(graph, value) of an ONNX file: ``value(name)`` is an initializer as float32, int8 weights dequantised."""
    import onnx
    from onnx import numpy_helper

    g = onnx.load(path).graph
    arrays = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    made = {}     # outputs of DequantizeLinear nodes
    for n in g.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in arrays:
            q, scale = arrays[n.input[0]].astype(np.float64), arrays[n.input[1]].astype(np.float64)
            zero = arrays[n.input[2]].astype(np.float64) if len(n.input) > 2 else 0.0
            if scale.ndim == 1 and q.ndim > 1:
                shape = (-1,) + (1,) * (q.ndim - 1)
                scale, zero = scale.reshape(shape), np.asarray(zero).reshape(shape) if np.ndim(zero) else zero
            made[n.output[0]] = ((q - zero) * scale).astype(np.float32)

    def value(name: str) -> np.ndarray:
        return made[name] if name in made else arrays[name].astype(np.float32)

    return g, value


def conv_norm_pairs(model: torch.nn.Module) -> Iterator[tuple[torch.nn.Conv2d, torch.nn.BatchNorm2d | None]]:
    """(conv, the batch norm right after it or None) pairs of ``model`` in forward order."""
    mods = list(model.modules())
    for i, m in enumerate(mods):
        if isinstance(m, torch.nn.Conv2d):
            nxt = mods[i + 1] if i + 1 < len(mods) else None
            yield m, nxt if isinstance(nxt, torch.nn.BatchNorm2d) else None


def load_folded_convs(model: torch.nn.Module, graph, value: Callable[[str], np.ndarray], path: str) -> None:
    """Copy the ONNX graph's convolutions into ``model``'s, in order; a conv followed by a batch norm gets the
    folded bias as the norm's shift (the norm set to the identity), a conv with its own bias keeps it there."""
    convs = [n for n in graph.node if n.op_type == "Conv"]
    pairs = list(conv_norm_pairs(model))
    if len(convs) != len(pairs):
        raise ValueError(f"{path}: {len(convs)} convolutions; the network has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs, strict=True):
            w = torch.from_numpy(value(node.input[1]))
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: convolution {node.name} is {tuple(w.shape)}, expected "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bias = torch.from_numpy(value(node.input[2])) if len(node.input) > 2 else torch.zeros(w.shape[0])
            if bn is None:
                if conv.bias is None:
                    raise ValueError(f"{path}: convolution {node.name} has a bias the network's lacks")
                conv.bias.copy_(bias)
                continue
            bn.weight.fill_(1.0)
            bn.bias.copy_(bias)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)


def freeze_norms(model: torch.nn.Module) -> None:
    """Batch norms in inference mode with fixed parameters (a model started from folded ONNX weights)."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()
            for p in m.parameters():
                p.requires_grad_(False)
