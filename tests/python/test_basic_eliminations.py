"""CommonSubexpressionElimination and ReshapeChainElimination against onnxruntime: a block as
exporters write it (each head's Shape/Gather/Unsqueeze/Concat/Reshape/Transpose run repeated,
with its own copies of the constants; a Reshape of a Reshape; a duplicated graph output).
Prism's optimized session equals onnxruntime on the original model, and the optimized model
Prism saves (one chain left, an Identity writing the duplicated output) loads in onnxruntime and
in Prism with its optimizations off, giving the same results."""
import collections

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

import prismrt


def _exported_block():
    inits, nodes = [], []

    def ints(name, values, scalar=False):
        array = np.array(values[0] if scalar else values, np.int64)
        inits.append(numpy_helper.from_array(array, name))
        return name

    heads = []
    for p in ("q", "k"):
        nodes += [
            helper.make_node("Shape", ["x"], [f"s_{p}"]),
            helper.make_node("Gather", [f"s_{p}", ints(f"i_{p}", [0], True)], [f"b_{p}"], axis=0),
            helper.make_node("Unsqueeze", [f"b_{p}", ints(f"a_{p}", [0])], [f"u_{p}"]),
            helper.make_node("Concat", [f"u_{p}", ints(f"t_{p}", [-1, 2, 3])], [f"n_{p}"], axis=0),
            helper.make_node("Reshape", ["x", f"n_{p}"], [f"r_{p}"]),
            helper.make_node("Transpose", [f"r_{p}"], [f"h_{p}"], perm=[0, 2, 1, 3]),
        ]
        heads.append(f"h_{p}")
    nodes += [
        helper.make_node("Mul", heads, ["prod"]),
        # A Reshape of a Reshape: [b, 2, s, 3] -> [b, -1] -> [b * 2, -1].
        helper.make_node("Reshape", ["prod", ints("flat", [0, -1])], ["flat_out"]),
        helper.make_node("Reshape", ["flat_out", ints("pairs", [-1, 3])], ["y"]),
        # Two graph outputs computing the same.
        helper.make_node("Relu", ["x"], ["z1"]),
        helper.make_node("Relu", ["x"], ["z2"]),
    ]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "z1", "z2")]
    graph = helper.make_graph(nodes, "block", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["batch", "seq", 6])], outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


def test_duplicated_chains_and_reshape_chains_match_onnxruntime(tmp_path):
    model = _exported_block()
    x = np.random.default_rng(0).normal(size=(2, 5, 6)).astype(np.float32)
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    options = prismrt.SessionOptions()
    options.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_ENABLE_BASIC
    saved = str(tmp_path / "block_optimized.onnx")
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(model, options).run(None, {"x": x})
    for a, e in zip(actual, expected):
        np.testing.assert_array_equal(a, e)

    ops = collections.Counter(n.op_type for n in onnx.load(saved).graph.node)
    # One head chain; the two Reshapes of the tail are one; z2 is an Identity of z1.
    assert ops == {"Shape": 1, "Gather": 1, "Unsqueeze": 1, "Concat": 1, "Reshape": 2,
                   "Transpose": 1, "Mul": 1, "Relu": 1, "Identity": 1}, ops
    reloaded = onnxruntime.InferenceSession(saved, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    plain = prismrt.SessionOptions()
    plain.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL
    again = prismrt.InferenceSession(saved, plain).run(None, {"x": x})
    for r, a, e in zip(reloaded, again, expected):
        np.testing.assert_array_equal(r, e)
        np.testing.assert_array_equal(a, e)
