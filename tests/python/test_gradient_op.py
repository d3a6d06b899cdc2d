"""The training op Gradient (ai.onnx.preview.training 1), expanded by Prism into backward nodes,
against central finite differences in double precision of the sum of y: every differentiable
op, broadcasting (the gradient summed back to each input's shape), several paths to one input,
inputs held constant (zs) and an input y does not depend on (zeros); an op without a derivative
is refused naming it."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261131)


def _model(nodes, inputs, xs, y, zs=()):
    grads = ["d_" + x for x in xs]
    attrs = {"zs": list(zs)} if zs else {}
    gradient = helper.make_node("Gradient", list(xs) + list(zs), grads,
                                domain="ai.onnx.preview.training", xs=list(xs), y=y, **attrs)
    graph = helper.make_graph(
        nodes + [gradient], "gradient",
        [helper.make_tensor_value_info(name, TensorProto.DOUBLE, shape)
         for name, shape in inputs.items()],
        [helper.make_tensor_value_info(y, TensorProto.DOUBLE, None)] +
        [helper.make_tensor_value_info(g, TensorProto.DOUBLE, None) for g in grads])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.preview.training", 1)],
        ir_version=8)
    return model.SerializeToString()


def _numeric(session, feeds, y_index, x, eps=1e-6):
    grad = np.zeros_like(feeds[x])
    for i in np.ndindex(feeds[x].shape):
        for sign in (1, -1):
            shifted = dict(feeds)
            shifted[x] = feeds[x].copy()
            shifted[x][i] += sign * eps
            grad[i] += sign * session.run(None, shifted)[y_index].sum() / (2 * eps)
    return grad


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)),
                                    ((1,), (2, 3))])
def test_binary_ops_with_broadcasting(op, shapes):
    nodes = [helper.make_node(op, ["a", "b"], ["c"]), helper.make_node("Tanh", ["c"], ["y"])]
    model = _model(nodes, {"a": list(shapes[0]), "b": list(shapes[1])}, ["a", "b"], "y")
    feeds = {"a": _RNG.uniform(0.5, 1.5, shapes[0]), "b": _RNG.uniform(0.5, 1.5, shapes[1])}
    session = ort.InferenceSession(model)
    _, d_a, d_b = session.run(None, feeds)
    assert d_a.shape == shapes[0] and d_b.shape == shapes[1]
    np.testing.assert_allclose(d_a, _numeric(session, feeds, 0, "a"), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d_b, _numeric(session, feeds, 0, "b"), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("op", ["Neg", "Identity", "Relu", "Sigmoid", "Tanh", "Exp", "Log",
                                "Sqrt"])
def test_unary_ops(op):
    nodes = [helper.make_node(op, ["a"], ["u"]), helper.make_node("Mul", ["u", "a"], ["y"])]
    model = _model(nodes, {"a": [2, 5]}, ["a"], "y")
    a = _RNG.uniform(0.2, 2.0, (2, 5)) * _RNG.choice([1, -1], (2, 5)) if op == "Relu" else \
        _RNG.uniform(0.2, 2.0, (2, 5))
    session = ort.InferenceSession(model)
    d_a = session.run(None, {"a": a})[1]
    np.testing.assert_allclose(d_a, _numeric(session, {"a": a}, 0, "a"), rtol=1e-6, atol=1e-8)


def test_several_paths_constant_inputs_and_unused_inputs():
    # y = (a * b + a) * exp(a) with b held constant (zs); c does not reach y.
    nodes = [helper.make_node("Mul", ["a", "b"], ["ab"]), helper.make_node("Add", ["ab", "a"], ["s"]),
             helper.make_node("Exp", ["a"], ["e"]), helper.make_node("Mul", ["s", "e"], ["y"]),
             helper.make_node("Neg", ["c"], ["unused"])]
    model = _model(nodes, {"a": [4], "b": [4], "c": [4]}, ["a", "c"], "y", zs=["b"])
    a, b, c = (_RNG.standard_normal(4) for _ in range(3))
    _, d_a, d_c = ort.InferenceSession(model).run(None, {"a": a, "b": b, "c": c})
    # d/da [(ab + a) e^a] = (b + 1) e^a + (ab + a) e^a
    np.testing.assert_allclose(d_a, (b + 1) * np.exp(a) + (a * b + a) * np.exp(a), rtol=1e-12)
    np.testing.assert_array_equal(d_c, np.zeros(4))


def test_op_without_derivative_is_refused_by_name():
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
    model = _model(nodes, {"a": [2, 2], "b": [2, 2]}, ["a"], "y")
    with pytest.raises(Exception, match="cannot differentiate MatMul node"):
        ort.InferenceSession(model)
