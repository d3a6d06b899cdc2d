"""Every SessionOptions and RunOptions attribute prismrt accepts either shows its effect here or
warns that it has none: no option is accepted and silently dropped.

EFFECTS maps each attribute to the test that shows what it does, WARNS to the one that shows its
warning; test_every_option_is_covered fails when an attribute (a property of either class) is in
neither, so a new option needs one of the two. The config entries this slice added have effect
tests too (session.set_denormal_as_zero, the run config entries). Log output is captured through
the C ABI's custom logger (CreateEnvWithCustomLogger).
"""
import ctypes
import json
import os
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import prismrt as ort
from prismrt import _c_api

from conftest import make_model

CPU = ["CPUExecutionProvider"]


def _bytes(model):
    return model.SerializeToString()


def relu_chain(length=8, shape=(256, 256)):
    """x -> Relu -> ... -> Relu (length nodes) -> y: each Relu may write over its input."""
    nodes = [helper.make_node("Relu", ["x" if i == 0 else "r%d" % i],
                              ["y" if i == length - 1 else "r%d" % (i + 1)]) for i in range(length)]
    return _bytes(make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)]))


def matmul_chain(length=6, size=64):
    """x @ W0 @ W1 ... (no kernel writes over its input): one buffer per intermediate."""
    rng = np.random.RandomState(0)
    weights = [helper.make_tensor("w%d" % i, TensorProto.FLOAT, [size, size],
                                  (rng.standard_normal(size * size) * 0.1).astype(np.float32))
               for i in range(length)]
    nodes = [helper.make_node("MatMul", ["x" if i == 0 else "m%d" % i, "w%d" % i],
                              ["y" if i == length - 1 else "m%d" % (i + 1)])
             for i in range(length)]
    return _bytes(make_model(
        nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size, size])],
        initializers=weights))


def identity_relu():
    """y = Relu(Identity(x)): the basic optimizer level removes the Identity."""
    return _bytes(make_model(
        [helper.make_node("Identity", ["x"], ["i"]), helper.make_node("Relu", ["i"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])]))


def two_branches():
    """y = Relu(x) and z = Reshape(x, s): a bad s fails z's branch only."""
    return _bytes(make_model(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Reshape", ["x", "s"], ["z"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("s", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, None)]))


def mixed_model():
    """MatMul, Softmax, ReduceSum, Conv, LayerNormalization on independent branches: kernels
    that split over threads, and branches the parallel mode runs at once."""
    rng = np.random.RandomState(1)
    w = helper.make_tensor("w", TensorProto.FLOAT, [256, 256],
                           rng.standard_normal(256 * 256).astype(np.float32))
    k = helper.make_tensor("k", TensorProto.FLOAT, [8, 4, 3, 3],
                           rng.standard_normal(8 * 4 * 9).astype(np.float32))
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [256], np.ones(256, np.float32))
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Softmax", ["m"], ["s"], axis=-1),
        helper.make_node("ReduceSum", ["s"], ["r"], keepdims=1),
        helper.make_node("LayerNormalization", ["m", "scale"], ["ln"], axis=-1),
        helper.make_node("Conv", ["img", "k"], ["c"], pads=[1, 1, 1, 1]),
    ]
    return _bytes(make_model(
        nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [128, 256]),
                helper.make_tensor_value_info("img", TensorProto.FLOAT, [2, 4, 64, 64])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
         for name in ("r", "ln", "c")], initializers=[w, k, scale]))


def thread_count():
    """The process's threads once the count holds still for 50 ms: a thread of an earlier test
    (a pool torn down, a library's helper) may still be exiting, and CI once counted one that
    ended between two reads (7 against 8)."""
    count = len(os.listdir("/proc/self/task"))
    for _ in range(100):
        time.sleep(0.05)
        now = len(os.listdir("/proc/self/task"))
        if now == count:
            return count
        count = now
    return count


def session(model, **options):
    so = ort.SessionOptions()
    for name, value in options.items():
        setattr(so, name, value)
    return ort.InferenceSession(model, so, providers=CPU)


