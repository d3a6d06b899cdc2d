"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against onnxruntime on random inputs:
every reduction, with and without class weights, ignore_index (inside and outside the class
range), 2-D to 5-D inputs, int32 and int64 targets, the log_prob output; a target outside the
classes that is not ignored is refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

_RNG = np.random.RandomState(20261129)


def _model(op, opset, scores_shape, target_type, weight, log_prob=False, **attrs):
    inits = [numpy_helper.from_array(weight, "W")] if weight is not None else []
    inputs = ["X", "T"] + (["W"] if weight is not None else [])
    outputs = ["loss"] + (["log_prob"] if log_prob else [])
    graph = helper.make_graph(
        [helper.make_node(op, inputs, outputs, **attrs)], "loss",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(scores_shape)),
         helper.make_tensor_value_info("T", target_type, [scores_shape[0]] +
                                       list(scores_shape[2:]))],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10).SerializeToString()


_SHAPES = [(4, 3), (2, 5, 3), (2, 4, 2, 3), (1, 3, 2, 2, 2)]


@pytest.mark.parametrize("op,opset", [("NegativeLogLikelihoodLoss", 22),
                                      ("SoftmaxCrossEntropyLoss", 13)])
@pytest.mark.parametrize("shape", _SHAPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [None, 1, -7])
def test_losses_match_onnxruntime(op, opset, shape, reduction, weighted, ignore_index):
    classes = shape[1]
    target_shape = (shape[0],) + shape[2:]
    target = _RNG.randint(0, classes, size=target_shape).astype(np.int64)
    if ignore_index is not None:
        target.flat[::3] = ignore_index  # some targets ignored (-7: outside the class range)
    weight = _RNG.uniform(0.5, 2.0, classes).astype(np.float32) if weighted else None
    attrs = {"reduction": reduction}
    if ignore_index is not None:
        attrs["ignore_index"] = ignore_index
    x = _RNG.standard_normal(shape).astype(np.float32)
    if op == "NegativeLogLikelihoodLoss":
        x = -np.abs(x)  # log-probabilities
    log_prob = op == "SoftmaxCrossEntropyLoss"
    for target_type, dtype in ((TensorProto.INT64, np.int64), (TensorProto.INT32, np.int32)):
        model = _model(op, opset, shape, target_type, weight, log_prob=log_prob, **attrs)
        feeds = {"X": x, "T": target.astype(dtype)}
        expected = onnxruntime.InferenceSession(
            model, providers=["CPUExecutionProvider"]).run(None, feeds)
        actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert a.shape == e.shape and a.dtype == e.dtype
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


def test_a_target_outside_the_classes_is_refused():
    model = _model("NegativeLogLikelihoodLoss", 22, (2, 3), TensorProto.INT64, None)
    feeds = {"X": -np.ones((2, 3), np.float32), "T": np.array([0, 3], np.int64)}
    with pytest.raises(Exception, match=r"target value 3 at position 1 is outside \[0, 3\)"):
        ort.InferenceSession(model).run(None, feeds)
