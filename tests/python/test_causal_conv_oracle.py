"""CausalConvWithState (opset 27) against onnx.reference, the spec's implementation (onnxruntime
1.31 has no kernel for it), on random inputs: kernel sizes 1 to 4, with and without bias and
past_state, every activation, float and float16, and a decode loop where each step's
present_state feeds the next and the outputs equal one pass over the whole sequence; a weight of
the wrong shape is refused by name."""
import numpy as np
import onnx.reference
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261207)


def _model(elem, bias, past, activation):
    names = ["input", "weight", "bias" if bias else "", "past" if past else ""]
    while names and not names[-1]:
        names.pop()
    graph = helper.make_graph(
        [helper.make_node("CausalConvWithState", names, ["y", "state"], activation=activation)],
        "conv",
        [helper.make_tensor_value_info(n, elem, None) for n in names if n],
        [helper.make_tensor_value_info("y", elem, None),
         helper.make_tensor_value_info("state", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)],
                             ir_version=10).SerializeToString()


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("past", [False, True])
@pytest.mark.parametrize("activation", ["none", "silu", "swish"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_matches_the_reference(k, bias, past, activation, dtype):
    b, c, length = 2, 3, 5
    feeds = {"input": _RNG.standard_normal((b, c, length)).astype(dtype),
             "weight": _RNG.standard_normal((c, 1, k)).astype(dtype)}
    if bias:
        feeds["bias"] = _RNG.standard_normal(c).astype(dtype)
    if past:
        feeds["past"] = _RNG.standard_normal((b, c, k - 1)).astype(dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    model = _model(elem, bias, past, activation)
    expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)
    actual = ort.InferenceSession(model).run(None, feeds)
    tolerance = 2e-3 if dtype == np.float16 else 1e-5
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=tolerance,
                                   atol=tolerance)


def test_decode_steps_equal_one_pass():
    k, b, c, length = 3, 1, 2, 6
    x = _RNG.standard_normal((b, c, length)).astype(np.float32)
    w = _RNG.standard_normal((c, 1, k)).astype(np.float32)
    whole = ort.InferenceSession(_model(TensorProto.FLOAT, False, False, "silu")).run(
        None, {"input": x, "weight": w})[0]
    step = ort.InferenceSession(_model(TensorProto.FLOAT, False, True, "silu"))
    state = np.zeros((b, c, k - 1), np.float32)
    pieces = []
    for t in range(length):
        y, state = step.run(None, {"input": x[:, :, t:t + 1], "weight": w, "past": state})
        pieces.append(y)
    np.testing.assert_allclose(np.concatenate(pieces, axis=2), whole, rtol=1e-6, atol=1e-6)


def test_wrong_weight_shape_is_refused():
    feeds = {"input": np.ones((1, 2, 3), np.float32), "weight": np.ones((3, 1, 2), np.float32)}
    with pytest.raises(Exception, match=r"weight must be \[2, 1, k\]"):
        ort.InferenceSession(_model(TensorProto.FLOAT, False, False, "none")).run(None, feeds)