class CapturedLog:
    """Messages (log id, text) the process log sends to a custom logger while installed."""

    def __init__(self):
        self.messages = []
        self._lock = threading.Lock()
        self._callback = _c_api.LOGGING_FUNCTION(self._receive)
        self._env = None

    def _receive(self, _param, _severity, _category, log_id, _location, message):
        with self._lock:
            self.messages.append((_c_api.decode(log_id), _c_api.decode(message)))

    def __enter__(self):
        env = ctypes.c_void_p()
        c = _c_api.api()
        c.check(c.CreateEnvWithCustomLogger(self._callback, None, 2, b"options-test",
                                            ctypes.byref(env)))
        self._env = env
        return self

    def __exit__(self, *exc):
        _c_api.api().ReleaseEnv(self._env)

    def count(self, log_id, part=""):
        with self._lock:
            return sum(1 for i, text in self.messages if i == log_id and part in text)


@pytest.fixture
def log():
    with CapturedLog() as captured:
        yield captured


# ---- SessionOptions -------------------------------------------------------------------------
def effect_intra_op_num_threads():
    before = thread_count()
    sess = session(relu_chain(), intra_op_num_threads=3)
    assert thread_count() - before == 2  # the caller is the third
    del sess
    before = thread_count()
    sess = session(relu_chain(), intra_op_num_threads=1)
    assert thread_count() == before


def effect_execution_mode_and_inter_op_num_threads():
    before = thread_count()
    sess = session(relu_chain(), intra_op_num_threads=1, inter_op_num_threads=3,
                   execution_mode=ort.ExecutionMode.ORT_PARALLEL)
    assert thread_count() - before == 2  # the inter-op pool
    del sess
    before = thread_count()
    sess = session(relu_chain(), intra_op_num_threads=1, inter_op_num_threads=3,
                   execution_mode=ort.ExecutionMode.ORT_SEQUENTIAL)
    assert thread_count() == before  # sequential: no inter-op pool (the core warns once)


def effect_graph_optimization_level_and_optimized_model_filepath(tmp_path):
    levels = {}
    for level in ort.GraphOptimizationLevel:
        path = tmp_path / ("optimized_%s.onnx" % level.name)
        session(identity_relu(), graph_optimization_level=level,
                optimized_model_filepath=str(path))
        levels[level] = [node.op_type for node in onnx.load(str(path)).graph.node]
    assert levels[ort.GraphOptimizationLevel.ORT_DISABLE_ALL] == ["Identity", "Relu"]
    for level in (ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                  ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                  ort.GraphOptimizationLevel.ORT_ENABLE_LAYOUT,
                  ort.GraphOptimizationLevel.ORT_ENABLE_ALL):
        assert levels[level] == ["Relu"], level


def warns_execution_order():
    for order in (ort.ExecutionOrder.PRIORITY_BASED, ort.ExecutionOrder.MEMORY_EFFICIENT):
        with pytest.warns(RuntimeWarning, match="execution_order = %s has no effect" % order.name):
            session(relu_chain(), execution_order=order)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        session(relu_chain(), execution_order=ort.ExecutionOrder.DEFAULT)


def effect_log_severity_level_and_logid():
    with CapturedLog() as log:
        session(relu_chain(), log_severity_level=0, logid="verbose-session")
        session(relu_chain(), log_severity_level=3, logid="quiet-session")
        session(relu_chain(), logid="default-session")  # the process default: warnings
    assert log.count("verbose-session", "session initialized: 8 nodes") == 1
    assert log.count("quiet-session") == 0
    assert log.count("default-session") == 0


def effect_log_verbosity_level():
    x = {"x": np.ones((256, 256), np.float32)}
    with CapturedLog() as log:
        session(relu_chain(), log_severity_level=0, log_verbosity_level=1,
                logid="verbosity-1").run(None, x)
        session(relu_chain(), log_severity_level=0, logid="verbosity-0").run(None, x)
    # Level-1 messages: one per node of each run.
    assert log.count("verbosity-1", ": run Relu node") == 8
    assert log.count("verbosity-1", "run begins") == 1
    assert log.count("verbosity-0", ": run Relu node") == 0
    assert log.count("verbosity-0", "run begins") == 1


