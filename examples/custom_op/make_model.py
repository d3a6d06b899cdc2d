#!/usr/bin/env python3
"""Writes the models the custom op examples run into OUT_DIR.

custom_op_example.onnx: domain "prism.example" (custom_ops.c), opset 1; A, B, Y float [2, 3]
  scale: T = AddScaled(A, B, alpha=0.5)   = A + 0.5 B
  copy:  U = AddScaled(A)                 = A            (B omitted: optional)
  sum:   Y = SumAll(T, U, B)              = 2 A + 1.5 B  (variadic)

custom_op_example_cxx.onnx: the same, then an op the C++ example defines in-process with
prism::CustomOpBase (domain "prism.example.cxx"):
  negate: Z = Negate(Y)                   = -2 A - 1.5 B (Z float [2, 3] is the output)

Usage: make_model.py OUT_DIR
"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def library_nodes():
    return [
        helper.make_node("AddScaled", ["A", "B"], ["T"], name="scale", domain="prism.example",
                         alpha=0.5),
        helper.make_node("AddScaled", ["A"], ["U"], name="copy", domain="prism.example"),
        helper.make_node("SumAll", ["T", "U", "B"], ["Y"], name="sum", domain="prism.example"),
    ]


def make_model(with_cxx_op):
    nodes = library_nodes()
    imports = [helper.make_opsetid("", 17), helper.make_opsetid("prism.example", 1)]
    output = "Y"
    if with_cxx_op:
        nodes.append(helper.make_node("Negate", ["Y"], ["Z"], name="negate",
                                      domain="prism.example.cxx"))
        imports.append(helper.make_opsetid("prism.example.cxx", 1))
        output = "Z"
    graph = helper.make_graph(
        nodes, "custom_op_example",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=imports,
                              producer_name="prism-custom-op-example")
    model.ir_version = 8
    return model


def write_models(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(make_model(False), os.path.join(out_dir, "custom_op_example.onnx"))
    onnx.save(make_model(True), os.path.join(out_dir, "custom_op_example_cxx.onnx"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write_models(sys.argv[1])
