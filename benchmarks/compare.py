#!/usr/bin/env python3
"""Prism (prism_perf) against onnxruntime on the same models, inputs and thread count.

For every model: the inputs are drawn once from the model's sidecar fill spec and written as
ONNX test data (input_K.pb); prism_perf reads them with -I and onnxruntime gets the same arrays.
Then, in ONE alternating run, one prism_perf --on-request process (its session made and warmed
once; each run timed by its own clock) and one onnxruntime session take turns of --turn-runs runs
each, --runs runs of each per round, so that both see the same moments of a machine whose speed
drifts within a second (--no-interleave: each round one prism_perf -r N invocation, then N
onnxruntime runs). Both use the same thread count (--threads 1,2 measures each).
The foreign CPU load (cores busy with other processes: /proc/stat minus this script's and its
children's own CPU time) is recorded per model, as ../shared/bench/README.md asks. With
--footprint, each runtime's session creation time and the peak resident memory its session and
runs add are measured too, in fresh processes through both Python packages alike
(footprint_probe.py), alternating, the median of --footprint-repeats.

    .venv/bin/python benchmarks/compare.py --build-dir build-perf
    .venv/bin/python benchmarks/compare.py --build-dir build-perf --models mnist_cnn,bert_tiny \
        --threads 1,2 --footprint --rounds 5 --runs 20 --markdown benchmarks/RESULTS.md \
        --chart docs/images/compare_chart.png

Writes <work-dir>/results.json, and with --markdown / --chart a table (with the geometric mean of
the median ratios per thread count) and a bar chart of the prism/onnxruntime median ratios.

--prism-eps times Prism with several execution-provider variants in the same alternating run:
each round runs prism_perf once per variant (`-e EPS`; a variant lists prism_perf's -e names
joined by "+", the CPU EP always last: `cpu`, `dnnl` = oneDNN then CPU) and then onnxruntime, and
each model / thread count gets one row with every variant's median, onnxruntime's and the ratios
(each variant / onnxruntime, and each later variant / the first):

    .venv/bin/python benchmarks/compare.py --build-dir build-perf --prism-eps cpu,dnnl \
        --models squeezenet1_1 --rounds 5 --runs 20

Without --prism-eps the output is the single-variant table above (prism_perf with its default
providers).
"""
import argparse
import datetime
import json
import os
import platform
import resource
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_MODELS = ["mnist_cnn", "squeezenet1_1", "mobilenetv2", "bert_tiny", "gemm_chain"]
ORT_LEVELS = {
    "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}


def make_models_script():
    shared = os.environ.get("PRISM_SHARED_DIR") or os.path.normpath(os.path.join(REPO, "..", "shared"))
    return os.path.join(shared, "bench", "make_models.py")


# Models made from the suite by onnxruntime's own tools (make_derived_models.py): its
# transformer optimizer's fused BERT, and int8 QDQ models from quantize_static.
DERIVED_MODELS = ("bert_base_ort_fused", "bert_tiny_ort_fused", "resnet50_qdq", "mobilenetv2_qdq")


def ensure_models(models_dir, names):
    missing = [n for n in names if not os.path.exists(os.path.join(models_dir, n + ".onnx"))]
    suite = [n for n in missing if n not in DERIVED_MODELS]
    derived = [n for n in missing if n in DERIVED_MODELS]
    os.makedirs(models_dir, exist_ok=True)
    for script, group in ((make_models_script(), suite),
                          (os.path.join(HERE, "make_derived_models.py"), derived)):
        if not group:
            continue
        command = [sys.executable, script, models_dir, "--models", ",".join(group)]
        print("generating", ", ".join(group), ":", " ".join(command), flush=True)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def make_inputs(sidecar, seed):
    """Arrays by the sidecar's fill spec: normal N(mean, std), randint [low, high), ones."""
    rng = np.random.RandomState(seed)
    arrays = []
    for spec in sidecar["inputs"]:
        shape, dtype, fill = spec["shape"], np.dtype(spec["dtype"]), spec["fill"]
        if fill["kind"] == "normal":
            value = rng.normal(fill.get("mean", 0.0), fill.get("std", 1.0), shape)
        elif fill["kind"] == "randint":
            value = rng.randint(fill["low"], fill["high"], shape)
        elif fill["kind"] == "ones":
            value = np.ones(shape)
        else:
            raise ValueError("unknown fill kind %r in %s" % (fill["kind"], sidecar["name"]))
        arrays.append((spec["name"], value.astype(dtype)))
    return arrays


def write_inputs(arrays, folder):
    os.makedirs(folder, exist_ok=True)
    for k, (name, array) in enumerate(arrays):
        with open(os.path.join(folder, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(array, name).SerializeToString())


class CpuLoad:
    """Cores used by other processes between start() and stop(): all busy time from /proc/stat
    minus the CPU time of this process and of its waited-for children."""

    @staticmethod
    def _busy_seconds():
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
        return busy / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _own_seconds():
        total = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            usage = resource.getrusage(who)
            total += usage.ru_utime + usage.ru_stime
        return total

    def start(self):
        self.wall = time.monotonic()
        self.busy = self._busy_seconds()
        self.own = self._own_seconds()

    def stop(self):
        wall = time.monotonic() - self.wall
        busy = self._busy_seconds() - self.busy
        own = self._own_seconds() - self.own
        return {"wall_s": wall, "own_cores": own / wall, "foreign_cores": max(0.0, busy - own) / wall}


def stats(samples):
    a = np.sort(np.asarray(samples, dtype=np.float64))
    rank = lambda p: a[min(len(a) - 1, max(0, int(np.ceil(p / 100.0 * len(a))) - 1))]
    return {"median": float(np.median(a)), "p90": float(rank(90)), "min": float(a[0]),
            "max": float(a[-1]), "count": int(len(a))}


def first_values_match(prism_stdout, ort_outputs):
    """prism_perf prints up to 5 leading values of each output; compare with onnxruntime's."""
    printed = []
    section = prism_stdout.split("Outputs (first run):\n", 1)
    if len(section) < 2:
        return None
    for line in section[1].splitlines():
        if not line.startswith("  "):
            break
        values = line.rsplit(":", 1)[1].split()
        printed.append([float(v) for v in values if v not in ("...", "?")])
    if len(printed) != len(ort_outputs):
        return False
    for values, reference in zip(printed, ort_outputs):
        expected = np.asarray(reference).flatten()[:len(values)].astype(np.float64)
        if not np.allclose(values, expected, rtol=1e-3, atol=1e-4):
            return False
    return True


def footprint(name, model_path, input_dir, threads, args):
    """Median creation time and peak memory over baseline of both runtimes, each in fresh
    processes, alternating (footprint_probe.py)."""
    probe = os.path.join(HERE, "footprint_probe.py")
    samples = {"prismrt": [], "onnxruntime": []}
    for _ in range(args.footprint_repeats):
        for runtime in ("prismrt", "onnxruntime"):
            command = [sys.executable, probe, runtime, model_path, input_dir, "--threads",
                       str(threads), "--runs", str(args.warmup + 1)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError("%s failed:\n%s%s" % (shlex.join(command), result.stdout,
                                                         result.stderr))
            samples[runtime].append(json.loads(result.stdout.strip().splitlines()[-1]))
    summary = {}
    for runtime, runs in samples.items():
        summary[runtime] = {
            "creation_ms": float(np.median([r["creation_ms"] for r in runs])),
            "memory_mib": float(np.median([r["peak_over_baseline_mib"] for r in runs])),
        }
    print("  %s footprint: creation prism %.1f ms / onnxruntime %.1f ms, memory prism %.1f MiB / "
          "onnxruntime %.1f MiB" % (name, summary["prismrt"]["creation_ms"],
                                    summary["onnxruntime"]["creation_ms"],
                                    summary["prismrt"]["memory_mib"],
                                    summary["onnxruntime"]["memory_mib"]), flush=True)
    return {
        "prism": summary["prismrt"],
        "ort": summary["onnxruntime"],
        "creation_ratio": summary["prismrt"]["creation_ms"] / summary["onnxruntime"]["creation_ms"],
        "memory_ratio": summary["prismrt"]["memory_mib"] / max(summary["onnxruntime"]["memory_mib"],
                                                              1e-3),
    }


class PrismOnRequest:
    """A prism_perf --on-request process: its session is made and warmed once, then run(n) asks
    for n timed runs and returns their latencies (prism_perf's own clock around each Run)."""

    def __init__(self, command):
        self.command = command
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True)
        self.preamble = []
        for line in self.process.stdout:
            if line.strip() == "ready":
                return
            self.preamble.append(line)
        self._fail("ended before it was ready")

    def _fail(self, what):
        self.process.kill()
        self.process.wait()
        self.stderr.seek(0)
        raise RuntimeError("%s %s:\n%s%s" % (shlex.join(self.command), what,
                                               "".join(self.preamble), self.stderr.read()))

    def run(self, count):
        try:
            self.process.stdin.write("%d\n" % count)
            self.process.stdin.flush()
        except BrokenPipeError:
            self._fail("stopped reading its requests")
        words = self.process.stdout.readline().split()
        if len(words) != count + 1 or words[0] != "samples_ms":
            self._fail("answered %r to a request for %d runs" % (" ".join(words), count))
        return [float(w) for w in words[1:]]

    def finish(self):
        """Ends the runs; returns the whole stdout (the summary follows the answers)."""
        self.process.stdin.close()
        rest = self.process.stdout.read()
        if self.process.wait() != 0:
            self._fail("failed at the end")
        return "".join(self.preamble) + rest


def compare_model(name, args, models_dir, work_dir, threads):
    model_path = os.path.join(models_dir, name + ".onnx")
    with open(os.path.join(models_dir, name + ".json")) as f:
        sidecar = json.load(f)
    arrays = make_inputs(sidecar, args.seed)
    input_dir = os.path.join(work_dir, name, "inputs")
    write_inputs(arrays, input_dir)
    feeds = dict(arrays)

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ORT_LEVELS[args.ort_opt]
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    ort_outputs = session.run(None, feeds)
    for _ in range(args.warmup):
        session.run(None, feeds)

    # One prism_perf command per EP variant (one with prism_perf's default providers when
    # --prism-eps is not given).
    variants = args.prism_ep_variants or [None]
    commands = []
    for k, variant in enumerate(variants):
        summary_path = os.path.join(work_dir, name, "prism_summary%s.json" % ("" if k == 0 else k))
        command = [args.prism_perf, "-m", model_path, "-I", input_dir, "-w", str(args.warmup),
                   "-x", str(threads), "--json", summary_path]
        command += ["--on-request"] if args.interleave else ["-r", str(args.runs)]
        if variant is not None:
            command += ["-e", ",".join(variant)]
        commands.append((command, summary_path))
    prism_samples = [[] for _ in variants]
    prism_rounds = [[] for _ in variants]
    last_stdout = [None for _ in variants]
    ort_samples, ort_rounds = [], []
    load = CpuLoad()
    load.start()
    turn_ratios = [[] for _ in variants]
    servers = [PrismOnRequest(command) for command, _ in commands] if args.interleave else []
    # Idle intra-op workers of both runtimes spin after a run (onnxruntime's for about 40 ms
    # here); the pause after each turn lets them sleep before the other runtime's turn.
    turn_settle_s = args.turn_settle_s if threads > 1 else 0.0
    for r in range(args.rounds) if args.interleave else []:
        round_prism = [[] for _ in variants]
        ort_round = []
        for _ in range(0, args.runs, args.turn_runs):
            count = min(args.turn_runs, args.runs - len(ort_round))
            turn_prism = []
            for k, server in enumerate(servers):
                turn_prism.append(server.run(count))
                round_prism[k] += turn_prism[-1]
                time.sleep(turn_settle_s)
            turn_ort = []
            for _ in range(count):
                start = time.perf_counter()
                session.run(None, feeds)
                turn_ort.append(1000.0 * (time.perf_counter() - start))
            ort_round += turn_ort
            for k in range(len(variants)):
                turn_ratios[k].append(float(np.median(turn_prism[k]) / np.median(turn_ort)))
            time.sleep(turn_settle_s)
        for k in range(len(variants)):
            prism_samples[k] += round_prism[k]
            prism_rounds[k].append(float(np.median(round_prism[k])))
        ort_samples += ort_round
        ort_rounds.append(float(np.median(ort_round)))
        prism_text = ", ".join("prism%s %.3f ms" % ("" if v is None else "(%s)" % variant_label(v),
                                                    prism_rounds[k][-1])
                               for k, v in enumerate(variants))
        print("  %s (%d thread%s) round %d/%d (runs alternating in turns of %d): %s, "
              "onnxruntime %.3f ms" % (name, threads, "" if threads == 1 else "s", r + 1,
                                       args.rounds, args.turn_runs, prism_text, ort_rounds[-1]),
              flush=True)
    for k, server in enumerate(servers):
        last_stdout[k] = server.finish()
    for r in range(0 if args.interleave else args.rounds):
        for k, (command, summary_path) in enumerate(commands):
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError("%s failed:\n%s%s" % (shlex.join(command), result.stdout,
                                                         result.stderr))
            with open(summary_path) as f:
                prism_round = json.load(f)["samples_ms"]
            prism_samples[k] += prism_round
            prism_rounds[k].append(float(np.median(prism_round)))
            last_stdout[k] = result.stdout
        ort_round = []
        for _ in range(args.runs):
            start = time.perf_counter()
            session.run(None, feeds)
            ort_round.append(1000.0 * (time.perf_counter() - start))
        ort_samples += ort_round
        ort_rounds.append(float(np.median(ort_round)))
        # onnxruntime's idle intra-op workers spin-wait for a while after a run (its default
        # allow_spinning); on a 2-core machine they would take a core from the next round's
        # prism_perf. A pause lets them go to sleep first (Prism's process has exited by the time
        # onnxruntime runs, so the pause only removes our side's interference).
        time.sleep(args.settle_s)
        prism_text = ", ".join("prism%s %.3f ms" % ("" if v is None else "(%s)" % variant_label(v),
                                                    prism_rounds[k][-1])
                               for k, v in enumerate(variants))
        print("  %s (%d thread%s) round %d/%d: %s, onnxruntime %.3f ms" % (
            name, threads, "" if threads == 1 else "s", r + 1, args.rounds, prism_text,
            ort_rounds[-1]), flush=True)
    cpu = load.stop()
    ours = stats(ort_samples)
    per_variant = []
    for k, variant in enumerate(variants):
        prism = stats(prism_samples[k])
        per_variant.append({
            "eps": None if variant is None else list(variant),
            "label": "prism" if variant is None else "prism(%s)" % variant_label(variant),
            "prism_ms": prism,
            "ratio_median": prism["median"] / ours["median"],
            "ratio_p90": prism["p90"] / ours["p90"],
            "ratio_min": prism["min"] / ours["min"],
            "round_ratios": [p / o for p, o in zip(prism_rounds[k], ort_rounds)],
            # The headline: each round's ratio of medians (both runtimes' runs of that round),
            # the median over rounds (the "median over alternating rounds"; the pooled
            # ratio_median above moves with whichever of the machine's fast and slow phases the
            # 50% point of all runs falls in).
            "ratio_rounds": float(np.median([p / o for p, o in zip(prism_rounds[k],
                                                                    ort_rounds)])),
            # With --interleave: the median over turns of each turn's Prism / onnxruntime ratio.
            "turn_ratio_median": float(np.median(turn_ratios[k])) if turn_ratios[k] else None,
            "outputs_agree": first_values_match(last_stdout[k], ort_outputs),
            "prism_command": shlex.join(commands[k][0]),
        })
    first = per_variant[0]
    row = {
        "model": name,
        "threads": threads,
        "footprint": footprint(name, model_path, input_dir, threads, args) if args.footprint
        else None,
        "nodes": len(onnx.load(model_path, load_external_data=False).graph.node),
        # The first variant's numbers (the only one without --prism-eps).
        "prism_ms": first["prism_ms"],
        "ort_ms": ours,
        "ratio_median": first["ratio_median"],
        "ratio_rounds": first["ratio_rounds"],
        "ratio_p90": first["ratio_p90"],
        "ratio_min": first["ratio_min"],
        "round_ratios": first["round_ratios"],
        "turn_ratio_median": first["turn_ratio_median"],
        "outputs_agree": first["outputs_agree"],
        "cpu": cpu,
        "prism_command": first["prism_command"],
    }
    if args.prism_ep_variants:
        for v in per_variant[1:]:
            v["ratio_to_first"] = v["prism_ms"]["median"] / first["prism_ms"]["median"]
        row["variants"] = per_variant
    return row


def variant_label(variant):
    """prism_perf -e names as the table shows them: cpu, dnnl+cpu (the CPU EP is always last)."""
    names = [n for n in variant if n != "cpu"] + ["cpu"]
    return "+".join(names)


def parse_prism_eps(text):
    """--prism-eps "cpu,dnnl,dnnl+test": one list of prism_perf -e names per variant."""
    variants = []
    for item in text.split(","):
        names = [n.strip() for n in item.split("+") if n.strip()]
        if not names:
            raise ValueError("empty variant in %r" % text)
        variants.append(names)
    return variants


def geometric_mean(values):
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def variants_table(results):
    """One row per model and thread count with every EP variant's median (--prism-eps)."""
    labels = [v["label"] for v in results[0]["variants"]]
    first = labels[0]
    header = "| model | threads | nodes |" + "".join(" %s median ms |" % l for l in labels)
    header += " ORT median ms |" + "".join(" %s / ORT |" % l for l in labels)
    header += "".join(" %s / %s |" % (l, first) for l in labels[1:])
    header += " foreign load (cores) | outputs agree |"
    rule = "|---|---:|---:|" + "---:|" * (2 * len(labels) + 1 + len(labels) - 1) + "---:|---|"
    lines = [header, rule]
    for r in results:
        vs = r["variants"]
        line = "| %s | %d | %d |" % (r["model"], r.get("threads", 1), r["nodes"])
        line += "".join(" %.3f |" % v["prism_ms"]["median"] for v in vs)
        line += " %.3f |" % r["ort_ms"]["median"]
        line += "".join(" **%.2fx** |" % v["ratio_rounds"] for v in vs)
        line += "".join(" %.2fx |" % v["ratio_to_first"] for v in vs[1:])
        agree = ", ".join({True: "yes", False: "NO", None: "?"}[v["outputs_agree"]] for v in vs)
        line += " %.2f | %s |" % (r["cpu"]["foreign_cores"], agree)
        lines.append(line)
    lines.append("")
    for threads in sorted({r.get("threads", 1) for r in results}):
        rows = [r for r in results if r.get("threads", 1) == threads]
        for k, label in enumerate(labels):
            ratios = [r["variants"][k]["ratio_rounds"] for r in rows]
            lines.append("Geometric mean of the %s / ORT ratios (median of rounds) at %d thread%s: **%.2fx** "
                         "over %d models; the largest %.2fx." % (
                             label, threads, "" if threads == 1 else "s", geometric_mean(ratios),
                             len(ratios), max(ratios)))
    return "\n".join(lines)


def table(results):
    if results and results[0].get("variants"):
        return variants_table(results)
    footprints = any(r.get("footprint") for r in results)
    header = ("| model | threads | nodes | prism median ms | prism p90 | prism min | ORT median ms | "
              "ORT p90 | ORT min | ratio (median of rounds) | ratio of medians | ratio p90 | "
              "ratio min |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if footprints:
        header += (" creation ms prism / ORT | creation ratio | memory MiB prism / ORT | "
                   "memory ratio |")
        rule += "---:|---:|---:|---:|"
    header += " foreign load (cores) | outputs agree |"
    rule += "---:|---|"
    lines = [header, rule]
    for r in results:
        p, o = r["prism_ms"], r["ort_ms"]
        line = ("| %s | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | **%.2fx** | %.2fx | "
                "%.2fx | %.2fx |" % (
                    r["model"], r.get("threads", 1), r["nodes"], p["median"], p["p90"], p["min"],
                    o["median"], o["p90"], o["min"], r["ratio_rounds"], r["ratio_median"],
                    r["ratio_p90"], r["ratio_min"]))
        if footprints:
            f = r.get("footprint")
            if f:
                line += " %.1f / %.1f | %.2fx | %.1f / %.1f | %.2fx |" % (
                    f["prism"]["creation_ms"], f["ort"]["creation_ms"], f["creation_ratio"],
                    f["prism"]["memory_mib"], f["ort"]["memory_mib"], f["memory_ratio"])
            else:
                line += " | | | |"
        line += " %.2f | %s |" % (r["cpu"]["foreign_cores"],
                                  {True: "yes", False: "NO", None: "?"}[r["outputs_agree"]])
        lines.append(line)
    lines.append("")
    for threads in sorted({r.get("threads", 1) for r in results}):
        ratios = [r["ratio_rounds"] for r in results if r.get("threads", 1) == threads]
        lines.append("Geometric mean of the ratios (median of rounds) at %d thread%s: **%.2fx** over %d "
                     "models; the largest %.2fx." % (threads, "" if threads == 1 else "s",
                                                     geometric_mean(ratios), len(ratios),
                                                     max(ratios)))
    return "\n".join(lines)


def chart(results, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [r["model"] if len({x.get("threads", 1) for x in results}) == 1
             else "%s\n%d thr" % (r["model"], r.get("threads", 1)) for r in results]
    x = np.arange(len(names))
    width = 0.38
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(names) + 2), 4.4), dpi=100)
    series = [("median of rounds", "ratio_rounds", "#4c72b0"), ("min", "ratio_min", "#55a868")]
    for k, (label, key, color) in enumerate(series):
        values = [r[key] for r in results]
        bars = ax.bar(x + (k - 0.5) * width, values, width, label="ratio of the %ss" % label,
                      color=color)
        for bar, value in zip(bars, values):
            ax.annotate("%.1fx" % value, (bar.get_x() + bar.get_width() / 2, value), ha="center",
                        va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
    ax.axhline(1.0, color="#c44e52", linestyle="--", linewidth=1, label="parity")
    ax.set_yscale("log")
    ax.set_xticks(x, names)
    ax.set_ylabel("Prism time / onnxruntime time (log scale)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_ylim(bottom=min(0.5, min(r["ratio_min"] for r in results) / 1.5),
                top=max(max(r["ratio_rounds"], r["ratio_min"]) for r in results) * 2.5)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def machine_description():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d logical CPUs, %s, Python %s, onnxruntime %s, numpy %s" % (
        cpu, os.cpu_count(), platform.platform(), platform.python_version(), ort.__version__,
        np.__version__)


def method(args):
    if args.interleave:
        return ("Each model and thread count: one `prism_perf --on-request -w %d` process and one "
                "onnxruntime session (after %d warm-up runs), then %d rounds of %d runs each, "
                "the two runtimes alternating in turns of %d run%s (a pause of %.2f s after each "
                "turn at more than one thread, for idle workers' spinning to end)."
                % (args.warmup, args.warmup, args.rounds, args.runs, args.turn_runs,
                   "" if args.turn_runs == 1 else "s", args.turn_settle_s))
    return ("Each model and thread count: %d alternating rounds of `prism_perf -r %d -w %d` and %d "
            "onnxruntime runs (after %d warm-up runs)."
            % (args.rounds, args.runs, args.warmup, args.runs, args.warmup))


def markdown(results, args, command, started, load_before):
    lines = [
        "## Run of %s" % started,
        "",
        "Command (from the repository root):",
        "",
        "    " + command,
        "",
        "Machine: %s. Load average before the run: %s." % (machine_description(), load_before),
        method(args),
        "The same thread count for both, the same inputs (`-I` folder of input_K.pb); "
        "onnxruntime graph optimization level `%s`. Times are per run in milliseconds over all "
        "rounds; the ratio is Prism / onnxruntime (higher is slower): the headline is each "
        "round's ratio of the two runtimes' medians, the median over rounds (the pooled ratio "
        "of medians beside it moves with whichever of the machine's fast and slow phases the "
        "50%% point of all runs falls in), and the geometric means are of the headline. Foreign "
        "load is the mean "
        "number of cores busy with other processes during the model's measurement. Creation "
        "and memory (with --footprint): medians over fresh processes of each runtime's Python "
        "package (benchmarks/footprint_probe.py): session creation wall time, and the peak "
        "resident memory the session and its runs add over the process after imports."
        % args.ort_opt,
        "",
        table(results),
        "",
        "Per-round median ratios:",
        "",
    ]
    for r in results:
        for v in r.get("variants") or [{"label": None, "round_ratios": r["round_ratios"],
                                         "turn_ratio_median": r.get("turn_ratio_median")}]:
            turns = v.get("turn_ratio_median")
            lines.append("- %s, %d thread%s%s: %s%s" % (
                r["model"], r.get("threads", 1), "" if r.get("threads", 1) == 1 else "s",
                "" if v["label"] is None else ", %s / ORT" % v["label"],
                ", ".join("%.2f" % x for x in v["round_ratios"]),
                "" if turns is None else "; median of the turns' ratios %.2f" % turns))
    lines += ["", "prism_perf commands%s:" % ("" if args.interleave else " of the last round"), ""]
    for r in results:
        for v in r.get("variants") or [{"prism_command": r["prism_command"]}]:
            lines.append("    " + v["prism_command"])
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                        help="Prism build folder holding prism_perf (default: build)")
    parser.add_argument("--prism-perf", help="prism_perf binary (default: <build-dir>/prism_perf)")
    parser.add_argument("--models-dir", help="bench models (default: <build-dir>/bench-models, "
                        "generated there on demand by ../shared/bench/make_models.py)")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma-separated bench model names (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per model")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per round and runtime")
    parser.add_argument("--warmup", type=int, default=2, help="warm-up runs before timing")
    parser.add_argument("--seed", type=int, default=0, help="seed of the inputs")
    parser.add_argument("--settle-s", type=float,
                        help="pause after each onnxruntime round, so that its spinning idle "
                             "threads are asleep before prism_perf starts (default: 0.5)")
    parser.add_argument("--interleave", action=argparse.BooleanOptionalAction, default=True,
                        help="one prism_perf --on-request process per model and thread count, "
                             "its runs and onnxruntime's alternating in turns of --turn-runs "
                             "within each round, so that both see the same moments of a machine "
                             "whose speed drifts within seconds (default); --no-interleave: one "
                             "prism_perf -r RUNS process per round, then RUNS onnxruntime runs")
    parser.add_argument("--turn-runs", type=int,
                        help="runs of each runtime per turn with --interleave (default: 3)")
    parser.add_argument("--turn-settle-s", type=float,
                        help="pause after each turn with --interleave at more than one thread, "
                             "so that the idle workers' spinning ends first (default: 0.06)")
    parser.add_argument("--threads", default="1",
                        help="comma-separated intra-op thread counts of both runtimes (prism_perf "
                             "-x, onnxruntime's intra_op_num_threads), each measured (default: 1)")
    parser.add_argument("--footprint", action="store_true",
                        help="also compare session creation time and peak memory "
                             "(footprint_probe.py, fresh processes)")
    parser.add_argument("--footprint-repeats", type=int, default=3,
                        help="fresh processes per runtime for --footprint (median)")
    parser.add_argument("--ort-opt", choices=sorted(ORT_LEVELS), default="all",
                        help="onnxruntime graph optimization level (default: all, its default)")
    parser.add_argument("--prism-eps",
                        help="comma-separated execution-provider variants of Prism to time in the "
                             "same alternating run, each a '+'-joined list of prism_perf -e names "
                             "(the CPU EP is always last), e.g. cpu,dnnl: one row per model and "
                             "thread count with prism(cpu), prism(dnnl+cpu) and onnxruntime "
                             "medians and the ratios (default: one variant, prism_perf's default "
                             "providers, and the usual table)")
    parser.add_argument("--work-dir", help="inputs and results (default: <build-dir>/compare)")
    parser.add_argument("--markdown", help="append the results table to this Markdown file")
    parser.add_argument("--chart", help="write a PNG bar chart of the ratios here")
    args = parser.parse_args()
    # Each method's own settings: one given to the other method would be ignored, so refuse it.
    method_settings = {"settle_s": (False, 0.5), "turn_runs": (True, 3), "turn_settle_s": (True, 0.06)}
    for name, (with_turns, default) in method_settings.items():
        if getattr(args, name) is not None and with_turns != args.interleave:
            parser.error("--%s applies only %s" % (name.replace("_", "-"), "with --interleave (the default)"
                                                   if with_turns else "with --no-interleave"))
        if getattr(args, name) is None:
            setattr(args, name, default)
    for name in ("rounds", "runs", "footprint_repeats", "turn_runs"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1" % name.replace("_", "-"))
    try:
        args.thread_counts = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        parser.error("--threads takes comma-separated integers, got %r" % args.threads)
    if not args.thread_counts or min(args.thread_counts) < 1:
        parser.error("--threads needs counts of at least 1, got %r" % args.threads)
    args.prism_ep_variants = None
    if args.prism_eps is not None:
        try:
            args.prism_ep_variants = parse_prism_eps(args.prism_eps)
        except ValueError as e:
            parser.error("--prism-eps: %s" % e)
    args.prism_perf = args.prism_perf or os.path.join(args.build_dir, "prism_perf")
    if not os.path.exists(args.prism_perf):
        parser.error("prism_perf not found at %s (build it, or give --build-dir)" % args.prism_perf)
    models_dir = args.models_dir or os.path.join(args.build_dir, "bench-models")
    work_dir = args.work_dir or os.path.join(args.build_dir, "compare")
    names = [n for n in args.models.split(",") if n]
    ensure_models(models_dir, names)

    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    load_before = " ".join(open("/proc/loadavg").read().split()[:3])
    command = shlex.join([os.path.relpath(sys.executable, REPO) if sys.executable.startswith(REPO)
                          else sys.executable, os.path.relpath(os.path.abspath(__file__), REPO)]
                         + sys.argv[1:])
    results = []
    for name in names:
        for threads in args.thread_counts:
            print("%s, %d thread%s:" % (name, threads, "" if threads == 1 else "s"), flush=True)
            results.append(compare_model(name, args, models_dir, work_dir, threads))
    print(table(results))
    os.makedirs(work_dir, exist_ok=True)
    with open(os.path.join(work_dir, "results.json"), "w") as f:
        json.dump({"started": started, "command": command, "args": vars(args), "results": results},
                  f, indent=1)
    if args.chart:
        chart(results, args.chart, "Prism / onnxruntime median latency, %s thread(s) (%s)" % (
            args.threads, started))
        print("chart:", args.chart)
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write("\n" + markdown(results, args, command, started, load_before))
        print("appended to", args.markdown)


if __name__ == "__main__":
    main()
