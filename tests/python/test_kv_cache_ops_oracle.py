"""SwiGLU (opset 28) and TensorScatter (opset 24) against onnx.reference, the spec's
implementation (onnxruntime 1.31 lacks kernels for these opsets), on random inputs: SwiGLU with
several alphas and dtypes; TensorScatter in linear and circular mode (wrapping past the end),
on 3-D and 4-D caches along each non-batch axis, with and without write_indices; an update that
overruns a linear cache is refused by name."""
import numpy as np
import onnx.reference
import pytest
from onnx import helper

import prismrt as ort

_RNG = np.random.RandomState(20261210)


def _model(op, opset, names, **attrs):
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)], op,
        [helper.make_tensor_value_info(n, 0, None) for n in names if n],
        [helper.make_tensor_value_info("y", 0, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10).SerializeToString()


def _check(model, feeds, tolerance=1e-6):
    expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("alpha", [1.0, 1.702, 0.5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_swiglu(alpha, dtype):
    a = _RNG.standard_normal((3, 4)).astype(dtype)
    b = _RNG.standard_normal((3, 4)).astype(dtype)
    _check(_model("SwiGLU", 28, ["a", "b"], alpha=alpha), {"a": a, "b": b},
           2e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("shape,axis", [((2, 6, 3), -2), ((2, 6, 3), 1), ((2, 3, 6, 4), -2),
                                        ((2, 3, 4, 6), -1)])
@pytest.mark.parametrize("mode", ["linear", "circular"])
@pytest.mark.parametrize("with_indices", [False, True])
def test_tensor_scatter(shape, axis, mode, with_indices):
    cache = _RNG.standard_normal(shape).astype(np.float32)
    update_shape = list(shape)
    update_shape[axis] = 3
    update = _RNG.standard_normal(update_shape).astype(np.float32)
    names, feeds = ["cache", "update"], {"cache": cache, "update": update}
    if with_indices:
        length = shape[axis]
        # circular: the second batch entry wraps past the end
        starts = [1, length - 1] if mode == "circular" else [0, length - 3]
        names.append("idx")
        feeds["idx"] = np.array(starts, np.int64)
    _check(_model("TensorScatter", 24, names, mode=mode, axis=axis), feeds)


def test_linear_overrun_is_refused():
    feeds = {"cache": np.zeros((1, 4, 2), np.float32), "update": np.ones((1, 2, 2), np.float32),
             "idx": np.array([3], np.int64)}
    with pytest.raises(Exception, match="overruns the cache length 4"):
        ort.InferenceSession(_model("TensorScatter", 24, ["cache", "update", "idx"])).run(
            None, feeds)
