"""enable_cuda_graph on a GPU: the second run with the same shapes is captured, later runs replay
the graph (the plan allocates nothing on the device, which a step-by-step run of the same
model cannot manage), every replay computes the new inputs'
results, and runs that cannot replay (host inputs, other shapes, a node on the CPU) still give
right answers. Skipped, visibly, where no CUDA device is usable."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import prismrt as ort

pytestmark = pytest.mark.skipif(
    "CUDAExecutionProvider" not in ort.get_available_providers(),
    reason="no usable CUDA device here: the CUDA EP tests need a GPU (tests/gpu/run.sh)")

RNG = np.random.RandomState(7)
W = RNG.randn(64, 32).astype(np.float32)
B = RNG.randn(32).astype(np.float32)


def mlp_model(with_cpu_node=False):
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
             helper.make_node("Add", ["m", "b"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["r"], name="relu"),
             helper.make_node("Softmax", ["r"], ["y"], name="softmax", axis=-1)]
    if with_cpu_node:  # Softmax over axis 0 is declined by the CUDA EP
        nodes[-1] = helper.make_node("Softmax", ["r"], ["y"], name="softmax", axis=0)
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 32])],
        [onnx.numpy_helper.from_array(W, "w"), onnx.numpy_helper.from_array(B, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8).SerializeToString()


def expected(x, axis=-1):
    r = np.maximum(x @ W + B, 0)
    e = np.exp(r - r.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def session(graph_on, model=None):
    options = {"enable_cuda_graph": "1" if graph_on else "0"}
    return ort.InferenceSession(model or mlp_model(),
                                providers=[("CUDAExecutionProvider", options),
                                           "CPUExecutionProvider"])


def device_allocs(sess):
    """Allocations the session's plan made in device memory (the copies a replay hands back come
    from the EP's arena directly and are not counted)."""
    return sess.get_allocator_stats("Cuda", 0)["NumAllocs"]


def run_bound(sess, x):
    binding = sess.io_binding()
    binding.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
    binding.bind_output("y", "cuda", 0)
    sess.run_with_iobinding(binding)
    return binding.get_outputs()[0].numpy()


def allocs_per_run(sess, runs=4):
    before = device_allocs(sess)
    for _ in range(runs):
        x = RNG.randn(8, 64).astype(np.float32)
        np.testing.assert_allclose(run_bound(sess, x), expected(x), rtol=1e-4, atol=1e-6)
    return (device_allocs(sess) - before) / runs


def test_replays_compute_each_runs_inputs_and_allocate_only_the_output_copies():
    sess = session(True)
    assert sess.get_provider_options()["CUDAExecutionProvider"]["enable_cuda_graph"] == "1"
    for _ in range(2):  # the first run warms up, the second is captured
        x = RNG.randn(8, 64).astype(np.float32)
        np.testing.assert_allclose(run_bound(sess, x), expected(x), rtol=1e-4, atol=1e-6)
    replayed = allocs_per_run(sess)
    assert replayed == 0, replayed  # no intermediates: the plan did not run
    step_by_step = allocs_per_run(session(False))
    assert step_by_step >= 1, step_by_step  # the check above can fail


def test_results_held_from_earlier_replays_stay_intact():
    sess = session(True)
    xs = [RNG.randn(8, 64).astype(np.float32) for _ in range(6)]
    values = []
    for x in xs:
        binding = sess.io_binding()
        binding.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
        binding.bind_output("y", "cuda", 0)
        sess.run_with_iobinding(binding)
        values.append(binding.get_outputs()[0])
    for x, value in zip(xs, values):
        np.testing.assert_allclose(value.numpy(), expected(x), rtol=1e-4, atol=1e-6)


def test_runs_that_cannot_replay_still_give_right_answers():
    sess = session(True)
    for _ in range(3):
        x = RNG.randn(8, 64).astype(np.float32)
        np.testing.assert_allclose(run_bound(sess, x), expected(x), rtol=1e-4, atol=1e-6)
    # Host inputs: step by step.
    x = RNG.randn(8, 64).astype(np.float32)
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], expected(x), rtol=1e-4, atol=1e-6)
    # A node on the CPU: no capture at all, right answers.
    mixed = session(True, mlp_model(with_cpu_node=True))
    for _ in range(3):
        x = RNG.randn(8, 64).astype(np.float32)
        np.testing.assert_allclose(run_bound(mixed, x), expected(x, axis=0), rtol=1e-4,
                                   atol=1e-6)


def test_an_index_out_of_range_in_a_replay_is_an_error():
    """Gather's indices are checked on the device; in a replayed graph the EP reads the flag
    after the replay, so a bad index still fails the run, and the next good run is right."""
    table = RNG.randn(10, 4).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["g"], name="gather", axis=0),
         helper.make_node("Relu", ["g"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        [onnx.numpy_helper.from_array(table, "table")])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8).SerializeToString()
    sess = ort.InferenceSession(data, providers=[("CUDAExecutionProvider",
                                                  {"enable_cuda_graph": "1"}),
                                                 "CPUExecutionProvider"])

    def run(ids):
        binding = sess.io_binding()
        binding.bind_ortvalue_input("ids", ort.OrtValue.ortvalue_from_numpy(ids, "cuda", 0))
        binding.bind_output("y", "cuda", 0)
        sess.run_with_iobinding(binding)
        return binding.get_outputs()[0].numpy()

    for ids in ([1, 2, 3], [4, -1, 0], [9, 9, 5], [0, 1, 2]):  # warm-up, capture, replays
        ids = np.array(ids, np.int64)
        np.testing.assert_allclose(run(ids), np.maximum(table[ids], 0))
    with pytest.raises(Exception, match="out of range"):
        run(np.array([0, 10, 1], np.int64))
    ids = np.array([3, 2, 1], np.int64)
    np.testing.assert_allclose(run(ids), np.maximum(table[ids], 0))
