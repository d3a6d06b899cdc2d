"""The CUDA EP on a GPU: every kernel family against onnxruntime's CPU results, placement read
from the partition report (so an EP that declines everything cannot pass), the declines it must
make, device IO binding and the memory limit. Skipped, visibly, where no CUDA device is usable
(tests/gpu/run.sh; CTest cuda_ep_gpu reports it as skipped)."""
import re

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

CUDA = ["CUDAExecutionProvider", "CPUExecutionProvider"]

pytestmark = pytest.mark.skipif(
    "CUDAExecutionProvider" not in ort.get_available_providers(),
    reason="no usable CUDA device here: the CUDA EP tests need a GPU (tests/gpu/run.sh)")


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8).SerializeToString()


def placement(session):
    """node name -> provider, from the partition report."""
    found = {}
    for line in session.get_partition_report().splitlines():
        match = re.match(r"\s+\[main\] (\S+) \(.*\) -> (\S+)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def check(model_bytes, feeds, on_cuda, rtol=1e-4, atol=1e-5):
    expected = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    session = ort.InferenceSession(model_bytes, providers=CUDA)
    assert session.get_providers()[0] == "CUDAExecutionProvider"
    where = placement(session)
    for node in on_cuda:
        assert where.get(node) == "CUDAExecutionProvider", (node, session.get_partition_report())
    for actual, wanted in zip(session.run(None, feeds), expected):
        np.testing.assert_allclose(actual, wanted, rtol=rtol, atol=atol)
    return session


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


RNG = np.random.RandomState(0)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"])
@pytest.mark.parametrize("shapes", [([2, 3, 4], [2, 3, 4]), ([2, 3, 4], [4]), ([2, 1, 4], [3, 1]),
                                    ([], [5]), ([1, 3, 1, 5], [2, 1, 4, 1])])
def test_binary_with_broadcasting(op, shapes):
    a_shape, b_shape = shapes
    a = np.asarray(RNG.rand(*a_shape) + 0.5, dtype=np.float32)
    b = np.asarray(RNG.rand(*b_shape) + 0.5, dtype=np.float32)
    out = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    check(model([helper.make_node(op, ["a", "b"], ["y"], name="n")],
                [tensor("a", a_shape), tensor("b", b_shape)], [tensor("y", out)]),
          {"a": a, "b": b}, ["n"])


@pytest.mark.parametrize("op,attributes,opset", [
    ("Relu", {}, 17), ("Sigmoid", {}, 17), ("Tanh", {}, 17), ("Exp", {}, 17), ("Log", {}, 17),
    ("Sqrt", {}, 17), ("Neg", {}, 17), ("Abs", {}, 17), ("Erf", {}, 17),
    ("LeakyRelu", {"alpha": 0.2}, 17), ("Elu", {"alpha": 0.7}, 17), ("Gelu", {}, 20),
    ("Gelu", {"approximate": "tanh"}, 20)])
def test_unary(op, attributes, opset):
    x = RNG.randn(3, 257).astype(np.float32)
    if op in ("Log", "Sqrt"):
        x = np.abs(x) + 0.1
    check(model([helper.make_node(op, ["x"], ["y"], name="n", **attributes)], [tensor("x", [3, 257])],
                [tensor("y", [3, 257])], opset=opset), {"x": x}, ["n"])


@pytest.mark.parametrize("a_shape,b_shape", [([5, 7], [7, 3]), ([2, 5, 7], [7, 3]),
                                             ([2, 5, 7], [2, 7, 3]), ([5, 7], [4, 7, 3]),
                                             ([1, 5, 7], [4, 7, 3]), ([3, 0, 7], [7, 2]),
                                             ([5, 0], [0, 4])])
def test_matmul(a_shape, b_shape):
    a = RNG.randn(*a_shape).astype(np.float32)
    b = RNG.randn(*b_shape).astype(np.float32)
    out = list(np.matmul(a, b).shape)
    check(model([helper.make_node("MatMul", ["a", "b"], ["y"], name="n")],
                [tensor("a", a_shape), tensor("b", b_shape)], [tensor("y", out)]),
          {"a": a, "b": b}, ["n"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("trans_a,trans_b,alpha,beta,c_shape", [
    (0, 0, 1.0, 1.0, [4]), (1, 0, 0.5, 2.0, [3, 4]), (0, 1, 1.0, 1.0, [3, 1]),
    (1, 1, 2.0, 0.0, [1]), (0, 0, 1.0, 1.0, None), (0, 1, 1.5, -1.0, [])])
def test_gemm(trans_a, trans_b, alpha, beta, c_shape):
    m, k, n = 3, 5, 4
    a = RNG.randn(*([k, m] if trans_a else [m, k])).astype(np.float32)
    b = RNG.randn(*([n, k] if trans_b else [k, n])).astype(np.float32)
    inputs = [tensor("a", list(a.shape)), tensor("b", list(b.shape))]
    feeds = {"a": a, "b": b}
    names = ["a", "b"]
    if c_shape is not None:
        feeds["c"] = np.asarray(RNG.randn(*c_shape), dtype=np.float32)
        inputs.append(tensor("c", c_shape))
        names.append("c")
    node = helper.make_node("Gemm", names, ["y"], name="n", transA=trans_a, transB=trans_b,
                            alpha=alpha, beta=beta)
    check(model([node], inputs, [tensor("y", [m, n])]), feeds, ["n"], atol=1e-4)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("cols", [1, 7, 33, 256, 1000, 1025, 3000])
def test_softmax_last_axis(op, cols):
    x = (RNG.randn(6, cols) * 4).astype(np.float32)
    check(model([helper.make_node(op, ["x"], ["y"], name="n", axis=-1)], [tensor("x", [6, cols])],
                [tensor("y", [6, cols])]), {"x": x}, ["n"])


def test_declined_nodes_run_on_the_cpu_with_reasons():
    x = RNG.randn(4, 5).astype(np.float32)
    nodes = [helper.make_node("Softmax", ["x"], ["s"], name="softmax_axis0", axis=0),
             helper.make_node("Relu", ["s"], ["r"], name="relu"),
             helper.make_node("Max", ["r", "x", "x"], ["y"], name="max3")]
    session = check(model(nodes, [tensor("x", [4, 5])], [tensor("y", [4, 5])]), {"x": x}, ["relu"])
    where = placement(session)
    assert where["softmax_axis0"] == "CPUExecutionProvider"
    assert where["max3"] == "CPUExecutionProvider"
    report = session.get_partition_report()
    assert "normalizes the last axis only" in report
    assert "exactly two inputs" in report


def test_device_binding_and_outputs_on_the_device():
    x = RNG.randn(8, 16).astype(np.float32)
    w = RNG.randn(16, 4).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
             helper.make_node("Relu", ["m"], ["y"], name="relu")]
    data = model(nodes, [tensor("x", [8, 16])], [tensor("y", [8, 4])],
                 [onnx.numpy_helper.from_array(w, "w")])
    session = ort.InferenceSession(data, providers=CUDA)
    binding = session.io_binding()
    binding.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
    binding.bind_output("y", "cuda", 0)
    session.run_with_iobinding(binding)
    value = binding.get_outputs()[0]
    assert value.device_name() == "cuda"
    np.testing.assert_allclose(value.numpy(), np.maximum(x @ w, 0), rtol=1e-4, atol=1e-4)


def test_gpu_mem_limit_bounds_the_arena():
    x = np.ones((1024, 1024), np.float32)
    data = model([helper.make_node("Relu", ["x"], ["y"], name="n")], [tensor("x", [1024, 1024])],
                 [tensor("y", [1024, 1024])])
    session = ort.InferenceSession(data, providers=[("CUDAExecutionProvider",
                                                     {"gpu_mem_limit": str(1 << 20)}),
                                                    "CPUExecutionProvider"])
    assert session.get_provider_options()["CUDAExecutionProvider"]["gpu_mem_limit"] == str(1 << 20)
    with pytest.raises(ort.PrismError, match="limited to"):
        session.run(None, {"x": x})


def test_an_unsupported_op_in_the_middle_costs_exactly_two_copies():
    """Inputs and outputs bound on the device, one node in the middle the CUDA EP declines: the
    report shows exactly its two copies (to the CPU and back), and the run is right."""
    x = RNG.randn(4, 6).astype(np.float32)
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu_in"),
             helper.make_node("Softmax", ["r"], ["s"], name="softmax_axis0", axis=0),
             helper.make_node("Relu", ["s"], ["y"], name="relu_out")]
    data = model(nodes, [tensor("x", [4, 6])], [tensor("y", [4, 6])])
    session = ort.InferenceSession(data, providers=CUDA)
    where = placement(session)
    assert where == {"relu_in": "CUDAExecutionProvider", "softmax_axis0": "CPUExecutionProvider",
                     "relu_out": "CUDAExecutionProvider"}, session.get_partition_report()
    report = session.get_partition_report()
    # The report lists the graph input's copy as made only when it is fed in host memory; with
    # the input bound on the device, the run makes the other two.
    copy_lines = [line for line in report.splitlines() if re.match(r"\s+\[main\] '", line)]
    made = [line for line in copy_lines if "not copied when fed in Cuda:0 memory" not in line]
    assert len(made) == 2, report
    assert len(copy_lines) == 3 and "'x' Cpu:0 -> Cuda:0" in copy_lines[0], report
    assert re.search(r"Partition: 3 nodes, 3 copies \(2 in every run; 1 of graph inputs", report), \
        report
    copy_lines = made
    assert "'r'" in copy_lines[0] + copy_lines[1] and "'s'" in copy_lines[0] + copy_lines[1]
    binding = session.io_binding()
    binding.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
    binding.bind_output("y", "cuda", 0)
    session.run_with_iobinding(binding)
    r = np.maximum(x, 0)
    e = np.exp(r - r.max(axis=0, keepdims=True))
    np.testing.assert_allclose(binding.get_outputs()[0].numpy(), e / e.sum(axis=0, keepdims=True),
                               rtol=1e-5, atol=1e-6)
