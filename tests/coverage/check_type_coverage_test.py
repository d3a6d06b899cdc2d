"""Self-test of check_type_coverage.py: runs it on the planted cases (planted_cases.cc) and checks
which of them count as evidence. Each planted case passes, but only a kernel that computed in a
completed run whose outputs were then matched against an oracle may count; a session that was
only built, outputs never compared, a run expected to fail, a mismatch the test expects, or an If
branch not taken must not. Cast combinations are pairs (T1, T2). Two planted ONNX node tests check
the same through the conformance runner: an If branch not taken, and a test that fails.

    PRISM_BUILD_DIR=build .venv/bin/python -m pytest -q tests/coverage/check_type_coverage_test.py

PRISM_COVERAGE_SCRIPT and PRISM_COVERAGE_EXTRA_ARGS run another version of the script (to show
that an older mechanism fails these checks).
"""
import json
import os
import shlex
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OPS = "Sigmoid,Tanh,Reshape,Exp,Relu,Erf,Sqrt,If,Cast"


def build_file(name):
    build = os.environ.get("PRISM_BUILD_DIR", os.path.join(REPO, "build"))
    path = os.path.join(build, name)
    if not os.path.exists(path):
        pytest.fail("%s is missing: build prism_coverage_planted_cases, prism_registry_dump and "
                    "prism_onnx_test" % path)
    return path


def check_rows(work, shared, extra):
    """Runs the check on the planted unit cases (and the node tests under shared); its rows."""
    script = os.environ.get("PRISM_COVERAGE_SCRIPT",
                            os.path.join(HERE, "check_type_coverage.py"))
    out = work / "rows.json"
    cmd = [sys.executable, script, "--dump", build_file("prism_registry_dump"),
           "--unit-tests", build_file("prism_coverage_planted_cases"), "--ops", OPS,
           "--shared", str(shared), "--json", str(out)] + extra
    cmd += shlex.split(os.environ.get("PRISM_COVERAGE_EXTRA_ARGS", ""))
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert out.exists(), "the check wrote no rows (exit %d):\n%s" % (run.returncode, run.stdout)
    with open(out) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    work = tmp_path_factory.mktemp("coverage")
    no_shared = work / "no-shared-data"  # no conformance evidence: only the planted cases count
    no_shared.mkdir()
    return check_rows(work, no_shared, [])


def write_node_test(node_dir, name, model, inputs, outputs):
    """An ONNX node test folder: model.onnx and test_data_set_0 with the given arrays."""
    test = node_dir / name
    data = test / "test_data_set_0"
    data.mkdir(parents=True)
    onnx.save(model, str(test / "model.onnx"))
    for prefix, arrays in (("input", inputs), ("output", outputs)):
        for i, array in enumerate(arrays):
            (data / ("%s_%d.pb" % (prefix, i))).write_bytes(
                numpy_helper.from_array(array).SerializeToString())


