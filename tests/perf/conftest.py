"""Fixtures of the prism_perf and profiler tests: the build folder, bench models made on demand,
and small models written with onnx.helper."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))  # bench_models.make_inputs


def build_dir():
    return os.environ.get("PRISM_BUILD_DIR") or os.path.join(REPO, "build")


def make_models_script():
    shared = os.environ.get("PRISM_SHARED_DIR") or os.path.normpath(os.path.join(REPO, "..", "shared"))
    return os.path.join(shared, "bench", "make_models.py")


@pytest.fixture(scope="session")
def prism_perf():
    path = os.path.join(build_dir(), "prism_perf")
    if not os.path.exists(path):
        pytest.fail("prism_perf is not built in %s (set PRISM_BUILD_DIR)" % build_dir())
    return path


@pytest.fixture(scope="session")
def prismrt():
    """The Python API of this build (python/ over the build's libraries, no install needed)."""
    if not os.path.exists(os.path.join(build_dir(), "libprism.so")):
        pytest.fail("libprism.so is not built in %s (set PRISM_BUILD_DIR)" % build_dir())
    os.environ["PRISMRT_LIBRARY_DIR"] = build_dir()
    sys.path.insert(0, os.path.join(REPO, "python"))
    import prismrt as module
    return module


@pytest.fixture(scope="session")
def bench_model():
    """bench_model('bert_tiny') -> path, generated into <build>/bench-models when missing."""
    folder = os.path.join(build_dir(), "bench-models")

    def get(name):
        path = os.path.join(folder, name + ".onnx")
        if os.path.exists(path):
            return path
        script = make_models_script()
        if not os.path.exists(script):
            pytest.skip("bench model generator %s not found (set PRISM_SHARED_DIR)" % script)
        os.makedirs(folder, exist_ok=True)
        # Generated aside, then renamed, so concurrent test processes never read half a file.
        scratch = tempfile.mkdtemp(dir=folder)
        try:
            subprocess.run([sys.executable, script, scratch, "--models", name], check=True,
                           stdout=subprocess.DEVNULL)
            for suffix in (".onnx", ".json"):
                os.replace(os.path.join(scratch, name + suffix), os.path.join(folder, name + suffix))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return path

    return get


@pytest.fixture
def split_model(tmp_path):
    """x[2,3] -> Add -> Relu -> Mul -> Add(x) -> Sigmoid: with the test EP taking Add and Relu,
    values cross between CPU and test device memory several times."""
    c1 = numpy_helper.from_array(np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]], np.float32), "c1")
    c2 = numpy_helper.from_array(np.full((2, 3), 2.0, np.float32), "c2")
    nodes = [
        helper.make_node("Add", ["x", "c1"], ["a"], name="add_bias"),
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
        helper.make_node("Mul", ["r", "c2"], ["m"], name="scale"),
        helper.make_node("Add", ["m", "x"], ["s"], name="add_residual"),
        helper.make_node("Sigmoid", ["s"], ["y"], name="sigmoid"),
    ]
    graph = helper.make_graph(nodes, "split", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [c1, c2])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = tmp_path / "split.onnx"
    onnx.save(model, str(path))
    return str(path)


@pytest.fixture
def if_model(tmp_path):
    """An If whose branches hold one node each: the file has 3 nodes, a run executes 2."""
    then_graph = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="then_relu")], "then", [],
                                   [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
    else_graph = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["e"], name="else_sigmoid")], "else", [],
                                   [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_graph, else_branch=else_graph)],
        "with_if",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = tmp_path / "if.onnx"
    onnx.save(model, str(path))
    return str(path)
