"""Prism's CUDA EP against PyTorch eager on the same GPU, on the same ONNX graphs.

PyTorch runs each model as eager torch.nn.functional calls, one per ONNX node, in the graph's
order (benchmarks/torch_eager.py): the kernels a PyTorch user's own eager model launches
(cuDNN convolutions and batch norm, cuBLAS GEMMs, its elementwise kernels), with TF32 off for
both so that both compute in full FP32. Prism runs with ["CUDAExecutionProvider",
"CPUExecutionProvider"], inputs and outputs bound on the device (IO binding), and once more with
enable_cuda_graph=1 where every node runs on the GPU. Both are timed the same way: a warm-up,
then the median wall time of many runs, each ended by a device synchronize; the runs alternate
between the contenders round by round. Outputs are checked against each other first.

  python benchmarks/gpu_compare.py --models-dir DIR [--models resnet50,bert_base]
      [--batches 1,32] [--rounds 5] [--runs 20] [--markdown OUT.md] [--json OUT.json]

The models come from ../shared/bench/make_models.py; the batch-32 variants from
benchmarks/make_batch_variants.py (files named <model>_b32.onnx beside them).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_eager  # noqa: E402


def make_feeds(model, rng):
    feeds = {}
    initializers = {i.name for i in model.graph.initializer}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        shape = [d.dim_value for d in tensor_type.shape.dim]
        if tensor_type.elem_type == onnx.TensorProto.INT64:
            if "mask" in value.name:
                feeds[value.name] = np.ones(shape, np.int64)
            else:
                feeds[value.name] = rng.randint(0, 30522, size=shape).astype(np.int64)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def median_ms(samples):
    return statistics.median(samples) * 1e3


class PrismRunner:
    def __init__(self, prismrt, torch, path, feeds, cuda_graph):
        options = {"enable_cuda_graph": "1"} if cuda_graph else {}
        self.torch = torch
        self.session = prismrt.InferenceSession(
            path, providers=[("CUDAExecutionProvider", options), "CPUExecutionProvider"])
        self.report = self.session.get_partition_report()
        self.binding = self.session.io_binding()
        self.inputs = {}
        for name, array in feeds.items():
            value = prismrt.OrtValue.ortvalue_from_numpy(array, "cuda", 0)
            self.inputs[name] = value
            self.binding.bind_ortvalue_input(name, value)
        for output in self.session.get_outputs():
            self.binding.bind_output(output.name, "cuda", 0)

    def run(self):
        self.session.run_with_iobinding(self.binding)
        self.torch.cuda.synchronize()

    def outputs(self):
        return [value.numpy() for value in self.binding.get_outputs()]


def cpu_nodes(report):
    """Nodes the partition report places on the CPU EP."""
    return [line.strip() for line in report.splitlines()
            if "] " in line and line.rstrip().endswith("-> CPUExecutionProvider")]


def measure(args, name, batch, path, rng, torch, prismrt, device_name):
    model = onnx.load(path)
    feeds = make_feeds(model, rng)
    eager = torch_eager.EagerModel(model, torch, "cuda")
    torch_inputs = {k: torch.from_numpy(v).cuda() for k, v in feeds.items()}

    def run_torch():
        with torch.inference_mode():
            result = eager(torch_inputs)
        torch.cuda.synchronize()
        return result

    contenders = {"pytorch_eager": run_torch}
    prism = PrismRunner(prismrt, torch, path, feeds, cuda_graph=False)
    contenders["prism_cuda"] = prism.run
    on_cpu = cpu_nodes(prism.report)
    graph_runner = None
    if not on_cpu:
        try:
            graph_runner = PrismRunner(prismrt, torch, path, feeds, cuda_graph=True)
            contenders["prism_cuda_graph"] = graph_runner.run
        except Exception as error:  # reported, not hidden
            print(f"{os.path.basename(path)}: enable_cuda_graph=1 failed: {error}", flush=True)
    # Agreement first.
    wanted = [t.float().cpu().numpy() for t in run_torch()]
    prism.run()
    errors = []
    for got, want in zip(prism.outputs(), wanted):
        errors.append(float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)))
    if graph_runner is not None:
        for _ in range(3):
            graph_runner.run()
        for got, want in zip(graph_runner.outputs(), wanted):
            errors.append(
                float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)))
    for run in contenders.values():
        for _ in range(args.warmup):
            run()
    samples = {key: [] for key in contenders}
    for _ in range(args.rounds):
        for key, run in contenders.items():
            for _ in range(args.runs):
                start = time.perf_counter()
                run()
                samples[key].append(time.perf_counter() - start)
    if args.reports:
        with open(args.reports, "a") as out:
            out.write(f"==== {os.path.basename(path)}\n{prism.report}\n")
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        with open(args.profile, "a") as out:
            for key, run in contenders.items():
                with profile(activities=[ProfilerActivity.CUDA]) as recorded:
                    for _ in range(10):
                        run()
                try:
                    table = recorded.key_averages().table(sort_by="device_time_total",
                                                          row_limit=25)
                except Exception:  # older PyTorch names it cuda_time_total
                    table = recorded.key_averages().table(sort_by="cuda_time_total",
                                                          row_limit=25)
                out.write(f"==== {os.path.basename(path)} {key} (10 runs)\n{table}\n")
    row = {"model": name, "batch": batch, "device": device_name,
           "max_relative_error": max(errors), "nodes_on_cpu": len(on_cpu),
           "cpu_node_examples": on_cpu[:5]}
    for key, values in samples.items():
        row[key + "_ms"] = median_ms(values)
        row[key + "_p90_ms"] = float(np.percentile(values, 90) * 1e3)
    row["prism_over_torch"] = row["prism_cuda_ms"] / row["pytorch_eager_ms"]
    if "prism_cuda_graph_ms" in row:
        row["graph_over_plain"] = row["prism_cuda_graph_ms"] / row["prism_cuda_ms"]
    del prism, graph_runner, eager
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models-dir", required=True)
    parser.add_argument("--models", default="resnet50,bert_base")
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--reports", help="write every model's partition report to this file")
    parser.add_argument("--profile",
                        help="write the CUDA kernels' time per kernel name (torch.profiler, "
                        "which sees Prism's kernels too) of each contender to this file")
    args = parser.parse_args()

    import torch

    import prismrt

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device_name = torch.cuda.get_device_name(0)
    rng = np.random.RandomState(0)
    rows = []
    for name in args.models.split(","):
        for batch in [int(b) for b in args.batches.split(",")]:
            file = f"{name}.onnx" if batch == 1 else f"{name}_b{batch}.onnx"
            path = os.path.join(args.models_dir, file)
            if not os.path.exists(path):
                print(f"skip {file}: not found", flush=True)
                continue
            try:
                rows.append(measure(args, name, batch, path, rng, torch, prismrt, device_name))
                print(json.dumps(rows[-1]), flush=True)
            except Exception as error:  # one model's failure is reported, the others still run
                import traceback
                traceback.print_exc()
                print(f"{file}: FAILED: {error}", flush=True)
            torch.cuda.empty_cache()

    lines = [f"Device: {device_name}; PyTorch {torch.__version__}; TF32 off for both; "
             f"median of {args.rounds} alternating rounds x {args.runs} runs after {args.warmup} "
             "warm-up runs; inputs and outputs on the device.", "",
             "| model | batch | PyTorch eager ms | Prism CUDA ms | Prism / PyTorch | "
             "Prism + CUDA graph ms | graph / plain | nodes on the CPU | max rel. error |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        graph_ms = row.get("prism_cuda_graph_ms")
        lines.append(
            f"| {row['model']} | {row['batch']} | {row['pytorch_eager_ms']:.3f} | "
            f"{row['prism_cuda_ms']:.3f} | {row['prism_over_torch']:.2f}x | "
            f"{'%.3f' % graph_ms if graph_ms else '-'} | "
            f"{'%.2fx' % row['graph_over_plain'] if graph_ms else '-'} | "
            f"{row['nodes_on_cpu']} | {row['max_relative_error']:.1e} |")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(table + "\n")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
