"""prism_perf checked against itself, the ONNX files and the runtime's own profile, and the
profile's node times against clocks this test takes around each run.

Run by CTest (ctest -R perf_tool), or: PRISM_BUILD_DIR=build .venv/bin/python -m pytest tests/perf
"""
import json
import os
import re
import shutil
import subprocess
import time

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from bench_models import make_inputs
from perf_models import count_nodes
from run_timing import check_node_times, clock_runs, load_profile, node_events_by_run

SPLIT_EPS = ["-e", "test,cpu", "-i", "ops=Add,Relu"]


def run(prism_perf, *args, check=True, timeout=600):
    start = time.perf_counter()
    result = subprocess.run([prism_perf, *args], capture_output=True, text=True, timeout=timeout)
    result.wall_s = time.perf_counter() - start  # clocked here, outside the tool
    if check and result.returncode != 0:
        pytest.fail("prism_perf %s failed (%d):\n%s%s" % (" ".join(args), result.returncode,
                                                            result.stdout, result.stderr))
    return result


def run_json(prism_perf, tmp_path, *args):
    summary = tmp_path / "summary.json"
    result = run(prism_perf, *args, "--json", str(summary))
    with open(summary) as f:
        data = json.load(f)
    data["outside_wall_s"] = result.wall_s
    return data, result.stdout


# ---------------------------------------------------------------------------------------------
# Options


@pytest.mark.parametrize("args, message", [
    ([], "no model given"),
    (["-m", "MODEL", "--bogus"], "unknown option '--bogus'"),
    (["-m", "MODEL", "-r"], "option -r needs a value"),
    (["-m", "MODEL", "-r", "abc"], "option -r expects an integer >= 1, got 'abc'"),
    (["-m", "MODEL", "-r", "0"], "option -r expects an integer >= 1, got '0'"),
    (["-m", "MODEL", "-w", "-1"], "option -w expects an integer >= 0"),
    (["-m", "MODEL", "-t", "0"], "option -t expects a positive number of seconds"),
    (["-m", "MODEL", "-r", "5", "-t", "1"], "options -r and -t exclude each other"),
    (["-m", "MODEL", "-o", "3"], "option -o expects 0, 1, 2 or 99, got 3"),
    (["-m", "MODEL", "--on-request", "-r", "5"], "option --on-request excludes -r and -t"),
    (["-m", "MODEL", "--on-request", "-t", "1"], "option --on-request excludes -r and -t"),
    (["-m", "MODEL", "--on-request", "-c", "2"], "option --on-request runs one run at a time"),
    (["-m", "MODEL", "-c", "0"], "option -c expects an integer >= 1"),
    (["-m", "MODEL", "-f", "batch"], "option -f expects NAME:VALUE, got 'batch'"),
    (["-m", "MODEL", "-f", "batch:x"], "option -f expects an integer >= 0, got 'x'"),
    (["-m", "MODEL", "-i", "ops=Add"], "option -i was given but -e names no provider other than cpu"),
    (["-m", "MODEL", "-e", "test", "-i", "opsAdd"], "provider option 'opsAdd' must look like key=value"),
    (["-m", "MODEL", "-e", ","], "option -e needs at least one EP"),
    (["-m", "MODEL", "--top", "0"], "option --top expects an integer >= 1"),
    (["-m", "MODEL", "-p"], "option -p needs a value"),
    (["-m", "/nonexistent/model.onnx"], "/nonexistent/model.onnx"),
    (["-m", "MODEL", "-e", "cuda"], "CUDAExecutionProvider"),
    (["-m", "MODEL", "-e", "NoSuchExecutionProvider"], "NoSuchExecutionProvider"),
    (["-m", "MODEL", "-I", "/nonexistent_dir"], "option -I: '/nonexistent_dir' is not a folder"),
])
def test_bad_options_fail_with_a_clear_message(prism_perf, split_model, args, message):
    args = [split_model if a == "MODEL" else a for a in args]
    result = run(prism_perf, *args, check=False)
    assert result.returncode != 0, result.stdout
    assert "prism_perf: error:" in result.stderr
    assert message in result.stderr, result.stderr


