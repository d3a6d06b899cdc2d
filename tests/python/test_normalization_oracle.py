"""The normalizations and Lp/global pools of Operators II against onnxruntime on random inputs:
RMSNormalization (every axis, negative ones included), InstanceNormalization,
GroupNormalization (opset 18 per-group and opset 21 per-channel parameters),
MeanVarianceNormalization (default and explicit axes), LpNormalization (p 1 and 2, a zero row),
LRN (even and odd sizes), GlobalMaxPool (NaN propagates), GlobalLpPool and LpPool (strides,
pads, dilations, ceil mode); zero-size batches. Where onnxruntime has no kernel for a case
(an opset it lacks) the oracle is onnx.reference; where both refuse, Prism must refuse too."""
import numpy as np
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

_RNG = np.random.RandomState(20261128)


def _model(op, opset, x_shape, initializers=(), **attrs):
    inits = [numpy_helper.from_array(value, name) for name, value in initializers]
    node = helper.make_node(op, ["X"] + [name for name, _ in initializers], ["Y"], **attrs)
    graph = helper.make_graph(
        [node], "norm", [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x_shape))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10).SerializeToString()


def _expected(model, x):
    try:
        return onnxruntime.InferenceSession(
            model, providers=["CPUExecutionProvider"]).run(None, {"X": x})[0], "onnxruntime"
    except Exception:  # noqa: BLE001 (onnxruntime lacks this opset or refuses the input)
        return onnx.reference.ReferenceEvaluator(model).run(None, {"X": x})[0], "reference"


def _check(model, x, rtol=1e-5, atol=1e-5):
    expected, oracle = _expected(model, x)
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"X": x})[0]
    assert actual.shape == expected.shape, oracle
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg="oracle: " + oracle)


def _x(shape):
    return _RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 5), (0, 3, 4), (2, 1, 3, 2)])
def test_rms_normalization_every_axis(shape):
    for axis in range(-len(shape), len(shape)):
        scale = _x(shape[axis:])
        _check(_model("RMSNormalization", 23, shape, [("scale", scale)], axis=axis,
                      epsilon=1e-3), _x(shape))


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 2, 7), (0, 3, 2)])
def test_instance_normalization(shape):
    channels = shape[1]
    inits = [("scale", _x((channels,))), ("B", _x((channels,)))]
    for opset in (6, 22):
        _check(_model("InstanceNormalization", opset, shape, inits, epsilon=1e-2), _x(shape))


@pytest.mark.parametrize("opset,groups", [(18, 1), (18, 2), (18, 4), (21, 2), (21, 4)])
def test_group_normalization(opset, groups):
    shape = (2, 4, 3, 2)
    count = groups if opset < 21 else shape[1]
    inits = [("scale", _x((count,))), ("bias", _x((count,)))]
    _check(_model("GroupNormalization", opset, shape, inits, num_groups=groups, epsilon=1e-3),
           _x(shape))


@pytest.mark.parametrize("axes", [None, [0, 2, 3], [1], [2, 3], [0, 1, 2, 3]])
def test_mean_variance_normalization(axes):
    attrs = {} if axes is None else {"axes": axes}
    _check(_model("MeanVarianceNormalization", 13, (2, 3, 4, 2), **attrs), _x((2, 3, 4, 2)))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_lp_normalization(p, axis):
    x = _x((3, 4))
    x[1, :] = 0  # a zero row: zeros out along axis 1
    _check(_model("LpNormalization", 22, x.shape, p=p, axis=axis), x)


@pytest.mark.parametrize("size", [1, 3, 5])
def test_lrn(size):
    _check(_model("LRN", 13, (2, 6, 3, 3), size=size, alpha=1e-2, beta=0.75, bias=2.0),
           _x((2, 6, 3, 3)))


def test_lrn_even_size_follows_the_spec_formula():
    # onnxruntime refuses even sizes and onnx.reference loops over the batch axis instead of
    # the channels, so the oracle is the spec's formula: the window of channel c is
    # max(0, c - floor((size - 1) / 2)) .. min(C - 1, c + ceil((size - 1) / 2)).
    x = _x((2, 5, 2, 3))
    size, alpha, beta, bias = 4, 1e-2, 0.75, 2.0
    expected = np.empty_like(x)
    for c in range(x.shape[1]):
        first, last = max(0, c - (size - 1) // 2), min(x.shape[1] - 1, c + size // 2)
        square_sum = (x[:, first:last + 1].astype(np.float64) ** 2).sum(axis=1)
        expected[:, c] = x[:, c] / (bias + alpha / size * square_sum) ** beta
    model = _model("LRN", 13, x.shape, size=size, alpha=alpha, beta=beta, bias=bias)
    actual = ort.InferenceSession(model).run(None, {"X": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_global_pools():
    x = _x((2, 3, 4, 5))
    _check(_model("GlobalMaxPool", 22, x.shape), x)
    # NaN propagates as in numpy's max, which the reference uses (onnxruntime skips it).
    x[1, 2, 0, 0] = np.nan
    model = _model("GlobalMaxPool", 22, x.shape)
    actual = ort.InferenceSession(model).run(None, {"X": x})[0]
    np.testing.assert_array_equal(actual, onnx.reference.ReferenceEvaluator(model).run(
        None, {"X": x})[0])
    assert np.isnan(actual[1, 2, 0, 0]) and not np.isnan(actual[1, 1, 0, 0])
    for p in (1, 2, 3):
        _check(_model("GlobalLpPool", 2, x.shape, p=p), np.abs(x) + 0.5, rtol=1e-4)
    _check(_model("GlobalMaxPool", 22, (0, 3, 2)), _x((0, 3, 2)))


@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [2, 2]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [2, 2], "dilations": [2, 2]},
    {"kernel_shape": [3, 2], "strides": [2, 2], "ceil_mode": 1},
    {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER"},
    {"kernel_shape": [2], "p": 3},
])
def test_lp_pool(attrs):
    rank = len(attrs["kernel_shape"])
    shape = (2, 3, 7, 6)[:2 + rank]
    x = _x(shape)
    _check(_model("LpPool", 18, shape, **attrs), x, rtol=1e-4)


def test_group_normalization_refuses_indivisible_channels():
    model = _model("GroupNormalization", 21, (1, 3, 2), [("scale", _x((3,))), ("bias", _x((3,)))],
                   num_groups=2)
    with pytest.raises(Exception, match="3 channels do not split into num_groups = 2 groups"):
        ort.InferenceSession(model).run(None, {"X": _x((1, 3, 2))})
