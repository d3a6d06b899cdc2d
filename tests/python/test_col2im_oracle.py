"""Col2Im against onnxruntime on random columns: 1-D to 3-D images, overlapping blocks (sums),
strides, dilations and pads; the inverse of an Unfold-style im2col built with numpy for int32;
overlapping string blocks are refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261212)


def _model(elem, **attrs):
    graph = helper.make_graph(
        [helper.make_node("Col2Im", ["x", "image", "block"], ["y"], **attrs)], "col2im",
        [helper.make_tensor_value_info("x", elem, None),
         helper.make_tensor_value_info("image", TensorProto.INT64, None),
         helper.make_tensor_value_info("block", TensorProto.INT64, None)],
        [helper.make_tensor_value_info("y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                             ir_version=8).SerializeToString()


def _blocks(image, block, pads, dilations, strides):
    count = 1
    for i, b, p0, p1, d, s in zip(image, block, pads[:len(image)], pads[len(image):], dilations,
                                  strides):
        count *= (i + p0 + p1 - (d * (b - 1) + 1)) // s + 1
    return count


@pytest.mark.parametrize("image,block,attrs", [
    ([5], [2], {}),
    ([4, 5], [2, 3], {}),
    ([6, 5], [3, 2], {"strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 1, 1]}),
    ([3, 4, 4], [2, 2, 2], {"strides": [1, 2, 1]}),
])
def test_matches_onnxruntime(image, block, attrs):
    rank = len(image)
    pads = attrs.get("pads", [0] * (2 * rank))
    count = _blocks(image, block, pads, attrs.get("dilations", [1] * rank),
                    attrs.get("strides", [1] * rank))
    x = _RNG.standard_normal((2, 3 * int(np.prod(block)), count)).astype(np.float32)
    model = _model(TensorProto.FLOAT, **attrs)
    feeds = {"x": x, "image": np.array(image, np.int64), "block": np.array(block, np.int64)}
    expected = onnxruntime.InferenceSession(model).run(None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_integers_sum_exactly():
    # 1-D image of 4 pixels, blocks of 2 with stride 1: pixels 1 and 2 are covered twice.
    x = np.array([[[1, 2, 3], [10, 20, 30]]], np.int32)  # tap 0 row, tap 1 row
    model = _model(TensorProto.INT32)
    y = ort.InferenceSession(model).run(
        None, {"x": x, "image": np.array([4], np.int64), "block": np.array([2], np.int64)})[0]
    np.testing.assert_array_equal(y, [[[1, 2 + 10, 3 + 20, 30]]])


def test_overlapping_strings_are_refused():
    x = np.array([[["a", "b", "c"], ["d", "e", "f"]]], dtype=object)
    with pytest.raises(Exception, match="blocks overlap, and string values cannot be added"):
        ort.InferenceSession(_model(TensorProto.STRING)).run(
            None, {"x": x, "image": np.array([4], np.int64), "block": np.array([2], np.int64)})
