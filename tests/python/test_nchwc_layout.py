"""NchwcTransformer (the layout level) on the bench CNNs against onnxruntime: at level all every
Conv of resnet50, mobilenetv2 and squeezenet1_1 runs as com.microsoft.nchwc Conv, and the outputs
equal onnxruntime's (level all, one thread) within rtol 1e-4 / atol 1e-4, as they do with the pass
disabled. The optimized model Prism saves (a residual block, a first NCHW-input conv + depthwise
block, a 24-channel block padded to the block, the three CNNs) runs in onnxruntime with its own
optimizations off and gives Prism's results within 1e-4: nchwc.Conv's W is in onnxruntime's filter
order, byte for byte the filters onnxruntime saves for the same blocks. Skipped (with the two
block sizes) when Prism's block is not onnxruntime's, e.g. under
PRISM_CPU_ISA=avx2 on an AVX-512 machine."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
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


# A model saved after the layout pass runs in onnxruntime too: nchwc.Conv's W is in
# onnxruntime's filter order (OIHWBiBo / OIHWBo), the bias padded like its transformer's.

def _blocks_of_saved_models(tmp_path):
    """(Prism's block, onnxruntime's block): the filters a 1-filter Conv on 3 channels gets
    padded to when each runtime saves its optimized model (the NCHW-input kind in both)."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.normal(size=(1, 3, 3, 3)).astype(np.float32), "w")
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "probe",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=[w]),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    data = model.SerializeToString()

    def saved_filters(path):
        saved = onnx.load(path)
        inits = {i.name: i for i in saved.graph.initializer}
        conv = [n for n in saved.graph.node if n.domain == "com.microsoft.nchwc" and
                n.op_type == "Conv"]
        assert len(conv) == 1, [(n.domain, n.op_type) for n in saved.graph.node]
        return inits[conv[0].input[1]].dims[0]

    options = prismrt.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "probe_prism.onnx")
    prismrt.InferenceSession(data, options)
    so = onnxruntime.SessionOptions()
    so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.optimized_model_filepath = str(tmp_path / "probe_ort.onnx")
    onnxruntime.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    return saved_filters(options.optimized_model_filepath), saved_filters(so.optimized_model_filepath)


