"""NhwcTransformer (the layout level) against onnxruntime: the 8-bit convolution regions of a QDQ
model run channels-last (com.microsoft QLinearConv channels_last=1, NhwcMaxPool, QLinearAdd,
QLinearGlobalAveragePool channels_last=1 between Transpose(0,2,3,1) and Transpose(0,3,1,2)), as
in the graph onnxruntime optimizes itself. The optimized model Prism saves runs in onnxruntime
(its optimizations off) with Prism's outputs: on a small hand-made 8-bit network and on
resnet50_qdq / mobilenetv2_qdq (quantize_static of the bench CNNs, benchmarks/
make_derived_models.py). Prism's outputs with the pass equal its outputs without it bit for bit
(the same integer arithmetic)."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime
import pytest

import prismrt

from conftest import bench_inputs, shared_dir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QDQ_CNNS = ("resnet50_qdq", "mobilenetv2_qdq")


def _qconv(graph_nodes, inits, rng, x, y, channels, filters, k, stride=1, group=1):
    w = rng.integers(-60, 61, size=(filters, channels // group, k, k)).astype(np.int8)
    inits += [numpy_helper.from_array(w, y + "_w"),
              numpy_helper.from_array((0.002 + 0.0001 * np.arange(filters)).astype(np.float32),
                                      y + "_ws"),
              numpy_helper.from_array(np.zeros(filters, np.int8), y + "_wz"),
              numpy_helper.from_array(rng.integers(-3000, 3000, filters).astype(np.int32),
                                      y + "_b")]
    graph_nodes.append(helper.make_node(
        "QLinearConv", [x, "s", "z", y + "_w", y + "_ws", y + "_wz", "s", "z", y + "_b"], [y],
        name=y + "_conv", pads=[k // 2] * 4, strides=[stride, stride], group=group))


def _small_network():
    """float X -> QuantizeLinear -> QLinearConv 3x3 -> QLinearConv 3x3 -> QLinearAdd (residual)
    -> MaxPool 3x3/2 -> depthwise QLinearConv -> QLinearConv 1x1 stride 2 (21 filters)
    -> QLinearGlobalAveragePool -> Flatten -> DequantizeLinear -> Y; the first conv's output is
    a second graph output."""
    rng = np.random.default_rng(0)
    nodes, inits = [], [numpy_helper.from_array(np.array(0.05, np.float32), "s"),
                        numpy_helper.from_array(np.array(128, np.uint8), "z")]
    nodes.append(helper.make_node("QuantizeLinear", ["X", "s", "z"], ["Xq"]))
    _qconv(nodes, inits, rng, "Xq", "C1", 8, 16, 3)
    _qconv(nodes, inits, rng, "C1", "C2", 16, 16, 3)
    nodes.append(helper.make_node("QLinearAdd", ["C1", "s", "z", "C2", "s", "z", "s", "z"], ["S"],
                                  domain="com.microsoft"))
    nodes.append(helper.make_node("MaxPool", ["S"], ["P"], kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    _qconv(nodes, inits, rng, "P", "D", 16, 16, 3, group=16)
    _qconv(nodes, inits, rng, "D", "C3", 16, 21, 1, stride=2)
    nodes.append(helper.make_node("QLinearGlobalAveragePool", ["C3", "s", "z", "s", "z"], ["G"],
                                  domain="com.microsoft"))
    nodes.append(helper.make_node("Flatten", ["G"], ["F"]))
    nodes.append(helper.make_node("DequantizeLinear", ["F", "s", "z"], ["Y"]))
    graph = helper.make_graph(
        nodes, "small_qnet", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 8, 14, 14])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("C1", TensorProto.UINT8, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def _ops(path):
    ops = []
    for n in onnx.load(path).graph.node:
        op = n.op_type + ("@ms" if n.domain == "com.microsoft" else "")
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if attrs.get("channels_last") == 1:
            op += "(cl)"
        if n.op_type == "Transpose":
            op += str(tuple(attrs["perm"]))
        ops.append(op)
    return ops


def _run_saved_in_onnxruntime(saved, feeds):
    so = onnxruntime.SessionOptions()
    so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    return onnxruntime.InferenceSession(saved, so, providers=["CPUExecutionProvider"]).run(
        None, feeds)


def test_small_network_saved_model_runs_in_onnxruntime(tmp_path):
    path = str(tmp_path / "small.onnx")
    onnx.save(_small_network(), path)
    feeds = {"X": np.random.default_rng(1).normal(size=(1, 8, 14, 14)).astype(np.float32)}
    saved = str(tmp_path / "optimized.onnx")
    options = prismrt.SessionOptions()
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(path, options).run(None, feeds)
    ops = _ops(saved)
    assert ops.count("QLinearConv@ms(cl)") == 4, ops
    assert "NhwcMaxPool@ms" in ops and "QLinearGlobalAveragePool@ms(cl)" in ops, ops
    assert ops.count("Transpose(0, 2, 3, 1)") == 1, ops
    assert ops.count("Transpose(0, 3, 1, 2)") == 2, ops  # G for Flatten, C1 for the graph output
    without = prismrt.InferenceSession(path, disabled_optimizers=["NhwcTransformer"]).run(
        None, feeds)
    for a, w in zip(actual, without):
        np.testing.assert_array_equal(a, w)
    # onnxruntime runs Prism's saved graph; its QLinearConv requantizes in float where Prism
    # uses double, so a value may land one step (0.05) apart.
    ort_saved = _run_saved_in_onnxruntime(saved, feeds)
    np.testing.assert_allclose(ort_saved[0], actual[0], atol=0.05 + 1e-6, rtol=0)
    assert np.abs(ort_saved[1].astype(int) - actual[1].astype(int)).max() <= 1
    ort_original = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    np.testing.assert_allclose(ort_original[0], ort_saved[0], atol=0.05 + 1e-6, rtol=0)


@pytest.fixture(scope="module")
def qdq_models(tmp_path_factory):
    script = os.path.join(shared_dir(), "bench", "make_models.py")
    if not os.path.isfile(script):
        pytest.fail("make_models.py not found at %s (set PRISM_SHARED_DIR)" % script)
    out = tmp_path_factory.mktemp("qdq-models")
    subprocess.run([sys.executable, script, str(out), "--models", "resnet50,mobilenetv2",
                    "--no-check"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(REPO, "benchmarks", "make_derived_models.py"),
                    str(out), "--models", ",".join(QDQ_CNNS)], check=True,
                   stdout=subprocess.DEVNULL)
    return {name: str(out / (name + ".onnx")) for name in QDQ_CNNS}


@pytest.mark.parametrize("name", QDQ_CNNS)
def test_qdq_cnn_saved_model_runs_in_onnxruntime(qdq_models, name, tmp_path):
    path = qdq_models[name]
    feeds = bench_inputs(path, seed=4)
    saved = str(tmp_path / "optimized.onnx")
    options = prismrt.SessionOptions()
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(path, options).run(None, feeds)[0]
    ops = _ops(saved)
    assert "QLinearConv" not in ops, "every QLinearConv is channels-last"
    assert ops.count("Transpose(0, 2, 3, 1)") == 1 and ops.count("Transpose(0, 3, 1, 2)") == 1
    without = prismrt.InferenceSession(path, disabled_optimizers=["NhwcTransformer"]).run(
        None, feeds)[0]
    np.testing.assert_array_equal(actual, without)
    # onnxruntime computes on Prism's saved graph what it computes on the model itself (with its
    # own channels-last graph); Prism's int8 ops requantize in double where onnxruntime's use
    # float, so a few activations land one step apart and the logits move a little (resnet50_qdq
    # 0.13 of 16.4 when this was written).
    ort_saved = _run_saved_in_onnxruntime(saved, feeds)[0]
    ort_original = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(ort_saved, ort_original, atol=1e-5, rtol=0)
    assert np.argmax(ort_saved) == np.argmax(actual)
    np.testing.assert_allclose(ort_saved, actual, atol=0.02 * np.abs(actual).max(), rtol=0)
