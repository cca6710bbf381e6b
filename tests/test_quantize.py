"""models/quantize.py: the classifier's int8 weights narrowed to 7 bits (CPUs without VNNI saturate 8-bit ones)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from models.quantize import narrow_weights  # noqa: E402


def _tiny_qdq(path):
    """x (1x2) -> Q/DQ (scale 1, uint8) -> Gemm with int8 weights per output channel [[127, -127], [10, 20]] at
    scales [0.01, 0.1] (weights [[1.27, -1.27], [1, 2]]) and int32 biases [1000, 50] at the same scales ([10, 5])."""
    init = [numpy_helper.from_array(np.array(1.0, np.float32), "xs"),
            numpy_helper.from_array(np.array(0, np.uint8), "xz"),
            numpy_helper.from_array(np.array([[127, -127], [10, 20]], np.int8), "wq"),
            numpy_helper.from_array(np.array([0.01, 0.1], np.float32), "ws"),
            numpy_helper.from_array(np.array([0, 0], np.int8), "wz"),
            numpy_helper.from_array(np.array([1000, 50], np.int32), "bq"),
            numpy_helper.from_array(np.array([0.01, 0.1], np.float32), "bs"),
            numpy_helper.from_array(np.array([0, 0], np.int32), "bz")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0),
             helper.make_node("DequantizeLinear", ["bq", "bs", "bz"], ["b"], axis=0),
             helper.make_node("Gemm", ["xd", "w", "b"], ["y"], transB=1)]
    g = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])], init)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def test_weights_beyond_seven_bits_are_narrowed_and_the_biases_follow(tmp_path):
    _tiny_qdq(tmp_path / "a.onnx")
    got = narrow_weights(tmp_path / "a.onnx", tmp_path / "b.onnx")
    assert got == {"weights": 1, "largest_before": 127}       # one int8 weight tensor (the bias is int32)
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(tmp_path / "b.onnx")).graph.initializer}
    assert inits["wq"].tolist() == [[63, -63], [10, 20]]      # channel 0 at 63/127 of its steps; channel 1 fits
    np.testing.assert_allclose(inits["ws"], [0.01 * 127 / 63, 0.1], rtol=1e-6)
    assert inits["bq"].tolist() == [496, 50]                 # round(1000 * 63 / 127); channel 1 unchanged
    sess = ort.InferenceSession(str(tmp_path / "b.onnx"), providers=["CPUExecutionProvider"])
    y = sess.run(None, {"x": np.array([[1.0, 1.0]], np.float32)})[0]
    np.testing.assert_allclose(y, [[1.27 - 1.27 + 10, 1 + 2 + 5]], atol=0.01)
