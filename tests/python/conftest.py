"""Shared fixtures of the prismrt tests: bench models, small onnx.helper models, tolerances.

The tests import the installed prismrt (pip install ./python) exactly as users do, and use
onnxruntime as the oracle on the same inputs.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RTOL = 1e-3
ATOL = 1e-4
BENCH_MODELS = ("mnist_cnn", "squeezenet1_1", "bert_tiny")

sys.path.insert(0, os.path.join(REPO, "tests", "models"))
from bench_models import make_inputs  # noqa: E402  (one input generator for every test suite)


def shared_dir():
    return os.environ.get("PRISM_SHARED_DIR") or os.path.normpath(os.path.join(REPO, "..", "shared"))


@pytest.fixture(scope="session")
def bench_models(tmp_path_factory):
    """{name: path} of the bench models, generated once per test session."""
    script = os.path.join(shared_dir(), "bench", "make_models.py")
    if not os.path.isfile(script):
        pytest.fail("make_models.py not found at %s (set PRISM_SHARED_DIR)" % script)
    out = tmp_path_factory.mktemp("bench-models")
    subprocess.run([sys.executable, script, str(out), "--models", ",".join(BENCH_MODELS),
                    "--no-check"], check=True, stdout=subprocess.DEVNULL)
    return {name: str(out / (name + ".onnx")) for name in BENCH_MODELS}


def bench_inputs(path, seed=0, masked=False):
    """Inputs for a bench model, filled as its sidecar JSON says (tests/models/bench_models.py
    does the filling); masked draws attention_mask from {0, 1} instead of ones."""
    with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
        sidecar = json.load(f)
    return make_inputs(sidecar, np.random.default_rng(seed), masked=masked)


def make_model(nodes, inputs, outputs, opset=17, ir_version=8, initializers=(), **model_kwargs):
    graph = helper.make_graph(nodes, "test_graph", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              **model_kwargs)
    model.ir_version = ir_version
    return model


def identity_model(element_type, shape=None, opset=25, ir_version=11):
    """y = Identity(x) for one element type (opset 25 allows every type)."""
    x = helper.make_tensor_value_info("x", element_type, shape)
    y = helper.make_tensor_value_info("y", element_type, shape)
    return make_model([helper.make_node("Identity", ["x"], ["y"])], [x], [y], opset=opset,
                      ir_version=ir_version)


def add_relu_model():
    """z = Relu(Add(a, b)) + c, in float, with symbolic batch dim."""
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 4])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N", 4])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, ["N", 4])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 4])
    s = helper.make_tensor_value_info("s", TensorProto.FLOAT, ["N", 4])
    nodes = [helper.make_node("Add", ["a", "b"], ["s"]),
             helper.make_node("Relu", ["s"], ["r"]),
             helper.make_node("Mul", ["r", "c"], ["z"])]
    return make_model(nodes, [a, b, c], [z, s])


@pytest.fixture(scope="session")
def add_relu_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("add_relu") / "add_relu.onnx"
    onnx.save(add_relu_model(), str(path))
    return str(path)


def assert_close(actual, expected):
    assert isinstance(actual, np.ndarray), type(actual)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)


def assert_outputs_close(actual, expected):
    """Every output of a run against the reference's: the same count, then each one close."""
    assert len(actual) == len(expected), "%d outputs, expected %d" % (len(actual), len(expected))
    for index, (a, e) in enumerate(zip(actual, expected)):
        try:
            assert_close(a, e)
        except AssertionError as error:
            raise AssertionError("output %d: %s" % (index, error)) from None
