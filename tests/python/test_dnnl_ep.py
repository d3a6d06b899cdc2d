"""The oneDNN EP (providers/dnnl) through the installed prismrt: the package ships the plugin the
build made, get_available_providers() lists it, sessions place nodes on it, its provider options
read back, and its results match onnxruntime and the CPU EP (a small CNN, the bench models).

Every test is skipped, with the reason, when the build has no libprism_provider_dnnl.so
(PRISM_USE_DNNL=OFF, or no libdnnl); when the build has it, a package without it fails.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort
from conftest import REPO, make_model, shared_dir
from bench_models import make_inputs

DNNL = "DnnlExecutionProvider"
CPU = "CPUExecutionProvider"
PLUGIN = "libprism_provider_dnnl.so"


def build_dir():
    return os.environ.get("PRISM_BUILD_DIR") or os.path.join(REPO, "build")


def package_lib_dir():
    return os.path.join(os.path.dirname(ort.__file__), "_lib")


@pytest.fixture(autouse=True)
def need_dnnl_plugin():
    if not os.path.isfile(os.path.join(build_dir(), PLUGIN)):
        pytest.skip("the oneDNN EP plugin was not built (%s has no %s: PRISM_USE_DNNL=OFF, or "
                    "CMake found no libdnnl/OpenMP)" % (build_dir(), PLUGIN))


def no_fallback():
    options = ort.SessionOptions()
    options.add_session_config_entry("session.disable_ep_failure_fallback", "1")
    return options


def test_package_ships_the_plugin_and_lists_the_ep():
    # The plugin the core finds and the EP library it opens next to itself.
    assert {PLUGIN, "libprism_dnnl_ep.so"} <= set(os.listdir(package_lib_dir())), package_lib_dir()
    available = ort.get_available_providers()
    assert DNNL in available, available
    assert available.index(DNNL) < available.index(CPU)


def test_listed_from_any_folder_without_environment(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PRISMRT_LIBRARY_DIR", "PRISM_PROVIDER_PATH", "PRISM_BUILD_DIR",
                        "LD_LIBRARY_PATH", "PYTHONPATH")}
    result = subprocess.run([sys.executable, "-c",
                             "import prismrt; print(prismrt.get_available_providers())"],
                            cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert DNNL in result.stdout


def small_cnn():
    """Conv+BN+Relu -> MaxPool -> Conv (group 2, strides 2) + residual-free Relu -> GAP -> Gemm,
    with a symbolic batch."""
    rng = np.random.default_rng(3)

    def weight(name, shape, scale=0.2):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32),
                                       name)

    inits = [weight("w1", (8, 3, 3, 3)), weight("b1", (8,)),
             weight("scale", (8,), 1.0), weight("shift", (8,)), weight("mean", (8,)),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "var"),
             weight("w2", (16, 4, 3, 3)), weight("fc", (10, 16)), weight("fcb", (10,))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "scale", "shift", "mean", "var"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], group=2, strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1),
        helper.make_node("Softmax", ["y"], ["prob"], axis=1),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])
    prob = helper.make_tensor_value_info("prob", TensorProto.FLOAT, ["N", 10])
    return make_model(nodes, [x], [prob], initializers=inits).SerializeToString()


def test_small_cnn_runs_on_the_ep_and_matches_onnxruntime():
    model = small_cnn()
    session = ort.InferenceSession(model, no_fallback(), providers=[DNNL, CPU])
    assert session.get_providers() == [DNNL, CPU]
    reference = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for batch in (1, 4, 2, 4):  # dynamic batch: one primitive set per shape, reused
        x = rng.standard_normal((batch, 3, 16, 16)).astype(np.float32)
        (got,) = session.run(None, {"x": x})
        (want,) = reference.run(None, {"x": x})
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def decoder_head():
    """ConvTranspose (group, strides, output_padding) + Relu -> LRN -> ReduceMean / ReduceL2 /
    ReduceMax (axes as inputs, opset 18), with a symbolic batch: the ops the EP took last."""
    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array((rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32),
                                     "wt"),
             numpy_helper.from_array(rng.standard_normal(6).astype(np.float32), "bt"),
             numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "spatial"),
             numpy_helper.from_array(np.array([1], dtype=np.int64), "channels")]
    nodes = [
        helper.make_node("ConvTranspose", ["x", "wt", "bt"], ["d"], group=2, strides=[2, 2],
                         pads=[1, 0, 1, 1], output_padding=[1, 1]),
        helper.make_node("Relu", ["d"], ["r"]),
        helper.make_node("LRN", ["r"], ["l"], size=3, alpha=0.01, beta=0.75, bias=1.5),
        helper.make_node("ReduceMean", ["l", "spatial"], ["mean"], keepdims=0),
        helper.make_node("ReduceL2", ["l", "channels"], ["l2"]),
        helper.make_node("ReduceMax", ["l"], ["max"], keepdims=0),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 7, 5])
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
               for name in ("mean", "l2", "max")]
    return make_model(nodes, [x], outputs, initializers=inits, opset=18).SerializeToString()


def test_conv_transpose_lrn_and_reductions_match_onnxruntime():
    model = decoder_head()
    session = ort.InferenceSession(model, no_fallback(), providers=[DNNL, CPU])
    report = session.get_partition_report()
    assert "DnnlExecutionProvider: 6 nodes" in report, report
    for op in ("ConvTranspose", "LRN", "ReduceMean", "ReduceL2", "ReduceMax"):
        assert "(%s, opset 18) -> DnnlExecutionProvider" % op in report, report
    reference = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    for batch in (1, 3):
        x = rng.standard_normal((batch, 8, 7, 5)).astype(np.float32)
        got = session.run(None, {"x": x})
        want = reference.run(None, {"x": x})
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_provider_options_read_back_and_unknown_keys_are_refused():
    model = small_cnn()
    session = ort.InferenceSession(model, no_fallback(),
                                   providers=[(DNNL, {"use_arena": "0",
                                                      "intra_op_num_threads": "1"}), CPU])
    options = session.get_provider_options()[DNNL]
    assert options["use_arena"] == "0"
    assert options["intra_op_num_threads"] == "1"
    with pytest.raises(Exception, match="unknown provider option 'bogus'"):
        ort.InferenceSession(model, no_fallback(), providers=[(DNNL, {"bogus": "1"}), CPU])


def test_partition_report_names_why_a_node_stays_on_the_cpu_ep():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])
    model = make_model([helper.make_node("Relu", ["x"], ["r"]),
                        helper.make_node("Hardmax", ["r"], ["h"]),
                        helper.make_node("Tanh", ["h"], ["y"])], [x], [y]).SerializeToString()
    session = ort.InferenceSession(model, no_fallback(), providers=[DNNL, CPU])
    report = session.get_partition_report()
    assert "op Hardmax is not supported by the oneDNN EP" in report, report
    x_value = np.linspace(-1, 1, 10, dtype=np.float32).reshape(2, 5)
    (got,) = session.run(None, {"x": x_value})
    (want,) = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"x": x_value})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# ---- the bench models of ../shared/bench against the CPU EP ----

BENCH = ("mnist_cnn", "squeezenet1_1", "mobilenetv2", "bert_tiny", "gemm_chain")


@pytest.fixture(scope="module")
def dnnl_bench_models(tmp_path_factory):
    script = os.path.join(shared_dir(), "bench", "make_models.py")
    if not os.path.isfile(script):
        pytest.fail("make_models.py not found at %s (set PRISM_SHARED_DIR)" % script)
    out = tmp_path_factory.mktemp("dnnl-bench-models")
    subprocess.run([sys.executable, script, str(out), "--models", ",".join(BENCH), "--no-check"],
                   check=True, stdout=subprocess.DEVNULL)
    return str(out)


@pytest.mark.parametrize("name", BENCH)
def test_bench_model_matches_the_cpu_ep(dnnl_bench_models, name):
    path = os.path.join(dnnl_bench_models, name + ".onnx")
    with open(os.path.join(dnnl_bench_models, name + ".json"), encoding="utf-8") as f:
        feeds = make_inputs(json.load(f), np.random.default_rng(0))
    dnnl = ort.InferenceSession(path, no_fallback(), providers=[DNNL, CPU])
    cpu = ort.InferenceSession(path, providers=[CPU])
    got = dnnl.run(None, feeds)
    want = cpu.run(None, feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)
