#!/usr/bin/env python3
"""Prism's MatMulInteger (the int8 GEMM, src/mlas/qgemm.h) against onnxruntime's on one-node models.

Each shape is a model with one MatMulInteger node: A uint8 [M, K] a graph input with a constant
zero point, B int8 [K, N] a constant initializer (both runtimes prepack it at session creation)
with zero point 0, Y int32. Both runtimes run in this process through their Python packages
(prismrt and onnxruntime) with the same intra-op thread count; after a warm-up, each round times
--runs runs of one runtime and then of the other (alternating, so both see the same machine
conditions), and the medians over all runs are compared. The outputs are checked equal first.

    .venv/bin/python benchmarks/int8_matmul_compare.py --threads 1,2 --rounds 5 --runs 20 \
        --prism-perf build/prism_perf

Prints a markdown table: per shape and thread count, each runtime's median ms, its GOP/s
(2 M N K operations) and the Prism / onnxruntime time ratio (below 1: Prism faster). prismrt's
Python binding costs about 20 us more per run than onnxruntime's (measured on a 4x16x16 product),
which weighs on the small shapes; with --prism-perf, each round also runs the same model and
input in prism_perf (C++, its in-process per-run wall clock, as benchmarks/compare.py measures
Prism), giving a second Prism column and ratio without the binding.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnx
import onnxruntime
import prismrt
from onnx import TensorProto, helper, numpy_helper

SHAPES = [(1024, 1024, 1024), (128, 768, 768), (128, 3072, 768), (128, 768, 3072)]


def make_model(m, n, k, seed):
    rng = np.random.default_rng(seed)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    node = helper.make_node("MatMulInteger", ["A", "B", "a_zero", "b_zero"], ["Y"])
    graph = helper.make_graph(
        [node], "matmul_integer",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, [m, k])],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, [m, n])],
        initializer=[numpy_helper.from_array(b, "B"),
                     numpy_helper.from_array(np.array(3, dtype=np.uint8), "a_zero"),
                     numpy_helper.from_array(np.array(0, dtype=np.int8), "b_zero")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def session(runtime, path, threads):
    options = runtime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return runtime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def time_runs(sess, feeds, runs):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        sess.run(None, feeds)
        samples.append(1000.0 * (time.perf_counter() - start))
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--prism-perf", help="path of prism_perf: also time Prism without Python")
    args = parser.parse_args()
    extra = " prism_perf ms | prism_perf / onnxruntime |" if args.prism_perf else ""
    print("| M x N x K | threads | prism ms | onnxruntime ms | prism GOP/s | onnxruntime GOP/s "
          "| prism / onnxruntime |" + extra)
    print("|---|---|---|---|---|---|---|" + ("---|---|" if args.prism_perf else ""))
    with tempfile.TemporaryDirectory() as folder:
        for m, n, k in SHAPES:
            path = os.path.join(folder, f"matmul_integer_{m}x{n}x{k}.onnx")
            onnx.save(make_model(m, n, k, seed=m + n + k), path)
            a = np.random.default_rng(1).integers(0, 256, size=(m, k), dtype=np.uint8)
            feeds = {"A": a}
            inputs = os.path.join(folder, f"inputs_{m}x{n}x{k}")
            os.makedirs(inputs, exist_ok=True)
            with open(os.path.join(inputs, "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, "A").SerializeToString())
            for threads in [int(t) for t in args.threads.split(",")]:
                sessions = {"prism": session(prismrt, path, threads),
                            "onnxruntime": session(onnxruntime, path, threads)}
                outputs = {name: s.run(None, feeds)[0] for name, s in sessions.items()}
                if not np.array_equal(outputs["prism"], outputs["onnxruntime"]):
                    raise SystemExit(f"{m}x{n}x{k}: the outputs differ")
                for s in sessions.values():
                    time_runs(s, feeds, args.warmup)
                samples = {name: [] for name in sessions}
                perf_samples = []
                summary = os.path.join(folder, "summary.json")
                for _ in range(args.rounds):
                    for name, s in sessions.items():
                        samples[name] += time_runs(s, feeds, args.runs)
                    if args.prism_perf:
                        subprocess.run([args.prism_perf, "-m", path, "-I", inputs, "-r",
                                        str(args.runs), "-w", str(args.warmup), "-x", str(threads),
                                        "--json", summary], check=True, capture_output=True)
                        with open(summary) as f:
                            perf_samples += json.load(f)["samples_ms"]
                median = {name: statistics.median(v) for name, v in samples.items()}
                gops = {name: 2.0 * m * n * k / (ms * 1e6) for name, ms in median.items()}
                print(f"| {m}x{n}x{k} | {threads} | {median['prism']:.3f} | "
                      f"{median['onnxruntime']:.3f} | {gops['prism']:.1f} | "
                      f"{gops['onnxruntime']:.1f} | {median['prism'] / median['onnxruntime']:.2f} |"
                      + (f" {statistics.median(perf_samples):.3f} | "
                         f"{statistics.median(perf_samples) / median['onnxruntime']:.2f} |"
                         if args.prism_perf else ""), flush=True)


if __name__ == "__main__":
    main()
