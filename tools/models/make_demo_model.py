#!/usr/bin/env python3
"""Writes Prism's bundled demo model: a small image classifier with a symbolic batch dim.

    make_demo_model.py OUT.onnx

input [batch,3,32,32] -> Conv3x3(8)+BatchNorm+Relu -> MaxPool2 -> Conv3x3(16)+Relu
-> GlobalAveragePool -> Flatten -> Gemm(16->10) -> Softmax -> probabilities [batch,10].
Weights come from a fixed seed, so the file is the same on every machine.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build():
    rng = np.random.RandomState(2026)

    def weight(name, shape, std):
        return numpy_helper.from_array((rng.standard_normal(shape) * std).astype(np.float32), name)

    inits = [
        weight("conv1.weight", (8, 3, 3, 3), np.sqrt(2.0 / 27)),
        weight("conv1.bias", (8,), 0.01),
        numpy_helper.from_array(rng.uniform(0.9, 1.1, 8).astype(np.float32), "bn1.scale"),
        weight("bn1.bias", (8,), 0.02),
        weight("bn1.mean", (8,), 0.02),
        numpy_helper.from_array(rng.uniform(0.9, 1.1, 8).astype(np.float32), "bn1.var"),
        weight("conv2.weight", (16, 8, 3, 3), np.sqrt(2.0 / 72)),
        weight("conv2.bias", (16,), 0.01),
        weight("fc.weight", (10, 16), np.sqrt(1.0 / 16)),
        weight("fc.bias", (10,), 0.01),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"],
                         ["b1"], name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.weight", "conv2.bias"], ["c2"], name="conv2",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "prism_demo",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 10])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="prism-demo",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.doc_string = "Prism demo classifier: [batch,3,32,32] -> probabilities [batch,10]"
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    onnx.save(build(), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
