"""The optimizer's fusions against onnxruntime on blocks as exporters write them: residual and
inverted-residual CNN blocks (Conv -> BatchNormalization -> Relu / Clip(0, 6), Conv ->
BatchNormalization -> Add -> Relu) and a transformer feed-forward block with the exact GELU.
Prism's optimized session equals onnxruntime on the original model, and the optimized model
Prism saves (ConvBNFusion folded the BatchNormalizations, ConvActivationFusion wrote
com.microsoft FusedConv, GeluFusion com.microsoft Gelu) loads in onnxruntime and gives the same
results. The BERT fusions (AttentionFusion, SkipLayerNormFusion, BiasGeluFusion) on the bert_tiny
bench model: the same outputs as onnxruntime with and without them, masked or not, and the
saved optimized model loads in onnxruntime."""
import collections

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt


def _block_model(kind, seed=0):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array, np.float32), name))
        return name

    def conv_bn(x, cin, cout, name, kernel=3, group=1):
        w = const(name + "_w", rng.normal(size=(cout, cin // group, kernel, kernel)) * 0.2)
        nodes.append(helper.make_node("Conv", [x, w], [name + "_c"], name=name,
                                      pads=[kernel // 2] * 4, group=group))
        params = [const(name + "_" + p, v) for p, v in (
            ("scale", rng.uniform(0.5, 1.5, cout)), ("shift", rng.normal(size=cout) * 0.1),
            ("mean", rng.normal(size=cout) * 0.1), ("var", rng.uniform(0.5, 2.0, cout)))]
        nodes.append(helper.make_node("BatchNormalization", [name + "_c"] + params,
                                      [name + "_bn"], name=name + "_bn", epsilon=1e-5))
        return name + "_bn"

    if kind == "residual":
        a = conv_bn("x", 8, 8, "conv_a")
        nodes.append(helper.make_node("Relu", [a], ["a_relu"]))
        b = conv_bn("a_relu", 8, 8, "conv_b")
        nodes.append(helper.make_node("Add", [b, "x"], ["sum"]))
        nodes.append(helper.make_node("Relu", ["sum"], ["y"]))
    else:  # inverted residual: expand, depthwise, project, each Clip(0, 6) but the last
        low, high = const("low", 0.0), const("high", 6.0)
        e = conv_bn("x", 8, 16, "expand", kernel=1)
        nodes.append(helper.make_node("Clip", [e, low, high], ["e6"]))
        d = conv_bn("e6", 16, 16, "depthwise", group=16)
        nodes.append(helper.make_node("Clip", [d, low, high], ["d6"]))
        p = conv_bn("d6", 16, 8, "project", kernel=1)
        nodes.append(helper.make_node("Add", [p, "x"], ["y"]))
    graph = helper.make_graph(nodes, kind, [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [2, 8, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


@pytest.mark.parametrize("kind,expected_ops", [
    ("residual", {"FusedConv": 2}),
    ("inverted_residual", {"FusedConv": 2, "Conv": 1, "Add": 1}),
])
def test_fused_blocks_match_onnxruntime_and_the_saved_model_loads_there(kind, expected_ops,
                                                                       tmp_path):
    model = _block_model(kind)
    x = np.random.default_rng(1).normal(size=(2, 8, 10, 10)).astype(np.float32)
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    options = prismrt.SessionOptions()
    # The extended level: the layout level would turn the FusedConvs into NCHWc ones (below).
    options.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    saved = str(tmp_path / "optimized.onnx")
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(model, options).run(None, {"x": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)

    ops = collections.Counter(n.op_type for n in onnx.load(saved).graph.node)
    assert dict(ops) == expected_ops, ops
    reloaded = onnxruntime.InferenceSession(saved, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(reloaded, expected, rtol=1e-4, atol=1e-5)
    # And in Prism with its optimizations off: the saved graph is complete as it stands.
    plain = prismrt.SessionOptions()
    plain.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL
    again = prismrt.InferenceSession(saved, plain).run(None, {"x": x})[0]
    np.testing.assert_allclose(again, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["residual", "inverted_residual"])
def test_nchwc_blocks_match_onnxruntime_and_the_saved_model_reloads(kind, tmp_path):
    """Level all: NchwcTransformer writes every Conv as com.microsoft.nchwc Conv (onnxruntime's
    op names); the results equal onnxruntime's, and the saved model gives them again in Prism
    with its optimizations off."""
    model = _block_model(kind)
    x = np.random.default_rng(2).normal(size=(2, 8, 10, 10)).astype(np.float32)
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    options = prismrt.SessionOptions()
    saved = str(tmp_path / "optimized.onnx")
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(model, options).run(None, {"x": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)
    nodes = onnx.load(saved).graph.node
    assert not [n for n in nodes if n.op_type in ("Conv", "FusedConv") and
                n.domain != "com.microsoft.nchwc"], [(n.domain, n.op_type) for n in nodes]
    convs = [n.op_type for n in nodes if n.domain == "com.microsoft.nchwc"].count("Conv")
    assert convs == {"residual": 2, "inverted_residual": 3}[kind], nodes
    plain = prismrt.SessionOptions()
    plain.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL
    again = prismrt.InferenceSession(saved, plain).run(None, {"x": x})[0]
    np.testing.assert_allclose(again, actual, rtol=0, atol=0)


def test_exported_gelu_becomes_com_microsoft_gelu_and_loads_in_onnxruntime(tmp_path):
    """A transformer feed-forward block as torch exports it (MatMul, Add, then the exact GELU as
    Div, Erf, Add, Mul, Mul): GeluFusion writes com.microsoft Gelu, BiasGeluFusion takes the
    projection's bias into com.microsoft BiasGelu."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(v.astype(np.float32), n) for n, v in (
        ("w1", rng.normal(size=(16, 32)) * 0.3), ("b1", rng.normal(size=32) * 0.1),
        ("w2", rng.normal(size=(32, 16)) * 0.3), ("root2", np.array(2 ** 0.5)),
        ("one", np.array(1.0)), ("half", np.array(0.5)))]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m"]), helper.make_node("Add", ["m", "b1"], ["h"]),
             helper.make_node("Div", ["h", "root2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", ["h", "a"], ["p"]),
             helper.make_node("Mul", ["p", "half"], ["g"]),
             helper.make_node("MatMul", ["g", "w2"], ["y"])]
    graph = helper.make_graph(nodes, "ffn", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["batch", 7, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    data = model.SerializeToString()
    x = rng.normal(size=(3, 7, 16)).astype(np.float32) * 2
    expected = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    options = prismrt.SessionOptions()
    saved = str(tmp_path / "ffn_optimized.onnx")
    options.optimized_model_filepath = saved
    np.testing.assert_allclose(prismrt.InferenceSession(data, options).run(None, {"x": x})[0],
                               expected, rtol=1e-4, atol=1e-5)
    ops = [n.op_type for n in onnx.load(saved).graph.node]
    assert "BiasGelu" in ops and "Erf" not in ops and "Add" not in ops, ops
    reloaded = onnxruntime.InferenceSession(saved, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(reloaded, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("masked", [False, True])
def test_bert_tiny_fusions_match_onnxruntime_and_the_saved_model_loads_there(bench_models, masked,
                                                                            tmp_path):
    from conftest import bench_inputs

    path = bench_models["bert_tiny"]
    feeds = bench_inputs(path, masked=masked)
    expected = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    options = prismrt.SessionOptions()
    saved = str(tmp_path / "bert_tiny_optimized.onnx")
    options.optimized_model_filepath = saved
    fused = prismrt.InferenceSession(path, options).run(None, feeds)[0]
    np.testing.assert_allclose(fused, expected, rtol=1e-3, atol=1e-4)
    unfused = prismrt.InferenceSession(path, disabled_optimizers=[
        "AttentionFusion", "SkipLayerNormFusion", "BiasGeluFusion", "MatMulAddFusion"]).run(
            None, feeds)[0]
    np.testing.assert_allclose(unfused, expected, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(fused, unfused, rtol=1e-3, atol=1e-4)

    ops = collections.Counter(n.op_type for n in onnx.load(saved).graph.node)
    assert ops["Attention"] == 2 and ops["SkipLayerNormalization"] == 5 and ops["BiasGelu"] == 2, ops
    assert ops["Softmax"] == 0 and ops["LayerNormalization"] == 0, ops
    reloaded = onnxruntime.InferenceSession(saved, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(reloaded, expected, rtol=1e-3, atol=1e-4)
