"""DFT against onnxruntime on random signals: real and complex inputs, forward and inverse,
one-sided forward (rfft) and inverse (irfft), dft_length shorter and longer than the signal,
every signal axis of a 4-D input, opset 17 (axis attribute) and 20 (axis input); a one-sided
forward transform of a complex signal is refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261209)


def _check(opset, x, length, axis, **attrs):
    inputs = ["x", "n" if length is not None else ""]
    feeds = {"x": x}
    if length is not None:
        feeds["n"] = np.array(length, np.int64)
    if opset >= 20:
        inputs.append("axis")
        feeds["axis"] = np.array(axis, np.int64)
    else:
        attrs["axis"] = axis
    while not inputs[-1]:
        inputs.pop()
    graph = helper.make_graph(
        [helper.make_node("DFT", inputs, ["y"], **attrs)], "dft",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT if n == "x" else TensorProto.INT64,
                                       None) for n in inputs if n],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=10).SerializeToString()
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("components", [1, 2])
@pytest.mark.parametrize("inverse", [0, 1])
@pytest.mark.parametrize("length", [None, 5, 12])
def test_full_transforms(opset, components, inverse, length):
    x = _RNG.standard_normal((2, 8, 3, components)).astype(np.float32)
    _check(opset, x, length, 1, inverse=inverse)


@pytest.mark.parametrize("axis", [1, 2, -2])
def test_every_signal_axis(axis):
    _check(20, _RNG.standard_normal((2, 6, 5, 2)).astype(np.float32), None, axis)


@pytest.mark.parametrize("length", [None, 6, 9])
def test_one_sided(length):
    x = _RNG.standard_normal((2, 8, 1)).astype(np.float32)
    _check(20, x, length, 1, onesided=1)
    half = _RNG.standard_normal((2, 5, 2)).astype(np.float32)
    _check(20, half, length, 1, onesided=1, inverse=1)


def test_one_sided_forward_of_a_complex_signal_is_refused():
    graph = helper.make_graph(
        [helper.make_node("DFT", ["x"], ["y"], onesided=1)], "dft",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                              ir_version=10).SerializeToString()
    with pytest.raises(Exception, match="one-sided forward transform needs a real input"):
        ort.InferenceSession(model).run(None, {"x": np.ones((1, 4, 2), np.float32)})
