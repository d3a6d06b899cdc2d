#!/usr/bin/env python3
"""One runtime's session creation time and memory on one model, in a fresh process (run by
compare.py --footprint, once per runtime and model).

Both runtimes are measured the same way, through their Python packages in a process of their own:
the interpreter, numpy and the runtime's libraries are loaded first, then the peak resident size
is reset (/proc/self/clear_refs, 5) so that what follows counts alone: creating the session (timed)
and `runs` runs on the given inputs. Prints one JSON object:

    {"runtime": ..., "creation_ms": ..., "peak_rss_mib": ..., "baseline_rss_mib": ...,
     "peak_over_baseline_mib": ...}

    python benchmarks/footprint_probe.py prismrt model.onnx inputs/ --threads 1 --runs 5
"""
import argparse
import glob
import importlib
import json
import os
import time

import numpy as np
import onnx
from onnx import numpy_helper


def status_mib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0  # kB
    raise RuntimeError("no %s in /proc/self/status" % field)


def load_inputs(folder):
    feeds = {}
    for path in sorted(glob.glob(os.path.join(folder, "input_*.pb"))):
        tensor = onnx.TensorProto()
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        feeds[tensor.name] = numpy_helper.to_array(tensor)
    return feeds


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runtime", choices=["prismrt", "onnxruntime"])
    parser.add_argument("model")
    parser.add_argument("inputs", help="folder of input_K.pb (named tensors)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    runtime = importlib.import_module(args.runtime)
    feeds = load_inputs(args.inputs)
    options = runtime.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = runtime.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Everything imported and the inputs in memory: count from here.
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    baseline = status_mib("VmRSS")
    start = time.perf_counter()
    session = runtime.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    creation_ms = 1000.0 * (time.perf_counter() - start)
    for _ in range(args.runs):
        session.run(None, feeds)
    peak = status_mib("VmHWM")
    print(json.dumps({"runtime": args.runtime, "creation_ms": creation_ms, "peak_rss_mib": peak,
                      "baseline_rss_mib": baseline, "peak_over_baseline_mib": peak - baseline}))


if __name__ == "__main__":
    main()
