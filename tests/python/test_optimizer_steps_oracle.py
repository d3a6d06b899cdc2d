"""The training optimizer steps of ai.onnx.preview.training (Adagrad, Adam, Momentum in both
modes) against onnx.reference (onnxruntime has no kernel for them) on random tensors: one and
several tensors per node, float and double, every attribute, the first step (T = 0) and later
ones."""
import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort

_RNG = np.random.RandomState(20261129)
_STATES = {"Adagrad": ["H"], "Adam": ["V", "H"], "Momentum": ["V"]}


def _model(op, n, elem, **attrs):
    names = [f"X{i}" for i in range(n)] + [f"G{i}" for i in range(n)]
    for state in _STATES[op]:
        names += [f"{state}{i}" for i in range(n)]
    outputs = [f"X{i}_new" for i in range(n)]
    for state in _STATES[op]:
        outputs += [f"{state}{i}_new" for i in range(n)]
    node = helper.make_node(op, ["R", "T"] + names, outputs, domain="ai.onnx.preview.training",
                            **attrs)
    graph = helper.make_graph(
        [node], op.lower(),
        [helper.make_tensor_value_info("R", elem, []),
         helper.make_tensor_value_info("T", TensorProto.INT64, [])] +
        [helper.make_tensor_value_info(name, elem, None) for name in names],
        [helper.make_tensor_value_info(name, elem, None) for name in outputs])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.preview.training", 1)],
        ir_version=10)
    return model, names


@pytest.mark.parametrize("op,attrs", [
    ("Adagrad", {}),
    ("Adagrad", {"decay_factor": 0.1, "epsilon": 1e-6, "norm_coefficient": 0.01}),
    ("Adam", {}),
    ("Adam", {"alpha": 0.8, "beta": 0.9, "epsilon": 1e-7, "norm_coefficient": 0.02,
              "norm_coefficient_post": 0.05}),
    ("Momentum", {"alpha": 0.9, "beta": 0.5, "mode": "standard", "norm_coefficient": 0.01}),
    ("Momentum", {"alpha": 0.7, "beta": 0.3, "mode": "nesterov", "norm_coefficient": 0.0}),
])
@pytest.mark.parametrize("n", [1, 3])
# Double within 1e-7: onnx.reference computes terms of attributes alone (1 - alpha) in float32.
@pytest.mark.parametrize("elem,dtype,rtol", [(TensorProto.FLOAT, np.float32, 1e-5),
                                             (TensorProto.DOUBLE, np.float64, 1e-7)])
@pytest.mark.parametrize("step", [0, 4])
def test_matches_reference(op, attrs, n, elem, dtype, rtol, step):
    model, names = _model(op, n, elem, **attrs)
    feeds = {"R": np.array(0.1, dtype), "T": np.array(step, np.int64)}
    shapes = [(3, 4), (5,), (2, 1, 3)]
    for name in names:
        data = _RNG.standard_normal(shapes[int(name[1:]) % 3])
        if name.startswith("H"):
            data = np.abs(data)  # squared-gradient accumulators are never negative
        feeds[name] = data.astype(dtype)
    expected = ReferenceEvaluator(model).run(None, feeds)
    actual = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    if op == "Adam" and n > 1:
        rtol = max(rtol, 1e-6)  # onnx.reference returns several Adam tensors as float32
    for a, e in zip(actual, expected):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol)


def test_mismatched_gradient_is_refused_by_name():
    model, _ = _model("Adagrad", 1, TensorProto.FLOAT)
    feeds = {"R": np.array(0.1, np.float32), "T": np.array(0, np.int64),
             "X0": np.zeros(3, np.float32), "G0": np.zeros(4, np.float32),
             "H0": np.zeros(3, np.float32)}
    with pytest.raises(Exception, match="G of tensor 0 is"):
        ort.InferenceSession(model.SerializeToString()).run(None, feeds)
