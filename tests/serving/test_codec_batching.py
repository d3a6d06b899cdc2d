"""prismrt.serve's request decoding, validation and batch splitting, without Ray."""
import json

import numpy as np
import pytest

from prismrt.serve._batching import run_batch
from prismrt.serve._codec import (RequestError, TensorSpec, batch_symbol, decode_request,
                                  decode_response, encode_npy, encode_npz, encode_response,
                                  response_kind, validate)

X = TensorSpec("x", "tensor(float)", ["batch", "n"])
IDS = TensorSpec("ids", "tensor(int64)", ["batch", 4])
Y = TensorSpec("y", "tensor(float)", ["batch", "n"])


def _double(feeds):
    return {"y": feeds["x"] * 2, "rows": feeds["x"].sum(axis=1, keepdims=True)}


def test_batch_symbol():
    assert batch_symbol([X], [Y]) == "batch"
    assert batch_symbol([TensorSpec("x", "tensor(float)", [1, 3])], [Y]) is None
    assert batch_symbol([X], [TensorSpec("y", "tensor(float)", ["other", 3])]) is None
    assert batch_symbol([X], [TensorSpec("y", "tensor(float)", [None, 3])]) == "batch"


def test_run_batch_concatenates_compatible_requests_and_splits_in_order():
    rng = np.random.default_rng(0)
    requests = [{"x": rng.standard_normal((rows, n)).astype(np.float32)}
                for rows, n in [(1, 3), (2, 3), (1, 5), (3, 3), (2, 5), (1, 7)]]
    calls = []

    def run(feeds):
        calls.append(feeds["x"].shape)
        return _double(feeds)

    results = run_batch(run, requests, batchable=True)
    for feeds, result in zip(requests, results):
        assert np.array_equal(result["y"], feeds["x"] * 2)
        assert np.array_equal(result["rows"], feeds["x"].sum(axis=1, keepdims=True))
    # n=3: one run of 6 rows; n=5: one run of 3 rows; n=7 alone.
    assert sorted(calls) == [(1, 7), (3, 5), (6, 3)], calls


def test_run_batch_isolates_a_failing_request():
    def run(feeds):
        if np.isnan(feeds["x"]).any():
            raise ValueError("nan input")
        return _double(feeds)

    good = np.ones((1, 3), np.float32)
    bad = np.full((1, 3), np.nan, np.float32)
    results = run_batch(run, [{"x": good}, {"x": bad}, {"x": good * 3}], batchable=True)
    assert np.array_equal(results[0]["y"], good * 2)
    assert isinstance(results[1], ValueError)
    assert np.array_equal(results[2]["y"], good * 6)


def test_run_batch_without_batch_dimension_runs_one_by_one():
    calls = []

    def run(feeds):
        calls.append(1)
        return _double(feeds)

    requests = [{"x": np.full((1, 3), i, np.float32)} for i in range(4)]
    results = run_batch(run, requests, batchable=False)
    assert len(calls) == 4
    assert [float(r["y"][0, 0]) for r in results] == [0, 2, 4, 6]


def test_run_batch_output_without_batch_rows_falls_back():
    def run(feeds):
        return {"total": np.array([feeds["x"].sum()])}  # one row whatever the batch

    requests = [{"x": np.full((1, 2), i, np.float32)} for i in range(3)]
    results = run_batch(run, requests, batchable=True)
    assert [float(r["total"][0]) for r in results] == [0, 2, 4]


def test_decode_json_npy_npz_agree():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for body, ctype, query in [
            (json.dumps({"inputs": {"x": x.tolist()}}).encode(), "application/json", {}),
            (json.dumps({"inputs": {"x": {"data": x.ravel().tolist(), "shape": [2, 3],
                                          "dtype": "float32"}}}).encode(), "", {}),
            (encode_npy(x), "application/x-npy", {}),
            (encode_npz({"x": x}), "application/x-npz", {})]:
        feeds, outputs, _ = decode_request(body, ctype, query, [X])
        feeds = validate(feeds, [X], "batch")
        assert feeds["x"].dtype == np.float32 and np.array_equal(feeds["x"], x)
        assert outputs is None


@pytest.mark.parametrize("body,words", [
    ({"inputs": {"ids": [[1.5, 2, 3, 4]]}}, ["ids", "int64", "float"]),
    ({"inputs": {"ids": [[1, 2, 3]]}}, ["ids", "[batch, 4]", "[1, 3]"]),
    ({"inputs": {"ids": [1, 2, 3, 4]}}, ["ids", "rank 2", "rank 1"]),
    ({"inputs": {"ids": [[1, 2, 3, 2 ** 70]]}}, ["ids"]),
    ({"inputs": {"ids": {"data": [1, 2, 3, 4], "dtype": "int32"}}}, ["ids", "int64", "int32"]),
    ({"inputs": {"idz": [[1, 2, 3, 4]]}}, ["idz", "unknown", "ids"]),
    ({"inputs": {}}, ["ids", "missing"]),
    ({"input": {}}, ["inputs"]),
])
def test_decode_and_validate_errors_name_the_input(body, words):
    with pytest.raises(RequestError) as info:
        feeds, _, _ = decode_request(json.dumps(body).encode(), "application/json", {}, [IDS])
        validate(feeds, [IDS], "batch")
    assert info.value.status == 400
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_response_round_trip():
    outputs = {"y": np.arange(4, dtype=np.float32).reshape(2, 2), "s": np.array([1, 2])}
    for kind in ("json", "npz"):
        body, ctype = encode_response(outputs, kind)
        back = decode_response(body, ctype)
        for name, value in outputs.items():
            assert back[name].dtype == value.dtype and np.array_equal(back[name], value)
    body, ctype = encode_response({"y": outputs["y"]}, "npy")
    assert np.array_equal(decode_response(body, ctype)[None], outputs["y"])
    assert response_kind("npy", None, {}, 2) == "npz"
    with pytest.raises(RequestError):
        response_kind("json", None, {"format": "npy"}, 2)