def effect_enable_profiling_and_profile_file_prefix(tmp_path):
    sess = session(relu_chain(), enable_profiling=True,
                   profile_file_prefix=str(tmp_path / "effect"))
    sess.run(None, {"x": np.ones((256, 256), np.float32)})
    path = sess.end_profiling()
    assert os.path.basename(path).startswith("effect_")
    with open(path) as f:
        assert sum(1 for event in json.load(f) if event.get("cat") == "Node") == 8
    assert session(relu_chain(), enable_profiling=False).end_profiling() == ""


def effect_enable_cpu_mem_arena():
    for arena in (True, False):
        sess = session(relu_chain(), enable_cpu_mem_arena=arena)
        sess.run(None, {"x": np.ones((256, 256), np.float32)})
        assert sess.get_allocator_stats()["Arena"] == int(arena)


def allocations_per_run(model, feeds, **options):
    """Allocation requests of the third run (the first records the memory pattern)."""
    sess = session(model, **options)
    for _ in range(2):
        sess.run(None, feeds)
    before = sess.get_allocator_stats()["NumAllocs"]
    sess.run(None, feeds)
    return sess.get_allocator_stats()["NumAllocs"] - before, sess.get_allocator_stats()


def effect_enable_mem_pattern():
    feeds = {"x": np.ones((64, 64), np.float32)}
    with_pattern, _ = allocations_per_run(matmul_chain(), feeds, enable_mem_pattern=True)
    without, _ = allocations_per_run(matmul_chain(), feeds, enable_mem_pattern=False)
    assert without == 6  # one per MatMul output
    assert with_pattern < without  # the intermediates come from the pattern's one block


def effect_enable_mem_reuse():
    feeds = {"x": np.ones((256, 256), np.float32)}
    # In place: the chain's first Relu allocates, the others write over their input.
    reused, _ = allocations_per_run(relu_chain(), feeds, enable_mem_pattern=False)
    separate, _ = allocations_per_run(relu_chain(), feeds, enable_mem_pattern=False,
                                      enable_mem_reuse=False)
    assert reused == 1 and separate == 8
    # With the memory pattern, values whose lifetimes do not meet share bytes of its block; off,
    # every intermediate has its own.
    _, shared = allocations_per_run(matmul_chain(), {"x": np.ones((64, 64), np.float32)})
    _, own = allocations_per_run(matmul_chain(), {"x": np.ones((64, 64), np.float32)},
                                 enable_mem_reuse=False)
    assert own["MaxAllocSize"] >= 5 * 64 * 64 * 4 > shared["MaxAllocSize"]
    # Outputs are the same either way.
    x = {"x": np.random.RandomState(3).standard_normal((256, 256)).astype(np.float32)}
    assert np.array_equal(session(relu_chain(), enable_mem_reuse=False).run(None, x)[0],
                          np.maximum(x["x"], 0))


def effect_use_per_session_threads():
    # False: the session uses the process's global pools, which this process has not made.
    with pytest.raises(ort.InvalidArgument, match="set_global_thread_pool_sizes"):
        session(relu_chain(), use_per_session_threads=False)
    session(relu_chain(), use_per_session_threads=True)


def effect_use_deterministic_compute():
    # Prism's kernels are deterministic: the same bits on every run, with threads and parallel
    # branches, with the option on or off.
    rng = np.random.RandomState(2)
    feeds = {"x": rng.standard_normal((128, 256)).astype(np.float32),
             "img": rng.standard_normal((2, 4, 64, 64)).astype(np.float32)}
    results = []
    for deterministic in (True, False):
        sess = session(mixed_model(), use_deterministic_compute=deterministic,
                       intra_op_num_threads=4, inter_op_num_threads=3,
                       execution_mode=ort.ExecutionMode.ORT_PARALLEL)
        assert sess.get_session_options().use_deterministic_compute is deterministic
        for _ in range(10):
            results.append(sess.run(None, feeds))
    for result in results[1:]:
        for got, first in zip(result, results[0]):
            assert got.tobytes() == first.tobytes()


# ---- RunOptions ---------------------------------------------------------------------------
def effect_run_log_severity_level_and_logid():
    sess = session(relu_chain())
    x = {"x": np.ones((256, 256), np.float32)}
    with CapturedLog() as log:
        verbose = ort.RunOptions()
        verbose.log_severity_level = 0
        verbose.logid = "verbose-run"
        sess.run(None, x, verbose)
        quiet = ort.RunOptions()
        quiet.logid = "quiet-run"
        sess.run(None, x, quiet)  # the session's (process default) severity: warnings
    assert log.count("verbose-run", "run begins: 1 feeds, 1 of 1 outputs") == 1
    assert log.count("verbose-run", "run ended") == 1
    assert log.count("quiet-run") == 0


