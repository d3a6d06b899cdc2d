#!/usr/bin/env python3
"""Writes the data of the C/C++ API tests into OUT_DIR (run by CTest before those tests).

  mnist_cnn.onnx        the bench MNIST CNN, made by the shared make_models.py
  mnist_input.bin       a fixed float32 input [1,1,28,28] (raw little-endian bytes)
  mnist_expected.bin    onnxruntime's output [1,10] for it (raw float32)
  string_identity.onnx  Identity on tensor(string)[n], with custom metadata
  zipmap.onnx           ZipMap (ai.onnx.ml) of X float[N, 3] with int64 labels 30, 10, 20
  zipmap_input.bin      a fixed float32 X [2, 3]
  zipmap_expected.bin   onnxruntime's output for it: per map, its 3 keys (int64) then its 3
                        values (float32), in the order onnxruntime's dicts hold them
  dict_vectorizer.onnx  DictVectorizer (ai.onnx.ml) of map(int64, float) with int64_vocabulary
                        30, 10, 20 (the C test works its rows out by hand)
  custom_op_example.onnx, custom_op_example_cxx.onnx
                        the custom op example's models (examples/custom_op/make_model.py)

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


def ml_model(node, inputs, outputs, name):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("ai.onnx.ml", 1)],
                              producer_name="prism-capi-test")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def make_map_models(out_dir):
    float_map = helper.make_map_type_proto(TensorProto.INT64,
                                           helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    zipmap = ml_model(
        helper.make_node("ZipMap", ["X"], ["Z"], domain="ai.onnx.ml", name="zipmap",
                         classlabels_int64s=[30, 10, 20]),
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3])],
        [helper.make_value_info("Z", helper.make_sequence_type_proto(float_map))], "zipmap")
    write_atomically(os.path.join(out_dir, "zipmap.onnx"), zipmap.SerializeToString())
    x = np.array([[0.5, 0.25, 0.25], [0.125, 0.625, 0.25]], dtype=np.float32)
    session = onnxruntime.InferenceSession(zipmap.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (maps,) = session.run(None, {"X": x})
    expected = b""
    for m in maps:
        expected += np.array(list(m.keys()), dtype="<i8").tobytes()
        expected += np.array(list(m.values()), dtype="<f4").tobytes()
    write_atomically(os.path.join(out_dir, "zipmap_input.bin"), x.astype("<f4").tobytes())
    write_atomically(os.path.join(out_dir, "zipmap_expected.bin"), expected)
    vectorizer = ml_model(
        helper.make_node("DictVectorizer", ["X"], ["Y"], domain="ai.onnx.ml", name="vectorize",
                         int64_vocabulary=[30, 10, 20]),
        [helper.make_value_info("X", float_map)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3])], "dict_vectorizer")
    write_atomically(os.path.join(out_dir, "dict_vectorizer.onnx"), vectorizer.SerializeToString())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--make-models", default=default_make_models())
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    make_mnist(args.out_dir, args.make_models)
    make_string_identity(args.out_dir)
    make_map_models(args.out_dir)
    sys.path.insert(0, os.path.join(REPO, "examples", "custom_op"))
    import make_model  # the custom op example's own model script
    make_model.write_models(args.out_dir)


if __name__ == "__main__":
    main()
