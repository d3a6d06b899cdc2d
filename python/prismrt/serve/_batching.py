"""Running a batch of requests on one session (numpy only, no Ray).

A batch is the requests that Ray Serve's @serve.batch collected. When the model has a symbolic
batch dimension (dim 0 of every input and output), the requests whose inputs agree on everything
but dim 0 (dtype and the other dims) are concatenated along dim 0, run once, and the outputs are
split back by each request's rows. Requests that cannot be concatenated with any other run alone,
and so does every request of a model without a batch dimension. A failed concatenated run is
retried request by request, so that one bad request gets its own error and the others their
outputs.
"""
import os

import numpy as np

# Test-only fault injection (tests/serving/run_plants.py): a planted fault makes the code wrong in
# one named way, and the serving tests must then fail. Empty in normal use.
PLANT = os.environ.get("PRISMRT_SERVE_TEST_PLANT", "")


def _signature(feeds):
    """What must agree for requests to be concatenated: names, dtypes and all dims but the first."""
    return tuple((name, array.dtype.str, array.shape[1:]) for name, array in sorted(feeds.items()))


def _run_alone(run, feeds):
    try:
        return run(feeds)
    except Exception as error:  # noqa: BLE001 (handed back to this request's caller)
        return error


def run_batch(run, requests, batchable):
    """Runs requests (a list of {input name: array}) with run({name: array}) -> {name: array}.

    Returns one entry per request, in order: its outputs, or the exception its run raised.
    """
    results = [None] * len(requests)
    if not batchable or len(requests) == 1:
        for index, feeds in enumerate(requests):
            results[index] = _run_alone(run, feeds)
        return results
    groups = {}
    for index, feeds in enumerate(requests):
        key = 0 if PLANT == "no_grouping" else _signature(feeds)
        groups.setdefault(key, []).append(index)
    for indices in groups.values():
        if len(indices) == 1:
            results[indices[0]] = _run_alone(run, requests[indices[0]])
            continue
        members = [requests[i] for i in indices]
        rows = [next(iter(feeds.values())).shape[0] for feeds in members]
        total = sum(rows)
        try:
            joined = {name: np.concatenate([feeds[name] for feeds in members], axis=0)
                      for name in members[0]}
            outputs = run(joined)
        except Exception as error:  # noqa: BLE001
            if PLANT == "no_grouping":
                for i in indices:
                    results[i] = error
                continue
            outputs = None
        if outputs is not None and any(np.ndim(v) == 0 or np.shape(v)[0] != total
                                       for v in outputs.values()):
            outputs = None  # an output without the batch rows: cannot be split, run alone
        if outputs is None:
            for i in indices:
                results[i] = _run_alone(run, requests[i])
            continue
        offsets = np.cumsum(rows)[:-1]
        pieces = {name: np.split(value, offsets, axis=0) for name, value in outputs.items()}
        order = list(range(len(indices)))
        if PLANT == "split_reversed":
            order.reverse()
        for position, k in enumerate(order):
            results[indices[position]] = {name: np.ascontiguousarray(parts[k])
                                          for name, parts in pieces.items()}
    return results
