"""NchwcTransformer (the layout level) on the bench CNNs against onnxruntime: at level all every
Conv of resnet50, mobilenetv2 and squeezenet1_1 runs as com.microsoft.nchwc Conv, and the outputs
equal onnxruntime's (level all, one thread) within rtol 1e-4 / atol 1e-4, as they do with the pass
disabled."""
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
import pytest

import prismrt

from conftest import bench_inputs, shared_dir

CNNS = ("resnet50", "mobilenetv2", "squeezenet1_1")


@pytest.fixture(scope="module")
def cnn_models(tmp_path_factory):
    script = os.path.join(shared_dir(), "bench", "make_models.py")
    if not os.path.isfile(script):
        pytest.fail("make_models.py not found at %s (set PRISM_SHARED_DIR)" % script)
    out = tmp_path_factory.mktemp("cnn-models")
    subprocess.run([sys.executable, script, str(out), "--models", ",".join(CNNS), "--no-check"],
                   check=True, stdout=subprocess.DEVNULL)
    return {name: str(out / (name + ".onnx")) for name in CNNS}


@pytest.mark.parametrize("name", CNNS)
def test_nchwc_cnn_matches_onnxruntime(cnn_models, name, tmp_path):
    path = cnn_models[name]
    feeds = bench_inputs(path, seed=4)
    so = onnxruntime.SessionOptions()
    so.intra_op_num_threads = 1
    expected = onnxruntime.InferenceSession(path, so, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    options = prismrt.SessionOptions()
    saved = str(tmp_path / "optimized.onnx")
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(path, options).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)
    nodes = onnx.load(saved, load_external_data=False).graph.node
    assert not [n.name for n in nodes if n.op_type in ("Conv", "FusedConv") and
                n.domain != "com.microsoft.nchwc"]
    assert [n.op_type for n in nodes if n.domain == "com.microsoft.nchwc"].count("Conv") > 0
    without = prismrt.InferenceSession(path, disabled_optimizers=["NchwcTransformer"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(without, expected, rtol=1e-4, atol=1e-4)
