"""AffineGrid against onnxruntime on random matrices: 2-D and 3-D, corners aligned or not, axes of
length 1, and the grid fed to GridSample (the pair a spatial transformer uses). For an axis of
length 1 with aligned corners onnxruntime puts the point at +1, onnx.reference (and PyTorch's
linspace(-1, 1, 1)) at -1; Prism follows the reference, so those cases use it as the oracle."""
import numpy as np
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261211)


def _run_both(nodes, inputs, feeds, reference=False):
    graph = helper.make_graph(nodes, "affine", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                              ir_version=9).SerializeToString()
    if reference:
        expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)[0]
    else:
        expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size", [[2, 3, 4, 5], [1, 1, 1, 6], [2, 2, 3, 4, 5], [1, 1, 1, 1, 3]])
@pytest.mark.parametrize("align", [0, 1])
def test_affine_grid(size, align):
    rank = len(size) - 2
    theta = _RNG.standard_normal((size[0], rank, rank + 1)).astype(np.float32)
    _run_both([helper.make_node("AffineGrid", ["theta", "size"], ["y"], align_corners=align)],
              [helper.make_tensor_value_info("theta", TensorProto.FLOAT, None),
               helper.make_tensor_value_info("size", TensorProto.INT64, [len(size)])],
              {"theta": theta, "size": np.array(size, np.int64)},
              reference=bool(align) and 1 in size[2:])


def test_spatial_transformer():
    theta = (np.eye(2, 3)[None] + 0.1 * _RNG.standard_normal((2, 2, 3))).astype(np.float32)
    x = _RNG.standard_normal((2, 3, 6, 7)).astype(np.float32)
    _run_both([helper.make_node("AffineGrid", ["theta", "size"], ["grid"]),
               helper.make_node("GridSample", ["x", "grid"], ["y"])],
              [helper.make_tensor_value_info("theta", TensorProto.FLOAT, None),
               helper.make_tensor_value_info("size", TensorProto.INT64, [4]),
               helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
              {"theta": theta, "size": np.array([2, 3, 6, 7], np.int64), "x": x})
