"""The CUDA EP's data movement, normalization and reduction kernels on a GPU, against
onnxruntime's CPU results, with placement read from the partition report (an EP that declines
everything cannot pass); and the shape-computation chains it leaves on the CPU EP, with the copies
the report counts. Skipped, visibly, where no CUDA device is usable (tests/gpu/run.sh)."""
import re

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

CUDA = ["CUDAExecutionProvider", "CPUExecutionProvider"]

pytestmark = pytest.mark.skipif(
    "CUDAExecutionProvider" not in ort.get_available_providers(),
    reason="no usable CUDA device here: the CUDA EP tests need a GPU (tests/gpu/run.sh)")

RNG = np.random.RandomState(0)
NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64,
              np.int32: TensorProto.INT32, np.bool_: TensorProto.BOOL, np.uint8: TensorProto.UINT8,
              np.int8: TensorProto.INT8, np.float16: TensorProto.FLOAT16,
              np.float64: TensorProto.DOUBLE}


def model(nodes, inputs, outputs, initializers=(), opset=17, ms=False):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    imports = [helper.make_opsetid("", opset)]
    if ms:
        imports.append(helper.make_opsetid("com.microsoft", 1))
    return helper.make_model(graph, opset_imports=imports, ir_version=8).SerializeToString()


def info(name, array_or_type, shape=None):
    if isinstance(array_or_type, np.ndarray):
        return helper.make_tensor_value_info(name, NP_TO_ONNX[array_or_type.dtype.type],
                                             list(array_or_type.shape))
    return helper.make_tensor_value_info(name, array_or_type, shape)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def report_of(session):
    return session.get_partition_report()


