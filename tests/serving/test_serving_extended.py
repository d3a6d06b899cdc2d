"""The longer serving tests (scripts/run_extended.sh serving; pytest --extended): the onnxruntime
backend behind the same deployment, batching off, a longer load with two kills, the 5xx answers
(no replica left to retry on, a run that fails), prism-serve end to end, app_builder."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from conftest import assert_outputs_match, free_port, kill_when_busy, run_load

from prismrt.serve.client import Client, HttpError

pytestmark = pytest.mark.extended


def _infer(feeds, body="npz"):
    return lambda client: client.infer(feeds, body=body)


@pytest.mark.parametrize("backend,batching", [("onnxruntime", True), ("prism", False),
                                              ("onnxruntime", False)])
@pytest.mark.parametrize("model_name", ["squeezenet1_1", "bert_tiny"])
def test_backends_and_batching_match_onnxruntime(cluster, models, model_name, backend,
                                                 batching):
    model = models[model_name]
    name = "x_%s_%s_%d" % (model_name, backend, batching)
    url = cluster.deploy(name, model, backend=backend, batching=batching, max_batch_size=8,
                         batch_wait_timeout_s=0.02)
    try:
        rows = (lambda i: 1 + i % 3) if model_name == "bert_tiny" else (lambda i: None)
        feeds_list = [model.inputs(1000 + i, batch=rows(i)) for i in range(96)]
        results = run_load(url, [_infer(f) for f in feeds_list], 8)
        assert_outputs_match(results, [model.expected(f) for f in feeds_list], name + ": ")
        meta = Client(url).metadata()
        assert meta["backend"] == backend and meta["batching"]["enabled"] == batching
        assert (meta["partition"] is None) == (backend == "onnxruntime")
    finally:
        cluster.delete(name)


def test_long_load_with_two_kills_loses_no_request(cluster, models):
    """640 requests from 16 threads; one replica killed after a quarter of them, and once Serve
    has replaced it, another one after three quarters."""
    model = models["bert_tiny"]
    url = cluster.deploy("long", model, max_batch_size=8, batch_wait_timeout_s=0.05)
    try:
        feeds_list = [model.inputs(2000 + i, batch=1 + i % 3) for i in range(640)]
        retries_before = Client(url).health()["ingress"]["retries"]
        first = cluster.replica_actors("long")[0]  # looked up before the load: killed at once

        def during(finished):
            while finished() < 160:
                time.sleep(0.002)
            kill_when_busy(first)
            cluster.wait_replicas("long", 2)
            second = cluster.replica_actors("long")[0]
            while finished() < 480:
                time.sleep(0.002)
            kill_when_busy(second)
        results = run_load(url, [_infer(f, ("npz", "json")[i % 2])
                                 for i, f in enumerate(feeds_list)], 16, during=during)
        assert_outputs_match(results, [model.expected(f) for f in feeds_list])
        assert Client(url).health()["ingress"]["retries"] > retries_before
        cluster.wait_replicas("long", 2)
    finally:
        cluster.delete("long")


def test_request_no_replica_can_serve_gets_503_with_the_reason(cluster, models):
    """With no retries, the requests in flight on a killed replica get a 503 naming the
    replica's death; every other request its outputs: none disappears."""
    model = models["squeezenet1_1"]
    url = cluster.deploy("noretry", model, retries=0, max_batch_size=4,
                         batch_wait_timeout_s=0.05)
    try:
        feeds_list = [model.inputs(3000 + i) for i in range(48)]
        victims = cluster.replica_actors("noretry")

        def during(finished):
            while finished() < 12:
                time.sleep(0.002)
            kill_when_busy(victims[0])
        results = run_load(url, [_infer(f) for f in feeds_list], 8, during=during)
        unavailable = [r for r in results if isinstance(r, HttpError)]
        assert unavailable, "no request was in flight on the killed replica"
        for error in unavailable:
            assert error.status == 503 and "ActorDiedError" in error.message, error
        served = [(r, model.expected(f)) for r, f in zip(results, feeds_list)
                  if not isinstance(r, HttpError)]
        assert_outputs_match([r for r, _ in served], [e for _, e in served])
        cluster.wait_replicas("noretry", 2)
    finally:
        cluster.delete("noretry")


def test_failing_run_gets_an_error_with_the_reason(cluster, tmp_path):
    """A run that fails in the runtime (Reshape of 5 values to [-1, 2]) is answered with the
    runtime's message, 400 or 500, never dropped; the next good request still works."""
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 2])
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"])], "reshape",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=[shape])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = str(tmp_path / "reshape.onnx")
    onnx.save(model, path)

    class Model:
        data = open(path, "rb").read()
    url = cluster.deploy("reshape", Model, replicas=1)
    try:
        client = Client(url)
        with pytest.raises(HttpError) as info:
            client.infer({"x": np.ones(5, np.float32)})
        assert info.value.status in (400, 500) and "Reshape" in info.value.message, info.value
        good = client.infer({"x": np.arange(4, dtype=np.float32)})["y"]
        assert np.array_equal(good, np.arange(4, dtype=np.float32).reshape(2, 2))
    finally:
        cluster.delete("reshape")


def test_app_builder_from_a_path(cluster, models):
    from ray import serve

    from prismrt.serve import app_builder
    model = models["bert_tiny"]
    serve.run(app_builder({"model": model.path, "replicas": "1", "max_batch_size": "4",
                           "batching": "true"}), name="builder", route_prefix="/builder")
    try:
        url = cluster.url + "/builder"
        feeds = model.inputs(4000, batch=2)
        assert_outputs_match([Client(url).infer(feeds)], [model.expected(feeds)])
    finally:
        cluster.delete("builder")


def test_prism_serve_command(models, tmp_path):
    """prism-serve on its own local Ray instance (model bytes through the object store)."""
    model = models["bert_tiny"]
    port = free_port()
    command = os.path.join(os.path.dirname(sys.executable), "prism-serve")
    log = open(tmp_path / "prism-serve.log", "w")
    proc = subprocess.Popen([command, model.path, "--replicas", "2", "--num-cpus", "2",
                             "--port", str(port), "--host", "127.0.0.1", "--max-batch-size",
                             "4"], stdout=log, stderr=subprocess.STDOUT)
    try:
        client = Client("http://127.0.0.1:%d" % port, timeout=10)
        deadline = time.time() + 180
        while True:
            assert proc.poll() is None, open(tmp_path / "prism-serve.log").read()[-3000:]
            if "is served at" in open(tmp_path / "prism-serve.log").read():
                assert client.health()["status"] == "ok"
                break
            assert time.time() < deadline, open(tmp_path / "prism-serve.log").read()[-3000:]
            time.sleep(1)
        meta = client.metadata()
        assert meta["backend"] == "prism" and meta["batching"]["max_batch_size"] == 4
        feeds_list = [model.inputs(5000 + i, batch=1 + i % 2) for i in range(16)]
        results = run_load("http://127.0.0.1:%d" % port, [_infer(f) for f in feeds_list], 4)
        assert_outputs_match(results, [model.expected(f) for f in feeds_list])
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        log.close()
    assert proc.returncode == 0, open(tmp_path / "prism-serve.log").read()[-3000:]
