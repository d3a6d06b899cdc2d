"""InferenceSession, SessionOptions, RunOptions, providers and errors against onnxruntime."""
import importlib.metadata
import json
import os
import threading
import warnings

import numpy as np
import onnx
import onnxruntime

import pytest
from onnx import TensorProto, helper

import prismrt as ort
from prismrt.capi.onnxruntime_pybind11_state import (InvalidArgument, InvalidProtobuf,
                                                     NoSuchFile, PrismError)
from prismrt.capi.onnxruntime_pybind11_state import NotImplemented as PrismNotImplemented

from conftest import add_relu_model, assert_close, assert_outputs_close, bench_inputs, make_model

CPU = ["CPUExecutionProvider"]


def add_relu_feeds(batch=2, seed=0):
    rng = np.random.RandomState(seed)
    return {name: rng.standard_normal((batch, 4)).astype(np.float32) for name in "abc"}


def reference(model_or_path, feeds, output_names=None):
    if isinstance(model_or_path, onnx.ModelProto):
        model_or_path = model_or_path.SerializeToString()
    sess = onnxruntime.InferenceSession(model_or_path, providers=CPU)
    return sess.run(output_names, feeds)


def cuda_available():
    return "CUDAExecutionProvider" in ort.get_available_providers()


# ---- module functions ---------------------------------------------------------------------
def test_module_functions():
    providers = ort.get_available_providers()
    assert providers[-1] == "CPUExecutionProvider"
    assert ort.get_device() == ("GPU" if cuda_available() else "CPU")
    assert ort.get_version_string() == ort.__version__
    assert ort.__version__ == importlib.metadata.version("prismrt")


def test_enums_match_onnxruntime():
    for name in ("ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_ALL"):
        assert int(getattr(ort.GraphOptimizationLevel, name)) == int(
            getattr(onnxruntime.GraphOptimizationLevel, name))
    for name in ("ORT_SEQUENTIAL", "ORT_PARALLEL"):
        assert int(getattr(ort.ExecutionMode, name)) == int(getattr(onnxruntime.ExecutionMode,
                                                                    name))


# ---- loading ------------------------------------------------------------------------------
def test_load_from_path_bytes_and_pathlike(add_relu_path, tmp_path):
    import pathlib
    feeds = add_relu_feeds()
    expected = reference(add_relu_path, feeds)
    with open(add_relu_path, "rb") as f:
        data = f.read()
    for source in (add_relu_path, pathlib.Path(add_relu_path), data):
        sess = ort.InferenceSession(source, providers=CPU)
        assert_outputs_close(sess.run(None, feeds), expected)


def test_default_providers_are_cpu(add_relu_path):
    sess = ort.InferenceSession(add_relu_path)
    assert sess.get_providers() == ["CPUExecutionProvider"]


def test_inputs_outputs_match_onnxruntime(add_relu_path):
    sess = ort.InferenceSession(add_relu_path, providers=CPU)
    ref = onnxruntime.InferenceSession(add_relu_path, providers=CPU)
    for ours, theirs in ((sess.get_inputs(), ref.get_inputs()),
                         (sess.get_outputs(), ref.get_outputs())):
        assert [(a.name, a.type, a.shape) for a in ours] == [(a.name, a.type, a.shape)
                                                             for a in theirs]
    assert sess.get_inputs()[0].shape == ["N", 4]
    assert str(sess.get_inputs()[0]) == "NodeArg(name='a', type='tensor(float)', shape=['N', 4])"


def test_unknown_dims_and_rank():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [x], [y])
    data = model.SerializeToString()
    sess = ort.InferenceSession(data)
    ref = onnxruntime.InferenceSession(data, providers=CPU)
    assert sess.get_inputs()[0].shape == ref.get_inputs()[0].shape == [None, 3]
    # An output declared without a shape: both report what shape inference found.
    assert sess.get_outputs()[0].shape == ref.get_outputs()[0].shape == [None, 3]
    assert sess.get_outputs()[0].type == ref.get_outputs()[0].type == "tensor(float)"


