"""run()'s one-call path (C ABI version 9, RunWithBuffers): numpy feeds of plain element types
go to the C library as raw buffers and the results come back described in the same call. These
tests check that the path is taken, that it gives what the general path (one C value per feed,
one description per result) and onnxruntime give, where it hands over to the general path, and
that concurrent runs on one session do not share its scratch arrays."""
import threading

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort
from prismrt import _session


def _model(nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _info(name, element_type, shape):
    return helper.make_tensor_value_info(name, element_type, shape)


# x float [n, 3], k int64 [n]: y = Relu(x), z = k + k, w = Identity(x) (aliases the feed inside
# the run), e = Slice(x) to an empty tensor, s = ReduceSum(x) to a 0-d scalar.
_MIXED = _model(
    [helper.make_node("Relu", ["x"], ["y"]),
     helper.make_node("Add", ["k", "k"], ["z"]),
     helper.make_node("Identity", ["x"], ["w"]),
     helper.make_node("Constant", [], ["starts"], value_ints=[0]),
     helper.make_node("Constant", [], ["ends"], value_ints=[0]),
     helper.make_node("Slice", ["x", "starts", "ends"], ["e"]),
     helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0)],
    [_info("x", TensorProto.FLOAT, ["n", 3]), _info("k", TensorProto.INT64, ["n"])],
    [_info("y", TensorProto.FLOAT, ["n", 3]), _info("z", TensorProto.INT64, ["n"]),
     _info("w", TensorProto.FLOAT, ["n", 3]), _info("e", TensorProto.FLOAT, None),
     _info("s", TensorProto.FLOAT, [])])


def _feeds(rng, rows):
    return {"x": rng.standard_normal((rows, 3)).astype(np.float32),
            "k": rng.randint(-50, 50, size=rows).astype(np.int64)}


def _general_only(monkeypatch):
    monkeypatch.setattr(_session.InferenceSession, "_run_buffers",
                        lambda self, *args: None)


def _buffers_only(monkeypatch):
    def refuse(self, *args):
        raise AssertionError("run() left the one-call path")
    monkeypatch.setattr(_session.InferenceSession, "_run_values", refuse)


def _assert_equal_results(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a, e)


def test_plain_feeds_take_the_one_call_path_and_match_onnxruntime(monkeypatch):
    rng = np.random.RandomState(7)
    sess = ort.InferenceSession(_MIXED)
    oracle = onnxruntime.InferenceSession(_MIXED, providers=["CPUExecutionProvider"])
    _buffers_only(monkeypatch)
    for rows in (1, 4, 0):
        feeds = _feeds(rng, rows)
        results = sess.run(None, feeds)
        _assert_equal_results(results[:3], oracle.run(["y", "z", "w"], feeds))
        assert results[3].shape == (0, 3) and results[3].dtype == np.float32
        assert results[4].shape == () and results[4] == pytest.approx(feeds["x"].sum(), abs=1e-5)
        # Identity's result is a copy, never the fed buffer.
        assert not np.shares_memory(results[2], feeds["x"])
        assert results[0].flags.writeable and results[0].flags.c_contiguous
        # Named outputs, in the asked order.
        z, y = sess.run(["z", "y"], feeds)
        _assert_equal_results([z, y], oracle.run(["z", "y"], feeds))


def test_the_general_path_gives_the_same_results(monkeypatch):
    rng = np.random.RandomState(8)
    sess = ort.InferenceSession(_MIXED)
    feeds = _feeds(rng, 5)
    fast = sess.run(None, feeds)
    _general_only(monkeypatch)
    general = sess.run(None, feeds)
    _assert_equal_results(fast, general)


@pytest.mark.parametrize("feed", ["list", "strided", "big_endian", "rank_9", "unknown_name"])
def test_other_feeds_take_the_general_path(monkeypatch, feed):
    sess = ort.InferenceSession(_model(
        [helper.make_node("Relu", ["x"], ["y"])], [_info("x", TensorProto.FLOAT, None)],
        [_info("y", TensorProto.FLOAT, None)]))
    base = np.arange(-6, 12, dtype=np.float32)
    inputs = {"list": [[-1.0, 2.0], [3.0, -4.0]],
              "strided": base.reshape(3, 6)[:, ::2],
              "big_endian": base.astype(">f4"),
              "rank_9": base[:2].reshape(1, 1, 1, 1, 1, 1, 1, 1, 2)}
    calls = []
    original = _session.InferenceSession._run_buffers

    def spy(self, *args):
        value = original(self, *args)
        calls.append(value is None)
        return value

    monkeypatch.setattr(_session.InferenceSession, "_run_buffers", spy)
    if feed == "unknown_name":
        with pytest.raises(Exception, match="no_such_input"):
            sess.run(None, {"x": base, "no_such_input": base})
        assert calls == [True]
        return
    value = inputs[feed]
    result = sess.run(None, {"x": value})[0]
    np.testing.assert_array_equal(result, np.maximum(np.asarray(value, np.float32), 0))
    assert calls == [True]  # the one-call path declined, having run nothing


