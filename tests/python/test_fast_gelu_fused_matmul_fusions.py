"""FastGeluFusion, MatMulTransposeFusion and MatMulScaleFusion against onnxruntime: a GPT-2 style
feed-forward block (MatMul, bias Add, the tanh GELU written out as exporters write it) and an
attention-score block (MatMul of Q with a transposed K, scaled by a constant) give onnxruntime's
results in Prism's optimized session, the optimized model Prism saves holds com.microsoft
FastGelu / FusedMatMul, and that model loads in onnxruntime (with its own optimizations off, so
its FastGelu and FusedMatMul kernels compute them) with the same results."""
import collections

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt

SQRT_2_OVER_PI = np.sqrt(2.0 / np.pi)


def _model(nodes, inits, inputs):
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.asarray(v, np.float32), n) for n, v in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _tanh_gelu_ffn(cube_as_pow):
    """x [batch, 7, 16] -> MatMul w1 -> Add b1 -> tanh GELU -> MatMul w2 -> y."""
    rng = np.random.default_rng(5)
    inits = [("w1", rng.normal(size=(16, 32)) * 0.3), ("b1", rng.normal(size=32) * 0.1),
             ("w2", rng.normal(size=(32, 16)) * 0.3), ("c", 0.044715),
             ("k", SQRT_2_OVER_PI), ("one", 1.0), ("half", 0.5), ("three", 3.0)]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m"]),
             helper.make_node("Add", ["m", "b1"], ["h"])]
    if cube_as_pow:  # torch.nn.functional.gelu(approximate="tanh")
        nodes.append(helper.make_node("Pow", ["h", "three"], ["cube"]))
    else:  # Hugging Face's gelu_new: x * x * x
        nodes += [helper.make_node("Mul", ["h", "h"], ["square"]),
                  helper.make_node("Mul", ["square", "h"], ["cube"])]
    nodes += [helper.make_node("Mul", ["cube", "c"], ["sc"]),
              helper.make_node("Add", ["h", "sc"], ["inner"]),
              helper.make_node("Mul", ["inner", "k"], ["scaled"]),
              helper.make_node("Tanh", ["scaled"], ["t"]),
              helper.make_node("Add", ["t", "one"], ["a"]),
              helper.make_node("Mul", ["h", "half"], ["hh"]),
              helper.make_node("Mul", ["hh", "a"], ["g"]),
              helper.make_node("MatMul", ["g", "w2"], ["y"])]
    return _model(nodes, inits, [("x", ["batch", 7, 16])])


def _scaled_scores():
    """q [2, 4, 7, 8], k [2, 4, 7, 8] -> MatMul(q, Transpose(k, [0, 1, 3, 2])) / sqrt(8) -> y."""
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]),
             helper.make_node("Div", ["qk", "d"], ["y"])]
    return _model(nodes, [("d", np.sqrt(8.0))], [("q", [2, 4, 7, 8]), ("k", [2, 4, 7, 8])])


def _check(model, feeds, expected_ops, tmp_path):
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    options = prismrt.SessionOptions()
    saved = str(tmp_path / "optimized.onnx")
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(model, options).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)

    saved_model = onnx.load(saved)
    ops = collections.Counter(n.op_type for n in saved_model.graph.node)
    assert dict(ops) == expected_ops, ops
    for node in saved_model.graph.node:
        if node.op_type in ("FastGelu", "FusedMatMul"):
            assert node.domain == "com.microsoft", node
    plain = onnxruntime.SessionOptions()
    plain.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    reloaded = onnxruntime.InferenceSession(saved, plain, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(reloaded, expected, rtol=1e-4, atol=1e-5)
    # And unfused in Prism: the fusions are what changed the graph.
    unfused = prismrt.InferenceSession(model, disabled_optimizers=[
        "FastGeluFusion", "MatMulTransposeFusion", "MatMulScaleFusion"])
    np.testing.assert_allclose(unfused.run(None, feeds)[0], expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cube_as_pow", [True, False])
def test_tanh_gelu_becomes_fast_gelu_with_its_bias_and_loads_in_onnxruntime(cube_as_pow,
                                                                           tmp_path):
    x = np.random.default_rng(6).normal(size=(3, 7, 16)).astype(np.float32) * 2
    # The bias Add goes into FastGelu (MatMulAddFusion does not take it first).
    _check(_tanh_gelu_ffn(cube_as_pow), {"x": x}, {"MatMul": 2, "FastGelu": 1}, tmp_path)


def test_transposed_and_scaled_matmul_becomes_one_fused_matmul_and_loads_in_onnxruntime(tmp_path):
    rng = np.random.default_rng(7)
    feeds = {"q": rng.normal(size=(2, 4, 7, 8)).astype(np.float32),
             "k": rng.normal(size=(2, 4, 7, 8)).astype(np.float32)}
    _check(_scaled_scores(), feeds, {"FusedMatMul": 1}, tmp_path)
    saved = onnx.load(str(tmp_path / "optimized.onnx"))
    attributes = {a.name: helper.get_attribute_value(a) for a in saved.graph.node[0].attribute}
    assert attributes.get("transB") == 1 and attributes.get("transA", 0) == 0, attributes
    assert attributes["alpha"] == pytest.approx(1 / np.sqrt(8.0), rel=1e-6)
