"""Fixtures of the serving tests: a local Ray instance (num_cpus=2) with Serve on a free port, the
bench models, and helpers to deploy prismrt.serve applications and load them from threads.

The tests use the installed prismrt (with prismrt.serve) and ray[serve] from requirements-test.txt;
onnxruntime, run in the test process on the same inputs, is the oracle.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RTOL = 1e-3
ATOL = 1e-4

sys.path.insert(0, os.path.join(REPO, "tests", "models"))
from bench_models import make_inputs, make_symbolic_batch  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--extended", action="store_true",
                     help="also run the long serving tests (scripts/run_extended.sh serving)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--extended"):
        return
    skip = pytest.mark.skip(reason="extended serving test: run with --extended")
    for item in items:
        if "extended" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "extended: long serving test (--extended)")
    # Ray Serve's own pydantic models warn about deprecated Field arguments on import.
    config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning")


def shared_dir():
    return (os.environ.get("PRISM_SHARED_DIR") or
            os.path.normpath(os.path.join(REPO, "..", "shared")))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Model:
    """A model file with its sidecar (bench models) and an onnxruntime session as the oracle."""

    def __init__(self, path, sidecar=None):
        import onnxruntime as ort
        self.path = path
        self.sidecar = sidecar
        with open(path, "rb") as f:
            self.data = f.read()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.oracle = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        self.output_names = [o.name for o in self.oracle.get_outputs()]
        self._lock = threading.Lock()

    def inputs(self, seed, batch=None, masked=True):
        return make_inputs(self.sidecar, np.random.default_rng(seed), masked=masked, batch=batch)

    def expected(self, feeds):
        return dict(zip(self.output_names, self.oracle.run(self.output_names, feeds)))


def ragged_model_path(folder):
    """y = x * 2 + 1 and s = ReduceSum(x, axis 1): inputs [batch, n] with n symbolic too, so
    requests of different n cannot be concatenated."""
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["x2"]),
         helper.make_node("Add", ["x2", "one"], ["y"]),
         helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=1)],
        "ragged", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "n"]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, ["batch", 1])],
        initializer=[two, one, axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(folder, "ragged.onnx")
    onnx.save(model, path)
    return path


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    """{name: Model}: squeezenet1_1 (static batch 1), bert_tiny with a symbolic batch dim, and the
    ragged model."""
    script = os.path.join(shared_dir(), "bench", "make_models.py")
    if not os.path.isfile(script):
        pytest.fail("make_models.py not found at %s (set PRISM_SHARED_DIR)" % script)
    out = tmp_path_factory.mktemp("serving-models")
    subprocess.run([sys.executable, script, str(out), "--models", "squeezenet1_1,bert_tiny",
                    "--no-check"], check=True, stdout=subprocess.DEVNULL)
    sidecars = {}
    for name in ("squeezenet1_1", "bert_tiny"):
        with open(out / (name + ".json"), encoding="utf-8") as f:
            sidecars[name] = json.load(f)
    bert = str(out / "bert_tiny_batch.onnx")
    make_symbolic_batch(str(out / "bert_tiny.onnx"), bert)
    return {"squeezenet1_1": Model(str(out / "squeezenet1_1.onnx"), sidecars["squeezenet1_1"]),
            "bert_tiny": Model(bert, sidecars["bert_tiny"]),
            "ragged": Model(ragged_model_path(str(out)))}


class Cluster:
    """The local Ray instance with Serve; deploy() runs an application under /NAME."""

    def __init__(self, port):
        self.port = port
        self.url = "http://127.0.0.1:%d" % port

    def deploy(self, name, model, **options):
        from ray import serve

        from prismrt.serve import build_app
        options.setdefault("replicas", 2)
        serve.run(build_app(model.data, **options), name=name, route_prefix="/" + name)
        return self.url + "/" + name

    def delete(self, name):
        from ray import serve
        serve.delete(name)

    def replica_actors(self, name):
        """The Ray actors of the model replicas of application NAME."""
        import ray
        prefix = "SERVE_REPLICA::%s#PrismModel#" % name
        return [ray.get_actor(a["name"], namespace=a["namespace"])
                for a in ray.util.list_named_actors(all_namespaces=True)
                if a["name"].startswith(prefix)]

    def wait_replicas(self, name, count, timeout_s=120):
        """Waits until the application runs COUNT healthy model replicas (after a kill)."""
        from ray import serve
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            app = serve.status().applications.get(name)
            if app is not None and app.status == "RUNNING":
                deployment = app.deployments.get("PrismModel")
                running = deployment.replica_states.get("RUNNING", 0) if deployment else 0
                if running == count and len(self.replica_actors(name)) == count:
                    return
            time.sleep(0.5)
        raise AssertionError("application %s did not get back to %d replicas in %d s: %s" % (
            name, count, timeout_s, serve.status().applications.get(name)))


@pytest.fixture(scope="session")
def cluster():
    import ray
    from ray import serve
    port = free_port()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    try:
        yield Cluster(port)
    finally:
        serve.shutdown()
        ray.shutdown()


def kill_when_busy(actor, timeout_s=30):
    """Kills a model replica's actor (ray.kill) at a moment it holds requests: polls its number of
    ongoing requests (the replica actor's get_num_ongoing_requests, which Ray Serve's router
    uses) and kills it as soon as one is in flight, so that the kill hits work in progress."""
    import ray
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            busy = ray.get(actor.get_num_ongoing_requests.remote(), timeout=5)
        except Exception:  # noqa: BLE001 (older or newer Ray: kill without looking)
            busy = 1
        if busy:
            break
        time.sleep(0.002)
    ray.kill(actor, no_restart=True)


def run_load(url, requests, threads=8, during=None):
    """Sends every request (a callable taking a Client) from THREADS threads, each with its own
    keep-alive connection; returns the results (or exceptions) in request order. during(done) is
    called from another thread while the load runs, with a function counting finished requests."""
    from prismrt.serve.client import Client
    results = [None] * len(requests)
    finished = [0]
    lock = threading.Lock()

    def worker(k):
        client = Client(url)
        for i in range(k, len(requests), threads):
            try:
                results[i] = requests[i](client)
            except Exception as error:  # noqa: BLE001 (checked by the test)
                results[i] = error
            with lock:
                finished[0] += 1
        client.close()

    workers = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    helper_error = []
    if during is not None:
        try:
            during(lambda: finished[0])
        except Exception as error:  # noqa: BLE001
            helper_error.append(error)
    for w in workers:
        w.join()
    if helper_error:
        raise helper_error[0]
    return results


def assert_outputs_match(results, expected, label=""):
    """Every result is a dict of arrays matching the oracle's within RTOL/ATOL."""
    problems = []
    for i, (got, want) in enumerate(zip(results, expected)):
        if isinstance(got, Exception):
            problems.append("request %d: %s: %s" % (i, type(got).__name__, got))
            continue
        for name, value in want.items():
            if name not in got:
                problems.append("request %d: output %s missing (got %s)" % (i, name, sorted(got)))
            elif got[name].shape != value.shape:
                problems.append("request %d: output %s shape %s, expected %s" % (
                    i, name, got[name].shape, value.shape))
            elif not np.allclose(got[name], value, rtol=RTOL, atol=ATOL):
                problems.append("request %d: output %s differs from onnxruntime's by up to %g" % (
                    i, name, float(np.max(np.abs(got[name] - value)))))
    assert not problems, "%s%d of %d requests wrong:\n  %s" % (
        label, len(problems), len(results), "\n  ".join(problems[:20]))
