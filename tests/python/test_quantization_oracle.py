"""The quantization ops against onnxruntime on random inputs (and onnx.reference where
onnxruntime lacks a version or type): QuantizeLinear and DequantizeLinear per tensor, per axis
and blocked (a partial last block), with exact ties (power-of-two scales), saturation and zero
points at the types' ends, for int8/uint8/int16/uint16/int4/uint4/int2/uint2 and float8;
DynamicQuantizeLinear; MatMulInteger with batch broadcasting and per-row/per-column zero points;
QLinearMatMul (opsets 10 and 21, float and float16 scales, per-row/per-column scales);
QLinearConv with per-channel weights, bias, groups, pads, strides and auto_pad."""
import ml_dtypes
import numpy as np
import onnxruntime
import pytest
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort
from ort_int8_exactness import check_against_onnxruntime

_RNG = np.random.RandomState(20261125)

_ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(ml_dtypes.bfloat16): TensorProto.BFLOAT16, np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.int16): TensorProto.INT16, np.dtype(np.uint16): TensorProto.UINT16,
    np.dtype(ml_dtypes.int4): TensorProto.INT4, np.dtype(ml_dtypes.uint4): TensorProto.UINT4,
    np.dtype(ml_dtypes.int2): TensorProto.INT2, np.dtype(ml_dtypes.uint2): TensorProto.UINT2,
    np.dtype(ml_dtypes.float8_e4m3fn): TensorProto.FLOAT8E4M3FN,
    np.dtype(ml_dtypes.float8_e4m3fnuz): TensorProto.FLOAT8E4M3FNUZ,
    np.dtype(ml_dtypes.float8_e5m2): TensorProto.FLOAT8E5M2,
    np.dtype(ml_dtypes.float8_e5m2fnuz): TensorProto.FLOAT8E5M2FNUZ,
    np.dtype(ml_dtypes.float4_e2m1fn): TensorProto.FLOAT4E2M1,
}
_NATIVE = {np.dtype(t) for t in (np.float32, np.float16, np.int32, np.int8, np.uint8, np.int16,
                                 np.uint16)}
_INTEGER = [np.int8, np.uint8, np.int16, np.uint16, ml_dtypes.int4, ml_dtypes.uint4,
            ml_dtypes.int2, ml_dtypes.uint2]
_FLOAT8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2,
           ml_dtypes.float8_e5m2fnuz]


def _model(op, feeds, out_elems, opset, outputs=("y",), **attrs):
    names = list(feeds)
    graph = helper.make_graph(
        [helper.make_node(op, [n if feeds[n] is not None else "" for n in names], list(outputs),
                          **attrs)], op.lower(),
        [helper.make_tensor_value_info(n, _ELEM[feeds[n].dtype], None)
         for n in names if feeds[n] is not None],
        [helper.make_tensor_value_info(o, e, None) for o, e in zip(outputs, out_elems)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10 if opset < 23 else 11).SerializeToString()


def _run(model, feeds):
    feeds = {k: v for k, v in feeds.items() if v is not None}
    return ort.InferenceSession(model).run(None, feeds)


def _oracle(model, feeds):
    """onnxruntime's outputs, or None when it refuses the model (a version or type it lacks).
    Its Python binding cannot feed ml_dtypes arrays (int4, int2, float8), so those inputs become
    initializers of the model; it cannot return them either (then onnx.reference is the oracle)."""
    feeds = {k: v for k, v in feeds.items() if v is not None}
    exotic = {k for k, v in feeds.items() if v.dtype not in _NATIVE}
    if exotic:
        proto = onnx.load_from_string(model)
        kept = [i for i in proto.graph.input if i.name not in exotic]
        del proto.graph.input[:]
        proto.graph.input.extend(kept)
        proto.graph.initializer.extend(numpy_helper.from_array(feeds[k], k) for k in exotic)
        model = proto.SerializeToString()
        feeds = {k: v for k, v in feeds.items() if k not in exotic}
    try:
        return onnxruntime.InferenceSession(model).run(None, feeds)
    except Exception:  # pylint: disable=broad-except
        return None


def _reference(model, feeds):
    feeds = {k: v for k, v in feeds.items() if v is not None}
    return ReferenceEvaluator(model).run(None, feeds)


def _same(actual, expected):
    if actual.dtype in _FLOAT8 and expected.dtype == np.uint8:  # onnxruntime's float8: raw bits
        expected = expected.view(actual.dtype)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if actual.dtype in _FLOAT8:
        np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))
    else:
        np.testing.assert_array_equal(actual.astype(np.float64), expected.astype(np.float64))


