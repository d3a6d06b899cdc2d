"""STFT and DFT, Prism against onnxruntime on the same inputs, one thread each: an STFT of 997
frames of 512 samples (frame_step 128, periodic Hann window, one-sided, batch 1), and float DFTs
of [1, n, 1] forward for a power of two (4096), a prime (4099, onnxruntime's direct sum), and a
one-sided 4096. Alternating rounds (a few warm-up runs, then --runs timed runs of each), the
median per round, the median of the rounds, and the ratio Prism / onnxruntime.

    .venv/bin/python benchmarks/signal_bench.py [--rounds 7] [--runs 15]

Against a build folder without installing prismrt:
    PYTHONPATH=python PRISMRT_LIBRARY_DIR=build .venv/bin/python benchmarks/signal_bench.py
"""
import argparse
import statistics
import time

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

import prismrt

FRAME, STEP, FRAMES = 512, 128, 997


def _model(node, inputs, initializers=(), opset=17):
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
                               for name, shape in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model.SerializeToString()


def cases():
    rng = np.random.default_rng(0)
    length = STEP * (FRAMES - 1) + FRAME
    window = (np.sin(np.pi * np.arange(FRAME) / FRAME) ** 2).astype(np.float32)  # periodic Hann
    stft = _model(helper.make_node("STFT", ["x", "step", "window", "frame_length"], ["y"],
                                   onesided=1),
                  [("x", [1, length, 1])],
                  [numpy_helper.from_array(np.array(STEP, np.int64), "step"),
                   numpy_helper.from_array(window, "window"),
                   numpy_helper.from_array(np.array(FRAME, np.int64), "frame_length")])
    yield ("STFT %d frames x %d" % (FRAMES, FRAME), stft,
           {"x": rng.standard_normal((1, length, 1)).astype(np.float32)})
    for n, onesided in ((4096, 0), (4099, 0), (4096, 1)):
        dft = _model(helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=onesided),
                     [("x", [1, n, 1])])
        yield ("DFT [1, %d, 1]%s" % (n, " onesided" if onesided else ""), dft,
               {"x": rng.standard_normal((1, n, 1)).astype(np.float32)})


def _time(session, feeds, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print("| case | prism ms | onnxruntime ms | ratio |\n|---|---:|---:|---:|")
    for name, model, feeds in cases():
        prism_options = prismrt.SessionOptions()
        prism_options.intra_op_num_threads = 1
        ort_options = onnxruntime.SessionOptions()
        ort_options.intra_op_num_threads = 1
        sessions = (prismrt.InferenceSession(model, prism_options),
                    onnxruntime.InferenceSession(model, ort_options,
                                                 providers=["CPUExecutionProvider"]))
        expected = sessions[1].run(None, feeds)[0]
        actual = sessions[0].run(None, feeds)[0]
        # A sanity check only (onnxruntime's direct float sum at 4099 is well off the exact
        # result): the accuracy is tested in tests/python/test_dft_oracle.py.
        assert actual.shape == expected.shape
        assert np.linalg.norm(actual - expected) <= 1e-3 * np.linalg.norm(expected), name
        rounds = [[], []]
        for _ in range(args.rounds):
            for index, session in enumerate(sessions):
                _time(session, feeds, 2)  # warm-up
                rounds[index].append(_time(session, feeds, args.runs))
        prism_ms, ort_ms = statistics.median(rounds[0]), statistics.median(rounds[1])
        print("| %s | %.3f | %.3f | %.2fx |" % (name, prism_ms, ort_ms, prism_ms / ort_ms),
              flush=True)


if __name__ == "__main__":
    main()
