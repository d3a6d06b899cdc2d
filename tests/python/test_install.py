"""The installed package works from any folder with no environment variables, and finds its
libraries and plugin EPs inside itself."""
import os
import subprocess
import sys

import prismrt

from conftest import add_relu_model

# Variables that could point Prism at a build folder instead of the installed copy.
_STRIPPED = ("PRISMRT_LIBRARY_DIR", "PRISM_PROVIDER_PATH", "PRISM_BUILD_DIR", "LD_LIBRARY_PATH",
             "LD_PRELOAD", "PYTHONPATH")


def clean_env():
    return {k: v for k, v in os.environ.items() if k not in _STRIPPED}


def run_python(code, cwd):
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=clean_env(),
                          capture_output=True, text=True, timeout=300)


def test_package_carries_its_libraries():
    lib_dir = os.path.join(os.path.dirname(prismrt.__file__), "_lib")
    names = set(os.listdir(lib_dir))
    assert {"libprism.so", "libprism_core.so", "libprism_provider_test.so"} <= names
    assert "site-packages" in prismrt.__file__, prismrt.__file__


def test_import_from_another_directory(tmp_path):
    model = tmp_path / "add_relu.onnx"
    model.write_bytes(add_relu_model().SerializeToString())
    code = (
        "import numpy as np, prismrt as ort, os\n"
        "print(ort.__file__)\n"
        "s = ort.InferenceSession('add_relu.onnx', providers=[('TestExecutionProvider', "
        "{'ops': 'Add,Relu'}), 'CPUExecutionProvider'])\n"
        "assert s.get_providers() == ['TestExecutionProvider', 'CPUExecutionProvider'], "
        "s.get_providers()\n"
        "x = np.ones((1, 4), np.float32)\n"
        "z, _ = s.run(None, {'a': x, 'b': x, 'c': x})\n"
        "assert (z == 2).all(), z\n"
        "print('ok', ort.__version__)\n")
    result = run_python(code, cwd=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok " in result.stdout
    assert "site-packages" in result.stdout


def test_plain_import_from_tmp():
    result = run_python("import prismrt; print(prismrt.get_available_providers())", cwd="/tmp")
    assert result.returncode == 0, result.stderr
    assert "CPUExecutionProvider" in result.stdout


def test_every_prism_library_comes_from_the_package(tmp_path):
    # The loader's own log: no libprism* may be opened from a build folder, whatever the
    # libraries' RUNPATH says.
    model = tmp_path / "add_relu.onnx"
    model.write_bytes(add_relu_model().SerializeToString())
    code = ("import prismrt as ort\n"
            "s = ort.InferenceSession('add_relu.onnx', providers=['TestExecutionProvider'])\n"
            "print(s.get_providers())\n")
    env = clean_env()
    env["LD_DEBUG"] = "files"
    result = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "TestExecutionProvider" in result.stdout
    lib_dir = os.path.join(os.path.dirname(prismrt.__file__), "_lib")
    opened = set()
    for line in result.stderr.splitlines():
        if "file=" in line:
            path = line.split("file=", 1)[1].split()[0]
            if os.path.basename(path).startswith("libprism"):
                opened.add(path)
    assert opened, "LD_DEBUG showed no libprism library"
    names = {os.path.basename(p) for p in opened}
    assert {"libprism.so", "libprism_core.so", "libprism_provider_test.so"} <= names
    outside = [p for p in opened if os.path.dirname(p) != lib_dir]
    assert not outside, outside
