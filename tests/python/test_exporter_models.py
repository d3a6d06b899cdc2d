"""Models as exporters write them load and run as in onnxruntime: sparse initializers and
Constant sparse_value (densified), one domain imported twice with the same version, domains
imported and never used, value_info for values the graph does not have, and a domain imported
twice with different versions (the last import wins, as in onnxruntime)."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort


def _run_both(model, feeds):
    data = model.SerializeToString()
    expected = onnxruntime.InferenceSession(
        data, providers=["CPUExecutionProvider"]).run(None, feeds)
    actual = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a, e)
    return actual


def _add_model(opsets, extra_value_info=(), initializer=None, sparse=None, nodes=None):
    nodes = nodes or [helper.make_node("Add", ["X", "W"], ["Y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])],
        initializer=[initializer] if initializer is not None else [],
        value_info=list(extra_value_info), sparse_initializer=[sparse] if sparse else [])
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def _sparse_w(linear):
    values = helper.make_tensor("W", TensorProto.FLOAT, [2], [5.0, -1.5])
    if linear:
        indices = helper.make_tensor("W_indices", TensorProto.INT64, [2], [1, 5])
    else:
        indices = helper.make_tensor("W_indices", TensorProto.INT64, [2, 2], [0, 1, 1, 2])
    return helper.make_sparse_tensor(values, indices, [2, 3])


@pytest.mark.parametrize("linear", (True, False))
def test_sparse_initializer_is_densified(linear):
    model = _add_model([helper.make_opsetid("", 17)], sparse=_sparse_w(linear))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = _run_both(model, {"X": x})
    w = np.zeros((2, 3), np.float32)
    w[0, 1], w[1, 2] = 5.0, -1.5
    np.testing.assert_array_equal(y, x + w)


def test_constant_sparse_value():
    constant = helper.make_node("Constant", [], ["W"], sparse_value=_sparse_w(True))
    model = _add_model([helper.make_opsetid("", 17)],
                       nodes=[constant, helper.make_node("Add", ["X", "W"], ["Y"])])
    x = np.ones((2, 3), np.float32)
    (y,) = _run_both(model, {"X": x})
    assert y[0, 1] == 6.0 and y[1, 2] == -0.5 and y[0, 0] == 1.0


def test_exporter_quirks_load():
    w = helper.make_tensor("W", TensorProto.FLOAT, [3], [1, 2, 3])
    model = _add_model(
        [helper.make_opsetid("", 17), helper.make_opsetid("", 17),  # the same import twice
         helper.make_opsetid("ai.onnx.ml", 3), helper.make_opsetid("com.example", 1)],  # unused
        extra_value_info=[helper.make_tensor_value_info("not_in_graph", TensorProto.FLOAT, [7])],
        initializer=w)
    x = np.ones((2, 3), np.float32)
    (y,) = _run_both(model, {"X": x})
    np.testing.assert_array_equal(y, x + np.array([1, 2, 3], np.float32))


def test_conflicting_imports_take_the_last_as_onnxruntime_does():
    # ReduceSum with an 'axes' attribute is valid at opset 11 and not at 13: only the last
    # import (11) makes this model run, in both runtimes.
    graph = helper.make_graph(
        [helper.make_node("ReduceSum", ["X"], ["Y"], axes=[1], keepdims=0)], "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("", 11)], ir_version=8)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = _run_both(model, {"X": x})
    np.testing.assert_array_equal(y, x.sum(axis=1))
