"""MaxUnpool against onnxruntime on MaxPool's own indices (MaxPool -> MaxUnpool round trips,
1-D to 3-D, strides, pads, overlapping windows, output_shape restoring odd sizes) and
hand-checked values; indices outside the output are refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261127)


def _round_trip_model(kernel, strides, pads, with_shape):
    nodes = [helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=kernel, strides=strides,
                              pads=pads)]
    inputs = ["p", "i"]
    if with_shape:
        nodes.append(helper.make_node("Shape", ["x"], ["s"]))
        inputs.append("s")
    nodes.append(helper.make_node("MaxUnpool", inputs, ["y"], kernel_shape=kernel,
                                  strides=strides, pads=pads))
    graph = helper.make_graph(nodes, "unpool",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)],
                             ir_version=8).SerializeToString()


@pytest.mark.parametrize("shape,kernel,strides,pads", [
    ((2, 3, 8), [2], [2], [0, 0]),
    ((1, 2, 5, 5), [2, 2], [2, 2], [0, 0, 0, 0]),
    ((1, 2, 7, 6), [3, 2], [2, 1], [1, 0, 1, 1]),
    ((1, 1, 4, 5, 6), [2, 2, 3], [2, 2, 2], [0, 0, 1, 0, 0, 1]),
])
@pytest.mark.parametrize("with_shape", [False, True])
def test_round_trip_matches_onnxruntime(shape, kernel, strides, pads, with_shape):
    x = _RNG.standard_normal(shape).astype(np.float32)
    model = _round_trip_model(kernel, strides, pads, with_shape)
    try:
        expected = onnxruntime.InferenceSession(model).run(None, {"x": x})[0]
    except Exception as error:
        # The default output is smaller than MaxPool's input: an index falls outside it.
        assert "out of bounds" in str(error)
        with pytest.raises(Exception, match="is outside the output of"):
            ort.InferenceSession(model).run(None, {"x": x})
        return
    actual = ort.InferenceSession(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(actual, expected)
    if with_shape:
        assert actual.shape == x.shape
        # Every kept value is the input's value at that position, the rest zero.
        kept = actual != 0
        np.testing.assert_array_equal(actual[kept], x[kept])


def test_hand_checked_values_and_bad_index():
    graph = helper.make_graph(
        [helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2], strides=[2])],
        "unpool", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, None),
                   helper.make_tensor_value_info("i", TensorProto.INT64, None)],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)],
                              ir_version=10).SerializeToString()
    session = ort.InferenceSession(model)
    y = session.run(None, {"x": np.array([[[4.0, 9.0]]]), "i": np.array([[[1, 2]]])})[0]
    np.testing.assert_array_equal(y, [[[0.0, 4.0, 9.0, 0.0]]])
    with pytest.raises(Exception, match=r"I\[1\] = 4 is outside the output of 4 elements"):
        session.run(None, {"x": np.array([[[4.0, 9.0]]]), "i": np.array([[[1, 4]]])})