def test_results_whose_dims_do_not_fit_are_read_in_full():
    # Twelve rank-8 results: 96 dims, more than the 64 the one-call path keeps room for; the
    # later results are described again (DescribeValue) and must keep their shapes (one-element
    # ones too, whose byte size fits any shape of one element).
    count = 12
    shapes = [[1] * 7 + [1 + i % 2] for i in range(count)]
    nodes, outputs = [], []
    for i, shape in enumerate(shapes):
        nodes.append(helper.make_node("Constant", [], ["shape%d" % i], value_ints=shape))
        nodes.append(helper.make_node("Expand", ["x", "shape%d" % i], ["y%d" % i]))
        outputs.append(_info("y%d" % i, TensorProto.FLOAT, None))
    model = _model(nodes, [_info("x", TensorProto.FLOAT, [1])], outputs)
    sess = ort.InferenceSession(model)
    results = sess.run(None, {"x": np.array([2.5], np.float32)})
    for result, shape in zip(results, shapes):
        assert list(result.shape) == shape
        assert np.all(result == 2.5)


def test_errors_name_the_input_as_the_general_path_does(monkeypatch):
    sess = ort.InferenceSession(_MIXED)
    rng = np.random.RandomState(9)
    good = _feeds(rng, 2)
    cases = [dict(good, x=good["x"].astype(np.float64)),   # wrong element type
             dict(good, x=good["x"].reshape(2, 3, 1)),     # wrong rank
             {"x": good["x"]}]                             # a required input missing
    messages = []
    for feeds in cases:
        with pytest.raises(Exception) as raised:
            sess.run(None, feeds)
        messages.append((type(raised.value), str(raised.value)))
    _general_only(monkeypatch)
    for feeds, (kind, message) in zip(cases, messages):
        with pytest.raises(kind) as raised:
            sess.run(None, feeds)
        assert str(raised.value) == message
    assert "'x'" in messages[0][1] or "x" in messages[0][1]
    assert "k" in messages[2][1]


def test_concurrent_runs_on_one_session_keep_their_own_results():
    sess = ort.InferenceSession(_MIXED)
    errors = []

    def worker(seed):
        rng = np.random.RandomState(seed)
        try:
            for _ in range(300):
                rows = rng.randint(1, 6)
                feeds = _feeds(rng, rows)
                y, z, w, _, _ = sess.run(None, feeds)
                np.testing.assert_array_equal(y, np.maximum(feeds["x"], 0))
                np.testing.assert_array_equal(z, feeds["k"] * 2)
                np.testing.assert_array_equal(w, feeds["x"])
        except Exception as error:  # reported on the main thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]


# Large results are handed over without a copy (their arrays own the C values); these check that
# such an array is never a feed's memory or another result's, survives later runs and the
# session, and is freed with its array.
_LARGE = _model(
    [helper.make_node("Relu", ["x"], ["y"]),
     helper.make_node("Identity", ["x"], ["same"]),
     helper.make_node("Neg", ["x"], ["n"]),
     helper.make_node("Identity", ["n"], ["n_again"])],
    [_info("x", TensorProto.FLOAT, [256, 256])],
    [_info("y", TensorProto.FLOAT, [256, 256]), _info("same", TensorProto.FLOAT, [256, 256]),
     _info("n", TensorProto.FLOAT, [256, 256]), _info("n_again", TensorProto.FLOAT, [256, 256])])


def test_large_results_are_their_own_memory_and_outlive_runs_and_the_session(monkeypatch):
    rng = np.random.RandomState(11)
    sess = ort.InferenceSession(_LARGE)
    _buffers_only(monkeypatch)
    x = rng.standard_normal((256, 256)).astype(np.float32)
    y, same, n, n_again = sess.run(None, {"x": x})
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(n, -x)
    np.testing.assert_array_equal(n_again, -x)
    assert not np.shares_memory(same, x)          # Identity of a feed: copied
    assert not np.shares_memory(n, n_again)       # one value under two names: one copied
    assert y.flags.writeable and n_again.flags.writeable
    kept = [v.copy() for v in (y, same, n, n_again)]
    for _ in range(3):  # later runs must not write into the arrays handed out
        sess.run(None, {"x": rng.standard_normal((256, 256)).astype(np.float32)})
    del sess
    for value, copy in zip((y, same, n, n_again), kept):
        np.testing.assert_array_equal(value, copy)


def _resident_mib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def test_large_results_are_freed_with_their_arrays():
    sess = ort.InferenceSession(_LARGE)
    x = np.ones((256, 256), np.float32)
    for _ in range(20):
        sess.run(None, {"x": x})
    before = _resident_mib()
    for _ in range(300):  # 4 results of 256 KiB a run: 300 MiB if none were freed
        sess.run(None, {"x": x})
    assert _resident_mib() - before < 64


@pytest.mark.parametrize("output", ["initializer", "identity_of_initializer", "constant"])
def test_results_that_share_the_sessions_memory_are_copies(output):
    # A graph output that is an initializer or a Constant is the session's own buffer inside
    # the run: the array handed out must be a copy, or writing into it would change the model.
    weights = np.arange(256 * 256, dtype=np.float32).reshape(256, 256)
    tensor = numpy_helper.from_array(weights, "w")
    nodes, initializers, name = [], [tensor], "w"
    if output == "identity_of_initializer":
        nodes, name = [helper.make_node("Identity", ["w"], ["y"])], "y"
    elif output == "constant":
        nodes, initializers, name = [helper.make_node("Constant", [], ["y"], value=tensor)], [], "y"
    graph = helper.make_graph(nodes, "g", [_info("x", TensorProto.FLOAT, [1])],
                              [_info(name, TensorProto.FLOAT, [256, 256])],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    sess = ort.InferenceSession(model.SerializeToString())
    feeds = {"x": np.ones(1, np.float32)}
    first = sess.run(None, feeds)[0]
    first[...] = -1.0
    np.testing.assert_array_equal(sess.run(None, feeds)[0], weights)
