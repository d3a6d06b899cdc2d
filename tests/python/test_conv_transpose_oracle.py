"""ConvTranspose against onnxruntime on random inputs: 1-D to 3-D, strides, dilations, groups,
explicit pads, output_padding, output_shape (smaller and larger than the full result), auto_pad
SAME_UPPER/SAME_LOWER/VALID, with and without bias, float and double; a W whose channels do not
match X is refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

_RNG = np.random.RandomState(20261201)


def _check(x_shape, w_shape, bias, dtype=np.float32, **attrs):
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    w = _RNG.standard_normal(w_shape).astype(dtype)
    inits = [numpy_helper.from_array(w, "W")]
    inputs = ["X", "W"]
    if bias:
        group = attrs.get("group", 1)
        inits.append(numpy_helper.from_array(
            _RNG.standard_normal(w_shape[1] * group).astype(dtype), "B"))
        inputs.append("B")
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", inputs, ["Y"], **attrs)], "convt",
        [helper.make_tensor_value_info("X", elem, list(x_shape))],
        [helper.make_tensor_value_info("Y", elem, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)],
                              ir_version=8).SerializeToString()
    x = _RNG.standard_normal(x_shape).astype(dtype)
    expected = onnxruntime.InferenceSession(
        model, providers=["CPUExecutionProvider"]).run(None, {"X": x})[0]
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"X": x})[0]
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("case", [
    ((1, 2, 5), (2, 3, 3), {}),
    ((2, 2, 4, 5), (2, 3, 3, 3), {"strides": [2, 2]}),
    ((1, 4, 3, 3), (4, 2, 2, 3), {"group": 2, "strides": [2, 1], "dilations": [2, 1]}),
    ((1, 6, 3, 3), (6, 1, 3, 3), {"group": 6}),  # depthwise
    ((1, 2, 4, 4), (2, 3, 3, 3), {"pads": [1, 0, 2, 1], "strides": [2, 2]}),
    ((1, 2, 3, 3), (2, 1, 3, 3), {"strides": [3, 2], "output_padding": [1, 1]}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [3, 2], "output_shape": [10, 8]}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [2, 2], "output_shape": [5, 5]}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 1, 3, 4), (1, 2, 2, 3), {"strides": [2, 3], "auto_pad": "SAME_LOWER"}),
    ((1, 1, 3, 3), (1, 2, 3, 3), {"auto_pad": "VALID", "strides": [2, 2]}),
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 2), {"strides": [2, 1, 2]}),
])
def test_conv_transpose_matches_onnxruntime(case, bias):
    x_shape, w_shape, attrs = case
    _check(x_shape, w_shape, bias, **attrs)


def test_double_agrees_with_onnxruntimes_float():
    # onnxruntime has no double kernel: the same float32-exact data in double against its float.
    def model(elem, x_dtype, w):
        graph = helper.make_graph(
            [helper.make_node("ConvTranspose", ["X", "W"], ["Y"], strides=[2, 2])], "convt",
            [helper.make_tensor_value_info("X", elem, [1, 2, 4, 4])],
            [helper.make_tensor_value_info("Y", elem, None)],
            [numpy_helper.from_array(w.astype(x_dtype), "W")])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)],
                                 ir_version=8).SerializeToString()
    w = _RNG.standard_normal((2, 2, 3, 3)).astype(np.float32)
    x = _RNG.standard_normal((1, 2, 4, 4)).astype(np.float32)
    expected = onnxruntime.InferenceSession(model(TensorProto.FLOAT, np.float32, w)).run(
        None, {"X": x})[0]
    actual = ort.InferenceSession(model(TensorProto.DOUBLE, np.float64, w)).run(
        None, {"X": x.astype(np.float64)})[0]
    assert actual.dtype == np.float64
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_mismatched_channels_are_refused():
    w = numpy_helper.from_array(np.ones((3, 1, 2, 2), np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", ["X", "W"], ["Y"])], "convt",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 3, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)],
                              ir_version=8).SerializeToString()
    with pytest.raises(Exception, match="X has 2 channels but W"):
        ort.InferenceSession(model).run(None, {"X": np.ones((1, 2, 3, 3), np.float32)})
