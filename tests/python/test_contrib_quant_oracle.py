"""com.microsoft quantized ops and FusedConv against onnxruntime's CPU EP on random inputs:
QuantizeLinear/DequantizeLinear (per tensor and per axis), QLinearAdd, QLinearMul,
QLinearSigmoid, QLinearLeakyRelu, QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat,
DynamicQuantizeMatMul, MatMulNBits (weights packed by onnxruntime's own 4-bit quantizer) and
FusedConv; then whole models written by onnxruntime.quantization (quantize_static in QOperator
format, quantize_dynamic).

Quantized results must equal onnxruntime's: Prism repeats onnxruntime's float steps in the same
order (measured: no difference in 1.2e5 random QLinearAdd/Mul/AveragePool elements per type).
The one exception allowed is QLinearSigmoid, whose table onnxruntime fills with its own
vectorized logistic approximation while Prism uses std::exp: a result may be one quantization
step off there (none seen in 2.5e4 values), and 90% must still be equal."""
import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort
from ort_int8_exactness import model_for_exact_onnxruntime

_RNG = np.random.default_rng(20261125)
MS = "com.microsoft"


def _model(op, inputs, outputs, constants=(), domain=MS, **attrs):
    node = helper.make_node(op, [n if v is not None else "" for n, v in inputs], outputs,
                            domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "contrib_quant",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
         for n, v in inputs if v is not None and n not in constants],
        [onnx.ValueInfoProto(name=o) for o in outputs],
        initializer=[onnx.numpy_helper.from_array(v, n) for n, v in inputs
                     if v is not None and n in constants])
    model = helper.make_model(graph, ir_version=10, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    return model.SerializeToString(), {n: v for n, v in inputs
                                       if v is not None and n not in constants}


def _run_both(model, feeds, int8_weights=False):
    """int8_weights: the model's int8 weights meet uint8 activations in a GEMM (see
    ort_int8_exactness.model_for_exact_onnxruntime)."""
    peer_model = model_for_exact_onnxruntime(model) if int8_weights else model
    expected = onnxruntime.InferenceSession(
        peer_model, providers=["CPUExecutionProvider"]).run(None, feeds)
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    return actual, expected


def _check(op, inputs, outputs=("Y",), constants=(), steps=0, int8_weights=False, **attrs):
    """steps: how many quantization steps an integer result may differ by."""
    actual, expected = _run_both(*_model(op, inputs, list(outputs), constants, **attrs),
                                 int8_weights=int8_weights)
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, a.shape, e.dtype, e.shape)
        if np.issubdtype(e.dtype, np.integer):
            diff = np.abs(a.astype(np.int64) - e.astype(np.int64))
            assert diff.max(initial=0) <= steps, (op, attrs, diff.max(), a, e)
            if steps and diff.size >= 16:
                assert (diff == 0).mean() >= 0.9, (op, attrs, (diff == 0).mean())
        else:
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)
    return actual


def _q(dtype, shape):
    info = np.iinfo(dtype)
    return _RNG.integers(info.min, info.max + 1, size=shape).astype(dtype)


def _zp(dtype):
    info = np.iinfo(dtype)
    return np.array(_RNG.integers(info.min // 2, info.max // 2 + 1), dtype=dtype)


def _scale(low=0.005, high=0.05):
    return np.array(_RNG.uniform(low, high), dtype=np.float32)


# ---- QuantizeLinear / DequantizeLinear ----

@pytest.mark.parametrize("qtype", [np.uint8, np.int8, np.uint16, np.int16])
@pytest.mark.parametrize("xtype", [np.float32, np.float16])
@pytest.mark.parametrize("per_axis", [False, True])
def test_quantize_dequantize(qtype, xtype, per_axis):
    x = (_RNG.standard_normal((2, 3, 4)) * 4).astype(xtype)
    x.flat[:4] = np.array([0.5, 1.5, -2.5, 6e4], dtype=xtype)  # ties and saturation
    if per_axis:
        scale = _RNG.uniform(0.01, 0.1, size=3).astype(xtype)
        zero = np.array([_zp(qtype) for _ in range(3)], dtype=qtype)
    else:
        scale, zero = np.array(1.0, dtype=xtype), _zp(qtype)
    q = _check("QuantizeLinear", [("x", x), ("s", scale), ("z", zero)], axis=1)[0]
    _check("DequantizeLinear", [("q", q), ("s", scale), ("z", zero)], axis=1)


def test_quantize_without_zero_point_and_negative_axis():
    x = (_RNG.standard_normal((3, 5)) * 3).astype(np.float32)
    scale = _RNG.uniform(0.01, 0.1, size=5).astype(np.float32)
    q = _check("QuantizeLinear", [("x", x), ("s", scale)], axis=-1)[0]
    assert q.dtype == np.uint8
    _check("DequantizeLinear", [("q", q), ("s", scale)], axis=-1)
    _check("DequantizeLinear", [("q", _q(np.int32, (3, 5)) // 1000),
                                ("s", np.array(0.5, np.float32))])


@pytest.mark.parametrize("qtype", [TensorProto.INT4, TensorProto.UINT4])
def test_quantize_dequantize_int4(qtype):
    x = (_RNG.standard_normal((3, 5)) * 3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], domain=MS),
         helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], domain=MS)], "int4",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[helper.make_tensor("s", TensorProto.FLOAT, [], [0.7]),
                     helper.make_tensor("z", qtype, [], [1])])
    model = helper.make_model(graph, ir_version=10, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)]).SerializeToString()
    actual, expected = _run_both(model, {"x": x})
    np.testing.assert_array_equal(actual[0], expected[0])