def _range(dtype):
    if dtype in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2):
        info = ml_dtypes.iinfo(dtype)
    else:
        info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _scale_shape(x_shape, mode, axis, block):
    if mode == "tensor":
        return ()
    if mode == "axis":
        return (x_shape[axis],)
    shape = list(x_shape)
    shape[axis] = -(-x_shape[axis] // block)
    return tuple(shape)


def _quantize_case(dtype, mode, scale_dtype=np.float32):
    """x with exact ties and values beyond the type's ends, power-of-two scales, zero points at
    the ends and in between."""
    x_shape, axis, block = (3, 5, 4), 1, 2
    s_shape = _scale_shape(x_shape, mode, axis, block)
    scale = np.asarray(2.0 ** _RNG.randint(-3, 2, s_shape)).astype(scale_dtype)
    if dtype in _FLOAT8:
        zero = np.zeros(s_shape, dtype)
        x = (_RNG.standard_normal(x_shape) * 100).astype(scale_dtype)
        x.flat[:3] = [1e6, -1e6, 0.0]
        return x, scale, zero, axis, block
    low, high = _range(dtype)
    zero = _RNG.randint(low, high + 1, s_shape)
    zero.flat[0] = low
    if zero.size > 1:
        zero.flat[-1] = high
    steps = _RNG.randint(2 * low - 2, 2 * high + 3, x_shape) / 2.0  # many exact .5 ties
    full_scale = scale.astype(np.float64)
    if mode == "axis":
        full_scale = full_scale.reshape(1, -1, 1)
    elif mode == "block":
        full_scale = np.repeat(full_scale, block, axis=axis)[:, :x_shape[axis]]
    x = (steps * full_scale).astype(scale_dtype)
    return x, scale, zero.astype(dtype), axis, block


@pytest.mark.parametrize("dtype", _INTEGER + _FLOAT8)
@pytest.mark.parametrize("mode", ["tensor", "axis", "block"])
def test_quantize_linear_matches_oracle(dtype, mode):
    opset = 25 if dtype in (ml_dtypes.int2, ml_dtypes.uint2) else 21
    if dtype in (np.int8, np.uint8) and mode != "block":
        opset = 13
    x, scale, zero, axis, block = _quantize_case(dtype, mode)
    attrs = {"axis": axis}
    if mode == "block":
        attrs["block_size"] = block
    feeds = {"x": x, "s": scale, "z": zero}
    model = _model("QuantizeLinear", feeds, [_ELEM[np.dtype(dtype)]], opset, **attrs)
    actual = _run(model, feeds)[0]
    expected = _oracle(model, feeds) or _reference(model, feeds)
    _same(actual, expected[0])


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("dtype", _FLOAT8)
def test_quantize_linear_float8_saturate(dtype, saturate):
    x = np.concatenate([(_RNG.standard_normal(40) * 10.0 ** _RNG.randint(-3, 7, 40)),
                        [np.inf, -np.inf, 1e9, -1e9]]).astype(np.float32)
    feeds = {"x": x, "s": np.array(0.5, np.float32), "z": np.zeros((), dtype)}
    model = _model("QuantizeLinear", feeds, [_ELEM[np.dtype(dtype)]], 19, saturate=saturate)
    actual = _run(model, feeds)[0]
    expected = _oracle(model, feeds) or _reference(model, feeds)
    _same(actual, expected[0])


@pytest.mark.parametrize("x_dtype", [np.float16, ml_dtypes.bfloat16, np.int32])
def test_quantize_linear_half_and_int32_inputs(x_dtype):
    # x and y_scale share one type before opset 23; the division is carried out in it.
    x = (_RNG.randint(-600, 600, (4, 6)) / 4.0).astype(x_dtype)
    scale = np.array(0.5 if x_dtype != np.int32 else 3, x_dtype)
    feeds = {"x": x, "s": scale, "z": np.array(-3, np.int16)}
    model = _model("QuantizeLinear", feeds, [TensorProto.INT16], 21)
    actual = _run(model, feeds)[0]
    expected = _oracle(model, feeds) or _reference(model, feeds)
    _same(actual, expected[0])


@pytest.mark.parametrize("dtype", _INTEGER + _FLOAT8 + [np.int32])
@pytest.mark.parametrize("mode", ["tensor", "axis", "block"])
def test_dequantize_linear_matches_oracle(dtype, mode):
    x_shape, axis, block = (2, 7, 3), 1, 3
    s_shape = _scale_shape(x_shape, mode, axis, block)
    if dtype in _FLOAT8:
        x = (_RNG.standard_normal(x_shape) * 8).astype(dtype)
        zero = np.zeros(s_shape, dtype)
    else:
        low, high = (-(2**31), 2**31 - 1) if dtype == np.int32 else _range(dtype)
        x = _RNG.randint(low, high, x_shape, dtype=np.int64).astype(dtype)
        zero = _RNG.randint(low, high, s_shape, dtype=np.int64).astype(dtype)
        if dtype == np.int32:
            zero = np.zeros(s_shape, dtype)
    scale = _RNG.uniform(0.01, 2.0, s_shape).astype(np.float32)
    attrs = {"axis": axis}
    if mode == "block":
        attrs["block_size"] = block
    feeds = {"x": x, "s": scale, "z": zero}
    opset = 25 if dtype in (ml_dtypes.int2, ml_dtypes.uint2) else 21
    model = _model("DequantizeLinear", feeds, [TensorProto.FLOAT], opset, **attrs)
    actual = _run(model, feeds)[0]
    expected = _oracle(model, feeds) or _reference(model, feeds)
    np.testing.assert_allclose(actual, expected[0], rtol=1e-6, atol=0)


@pytest.mark.parametrize("scale_dtype", [np.float16, ml_dtypes.bfloat16])
def test_dequantize_linear_half_scales_and_output_dtype(scale_dtype):
    x = _RNG.randint(-128, 128, (3, 8)).astype(np.int8)
    scale = _RNG.uniform(0.01, 1.0, 8).astype(scale_dtype)
    feeds = {"x": x, "s": scale, "z": _RNG.randint(-128, 128, 8).astype(np.int8)}
    model = _model("DequantizeLinear", feeds, [_ELEM[np.dtype(scale_dtype)]], 21, axis=1)
    _same(_run(model, feeds)[0], (_oracle(model, feeds) or _reference(model, feeds))[0])
    model = _model("DequantizeLinear", feeds, [TensorProto.FLOAT], 23, axis=1,
                   output_dtype=TensorProto.FLOAT)
    _same(_run(model, feeds)[0], _reference(model, feeds)[0])


@pytest.mark.parametrize("shape,spread", [((7,), 1.0), ((3, 5), 100.0), ((2, 3, 4), 0.01)])
@pytest.mark.parametrize("sign", ["mixed", "positive", "negative"])
def test_dynamic_quantize_linear_matches_onnxruntime(shape, spread, sign):
    x = (_RNG.standard_normal(shape) * spread).astype(np.float32)
    if sign == "positive":
        x = np.abs(x)
    elif sign == "negative":
        x = -np.abs(x)
    feeds = {"x": x}
    model = _model("DynamicQuantizeLinear", feeds,
                   [TensorProto.UINT8, TensorProto.FLOAT, TensorProto.UINT8], 11,
                   outputs=("y", "y_scale", "y_zero_point"))
    actual = _run(model, feeds)
    expected = _oracle(model, feeds)
    assert expected is not None
    for a, e in zip(actual, expected):
        _same(np.asarray(a), np.asarray(e))


@pytest.mark.parametrize("a_type", [np.int8, np.uint8])
@pytest.mark.parametrize("b_type", [np.int8, np.uint8])
@pytest.mark.parametrize("a_shape,b_shape,b_zero_shape", [
    ((5, 7), (7, 3), (3,)), ((2, 4, 6), (6, 5), ()), ((3, 1, 4, 6), (2, 6, 5), (5,)),
    ((6,), (6, 4), (4,)), ((2, 3, 4), (4,), ())])
def test_matmul_integer_matches_oracle(a_type, b_type, a_shape, b_shape, b_zero_shape):
    la, ha = _range(a_type)
    lb, hb = _range(b_type)
    a = _RNG.randint(la, ha + 1, a_shape).astype(a_type)
    b = _RNG.randint(lb, hb + 1, b_shape).astype(b_type)
    feeds = {"a": a, "b": b, "az": np.array(_RNG.randint(la, ha + 1), a_type),
             "bz": _RNG.randint(lb, hb + 1, b_zero_shape).astype(b_type)}
    model = _model("MatMulInteger", feeds, [TensorProto.INT32], 10)
    actual = _run(model, feeds)[0]
    _same(actual, _reference(model, feeds)[0])  # onnx.reference: exact int32 sums
    peer = _oracle(model, feeds)
    if peer is not None:
        check_against_onnxruntime(lambda: _same(actual, peer[0]), a_type, b_type,
                                  "MatMulInteger")


def test_matmul_integer_per_row_zero_point_against_reference():
    a = _RNG.randint(0, 256, (2, 4, 6)).astype(np.uint8)
    b = _RNG.randint(-128, 128, (6, 3)).astype(np.int8)
    feeds = {"a": a, "b": b, "az": _RNG.randint(0, 256, (2, 4, 1)).astype(np.uint8),
             "bz": _RNG.randint(-128, 128, (1, 3)).astype(np.int8)}
    model = _model("MatMulInteger", feeds, [TensorProto.INT32], 10)
    _same(_run(model, feeds)[0], _reference(model, feeds)[0])


@pytest.mark.parametrize("opset,scale_type", [(10, np.float32), (21, np.float32),
                                              (21, np.float16)])
@pytest.mark.parametrize("a_type,b_type,y_type", [(np.uint8, np.uint8, np.uint8),
                                                  (np.int8, np.int8, np.int8),
                                                  (np.uint8, np.int8, np.uint8),
                                                  (np.int8, np.uint8, np.int8)])
@pytest.mark.parametrize("a_shape,b_shape,per_column", [((4, 6), (6, 5), False),
                                                        ((2, 3, 6), (6, 4), True),
                                                        ((3, 6), (2, 6, 4), False)])
def test_qlinear_matmul_matches_oracle(opset, scale_type, a_type, b_type, y_type, a_shape,
                                       b_shape, per_column):
    la, ha = _range(a_type)
    lb, hb = _range(b_type)
    ly, hy = _range(y_type)
    n = b_shape[-1]
    feeds = {
        "a": _RNG.randint(la, ha + 1, a_shape).astype(a_type),
        "as": np.array(_RNG.uniform(0.01, 0.1), scale_type),
        "az": np.array(_RNG.randint(la, ha + 1), a_type),
        "b": _RNG.randint(lb, hb + 1, b_shape).astype(b_type),
        "bs": _RNG.uniform(0.01, 0.1, n if per_column else ()).astype(scale_type),
        "bz": _RNG.randint(lb, hb + 1, n if per_column else ()).astype(b_type),
        "ys": np.array(_RNG.uniform(0.05, 0.5), scale_type),
        "yz": np.array(_RNG.randint(ly, hy + 1), y_type),
    }
    model = _model("QLinearMatMul", feeds, [_ELEM[np.dtype(y_type)]], opset)
    actual = _run(model, feeds)[0]
    expected = _reference(model, feeds)[0]
    _same(actual, expected)
    peer = _oracle(model, feeds)
    if peer is not None and scale_type == np.float32:
        # onnxruntime requantizes in float (acc * multiplier rounded to float): a product within
        # one float ulp of a tie may round the other way, so allow one step there.
        def within_one_step():
            assert np.abs(actual.astype(np.int32) - peer[0].astype(np.int32)).max() <= 1
        check_against_onnxruntime(within_one_step, a_type, b_type, "QLinearMatMul")


@pytest.mark.parametrize("x_type,w_type,y_type", [(np.uint8, np.int8, np.uint8),
                                                  (np.int8, np.int8, np.int8),
                                                  (np.uint8, np.uint8, np.int8)])
@pytest.mark.parametrize("attrs,group,per_channel,bias", [
    ({}, 1, False, False),
    ({"pads": [1, 2, 0, 1], "strides": [2, 1]}, 1, True, True),
    ({"dilations": [2, 1], "auto_pad": "SAME_UPPER"}, 1, True, False),
    ({"group": 2, "pads": [1, 1, 1, 1]}, 2, False, True),
    ({"group": 4, "auto_pad": "SAME_LOWER", "strides": [2, 2]}, 4, True, True),
])
def test_qlinear_conv_matches_oracle(x_type, w_type, y_type, attrs, group, per_channel, bias):
    lx, hx = _range(x_type)
    lw, hw = _range(w_type)
    ly, hy = _range(y_type)
    m = 4
    feeds = {
        "x": _RNG.randint(lx, hx + 1, (2, 4, 6, 7)).astype(x_type),
        "xs": np.array(_RNG.uniform(0.01, 0.05), np.float32),
        "xz": np.array(_RNG.randint(lx, hx + 1), x_type),
        "w": _RNG.randint(lw, hw + 1, (m, 4 // group, 3, 2)).astype(w_type),
        "ws": _RNG.uniform(0.01, 0.05, m if per_channel else ()).astype(np.float32),
        "wz": (np.zeros(m if per_channel else (), w_type)),
        "ys": np.array(_RNG.uniform(0.05, 0.2), np.float32),
        "yz": np.array(_RNG.randint(ly, hy + 1), y_type),
        "B": _RNG.randint(-5000, 5000, m).astype(np.int32) if bias else None,
    }
    model = _model("QLinearConv", feeds, [_ELEM[np.dtype(y_type)]], 10, **attrs)
    actual = _run(model, feeds)[0]
    expected = _reference(model, feeds)[0]
    _same(actual, expected)
    peer = _oracle(model, feeds)
    if peer is not None:  # requantized in float: one step either side of a near-tie
        def within_one_step():
            assert np.abs(actual.astype(np.int32) - peer[0].astype(np.int32)).max() <= 1
        check_against_onnxruntime(within_one_step, x_type, w_type, "QLinearConv")


@pytest.mark.parametrize("precision,np_type", [(TensorProto.FLOAT16, np.float16),
                                               (TensorProto.BFLOAT16, ml_dtypes.bfloat16)])
def test_quantize_linear_precision_attribute(precision, np_type):
    # x is not representable in the precision type: it is rounded before the division.
    x = (_RNG.standard_normal((5, 6)) * 300).astype(np.float32)
    feeds = {"x": x, "s": np.array(0.7, np.float32), "z": np.array(3, np.int16)}
    model = _model("QuantizeLinear", feeds, [TensorProto.INT16], 23, precision=precision)
    _same(_run(model, feeds)[0], _reference(model, feeds)[0])


def test_quantize_linear_division_in_the_scales_type():
    # opset 23: x float, y_scale float16, no precision: the division is in float16 (the spec);
    # onnx.reference divides in float32 here, so the expected values follow the spec in numpy.
    x = (_RNG.standard_normal(64) * 1000).astype(np.float32)
    scale = np.array(0.3, np.float16)
    feeds = {"x": x, "s": scale, "z": np.array(-7, np.int16)}
    model = _model("QuantizeLinear", feeds, [TensorProto.INT16], 23)
    quotient = x.astype(np.float16) / scale
    expected = np.clip(np.rint(quotient.astype(np.float64)) - 7, -32768, 32767).astype(np.int16)
    _same(_run(model, feeds)[0], expected)


@pytest.mark.parametrize("y_type", [np.uint8, np.int8])
def test_quantize_linear_float_fast_path_edges(y_type):
    """Float x, one float scale, 8-bit y (quantize_rows.h, 16 at a time and the scalar tail):
    ties both ways and saturation against onnx.reference; infinities (the type's ends) and NaN
    (0, then the zero point: Prism's reference path), where onnx.reference casts them undefined,
    by hand."""
    edges = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e9, -1e9, 126.5, 127.5, -128.5, 254.5,
                      255.5, -3.5, 3.5, 7.25], np.float32)
    x = np.concatenate([edges, _RNG.uniform(-300, 300, 1000).astype(np.float32), edges[:7]])
    zero = 3 if y_type == np.uint8 else -3
    feeds = {"x": x.reshape(1, -1), "s": np.array(1.0, np.float32), "z": np.array(zero, y_type)}
    model = _model("QuantizeLinear", feeds, [_ELEM[np.dtype(y_type)]], 13)
    _same(_run(model, feeds)[0], _reference(model, feeds)[0])
    special = np.array([np.inf, -np.inf, np.nan] * 6, np.float32)  # 18: the SSE2 and tail paths
    feeds["x"] = special.reshape(1, -1)
    info = np.iinfo(y_type)
    expected = np.array([info.max, info.min, zero] * 6, y_type).reshape(1, -1)
    np.testing.assert_array_equal(_run(model, feeds)[0], expected)


@pytest.mark.parametrize("x_type", [np.uint8, np.int8])
@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [2, 3], "strides": [1, 2], "pads": [0, 2, 1, 0], "dilations": [2, 1]},
    {"kernel_shape": [4, 4], "strides": [3, 3], "ceil_mode": 1},
])
def test_max_pool_8bit_matches_onnxruntime(x_type, attrs):
    """uint8/int8 2-D MaxPool (the column-maximum path of pool.cc, as QDQDropFusion leaves
    resnet's pool) against onnxruntime, exactly."""
    lx, hx = _range(x_type)
    feeds = {"x": _RNG.randint(lx, hx + 1, (2, 5, 17, 19)).astype(x_type)}
    model = _model("MaxPool", feeds, [_ELEM[np.dtype(x_type)]], 13, **attrs)
    _same(_run(model, feeds)[0], _oracle(model, feeds)[0])
