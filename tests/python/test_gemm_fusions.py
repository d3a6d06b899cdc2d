"""GemmActivationFusion against onnxruntime: a chain of Gemm layers, each followed by one of the
activations the fusion takes (parameters given or left to their defaults), and the gemm_chain
bench model. Prism's optimized session equals onnxruntime on the original model; the optimized
model Prism saves has only com.microsoft FusedGemm nodes, loads in onnxruntime (whose FusedGemm
kernel needs the activation_* parameters written out) and in Prism with its optimizations off,
and both give the same results."""
import collections
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt
from conftest import shared_dir

ACTIVATIONS = [
    ("Relu", {}), ("LeakyRelu", {"alpha": 0.2}), ("LeakyRelu", {}), ("Tanh", {}),
    ("Sigmoid", {}), ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}), ("HardSigmoid", {}),
    ("Elu", {"alpha": 0.7}), ("Elu", {}), ("Selu", {"alpha": 1.5, "gamma": 1.1}), ("Selu", {}),
    ("Softplus", {}), ("Softsign", {}), ("ThresholdedRelu", {"alpha": 0.1}),
    ("ThresholdedRelu", {}),
]


def _mlp(activations, width=16, seed=0):
    rng = np.random.default_rng(seed)
    inits, nodes, x = [], [], "x"
    for i, (op, attrs) in enumerate(activations):
        w = numpy_helper.from_array((rng.normal(size=(width, width)) * 0.5).astype(np.float32),
                                    f"w{i}")
        b = numpy_helper.from_array((rng.normal(size=width) * 0.2).astype(np.float32), f"b{i}")
        inits += [w, b]
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [f"g{i}"], name=f"gemm{i}",
                                      transB=i % 2, alpha=1.25))
        y = "y" if i == len(activations) - 1 else f"a{i}"
        nodes.append(helper.make_node(op, [f"g{i}"], [y], name=f"act{i}", **attrs))
        x = y
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [5, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _check_saved_model(model, feeds, saved, expected_ops, rtol=1e-5, atol=1e-5):
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    options = prismrt.SessionOptions()
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(model, options).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)

    ops = collections.Counter(n.op_type for n in onnx.load(saved).graph.node)
    assert dict(ops) == expected_ops, ops
    reloaded = onnxruntime.InferenceSession(saved, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(reloaded, expected, rtol=rtol, atol=atol)
    plain = prismrt.SessionOptions()
    plain.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL
    again = prismrt.InferenceSession(saved, plain).run(None, feeds)[0]
    np.testing.assert_allclose(again, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op,attrs", ACTIVATIONS)
def test_each_activation_becomes_fused_gemm_and_loads_in_onnxruntime(tmp_path, op, attrs):
    model = _mlp([(op, attrs), ("Relu", {})], seed=len(op))
    x = (np.random.default_rng(1).normal(size=(5, 16)) * 2).astype(np.float32)
    _check_saved_model(model, {"x": x}, str(tmp_path / "mlp.onnx"), {"FusedGemm": 2})


def test_a_chain_of_every_activation(tmp_path):
    model = _mlp(ACTIVATIONS, seed=3)
    x = np.random.default_rng(2).normal(size=(5, 16)).astype(np.float32)
    _check_saved_model(model, {"x": x}, str(tmp_path / "chain.onnx"),
                       {"FusedGemm": len(ACTIVATIONS)})


def test_gemm_chain_bench_model(tmp_path):
    # Made here: the shared bench_models fixture leaves out this 32 MiB model.
    script = os.path.join(shared_dir(), "bench", "make_models.py")
    subprocess.run([sys.executable, script, str(tmp_path), "--models", "gemm_chain", "--no-check"],
                   check=True, stdout=subprocess.DEVNULL)
    path = str(tmp_path / "gemm_chain.onnx")
    x = np.random.default_rng(4).uniform(-1, 1, size=(64, 1024)).astype(np.float32)
    with open(path, "rb") as f:
        model = f.read()
    _check_saved_model(model, {"input": x}, str(tmp_path / "gemm_chain.onnx"), {"FusedGemm": 8},
                       rtol=1e-4, atol=1e-4)
