#!/usr/bin/env python3
"""Writes split_example.onnx: x[2,3] -> Add -> Relu -> Mul -> Add(x) -> Sigmoid, a model that the
test EP (-e test -i "ops=Add,Relu") and the CPU EP split between them, with copies both ways.
docs/benchmarking.md uses it for the --explain and --dot examples.

    .venv/bin/python benchmarks/split_example.py build/split_example.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "split_example.onnx"
    c1 = numpy_helper.from_array(np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]], np.float32), "c1")
    c2 = numpy_helper.from_array(np.full((2, 3), 2.0, np.float32), "c2")
    nodes = [
        helper.make_node("Add", ["x", "c1"], ["a"], name="add_bias"),
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
        helper.make_node("Mul", ["r", "c2"], ["m"], name="scale"),
        helper.make_node("Add", ["m", "x"], ["s"], name="add_residual"),
        helper.make_node("Sigmoid", ["s"], ["y"], name="sigmoid"),
    ]
    graph = helper.make_graph(nodes, "split_example",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              [c1, c2])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    print(path)


if __name__ == "__main__":
    main()
