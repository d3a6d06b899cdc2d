"""Bench models: Prism's outputs against onnxruntime's, within rtol 1e-3, atol 1e-4.

    .venv/bin/python -m pytest tests/models/bench_models_test.py --prism-build-dir build \
        [--models-suite ci|full]

See bench_models.py for how the test folders are made and README.md for the cases.
"""
import os

import pytest

import bench_models

# Cases are parametrized from the suite chosen on the command line (conftest.py).


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        suite = metafunc.config.getoption("--models-suite")
        cases = bench_models.SUITES[suite]
        metafunc.parametrize("case", cases, ids=[c.name for c in cases])


@pytest.fixture(scope="session")
def build_dir(request):
    path = request.config.getoption("--prism-build-dir") or os.path.join(bench_models.REPO, "build")
    return os.path.abspath(path)


def test_model_matches_onnxruntime(case, build_dir):
    test_dir = bench_models.prepare_case(case, build_dir)
    result = bench_models.run_prism(test_dir, build_dir)
    print(bench_models.format_row(case, result))
    assert result.ok, result.runner_output + "\n" + result.check_output
    # The runner must have run and passed this very folder (not skipped it).
    assert "PASSED" in result.runner_output, result.runner_output
    assert result.check and result.check["ok"], result.check_output
    if case.batches:
        # Every batch size ran on the one session, and the outputs followed the batch dim.
        shapes = [s["outputs"][0]["shape"] for s in result.check["sets"]]
        assert len(result.check["sets"]) == len(case.batches) >= 2, shapes
        assert len(set(shapes)) == len(set(case.batches)), shapes
