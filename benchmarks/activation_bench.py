"""Erf, GELU and the other transcendentals, Prism against onnxruntime on the same tensor, one
thread each: the decomposed GELU that exporters write (Div, Erf, Add, Mul, Mul), com.microsoft
Gelu, FastGelu, QuickGelu, Erf, Exp, Log (of |x|), Tanh, Sigmoid, Softmax / LogSoftmax over the
last axis, the ONNX activations (LeakyRelu, Elu, Selu, Celu, HardSigmoid, HardSwish,
ThresholdedRelu, Softplus, Mish; Gelu of opset 20, exact and tanh), and a bidirectional LSTM
(sigmoid and tanh gates; x is [64, 8, 256] there, hidden 256, random weights).
onnxruntime's graph optimizations are off so that both run the nodes as written. Alternating
rounds, median per round, median of the rounds.

    .venv/bin/python benchmarks/activation_bench.py [--shape 8,128,768] [--rounds 7] [--runs 15]
"""
import argparse
import statistics
import time

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

import prismrt


def _model(nodes, shape, initializers=(), contrib=False, opset=17):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
                              initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)]
                                              if contrib else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    return model.SerializeToString()


def models(shape):
    constants = [numpy_helper.from_array(np.array(v, np.float32), n)
                 for n, v in (("root2", 2 ** 0.5), ("one", 1.0), ("half", 0.5))]
    chain = [helper.make_node("Div", ["x", "root2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", ["x", "a"], ["p"]),
             helper.make_node("Mul", ["p", "half"], ["y"])]
    return {
        "gelu (Div Erf Add Mul Mul)": _model(chain, shape, constants),
        "com.microsoft Gelu": _model([helper.make_node("Gelu", ["x"], ["y"],
                                                       domain="com.microsoft")], shape,
                                     contrib=True),
        **{"com.microsoft " + op: _model([helper.make_node(op, ["x"], ["y"],
                                                           domain="com.microsoft")], shape,
                                         contrib=True)
           for op in ("FastGelu", "QuickGelu")},
        "Erf": _model([helper.make_node("Erf", ["x"], ["y"])], shape),
        **{op: _model([helper.make_node(op, ["x"], ["y"])], shape)
           for op in ("Exp", "Log", "Tanh", "Sigmoid", "Softmax", "LogSoftmax")},
        **{op: _model([helper.make_node(op, ["x"], ["y"])], shape, opset=18)
           for op in ("LeakyRelu", "Elu", "Selu", "Celu", "HardSigmoid", "HardSwish",
                      "ThresholdedRelu", "Softplus", "Mish")},
        "Gelu (opset 20)": _model([helper.make_node("Gelu", ["x"], ["y"])], shape, opset=20),
        "Gelu tanh (opset 20)": _model([helper.make_node("Gelu", ["x"], ["y"],
                                                         approximate="tanh")], shape, opset=20),
        "LSTM (bidirectional)": _lstm_model(),
    }


LSTM_SHAPE = (64, 8, 256)  # steps, batch, inputs (= hidden)


def _lstm_model():
    steps, batch, size = LSTM_SHAPE
    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array((rng.normal(size=shape) * 0.05).astype(np.float32), name)
               for name, shape in (("W", (2, 4 * size, size)), ("R", (2, 4 * size, size)),
                                   ("B", (2, 8 * size)))]
    node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["y"], hidden_size=size,
                            direction="bidirectional")
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                             list(LSTM_SHAPE))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def _time(session, feeds, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="8,128,768")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    shape = [int(d) for d in args.shape.split(",")]
    normal = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    print("| model | prism ms | onnxruntime ms | ratio |\n|---|---:|---:|---:|")
    for name, model in models(shape).items():
        feeds = {"x": np.abs(normal) if name == "Log" else normal}
        if name.startswith("LSTM"):
            feeds = {"x": np.random.default_rng(2).normal(size=LSTM_SHAPE).astype(np.float32)}
        prism_options = prismrt.SessionOptions()
        prism_options.intra_op_num_threads = 1
        ort_options = onnxruntime.SessionOptions()
        ort_options.intra_op_num_threads = 1
        ort_options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        sessions = (prismrt.InferenceSession(model, prism_options),
                    onnxruntime.InferenceSession(model, ort_options,
                                                 providers=["CPUExecutionProvider"]))
        np.testing.assert_allclose(sessions[0].run(None, feeds)[0], sessions[1].run(None, feeds)[0],
                                   rtol=1e-5, atol=1e-6)
        rounds = [[], []]
        for _ in range(args.rounds):
            for index, session in enumerate(sessions):
                _time(session, feeds, 3)  # warm-up
                rounds[index].append(_time(session, feeds, args.runs))
        prism_ms, ort_ms = statistics.median(rounds[0]), statistics.median(rounds[1])
        print("| %s | %.3f | %.3f | %.2fx |" % (name, prism_ms, ort_ms, prism_ms / ort_ms))


if __name__ == "__main__":
    main()
