#!/usr/bin/env python3
"""Per-node kernel times of Prism against onnxruntime on one model: Prism's Chrome trace
(`prism_perf -p`) and onnxruntime's profiler, each node's median and 10th percentile over the
timed runs (the 10th percentile is the steadier figure on a shared machine, where a run is
now and then preempted). Nodes are paired by op type and output shape, equal keys in order of
their times (the two runtimes name and order the nodes differently); the biggest differences first.

    .venv/bin/python benchmarks/node_compare.py build/bench-models/squeezenet1_1.onnx --threads 2 --runs 300
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import tempfile

import numpy as np
import onnxruntime


def node_times(trace_path, runs):
    """{node: (op type, output shape, [durations in us])} from a Chrome trace, last `runs` runs."""
    with open(trace_path) as f:
        data = json.load(f)
    events = data if isinstance(data, list) else data["traceEvents"]
    nodes = {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"][: -len("_kernel_time")]
        entry = nodes.setdefault(
            name, (e["args"].get("op_name"), str(e["args"].get("output_type_shape")), []))
        entry[2].append(e["dur"])
    return {name: (op, shape, durations[-runs:]) for name, (op, shape, durations) in nodes.items()}


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[int(len(ordered) * fraction)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--prism-perf", default="build/prism_perf")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        prism_trace = os.path.join(tmp, "prism.json")
        subprocess.run([args.prism_perf, "-m", args.model, "-x", str(args.threads), "-r",
                        str(args.runs), "-w", str(args.warmup), "-p", prism_trace],
                       check=True, capture_output=True)
        prism = node_times(prism_trace, args.runs)

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.enable_profiling = True
        options.profile_file_prefix = os.path.join(tmp, "ort")
        session = onnxruntime.InferenceSession(args.model, options,
                                               providers=["CPUExecutionProvider"])
        feeds = {}
        for i in session.get_inputs():
            shape = [d if isinstance(d, int) else 1 for d in i.shape]
            feeds[i.name] = (np.random.rand(*shape).astype(np.float32) if "float" in i.type
                             else np.ones(shape, dtype=np.int64))
        for _ in range(args.warmup + args.runs):
            session.run(None, feeds)
        ort = node_times(session.end_profiling(), args.runs)

    def summary(nodes):
        return {name: (op, shape, statistics.median(d), percentile(d, 0.1))
                for name, (op, shape, d) in nodes.items()}

    prism_s, ort_s = summary(prism), summary(ort)
    by_key = collections.defaultdict(list)
    for name, (op, shape, median, p10) in sorted(ort_s.items(), key=lambda kv: kv[1][2]):
        by_key[(op, shape)].append(name)
    taken = collections.Counter()
    rows, paired = [], set()
    for name, (op, shape, median, p10) in sorted(prism_s.items(), key=lambda kv: kv[1][2]):
        candidates = by_key[(op, shape)]
        index = taken[(op, shape)]
        taken[(op, shape)] += 1
        other = candidates[index] if index < len(candidates) else None
        if other is not None:
            paired.add(other)
        o_median, o_p10 = (ort_s[other][2], ort_s[other][3]) if other else (float("nan"),) * 2
        rows.append((p10 - o_p10, name, op, median, p10, other, o_median, o_p10, shape))

    print(f"{args.model}, {args.threads} thread(s), {args.runs} runs: sum of node medians "
          f"Prism {sum(v[2] for v in prism_s.values()):.0f} us, onnxruntime "
          f"{sum(v[2] for v in ort_s.values()):.0f} us; of 10th percentiles "
          f"{sum(v[3] for v in prism_s.values()):.0f} / {sum(v[3] for v in ort_s.values()):.0f} us")
    unpaired = [name for name in ort_s if name not in paired]
    if unpaired:
        print("onnxruntime nodes without a Prism partner:",
              ", ".join(f"{n} ({ort_s[n][0]} {ort_s[n][2]:.0f} us)" for n in unpaired))
    print(f"{'p10 diff':>8}  {'Prism node':28} {'op':16} {'median':>7} {'p10':>6}  "
          f"{'onnxruntime node':28} {'median':>7} {'p10':>6}  output")
    rows.sort(key=lambda r: -abs(r[0]) if r[0] == r[0] else 0)
    for diff, name, op, median, p10, other, o_median, o_p10, shape in rows[: args.top]:
        print(f"{diff:+8.1f}  {name:28} {op:16} {median:7.1f} {p10:6.1f}  {str(other):28} "
              f"{o_median:7.1f} {o_p10:6.1f}  {shape[:50]}")


if __name__ == "__main__":
    main()
