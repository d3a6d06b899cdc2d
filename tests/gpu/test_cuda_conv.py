"""The CUDA EP's CNN kernels on a GPU: Conv (cuDNN; 1-D/2-D/3-D, groups, depthwise, strides,
dilations, symmetric and asymmetric pads, auto_pad, bias), FusedConv made by the optimizer from
Conv->Relu and Conv->Add->Relu, ConvTranspose, MaxPool/AveragePool (ceil_mode,
count_include_pad, asymmetric pads), the global pools and inference BatchNormalization, against
onnxruntime's CPU results, with placement read from the partition report (so an EP that declines
everything cannot pass), under every cudnn_conv_algo_search value. Skipped, visibly, where no
CUDA device is usable (tests/gpu/run.sh)."""
import re

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

pytestmark = pytest.mark.skipif(
    "CUDAExecutionProvider" not in ort.get_available_providers(),
    reason="no usable CUDA device here: the CUDA EP tests need a GPU (tests/gpu/run.sh)")

RNG = np.random.RandomState(0)


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8).SerializeToString()


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def placement(session):
    """node name -> provider, from the partition report (nodes not fused into another)."""
    found = {}
    for line in session.get_partition_report().splitlines():
        match = re.match(r"\s+\[main\] (\S+) \(.*\) -> (\S+)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def fused_groups(session):
    """fused node -> (provider, replaced nodes), from the partition report."""
    groups = {}
    for line in session.get_partition_report().splitlines():
        match = re.match(r"\s+\[main\] (\S+) -> (\S+): (.*)$", line)
        if match:
            groups[match.group(1)] = (match.group(2), match.group(3).split())
    return groups


def cuda_providers(options=None):
    return [("CUDAExecutionProvider", options or {}), "CPUExecutionProvider"]


def check(model_bytes, feeds, on_cuda, options=None, rtol=1e-4, atol=1e-4, optimize=True):
    expected = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    session_options = ort.SessionOptions()
    if not optimize:
        session_options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model_bytes, session_options, providers=cuda_providers(options))
    assert session.get_providers()[0] == "CUDAExecutionProvider"
    where = placement(session)
    for node in on_cuda:
        assert where.get(node) == "CUDAExecutionProvider", (node, session.get_partition_report())
    # Twice: the second run takes the cached algorithm.
    for _ in range(2):
        for actual, wanted in zip(session.run(None, feeds), expected):
            assert actual.shape == wanted.shape
            np.testing.assert_allclose(actual, wanted, rtol=rtol, atol=atol)
    return session


def conv_model(x_shape, w_shape, bias, op="Conv", **attributes):
    w = (RNG.randn(*w_shape) * 0.3).astype(np.float32)
    initializers = [onnx.numpy_helper.from_array(w, "w")]
    inputs = ["x", "w"]
    if bias:
        out_channels = w_shape[0] if op == "Conv" else w_shape[1] * attributes.get("group", 1)
        initializers.append(onnx.numpy_helper.from_array(
            RNG.randn(out_channels).astype(np.float32), "b"))
        inputs.append("b")
    node = helper.make_node(op, inputs, ["y"], name="n", **attributes)
    return model([node], [tensor("x", list(x_shape))], [tensor("y", None)], initializers)


