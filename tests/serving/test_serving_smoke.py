"""prismrt.serve on a local Ray instance (num_cpus=2, 2 replicas): CI's serving smoke.

64 concurrent requests from 8 threads must return onnxruntime's outputs for the same inputs, on
squeezenet1_1 (no batch dimension: requests run one by one) and bert_tiny (symbolic batch:
requests are concatenated, with 1 to 3 rows each); a replica killed with ray.kill in the middle
of the load must lose no request; bad requests get a 400 naming the input with what the model
expects and what was given, and one bad request in a batch does not fail the others.
"""
import json
import re
import time

import numpy as np
import pytest

from conftest import assert_outputs_match, kill_when_busy, run_load

from prismrt.serve.client import Client, HttpError
from prismrt.serve._codec import encode_npy, encode_npz

REQUESTS = 64
THREADS = 8


def _infer(feeds, body):
    return lambda client: client.infer(feeds, body=body)


def _kill_one_replica(cluster, app, after):
    """A `during` for run_load: kills one model replica of APP, once AFTER requests finished,
    at a moment it holds requests."""
    victims = cluster.replica_actors(app)  # looked up before the load: the kill is then at once
    assert len(victims) == 2, "expected 2 replicas before the kill, found %d" % len(victims)

    def during(finished):
        deadline = time.time() + 120
        while finished() < after and time.time() < deadline:
            time.sleep(0.002)
        kill_when_busy(victims[0])
        during.killed_at = finished()
    return during


