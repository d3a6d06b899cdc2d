"""benchmarks/compare.py driven end to end on a small bench model: both runtimes' runs counted,
the turns of --interleave alternating, and the same table without it. A check of the driver,
not a measurement (a few runs of mnist_cnn).
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, build_dir


def run_compare(bench_model, tmp_path, *args):
    bench_model("mnist_cnn")  # made in <build>/bench-models when missing
    work = tmp_path / "work"
    markdown = tmp_path / "table.md"
    command = [sys.executable, os.path.join(REPO, "benchmarks", "compare.py"), "--build-dir",
               build_dir(), "--models", "mnist_cnn", "--work-dir", str(work), "--markdown",
               str(markdown), *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    with open(work / "results.json") as f:
        return json.load(f)["results"], result.stdout, markdown.read_text()


@pytest.mark.parametrize("threads", [1, 2])
def test_interleaved_rounds_time_every_run_of_both_runtimes(bench_model, tmp_path, threads):
    results, stdout, table = run_compare(bench_model, tmp_path, "--threads", str(threads),
                                         "--rounds", "3", "--runs", "5", "--turn-runs", "2",
                                         "--warmup", "1")
    (row,) = results
    assert row["threads"] == threads
    assert row["prism_ms"]["count"] == 15 and row["ort_ms"]["count"] == 15
    assert len(row["round_ratios"]) == 3 and all(r > 0 for r in row["round_ratios"])
    assert row["ratio_rounds"] == pytest.approx(sorted(row["round_ratios"])[1])
    assert row["ratio_median"] == pytest.approx(row["prism_ms"]["median"] / row["ort_ms"]["median"])
    assert "**%.2fx**" % row["ratio_rounds"] in table
    assert row["turn_ratio_median"] > 0
    assert row["outputs_agree"] is True
    assert "--on-request" in row["prism_command"] and " -r " not in row["prism_command"]
    # prism_perf's own summary: the runs it was asked for, nothing more.
    summary_path = row["prism_command"].split("--json ")[1].split()[0]
    with open(summary_path) as f:
        assert json.load(f)["runs"] == 15
    assert stdout.count("(runs alternating in turns of 2)") == 3
    assert "alternating in turns of 2 runs" in table and "median of the turns' ratios" in table


def test_without_interleave_each_round_is_one_prism_perf_process(bench_model, tmp_path):
    results, stdout, table = run_compare(bench_model, tmp_path, "--no-interleave", "--rounds",
                                         "2", "--runs", "3", "--warmup", "1", "--settle-s", "0")
    (row,) = results
    assert row["prism_ms"]["count"] == 6 and row["ort_ms"]["count"] == 6
    assert len(row["round_ratios"]) == 2
    assert row["turn_ratio_median"] is None
    assert row["outputs_agree"] is True
    assert row["prism_command"].endswith(" -r 3") and "--on-request" not in row["prism_command"]
    assert "alternating rounds of `prism_perf -r 3 -w 1`" in table


@pytest.mark.parametrize("args, message", [
    (["--settle-s", "0.1"], "--settle-s applies only with --no-interleave"),
    (["--no-interleave", "--turn-runs", "2"], "--turn-runs applies only with --interleave"),
    (["--no-interleave", "--turn-settle-s", "0"], "--turn-settle-s applies only with --interleave"),
])
def test_a_setting_of_the_other_method_is_refused(args, message):
    # It would be ignored: each method reads only its own settings.
    command = [sys.executable, os.path.join(REPO, "benchmarks", "compare.py"), "--build-dir",
               build_dir(), "--models", "mnist_cnn", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert message in result.stderr
