#!/usr/bin/env python3
"""ONNX Attention (opset 23) in Prism against onnxruntime: BERT-base-sized self-attention
([batch, 128, 12 * 64] Q, K and V in the 3-D layout), without a mask, causal, and with an
additive [batch, 1, 128, 128] mask; one intra-op thread each by default. The runtimes alternate
run by run after a warm-up; the table gives the medians and the median of the per-round ratios.

    .venv/bin/python benchmarks/attention_compare.py [--rounds 15] [--runs 20] [--threads 1]
"""
import argparse
import statistics
import time

import numpy as np
import onnxruntime
from onnx import TensorProto, helper

import prismrt


def _model(batch, seq, heads, head, causal, mask):
    names = ["q", "k", "v"] + (["m"] if mask else [])
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [batch, seq, heads * head])
              for n in "qkv"]
    if mask:
        inputs.append(helper.make_tensor_value_info("m", TensorProto.FLOAT, [batch, 1, seq, seq]))
    node = helper.make_node("Attention", names, ["y"], q_num_heads=heads, kv_num_heads=heads,
                            is_causal=causal)
    graph = helper.make_graph([node], "attention", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 10  # onnxruntime 1.31 reads IR versions up to 13
    return model.SerializeToString()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    seq, heads, head = 128, 12, 64
    rng = np.random.RandomState(0)
    print("| case | prism ms | onnxruntime ms | ratio | max abs difference |")
    print("|---|---:|---:|---:|---:|")
    for label, causal, mask in [("no mask", 0, False), ("causal", 1, False),
                                ("additive mask", 0, True)]:
        model = _model(args.batch, seq, heads, head, causal, mask)
        feeds = {n: rng.standard_normal((args.batch, seq, heads * head)).astype(np.float32)
                 for n in "qkv"}
        if mask:
            feeds["m"] = np.where(rng.uniform(size=(args.batch, 1, seq, seq)) < 0.2, -1e4,
                                  0).astype(np.float32)
        ort_options = onnxruntime.SessionOptions()
        ort_options.intra_op_num_threads = args.threads
        peer = onnxruntime.InferenceSession(model, ort_options,
                                            providers=["CPUExecutionProvider"])
        options = prismrt.SessionOptions()
        options.intra_op_num_threads = args.threads
        session = prismrt.InferenceSession(model, options)
        difference = float(np.abs(session.run(None, feeds)[0] - peer.run(None, feeds)[0]).max())
        for _ in range(5):
            session.run(None, feeds)
            peer.run(None, feeds)
        prism_times, peer_times, ratios = [], [], []
        for _ in range(args.rounds):
            round_prism, round_peer = [], []
            for _ in range(args.runs):
                start = time.perf_counter()
                session.run(None, feeds)
                round_prism.append(time.perf_counter() - start)
                start = time.perf_counter()
                peer.run(None, feeds)
                round_peer.append(time.perf_counter() - start)
            prism_times += round_prism
            peer_times += round_peer
            ratios.append(statistics.median(round_prism) / statistics.median(round_peer))
        print("| %s | %.3f | %.3f | %.2fx | %.1e |" % (
            label, 1e3 * statistics.median(prism_times), 1e3 * statistics.median(peer_times),
            statistics.median(ratios), difference))


if __name__ == "__main__":
    main()
