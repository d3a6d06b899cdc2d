"""The seed documents' usages on the bench models (make_models.py), every output compared with
onnxruntime (rtol 1e-3, atol 1e-4) on the same inputs."""
import json
import os
import warnings

import numpy as np
import onnxruntime
import pytest

import prismrt as ort

from conftest import BENCH_MODELS, assert_close, assert_outputs_close, bench_inputs

CPU = ["CPUExecutionProvider"]


@pytest.fixture(scope="module")
def oracle(bench_models):
    cache = {}

    def get(name, feeds):
        so = onnxruntime.SessionOptions()
        so.intra_op_num_threads = 1
        if name not in cache:
            cache[name] = onnxruntime.InferenceSession(bench_models[name], so, providers=CPU)
        return cache[name].run(None, feeds)

    return get


@pytest.mark.parametrize("name", BENCH_MODELS)
def test_bench_inputs_follow_the_sidecar(bench_models, name):
    # Random where the sidecar says so (never constant), different for another seed, the same for
    # the same seed; the attention mask is ones unless masked.
    path = bench_models[name]
    with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
        specs = json.load(f)["inputs"]
    feeds, again, other = (bench_inputs(path, seed=s) for s in (0, 0, 1))
    assert list(feeds) == [spec["name"] for spec in specs]
    for spec in specs:
        value, fill = feeds[spec["name"]], spec["fill"]
        assert value.dtype == np.dtype(spec["dtype"]) and list(value.shape) == spec["shape"]
        np.testing.assert_array_equal(value, again[spec["name"]])
        if fill["kind"] == "ones":
            assert (value == 1).all(), spec["name"]
            continue
        distinct = np.unique(value).size
        assert distinct > value.size // 2, "%s (fill %s) has %d distinct values in %d" % (
            spec["name"], fill["kind"], distinct, value.size)
        assert not np.array_equal(value, other[spec["name"]]), \
            "%s is the same for seeds 0 and 1" % spec["name"]
        if fill["kind"] == "randint":
            assert fill["low"] <= value.min() and value.max() < fill["high"], spec["name"]
    if "attention_mask" in feeds:
        mask = bench_inputs(path, masked=True)["attention_mask"]
        assert set(np.unique(mask)) == {0, 1} and (mask[..., 0] == 1).all()


@pytest.mark.parametrize("name", BENCH_MODELS)
def test_cuda_first_provider_list(bench_models, oracle, name):
    # EP_list = ['CUDAExecutionProvider', 'CPUExecutionProvider']; run; then CPU only.
    ep_list = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sess = ort.InferenceSession(bench_models[name], providers=ep_list)
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        assert sess.get_providers() == ["CPUExecutionProvider"]
    output_name = sess.get_outputs()[0].name
    input_names = [i.name for i in sess.get_inputs()]
    feeds = bench_inputs(bench_models[name])
    assert sorted(input_names) == sorted(feeds)
    expected = oracle(name, feeds)
    detections = sess.run([output_name], feeds)[0]
    assert_close(detections, expected[0])
    sess.set_providers(["CPUExecutionProvider"])
    assert sess.get_providers() == CPU
    assert_outputs_close(sess.run(None, feeds), expected)


@pytest.mark.parametrize("name", BENCH_MODELS)
def test_interface_matches_onnxruntime(bench_models, name):
    sess = ort.InferenceSession(bench_models[name])
    ref = onnxruntime.InferenceSession(bench_models[name], providers=CPU)
    for ours, theirs in ((sess.get_inputs(), ref.get_inputs()),
                         (sess.get_outputs(), ref.get_outputs())):
        assert [(a.name, a.type, a.shape) for a in ours] == [(a.name, a.type, a.shape)
                                                             for a in theirs]
    ours, theirs = sess.get_modelmeta(), ref.get_modelmeta()
    for field in ("producer_name", "graph_name", "domain", "description",
                  "custom_metadata_map"):
        assert getattr(ours, field) == getattr(theirs, field), field
    # onnxruntime reports INT64_MAX for a model without model_version; the C API gives 0 (it
    # cannot tell "absent" from an explicit 0).
    assert ours.version in (theirs.version, 0) if theirs.version == 2**63 - 1 else \
        ours.version == theirs.version