# ---- QLinearAdd / QLinearMul ----

@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("shapes", [((2, 3, 8), (2, 3, 8)), ((2, 3, 8), (8,)), ((4, 1), (1, 5)),
                                    ((3, 1, 6), (1, 4, 1)), ((7,), ())])
@pytest.mark.parametrize("with_zeros", [True, False])
def test_qlinear_binary(op, dtype, shapes, with_zeros):
    a, b = _q(dtype, shapes[0]), _q(dtype, shapes[1])
    c_scale = _scale(0.02, 0.2) if op == "QLinearAdd" else _scale(0.2, 2.0)
    # onnxruntime's type inference refuses omitted zero points here: zeros of 0 instead (Prism's
    # omitted zero points are checked in contrib_quant_test.cc).
    zeros = [_zp(dtype) if with_zeros else np.array(0, dtype) for _ in range(3)]
    _check(op, [("A", a), ("As", _scale()), ("Az", zeros[0]), ("B", b), ("Bs", _scale()),
                ("Bz", zeros[1]), ("Cs", c_scale), ("Cz", zeros[2])])


# ---- QLinearSigmoid / QLinearLeakyRelu ----

@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_qlinear_sigmoid(dtype):
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype).reshape(16, 16)
    y_scale = np.array(1.0 / 256, np.float32)
    y_zero = np.array(0 if dtype == np.uint8 else -128, dtype=dtype)
    _check("QLinearSigmoid", [("X", x), ("Xs", _scale(0.02, 0.08)), ("Xz", _zp(dtype)),
                              ("Ys", y_scale), ("Yz", y_zero)], steps=1)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("alpha", [0.1, 0.01, 1.7])
def test_qlinear_leaky_relu(dtype, alpha):
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype).reshape(4, 64)
    _check("QLinearLeakyRelu", [("X", x), ("Xs", _scale()), ("Xz", _zp(dtype)),
                                ("Ys", _scale()), ("Yz", _zp(dtype))], alpha=alpha)


# ---- QLinearAveragePool / QLinearGlobalAveragePool ----

_POOL_CASES = [
    dict(kernel_shape=[2, 2]),
    dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
    dict(kernel_shape=[3, 2], strides=[2, 1], ceil_mode=1),
    dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER"),
    dict(kernel_shape=[3], strides=[2]),
]


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("attrs", _POOL_CASES)
@pytest.mark.parametrize("channels_last", [0, 1])
def test_qlinear_average_pool(dtype, attrs, channels_last):
    spatial = (7, 9) if len(attrs["kernel_shape"]) == 2 else (11,)
    shape = (2, 3) + spatial
    if channels_last:
        shape = (2,) + spatial + (3,)
    _check("QLinearAveragePool", [("X", _q(dtype, shape)), ("Xs", _scale()), ("Xz", _zp(dtype)),
                                  ("Ys", _scale()), ("Yz", _zp(dtype))],
           channels_last=channels_last, **attrs)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("channels_last", [0, 1])
