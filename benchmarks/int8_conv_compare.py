#!/usr/bin/env python3
"""Prism's channels-last QLinearConv (the int8 convolution, providers/cpu/quantization/int8_conv.h)
against onnxruntime's on one-node models: resnet50_qdq's convolution shapes.

Each shape is a model with one com.microsoft QLinearConv channels_last=1 node (what both runtimes'
NHWC transformers make of resnet50_qdq): X uint8 [1, H, W, C] a graph input (x zero point 128),
W int8 [M, C, K, K] constant with zero points 0 and per-channel scales, an int32 bias, Y uint8
with zero point 100 (scales chosen so that most outputs land inside the range). Each round runs
prism_perf (C++, its in-process per-run wall clock, as benchmarks/compare.py measures Prism) and
then --runs onnxruntime runs in this process (same intra-op thread count, after a warm-up), and
the medians over the rounds are compared. Prism's output is checked first against the exact
result (int64 sums, requantized in double) within one step; onnxruntime's is only reported: its
AVX2 int8 kernel (vpmaddubsw) saturates on these full-range weights, and on such a CPU many of
its outputs are far off (on this project's AMD EPYC, conv_1: about half, by up to 216 steps).

    .venv/bin/python benchmarks/int8_conv_compare.py --threads 1 --rounds 3 --runs 300

Prints a markdown table: per shape and thread count, each runtime's median ms and the
Prism / onnxruntime ratio (below 1: Prism faster).
"""
import argparse
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

# (name, H, W, C, M, kernel, stride): resnet50_qdq's conv_N shapes.
SHAPES = [("conv_1", 56, 56, 64, 64, 1, 1), ("conv_3", 56, 56, 64, 256, 1, 1),
          ("conv_5", 56, 56, 256, 64, 1, 1), ("conv_2", 56, 56, 64, 64, 3, 1),
          ("conv_16", 28, 28, 128, 128, 3, 1), ("conv_28", 14, 14, 1024, 256, 1, 1),
          ("conv_29", 14, 14, 256, 256, 3, 1), ("conv_47", 7, 7, 2048, 512, 1, 1),
          ("conv_48", 7, 7, 512, 512, 3, 1)]


def make_model(h, w, c, m, kernel, stride, seed=0):
    rng = np.random.default_rng(seed)
    pad = kernel // 2
    inits = [
        numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
        numpy_helper.from_array(np.array(128, np.uint8), "xz"),
        numpy_helper.from_array(rng.integers(-127, 128, (m, c, kernel, kernel)).astype(np.int8),
                                "w"),
        numpy_helper.from_array(
            (rng.uniform(0.5, 1.5, m) / (20 * np.sqrt(c * kernel * kernel))).astype(np.float32),
            "ws"),
        numpy_helper.from_array(np.zeros(m, np.int8), "wz"),
        numpy_helper.from_array(np.array(0.05, np.float32), "ys"),
        numpy_helper.from_array(np.array(100, np.uint8), "yz"),
        numpy_helper.from_array(rng.integers(-2000, 2000, m).astype(np.int32), "b"),
    ]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                            ["y"], domain="com.microsoft", channels_last=1,
                            strides=[stride, stride], pads=[pad] * 4,
                            kernel_shape=[kernel, kernel])
    out_h = (h + 2 * pad - kernel) // stride + 1
    out_w = (w + 2 * pad - kernel) // stride + 1
    graph = helper.make_graph(
        [node], "qconv", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, h, w, c])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, out_h, out_w, m])],
        initializer=inits)
    return helper.make_model(graph, ir_version=9,
                             opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid("com.microsoft", 1)])


def model_inits(path):
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}


def exact_output(inits, x, kernel, stride):
    """The QLinearConv of make_model's node computed exactly: int64 sums of the zero-point-shifted
    input against W, plus the bias, scaled in double, rounded half to even, plus Y's zero point,
    saturated to uint8. x is NHWC uint8."""
    pad = kernel // 2
    w = inits["w"].astype(np.int64)  # [M, C, K, K]
    shifted = x.astype(np.int64) - int(inits["xz"])
    padded = np.pad(shifted, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    n, h, wd, c = x.shape
    out_h = (h + 2 * pad - kernel) // stride + 1
    out_w = (wd + 2 * pad - kernel) // stride + 1
    sums = np.zeros((n, out_h, out_w, w.shape[0]), np.int64)
    for kh in range(kernel):
        for kw in range(kernel):
            window = padded[:, kh:kh + stride * out_h:stride, kw:kw + stride * out_w:stride, :]
            sums += window @ w[:, :, kh, kw].T
    sums += inits["b"].astype(np.int64)
    scale = (np.float64(inits["xs"]) * inits["ws"].astype(np.float64)) / np.float64(inits["ys"])
    return np.clip(np.rint(sums * scale) + int(inits["yz"]), 0, 255)


def prism_perf_median(binary, path, threads, runs):
    out = subprocess.run([binary, "-m", path, "-x", str(threads), "-r", str(runs), "-w", "20"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("Latency (ms): median"):
            return float(line.split()[3])
    raise RuntimeError(f"no latency line in prism_perf's output:\n{out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--prism-perf", default="build/prism_perf")
    parser.add_argument("--shapes", default="", help="comma-separated names (default: all)")
    args = parser.parse_args()
    wanted = set(filter(None, args.shapes.split(",")))
    print("| conv | H x W x C -> M, kernel/stride | threads | Prism ms | ORT ms | ratio |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for name, h, w, c, m, kernel, stride in SHAPES:
            if wanted and name not in wanted:
                continue
            path = os.path.join(folder, f"{name}.onnx")
            onnx.save(make_model(h, w, c, m, kernel, stride), path)
            x = np.random.default_rng(1).integers(0, 256, (1, h, w, c)).astype(np.uint8)
            for threads in [int(t) for t in args.threads.split(",")]:
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = threads
                ort = onnxruntime.InferenceSession(path, options,
                                                   providers=["CPUExecutionProvider"])
                exact = exact_output(model_inits(path), x, kernel, stride)
                ort_out = ort.run(None, {"x": x})[0].astype(np.int64)
                actual = prismrt.InferenceSession(path).run(None, {"x": x})[0].astype(np.int64)
                assert np.abs(actual - exact).max() <= 1, name
                ort_off = int((np.abs(ort_out - exact) > 1).sum())
                if ort_off:
                    print(f"<!-- {name}: {ort_off} of {exact.size} onnxruntime outputs differ from "
                          f"the exact result by more than one step (up to "
                          f"{int(np.abs(ort_out - exact).max())}) -->")
                prism_ms, ort_ms = [], []
                for _ in range(args.rounds):
                    prism_ms.append(prism_perf_median(args.prism_perf, path, threads, args.runs))
                    for _ in range(20):
                        ort.run(None, {"x": x})
                    times = []
                    for _ in range(args.runs):
                        start = time.perf_counter()
                        ort.run(None, {"x": x})
                        times.append((time.perf_counter() - start) * 1e3)
                    ort_ms.append(statistics.median(times))
                p, o = statistics.median(prism_ms), statistics.median(ort_ms)
                print(f"| {name} | {h}x{w}x{c} -> {m}, {kernel}x{kernel}/{stride} | {threads} | "
                      f"{p:.4f} | {o:.4f} | {p / o:.2f}x |")


if __name__ == "__main__":
    main()