def placement(session):
    """node name -> provider, from the partition report."""
    found = {}
    for line in report_of(session).splitlines():
        match = re.match(r"\s+\[main\] (\S+) \(.*\) -> (\S+)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def copies(session):
    """(value, from, to) of every per-run copy the partition report lists (constants placed once
    at session creation left out)."""
    found = []
    for line in report_of(session).splitlines():
        match = re.match(r"\s+\[main\] '(.*)' (\S+) -> (\S+) for ", line)
        if match and "placed once at session creation" not in line:
            found.append(match.groups())
    return found


def unoptimized():
    """Single-op tests run the graph as written (no folding, no Identity/Dropout elimination)."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return options


def check(model_bytes, feeds, on_cuda=("n",), rtol=1e-5, atol=1e-6, options=None):
    if options is None:
        options = unoptimized()
    expected = onnxruntime.InferenceSession(model_bytes, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    session = ort.InferenceSession(model_bytes, options, providers=CUDA)
    where = placement(session)
    for node in on_cuda:
        assert where.get(node) == "CUDAExecutionProvider", (node, report_of(session))
    actual = session.run(None, feeds)
    for got, wanted in zip(actual, expected):
        assert got.dtype == wanted.dtype, (got.dtype, wanted.dtype)
        assert got.shape == wanted.shape, (got.shape, wanted.shape)
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, wanted, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(got, wanted)
    return session


def data(shape, dtype=np.float32):
    if dtype == np.bool_:
        return np.asarray(RNG.rand(*shape) > 0.5)
    if np.dtype(dtype).kind in "iu":
        low = -50 if np.dtype(dtype).kind == "i" else 0
        return np.asarray(RNG.randint(low, 100, size=shape)).astype(dtype)
    return np.asarray(RNG.randn(*shape)).astype(dtype)


def single(op, x, out_type, initializers=(), extra_inputs=(), opset=17, outputs=("y",), **attrs):
    """One node 'n' reading x (and constant extra inputs), outputs of unknown shape."""
    node = helper.make_node(op, ["x", *extra_inputs], list(outputs), name="n", **attrs)
    return model([node], [info("x", x)], [info(o, out_type, None) for o in outputs],
                 initializers, opset=opset)


# ---- views: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Shape, Size

@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16])
@pytest.mark.parametrize("shape,target,allowzero", [
    ([2, 3, 4], [6, -1], 0), ([2, 3, 4], [0, -1], 0), ([2, 0, 4], [0, 4], 1), ([24], [2, 3, 4], 0),
    ([1, 5], [5], 0)])
def test_reshape(dtype, shape, target, allowzero):
    x = data(shape, dtype)
    check(single("Reshape", x, NP_TO_ONNX[dtype], [const("s", target)], ["s"], opset=14,
                 allowzero=allowzero), {"x": x})


@pytest.mark.parametrize("axis", [0, 1, 2, -1, 3])
def test_flatten(axis):
    x = data([2, 3, 4])
    check(single("Flatten", x, TensorProto.FLOAT, axis=axis), {"x": x})


@pytest.mark.parametrize("opset", [11, 13])
@pytest.mark.parametrize("shape,axes", [([1, 3, 1, 4], [0, -2]), ([1, 3, 1], None), ([3, 1], [-1])])
def test_squeeze(opset, shape, axes):
    x = data(shape, np.int64)
    if opset >= 13:
        extra = (["a"], [const("a", axes)]) if axes is not None else ([], [])
        m = single("Squeeze", x, TensorProto.INT64, extra[1], extra[0], opset=opset)
    else:
        m = single("Squeeze", x, TensorProto.INT64, opset=opset,
                   **({"axes": axes} if axes is not None else {}))
    check(m, {"x": x})


@pytest.mark.parametrize("opset", [11, 13])
@pytest.mark.parametrize("shape,axes", [([3, 4], [0, -1]), ([], [0]), ([2, 0], [1])])
def test_unsqueeze(opset, shape, axes):
    x = data(shape)
    if opset >= 13:
        m = single("Unsqueeze", x, TensorProto.FLOAT, [const("a", axes)], ["a"], opset=opset)
    else:
        m = single("Unsqueeze", x, TensorProto.FLOAT, opset=opset, axes=axes)
    check(m, {"x": x})


def test_identity_and_inference_dropout():
    x = data([4, 5])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Identity", ["r"], ["i"], name="identity"),
             helper.make_node("Dropout", ["i", "ratio"], ["y"], name="dropout")]
    check(model(nodes, [info("x", x)], [info("y", TensorProto.FLOAT, [4, 5])],
                [const("ratio", 0.3, np.float32)]), {"x": x}, ["relu", "identity", "dropout"])


def test_dropout_mask_output_is_declined():
    x = data([4, 5])
    nodes = [helper.make_node("Dropout", ["x"], ["y", "mask"], name="dropout")]
    session = check(model(nodes, [info("x", x)], [info("y", TensorProto.FLOAT, [4, 5]),
                                                  info("mask", TensorProto.BOOL, [4, 5])]),
                    {"x": x}, [])
    assert placement(session)["dropout"] == "CPUExecutionProvider"
    assert "without its mask output" in report_of(session)


@pytest.mark.parametrize("attrs", [{}, {"start": 1}, {"start": -2, "end": -1}, {"end": 10}])
def test_shape_and_size(attrs):
    x = data([2, 3, 4, 5])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Shape", ["r"], ["s"], name="shape", **attrs),
             helper.make_node("Size", ["r"], ["n"], name="size")]
    check(model(nodes, [info("x", x)], [info("s", TensorProto.INT64, None),
                                        info("n", TensorProto.INT64, None)], opset=15),
          {"x": x}, ["relu", "shape", "size"])


# ---- Transpose, Concat, Split, Slice, Expand, Tile, Pad, Where, Gather, Cast

@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float16])
@pytest.mark.parametrize("shape,perm", [
    ([2, 3], None), ([2, 3, 4], [0, 2, 1]), ([2, 3, 4, 5], [0, 2, 3, 1]),
    ([2, 3, 4, 5], [3, 1, 0, 2]), ([1, 2, 1, 3, 2, 2], [5, 4, 3, 2, 1, 0]), ([2, 0, 3], [2, 1, 0]),
    ([7], [0]), ([2, 7, 4, 16], [0, 2, 1, 3])])
def test_transpose(dtype, shape, perm):
    x = data(shape, dtype)
    attrs = {"perm": perm} if perm is not None else {}
    check(single("Transpose", x, NP_TO_ONNX[dtype], **attrs), {"x": x})


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("shapes,axis", [([[2, 3], [2, 5]], 1), ([[2, 3], [4, 3], [1, 3]], 0),
                                         ([[2, 3, 4], [2, 3, 0], [2, 3, 1]], -1),
                                         ([[1], [1], [1]], 0)])
def test_concat(dtype, shapes, axis):
    feeds = {f"x{i}": data(s, dtype) for i, s in enumerate(shapes)}
    node = helper.make_node("Concat", list(feeds), ["y"], name="n", axis=axis)
    check(model([node], [info(k, v) for k, v in feeds.items()],
                [info("y", NP_TO_ONNX[dtype], None)]), feeds)


@pytest.mark.parametrize("opset,split,axis,outputs,extra", [
    (11, [2, 3], 1, 2, {}), (13, [1, 1, 3], -1, 3, {}), (13, None, 0, 2, {}),
    (18, None, 1, 2, {"num_outputs": 2}), (18, None, 1, 3, {"num_outputs": 3})])
def test_split(opset, split, axis, outputs, extra):
    x = data([4, 5], np.int64)
    names = [f"y{i}" for i in range(outputs)]
    inputs, inits, attrs = ["x"], [], dict(extra, axis=axis)
    if split is not None and opset >= 13:
        inputs.append("s")
        inits.append(const("s", split))
    elif split is not None:
        attrs["split"] = split
    node = helper.make_node("Split", inputs, names, name="n", **attrs)
    check(model([node], [info("x", x)], [info(n, TensorProto.INT64, None) for n in names], inits,
                opset=opset), {"x": x})


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("starts,ends,axes,steps", [
    ([1], [3], [0], [1]), ([0, 1], [10, -1], [0, 1], [2, 1]), ([-1], [-100], [1], [-1]),
    ([4], [0], [-1], [-2]), ([2], [2], [0], [1]), ([0, 0], [1, 1000], [-2, -1], None),
    ([-1000], [1000], [1], [3]), ([5], [1], [1], [1])])
def test_slice(dtype, starts, ends, axes, steps):
    x = data([4, 6], dtype)
    names = ["x", "starts", "ends", "axes"] + (["steps"] if steps is not None else [])
    inits = [const("starts", starts), const("ends", ends), const("axes", axes)]
    if steps is not None:
        inits.append(const("steps", steps))
    node = helper.make_node("Slice", names, ["y"], name="n")
    check(model([node], [info("x", x)], [info("y", NP_TO_ONNX[dtype], None)], inits), {"x": x})


def test_slice_opset_9_attributes():
    x = data([4, 6])
    check(single("Slice", x, TensorProto.FLOAT, opset=9, starts=[1, -3], ends=[3, 100],
                 axes=[0, 1]), {"x": x})


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("shape,target", [([3, 1], [2, 3, 4]), ([1], [5]), ([2, 3], [1, 1]),
                                          ([4, 1, 2], [4, 3, 1]), ([2, 1], [2, 0])])
def test_expand(dtype, shape, target):
    x = data(shape, dtype)
    check(single("Expand", x, NP_TO_ONNX[dtype], [const("s", target)], ["s"]), {"x": x})


@pytest.mark.parametrize("shape,repeats", [([2, 3], [2, 2]), ([3], [4]), ([2, 1, 3], [1, 3, 2]),
                                           ([2, 3], [0, 1])])
def test_tile(shape, repeats):
    x = data(shape, np.int64)
    check(single("Tile", x, TensorProto.INT64, [const("r", repeats)], ["r"]), {"x": x})


@pytest.mark.parametrize("mode,pads", [
    (mode, pads) for mode in ["constant", "edge", "reflect"]
    for pads in [[0, 1, 0, 2], [1, 1, 1, 1], [2, 0, 0, 3]]] + [("constant", [0, -1, 1, 0])])
def test_pad(mode, pads):
    x = data([3, 4])
    inputs, inits = ["x", "p"], [const("p", pads)]
    if mode == "constant":
        inputs.append("v")
        inits.append(const("v", 1.5, np.float32))
    node = helper.make_node("Pad", inputs, ["y"], name="n", mode=mode)
    check(model([node], [info("x", x)], [info("y", TensorProto.FLOAT, None)], inits), {"x": x})


def test_pad_int64_with_axes():
    x = data([2, 3, 4], np.int64)
    node = helper.make_node("Pad", ["x", "p", "v", "a"], ["y"], name="n")
    check(model([node], [info("x", x)], [info("y", TensorProto.INT64, None)],
                [const("p", [1, 2, 0, 1]), const("v", 7), const("a", [0, -1])], opset=18),
          {"x": x})


def test_pad_wrap_is_declined():
    x = data([3, 4])
    node = helper.make_node("Pad", ["x", "p"], ["y"], name="n", mode="wrap")
    session = check(model([node], [info("x", x)], [info("y", TensorProto.FLOAT, None)],
                          [const("p", [0, 1, 0, 1])], opset=19), {"x": x}, [])
    assert placement(session)["n"] == "CPUExecutionProvider"
    assert "mode='wrap'" in report_of(session)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])  # onnxruntime: no bool Where
@pytest.mark.parametrize("shapes", [([2, 3], [2, 3], [2, 3]), ([2, 1], [1, 3], [3]),
                                    ([], [2, 3], [1]), ([4, 1, 5], [3, 1], [1, 5])])
def test_where(dtype, shapes):
    feeds = {"c": data(shapes[0], np.bool_), "a": data(shapes[1], dtype),
             "b": data(shapes[2], dtype)}
    node = helper.make_node("Where", ["c", "a", "b"], ["y"], name="n")
    check(model([node], [info(k, v) for k, v in feeds.items()],
                [info("y", NP_TO_ONNX[dtype], None)]), feeds)


@pytest.mark.parametrize("index_type", [np.int64, np.int32])
@pytest.mark.parametrize("shape,axis,indices", [
    ([5, 4], 0, [[0, 4], [-1, 2]]), ([5, 4], 1, [3, -4, 0]), ([2, 3, 4], -1, 2),
    ([30522, 8], 0, [[101, 2023, 102, 0]]), ([5, 4], 0, np.zeros([0], np.int64))])
def test_gather(index_type, shape, axis, indices):
    x = data(shape)
    i = np.array(indices).astype(index_type)
    node = helper.make_node("Gather", ["x", "i"], ["y"], name="n", axis=axis)
    check(model([node], [info("x", x), info("i", i)], [info("y", TensorProto.FLOAT, None)]),
          {"x": x, "i": i})


def test_gather_with_constant_indices_and_int64_data():
    x = data([6, 3], np.int64)
    node = helper.make_node("Gather", ["x", "i"], ["y"], name="n", axis=0)
    check(model([node], [info("x", x)], [info("y", TensorProto.INT64, None)],
                [const("i", [5, -6, 0])]), {"x": x})


@pytest.mark.parametrize("bad", [5, -6])
def test_gather_index_out_of_range_is_an_error(bad):
    x = data([5, 4])
    i = np.array([0, bad], np.int64)
    node = helper.make_node("Gather", ["x", "i"], ["y"], name="n", axis=0)
    data_bytes = model([node], [info("x", x), info("i", i)], [info("y", TensorProto.FLOAT, None)])
    session = ort.InferenceSession(data_bytes, providers=CUDA)
    assert placement(session)["n"] == "CUDAExecutionProvider"
    with pytest.raises(ort.PrismError, match="out of range"):
        session.run(None, {"x": x, "i": i})
    # The session still works afterwards.
    good = np.array([4, -5], np.int64)
    np.testing.assert_array_equal(session.run(None, {"x": x, "i": good})[0], x[[4, -5]])


CAST_TYPES = [np.float32, np.float16, np.float64, np.int8, np.uint8, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("source", CAST_TYPES)
@pytest.mark.parametrize("target", CAST_TYPES)
def test_cast(source, target):
    x = (RNG.randn(3, 17) * 20).astype(np.float32)
    if np.dtype(source).kind in "iu" or np.dtype(target).kind in "iu":
        x = np.round(x)
    if np.dtype(source).kind == "u" or np.dtype(target).kind == "u":
        x = np.abs(x)
    x[0, :3] = 0
    x = x.astype(source)
    check(single("Cast", x, NP_TO_ONNX[target], to=NP_TO_ONNX[target]), {"x": x})


def test_cast_to_other_types_is_declined():
    x = np.abs(data([3]))
    session = check(single("Cast", x, TensorProto.UINT16, to=TensorProto.UINT16), {"x": x}, [])
    assert placement(session)["n"] == "CPUExecutionProvider"
    # Neither EP has a uint16 Cast: the report names the kernel constraint that excludes it.
    assert "tensor(uint16), not in constraint T2" in report_of(session)


# ---- LayerNormalization, SkipLayerNormalization

@pytest.mark.parametrize("shape,axis", [([2, 5, 64], -1), ([3, 4, 6], 1), ([4, 1000], -1),
                                        ([2, 3], 0), ([0, 8], -1), ([3, 700], -1),
                                        ([2, 1900], -1), ([2, 3000], -1)])
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("stats", [False, True])
def test_layer_normalization(shape, axis, with_bias, stats):
    x = (data(shape) * 3 + 1).astype(np.float32)
    norm = shape[axis:] if axis >= 0 else shape[axis:]
    inits = [numpy_helper.from_array(data(norm), "scale")]
    inputs = ["x", "scale"]
    if with_bias:
        inits.append(numpy_helper.from_array(data(norm), "bias"))
        inputs.append("bias")
    outputs = ["y", "mean", "inv_std"] if stats else ["y"]
    node = helper.make_node("LayerNormalization", inputs, outputs, name="n", axis=axis,
                            epsilon=1e-5)
    check(model([node], [info("x", x)], [info(o, TensorProto.FLOAT, None) for o in outputs],
                inits), {"x": x}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("skip_shape", [[2, 7, 32], [1, 7, 32], [7, 32]])
@pytest.mark.parametrize("with_bias", [True, False])
def test_skip_layer_normalization(skip_shape, with_bias):
    x = data([2, 7, 32])
    skip = data(skip_shape)
    inits = [numpy_helper.from_array(data([32]), "gamma"),
             numpy_helper.from_array(data([32]), "beta")]
    inputs = ["x", "skip", "gamma", "beta"]
    if with_bias:
        inits.append(numpy_helper.from_array(data([32]), "bias"))
        inputs.append("bias")
    node = helper.make_node("SkipLayerNormalization", inputs, ["y", "", "", "sum"], name="n",
                            domain="com.microsoft", epsilon=1e-6)
    check(model([node], [info("x", x), info("skip", skip)],
                [info("y", TensorProto.FLOAT, None), info("sum", TensorProto.FLOAT, None)],
                inits, ms=True), {"x": x, "skip": skip}, rtol=1e-4, atol=1e-5)


# ---- reductions

REDUCTIONS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
              "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"]


@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("shape,axes,keepdims", [
    ([3, 4, 5], [1], 1), ([3, 4, 5], [-1], 0), ([3, 4, 5], [0, 2], 1), ([3, 4, 5], None, 0),
    ([2, 300], [1], 1), ([1000, 3], [0], 0), ([2, 3, 4, 5], [1, 3], 0)])
@pytest.mark.parametrize("opset", [13, 18])
def test_reductions(op, shape, axes, keepdims, opset):
    x = RNG.rand(*shape).astype(np.float32) + 0.5
    if op == "ReduceProd":  # near 1, so that long products stay finite
        x = (1 + (RNG.rand(*shape) - 0.5) * 0.01).astype(np.float32)
    axes_in_input = opset >= 18 or op == "ReduceSum"
    inputs, inits, attrs = ["x"], [], {"keepdims": keepdims}
    if axes is not None and axes_in_input:
        inputs.append("axes")
        inits.append(const("axes", axes))
    elif axes is not None:
        attrs["axes"] = axes
    node = helper.make_node(op, inputs, ["y"], name="n", **attrs)
    check(model([node], [info("x", x)], [info("y", TensorProto.FLOAT, None)], inits, opset=opset),
          {"x": x}, rtol=2e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax"])
def test_reduction_noop_with_empty_axes(op):
    x = data([3, 4])
    node = helper.make_node(op, ["x"], ["y"], name="n", noop_with_empty_axes=1)
    check(model([node], [info("x", x)], [info("y", TensorProto.FLOAT, None)], opset=18), {"x": x})


# ---- shape computations stay on the CPU EP

def bert_like_reshape():
    """x [B, S, 64] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), Unsqueeze(Gather(Shape(x),
    1)), [4, 16])) -> Transpose -> Sigmoid: the heads split as exporters write it."""
    nodes = [
        helper.make_node("Relu", ["x"], ["h"], name="relu"),
        helper.make_node("Shape", ["h"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["b"], name="gather_b", axis=0),
        helper.make_node("Gather", ["shape", "one"], ["s"], name="gather_s", axis=0),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b1"], name="unsqueeze_b"),
        helper.make_node("Unsqueeze", ["s", "axes0"], ["s1"], name="unsqueeze_s"),
        helper.make_node("Concat", ["b1", "s1", "heads"], ["new_shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["h", "new_shape"], ["r"], name="reshape"),
        helper.make_node("Transpose", ["r"], ["t"], name="transpose", perm=[0, 2, 1, 3]),
        helper.make_node("Sigmoid", ["t"], ["y"], name="sigmoid"),
    ]
    inits = [const("zero", 0), const("one", 1), const("axes0", [0]), const("heads", [4, 16])]
    return model(nodes, [info("x", TensorProto.FLOAT, ["B", "S", 64])],
                 [info("y", TensorProto.FLOAT, None)], inits, opset=13)


def test_shape_chain_runs_on_the_cpu_and_the_reshape_on_cuda():
    x = data([2, 7, 64])
    session = check(bert_like_reshape(), {"x": x},
                    ["relu", "shape", "reshape", "transpose", "sigmoid"], rtol=1e-4, atol=1e-6,
                    options=ort.SessionOptions())
    where = placement(session)
    for node in ["gather_b", "gather_s", "unsqueeze_b", "unsqueeze_s", "concat"]:
        assert where[node] == "CPUExecutionProvider", (node, report_of(session))
    assert "shape computation: kept on the CPU" in report_of(session)
    # Only x goes to the device; Shape's output and the shape chain never cross.
    assert copies(session) == [("x", "Cpu:0", "Cuda:0")], report_of(session)


def test_device_io_binding_with_the_shape_chain():
    x = data([3, 5, 64])
    session = ort.InferenceSession(bert_like_reshape(), providers=CUDA)
    binding = session.io_binding()
    binding.bind_ortvalue_input("x", ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
    binding.bind_output("y", "cuda", 0)
    session.run_with_iobinding(binding)
    expected = onnxruntime.InferenceSession(
        bert_like_reshape(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(binding.get_outputs()[0].numpy(), expected, rtol=1e-4, atol=1e-6)


def test_bert_attention_mask_chain_runs_on_cuda():
    """mask [B, S] int64 -> Unsqueeze -> Unsqueeze -> Cast -> Sub(1, .) -> Mul(-10000) -> Add to
    scores: the mask is data, so the whole chain runs on CUDA."""
    mask = (RNG.rand(2, 6) > 0.3).astype(np.int64)
    scores = data([2, 4, 6, 6])
    nodes = [
        helper.make_node("Unsqueeze", ["mask", "axes1"], ["m1"], name="unsqueeze1"),
        helper.make_node("Unsqueeze", ["m1", "axes2"], ["m2"], name="unsqueeze2"),
        helper.make_node("Cast", ["m2"], ["mf"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Sub", ["one", "mf"], ["inv"], name="sub"),
        helper.make_node("Mul", ["inv", "big"], ["bias"], name="mul"),
        helper.make_node("Add", ["scores", "bias"], ["z"], name="add"),
        helper.make_node("Softmax", ["z"], ["y"], name="softmax", axis=-1),
    ]
    inits = [const("axes1", [1]), const("axes2", [2]), const("one", 1.0, np.float32),
             const("big", -10000.0, np.float32)]
    session = check(model(nodes, [info("mask", mask), info("scores", scores)],
                          [info("y", TensorProto.FLOAT, None)], inits, opset=13),
                    {"mask": mask, "scores": scores},
                    ["cast", "sub", "mul", "add", "softmax"],
                    rtol=1e-4, atol=1e-6, options=ort.SessionOptions())
    # The two Unsqueezes may be merged into one Reshape by the basic passes: whatever is left
    # runs on CUDA.
    assert set(placement(session).values()) == {"CUDAExecutionProvider"}, report_of(session)
    assert sorted(c[0] for c in copies(session)) == ["mask", "scores"], report_of(session)


def test_layer_norm_fusion_runs_on_cuda():
    """The decomposed layer normalization exporters write becomes one LayerNormalization on
    CUDA."""
    x = data([2, 5, 16])
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], name="mean", axes=[-1]),
        helper.make_node("Sub", ["x", "mean"], ["d"], name="sub"),
        helper.make_node("Pow", ["d", "two"], ["sq"], name="pow"),
        helper.make_node("ReduceMean", ["sq"], ["var"], name="var", axes=[-1]),
        helper.make_node("Add", ["var", "eps"], ["ve"], name="add_eps"),
        helper.make_node("Sqrt", ["ve"], ["std"], name="sqrt"),
        helper.make_node("Div", ["d", "std"], ["norm"], name="div"),
        helper.make_node("Mul", ["norm", "gamma"], ["scaled"], name="mul"),
        helper.make_node("Add", ["scaled", "beta"], ["y"], name="add_beta"),
    ]
    inits = [const("two", 2.0, np.float32), const("eps", 1e-5, np.float32),
             numpy_helper.from_array(data([16]), "gamma"),
             numpy_helper.from_array(data([16]), "beta")]
    data_bytes = model(nodes, [info("x", x)], [info("y", TensorProto.FLOAT, [2, 5, 16])], inits,
                       opset=13)
    expected = onnxruntime.InferenceSession(data_bytes, providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    session = ort.InferenceSession(data_bytes, providers=CUDA)
    report = report_of(session)
    assert re.search(r"-> CUDAExecutionProvider: .*mean", report), report
    np.testing.assert_allclose(session.run(None, {"x": x})[0], expected, rtol=1e-4, atol=1e-5)
    assert copies(session) == [("x", "Cpu:0", "Cuda:0")], report