def test_qlinear_global_average_pool(dtype, channels_last):
    shape = (2, 5, 6, 7) if not channels_last else (2, 6, 7, 5)
    _check("QLinearGlobalAveragePool", [("X", _q(dtype, shape)), ("Xs", _scale()),
                                        ("Xz", _zp(dtype)), ("Ys", _scale(0.001, 0.01)),
                                        ("Yz", _zp(dtype))], channels_last=channels_last)


# ---- QLinearConcat ----

@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_qlinear_concat(dtype, axis):
    y_scale, y_zero = _scale(), _zp(dtype)
    inputs = [("Ys", y_scale), ("Yz", y_zero)]
    for k, extent in enumerate([2, 3, 1]):
        shape = [2, 4, 5]
        shape[axis] = extent
        # The second input shares Y's parameters (a plain copy), the others are requantized.
        scale, zero = (y_scale, y_zero) if k == 1 else (_scale(), _zp(dtype))
        inputs += [(f"X{k}", _q(dtype, shape)), (f"S{k}", scale), (f"Z{k}", zero)]
    _check("QLinearConcat", inputs, constants=("Ys", "Yz", "S0", "Z0", "S1", "Z1", "S2", "Z2"),
           axis=axis)


# ---- exact ties: scales whose ratios are halves, so many results fall on .5 ----

@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_ties_round_half_to_even(dtype):
    one, half = np.array(1.0, np.float32), np.array(0.5, np.float32)
    zero = np.array(3, dtype)
    a, b = _q(dtype, (4, 64)), _q(dtype, (4, 64))
    for op in ["QLinearAdd", "QLinearMul"]:
        c_scale = np.array(2.0 if op == "QLinearAdd" else 4.0, np.float32)
        _check(op, [("A", a), ("As", one), ("Az", zero), ("B", b), ("Bs", half), ("Bz", zero),
                    ("Cs", c_scale), ("Cz", zero)])
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype).reshape(4, 64)
    _check("QLinearLeakyRelu", [("X", x), ("Xs", one), ("Xz", zero), ("Ys", one), ("Yz", zero)],
           alpha=0.5)
    _check("QLinearAveragePool", [("X", _q(dtype, (2, 3, 8, 8))), ("Xs", one), ("Xz", zero),
                                  ("Ys", one), ("Yz", zero)], kernel_shape=[2, 2])
    _check("QLinearGlobalAveragePool", [("X", _q(dtype, (2, 3, 2, 2))), ("Xs", one),
                                        ("Xz", zero), ("Ys", one), ("Yz", zero)])
    _check("QLinearConcat", [("Ys", one), ("Yz", zero), ("X0", x), ("S0", half), ("Z0", zero),
                             ("X1", x), ("S1", one), ("Z1", zero)],
           constants=("Ys", "Yz", "S0", "Z0", "S1", "Z1"), axis=0)
    _check("QuantizeLinear", [("x", (_RNG.integers(-40, 40, size=64) + 0.5).astype(np.float32)),
                              ("s", one), ("z", zero)])


# ---- DynamicQuantizeMatMul ----

@pytest.mark.parametrize("btype", [np.uint8, np.int8])
@pytest.mark.parametrize("per_column", [False, True])
@pytest.mark.parametrize("with_zero_and_bias", [False, True])
def test_dynamic_quantize_matmul(btype, per_column, with_zero_and_bias):
    a = _RNG.standard_normal((2, 3, 16)).astype(np.float32)
    b = _q(btype, (16, 6))
    scale = (_RNG.uniform(0.01, 0.1, size=6) if per_column else _scale()).astype(np.float32)
    zero = bias = None
    if with_zero_and_bias:
        zero = (np.array([_zp(btype) for _ in range(6)], btype) if per_column else _zp(btype))
        bias = _RNG.standard_normal(6).astype(np.float32)
    _check("DynamicQuantizeMatMul", [("A", a), ("B", b), ("bs", scale), ("bz", zero),
                                     ("bias", bias)], constants=("B", "bs", "bz", "bias"),
           int8_weights=btype == np.int8)


# ---- MatMulNBits ----