def test_overridable_initializers_match_onnxruntime():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    bias = helper.make_tensor_value_info("bias", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    init = onnx.numpy_helper.from_array(np.array([10, 20], np.float32), "bias")
    model = make_model([helper.make_node("Add", ["x", "bias"], ["y"])], [x, bias], [y],
                       initializers=[init])
    data = model.SerializeToString()
    sess = ort.InferenceSession(data)
    ref = onnxruntime.InferenceSession(data, providers=CPU)
    assert [(a.name, a.type, a.shape) for a in sess.get_overridable_initializers()] == [
        (a.name, a.type, a.shape) for a in ref.get_overridable_initializers()]
    assert [a.name for a in sess.get_inputs()] == [a.name for a in ref.get_inputs()] == ["x"]
    x_value = np.array([1, 2], np.float32)
    np.testing.assert_array_equal(sess.run(None, {"x": x_value})[0], [11, 22])
    override = {"x": x_value, "bias": np.array([-1, -1], np.float32)}
    np.testing.assert_array_equal(sess.run(None, override)[0], ref.run(None, override)[0])


def test_modelmeta_matches_onnxruntime():
    model = add_relu_model()
    model.producer_name = "prism-test"
    model.producer_version = "3"
    model.domain = "ai.prism.test"
    model.doc_string = "a model for metadata"
    model.model_version = 42
    model.graph.doc_string = "graph documentation"
    onnx.helper.set_model_props(model, {"author": "prism", "purpose": "testing"})
    data = model.SerializeToString()
    ours = ort.InferenceSession(data).get_modelmeta()
    theirs = onnxruntime.InferenceSession(data, providers=CPU).get_modelmeta()
    for field in ("producer_name", "graph_name", "domain", "description", "graph_description",
                  "version", "custom_metadata_map"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.custom_metadata_map == {"author": "prism", "purpose": "testing"}
    assert ours.version == 42


# ---- providers ----------------------------------------------------------------------------
def test_cuda_first_falls_back_to_cpu(add_relu_path):
    if cuda_available():
        pytest.skip("CUDA is available here: the fallback path is not taken")
    feeds = add_relu_feeds()
    with pytest.warns(UserWarning, match="CUDAExecutionProvider"):
        sess = ort.InferenceSession(add_relu_path,
                                    providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert sess.get_providers() == ["CPUExecutionProvider"]
    assert list(sess.get_provider_options()) == ["CPUExecutionProvider"]
    assert isinstance(sess.get_provider_options()["CPUExecutionProvider"], dict)
    assert_outputs_close(sess.run(None, feeds), reference(add_relu_path, feeds))


@pytest.mark.parametrize("providers", [
    ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"],
    ["DmlExecutionProvider", "CPUExecutionProvider"],
    [("CoreMLExecutionProvider", {"MLComputeUnits": "ALL"}), "CPUExecutionProvider"],
    [("OpenVINOExecutionProvider", {"device_type": "CPU_FP32", "num_of_threads": 8})],
    ["NnapiExecutionProvider", "CPUExecutionProvider"],
    ["AclExecutionProvider", "CPUExecutionProvider"],
    [("ROCMExecutionProvider", {"device_id": 0, "gpu_mem_limit": 2 * 1024 * 1024 * 1024})],
    [("TensorrtExecutionProvider", {"device_id": 0, "trt_fp16_enable": True,
                                    "trt_engine_cache_path": "./trt_cache"}),
     "CUDAExecutionProvider", "CPUExecutionProvider"],
], ids=["trt-cuda-cpu", "dml", "coreml-options", "openvino-only", "nnapi", "acl", "rocm-only",
        "trt-options"])
def test_unavailable_providers_fall_back_to_cpu(add_relu_path, providers):
    # Every provider list the seed documents show: unavailable ones are skipped with a warning.
    feeds = add_relu_feeds()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sess = ort.InferenceSession(add_relu_path, providers=providers)
    assert sess.get_providers() == ["CPUExecutionProvider"]
    named = [p[0] if isinstance(p, tuple) else p for p in providers]
    for name in named:
        if name != "CPUExecutionProvider" and name not in ort.get_available_providers():
            assert any(name in str(w.message) for w in caught), name
    assert_outputs_close(sess.run(None, feeds), reference(add_relu_path, feeds))


def test_cuda_options_tuple_and_provider_options_list(add_relu_path):
    cuda_options = {
        "device_id": 0,
        "arena_extend_strategy": "kNextPowerOfTwo",
        "gpu_mem_limit": 2 * 1024 * 1024 * 1024,
        "cudnn_conv_algo_search": "EXHAUSTIVE",
        "do_copy_in_default_stream": True,
    }
    feeds = add_relu_feeds()
    expected = reference(add_relu_path, feeds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_tuple = ort.InferenceSession(
            add_relu_path, providers=[("CUDAExecutionProvider", cuda_options),
                                      "CPUExecutionProvider"])
        by_list = ort.InferenceSession(add_relu_path,
                                       providers=["CUDAExecutionProvider", "CPUExecutionProvider"],
                                       provider_options=[cuda_options, {}])
    for sess in (by_tuple, by_list):
        if not cuda_available():
            assert sess.get_providers() == ["CPUExecutionProvider"]
        else:
            assert sess.get_providers()[0] == "CUDAExecutionProvider"
            assert sess.get_provider_options()["CUDAExecutionProvider"]["device_id"] == "0"
        assert_outputs_close(sess.run(None, feeds), expected)


def test_provider_argument_errors(add_relu_path):
    with pytest.raises(ValueError, match="same length"):
        ort.InferenceSession(add_relu_path, providers=CPU, provider_options=[{}, {}])
    with pytest.raises(ValueError):
        ort.InferenceSession(add_relu_path, providers=[42])
    with pytest.warns(UserWarning, match="Duplicate provider"):
        sess = ort.InferenceSession(add_relu_path, providers=CPU + CPU)
    assert sess.get_providers() == CPU


def test_test_provider_options_and_set_providers(add_relu_path):
    feeds = add_relu_feeds()
    expected = reference(add_relu_path, feeds)
    sess = ort.InferenceSession(
        add_relu_path, providers=[("TestExecutionProvider", {"ops": "Add,Relu"}),
                                  "CPUExecutionProvider"])
    assert sess.get_providers() == ["TestExecutionProvider", "CPUExecutionProvider"]
    options = sess.get_provider_options()
    assert options["TestExecutionProvider"]["ops"] == "Add,Relu"
    assert options["TestExecutionProvider"]["device_id"] == "0"
    assert "Add" in sess.get_partition_report()
    assert_outputs_close(sess.run(None, feeds), expected)

    # The seed's two spellings: a list, and a bare name.
    sess.set_providers(["CPUExecutionProvider"])
    assert sess.get_providers() == CPU
    assert_outputs_close(sess.run(None, feeds), expected)
    sess.set_providers("CPUExecutionProvider")
    assert sess.get_providers() == CPU
    sess.set_providers(["TestExecutionProvider", "CPUExecutionProvider"],
                       [{"ops": "Mul"}, {}])
    assert sess.get_provider_options()["TestExecutionProvider"]["ops"] == "Mul"
    assert_outputs_close(sess.run(None, feeds), expected)
    sess.set_providers()
    assert sess.get_providers() == CPU


def test_failing_provider_falls_back_to_cpu_at_creation(add_relu_path):
    # onnxruntime retries on the CPU provider when the requested providers fail to initialize.
    with pytest.warns(UserWarning, match="Falling back"):
        sess = ort.InferenceSession(
            add_relu_path, providers=[("TestExecutionProvider", {"device_id": "not-a-number"}),
                                      "CPUExecutionProvider"])
    assert sess.get_providers() == CPU
    assert not sess._enable_fallback  # fell back once; onnxruntime then disables it
    assert sess.run(None, add_relu_feeds())  # runs on the CPU provider
    sess.enable_fallback()
    assert sess._enable_fallback
    sess.disable_fallback()
    assert not sess._enable_fallback


def test_run_failing_in_a_provider_is_retried_on_cpu(add_relu_path):
    # The retry lives in the core; Python announces it with onnxruntime's warning.
    feeds = add_relu_feeds()
    expected = onnxruntime.InferenceSession(add_relu_path, providers=CPU).run(None, feeds)
    sess = ort.InferenceSession(add_relu_path, providers=[
        ("TestExecutionProvider", {"ops": "Add", "fail_compute": "1"}), "CPUExecutionProvider"])
    assert sess.get_providers() == ["TestExecutionProvider", "CPUExecutionProvider"]
    with pytest.warns(UserWarning, match="simulated device failure.*Falling back"):
        assert_outputs_close(sess.run(None, feeds), expected)
    assert sess.get_providers() == CPU
    assert not sess._enable_fallback


def test_run_failure_with_fallback_disabled_raises(add_relu_path):
    sess = ort.InferenceSession(add_relu_path, providers=[
        ("TestExecutionProvider", {"ops": "Add", "fail_compute": "1"}), "CPUExecutionProvider"])
    sess.disable_fallback()
    with pytest.raises(ort.EPFail, match="simulated device failure"):
        sess.run(None, add_relu_feeds())


def test_disable_cpu_ep_fallback_config(add_relu_path):
    options = ort.SessionOptions()
    options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    assert options.get_session_config_entry("session.disable_cpu_ep_fallback") == "1"
    # The test EP takes Add and Relu only; Mul has nowhere to go without the CPU fallback.
    with pytest.raises(ort.EPFail, match="disable_cpu_ep_fallback"):
        ort.InferenceSession(add_relu_path, options,
                             providers=[("TestExecutionProvider", {"ops": "Add,Relu"})])
    # With every op on the test EP the session is fine.
    sess = ort.InferenceSession(add_relu_path, options,
                                providers=[("TestExecutionProvider", {"ops": "Add,Relu,Mul"})])
    assert sess.get_providers()[0] == "TestExecutionProvider"
    feeds = add_relu_feeds()
    assert_outputs_close(sess.run(None, feeds), reference(add_relu_path, feeds))
    with pytest.raises(RuntimeError):
        options.get_session_config_entry("no.such.key")


# ---- options ------------------------------------------------------------------------------
def test_session_options_defaults_match_onnxruntime():
    ours, theirs = ort.SessionOptions(), onnxruntime.SessionOptions()
    for name in ("intra_op_num_threads", "inter_op_num_threads", "log_severity_level",
                 "log_verbosity_level", "logid", "enable_profiling", "optimized_model_filepath",
                 "enable_cpu_mem_arena", "enable_mem_pattern", "enable_mem_reuse",
                 "use_deterministic_compute"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert int(ours.graph_optimization_level) == int(theirs.graph_optimization_level)
    assert int(ours.execution_mode) == int(theirs.execution_mode)


@pytest.mark.parametrize("level", ["ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED",
                                   "ORT_ENABLE_ALL"])
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_session_options_regression_outputs_unchanged_by_level_thread_and_mode_options(
        add_relu_path, level, threads):
    """Prism does not implement graph optimization levels, intra/inter-op threads or the parallel
    execution mode yet; this only checks they are stored and outputs are unchanged."""
    so = ort.SessionOptions()
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = threads
    so.execution_mode = ort.ExecutionMode.ORT_PARALLEL if threads > 1 else \
        ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    so.logid = "test-%s" % level
    so.enable_cpu_mem_arena = False
    so.enable_mem_pattern = False
    assert so.graph_optimization_level == getattr(ort.GraphOptimizationLevel, level)
    assert so.intra_op_num_threads == threads
    feeds = add_relu_feeds()
    sess = ort.InferenceSession(add_relu_path, sess_options=so, providers=CPU)
    assert sess.get_session_options() is so
    assert_outputs_close(sess.run(None, feeds), reference(add_relu_path, feeds))


def test_session_options_type_checks():
    so = ort.SessionOptions()
    with pytest.raises(TypeError):
        so.intra_op_num_threads = "4"
    with pytest.raises(TypeError):
        so.graph_optimization_level = "ORT_ENABLE_ALL"
    with pytest.raises(ValueError):
        so.graph_optimization_level = 7
    so.graph_optimization_level = 1
    assert so.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC


def test_verbose_logging_session(add_relu_path):
    # The seed's "use verbose logging to see how nodes are partitioned".
    so = ort.SessionOptions()
    so.log_severity_level = 0
    sess = ort.InferenceSession(add_relu_path, so)
    assert sess.run(["z"], add_relu_feeds())[0].shape == (2, 4)


def test_profiling(add_relu_path, tmp_path):
    sess = ort.InferenceSession(add_relu_path)
    assert sess.end_profiling() == ""
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "profile")
    sess = ort.InferenceSession(add_relu_path, so)
    sess.run(None, add_relu_feeds())
    path = sess.end_profiling()
    assert path.startswith(str(tmp_path / "profile")) and path.endswith(".json")
    with open(path) as f:
        events = json.load(f)
    # One model_run, and one kernel event per node of the model, for the single run.
    assert sum(1 for e in events if e.get("cat") == "Session" and e["name"] == "model_run") == 1
    node_events = [e for e in events if e.get("cat") == "Node"]
    assert sorted(e["args"]["op_name"] for e in node_events) == sorted(
        n.op_type for n in onnx.load(add_relu_path).graph.node)
    assert all(e["dur"] >= 0 for e in events)
    assert sess.end_profiling() == ""  # already ended


def test_run_options(add_relu_path):
    sess = ort.InferenceSession(add_relu_path)
    ro = ort.RunOptions()
    theirs = onnxruntime.RunOptions()
    for name in ("log_severity_level", "log_verbosity_level", "logid", "terminate"):
        assert getattr(ro, name) == getattr(theirs, name), name
    ro.log_severity_level = 2
    ro.log_verbosity_level = 1
    ro.logid = "tagged-run"
    assert ro.run_tag == "tagged-run"
    feeds = add_relu_feeds()
    expected = reference(add_relu_path, feeds)
    assert_close(sess.run(None, feeds, ro)[0], expected[0])
    assert_close(sess.run(None, feeds, run_options=ro)[0], expected[0])
    ro.terminate = True
    with pytest.raises(PrismError):
        sess.run(None, feeds, ro)
    ro.terminate = False
    assert_close(sess.run(None, feeds, ro)[0], expected[0])
    ro.add_run_config_entry("key", "value")
    assert ro.get_run_config_entry("key") == "value"


def test_global_thread_pools_are_shared(add_relu_path):
    # In a fresh process: the pools are process-wide and made once.
    script = r"""
import os, sys
import numpy as np
import prismrt as ort
path = sys.argv[1]
feeds = {name: np.full((2, 4), i - 1.5, np.float32) for i, name in enumerate("abc")}
options = ort.SessionOptions()
options.use_per_session_threads = False
try:
    ort.InferenceSession(path, options)
    raise SystemExit("created without global pools")
except ort.InvalidArgument as error:
    assert "set_global_thread_pool_sizes" in str(error), error
ort.set_global_thread_pool_sizes(3, 1)
ort.set_global_thread_pool_sizes(3, 1)
try:
    ort.set_global_thread_pool_sizes(2, 1)
    raise SystemExit("other sizes accepted")
except ort.InvalidArgument as error:
    assert "exist already with 3 intra-op" in str(error), error
threads = len(os.listdir("/proc/self/task"))
sessions = [ort.InferenceSession(path, options) for _ in range(3)]
assert len(os.listdir("/proc/self/task")) == threads, "sessions started threads"
results = [s.run(None, feeds)[0] for s in sessions]
own = ort.SessionOptions()
own.intra_op_num_threads = 3
separate = ort.InferenceSession(path, own)
assert len(os.listdir("/proc/self/task")) == threads + 2
for r in results:
    np.testing.assert_array_equal(r, separate.run(None, feeds)[0])
print("ok")
"""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", script, add_relu_path], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


def test_arena_statistics_and_shrinkage(add_relu_path):
    sess = ort.InferenceSession(add_relu_path)
    feeds = add_relu_feeds()
    expected = reference(add_relu_path, feeds)
    sess.run(None, feeds)  # records the memory pattern
    before = sess.get_allocator_stats()
    assert before["Arena"] == 1 and before["NumAllocs"] >= 1
    assert_close(sess.run(None, feeds)[0], expected[0])
    after = sess.get_allocator_stats()
    # Two outputs: at most the pattern's block and the outputs, and nothing from the system.
    assert 1 <= after["NumAllocs"] - before["NumAllocs"] <= 3
    assert after["NumReserves"] == before["NumReserves"]
    ro = ort.RunOptions()
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    assert_close(sess.run(None, feeds, ro)[0], expected[0])
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu")
    with pytest.raises(InvalidArgument, match="not of the form device:id"):
        sess.run(None, feeds, ro)
    with pytest.raises(InvalidArgument, match="no allocator for Gpu:0"):
        sess.get_allocator_stats("Gpu")
    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = False
    plain = ort.InferenceSession(add_relu_path, options)
    plain.run(None, feeds)
    stats = plain.get_allocator_stats()
    assert stats["Arena"] == 0 and stats["NumReserves"] == stats["NumAllocs"]


# ---- running ------------------------------------------------------------------------------
def test_output_selection(add_relu_path):
    feeds = add_relu_feeds()
    z_ref, s_ref = reference(add_relu_path, feeds)  # exactly two outputs
    expected = {"z": z_ref, "s": s_ref}
    sess = ort.InferenceSession(add_relu_path)
    for names in (None, []):
        results = sess.run(names, feeds)
        assert len(results) == 2
        assert_close(results[0], expected["z"])
        assert_close(results[1], expected["s"])
    s, z = sess.run(["s", "z"], feeds)
    assert_close(s, expected["s"])
    assert_close(z, expected["z"])
    assert_close(sess.run(output_names=["s"], input_feed=feeds)[0], expected["s"])


def test_assert_outputs_close_rejects_a_missing_or_extra_output(add_relu_path):
    # The comparison itself: zip() would stop at the shorter list and pass.
    outputs = ort.InferenceSession(add_relu_path).run(None, add_relu_feeds())
    assert len(outputs) == 2
    assert_outputs_close(outputs, list(outputs))
    with pytest.raises(AssertionError, match="1 outputs, expected 2"):
        assert_outputs_close(outputs[:-1], outputs)
    with pytest.raises(AssertionError, match="2 outputs, expected 1"):
        assert_outputs_close(outputs, outputs[:1])
    with pytest.raises(AssertionError, match="output 1:"):
        assert_outputs_close(outputs, [outputs[0], outputs[1] + 1])


def test_python_lists_take_the_input_type():
    model = make_model([helper.make_node("Relu", ["x"], ["y"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    data = model.SerializeToString()
    ours = ort.InferenceSession(data).run(None, {"x": [[1, -2, 3]]})[0]
    theirs = onnxruntime.InferenceSession(data, providers=CPU).run(None, {"x": [[1, -2, 3]]})[0]
    assert_close(ours, theirs)


def test_run_with_ort_values(add_relu_path):
    feeds = add_relu_feeds()
    sess = ort.InferenceSession(add_relu_path)
    values = {k: ort.OrtValue.ortvalue_from_numpy(v) for k, v in feeds.items()}
    results = sess.run_with_ort_values(["z"], values)
    assert isinstance(results[0], ort.OrtValue)
    assert_close(results[0].numpy(), reference(add_relu_path, feeds, ["z"])[0])
    # OrtValues are accepted by run() too.
    assert_close(sess.run(["z"], values)[0], reference(add_relu_path, feeds, ["z"])[0])


def test_concurrent_runs(add_relu_path):
    sess = ort.InferenceSession(add_relu_path)
    errors = []

    def worker(seed):
        try:
            feeds = add_relu_feeds(batch=3, seed=seed)
            expected = reference(add_relu_path, feeds)
            for _ in range(20):
                assert_outputs_close(sess.run(None, feeds), expected)
        except Exception as error:  # reported below, from the main thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


# ---- errors -------------------------------------------------------------------------------
def test_error_classes(add_relu_path, tmp_path):
    import prismrt.capi.onnxruntime_pybind11_state as state
    for name in ("Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError",
                 "RuntimeException", "InvalidProtobuf", "ModelLoaded", "NotImplemented",
                 "InvalidGraph", "EPFail"):
        cls = getattr(state, name)
        assert issubclass(cls, PrismError) and issubclass(cls, Exception)
        assert getattr(ort, name) is cls
    assert NotImplemented is not state.NotImplemented  # the builtin is untouched here

    with pytest.raises(NoSuchFile):
        ort.InferenceSession(str(tmp_path / "missing.onnx"))
    with pytest.raises(InvalidProtobuf):
        ort.InferenceSession(b"this is not a model")
    with pytest.raises(TypeError):
        ort.InferenceSession(12345)


def test_run_errors(add_relu_path):
    sess = ort.InferenceSession(add_relu_path)
    feeds = add_relu_feeds()
    with pytest.raises(ValueError, match="Required inputs"):
        sess.run(None, {"a": feeds["a"]})
    with pytest.raises(InvalidArgument, match="wrong_name"):
        sess.run(None, dict(feeds, wrong_name=feeds["a"]))
    with pytest.raises(InvalidArgument):
        sess.run(None, dict(feeds, a=feeds["a"].astype(np.float64)))
    with pytest.raises(InvalidArgument):
        sess.run(None, dict(feeds, a=np.zeros((2, 5), np.float32)))
    with pytest.raises(InvalidArgument):
        sess.run(None, dict(feeds, a=np.zeros((2, 4, 1), np.float32)))
    with pytest.raises(InvalidArgument, match="no_such_output"):
        sess.run(["no_such_output"], feeds)
    # The error message carries the C status message.
    try:
        sess.run(None, dict(feeds, wrong_name=feeds["a"]))
    except InvalidArgument as error:
        assert "INVALID_ARGUMENT" in str(error) and "wrong_name" in error.message


def _shape_chain_model(tmp_path):
    """Y = Reshape(X, Concat(Unsqueeze(Gather(Shape(X), 0)), [-1])) on a static X[2,3,4]."""
    nodes = [
        helper.make_node("Shape", ["X"], ["S"], name="shape"),
        helper.make_node("Gather", ["S", "zero"], ["G"], name="gather"),
        helper.make_node("Unsqueeze", ["G", "axes"], ["U"], name="unsqueeze"),
        helper.make_node("Concat", ["U", "minus_one"], ["T"], name="concat", axis=0),
        helper.make_node("Reshape", ["X", "T"], ["Y"], name="reshape"),
    ]
    inits = [helper.make_tensor("zero", TensorProto.INT64, [], [0]),
             helper.make_tensor("axes", TensorProto.INT64, [1], [0]),
             helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1])]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 12])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = str(tmp_path / "chain.onnx")
    onnx.save(model, path)
    return path


def test_disabled_optimizers_keyword(tmp_path):
    path = _shape_chain_model(tmp_path)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    optimized = ort.InferenceSession(path, providers=CPU)
    kept = ort.InferenceSession(path, providers=CPU, disabled_optimizers=["ConstantFolding"])
    # The report lists the nodes the session runs: folding leaves only the Reshape.
    assert "shape (Shape" not in optimized.get_partition_report()
    assert "shape (Shape" in kept.get_partition_report()
    expected = onnxruntime.InferenceSession(path, providers=CPU).run(None, {"X": x})
    assert_outputs_close(optimized.run(None, {"X": x}), expected)
    assert_outputs_close(kept.run(None, {"X": x}), expected)
    with pytest.raises(TypeError, match="disabled_optimizers must be a list or set of str"):
        ort.InferenceSession(path, providers=CPU, disabled_optimizers="ConstantFolding")
    with pytest.raises(TypeError, match="disabled_optimizers must hold str"):
        ort.InferenceSession(path, providers=CPU, disabled_optimizers=[3])


def test_optimized_model_filepath_writes_a_model_onnxruntime_runs(tmp_path, bench_models):
    # The shape chain folds to one Reshape; bert_tiny loses its Shape computations.
    chain = _shape_chain_model(tmp_path)
    cases = [(chain, {"X": np.arange(24, dtype=np.float32).reshape(2, 3, 4)})]
    bert = bench_models["bert_tiny"]
    cases.append((bert, bench_inputs(bert)))
    for source, feeds in cases:
        written = str(tmp_path / ("optimized_" + os.path.basename(source)))
        options = ort.SessionOptions()
        options.optimized_model_filepath = written
        ours = ort.InferenceSession(source, options, providers=CPU)
        original, optimized = onnx.load(source), onnx.load(written)
        onnx.checker.check_model(optimized)
        assert len(optimized.graph.node) < len(original.graph.node), source
        assert optimized.producer_name == "prism"
        expected = onnxruntime.InferenceSession(source, providers=CPU).run(None, feeds)
        theirs = onnxruntime.InferenceSession(written, providers=CPU).run(None, feeds)
        assert_outputs_close(theirs, expected)
        assert_outputs_close(ours.run(None, feeds), expected)
        assert_outputs_close(ort.InferenceSession(written, providers=CPU).run(None, feeds), expected)
