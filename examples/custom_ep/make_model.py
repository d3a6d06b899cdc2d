#!/usr/bin/env python3
"""Writes custom_ep_example.onnx, the model the custom EP example runs, into OUT_DIR.

X, Y float [3, 5000] (15000 elements: several of the example EP's 4096-element chunks, the last
one partial); W a constant [3, 5000] with W[i] = ((i mod 7) - 3) / 4; b a constant [5000] with
b[j] = j / 1000.

  add:       S = Add(X, Y)          ExampleExecutionProvider  } first group
  relu:      R = Relu(S)            ExampleExecutionProvider  }
  sigmoid:   G = Sigmoid(R)         CPUExecutionProvider (the example EP does not take Sigmoid)
  mul:       M = Mul(G, W)          ExampleExecutionProvider  } second group
  sub:       Z = Sub(M, X)          ExampleExecutionProvider  }
  bias:      Out = Add(Z, b)        CPUExecutionProvider (b broadcasts; the example EP does not)

Outputs: Out and R (R is read by the sigmoid node and is a graph output as well).

Usage: make_model.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROWS, COLUMNS = 3, 5000


def make_model():
    count = ROWS * COLUMNS
    w = (((np.arange(count) % 7) - 3) / 4.0).astype(np.float32).reshape(ROWS, COLUMNS)
    b = (np.arange(COLUMNS) / 1000.0).astype(np.float32)
    nodes = [
        helper.make_node("Add", ["X", "Y"], ["S"], name="add"),
        helper.make_node("Relu", ["S"], ["R"], name="relu"),
        helper.make_node("Sigmoid", ["R"], ["G"], name="sigmoid"),
        helper.make_node("Mul", ["G", "W"], ["M"], name="mul"),
        helper.make_node("Sub", ["M", "X"], ["Z"], name="sub"),
        helper.make_node("Add", ["Z", "b"], ["Out"], name="bias"),
    ]
    shape = [ROWS, COLUMNS]
    graph = helper.make_graph(
        nodes, "custom_ep_example",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape),
         helper.make_tensor_value_info("Y", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("Out", TensorProto.FLOAT, shape),
         helper.make_tensor_value_info("R", TensorProto.FLOAT, shape)],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="prism-custom-ep-example")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    onnx.save(make_model(), os.path.join(sys.argv[1], "custom_ep_example.onnx"))


if __name__ == "__main__":
    main()
