"""Model-local functions (ModelProto.functions) run as onnxruntime runs them: attributes passed
by reference and defaulted (attribute_proto), nested calls, a function called twice, an unused
function output, and a call inside an If branch."""
import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper

import prismrt as ort

_OPSETS = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]


def _functions():
    # ScaleShift(x, shift) = (x * alpha + shift, x * alpha); alpha an attribute, default 2.
    alpha_node = helper.make_node("Constant", [], ["alpha_t"])
    alpha_node.attribute.append(onnx.AttributeProto(name="value_float", ref_attr_name="alpha",
                                                    type=onnx.AttributeProto.FLOAT))
    body = [alpha_node,
            helper.make_node("Mul", ["x", "alpha_t"], ["scaled"]),
            helper.make_node("Add", ["scaled", "shift"], ["y"])]
    scale_shift = helper.make_function("local", "ScaleShift", ["x", "shift"], ["y", "scaled"],
                                       body, [helper.make_opsetid("", 18)])
    scale_shift.attribute_proto.append(helper.make_attribute("alpha", 2.0))
    # ReluScaled(x, zero) = Relu(ScaleShift(x, zero) with alpha 3): a nested call.
    nested = helper.make_function(
        "local", "ReluScaled", ["x", "zero"], ["y"],
        [helper.make_node("ScaleShift", ["x", "zero"], ["s", ""], domain="local", alpha=3.0),
         helper.make_node("Relu", ["s"], ["y"])],
        [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)])
    return [scale_shift, nested]


def _run_both(model, feeds):
    data = model.SerializeToString()
    expected = onnxruntime.InferenceSession(
        data, providers=["CPUExecutionProvider"]).run(None, feeds)
    actual = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-6)
    return actual


def test_attributes_defaults_nesting_and_repeated_calls():
    nodes = [
        helper.make_node("ScaleShift", ["X", "B"], ["Y1", "S1"], domain="local", alpha=0.5),
        helper.make_node("ScaleShift", ["X", "B"], ["Y2", ""], domain="local"),  # default alpha
        helper.make_node("ReluScaled", ["X", "Z"], ["Y3"], domain="local"),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("Z", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("Y1", "S1", "Y2", "Y3")])
    model = helper.make_model(graph, opset_imports=_OPSETS, functions=_functions(), ir_version=10)
    x = np.array([-2, -0.5, 1, 3], dtype=np.float32)
    b = np.array([1, 2, 3, 4], dtype=np.float32)
    y1, s1, y2, y3 = _run_both(model, {"X": x, "B": b, "Z": np.zeros(4, np.float32)})
    np.testing.assert_allclose(y1, x * 0.5 + b)
    np.testing.assert_allclose(s1, x * 0.5)
    np.testing.assert_allclose(y2, x * 2 + b)
    np.testing.assert_allclose(y3, np.maximum(x * 3, 0))


def test_call_inside_an_if_branch():
    then_graph = helper.make_graph(
        [helper.make_node("ScaleShift", ["X", "B"], ["T", ""], domain="local", alpha=10.0)], "then",
        [], [helper.make_tensor_value_info("T", TensorProto.FLOAT, [4])])
    else_graph = helper.make_graph(
        [helper.make_node("Identity", ["X"], ["E"])], "else", [],
        [helper.make_tensor_value_info("E", TensorProto.FLOAT, [4])])
    graph = helper.make_graph(
        [helper.make_node("If", ["C"], ["Y"], then_branch=then_graph, else_branch=else_graph)],
        "g",
        [helper.make_tensor_value_info("C", TensorProto.BOOL, []),
         helper.make_tensor_value_info("X", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=_OPSETS, functions=_functions(), ir_version=10)
    x = np.array([1, 2, 3, 4], dtype=np.float32)
    b = np.ones(4, dtype=np.float32)
    (y,) = _run_both(model, {"C": np.array(True), "X": x, "B": b})
    np.testing.assert_allclose(y, x * 10 + 1)
    (y,) = _run_both(model, {"C": np.array(False), "X": x, "B": b})
    np.testing.assert_allclose(y, x)