def _pack_4bits(weight, block_size, symmetric):
    """onnxruntime's own 4-bit packing (what MatMulNBitsQuantizer calls)."""
    from onnxruntime.capi._pybind_state import quantize_matmul_4bits
    rows, cols = weight.shape
    k_blocks = (rows + block_size - 1) // block_size
    padded = np.pad(weight, ((0, k_blocks * block_size - rows), (0, 0)))
    packed = np.zeros((cols, k_blocks, block_size // 2), np.uint8)
    zeros = np.zeros((cols, (k_blocks + 1) // 2), np.uint8)
    scales = np.zeros((cols, k_blocks), weight.dtype)
    quantize_matmul_4bits(packed, np.ascontiguousarray(padded), scales, zeros, block_size, cols,
                          rows, symmetric)
    return packed, scales.reshape(-1), zeros.reshape(-1)


@pytest.mark.parametrize("block_size", [16, 32, 64, 128, 256])
@pytest.mark.parametrize("symmetric", [False, True])
def test_matmul_nbits(block_size, symmetric):
    k, n = 100, 12  # K not a multiple of any block size: the last block is padded
    weight = _RNG.standard_normal((k, n)).astype(np.float32)
    packed, scales, zeros = _pack_4bits(weight, block_size, symmetric)
    a = _RNG.standard_normal((2, 3, k)).astype(np.float32)
    bias = _RNG.standard_normal(n).astype(np.float32)
    inputs = [("A", a), ("B", packed), ("scales", scales), ("zp", None if symmetric else zeros),
              ("g_idx", None), ("bias", bias if block_size == 32 else None)]
    model, feeds = _model("MatMulNBits", inputs, ["Y"], constants=("B", "scales", "zp", "bias"),
                          K=k, N=n, bits=4, block_size=block_size, accuracy_level=0)
    actual, expected = _run_both(model, feeds)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-4, atol=1e-4)


def test_matmul_nbits_float_zero_points():
    k, n, block = 64, 8, 32
    packed = _RNG.integers(0, 256, size=(n, 2, 16)).astype(np.uint8)
    scales = _RNG.uniform(0.01, 0.1, size=n * 2).astype(np.float32)
    zeros = _RNG.uniform(5, 10, size=n * 2).astype(np.float32)
    a = _RNG.standard_normal((3, k)).astype(np.float32)
    model, feeds = _model("MatMulNBits", [("A", a), ("B", packed), ("scales", scales),
                                          ("zp", zeros)], ["Y"], constants=("B", "scales", "zp"),
                          K=k, N=n, bits=4, block_size=block)
    actual, expected = _run_both(model, feeds)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("bits", [2, 4, 8])
@pytest.mark.parametrize("zero_points", ["none", "packed", "float"])
def test_matmul_nbits_every_width(bits, zero_points):
    """Random packed bytes at 2, 4 and 8 bits (per_byte values a byte, the first lowest),
    K not a multiple of the block, zero points absent (2^(bits - 1)), packed or float."""
    k, n, block = 80, 6, 32
    blocks = (k + block - 1) // block
    packed = _RNG.integers(0, 256, size=(n, blocks, block * bits // 8)).astype(np.uint8)
    scales = _RNG.uniform(0.01, 0.1, size=n * blocks).astype(np.float32)
    per_byte = 8 // bits
    zeros = {"none": None,
             "packed": _RNG.integers(0, 256, size=n * ((blocks + per_byte - 1) // per_byte))
             .astype(np.uint8),
             "float": _RNG.uniform(0, 2 ** bits - 1, size=n * blocks).astype(np.float32)}[
        zero_points]
    a = _RNG.standard_normal((3, k)).astype(np.float32)
    model, feeds = _model("MatMulNBits", [("A", a), ("B", packed), ("scales", scales),
                                          ("zp", zeros)], ["Y"], constants=("B", "scales", "zp"),
                          K=k, N=n, bits=bits, block_size=block)
    if bits == 8 and zero_points == "float":
        # onnxruntime 1.31 computes float zero points only at 2 and 4 bits: the spec's formula
        # in numpy, (q - zero_point) * scale per block.
        q = packed.reshape(n, blocks * block)[:, :k].astype(np.float64)
        block_of = np.arange(k) // block
        z = zeros.reshape(n, blocks)[:, block_of]
        w = (q - z) * scales.reshape(n, blocks)[:, block_of]
        expected = [(a.astype(np.float64) @ w.T).astype(np.float32)]
        actual = ort.InferenceSession(model).run(None, feeds)
    else:
        actual, expected = _run_both(model, feeds)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-5, atol=1e-5)


def test_matmul_nbits_float16_and_accuracy_level():
    k, n, block = 64, 8, 32
    weight = _RNG.standard_normal((k, n)).astype(np.float16)
    packed, scales, zeros = _pack_4bits(weight, block, False)
    a = _RNG.standard_normal((5, k)).astype(np.float16)
    model, feeds = _model("MatMulNBits", [("A", a), ("B", packed), ("scales", scales),
                                          ("zp", zeros)], ["Y"],
                          constants=("B", "scales", "zp"), K=k, N=n, bits=4, block_size=block,
                          accuracy_level=1)
    actual, expected = _run_both(model, feeds)
    assert actual[0].dtype == np.float16
    np.testing.assert_allclose(actual[0].astype(np.float32), expected[0].astype(np.float32),
                               rtol=1e-2, atol=2e-2)


# ---- FusedConv ----

@pytest.mark.parametrize("activation,params", [
    ("Relu", None), ("Tanh", None), ("Sigmoid", None), ("LeakyRelu", [0.2]),
    ("Clip", [-0.5, 0.7]), ("HardSigmoid", [0.3, 0.4]), (None, None)])
@pytest.mark.parametrize("with_z", [False, True])
def test_fused_conv(activation, params, with_z):
    x = _RNG.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = _RNG.standard_normal((6, 2, 3, 3)).astype(np.float32) * 0.3
    b = _RNG.standard_normal(6).astype(np.float32)
    z = _RNG.standard_normal((2, 6, 4, 3)).astype(np.float32) if with_z else None
    attrs = dict(group=2, strides=[2, 2], pads=[1, 0, 1, 1])
    if activation:
        attrs["activation"] = activation
    if params:
        attrs["activation_params"] = params
    _check("FusedConv", [("X", x), ("W", w), ("B", b), ("Z", z)], **attrs)


@pytest.mark.parametrize("activation,params", [
    ("Relu", None), ("LeakyRelu", [0.2]), ("Clip", [0.0, 6.0]), ("Sigmoid", None), (None, None)])
@pytest.mark.parametrize("with_z", [False, True])
def test_fused_conv_depthwise(activation, params, with_z):
    # One input and one output channel per group: the depthwise kernel's path, with the bias,
    # Z and the activation applied to each channel's plane.
    x = _RNG.standard_normal((1, 5, 19, 21)).astype(np.float32)
    w = _RNG.standard_normal((5, 1, 3, 3)).astype(np.float32)
    b = _RNG.standard_normal(5).astype(np.float32)
    z = _RNG.standard_normal((1, 5, 10, 11)).astype(np.float32) if with_z else None
    attrs = dict(group=5, strides=[2, 2], pads=[1, 1, 1, 1])
    if activation:
        attrs["activation"] = activation
    if params:
        attrs["activation_params"] = params
    _check("FusedConv", [("X", x), ("W", w), ("B", b), ("Z", z)], **attrs)


# ---- errors ----

def test_refusals_name_the_problem():
    bad = _model("QLinearAdd", [("A", _q(np.uint8, (2,))), ("As", np.ones(2, np.float32)),
                                ("Az", None), ("B", _q(np.uint8, (2,))), ("Bs", _scale()),
                                ("Bz", None), ("Cs", _scale()), ("Cz", None)], ["Y"])
    with pytest.raises(Exception, match="A_scale must be one float"):
        ort.InferenceSession(bad[0], providers=["CPUExecutionProvider"]).run(None, bad[1])
    with pytest.raises(Exception, match="activation 'Gelu' is not one of"):
        ort.InferenceSession(_model("FusedConv", [("X", np.zeros((1, 1, 3, 3), np.float32)),
                                                  ("W", np.zeros((1, 1, 1, 1), np.float32))],
                                    ["Y"], activation="Gelu")[0],
                             providers=["CPUExecutionProvider"])


# ---- whole models from onnxruntime.quantization ----

def _float_model(tmp_path):
    """Conv -> Add(with a second branch) -> Mul -> Concat -> AveragePool -> output."""
    w = (_RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32)
    w2 = (_RNG.standard_normal((4, 3, 1, 1)) * 0.3).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["X", "W"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["X", "W2"], ["c2"]),
        helper.make_node("Add", ["c1", "c2"], ["sum"]),
        helper.make_node("Mul", ["sum", "c2"], ["prod"]),
        helper.make_node("Concat", ["prod", "c1"], ["cat"], axis=1),
        helper.make_node("AveragePool", ["cat"], ["Y"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    graph = helper.make_graph(
        nodes, "qstatic", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[onnx.numpy_helper.from_array(w, "W"), onnx.numpy_helper.from_array(w2, "W2")])
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "float.onnx"
    onnx.save(model, path)
    return path


def test_quantize_static_qoperator_model(tmp_path):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.data = iter([{"X": _RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)}
                              for _ in range(8)])

        def get_next(self):
            return next(self.data, None)

    quantized = tmp_path / "quant.onnx"
    quantize_static(str(_float_model(tmp_path)), str(quantized), Reader(),
                    quant_format=QuantFormat.QOperator, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QUInt8)
    ops = {(n.domain, n.op_type) for n in onnx.load(quantized).graph.node}
    for op in ["QLinearAdd", "QLinearMul", "QLinearConcat", "QLinearAveragePool"]:
        assert (MS, op) in ops, ops
    model = quantized.read_bytes()
    for _ in range(3):
        feeds = {"X": _RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)}
        actual, expected = _run_both(model, feeds)
        np.testing.assert_array_equal(actual[0], expected[0])


def test_quantize_static_activations_and_global_pool(tmp_path):
    """Conv -> LeakyRelu -> Sigmoid -> GlobalAveragePool, quantized in QOperator format (int8)."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    w = (_RNG.standard_normal((5, 3, 3, 3)) * 0.3).astype(np.float32)
    nodes = [helper.make_node("Conv", ["X", "W"], ["c"]),
             helper.make_node("LeakyRelu", ["c"], ["l"], alpha=0.2),
             helper.make_node("Sigmoid", ["l"], ["s"]),
             helper.make_node("GlobalAveragePool", ["s"], ["Y"])]
    graph = helper.make_graph(
        nodes, "qact", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 9, 9])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[onnx.numpy_helper.from_array(w, "W")])
    path, quantized = tmp_path / "act.onnx", tmp_path / "act_q.onnx"
    onnx.save(helper.make_model(graph, ir_version=10,
                                opset_imports=[helper.make_opsetid("", 17)]), path)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.data = iter([{"X": _RNG.standard_normal((1, 3, 9, 9)).astype(np.float32)}
                              for _ in range(8)])

        def get_next(self):
            return next(self.data, None)

    quantize_static(str(path), str(quantized), Reader(), quant_format=QuantFormat.QOperator,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    ops = {(n.domain, n.op_type) for n in onnx.load(quantized).graph.node}
    for op in ["QLinearLeakyRelu", "QLinearSigmoid", "QLinearGlobalAveragePool"]:
        assert (MS, op) in ops, ops
    for _ in range(3):
        feeds = {"X": _RNG.standard_normal((1, 3, 9, 9)).astype(np.float32)}
        actual, expected = _run_both(quantized.read_bytes(), feeds)
        np.testing.assert_array_equal(actual[0], expected[0])


def test_quantize_dynamic_matmul_model(tmp_path):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    b = _RNG.standard_normal((16, 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["Y"])], "qdynamic",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [3, 16])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[onnx.numpy_helper.from_array(b, "B")])
    path, quantized = tmp_path / "mm.onnx", tmp_path / "mm_q.onnx"
    onnx.save(helper.make_model(graph, ir_version=10,
                                opset_imports=[helper.make_opsetid("", 17)]), path)
    quantize_dynamic(str(path), str(quantized), op_types_to_quantize=["MatMul"],
                     weight_type=QuantType.QInt8, extra_options={"MatMulConstBOnly": True})
    qmodel = onnx.load(quantized)
    # onnxruntime.quantization writes DynamicQuantizeLinear + MatMulInteger (it has no option
    # for DynamicQuantizeMatMul): run that, then the same weights as one DynamicQuantizeMatMul.
    feeds = {"A": _RNG.standard_normal((3, 16)).astype(np.float32)}
    actual, expected = _run_both(qmodel.SerializeToString(), feeds)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-5, atol=1e-5)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in qmodel.graph.initializer}
    b_q = next(v for v in inits.values() if v.dtype == np.int8 and v.ndim == 2)
    b_scale = next(v for k, v in inits.items() if v.dtype == np.float32 and "scale" in k)
    b_zero = next(v for k, v in inits.items() if v.dtype == np.int8 and v.ndim <= 1)
    fused = _model("DynamicQuantizeMatMul", [("A", feeds["A"]), ("B", b_q), ("bs", b_scale),
                                             ("bz", b_zero)], ["Y"], constants=("B", "bs", "bz"))
    actual_fused, expected_fused = _run_both(*fused)
    np.testing.assert_allclose(actual_fused[0], expected_fused[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(actual_fused[0], expected[0], rtol=1e-5, atol=1e-5)