def _load_and_kill(cluster, url, app, model, feeds_list, bodies, rounds=6):
    """Runs the load with one replica killed after a third of the answers: every request must
    get onnxruntime's outputs. A kill that found its replica between batches (nothing in flight:
    no retry) proves nothing, so the round is repeated, up to ROUNDS times (6: a bert_tiny run
    takes well under a millisecond now, and 3 rounds once all missed in a CI run)."""
    expected = [model.expected(f) for f in feeds_list]
    requests = [_infer(f, bodies[i % len(bodies)]) for i, f in enumerate(feeds_list)]
    killed_at = []
    for _ in range(rounds):
        retries_before = Client(url).health()["ingress"]["retries"]
        during = _kill_one_replica(cluster, app, len(requests) // 3)
        results = run_load(url, requests, THREADS, during=during)
        assert_outputs_match(results, expected, "after a replica was killed mid-load: ")
        retries = Client(url).health()["ingress"]["retries"] - retries_before
        cluster.wait_replicas(app, 2)
        if retries >= 1:
            return retries
        killed_at.append(during.killed_at)
    raise AssertionError("the killed replica never had a request in flight (no retry) in %d "
                         "rounds (killed after %s of %d answers)" % (rounds, killed_at,
                                                                     len(requests)))


@pytest.fixture(scope="module")
def squeezenet_app(cluster, models):
    url = cluster.deploy("squeezenet", models["squeezenet1_1"], max_batch_size=4,
                         batch_wait_timeout_s=0.01)
    yield url
    cluster.delete("squeezenet")


@pytest.fixture(scope="module")
def bert_app(cluster, models, squeezenet_app):
    cluster.delete("squeezenet")  # both model apps do not fit 2 CPUs at once (1 per replica)
    url = cluster.deploy("bert", models["bert_tiny"], max_batch_size=8,
                         batch_wait_timeout_s=0.05)
    yield url
    cluster.delete("bert")


def test_squeezenet_concurrent_requests_match_onnxruntime(models, squeezenet_app):
    model = models["squeezenet1_1"]
    feeds_list = [model.inputs(seed) for seed in range(REQUESTS)]
    results = run_load(squeezenet_app,
                       [_infer(f, ("npz", "npy")[i % 2]) for i, f in enumerate(feeds_list)],
                       THREADS)
    assert_outputs_match(results, [model.expected(f) for f in feeds_list])


def test_squeezenet_replica_killed_mid_load_loses_no_request(cluster, models, squeezenet_app):
    model = models["squeezenet1_1"]
    feeds_list = [model.inputs(100 + seed) for seed in range(REQUESTS)]
    _load_and_kill(cluster, squeezenet_app, "squeezenet", model, feeds_list, ("npz", "npy"))


def test_squeezenet_metadata_and_health(squeezenet_app):
    client = Client(squeezenet_app)
    meta = client.metadata()
    assert meta["inputs"] == [{"name": "input", "type": "tensor(float)", "shape": [1, 3, 224, 224]}]
    assert meta["outputs"] == [{"name": "output", "type": "tensor(float)", "shape": [1, 1000]}]
    assert meta["providers"] == ["CPUExecutionProvider"]
    # Prism's partition summary: every node on the CPU provider (the count follows the optimizer)
    assert re.fullmatch(r"Partition: (\d+) nodes, 0 copies; CPUExecutionProvider: \1 nodes",
                        meta["partition"]), meta["partition"]
    assert meta["backend"] == "prism" and meta["threads_per_replica"] == 1
    assert meta["batch_dimension"] is None and not meta["batching"]["concatenates"]
    health = client.health()
    assert health["status"] == "ok" and health["model_replica"]["status"] == "ok"
    status, _, body = client.request("GET", "/nowhere")
    assert status == 404, body
    status, _, body = client.request("GET", "/infer")
    assert status == 405, body


def test_squeezenet_json_body(models, squeezenet_app):
    model = models["squeezenet1_1"]
    feeds = model.inputs(7)
    got = Client(squeezenet_app).infer(feeds, body="json")
    assert got["output"].dtype == np.float32
    assert_outputs_match([got], [model.expected(feeds)])


def test_bert_concurrent_requests_match_onnxruntime(models, bert_app):
    model = models["bert_tiny"]
    feeds_list = [model.inputs(seed, batch=1 + seed % 3) for seed in range(REQUESTS)]
    results = run_load(bert_app, [_infer(f, ("npz", "json")[i % 2])
                                  for i, f in enumerate(feeds_list)], THREADS)
    assert_outputs_match(results, [model.expected(f) for f in feeds_list])
    # The requests were concatenated: fewer runs than requests on the replica that answers.
    health = Client(bert_app).health()["model_replica"]
    assert health["runs"] < health["requests"], health


def test_bert_replica_killed_mid_load_loses_no_request(cluster, models, bert_app):
    model = models["bert_tiny"]
    feeds_list = [model.inputs(200 + seed, batch=1 + seed % 2) for seed in range(REQUESTS)]
    _load_and_kill(cluster, bert_app, "bert", model, feeds_list, ("npz", "json"))


def test_bert_metadata(bert_app):
    meta = Client(bert_app).metadata()
    assert [i["name"] for i in meta["inputs"]] == ["input_ids", "attention_mask"]
    assert meta["inputs"][0]["shape"] == ["batch", 128]
    assert meta["batch_dimension"] == "batch" and meta["batching"]["concatenates"]
    assert meta["batching"]["max_batch_size"] == 8


def _status_and_error(client, body, content_type, query=None):
    status, _, data = client.post(body, content_type, query=query)
    try:
        return status, json.loads(data)["error"]
    except (ValueError, KeyError):
        return status, data.decode("utf-8", "replace")


def _bad_requests(model):
    """(label, body, content type, query, words the 400's message must contain)."""
    good = model.inputs(5)
    ids, mask = good["input_ids"], good["attention_mask"]
    cases = [
        ("wrong dtype (.npz)", encode_npz({"input_ids": ids.astype(np.int32),
                                           "attention_mask": mask}),
         "application/x-npz", None, ["input_ids", "int64", "int32"]),
        ("float JSON for int64", json.dumps({"inputs": {"input_ids": (ids + 0.5).tolist(),
                                                        "attention_mask": mask.tolist()}}),
         "application/json", None, ["input_ids", "int64", "float"]),
        ("wrong static dim", encode_npz({"input_ids": ids[:, :64], "attention_mask": mask}),
         "application/x-npz", None, ["input_ids", "128", "[1, 64]"]),
        ("wrong rank", encode_npz({"input_ids": ids[0], "attention_mask": mask}),
         "application/x-npz", None, ["input_ids", "rank 2", "rank 1"]),
        ("unknown input", encode_npz({"input_ids": ids, "attention_mask": mask, "tokens": ids}),
         "application/x-npz", None, ["tokens", "unknown", "input_ids", "attention_mask"]),
        ("missing input", encode_npz({"input_ids": ids}), "application/x-npz", None,
         ["attention_mask", "missing", "tensor(int64)"]),
        ("batch dims disagree", encode_npz({"input_ids": np.concatenate([ids, ids]),
                                            "attention_mask": mask}),
         "application/x-npz", None, ["batch", "input_ids has 2", "attention_mask has 1"]),
        ("malformed JSON", b'{"inputs": {"input_ids": [1, 2', "application/json", None,
         ["malformed JSON"]),
        ("malformed .npy", b"\x93NUMPY\x01\x00garbage", "application/x-npy",
         {"input": "input_ids"}, ["malformed .npy", "input_ids"]),
        ("malformed .npz", b"PK\x03\x04garbage", "application/x-npz", None, ["malformed .npz"]),
        ("ragged JSON", json.dumps({"inputs": {"input_ids": [[1, 2], [3]],
                                               "attention_mask": mask.tolist()}}),
         "application/json", None, ["input_ids", "rectangular"]),
        (".npy for a two-input model", encode_npy(ids), "application/x-npy", None,
         ["input_ids", "attention_mask", "?input="]),
        ("unknown output", encode_npz(good), "application/x-npz", {"outputs": "pooled"},
         ["pooled", "last_hidden_state"]),
    ]
    return [(label, body.encode() if isinstance(body, str) else body, ct, q, words)
            for label, body, ct, q, words in cases]


def test_bad_requests_get_400_naming_the_input(models, bert_app):
    client = Client(bert_app)
    failures = []
    for label, body, content_type, query, words in _bad_requests(models["bert_tiny"]):
        status, error = _status_and_error(client, body, content_type, query)
        missing = [w for w in words if w not in error]
        if status != 400 or missing:
            failures.append("%s: HTTP %d %r (expected 400 naming %s)" % (label, status, error,
                                                                         missing or words))
    assert not failures, "\n".join(failures)


def test_bad_request_in_a_batch_does_not_fail_the_others(models, bert_app):
    """Good and bad requests sent at once (so that they share batches): each bad one gets its
    400, each good one onnxruntime's outputs."""
    model = models["bert_tiny"]
    bad = _bad_requests(model)
    goods = [model.inputs(300 + i, batch=1 + i % 2) for i in range(24)]
    requests, kinds = [], []
    for i in range(len(goods)):
        requests.append(_infer(goods[i], "npz"))
        kinds.append(("good", i))
        label, body, ct, query, _ = bad[i % len(bad)]
        requests.append(lambda c, b=body, t=ct, q=query: _status_and_error(c, b, t, q))
        kinds.append(("bad", label))
    results = run_load(bert_app, requests, THREADS)
    good_results = [r for r, k in zip(results, kinds) if k[0] == "good"]
    assert_outputs_match(good_results, [model.expected(f) for f in goods])
    wrong = ["%s: %r" % (k[1], r) for r, k in zip(results, kinds)
             if k[0] == "bad" and (isinstance(r, Exception) or r[0] != 400)]
    assert not wrong, "\n".join(wrong)


def test_requests_that_cannot_be_concatenated_are_run_separately(cluster, models, bert_app):
    """[batch, n] inputs with different n in one batch: each request still gets its outputs."""
    cluster.delete("bert")
    model = models["ragged"]
    url = cluster.deploy("ragged", model, replicas=1, max_batch_size=8,
                         batch_wait_timeout_s=0.05)
    try:
        rng = np.random.default_rng(0)
        feeds_list = [{"x": rng.standard_normal((1 + i % 3, 3 + i % 4)).astype(np.float32)}
                      for i in range(48)]
        results = run_load(url, [_infer(f, ("npz", "json", "npy")[i % 3])
                                 for i, f in enumerate(feeds_list)], THREADS)
        assert_outputs_match(results, [model.expected(f) for f in feeds_list])
        health = Client(url).health()["model_replica"]
        assert health["requests"] == 48 and health["runs"] < 48, health  # some concatenated
    finally:
        cluster.delete("ragged")