def effect_run_log_verbosity_level():
    sess = session(relu_chain())
    x = {"x": np.ones((256, 256), np.float32)}
    with CapturedLog() as log:
        for verbosity in (0, 1):
            ro = ort.RunOptions()
            ro.log_severity_level = 0
            ro.log_verbosity_level = verbosity
            ro.logid = "verbosity-%d" % verbosity
            sess.run(None, x, ro)
    assert log.count("verbosity-1", ": run Relu node") == 8
    assert log.count("verbosity-0", ": run Relu node") == 0


def effect_terminate():
    sess = session(relu_chain())
    ro = ort.RunOptions()
    ro.terminate = True
    with pytest.raises(ort.Fail, match="terminated"):
        sess.run(None, {"x": np.ones((256, 256), np.float32)}, ro)
    ro.terminate = False
    sess.run(None, {"x": np.ones((256, 256), np.float32)}, ro)


def effect_only_execute_path_to_fetches():
    sess = session(two_branches())
    feeds = {"x": np.ones((2, 3), np.float32), "s": np.array([5, 2], np.int64)}  # a bad shape
    with pytest.raises(ort.InvalidArgument, match="Reshape"):
        sess.run(["y"], feeds)  # every node runs by default
    ro = ort.RunOptions()
    ro.only_execute_path_to_fetches = True
    assert np.array_equal(sess.run(["y"], feeds, ro)[0], np.ones((2, 3), np.float32))
    with pytest.raises(ort.InvalidArgument, match="Reshape"):
        sess.run(["z"], feeds, ro)


EFFECTS = {
    ("SessionOptions", "intra_op_num_threads"): effect_intra_op_num_threads,
    ("SessionOptions", "inter_op_num_threads"): effect_execution_mode_and_inter_op_num_threads,
    ("SessionOptions", "execution_mode"): effect_execution_mode_and_inter_op_num_threads,
    ("SessionOptions", "graph_optimization_level"):
        effect_graph_optimization_level_and_optimized_model_filepath,
    ("SessionOptions", "optimized_model_filepath"):
        effect_graph_optimization_level_and_optimized_model_filepath,
    ("SessionOptions", "log_severity_level"): effect_log_severity_level_and_logid,
    ("SessionOptions", "logid"): effect_log_severity_level_and_logid,
    ("SessionOptions", "log_verbosity_level"): effect_log_verbosity_level,
    ("SessionOptions", "enable_profiling"): effect_enable_profiling_and_profile_file_prefix,
    ("SessionOptions", "profile_file_prefix"): effect_enable_profiling_and_profile_file_prefix,
    ("SessionOptions", "enable_cpu_mem_arena"): effect_enable_cpu_mem_arena,
    ("SessionOptions", "enable_mem_pattern"): effect_enable_mem_pattern,
    ("SessionOptions", "enable_mem_reuse"): effect_enable_mem_reuse,
    ("SessionOptions", "use_per_session_threads"): effect_use_per_session_threads,
    ("SessionOptions", "use_deterministic_compute"): effect_use_deterministic_compute,
    ("RunOptions", "log_severity_level"): effect_run_log_severity_level_and_logid,
    ("RunOptions", "logid"): effect_run_log_severity_level_and_logid,
    ("RunOptions", "log_verbosity_level"): effect_run_log_verbosity_level,
    ("RunOptions", "terminate"): effect_terminate,
    ("RunOptions", "only_execute_path_to_fetches"): effect_only_execute_path_to_fetches,
}
# RunOptions.run_tag is the C ABI's name of logid (the same property).
EFFECTS[("RunOptions", "run_tag")] = effect_run_log_severity_level_and_logid

WARNS = {
    ("SessionOptions", "execution_order"): warns_execution_order,
}


def option_attributes():
    """(class, attribute) of every property of SessionOptions and RunOptions."""
    return sorted((cls.__name__, name) for cls in (ort.SessionOptions, ort.RunOptions)
                  for name in dir(cls) if isinstance(getattr(cls, name, None), property))


