"""What one Python run() costs beyond the model's work: prismrt (ctypes over the C ABI) against
onnxruntime's compiled binding on models small enough that the binding is most of the time,
one intra-op thread each, outputs checked equal. Each round times --runs runs of prismrt, then
the same of onnxruntime (the order alternating between rounds); the table gives the medians of
the per-round means and the median of the per-round ratios.

    .venv/bin/python benchmarks/binding_overhead.py [--rounds 20] [--runs 2000] [--markdown]

Models: relu_8 (one Relu on [1, 8] floats), mlp_16 (MatMul, Add, Relu, MatMul, Add on one row of
16 floats: a small scikit-learn-like regressor), two_inputs (Add of two [1, 8] feeds, then
Identity: a second feed and a second output).
"""
import argparse
import statistics
import timeit

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

import prismrt


def _model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # onnxruntime 1.31 reads IR versions up to 13
    return model.SerializeToString()


def _float(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def models():
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
               for name, shape in (("w1", (16, 32)), ("b1", (32,)), ("w2", (32, 1)), ("b2", (1,)))]
    mlp = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"],
                                                                            ["hb"]),
           helper.make_node("Relu", ["hb"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["o"]),
           helper.make_node("Add", ["o", "b2"], ["y"])]
    return {
        "relu_8": (_model([helper.make_node("Relu", ["x"], ["y"])], [_float("x", [1, 8])],
                          [_float("y", [1, 8])]),
                   {"x": rng.standard_normal((1, 8)).astype(np.float32)}),
        "mlp_16": (_model(mlp, [_float("x", [1, 16])], [_float("y", [1, 1])], weights),
                   {"x": rng.standard_normal((1, 16)).astype(np.float32)}),
        "two_inputs": (_model([helper.make_node("Add", ["a", "b"], ["s"]),
                               helper.make_node("Identity", ["s"], ["t"])],
                              [_float("a", [1, 8]), _float("b", [1, 8])],
                              [_float("s", [1, 8]), _float("t", [1, 8])]),
                       {"a": rng.standard_normal((1, 8)).astype(np.float32),
                        "b": rng.standard_normal((1, 8)).astype(np.float32)}),
    }


def measure(model, feed, rounds, runs):
    prism_options = prismrt.SessionOptions()
    prism_options.intra_op_num_threads = 1
    ort_options = onnxruntime.SessionOptions()
    ort_options.intra_op_num_threads = 1
    prism = prismrt.InferenceSession(model, prism_options, providers=["CPUExecutionProvider"])
    ort = onnxruntime.InferenceSession(model, ort_options, providers=["CPUExecutionProvider"])
    for mine, theirs in zip(prism.run(None, feed), ort.run(None, feed)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    sessions = {"prism": prism, "ort": ort}
    times = {"prism": [], "ort": []}
    ratios = []
    for round_index in range(rounds):
        order = ("prism", "ort") if round_index % 2 == 0 else ("ort", "prism")
        this_round = {}
        for name in order:
            session = sessions[name]
            this_round[name] = timeit.timeit(lambda: session.run(None, feed),
                                             number=runs) / runs * 1e6
            times[name].append(this_round[name])
        ratios.append(this_round["prism"] / this_round["ort"])
    return statistics.median(times["prism"]), statistics.median(times["ort"]), statistics.median(
        ratios)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = parser.parse_args()
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs must be at least 1")
    rows = [(name, *measure(model, feed, args.rounds, args.runs))
            for name, (model, feed) in models().items()]
    if args.markdown:
        print("| model | prismrt run() µs | onnxruntime run() µs | ratio (median of rounds) |")
        print("|---|---:|---:|---:|")
        for name, prism, ort, ratio in rows:
            print("| %s | %.1f | %.1f | %.2fx |" % (name, prism, ort, ratio))
    else:
        for name, prism, ort, ratio in rows:
            print("%-11s prismrt %6.1f us  onnxruntime %6.1f us  ratio %.2fx" %
                  (name, prism, ort, ratio))


if __name__ == "__main__":
    main()
