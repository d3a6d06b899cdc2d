#!/usr/bin/env python3
"""Writes the data of the C/C++ API tests into OUT_DIR (run by CTest before those tests).

  mnist_cnn.onnx        the bench MNIST CNN, made by the shared make_models.py
  mnist_input.bin       a fixed float32 input [1,1,28,28] (raw little-endian bytes)
  mnist_expected.bin    onnxruntime's output [1,10] for it (raw float32)
  string_identity.onnx  Identity on tensor(string)[n], with custom metadata

Usage: make_capi_test_data.py OUT_DIR [--make-models PATH]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def default_make_models():
    shared = os.environ.get("PRISM_SHARED_DIR") or os.path.join(REPO, "..", "shared")
    return os.path.normpath(os.path.join(shared, "bench", "make_models.py"))


def write_atomically(path, data):
    # Readers never see a half-written file, even if a previous run was interrupted.
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def make_mnist(out_dir, make_models):
    if not os.path.exists(make_models):
        sys.exit("make_models.py not found at %s (set PRISM_SHARED_DIR)" % make_models)
    subprocess.run([sys.executable, make_models, out_dir, "--models", "mnist_cnn"], check=True,
                   stdout=subprocess.DEVNULL)
    model = os.path.join(out_dir, "mnist_cnn.onnx")
    x = np.random.RandomState(20240607).standard_normal((1, 1, 28, 28)).astype(np.float32)
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    (y,) = session.run(["output"], {"input": x})
    write_atomically(os.path.join(out_dir, "mnist_input.bin"), x.astype("<f4").tobytes())
    write_atomically(os.path.join(out_dir, "mnist_expected.bin"), y.astype("<f4").tobytes())


def make_string_identity(out_dir):
    graph = helper.make_graph(
        [helper.make_node("Identity", ["text"], ["text_out"], name="identity")],
        "string_identity",
        [helper.make_tensor_value_info("text", TensorProto.STRING, ["n"])],
        [helper.make_tensor_value_info("text_out", TensorProto.STRING, ["n"])])
    graph.doc_string = "passes strings through"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="prism-capi-test", model_version=3,
                              doc_string="string Identity for the C API tests")
    model.ir_version = 8
    model.domain = "ai.prism.test"
    helper.set_model_props(model, {"author": "prism", "purpose": "string identity"})
    onnx.checker.check_model(model)
    write_atomically(os.path.join(out_dir, "string_identity.onnx"), model.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--make-models", default=default_make_models())
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    make_mnist(args.out_dir, args.make_models)
    make_string_identity(args.out_dir)


if __name__ == "__main__":
    main()