def test_every_option_is_covered():
    uncovered = [option for option in option_attributes()
                 if option not in EFFECTS and option not in WARNS]
    assert not uncovered, ("options accepted with neither an effect test nor a warning: %s" %
                           uncovered)
    stale = sorted((set(EFFECTS) | set(WARNS)) - set(option_attributes()))
    assert not stale, "EFFECTS/WARNS name options the classes no longer have: %s" % stale


def test_the_coverage_check_catches_a_new_option(monkeypatch):
    # Plant: an option added to SessionOptions without an effect test or a warning.
    monkeypatch.setattr(ort.SessionOptions, "new_option", property(lambda self: 0),
                        raising=False)
    assert ("SessionOptions", "new_option") in option_attributes()
    with pytest.raises(AssertionError, match="new_option"):
        test_every_option_is_covered()


_TESTS = sorted({fn for fn in list(EFFECTS.values()) + list(WARNS.values())},
                key=lambda fn: fn.__name__)


@pytest.mark.parametrize("check", _TESTS, ids=[fn.__name__ for fn in _TESTS])
def test_option(check, tmp_path):
    if "tmp_path" in check.__code__.co_varnames[:check.__code__.co_argcount]:
        check(tmp_path)
    else:
        check()


# ---- config entries -----------------------------------------------------------------------
@pytest.mark.parametrize("threads", [1, 4])
def test_set_denormal_as_zero(threads):
    model = _bytes(make_model(
        [helper.make_node("Mul", ["x", "k"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
        initializers=[helper.make_tensor("k", TensorProto.FLOAT, [], [1e30])]))
    x = np.full(1 << 20, 1e-39, np.float32)  # denormal; times 1e30 is 1e-9
    assert x[0] != 0 and x[0] < np.finfo(np.float32).tiny
    results = {}
    for value in ("0", "1"):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads  # 4: the product is split over pool threads
        so.add_session_config_entry("session.set_denormal_as_zero", value)
        results[value] = ort.InferenceSession(model, so, providers=CPU).run(None, {"x": x})[0]
    assert np.allclose(results["0"], 1e-9, rtol=1e-5)
    assert not results["1"].any()  # operands read as zero on every thread
    # The calling thread's mode is restored after the run.
    assert np.float32(1e-39) * np.float32(1e30) != 0
    so = ort.SessionOptions()
    so.add_session_config_entry("session.set_denormal_as_zero", "yes")
    with pytest.raises(ort.InvalidArgument, match="set_denormal_as_zero"):
        ort.InferenceSession(model, so, providers=CPU)


def test_run_config_entries_reach_the_c_abi():
    ro = ort.RunOptions()
    ro.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    ro.add_run_config_entry("not.a.prism.key", "kept")
    assert ro.get_run_config_entry("memory.enable_memory_arena_shrinkage") == "cpu:0"
    assert ro.get_run_config_entry("not.a.prism.key") == "kept"
    with pytest.raises(RuntimeError, match="does not have configuration with key: other"):
        ro.get_run_config_entry("other")
    # The value read back comes from the C ABI's run options (GetRunConfigEntry).
    value = ctypes.c_char_p()
    _c_api.api().check(_c_api.api().GetRunConfigEntry(ro._handle.pointer, b"not.a.prism.key",
                                                      ctypes.byref(value)))
    assert value.value == b"kept"
    # Its effect: the CPU arena gives back the region its 16 MB intermediates took when the run
    # ends (the output is a scalar).
    model = _bytes(make_model(
        [helper.make_node("Expand", ["x", "shape"], ["e"]), helper.make_node("Relu", ["e"], ["r"]),
         helper.make_node("ReduceSum", ["r"], ["y"], keepdims=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
        initializers=[helper.make_tensor("shape", TensorProto.INT64, [1], [1 << 22])]))
    sess = session(model)
    x = {"x": np.ones(1, np.float32)}
    sess.run(None, x, ort.RunOptions())
    before = sess.get_allocator_stats()
    assert before["NumArenaShrinkages"] == 0 and before["TotalAllocated"] > 16 << 20
    assert sess.run(None, x, ro)[0] == 1 << 22
    after = sess.get_allocator_stats()
    assert after["NumArenaShrinkages"] == 1 and after["TotalAllocated"] < 16 << 20


# ---- process-wide settings ----------------------------------------------------------------
def test_set_default_logger_verbosity(log):
    x = {"x": np.ones((256, 256), np.float32)}
    sess = session(relu_chain(), log_severity_level=0, logid="process-verbosity")
    try:
        ort.set_default_logger_verbosity(1)
        sess.run(None, x)  # the session sets no verbosity: the process default applies
        assert log.count("process-verbosity", ": run Relu node") == 8
    finally:
        ort.set_default_logger_verbosity(0)
    sess.run(None, x)
    assert log.count("process-verbosity", ": run Relu node") == 8


def test_set_default_logger_severity(log):
    try:
        ort.set_default_logger_severity(0)
        session(relu_chain(), logid="process-severity")
    finally:
        ort.set_default_logger_severity(2)
    assert log.count("process-severity", "session initialized") == 1


def test_set_seed_makes_unseeded_random_ops_reproducible(tmp_path):
    # In fresh processes: set_seed is process-wide.
    model = make_model([helper.make_node("RandomNormal", [], ["y"], shape=[16]),
                        helper.make_node("Dropout", ["x", "ratio", "training"], ["d"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16]),
                        helper.make_tensor_value_info("d", TensorProto.FLOAT, [64])],
                       initializers=[helper.make_tensor("ratio", TensorProto.FLOAT, [], [0.5]),
                                     helper.make_tensor("training", TensorProto.BOOL, [], [True])])
    path = tmp_path / "random.onnx"
    onnx.save(model, str(path))
    script = r"""
import sys
import numpy as np
import prismrt as ort
seed = int(sys.argv[2])
if seed >= 0:
    ort.set_seed(seed)
x = {"x": np.ones(64, np.float32)}
runs = []
for _ in range(2):  # two sessions, two runs each
    sess = ort.InferenceSession(sys.argv[1])
    runs.append([np.concatenate(sess.run(None, x)).tolist() for _ in range(2)])
print(repr(runs))
"""

    def draws(seed):
        out = subprocess.run([sys.executable, "-c", script, str(path), str(seed)], check=True,
                             capture_output=True, text=True).stdout
        return eval(out)  # noqa: S307 (our own script's repr of lists of floats)

    seeded = draws(42)
    assert seeded[0] == seeded[1]  # session by session, run by run
    assert seeded[0][0] != seeded[0][1]  # runs of one session still differ
    assert draws(42) == seeded  # and so does a new process
    assert draws(7) != seeded
    unseeded = draws(-1)
    assert unseeded[0] != unseeded[1]


def test_run_async_calls_back_with_outputs_or_the_error():
    sess = session(two_branches())
    done = threading.Event()
    received = []

    def callback(results, user_data, err):
        received.append((results, user_data, err, threading.current_thread() is
                         threading.main_thread()))
        done.set()

    good = {"x": np.arange(6, dtype=np.float32).reshape(2, 3) - 2, "s": np.array([3, 2])}
    assert sess.run_async(None, good, callback, "data") is None
    assert done.wait(60)
    results, user_data, err, on_main = received.pop()
    assert err == "" and user_data == "data" and not on_main
    expected = sess.run(None, good)
    assert all(np.array_equal(a, b) for a, b in zip(results, expected))

    done.clear()
    sess.run_async(["y"], {"x": good["x"], "s": np.array([5, 2])}, callback, None)
    assert done.wait(60)
    results, _, err, _ = received.pop()
    assert results == [] and "Reshape" in err

    with pytest.raises(ValueError, match="Required inputs"):
        sess.run_async(None, {"x": good["x"]}, callback, None)
    with pytest.raises(TypeError):
        sess.run_async(None, good, "not callable", None)


def test_profiling_start_time_ns(tmp_path):
    assert session(relu_chain()).get_profiling_start_time_ns() == 0
    before = time.time_ns()
    sess = session(relu_chain(), enable_profiling=True,
                   profile_file_prefix=str(tmp_path / "start_time"))
    after = time.time_ns()
    assert before <= sess.get_profiling_start_time_ns() <= after
    os.remove(sess.end_profiling())