def test_help_lists_every_option(prism_perf):
    result = run(prism_perf, "--help")
    for option in ["-m", "-e", "-i", "-x", "-y", "-o", "-w", "-r", "-t", "-S", "-I", "-f", "-c",
                   "-p", "--top", "--explain", "--dot", "--json"]:
        assert re.search(r"^\s+%s\b" % re.escape(option), result.stdout, re.M), option


def test_options_without_effect_say_so(prism_perf, split_model):
    result = run(prism_perf, "-m", split_model, "-r", "1", "-w", "0", "-x", "2", "-y", "2", "-o", "2")
    assert "note: -y (inter-op threads) is accepted but has no effect yet" in result.stdout
    assert "-x/-y" not in result.stdout  # intra-op threads take effect
    quiet = run(prism_perf, "-m", split_model, "-r", "1", "-w", "0", "-o", "0")
    assert "no effect" not in quiet.stdout


def test_optimization_level_takes_effect(prism_perf, bench_model, tmp_path):
    # bert_tiny computes reshape targets from Shape chains: level 1 folds them into constants.
    path = bench_model("bert_tiny")
    unoptimized, _ = run_json(prism_perf, tmp_path, "-m", path, "-o", "0", "-r", "1", "-w", "0")
    basic, _ = run_json(prism_perf, tmp_path, "-m", path, "-o", "1", "-r", "1", "-w", "0")
    nodes = lambda summary: sum(summary["partition"]["nodes_per_provider"].values())
    assert nodes(unoptimized) == count_nodes(onnx.load(path).graph)
    assert nodes(basic) < nodes(unoptimized)


# ---------------------------------------------------------------------------------------------
# Summary


def test_latency_percentiles_are_ordered(prism_perf, bench_model, tmp_path):
    summary, stdout = run_json(prism_perf, tmp_path, "-m", bench_model("mnist_cnn"), "-r", "25",
                               "-w", "1")
    latency = summary["latency_ms"]
    assert 0 < latency["min"] <= latency["median"] <= latency["p90"] <= latency["p95"] \
        <= latency["p99"] <= latency["max"]
    assert summary["runs"] == 25 and len(summary["samples_ms"]) == 25
    assert min(summary["samples_ms"]) == pytest.approx(latency["min"], rel=1e-5)
    assert max(summary["samples_ms"]) == pytest.approx(latency["max"], rel=1e-5)
    assert summary["throughput_runs_per_s"] > 0
    assert summary["session_creation_ms"] > 0 and summary["first_run_ms"] > 0
    assert summary["peak_rss_mib"] > 1
    # The session's CPU arena: after the first run, each timed run takes one block for the
    # memory pattern plus one buffer per graph output, and nothing from the system.
    cpu = summary["allocators"]["Cpu:0"]
    outputs = len(onnx.load(bench_model("mnist_cnn")).graph.output)
    assert cpu["arena"] is True
    assert 1 <= cpu["requests_per_run"] <= outputs + 1
    assert cpu["system_allocations_during_timed_runs"] == 0
    assert 0 < cpu["max_bytes_in_use"] <= cpu["total_reserved_bytes"]
    for line in ["Session creation:", "First run:", "Latency (ms): median", "Throughput:",
                 "Peak resident memory:", "Cpu:0 (arena): ", "copy nodes: 0",
                 "bytes copied per run: 0"]:
        assert line in stdout, line


def test_duration_mode_runs_for_the_time_given(prism_perf, split_model, tmp_path):
    summary, _ = run_json(prism_perf, tmp_path, "-m", split_model, "-t", "0.5", "-w", "0")
    assert summary["runs"] >= 1
    assert 0.5 <= summary["duration_s"] < 5


