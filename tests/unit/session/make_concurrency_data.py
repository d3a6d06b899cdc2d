#!/usr/bin/env python3
"""Writes the data of tests/unit/session/concurrency_test.cc into OUT_DIR (run at build time).

  OUT_DIR/model.onnx                    Y = MatMul(Relu(MatMul(Relu(X W1 + B1), W2) + B2), W3),
                                        X [batch, 256], weights [256, 256]
  OUT_DIR/test_data_set_<i>/input_0.pb  X for case i (TensorProto); batch differs per case
  OUT_DIR/test_data_set_<i>/output_0.pb onnxruntime's Y for it

The layout is the ONNX backend-test one. There are CASES cases: the test runs THREADS threads
of RUNS_PER_THREAD runs each, case i = thread * RUNS_PER_THREAD + run, so no two runs share an
input. model.onnx is written last: its presence means the whole set is there.

Usage: make_concurrency_data.py OUT_DIR
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

WIDTH = 256
THREADS = 4  # kThreads in concurrency_test.cc
RUNS_PER_THREAD = 3  # kRunsPerThread in concurrency_test.cc
CASES = THREADS * RUNS_PER_THREAD


def write_atomically(path, data):
    # A build interrupted halfway never leaves a truncated file behind.
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def make_model():
    rng = np.random.RandomState(20250101)
    initializers = []
    for layer in (1, 2, 3):
        w = rng.uniform(-0.1, 0.1, (WIDTH, WIDTH)).astype(np.float32)
        initializers.append(numpy_helper.from_array(w, "W%d" % layer))
        if layer < 3:  # the last layer has no bias
            b = rng.uniform(-0.5, 0.5, (WIDTH,)).astype(np.float32)
            initializers.append(numpy_helper.from_array(b, "B%d" % layer))
    nodes = [
        helper.make_node("MatMul", ["X", "W1"], ["m1"], name="matmul1"),
        helper.make_node("Add", ["m1", "B1"], ["a1"], name="add1"),
        helper.make_node("Relu", ["a1"], ["r1"], name="relu1"),
        helper.make_node("MatMul", ["r1", "W2"], ["m2"], name="matmul2"),
        helper.make_node("Add", ["m2", "B2"], ["a2"], name="add2"),
        helper.make_node("Relu", ["a2"], ["r2"], name="relu2"),
        helper.make_node("MatMul", ["r2", "W3"], ["Y"], name="matmul3"),
    ]
    graph = helper.make_graph(
        nodes, "concurrency_mlp",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", WIDTH])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", WIDTH])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="prism-concurrency-test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    model = make_model()
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    rng = np.random.RandomState(7)
    for case in range(CASES):
        # Different batch sizes too: concurrent runs also differ in their shapes.
        x = rng.uniform(-1, 1, (16 + 8 * case, WIDTH)).astype(np.float32)
        (y,) = session.run(["Y"], {"X": x})
        folder = os.path.join(args.out_dir, "test_data_set_%d" % case)
        os.makedirs(folder, exist_ok=True)
        write_atomically(os.path.join(folder, "input_0.pb"),
                         numpy_helper.from_array(x, "X").SerializeToString())
        write_atomically(os.path.join(folder, "output_0.pb"),
                         numpy_helper.from_array(y, "Y").SerializeToString())
    write_atomically(os.path.join(args.out_dir, "model.onnx"), model.SerializeToString())


if __name__ == "__main__":
    main()
