#!/usr/bin/env python3
"""Markdown tables from prism_gemm_bench's JSON output (--benchmark_out=FILE
--benchmark_out_format=json, run with --benchmark_repetitions=N --benchmark_report_aggregates_only=true).

For every shape and thread count: the medians of Prism's GFLOP/s (and its prepacked-B variant where
measured), oneDNN's, the ratio Prism / oneDNN (above 1: Prism faster), and Prism's share of the
peak (the probe's rate measured just before each benchmark, times the threads). Single-threaded
rows also give the ratio of the rates by CPU time (the calling thread's), which a machine whose
cores other processes share perturbs less than wall time.

Then the int8 GEMM: per shape and thread count, Prism's int8 GOP/s, the SGEMM's GFLOP/s at the
same shape and threads (B prepacked where measured, as the int8 B is), their ratio, oneDNN's
u8 x s8 -> s32 matmul's GOP/s and the ratio Prism / oneDNN.

usage: gemm_table.py RUN.json [LABEL]
"""
import json
import sys


def medians(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        rows[b["run_name"]] = b
    return data.get("context", {}), rows


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    context, rows = medians(argv[0])
    label = argv[1] if len(argv) > 1 else "oneDNN"
    probes = {name: row["GFLOPS"] / 1e9 if row["GFLOPS"] > 1e6 else row["GFLOPS"]
              for name, row in rows.items() if name.startswith("peak_probe/")}
    for name, rate in sorted(probes.items()):
        print(f"- `{name}`: {rate:.1f} GFLOP/s (median)")
    print()
    print(f"| shape (batch x M x N x K) | threads | Prism GFLOP/s | Prism, B prepacked | {label} GFLOP/s "
          f"| Prism / {label} | Prism % of peak | 1 thread: Prism / {label} by CPU time |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    seen = []
    for name in rows:
        if name.startswith("sgemm/prism/"):
            seen.append(name[len("sgemm/prism/"):])
    for key in seen:
        shape, threads = key.split("/threads:")
        threads = threads.split("/")[0]
        prism = rows[f"sgemm/prism/{key}"]
        packed = rows.get(f"sgemm/prism_packed_b/{key}")
        other = rows.get(f"sgemm/onednn/{key}")

        def rate(row):
            return row["GFLOPS"] / 1e9 if row["GFLOPS"] > 1e6 else row["GFLOPS"]

        p = rate(prism)
        packed_text = f"{rate(packed):.1f}" if packed else ""
        other_text = f"{rate(other):.1f}" if other else ""
        ratio = f"**{p / rate(other):.2f}**" if other else ""
        share = prism.get("%peak")
        share_text = f"{share / 1e7 if share > 1e4 else share:.0f}%" if share is not None else ""
        cpu_ratio = ""
        if other and threads == "1":
            cpu_ratio = f"{other['cpu_time'] / prism['cpu_time']:.2f}"
        print(f"| {shape} | {threads} | {p:.1f} | {packed_text} | {other_text} | {ratio} | {share_text} "
              f"| {cpu_ratio} |")
    int8_keys = [name[len("int8/prism/"):] for name in rows if name.startswith("int8/prism/")]
    if not int8_keys:
        return 0
    print()
    print("| int8 shape (M x N x K) | threads | Prism int8 GOP/s | Prism SGEMM GFLOP/s "
          f"| int8 / SGEMM | {label} int8 GOP/s | Prism / {label} (int8) |")
    print("|---|---:|---:|---:|---:|---:|---:|")

    def value(row, counter):
        return row[counter] / 1e9 if row[counter] > 1e6 else row[counter]

    for key in int8_keys:
        shape, threads = key.split("/threads:")
        threads = threads.split("/")[0]
        int8 = value(rows[f"int8/prism/{key}"], "GOPS")
        sgemm_row = rows.get(f"sgemm/prism_packed_b/{key}") or rows.get(f"sgemm/prism/{key}")
        sgemm = value(sgemm_row, "GFLOPS") if sgemm_row else None
        other_row = rows.get(f"int8/onednn/{key}")
        other = value(other_row, "GOPS") if other_row else None
        print(f"| {shape} | {threads} | {int8:.1f} | {f'{sgemm:.1f}' if sgemm else ''} "
              f"| {f'**{int8 / sgemm:.2f}**' if sgemm else ''} | {f'{other:.1f}' if other else ''} "
              f"| {f'**{int8 / other:.2f}**' if other else ''} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