CONV_CASES = [
    # (x shape, w shape, bias, attributes)
    ((2, 3, 9, 9), (4, 3, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    ((1, 3, 10, 11), (5, 3, 3, 3), False, {"strides": [2, 2]}),
    ((1, 4, 12, 12), (6, 4, 3, 3), True, {"dilations": [2, 2], "pads": [2, 2, 2, 2]}),
    ((1, 4, 9, 9), (4, 1, 3, 3), True, {"group": 4, "pads": [1, 1, 1, 1]}),  # depthwise
    ((2, 6, 8, 8), (4, 3, 3, 3), True, {"group": 2}),
    ((1, 3, 9, 9), (4, 3, 3, 3), True, {"pads": [0, 1, 2, 0]}),  # asymmetric
    ((1, 3, 9, 10), (4, 3, 3, 2), False, {"pads": [2, 0, 0, 1], "strides": [2, 3]}),
    ((1, 3, 9, 10), (4, 3, 3, 3), True, {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ((1, 3, 8, 10), (4, 3, 4, 3), True, {"auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    ((1, 3, 9, 10), (4, 3, 3, 3), True, {"auto_pad": "VALID"}),
    ((2, 3, 17), (4, 3, 5), True, {"pads": [2, 1], "strides": [2], "dilations": [2]}),  # 1-D
    ((1, 2, 6, 7, 8), (3, 2, 3, 3, 3), True, {"pads": [1, 1, 1, 1, 1, 1]}),  # 3-D
    ((1, 4, 6, 7, 8), (4, 2, 3, 2, 3), False, {"group": 2, "strides": [2, 1, 2],
                                               "pads": [1, 0, 0, 0, 1, 1]}),
    ((1, 32, 14, 14), (64, 32, 1, 1), True, {}),  # pointwise
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv(case):
    x_shape, w_shape, bias, attributes = CONV_CASES[case]
    x = RNG.randn(*x_shape).astype(np.float32)
    check(conv_model(x_shape, w_shape, bias, **attributes), {"x": x}, ["n"])


@pytest.mark.parametrize("search", ["EXHAUSTIVE", "HEURISTIC", "DEFAULT"])
@pytest.mark.parametrize("max_workspace", ["0", "1"])
def test_conv_every_algorithm_search(search, max_workspace):
    x = RNG.randn(4, 16, 28, 28).astype(np.float32)
    check(conv_model(x.shape, (32, 16, 3, 3), True, pads=[1, 1, 1, 1]), {"x": x}, ["n"],
          options={"cudnn_conv_algo_search": search,
                   "cudnn_conv_use_max_workspace": max_workspace})


def test_conv_with_tf32_is_close():
    x = RNG.randn(2, 16, 20, 20).astype(np.float32)
    check(conv_model(x.shape, (16, 16, 3, 3), True, pads=[1, 1, 1, 1]), {"x": x}, ["n"],
          options={"use_tf32": "1"}, rtol=1e-2, atol=1e-2)


def test_conv_input_shape_changes_between_runs():
    data = conv_model(["N", 3, "H", "W"], (4, 3, 3, 3), True, pads=[1, 1, 1, 1])
    session = ort.InferenceSession(data, providers=cuda_providers())
    reference = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    for shape in [(1, 3, 8, 8), (3, 3, 5, 9), (1, 3, 8, 8)]:
        x = RNG.randn(*shape).astype(np.float32)
        np.testing.assert_allclose(session.run(None, {"x": x})[0],
                                   reference.run(None, {"x": x})[0], rtol=1e-4, atol=1e-4)


def test_conv_zero_batch():
    data = conv_model(["N", 3, 8, 8], (4, 3, 3, 3), True, pads=[1, 1, 1, 1])
    session = ort.InferenceSession(data, providers=cuda_providers())
    assert session.run(None, {"x": np.zeros((0, 3, 8, 8), np.float32)})[0].shape == (0, 4, 8, 8)


def fusion_model(with_add):
    w = (RNG.randn(8, 4, 3, 3) * 0.3).astype(np.float32)
    b = RNG.randn(8).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1])]
    last = "c"
    inputs = [tensor("x", [2, 4, 10, 10])]
    if with_add:
        nodes.append(helper.make_node("Add", ["c", "z"], ["s"], name="add"))
        inputs.append(tensor("z", [2, 8, 10, 10]))
        last = "s"
    nodes.append(helper.make_node("Relu", [last], ["y"], name="relu"))
    return model(nodes, inputs, [tensor("y", [2, 8, 10, 10])],
                 [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(b, "b")])


@pytest.mark.parametrize("with_add", [False, True])
def test_fused_conv_runs_on_cuda(with_add):
    feeds = {"x": RNG.randn(2, 4, 10, 10).astype(np.float32)}
    if with_add:
        feeds["z"] = RNG.randn(2, 8, 10, 10).astype(np.float32)
    session = check(fusion_model(with_add), feeds, [])
    groups = fused_groups(session)
    fused = [name for name, (provider, nodes) in groups.items() if "conv" in nodes]
    assert len(fused) == 1, session.get_partition_report()
    provider, nodes = groups[fused[0]]
    assert provider == "CUDAExecutionProvider", session.get_partition_report()
    assert set(nodes) == ({"conv", "add", "relu"} if with_add else {"conv", "relu"})


@pytest.mark.parametrize("activation,params", [
    ("Relu", None), ("Tanh", None), ("Sigmoid", None), ("LeakyRelu", [0.1]),
    ("Clip", [-0.5, 0.7]), ("HardSigmoid", [0.3, 0.4])])
def test_fused_conv_node_activations(activation, params):
    w = (RNG.randn(6, 3, 3, 3) * 0.3).astype(np.float32)
    b = RNG.randn(6).astype(np.float32)
    attributes = {"activation": activation, "pads": [1, 1, 1, 1]}
    if params is not None:
        attributes["activation_params"] = params
    node = helper.make_node("FusedConv", ["x", "w", "b", "z"], ["y"], name="n",
                            domain="com.microsoft", **attributes)
    graph = helper.make_graph([node], "g", [tensor("x", [1, 3, 7, 7]), tensor("z", [1, 6, 7, 7])],
                              [tensor("y", [1, 6, 7, 7])],
                              [onnx.numpy_helper.from_array(w, "w"),
                               onnx.numpy_helper.from_array(b, "b")])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)],
                             ir_version=8).SerializeToString()
    feeds = {"x": RNG.randn(1, 3, 7, 7).astype(np.float32),
             "z": RNG.randn(1, 6, 7, 7).astype(np.float32)}
    check(data, feeds, ["n"], optimize=False)


CONV_TRANSPOSE_CASES = [
    ((1, 4, 5, 5), (4, 3, 3, 3), True, {}),
    ((2, 4, 5, 6), (4, 3, 3, 3), True, {"strides": [2, 2], "pads": [1, 1, 1, 1],
                                         "output_padding": [1, 1]}),
    ((1, 4, 5, 5), (4, 2, 3, 3), False, {"group": 2, "strides": [2, 2],
                                          "dilations": [2, 1]}),
    ((1, 4, 5, 5), (4, 3, 3, 3), True, {"pads": [0, 1, 2, 0]}),  # asymmetric: the crop path
    ((1, 4, 5, 5), (4, 3, 3, 3), True, {"strides": [2, 2], "output_shape": [12, 11]}),
    ((1, 4, 5, 5), (4, 3, 4, 4), True, {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 4, 5, 5), (4, 3, 2, 4), True, {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    # Odd total paddings (the crop path; checked against onnxruntime 1.31's CPU EP).
    ((1, 4, 5, 5), (4, 3, 3, 3), True, {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 4, 5, 5), (4, 3, 3, 3), True, {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 1, 3, 3), (1, 2, 3, 3), False, {"strides": [3, 2], "output_shape": [10, 8]}),
    ((1, 1, 3, 3), (1, 2, 3, 3), False, {"strides": [3, 2], "output_padding": [1, 1]}),
    ((1, 3, 11), (3, 2, 4), True, {"strides": [3], "pads": [1, 1]}),  # 1-D
    ((1, 2, 3, 4, 5), (2, 3, 3, 3, 3), True, {"strides": [2, 2, 2]}),  # 3-D
    ((1, 8, 6, 6), (8, 1, 4, 4), True, {"group": 8, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
]


@pytest.mark.parametrize("case", range(len(CONV_TRANSPOSE_CASES)))
def test_conv_transpose(case):
    x_shape, w_shape, bias, attributes = CONV_TRANSPOSE_CASES[case]
    x = RNG.randn(*x_shape).astype(np.float32)
    check(conv_model(x_shape, w_shape, bias, op="ConvTranspose", **attributes), {"x": x}, ["n"])


@pytest.mark.parametrize("search", ["EXHAUSTIVE", "HEURISTIC", "DEFAULT"])
def test_conv_transpose_every_algorithm_search(search):
    x = RNG.randn(2, 8, 9, 9).astype(np.float32)
    check(conv_model(x.shape, (8, 4, 3, 3), True, op="ConvTranspose", strides=[2, 2]), {"x": x},
          ["n"], options={"cudnn_conv_algo_search": search})


POOL_CASES = [
    ("MaxPool", (2, 3, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("MaxPool", (1, 3, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("MaxPool", (1, 3, 10, 10), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ("MaxPool", (1, 3, 13, 13), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ("MaxPool", (1, 3, 8, 9), {"kernel_shape": [2, 3], "pads": [0, 1, 1, 0]}),
    ("MaxPool", (1, 3, 9, 9), {"kernel_shape": [3, 3], "dilations": [2, 2]}),
    ("MaxPool", (1, 3, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2],
                               "auto_pad": "SAME_UPPER"}),
    ("MaxPool", (1, 2, 12), {"kernel_shape": [3], "strides": [2]}),
    ("MaxPool", (1, 2, 5, 6, 7), {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}),
    ("AveragePool", (2, 3, 9, 9), {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("AveragePool", (1, 3, 9, 9), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ("AveragePool", (1, 3, 9, 9), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                   "count_include_pad": 1}),
    ("AveragePool", (1, 3, 10, 10), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ("AveragePool", (1, 3, 10, 10), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1,
                                     "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    ("AveragePool", (1, 3, 8, 9), {"kernel_shape": [2, 3], "pads": [0, 1, 1, 0],
                                   "count_include_pad": 1}),
    ("AveragePool", (1, 3, 9, 9), {"kernel_shape": [3, 3], "auto_pad": "SAME_LOWER"}),
    ("AveragePool", (1, 2, 5, 6, 7), {"kernel_shape": [3, 2, 3], "pads": [1, 0, 1, 1, 1, 0]}),
]


@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_pool(case):
    op, x_shape, attributes = POOL_CASES[case]
    x = RNG.randn(*x_shape).astype(np.float32)
    node = helper.make_node(op, ["x"], ["y"], name="n", **attributes)
    check(model([node], [tensor("x", list(x_shape))], [tensor("y", None)]), {"x": x}, ["n"])


def test_max_pool_with_indices_is_declined():
    x = RNG.randn(1, 2, 6, 6).astype(np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], name="n", kernel_shape=[2, 2])
    data = model([node], [tensor("x", [1, 2, 6, 6])],
                 [tensor("y", None), helper.make_tensor_value_info("i", TensorProto.INT64, None)])
    session = check(data, {"x": x}, [])
    assert placement(session)["n"] == "CPUExecutionProvider"
    assert "Indices" in session.get_partition_report()


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("shape", [(2, 3, 7, 7), (1, 5, 33, 65), (2, 4, 9), (1, 2, 3, 4, 5)])
def test_global_pool(op, shape):
    x = RNG.randn(*shape).astype(np.float32)
    node = helper.make_node(op, ["x"], ["y"], name="n")
    check(model([node], [tensor("x", list(shape))], [tensor("y", None)]), {"x": x}, ["n"])


@pytest.mark.parametrize("opset", [9, 14, 15])
@pytest.mark.parametrize("shape", [(2, 3, 5, 5), (3, 4), (1, 2, 3, 4, 5)])
def test_batch_normalization(opset, shape):
    channels = shape[1]
    x = RNG.randn(*shape).astype(np.float32)
    params = [RNG.randn(channels).astype(np.float32) for _ in range(3)]
    var = (RNG.rand(channels) + 0.5).astype(np.float32)
    initializers = [onnx.numpy_helper.from_array(value, name) for value, name in
                    zip(params + [var], ["scale", "bias", "mean", "var"])]
    node = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"],
                            name="n", epsilon=1e-3)
    check(model([node], [tensor("x", list(shape))], [tensor("y", list(shape))], initializers,
                opset=opset), {"x": x}, ["n"], optimize=False)


def test_batch_normalization_training_mode_is_declined():
    x = RNG.randn(2, 3, 4, 4).astype(np.float32)
    initializers = [onnx.numpy_helper.from_array(np.ones(3, np.float32), name)
                    for name in ["scale", "bias", "mean", "var"]]
    node = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"],
                            ["y", "rm", "rv"], name="n", training_mode=1)
    data = model([node], [tensor("x", [2, 3, 4, 4])],
                 [tensor("y", None), tensor("rm", None), tensor("rv", None)], initializers,
                 opset=15)
    session = ort.InferenceSession(data, providers=cuda_providers())
    assert placement(session)["n"] == "CPUExecutionProvider"
    assert "training_mode" in session.get_partition_report()


def test_small_cnn_runs_entirely_on_cuda():
    """Conv-BN-Relu-MaxPool-Conv-Add-Relu-GlobalAveragePool-Gemm, optimized: every node on CUDA."""
    c = 8
    weights = {
        "w1": (RNG.randn(c, 3, 3, 3) * 0.3).astype(np.float32),
        "scale": RNG.rand(c).astype(np.float32) + 0.5, "bias": RNG.randn(c).astype(np.float32),
        "mean": RNG.randn(c).astype(np.float32), "var": RNG.rand(c).astype(np.float32) + 0.5,
        "w2": (RNG.randn(c, c, 3, 3) * 0.2).astype(np.float32),
        "fc": RNG.randn(10, c).astype(np.float32), "fcb": RNG.randn(10).astype(np.float32),
        "shape": np.array([0, -1], np.int64),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "scale", "bias", "mean", "var"], ["b1"],
                         name="bn1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[3, 3],
                         strides=[2, 2], ceil_mode=1),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "p1"], ["s2"], name="add2"),
        helper.make_node("Relu", ["s2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc", transB=1),
    ]
    data = model(nodes, [tensor("x", [2, 3, 16, 16])], [tensor("y", [2, 10])],
                 [onnx.numpy_helper.from_array(v, k) for k, v in weights.items()])
    x = RNG.randn(2, 3, 16, 16).astype(np.float32)
    session = check(data, {"x": x}, ["pool1", "gap", "fc"])
    groups = fused_groups(session)
    for provider, _ in groups.values():
        assert provider == "CUDAExecutionProvider", session.get_partition_report()
    assert any("conv2" in nodes for _, nodes in groups.values()), session.get_partition_report()
