"""Quantise the exported classifier to int8 (onnxruntime static QDQ quantisation, per-channel weights).

    python -m models.quantize --model /tmp/mj/long/classifier.onnx --bank /tmp/mj/cls-bank2.npz \
        --out models/classifier.onnx

Calibration reads 512 crops of the classifier's training bank (seeded). On the development machine (AVX-512
VNNI) a batch of 70 crops ran 1.56x faster (87.4 -> 56.0 ms under load) and the real-crops train+val top-1
moved from 91.7 % to 91.4 % (see MODEL_CARD.md). Needs only onnxruntime (its ``quantization`` package) and
``onnx``. The detector stays float: int8 cost it 1-2 points of real-scene recall for little speed.

Weights are quantised to 7 bits (``reduce_range``): on x86 CPUs without VNNI (AVX2 only, as many AMD and older
Intel machines) onnxruntime multiplies uint8 activations by int8 weights in pairs summed into 16 bits, which
saturate with full 8-bit weights; a model quantised on a VNNI machine then reads differently elsewhere (the
white dragon, a blank face of large even activations, was read right on 29 % of its labelled tiles in 12
real-tiles valid photos instead of 87 %, and real-tiles valid tile F1 fell from 0.946 to 0.934: MODEL_CARD).
``--narrow`` turns an 8-bit QDQ model into a 7-bit one keeping its activations' calibration
(:func:`narrow_weights`), where the float model is not at hand.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np


def quantize_classifier(model: Path, bank: Path, out: Path, samples: int = 512, seed: int = 0) -> Path:
    """``model`` quantised to ``out``, calibrated on ``samples`` crops of the crop bank ``bank`` (seeded)."""
    with np.load(bank) as z:
        crops = z["x"]
    pick = np.random.default_rng(seed).choice(len(crops), min(samples, len(crops)), replace=False)
    return quantize_crops(model, crops[pick], out)


def quantize_crops(model: Path, crops: np.ndarray, out: Path) -> Path:
    """``model`` (float ONNX classifier) quantised to int8 at ``out``, calibrated on ``crops`` (uint8 upright)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.geometry import to_input

    batches = [{"crops": to_input(crops[i:i + 64])} for i in range(0, len(crops), 64)]

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter(batches)

        def get_next(self):
            return next(self._it, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(model), str(pre))
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_suffix(".tmp.onnx")
        quantize_static(str(pre), str(part), Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
                        reduce_range=True)
    part.replace(out)
    return out


WEIGHT_BITS = 7   # weights in [-64, 63]: u8 x s8 pairs fit 16 bits on CPUs without VNNI


def narrow_weights(model: Path, out: Path, bits: int = WEIGHT_BITS) -> dict:
    """The QDQ model ``model`` with its int8 convolution and matrix weights re-quantised to ``bits`` bits, per
    output channel (the scale widened by the channel's largest weight over ``2 ** (bits - 1) - 1``); the
    activations' scales and zero points, the biases (int32, scaled by the activation's and the weight's scales)
    re-scaled to match. Returns {'weights': tensors narrowed, 'largest_before': the largest |weight| seen}."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(model))
    inits = {i.name: i for i in m.graph.initializer}
    top = 2 ** (bits - 1) - 1
    narrowed, largest, new_scale = 0, 0, {}
    weight_dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in inits
                 and numpy_helper.to_array(inits[n.input[0]]).dtype == np.int8]
    for n in weight_dq:
        q = numpy_helper.to_array(inits[n.input[0]]).astype(np.int32)
        scale = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
        axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
        if scale.size > 1 and axis != 0:
            raise ValueError(f"{n.input[0]}: per-channel weights on axis {axis}, not the output channels (0)")
        shape = (-1,) + (1,) * (q.ndim - 1) if scale.size > 1 else (1,) * q.ndim   # scale against q
        peak = np.maximum(np.abs(q.reshape(scale.size, -1)).max(1), 1).astype(np.float32)
        largest = max(largest, int(peak.max()))
        factor = np.maximum(peak / top, 1.0)          # channels already within range keep their scale
        s2 = (scale * factor.reshape(scale.shape)).astype(np.float32)
        q2 = np.clip(np.round(q * scale.reshape(shape) / s2.reshape(shape)), -top - 1, top).astype(np.int8)
        inits[n.input[0]].CopyFrom(numpy_helper.from_array(q2, n.input[0]))
        inits[n.input[1]].CopyFrom(numpy_helper.from_array(s2, n.input[1]))
        new_scale[n.output[0]] = factor
        narrowed += 1
    # a bias is int32 at (input scale x weight scale): its scale widens as the weight's did
    by_output = {o: n for n in m.graph.node for o in n.output}
    for n in m.graph.node:
        if n.op_type not in ("Conv", "Gemm") or len(n.input) < 3 or n.input[1] not in new_scale:
            continue
        dq = by_output.get(n.input[2])
        if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in inits:
            continue
        b = numpy_helper.to_array(inits[dq.input[0]]).astype(np.float64)
        bs = numpy_helper.to_array(inits[dq.input[1]]).astype(np.float64)
        widened = new_scale[n.input[1]].astype(np.float64)
        f = widened.reshape(bs.shape) if bs.size > 1 else float(widened[0])
        inits[dq.input[0]].CopyFrom(numpy_helper.from_array(np.round(b / f).astype(np.int32), dq.input[0]))
        inits[dq.input[1]].CopyFrom(numpy_helper.from_array((bs * f).astype(np.float32), dq.input[1]))
    onnx.checker.check_model(m)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(out))
    return {"weights": narrowed, "largest_before": largest}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.quantize", description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="float classifier ONNX (from models.train_classifier)")
    ap.add_argument("--bank", help="crop bank .npz (models.classifier_data) for calibration")
    ap.add_argument("--out", default="models/classifier.onnx")
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--narrow", action="store_true",
                    help=f"--model is an int8 QDQ classifier: re-quantise its weights to {WEIGHT_BITS} bits, keeping "
                         "its activations' calibration (no --bank)")
    args = ap.parse_args(argv)
    if args.narrow:
        if not Path(args.model).is_file():
            print(f"error: {args.model} not found", file=sys.stderr)
            return 2
        got = narrow_weights(Path(args.model), Path(args.out))
        print(f"wrote {args.out}: {got['weights']} weight tensors to {WEIGHT_BITS} bits (largest |weight| before "
              f"{got['largest_before']})")
        return 0
    if not args.bank:
        print("error: --bank is needed to calibrate a float model (or give --narrow)", file=sys.stderr)
        return 2
    for p in (args.model, args.bank):
        if not Path(p).is_file():
            print(f"error: {p} not found", file=sys.stderr)
            return 2
    out = quantize_classifier(Path(args.model), Path(args.bank), Path(args.out), args.samples)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
