#!/usr/bin/env python3
"""onnxruntime's kernel time per op type (its profiler, SessionOptions.enable_profiling), in ms
per run, for comparing with `prism_perf --top`: uniform [0, 1) float inputs, 5 warm-up runs,
then the timed ones.

    .venv/bin/python benchmarks/ort_op_profile.py build/bench-models/resnet50_qdq.onnx --threads 1 --runs 20
"""
import argparse
import collections
import json
import os
import tempfile

import numpy as np
import onnxruntime


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    warmup = 5
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "ort_profile")
    session = onnxruntime.InferenceSession(args.model, options,
                                           providers=["CPUExecutionProvider"])
    rng = np.random.RandomState(0)
    feeds = {i.name: rng.rand(*[d if isinstance(d, int) else 1 for d in i.shape])
             .astype(np.float32) for i in session.get_inputs()}
    for _ in range(warmup + args.runs):
        session.run(None, feeds)
    path = session.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    kernels = [e for e in events
               if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    timed = kernels[len(kernels) * warmup // (warmup + args.runs):]
    per_op = collections.defaultdict(float)
    for event in timed:
        per_op[event["args"]["op_name"]] += event["dur"] / 1000.0
    for op, ms in sorted(per_op.items(), key=lambda item: -item[1]):
        print(f"  {op:28s} {ms / args.runs:8.3f} ms/run")
    print(f"  total node time {sum(per_op.values()) / args.runs:.3f} ms/run")


if __name__ == "__main__":
    main()