@pytest.fixture(scope="module")
def conformance_rows(tmp_path_factory):
    """Planted node tests: an If whose else branch (Sqrt-13 float) is not taken, and a Tanh-13
    double whose expected output is wrong (the test fails)."""
    work = tmp_path_factory.mktemp("conformance")
    node_dir = work / "shared" / "onnx-tests" / "node"

    def branch(name, op):  # op(a), a read from the outer scope
        return helper.make_graph(
            [helper.make_node(op, ["a"], [name + "_y"])], name, [],
            [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, [2])])

    if_graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=branch("then", "Exp"),
                          else_branch=branch("else", "Sqrt"))],
        "planted_if",
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(if_graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    # exp(0) = 1, exp(1) = 2.7182817
    write_node_test(node_dir, "test_planted_if_then", model,
                    [np.array(True), np.array([0, 1], np.float32)],
                    [np.array([1, 2.7182817], np.float32)])
    tanh_graph = helper.make_graph(
        [helper.make_node("Tanh", ["x"], ["y"])], "planted_tanh",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1])])
    model = helper.make_model(tanh_graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    write_node_test(node_dir, "test_planted_tanh_wrong", model, [np.array([0.0])],
                    [np.array([0.5])])  # tanh(0) is 0
    extra = ["--conformance-runner", build_file("prism_onnx_test"), "--conformance-suites", "node",
             "--conformance-ops", "", "--expected-failures", ""]
    return check_rows(work, work / "shared", extra)


def exercising_tests(rows, op, opset, constraint, type_str):
    """The tests (unit and conformance) that exercise (op at opset, constraint, type)."""
    found = [r for r in rows if r["op"] == op and r["since"] <= opset <= r["end"]
             and r["constraint"] == constraint and r["type"] == type_str]
    assert len(found) == 1, "no single row for %s opset %d %s=%s" % (op, opset, constraint,
                                                                     type_str)
    return found[0]["unit"] + found[0]["conformance"]


def case(name):
    return "PlantedCoverage." + name


def test_a_session_built_but_never_run_is_not_evidence(rows):
    assert case("BuildsSessionButNeverRuns") not in exercising_tests(rows, "Sigmoid", 13, "T",
                                                             "tensor(double)")


def test_outputs_never_compared_are_not_evidence(rows):
    assert case("ComputesButNeverCompares") not in exercising_tests(rows, "Tanh", 13, "T",
                                                            "tensor(double)")


def test_a_run_expected_to_fail_is_not_evidence(rows):
    assert case("ExpectFailureOnly") not in exercising_tests(rows, "Reshape", 21, "T",
                                                             "tensor(int16)")


def test_a_failed_run_is_not_evidence_even_when_a_later_comparison_matches(rows):
    assert case("RunFailsAfterAKernelComputed") not in exercising_tests(rows, "Exp", 13, "T",
                                                                "tensor(double)")
    assert case("RunFailsAfterAKernelComputed") in exercising_tests(rows, "Relu", 14, "T",
                                                            "tensor(float)")


def test_an_expected_mismatch_is_not_evidence(rows):
    assert case("MismatchDetectedButTestPasses") not in exercising_tests(rows, "Erf", 13, "T",
                                                                 "tensor(double)")


def test_an_if_branch_not_taken_is_not_evidence(rows):
    assert case("IfBranchNotTaken") in exercising_tests(rows, "If", 13, "V", "tensor(float)")
    assert case("IfBranchNotTaken") in exercising_tests(rows, "Exp", 13, "T", "tensor(float)")
    assert case("IfBranchNotTaken") not in exercising_tests(rows, "Sqrt", 13, "T", "tensor(float)")


def test_computed_and_compared_is_evidence(rows):
    assert case("ComputesAndCompares") in exercising_tests(rows, "Sigmoid", 13, "T",
                                                           "tensor(float)")


def test_cast_counts_pairs_not_constraints(rows):
    assert case("CastTwoPairs") in exercising_tests(rows, "Cast", 19, "T1,T2",
                                            "tensor(int32),tensor(float16)")
    assert case("CastTwoPairs") in exercising_tests(rows, "Cast", 19, "T1,T2",
                                            "tensor(int8),tensor(double)")
    assert case("CastTwoPairs") not in exercising_tests(rows, "Cast", 19, "T1,T2",
                                                "tensor(int32),tensor(double)")
    assert case("CastTwoPairs") not in exercising_tests(rows, "Cast", 19, "T1,T2",
                                                "tensor(int8),tensor(float16)")


def test_conformance_counts_only_the_if_branch_taken(conformance_rows):
    assert "node/test_planted_if_then" in exercising_tests(conformance_rows, "If", 13, "V",
                                                           "tensor(float)")
    assert "node/test_planted_if_then" in exercising_tests(conformance_rows, "Exp", 13, "T",
                                                           "tensor(float)")
    assert "node/test_planted_if_then" not in exercising_tests(conformance_rows, "Sqrt", 13, "T",
                                                               "tensor(float)")


def test_a_failing_conformance_test_is_not_evidence(conformance_rows):
    assert "node/test_planted_tanh_wrong" not in exercising_tests(conformance_rows, "Tanh", 13, "T",
                                                                  "tensor(double)")
