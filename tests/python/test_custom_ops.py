"""SessionOptions.register_custom_ops_library: the example custom op library of
examples/custom_op/ (built into the build folder as custom-op-example/) loaded by path, its ops
run against numpy and listed in the partition report, and the errors for a missing file, a file
that is no library and a library without RegisterCustomOps."""
import os
import sys

import numpy as np
import pytest

import prismrt
from prismrt.capi.onnxruntime_pybind11_state import InvalidArgument, NoSuchFile

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "examples", "custom_op"))
import make_model  # noqa: E402  (the example's own model script)


def build_dir():
    return os.environ.get("PRISM_BUILD_DIR") or os.path.join(REPO, "build")


@pytest.fixture(scope="module")
def library():
    path = os.path.join(build_dir(), "custom-op-example", "libprism_example_custom_ops.so")
    if not os.path.isfile(path):
        pytest.fail("%s is missing: build the prism_example_custom_ops target (or set "
                    "PRISM_BUILD_DIR to the build folder)" % path)
    return path


@pytest.fixture(scope="module")
def model_bytes():
    return make_model.make_model(False).SerializeToString()


def test_library_ops_run_and_are_reported(library, model_bytes):
    options = prismrt.SessionOptions()
    options.intra_op_num_threads = 2
    options.register_custom_ops_library(library)
    session = prismrt.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    (y,) = session.run(None, {"A": a, "B": b})
    # scale: A + 0.5 B; copy: A (B omitted); sum: both plus B.
    np.testing.assert_allclose(y, (a + np.float32(0.5) * b) + a + b, rtol=1e-6, atol=1e-6)
    report = session.get_partition_report()
    for line in ("scale (AddScaled, opset 1, custom op of domain 'prism.example') -> "
                 "CPUExecutionProvider",
                 "copy (AddScaled, opset 1, custom op of domain 'prism.example') -> "
                 "CPUExecutionProvider",
                 "sum (SumAll, opset 1, custom op of domain 'prism.example') -> "
                 "CPUExecutionProvider"):
        assert line in report, report


def test_one_options_object_serves_several_sessions(library, model_bytes):
    options = prismrt.SessionOptions()
    options.register_custom_ops_library(library)
    first = prismrt.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
    second = prismrt.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
    del options  # the sessions keep the library loaded
    a = np.ones((2, 3), np.float32)
    b = np.full((2, 3), 2, np.float32)
    for session in (first, second):
        np.testing.assert_array_equal(session.run(None, {"A": a, "B": b})[0],
                                      np.full((2, 3), 5, np.float32))


def test_without_the_library_the_domain_is_unknown(model_bytes):
    with pytest.raises(Exception, match="register_custom_ops_library"):
        prismrt.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])


def test_missing_file_is_a_clear_error(tmp_path):
    options = prismrt.SessionOptions()
    missing = str(tmp_path / "libnothing.so")
    with pytest.raises(NoSuchFile, match="custom op library '.*libnothing.so' does not exist"):
        options.register_custom_ops_library(missing)


def test_file_that_is_no_library_is_a_clear_error(tmp_path):
    options = prismrt.SessionOptions()
    text = tmp_path / "notes.so"
    text.write_text("not a shared library")
    with pytest.raises(InvalidArgument, match="cannot load custom op library"):
        options.register_custom_ops_library(str(text))


def test_library_without_register_custom_ops_is_a_clear_error():
    # libprism_core.so is a shared library, but exports no RegisterCustomOps.
    core = os.path.join(os.path.dirname(prismrt.__file__), "_lib", "libprism_core.so")
    options = prismrt.SessionOptions()
    with pytest.raises(InvalidArgument, match="does not export RegisterCustomOps"):
        options.register_custom_ops_library(core)
