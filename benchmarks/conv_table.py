#!/usr/bin/env python3
"""Markdown tables from prism_conv_bench's JSON output (run with --benchmark_repetitions=N
--benchmark_report_aggregates_only=true --benchmark_out=FILE --benchmark_out_format=json).

Per model and thread count: the total convolution time of one inference (each layer shape's
median time times its number of occurrences in the model) for Prism's CPU EP, for oneDNN's
primitive in its blocked layouts (weights prepacked), for oneDNN's reorders of the
activations into and out of those layouts (reported apart), and for Prism's NCHWc direct
convolution on blocked tensors (mlas/nchwc.h, filter prepacked: the kernel the NCHWc graph
rewrite runs), and for what the NCHWc op picks per layer (`blocked`: the Winograd convolution
where it pays, else that direct one), with the ratios Prism / oneDNN, NCHWc / oneDNN and
blocked / oneDNN (the issue's bar, at most 1.05, is about the last). Then each layer's medians.

With --min (a run without --benchmark_report_aggregates_only), each variant's fastest
repetition instead of the median: on a machine whose other tenants' load comes in bursts, the
least disturbed repetition of each side.

usage: conv_table.py [--min] RUN.json
"""
import json
import sys
from collections import defaultdict


def main(argv):
    use_min = "--min" in argv
    argv = [a for a in argv if a != "--min"]
    if not argv:
        print(__doc__)
        return 2
    with open(argv[0]) as f:
        data = json.load(f)
    # (model, layer, threads) -> {variant: (median us, count, GFLOP/s)}
    layers = defaultdict(dict)
    for b in data["benchmarks"]:
        if use_min != (b.get("run_type") == "iteration") or (
                not use_min and b.get("aggregate_name") != "median"):
            continue
        # conv/<model>/<layer>/<variant>/<threads>/real_time
        parts = b["run_name"].split("/")
        model, layer, variant, threads = parts[1], parts[2], parts[3], int(parts[4])
        time_us = b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
        entry = (time_us, b.get("count", 1), b.get("GFLOPS", 0))
        known = layers[(model, layer, threads)].get(variant)
        if known is None or entry[0] < known[0]:
            layers[(model, layer, threads)][variant] = entry
    totals = defaultdict(lambda: defaultdict(float))
    for (model, layer, threads), variants in layers.items():
        for variant, (time_us, count, _) in variants.items():
            totals[(model, threads)][variant] += time_us * count
    print("| model | threads | Prism ms | oneDNN ms (blocked, weights prepacked) | Prism / oneDNN "
          "| oneDNN reorders ms (activations in and out) | Prism NCHWc direct ms | direct / oneDNN "
          "| Prism blocked (picked) ms | blocked / oneDNN |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (model, threads), t in sorted(totals.items()):
        prism, dnnl = t.get("prism", 0) / 1e3, t.get("dnnl", 0) / 1e3
        nchwc, blocked = t.get("nchwc", 0) / 1e3, t.get("blocked", 0) / 1e3
        ratio = f"{prism / dnnl:.2f}x" if dnnl and prism else "n/a"
        nchwc_ratio = f"{nchwc / dnnl:.3f}x" if dnnl and nchwc else "n/a"
        blocked_ratio = f"**{blocked / dnnl:.3f}x**" if dnnl and blocked else "n/a"
        print(f"| {model} | {threads} | {prism:.2f} | {dnnl:.2f} | {ratio} "
              f"| {t.get('dnnl_reorders', 0) / 1e3:.2f} | {nchwc:.2f} | {nchwc_ratio} "
              f"| {blocked:.2f} | {blocked_ratio} |")
    print()
    print("| layer | threads | count | Prism us | Prism GFLOP/s | oneDNN us | oneDNN GFLOP/s "
          "| Prism / oneDNN | NCHWc direct us | direct / oneDNN | blocked (picked) us "
          "| blocked / oneDNN |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (model, layer, threads), v in sorted(layers.items()):
        p, d, n, k = v.get("prism"), v.get("dnnl"), v.get("nchwc"), v.get("blocked")
        if not p and not n and not k:
            continue
        count = int((p or n or k)[1])
        ratio = f"{p[0] / d[0]:.2f}x" if d and p else "n/a"
        nchwc_ratio = f"{n[0] / d[0]:.2f}x" if d and n else "n/a"
        blocked_ratio = f"{k[0] / d[0]:.2f}x" if d and k else "n/a"
        print(f"| {model}/{layer} | {threads} | {count} | {p[0] if p else 0:.1f} "
              f"| {p[2] / 1e9 if p else 0:.1f} | {d[0] if d else 0:.1f} "
              f"| {d[2] / 1e9 if d else 0:.1f} | {ratio} | {n[0] if n else 0:.1f} "
              f"| {nchwc_ratio} | {k[0] if k else 0:.1f} | {blocked_ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