def test_runs_on_request_answer_each_count_read_from_stdin(prism_perf, split_model, tmp_path):
    # The driver's side of --on-request (benchmarks/compare.py): a count per line, an answer per
    # count as soon as its runs are done (asked for only after the previous answer came).
    summary_path = tmp_path / "summary.json"
    process = subprocess.Popen([prism_perf, "-m", split_model, "-w", "1", "--on-request", "--top",
                                "5", "--json", str(summary_path)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = iter(process.stdout.readline, "")
        assert next(line for line in lines if line.strip() == "ready")
        answered = []
        for count in (2, 1, 3):
            process.stdin.write("%d\n" % count)
            process.stdin.flush()
            words = process.stdout.readline().split()
            assert words[0] == "samples_ms" and len(words) == count + 1, words
            answered += [float(w) for w in words[1:]]
        process.stdin.close()
        rest = process.stdout.read()
        assert process.wait(timeout=60) == 0, process.stderr.read()
    finally:
        process.kill()
    with open(summary_path) as f:
        summary = json.load(f)
    assert summary["runs"] == 6
    assert summary["samples_ms"] == pytest.approx(answered, rel=1e-5)
    assert all(ms > 0 for ms in answered)
    # The profile counts the runs that happened (run_<i> tags), not the answers.
    assert summary["top"]["runs"] == 6
    assert "Latency (ms): median" in rest


@pytest.mark.parametrize("text, message", [
    ("0\n", "expected a run count >= 1 on stdin, got '0'"),
    ("2x\n", "expected a run count >= 1 on stdin, got '2x'"),
    ("", "stdin ended before any run was asked for"),
])
def test_runs_on_request_reject_what_is_not_a_count(prism_perf, split_model, text, message):
    result = subprocess.run([prism_perf, "-m", split_model, "-w", "0", "--on-request"],
                            input=text, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.parametrize("model", ["mnist_cnn", "bert_tiny"])
def test_nodes_per_ep_sum_to_the_nodes_of_the_file(prism_perf, bench_model, tmp_path, model):
    path = bench_model(model)
    summary, _ = run_json(prism_perf, tmp_path, "-m", path, "-o", "0", "-r", "1", "-w", "0")
    expected = count_nodes(onnx.load(path).graph)
    assert sum(summary["partition"]["nodes_per_provider"].values()) == expected
    assert summary["nodes"] == expected
    assert summary["partition"]["copy_nodes"] == 0


def test_split_model_partition_and_copied_bytes(prism_perf, split_model, tmp_path):
    summary, stdout = run_json(prism_perf, tmp_path, "-m", split_model, "-o", "0", "-r", "4", "-w",
                               "1", *SPLIT_EPS)
    partition = summary["partition"]
    assert partition["nodes_per_provider"] == {"TestExecutionProvider": 3,
                                               "CPUExecutionProvider": 2}
    assert sum(partition["nodes_per_provider"].values()) == count_nodes(onnx.load(split_model).graph)
    # x and c1 go to the device for add_bias; r comes back for scale; m goes over for
    # add_residual (x is already there); s comes back for sigmoid: 5 copies of 2x3 floats, of
    # which the constant c1 is placed once at session creation and not copied by any run.
    assert partition["copy_nodes"] == 5
    assert partition["constants_placed_once"] == 1
    assert partition["copies_per_run"] == 4
    assert partition["bytes_copied_per_run"] == 4 * 6 * 4
    # The device EP's memory appears among the session's allocators, counted, not an arena.
    device = summary["allocators"]["TestDevice:0"]
    assert device["arena"] is False and device["num_allocs"] >= 1
    assert "TestExecutionProvider: 3 nodes" in stdout
    assert summary["intra_op_threads"] >= 1 and "Intra-op threads: " in stdout
    assert summary["cpu_isa"] in ("AVX-512F", "AVX2+FMA", "baseline (x86-64 SSE2)")
    assert "CPU ISA: " + summary["cpu_isa"] in stdout
    assert "copies per run: 4.0, bytes copied per run: 96" in stdout


def test_inputs_bound_on_the_device_are_read_there_without_a_copy(prism_perf, split_model, tmp_path):
    # x lives on the test device from the start: add_bias and add_residual read it there, so of
    # the 4 per-run copies above only r, m and s remain.
    summary, stdout = run_json(prism_perf, tmp_path, "-m", split_model, "-o", "0", "-r", "4", "-w",
                               "1", "--inputs-on-device", *SPLIT_EPS)
    assert "Inputs (random, seed 0), bound in TestDevice:0 memory:" in stdout
    assert "copies per run: 3.0, bytes copied per run: 72" in stdout
    cpu_only = run(prism_perf, "-m", split_model, "-r", "1", "--inputs-on-device", check=False)
    assert cpu_only.returncode != 0
    assert "--inputs-on-device: none of the session's EPs" in cpu_only.stderr + cpu_only.stdout


def test_inputs_from_a_folder(prism_perf, split_model, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    x = np.array([[1, -2, 3], [-4, 5, 0.25]], np.float32)
    with open(folder / "input_0.pb", "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    summary, stdout = run_json(prism_perf, tmp_path, "-m", split_model, "-I", str(folder), "-r", "1",
                               "-w", "0")
    assert summary["input_source"] == str(folder)
    c1 = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]], np.float32)
    expected = 1 / (1 + np.exp(-(np.maximum(x + c1, 0) * 2 + x)))
    printed = re.search(r"^  y: .*?:((?: \S+)+)", stdout, re.M).group(1).split()
    np.testing.assert_allclose([float(v) for v in printed if v != "..."], expected.flatten()[:5],
                               rtol=1e-5)


def test_input_folder_errors_name_the_problem(prism_perf, split_model, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run(prism_perf, "-m", split_model, "-I", str(empty), check=False)
    assert result.returncode != 0 and "no input_K.pb for the model's input(s) 'x'" in result.stderr
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    with open(wrong / "input_0.pb", "wb") as f:
        f.write(numpy_helper.from_array(np.zeros((3, 3), np.float32), "x").SerializeToString())
    result = run(prism_perf, "-m", split_model, "-I", str(wrong), check=False)
    assert result.returncode != 0 and "input 'x' expects shape" in result.stderr


# ---------------------------------------------------------------------------------------------
# The profile


def test_profile_has_one_node_event_per_node_per_run(prism_perf, bench_model, tmp_path):
    path = bench_model("bert_tiny")
    graph = onnx.load(path).graph
    assert count_nodes(graph) >= 50
    trace = tmp_path / "trace.json"
    # -o 0: every node of the file runs (the optimizer would fold bert's shape computations).
    summary, stdout = run_json(prism_perf, tmp_path, "-m", path, "-o", "0", "-r", "7", "-w", "2",
                               "-p", str(trace))
    assert summary["profile"] == str(trace) and f"Profile: {trace}" in stdout
    events = load_profile(trace)
    names = {e["name"] for e in events if e["cat"] == "Session"}
    assert {"model_loading_uri", "session_initialization", "graph_partitioning",
            "graph_planning", "model_run"} <= names

    # The first run, the -w warm-ups and the -r timed runs each have a model_run, told apart by
    # their run_tag.
    runs, grouped = node_events_by_run(events)
    tags = [r["args"]["run_tag"] for r in runs]
    assert tags == ["first_run", "warmup_0", "warmup_1"] + ["run_%d" % i for i in range(7)]
    expected = sorted(n.name + "_kernel_time" for n in graph.node)
    ops = {n.name + "_kernel_time": n.op_type for n in graph.node}
    for i, run_events in grouped.items():
        assert sorted(e["name"] for e in run_events) == expected, tags[i]
        for event in run_events:
            assert event["args"]["op_name"] == ops[event["name"]]
            assert event["args"]["provider"] == "CPUExecutionProvider"
            assert event["ts"] + event["dur"] <= runs[i]["ts"] + runs[i]["dur"]
    assert len([e for e in events if e["cat"] == "Node"]) == len(graph.node) * 10

    # Shapes as onnxruntime writes them: the embedding Gather reads int64 ids [1,128].
    shapes = [e["args"]["input_type_shape"] for e in grouped[0]]
    assert any({"int64": [1, 128]} in s for s in shapes)

    # The tool's own clock (samples_ms, in run order with -c 1) holds each timed run's
    # model_run, which holds its nodes; and the whole process, clocked here, holds them all.
    # How close the node times come to a clock outside the runtime is checked per run in
    # test_node_times_fit_a_clock_outside_the_runtime.
    timed = [i for i, tag in enumerate(tags) if tag.startswith("run_")]
    assert len(timed) == len(summary["samples_ms"]) == 7
    for i, wall_ms in zip(timed, summary["samples_ms"]):
        node_us = sum(e["dur"] for e in grouped[i])
        assert node_us <= runs[i]["dur"] <= 1000 * wall_ms + 1, (node_us, runs[i]["dur"], wall_ms)
    assert sum(r["dur"] for r in runs) <= 1e6 * summary["outside_wall_s"]
    assert sum(summary["samples_ms"]) <= 1e3 * summary["outside_wall_s"]


def test_node_times_fit_a_clock_outside_the_runtime(prismrt, bench_model, tmp_path):
    # The profiler prism_perf writes, through the Python API: every run clocked by this test
    # around session.run (run_timing.py has the rule and why it holds on a loaded machine).
    options = prismrt.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(tmp_path / "profile")
    # The graph the session runs (fusions change the node count): written out to count its nodes.
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    path = bench_model("gemm_chain")
    session = prismrt.InferenceSession(path, options)
    with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
        feeds = make_inputs(json.load(f), np.random.default_rng(0))
    session.run(None, feeds)  # the first run: allocations settle
    clocks = clock_runs(session, feeds, 20)
    runs, grouped = node_events_by_run(load_profile(session.end_profiling()))
    assert len(runs) == 21
    nodes = count_nodes(onnx.load(str(tmp_path / "optimized.onnx")).graph)
    assert all(len(grouped[i]) == nodes for i in grouped), (nodes, [len(g) for g in grouped.values()])
    node_us = [sum(e["dur"] for e in grouped[i]) for i in range(1, 21)]
    check_node_times(node_us, clocks)
    for i, (node, (wall_ns, _)) in enumerate(zip(node_us, clocks), start=1):
        assert node <= runs[i]["dur"] <= wall_ns / 1000 + 1, (i, node, runs[i]["dur"], wall_ns)
    # The same profile with every node time doubled is caught.
    with pytest.raises(AssertionError, match="exceeds"):
        check_node_times([2 * us for us in node_us], clocks)
    print("node time / CPU time per run:",
          ["%.3f" % (1000 * us / cpu) for us, (_, cpu) in zip(node_us, clocks)])


def test_check_node_times_rejects_profiles_off_the_clock():
    # A fake profile of two 10 ms runs, the second one preempted: 4 ms of it on another process.
    clocks = [(10_000_000, 9_900_000), (10_000_000, 6_000_000)]
    check_node_times([9_600, 9_500], clocks)
    check_node_times([10_001, 5_400], clocks)  # 1 us of rounding; 90% of 6 ms of CPU time
    with pytest.raises(AssertionError, match="run 0: node time 19200 us exceeds the 10000 us"):
        check_node_times([19_200, 9_500], clocks)  # node times doubled
    with pytest.raises(AssertionError, match="run 1: node time 4750 us is below 90% of the "
                                             "6000 us of CPU time"):
        check_node_times([9_600, 4_750], clocks)  # halved, in one run: every run is checked
    with pytest.raises(AssertionError):
        check_node_times([9_600], clocks)  # a run missing from the profile


def test_profile_of_concurrent_runs(prism_perf, split_model, tmp_path):
    trace = tmp_path / "trace.json"
    run(prism_perf, "-m", split_model, "-r", "12", "-w", "0", "-c", "3", "-p", str(trace),
        *SPLIT_EPS)
    events = load_profile(trace)
    runs, grouped = node_events_by_run(events)
    assert sorted(r["args"]["run_tag"] for r in runs) == sorted(
        ["first_run"] + ["run_%d" % i for i in range(12)])
    for run_events in grouped.values():
        assert sorted(e["name"] for e in run_events) == sorted(
            n + "_kernel_time" for n in ["add_bias", "relu", "scale", "add_residual", "sigmoid"])
    copies = [e for e in events if e["cat"] == "Copy"]
    assert len(copies) == 4 * 13  # the constant c1 is placed once, not copied per run
    assert all(e["args"]["bytes"] == 24 for e in copies)
    providers = {e["name"]: e["args"]["provider"] for e in events if e["cat"] == "Node"}
    assert providers["relu_kernel_time"] == "TestExecutionProvider"
    assert providers["sigmoid_kernel_time"] == "CPUExecutionProvider"


def test_profile_counts_the_nodes_a_run_executes(prism_perf, if_model, tmp_path):
    # Control flow: the file has 3 nodes (If and one per branch); a run executes the If and the
    # branch it takes, so it has 2 Node events, the branch's node named with its graph.
    trace = tmp_path / "trace.json"
    run(prism_perf, "-m", if_model, "-r", "2", "-w", "0", "-p", str(trace))
    runs, grouped = node_events_by_run(load_profile(trace))
    assert count_nodes(onnx.load(if_model).graph) == 3
    for run_events in grouped.values():
        assert len(run_events) == 2
        branch = [e for e in run_events if e["args"]["op_name"] != "If"]
        assert branch[0]["args"]["graph"].startswith("main/branch:")


def test_top_lists_the_slowest_op_types_and_nodes(prism_perf, bench_model, tmp_path):
    path = bench_model("mnist_cnn")
    # Basic optimizations only, so that the nodes timed are the model's own (the extended level
    # fuses Conv and Relu into FusedConv).
    summary, stdout = run_json(prism_perf, tmp_path, "-m", path, "-r", "5", "-w", "1", "--top",
                               "3", "-o", "1")
    top = summary["top"]
    assert top["runs"] == 5
    assert len(top["op_types"]) == 3 and len(top["nodes"]) == 3
    totals = [entry["total_ms"] for entry in top["op_types"]]
    assert totals == sorted(totals, reverse=True)
    # Every op type of mnist_cnn runs once per node per run.
    histogram = {}
    for node in onnx.load(path).graph.node:
        histogram[node.op_type] = histogram.get(node.op_type, 0) + 1
    for entry in top["op_types"]:
        assert entry["calls"] == 5 * histogram[entry["name"]]
    assert "Top op types over 5 timed runs" in stdout and "Top nodes:" in stdout
    assert top["op_types"][0]["name"] in stdout


# ---------------------------------------------------------------------------------------------
# The partition explorer


def test_explain_names_every_node_and_copy_without_running(prism_perf, split_model):
    result = run(prism_perf, "-m", split_model, "--explain", *SPLIT_EPS)
    out = result.stdout
    assert "Latency" not in out and "First run" not in out
    assert "Providers in priority order: TestExecutionProvider, CPUExecutionProvider" in out
    placements = {"add_bias": "TestExecutionProvider", "relu": "TestExecutionProvider",
                  "scale": "CPUExecutionProvider", "add_residual": "TestExecutionProvider",
                  "sigmoid": "CPUExecutionProvider"}
    for node in onnx.load(split_model).graph.node:
        assert re.search(r"^\s+%s\s+%s\s+17\s+%s$" % (node.name, node.op_type, placements[node.name]),
                         out, re.M), node.name
    assert "TestExecutionProvider declined: op Mul is not in this EP's 'ops' option" in out
    assert "TestExecutionProvider declined: op Sigmoid is not in this EP's 'ops' option" in out
    assert "Copies between memory spaces (5):" in out
    for value, direction in [("x", "Cpu:0 -> TestDevice:0"), ("c1", "Cpu:0 -> TestDevice:0"),
                             ("r", "TestDevice:0 -> Cpu:0"), ("m", "Cpu:0 -> TestDevice:0"),
                             ("s", "TestDevice:0 -> Cpu:0")]:
        assert "'%s' %s" % (value, direction) in out, value


def test_dot_renders_with_graphviz(prism_perf, split_model, tmp_path):
    dot_file = tmp_path / "partition.dot"
    run(prism_perf, "-m", split_model, "--explain", "--dot", str(dot_file), *SPLIT_EPS)
    text = dot_file.read_text()
    for name in ["add_bias", "relu", "scale", "add_residual", "sigmoid", "copy x", "copy s"]:
        assert name in text
    if shutil.which("dot") is None:
        pytest.skip("Graphviz dot is not installed")
    png = tmp_path / "partition.png"
    subprocess.run(["dot", "-Tpng", str(dot_file), "-o", str(png)], check=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_intra_op_threads_are_reported(prism_perf, split_model, tmp_path):
    one, out_one = run_json(prism_perf, tmp_path, "-m", split_model, "-x", "1", "-r", "1", "-w", "0")
    three, out_three = run_json(prism_perf, tmp_path, "-m", split_model, "-x", "3", "-r", "1", "-w", "0")
    assert one["intra_op_threads"] == 1 and "Intra-op threads: 1" in out_one
    assert three["intra_op_threads"] == 3 and "Intra-op threads: 3" in out_three


def matmul_model(path, rows, cols, seed=0):
    """Y = MatMul(X, W): X [1, rows], W a float initializer [rows, cols] in raw_data."""
    from onnx import TensorProto, helper
    weights = np.random.RandomState(seed).standard_normal((rows, cols)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])], "weights",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, rows])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, cols])],
        [numpy_helper.from_array(weights, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return weights.nbytes / 2**20


def test_weights_are_held_once(prism_perf, tmp_path):
    # Loading reads the file in blocks and the initializers take the parsed bytes over: the peak
    # resident memory is the weights once plus the process. Reading the whole file, parsing it
    # and copying each initializer held them three times at the peak. (40 MiB: protobuf reserves
    # a bytes field of up to 50 MB at once and grows larger ones, which doubles them briefly.)
    # Prepacking is off here: packing holds a weight and its packed form together for a moment
    # (the test below covers it).
    matmul_model(tmp_path / "small.onnx", 16, 16)
    big_mib = matmul_model(tmp_path / "big.onnx", 2560, 4096)
    assert big_mib == pytest.approx(40, rel=0.01)
    no_prepack = ["-C", "session.disable_prepacking|1"]
    base, _ = run_json(prism_perf, tmp_path, "-m", str(tmp_path / "small.onnx"), "-r", "2",
                       "-w", "0", "-x", "1", *no_prepack)
    big, _ = run_json(prism_perf, tmp_path, "-m", str(tmp_path / "big.onnx"), "-r", "2", "-w",
                      "0", "-x", "1", *no_prepack)
    assert big["prepacking"]["packed_inputs"] == 0
    # At least most of the weights (the run really held them; the small model's process may
    # peak a little higher than the big one's baseline), at most 1.3 times them.
    extra = big["peak_rss_mib"] - base["peak_rss_mib"]
    assert 0.9 * big_mib <= extra <= 1.3 * big_mib, (base["peak_rss_mib"], big["peak_rss_mib"])


def test_prepacked_weights_are_held_once(prism_perf, tmp_path):
    # MatMul packs its constant B at session creation and the model's original is released:
    # after the runs the process holds the weights once (the packed form), and the report says
    # so. At the peak a weight and its packed form coexist while it is packed; beyond that
    # moment nothing holds both.
    matmul_model(tmp_path / "small.onnx", 16, 16)
    big_mib = matmul_model(tmp_path / "big.onnx", 2560, 4096)
    base, _ = run_json(prism_perf, tmp_path, "-m", str(tmp_path / "small.onnx"), "-r", "2",
                       "-w", "0", "-x", "1")
    big, out = run_json(prism_perf, tmp_path, "-m", str(tmp_path / "big.onnx"), "-r", "2", "-w",
                        "0", "-x", "1")
    packing = big["prepacking"]
    assert packing["packed_inputs"] == 1 and packing["packed_weights"] == 1
    assert packing["originals_released"] == 1
    assert packing["released_bytes"] == 2560 * 4096 * 4
    assert packing["packed_bytes"] == 2560 * 4096 * 4  # 4096 columns: whole 16-wide panels
    assert "Prepacked weights: 1 kernel inputs, 1 packed forms (40.0 MiB), 1 originals released" \
        in out
    extra = big["rss_after_runs_mib"] - base["rss_after_runs_mib"]
    assert 0.9 * big_mib <= extra <= 1.3 * big_mib, (base["rss_after_runs_mib"],
                                                     big["rss_after_runs_mib"])
    assert big["peak_rss_mib"] - base["peak_rss_mib"] <= 2.3 * big_mib