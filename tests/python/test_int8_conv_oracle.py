"""QLinearConv and ConvInteger on the int8 GEMM (providers/cpu/quantization/int8_conv.h) on
random shapes against onnx.reference (exactly: the same double requantization, half to even)
and onnxruntime (QLinearConv within one step, since it requantizes in float; ConvInteger
exactly, where it takes the types): 1-D, 2-D and 3-D, 1x1 (read without lowering), pads,
strides, dilations, groups and depthwise (strides 1 and 2, over 256 taps), outputs of several
GEMM tiles (rows and columns), per-tensor and per-channel weights with nonzero zero
points, uint8 and int8 activations and weights, the weights given as initializers (prepacked at
session creation) or fed at run time, with and without a bias."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort
from ort_int8_exactness import check_against_onnxruntime, model_for_exact_onnxruntime

_ELEM = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
         np.dtype(np.int32): TensorProto.INT32, np.dtype(np.float32): TensorProto.FLOAT}

# (x shape, w shape, attributes)
_SHAPES = [
    ((1, 16, 9, 9), (24, 16, 1, 1), {}),
    ((2, 8, 10, 7), (12, 8, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 3, 15, 15), (8, 3, 7, 7), {"pads": [3, 3, 3, 3], "strides": [2, 2]}),
    ((1, 12, 8, 8), (12, 4, 3, 3), {"group": 3, "pads": [0, 1, 2, 1], "dilations": [2, 1]}),
    ((1, 8, 6, 6), (8, 1, 3, 3), {"group": 8, "pads": [1, 1, 1, 1]}),
    ((1, 32, 7, 7), (40, 32, 1, 1), {"strides": [2, 2]}),
    ((2, 5, 11), (7, 5, 3), {"pads": [2, 0], "strides": [2]}),
    ((1, 4, 4, 5, 6), (6, 4, 2, 3, 2), {"pads": [1, 0, 1, 0, 1, 1]}),
    ((1, 20, 5, 5), (18, 20, 3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    # depthwise with stride 2 (the float kernel, exact up to 256 taps), and one past 256 taps
    # (the int32 loop)
    ((1, 6, 13, 12), (6, 1, 5, 5), {"group": 6, "pads": [2, 1, 2, 2], "strides": [2, 2]}),
    ((1, 3, 20, 19), (3, 1, 17, 17), {"group": 3, "pads": [3, 2, 1, 4], "strides": [1, 2]}),
    # more output positions than one GEMM tile has rows (144) and more channels than one has
    # columns (512): the requantization runs per finished tile, each landing at its own place
    ((2, 8, 20, 20), (520, 8, 1, 1), {}),
    ((1, 16, 18, 18), (24, 8, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
]


def _random(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.randint(info.min, info.max + 1, shape).astype(dtype)


def _model(op, feeds, constants, out_type, attrs):
    names = list(feeds) + list(constants)
    order = {"QLinearConv": ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "B"],
             "ConvInteger": ["x", "w", "xz", "wz"]}[op]
    inputs = [n if n in names else "" for n in order]
    while inputs and inputs[-1] == "":
        inputs.pop()
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], **attrs)], op.lower(),
        [helper.make_tensor_value_info(n, _ELEM[v.dtype], v.shape) for n, v in feeds.items()],
        [helper.make_tensor_value_info("y", out_type, None)],
        [numpy_helper.from_array(v, n) for n, v in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                             ir_version=8).SerializeToString()


def _sums(values, attrs):
    """The exact int32 sums (x - xz) * (w - wz) from a float64 Conv (onnx.reference): for the
    shapes onnx.reference's own QLinearConv and ConvInteger do not take (per-channel outside
    2-D)."""
    x = values["x"].astype(np.float64) - float(values["xz"])
    w_zero = np.asarray(values["wz"]).astype(np.float64)
    w_zero = w_zero.reshape((-1,) + (1,) * (values["w"].ndim - 1)) if w_zero.ndim else w_zero
    w = values["w"].astype(np.float64) - w_zero
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], **attrs)], "conv",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, None),
         helper.make_tensor_value_info("w", TensorProto.DOUBLE, None)],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return ReferenceEvaluator(model).run(None, {"x": x, "w": w})[0].astype(np.int64)


def _qlinear_reference(values, attrs):
    """QLinearConv: the sums plus the bias, times the multiplier in float32 (each step rounded),
    the product in float64, half to even, plus the zero point, saturated."""
    acc = _sums(values, attrs)
    if values["B"] is not None:
        acc = acc + values["B"].astype(np.int64).reshape((1, -1) + (1,) * (acc.ndim - 2))
    scale = (values["xs"] * values["ws"]).astype(np.float32) / values["ys"]
    scale = np.asarray(scale, np.float32).astype(np.float64)
    if scale.ndim:
        scale = scale.reshape((1, -1) + (1,) * (acc.ndim - 2))
    info = np.iinfo(values["yz"].dtype)
    out = np.rint(acc.astype(np.int32).astype(np.float64) * scale) + float(values["yz"])
    return np.clip(out, info.min, info.max).astype(values["yz"].dtype)


def _split(values, constant_weights):
    constant = {"ws", "wz", "xs", "xz", "ys", "yz", "B"} | ({"w"} if constant_weights else set())
    feeds = {k: v for k, v in values.items() if v is not None and k not in constant}
    constants = {k: v for k, v in values.items() if v is not None and k in constant}
    return feeds, constants


@pytest.mark.parametrize("case", range(len(_SHAPES)))
@pytest.mark.parametrize("x_type,w_type", [(np.uint8, np.int8), (np.int8, np.int8),
                                           (np.uint8, np.uint8)])
@pytest.mark.parametrize("per_channel,constant_weights", [(False, True), (True, True),
                                                          (True, False)])
def test_qlinear_conv_matches_reference_and_onnxruntime(case, x_type, w_type, per_channel,
                                                        constant_weights):
    x_shape, w_shape, attrs = _SHAPES[case]
    rng = np.random.RandomState(1000 + case)
    m = w_shape[0]
    channels = m if per_channel else ()
    w_info = np.iinfo(w_type)
    values = {
        "x": _random(rng, x_type, x_shape),
        "xs": np.array(rng.uniform(0.01, 0.05), np.float32),
        "xz": np.array(rng.randint(np.iinfo(x_type).min, np.iinfo(x_type).max + 1), x_type),
        "w": _random(rng, w_type, w_shape),
        "ws": rng.uniform(0.002, 0.01, channels).astype(np.float32),
        # onnxruntime takes int8 weights only with zero points 0; uint8 ones get any.
        "wz": (np.zeros(channels, w_type) if w_type == np.int8 else
               rng.randint(w_info.min, w_info.max + 1, channels).astype(w_type)),
        "ys": np.array(rng.uniform(0.05, 0.3), np.float32),
        "yz": np.array(rng.randint(np.iinfo(x_type).min, np.iinfo(x_type).max + 1), x_type),
        "B": rng.randint(-20000, 20000, m).astype(np.int32) if case % 2 == 0 else None,
    }
    feeds, constants = _split(values, constant_weights)
    model = _model("QLinearConv", feeds, constants, _ELEM[np.dtype(x_type)], attrs)
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    if len(x_shape) == 4 and not per_channel:
        expected = ReferenceEvaluator(model).run(None, feeds)[0]
        np.testing.assert_array_equal(expected, _qlinear_reference(values, attrs))
    else:
        expected = _qlinear_reference(values, attrs)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)
    try:
        peer = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, feeds)[0]
    except Exception:  # a type pair or zero point onnxruntime's kernel refuses
        return
    # Constant weights: where onnxruntime's u8s8 GEMM is inexact on this CPU, it gets them as
    # uint8 (the same sums through its exact u8u8 GEMM) and the comparison stays strict.
    peer_model = model_for_exact_onnxruntime(model) if constant_weights and (
        x_type, w_type) == (np.uint8, np.int8) else model
    if peer_model is not model:
        peer = onnxruntime.InferenceSession(peer_model, providers=["CPUExecutionProvider"]).run(
            None, feeds)[0]

    def within_one_step():
        assert np.abs(actual.astype(np.int32) - peer.astype(np.int32)).max() <= 1
    if peer_model is not model:
        within_one_step()
    else:
        check_against_onnxruntime(within_one_step, x_type, w_type, "QLinearConv")


@pytest.mark.parametrize("case", range(len(_SHAPES)))
@pytest.mark.parametrize("x_type,w_type", [(np.uint8, np.uint8), (np.int8, np.int8),
                                           (np.uint8, np.int8)])
@pytest.mark.parametrize("per_channel,constant_weights", [(False, True), (True, False)])
def test_conv_integer_is_exact(case, x_type, w_type, per_channel, constant_weights):
    x_shape, w_shape, attrs = _SHAPES[case]
    rng = np.random.RandomState(2000 + case)
    channels = w_shape[0] if per_channel else ()
    values = {
        "x": _random(rng, x_type, x_shape),
        "w": _random(rng, w_type, w_shape),
        "xz": np.array(rng.randint(np.iinfo(x_type).min, np.iinfo(x_type).max + 1), x_type),
        "wz": rng.randint(np.iinfo(w_type).min, np.iinfo(w_type).max + 1,
                          channels).astype(w_type),
    }
    feeds, constants = _split(values, constant_weights)
    model = _model("ConvInteger", feeds, constants, TensorProto.INT32, attrs)
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    expected = _sums(values, attrs).astype(np.int32)
    if len(x_shape) == 4 and not per_channel:
        np.testing.assert_array_equal(ReferenceEvaluator(model).run(None, feeds)[0], expected)
    assert actual.dtype == np.int32
    np.testing.assert_array_equal(actual, expected)
    try:
        peer = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, feeds)[0]
    except Exception:  # onnxruntime's ConvInteger takes uint8 only, one zero point
        return
    check_against_onnxruntime(lambda: np.testing.assert_array_equal(actual, peer), x_type,
                              w_type, "ConvInteger")