@pytest.mark.parametrize("name", BENCH_MODELS)
def test_cuda_options_regression_outputs_unchanged_by_optimization_and_thread_options(
        bench_models, oracle, name):
    """The seed's CUDA options tuple, with ORT_ENABLE_ALL and intra_op_num_threads = 4.

    Prism does not implement graph optimization levels or intra-op threads yet; for those this
    only checks outputs are unchanged."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = 4
    cuda_options = {
        "device_id": 0,
        "arena_extend_strategy": "kNextPowerOfTwo",
        "gpu_mem_limit": 2 * 1024 * 1024 * 1024,
        "cudnn_conv_algo_search": "EXHAUSTIVE",
        "do_copy_in_default_stream": True,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = ort.InferenceSession(bench_models[name], so,
                                       providers=[("CUDAExecutionProvider", cuda_options),
                                                  "CPUExecutionProvider"])
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        assert session.get_providers() == ["CPUExecutionProvider"]
    feeds = bench_inputs(bench_models[name], seed=3)
    expected = oracle(name, feeds)
    # Warm-up loop as in the seed, then compare.
    for _ in range(2):
        session.run(None, feeds)
    assert_outputs_close(session.run(None, feeds), expected)


@pytest.mark.parametrize("level", ["ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED"])
def test_mnist_regression_outputs_unchanged_by_optimization_level_option(bench_models, oracle,
                                                                         level):
    """Prism does not implement graph optimization levels yet; this only checks outputs are
    unchanged."""
    so = ort.SessionOptions()
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(bench_models["mnist_cnn"], sess_options=so,
                                providers=["CPUExecutionProvider"])
    feeds = bench_inputs(bench_models["mnist_cnn"], seed=5)
    assert_outputs_close(sess.run(None, feeds), oracle("mnist_cnn", feeds))


@pytest.mark.parametrize("name", BENCH_MODELS)
def test_seed_iobinding(bench_models, oracle, name):
    # io_binding.bind_cpu_input('input', x); bind_output('output', 'cuda' when in use);
    # run_with_iobinding; copy_outputs_to_cpu()[0].
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = ort.InferenceSession(bench_models[name], providers=["CUDAExecutionProvider"])
    device = "cuda" if "CUDAExecutionProvider" in session.get_providers() else "cpu"
    feeds = bench_inputs(bench_models[name], seed=9)
    io_binding = session.io_binding()
    for input_name, value in feeds.items():
        io_binding.bind_cpu_input(input_name, value)
    output_name = session.get_outputs()[0].name
    io_binding.bind_output(output_name, device)
    session.run_with_iobinding(io_binding)
    output = io_binding.copy_outputs_to_cpu()[0]
    assert_close(output, oracle(name, feeds)[0])


def test_mnist_through_test_device(bench_models, oracle):
    # The test EP takes Relu and Add; the output is bound to its device memory.
    sess = ort.InferenceSession(bench_models["mnist_cnn"],
                                providers=[("TestExecutionProvider", {"ops": "Add,Relu"}),
                                           "CPUExecutionProvider"])
    feeds = bench_inputs(bench_models["mnist_cnn"], seed=11)
    binding = sess.io_binding()
    binding.bind_cpu_input("input", feeds["input"])
    binding.bind_output("output", "TestDevice", 0)
    sess.run_with_iobinding(binding)
    value = binding.get_outputs()[0]
    assert value.device_name() == "testdevice"
    assert value.shape() == [1, 10]
    assert_close(binding.copy_outputs_to_cpu()[0], oracle("mnist_cnn", feeds)[0])
    assert_outputs_close(sess.run(None, feeds), oracle("mnist_cnn", feeds))


def test_bert_tiny_batch_of_runs(bench_models, oracle):
    sess = ort.InferenceSession(bench_models["bert_tiny"])
    for seed, masked in ((0, False), (1, False), (2, True)):
        feeds = bench_inputs(bench_models["bert_tiny"], seed=seed, masked=masked)
        assert feeds["input_ids"].dtype == np.int64
        assert_outputs_close(sess.run(None, feeds), oracle("bert_tiny", feeds))
