#!/usr/bin/env python3
"""Stress run: many threads share one Prism session per bench model for a fixed time, feeding a
mix of valid feeds, invalid feeds and runs that another thread terminates.

    .venv/bin/python scripts/stress.py --build-dir build --seconds 600

Checks, each a failure (exit status 1) when broken:
  - every valid run's outputs equal onnxruntime's on the same feed (rtol 1e-3, atol 1e-4; the
    expected outputs are computed once per feed before the threads start);
  - every invalid feed (wrong dtype, wrong rank, a dim against a static dim, a missing input, an
    unknown input name, an unknown output name) raises an error naming the offending name, and
    never returns outputs;
  - a run whose RunOptions another thread set to terminate either finishes with the right outputs
    or raises the termination error; nothing else;
  - resident memory stays flat after warm-up: the median RSS of the last fifth of the samples is
    at most the median of the first fifth (after warm-up) plus --rss-growth-mb (checked only for
    runs of at least 120 s, too short a run says nothing about a slow leak).
A crash ends the process with a signal, which fails the command too.

PRISM_STRESS_PLANT (self-test of the checks): "wrong_output" perturbs one valid result,
"accept_invalid" runs the valid feed in place of the invalid one (as if Prism ignored what is wrong), "leak" keeps every output alive;
each must make the run fail.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time

import numpy as np
import onnxruntime

import prismrt
from prismrt.capi.onnxruntime_pybind11_state import PrismError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
from bench_models import default_shared_dir, make_inputs  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4
DEFAULT_MODELS = "mnist_cnn,squeezenet1_1,mobilenetv2,bert_tiny,gemm_chain"
PLANT = os.environ.get("PRISM_STRESS_PLANT", "")
INVALID_KINDS = ("wrong_dtype", "wrong_rank", "wrong_dim", "missing_input", "unknown_input",
                 "unknown_output")


def rss_bytes():
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


class Model:
    """One bench model: its Prism session (shared by every thread), feeds and expected outputs."""

    def __init__(self, name, path, feed_count, intra_threads):
        self.name = name
        with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
            sidecar = json.load(f)
        self.specs = sidecar["inputs"]
        options = prismrt.SessionOptions()
        options.intra_op_num_threads = intra_threads
        self.session = prismrt.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        oracle_options = onnxruntime.SessionOptions()
        oracle_options.intra_op_num_threads = 1
        oracle = onnxruntime.InferenceSession(path, oracle_options,
                                              providers=["CPUExecutionProvider"])
        self.output_names = [o.name for o in oracle.get_outputs()]
        self.feeds = []
        self.expected = []
        for seed in range(feed_count):
            feeds = make_inputs(sidecar, np.random.default_rng(seed),
                                masked=seed % 2 == 1 and any(s["name"] == "attention_mask"
                                                             for s in self.specs))
            self.feeds.append(feeds)
            self.expected.append(oracle.run(None, feeds))

    def invalid_feed(self, kind, rng):
        """(feeds, output names, the name the error must mention) for one kind of bad call."""
        feeds = dict(self.feeds[rng.randrange(len(self.feeds))])
        spec = self.specs[rng.randrange(len(self.specs))]
        name = spec["name"]
        value = feeds[name]
        if kind == "wrong_dtype":
            other = np.float64 if value.dtype != np.float64 else np.float32
            if value.dtype == np.int64:
                other = np.int32
            feeds[name] = value.astype(other)
        elif kind == "wrong_rank":
            feeds[name] = value.reshape((1,) + value.shape)
        elif kind == "wrong_dim":
            axis = rng.randrange(value.ndim)
            shape = list(value.shape)
            shape[axis] += 1
            feeds[name] = np.resize(value, shape)
        elif kind == "missing_input":
            del feeds[name]
        elif kind == "unknown_input":
            name = "no_such_input"
            feeds[name] = np.zeros((1,), np.float32)
        elif kind == "unknown_output":
            return feeds, ["no_such_output"], "no_such_output"
        return feeds, None, name


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.failures = []

    def count(self, model, what):
        with self.lock:
            key = (model, what)
            self.counts[key] = self.counts.get(key, 0) + 1

    def fail(self, message):
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(message)


def outputs_match(got, expected):
    if len(got) != len(expected):
        return "got %d outputs, expected %d" % (len(got), len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        if g.shape != e.shape or g.dtype != e.dtype:
            return "output %d is %s %s, expected %s %s" % (i, g.dtype, g.shape, e.dtype, e.shape)
        if not np.allclose(g, e, rtol=RTOL, atol=ATOL):
            return "output %d differs by up to %g" % (i, float(np.max(np.abs(g - e))))
    return None


class Cancellable:
    """A run's RunOptions, and whether the terminator asked it to stop (noted before the flag is
    set, so a run that sees the flag always finds the request recorded)."""

    def __init__(self):
        self.options = prismrt.RunOptions()
        self.requested = False


class InFlight:
    """Runs in progress that the terminator thread may stop."""

    def __init__(self):
        self.lock = threading.Lock()
        self.runs = []

    def add(self, run):
        with self.lock:
            self.runs.append(run)

    def remove(self, run):
        with self.lock:
            self.runs.remove(run)

    def pick(self, rng):
        with self.lock:
            return rng.choice(self.runs) if self.runs else None


def worker(index, models, deadline, stats, in_flight, kept):
    try:
        work(index, models, deadline, stats, in_flight, kept)
    except Exception as error:  # noqa: BLE001 (any escape is a failure of the run)
        stats.fail("thread %d stopped: %s: %s" % (index, type(error).__name__, error))


def work(index, models, deadline, stats, in_flight, kept):
    rng = random.Random(1000 + index)
    while time.monotonic() < deadline:
        model = rng.choice(models)
        roll = rng.random()
        if roll < 0.25:
            kind = rng.choice(INVALID_KINDS)
            feeds, output_names, name = model.invalid_feed(kind, rng)
            if PLANT == "accept_invalid":  # as if Prism ran the valid feed it was changed from
                feeds, output_names = model.feeds[0], None
            try:
                outputs = model.session.run(output_names, feeds)
            except (PrismError, ValueError) as error:
                # A missing input is onnxruntime's ValueError, raised before the C ABI is called.
                if isinstance(error, ValueError) and kind != "missing_input":
                    raise
                if name not in str(error):
                    stats.fail("%s %s: the error does not name '%s': %s" %
                               (model.name, kind, name, error))
                stats.count(model.name, "invalid " + kind)
                continue
            stats.fail("%s %s ('%s') returned %d outputs instead of an error" %
                       (model.name, kind, name, len(outputs)))
            continue
        k = rng.randrange(len(model.feeds))
        run = Cancellable()
        cancellable = roll < 0.45
        if cancellable:
            in_flight.add(run)
        try:
            outputs = model.session.run(None, model.feeds[k], run.options)
        except PrismError as error:
            if run.requested and "terminated" in str(error):
                stats.count(model.name, "terminated")
            else:
                stats.fail("%s feed %d: a valid run (%s) failed: %s" %
                           (model.name, k, "cancellable" if cancellable else "never cancelled",
                            error))
            continue
        finally:
            if cancellable:
                in_flight.remove(run)
        if PLANT == "wrong_output" and rng.random() < 0.01:
            outputs[0] = outputs[0] + 1
        if PLANT == "leak":
            kept.append(outputs)
        mismatch = outputs_match(outputs, model.expected[k])
        if mismatch:
            stats.fail("%s feed %d: %s" % (model.name, k, mismatch))
        stats.count(model.name, "valid" if not run.requested else "finished anyway")


def terminator(deadline, in_flight):
    rng = random.Random(7)
    while time.monotonic() < deadline:
        time.sleep(rng.uniform(0.0005, 0.01))
        run = in_flight.pick(rng)
        if run is not None:
            run.requested = True
            run.options.terminate = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--models-dir", help="where the bench models are (made there when "
                        "missing; default <build-dir>/bench-models)")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--intra-op-threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=60,
                        help="seconds before the RSS samples that the leak check compares")
    parser.add_argument("--feeds", type=int, default=6, help="distinct valid feeds per model")
    parser.add_argument("--rss-growth-mb", type=float, default=24)
    args = parser.parse_args()

    models_dir = args.models_dir or os.path.join(args.build_dir, "bench-models")
    names = args.models.split(",")
    missing = [n for n in names if not os.path.isfile(os.path.join(models_dir, n + ".onnx"))]
    if missing:
        script = os.path.join(default_shared_dir(), "bench", "make_models.py")
        subprocess.run([sys.executable, script, models_dir, "--models", ",".join(missing),
                        "--no-check"], check=True, stdout=subprocess.DEVNULL)
    started = time.monotonic()
    models = [Model(n, os.path.join(models_dir, n + ".onnx"), args.feeds, args.intra_op_threads)
              for n in names]
    print("stress: %d models, %d feeds each, expected outputs from onnxruntime %s (%.1f s)" %
          (len(models), args.feeds, onnxruntime.__version__, time.monotonic() - started),
          flush=True)

    stats, in_flight, kept = Stats(), InFlight(), []
    start = time.monotonic()
    deadline = start + args.seconds
    threads = [threading.Thread(target=worker, args=(i, models, deadline, stats, in_flight, kept))
               for i in range(args.threads)]
    threads.append(threading.Thread(target=terminator, args=(deadline, in_flight)))
    for thread in threads:
        thread.start()
    samples = []  # (seconds since start, RSS bytes)
    while any(t.is_alive() for t in threads):
        samples.append((time.monotonic() - start, rss_bytes()))
        time.sleep(1.0)
    for thread in threads:
        thread.join()

    print("stress: %d threads on %s for %.0f s" % (args.threads, args.models,
                                                    time.monotonic() - start))
    for model in models:
        line = ", ".join("%s %d" % (what, n) for (m, what), n in sorted(stats.counts.items())
                         if m == model.name)
        print("  %s: %s" % (model.name, line))
    ok = not stats.failures
    for message in stats.failures:
        print("FAIL: " + message)
    total = lambda what: sum(n for (_, w), n in stats.counts.items() if w.startswith(what))
    if total("valid") == 0 or total("invalid") == 0:
        print("FAIL: no valid or no invalid run finished")
        ok = False
    if args.seconds >= 120 and total("terminated") == 0:
        print("FAIL: the terminator never stopped a run in progress")
        ok = False

    after = [rss for t, rss in samples if t >= args.warmup]
    if args.seconds < 120 or len(after) < 10:
        print("stress: RSS %.1f -> %.1f MiB (not judged: a run under 120 s says nothing about a "
              "slow leak)" % (samples[0][1] / 2**20, samples[-1][1] / 2**20))
    else:
        fifth = max(1, len(after) // 5)
        first, last = statistics.median(after[:fifth]), statistics.median(after[-fifth:])
        growth = (last - first) / 2**20
        print("stress: RSS after %.0f s of warm-up: median %.1f MiB over the first fifth, %.1f "
              "MiB over the last fifth (growth %.1f MiB, limit %.1f), peak %.1f MiB" %
              (args.warmup, first / 2**20, last / 2**20, growth, args.rss_growth_mb,
               max(after) / 2**20))
        if growth > args.rss_growth_mb:
            print("FAIL: resident memory grew by %.1f MiB after warm-up" % growth)
            ok = False
    print("stress: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
