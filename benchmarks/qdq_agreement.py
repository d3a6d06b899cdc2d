#!/usr/bin/env python3
"""How far Prism's outputs of a quantized (QDQ) bench model are from onnxruntime's, in steps of
the model's final quantization (the scale of the QuantizeLinear before the last
DequantizeLinear): the largest difference and the share of elements that differ, over several
inputs drawn as compare.py draws them, and whether the argmax of each output row agrees.

    .venv/bin/python benchmarks/qdq_agreement.py build/bench-models/resnet50_qdq.onnx --inputs 8
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import make_inputs  # noqa: E402

import prismrt  # noqa: E402


def output_step(model):
    """The scale of the DequantizeLinear writing the first graph output."""
    inits = {i.name: i for i in model.graph.initializer}
    out = model.graph.output[0].name
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.output[0] == out:
            return float(numpy_helper.to_array(inits[node.input[1]]))
    raise SystemExit("the first output is not written by a DequantizeLinear")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--inputs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    step = output_step(onnx.load(args.model))
    sidecar = json.load(open(os.path.splitext(args.model)[0] + ".json"))
    options = prismrt.SessionOptions()
    options.intra_op_num_threads = args.threads
    prism = prismrt.InferenceSession(args.model, options)
    ort_options = onnxruntime.SessionOptions()
    ort_options.intra_op_num_threads = args.threads
    ort = onnxruntime.InferenceSession(args.model, ort_options,
                                       providers=["CPUExecutionProvider"])
    worst, differing, total, argmax_same = 0.0, 0, 0, 0
    for seed in range(args.inputs):
        feeds = dict(make_inputs(sidecar, seed))
        a = prism.run(None, feeds)[0]
        b = ort.run(None, feeds)[0]
        steps = np.abs(a.astype(np.float64) - b) / step
        worst = max(worst, float(steps.max()))
        differing += int((steps > 0.5).sum())
        total += steps.size
        argmax_same += int((a.reshape(a.shape[0], -1).argmax(1) ==
                            b.reshape(b.shape[0], -1).argmax(1)).all())
    print(f"{os.path.basename(args.model)}: output step {step:.6g}; largest difference "
          f"{worst:.2f} steps; {differing} of {total} elements differ "
          f"({100.0 * differing / total:.2f}%); argmax the same on {argmax_same} of "
          f"{args.inputs} inputs")


if __name__ == "__main__":
    main()