def _small_model(kind, seed=0):
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array, np.float32), name))
        return name

    def conv(x, cin, cout, name, kernel=3, group=1, stride=1):
        w = const(name + "_w", rng.normal(size=(cout, cin // group, kernel, kernel)) * 0.3)
        b = const(name + "_b", rng.normal(size=cout) * 0.1)
        nodes.append(helper.make_node("Conv", [x, w, b], [name], name=name, group=group,
                                      pads=[kernel // 2] * 4, strides=[stride, stride]))
        return name

    if kind == "residual":  # blocked kind, Sum + Relu, pools
        shape = [2, 32, 10, 10]
        a = conv("x", 32, 32, "conv_a")
        nodes.append(helper.make_node("Relu", [a], ["a_relu"]))
        b = conv("a_relu", 32, 32, "conv_b")
        nodes.append(helper.make_node("Add", [b, "x"], ["sum"]))
        nodes.append(helper.make_node("Relu", ["sum"], ["r"]))
        nodes.append(helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]))
        c = conv("p", 32, 48, "conv_c", kernel=1)
        nodes.append(helper.make_node("GlobalAveragePool", [c], ["y"]))
    elif kind == "depthwise":  # NCHW-input first conv, depthwise, 1x1 projection
        shape = [1, 3, 16, 16]
        low, high = const("low", 0.0), const("high", 6.0)
        s = conv("x", 3, 32, "stem", stride=2)
        nodes.append(helper.make_node("Clip", [s, low, high], ["s6"]))
        d = conv("s6", 32, 32, "depthwise", group=32)
        nodes.append(helper.make_node("Relu", [d], ["d_relu"]))
        p = conv("d_relu", 32, 16, "project", kernel=1)
        nodes.append(helper.make_node("AveragePool", [p], ["y"], kernel_shape=[2, 2],
                                      strides=[2, 2]))
    else:  # padded: 24 channels, padded filters and inputs, a padded depthwise
        shape = [1, 24, 9, 9]
        a = conv("x", 24, 24, "conv_a")
        nodes.append(helper.make_node("Relu", [a], ["a_relu"]))
        d = conv("a_relu", 24, 24, "depthwise", group=24)
        c = conv(d, 24, 40, "conv_c", kernel=1)
        nodes.append(helper.make_node("Sigmoid", [c], ["y"]))
    model = helper.make_model(helper.make_graph(
        nodes, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString(), shape


def _saved_model_runs_in_onnxruntime(model, feeds, tmp_path):
    options = prismrt.SessionOptions()
    saved = str(tmp_path / "optimized.onnx")
    options.optimized_model_filepath = saved
    actual = prismrt.InferenceSession(model, options).run(None, feeds)[0]
    nodes = onnx.load(saved, load_external_data=False).graph.node
    assert [n.op_type for n in nodes if n.domain == "com.microsoft.nchwc"].count("Conv") > 0
    # onnxruntime with its own optimizations off runs the saved nodes as written.
    so = onnxruntime.SessionOptions()
    so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    reloaded = onnxruntime.InferenceSession(saved, so, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(reloaded, actual, rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def same_block(tmp_path_factory):
    prism_block, ort_block = _blocks_of_saved_models(tmp_path_factory.mktemp("probe"))
    if prism_block != ort_block:
        pytest.skip("Prism's NCHWc block is %d here (PRISM_CPU_ISA?), onnxruntime's %d: a "
                    "layout-optimized saved model is for machines of the block that saved it"
                    % (prism_block, ort_block))


@pytest.mark.parametrize("kind", ["residual", "depthwise", "padded"])
def test_saved_nchwc_block_runs_in_onnxruntime(same_block, kind, tmp_path):
    model, shape = _small_model(kind)
    x = np.random.default_rng(5).normal(size=shape).astype(np.float32)
    _saved_model_runs_in_onnxruntime(model, {"x": x}, tmp_path)


@pytest.mark.parametrize("name", CNNS)
def test_saved_nchwc_cnn_runs_in_onnxruntime(same_block, cnn_models, name, tmp_path):
    path = cnn_models[name]
    if not os.path.isfile(path):
        pytest.skip("%s not generated at %s" % (name, path))
    _saved_model_runs_in_onnxruntime(path, bench_inputs(path, seed=6), tmp_path)


def _nchwc_filters(path):
    graph = onnx.load(path).graph
    inits = {i.name: i for i in graph.initializer}
    return sorted((tuple(inits[n.input[1]].dims), numpy_helper.to_array(inits[n.input[1]]).tobytes())
                  for n in graph.node if n.domain == "com.microsoft.nchwc" and n.op_type == "Conv")


@pytest.mark.parametrize("kind", ["residual", "depthwise", "padded"])
def test_nchwc_filters_are_the_bytes_onnxruntime_saves(same_block, kind, tmp_path):
    """Both runtimes' saved models of the same block hold the same nchwc.Conv filters, bit for
    bit; and Prism (optimizations off) runs onnxruntime's saved model."""
    model, shape = _small_model(kind)
    x = np.random.default_rng(7).normal(size=shape).astype(np.float32)
    options = prismrt.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "prism.onnx")
    actual = prismrt.InferenceSession(model, options).run(None, {"x": x})[0]
    so = onnxruntime.SessionOptions()
    so.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.optimized_model_filepath = str(tmp_path / "ort.onnx")
    onnxruntime.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    prism_filters = _nchwc_filters(options.optimized_model_filepath)
    ort_filters = _nchwc_filters(so.optimized_model_filepath)
    assert [dims for dims, _ in prism_filters] == [dims for dims, _ in ort_filters]
    assert prism_filters == ort_filters, "same shapes, other bytes"
    plain = prismrt.SessionOptions()
    plain.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL
    again = prismrt.InferenceSession(so.optimized_model_filepath, plain).run(None, {"x": x})[0]
    np.testing.assert_allclose(again, actual, rtol=1e-4, atol=1e-4)
