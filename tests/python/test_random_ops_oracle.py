"""RandomNormal, RandomUniform, RandomNormalLike, RandomUniformLike, Bernoulli and Multinomial
through prismrt. onnxruntime draws other numbers (its own generator), so it is the oracle for what
does not depend on the generator: output shapes and element types for every dtype and input type,
and the outputs that are certain (Multinomial with one possible class). onnx.reference is the
oracle where onnxruntime has no float16 kernel, and for Bernoulli with p in {0, 1}: onnxruntime
outputs 1 for p = 0 and 0 for p = 1, as Bernoulli's function body
Cast(Greater(RandomUniformLike(p), p)) does (1 with probability 1 - p), against the spec's text
and its reference (1 with probability p). The values are checked by their statistics (means,
variances and frequencies within five standard errors over 100 000 draws) and by seeding: one
seed, one result in every run and session.
"""
import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort

_FLOAT_TYPES = [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16]
_N = 100000


def _model(op, opset, inputs, output_type, **attrs):
    names = [name for name, _ in inputs]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)], op.lower(),
        [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                       value.shape) for name, value in inputs],
        [helper.make_tensor_value_info("y", output_type, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8).SerializeToString()


def _both(op, opset, inputs, output_type, **attrs):
    model = _model(op, opset, inputs, output_type, **attrs)
    feeds = dict(inputs)
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    if op == "Bernoulli" or output_type == TensorProto.FLOAT16:
        expected = ReferenceEvaluator(onnx.load_from_string(model)).run(None, feeds)[0]
    else:
        expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, feeds)[0]
    return actual, expected


@pytest.mark.parametrize("dtype", _FLOAT_TYPES)
@pytest.mark.parametrize("op", ["RandomNormal", "RandomUniform"])
def test_shape_and_dtype_like_onnxruntime(op, dtype):
    actual, expected = _both(op, 17, [], dtype, shape=[3, 0, 2] if dtype == TensorProto.DOUBLE
                             else [3, 4, 2], dtype=dtype)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype


@pytest.mark.parametrize("input_dtype", [np.float32, np.int64, np.bool_, np.float16])
@pytest.mark.parametrize("op", ["RandomNormalLike", "RandomUniformLike"])
def test_like_ops_shape_and_dtype_like_onnxruntime(op, input_dtype):
    x = np.zeros((2, 5, 3), input_dtype)
    for dtype in _FLOAT_TYPES:
        actual, expected = _both(op, 17, [("x", x)], dtype, dtype=dtype)
        assert actual.shape == expected.shape == x.shape and actual.dtype == expected.dtype
    if np.issubdtype(input_dtype, np.floating):  # no dtype: the input's type
        out_type = helper.np_dtype_to_tensor_dtype(np.dtype(input_dtype))
        actual, expected = _both(op, 17, [("x", x)], out_type)
        assert actual.dtype == expected.dtype == input_dtype


@pytest.mark.parametrize("out_type", [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.BOOL,
                                      TensorProto.INT32, TensorProto.UINT8, TensorProto.FLOAT16])
def test_bernoulli_certain_outputs_equal_onnxruntime(out_type):
    p = np.array([[0, 1, 1], [0, 0, 1]], np.float32)
    actual, expected = _both("Bernoulli", 15, [("p", p)], out_type, dtype=out_type)
    np.testing.assert_array_equal(actual, expected)
    assert actual.dtype == expected.dtype


@pytest.mark.parametrize("dtype", [TensorProto.INT32, TensorProto.INT64])
def test_multinomial_certain_outputs_equal_onnxruntime(dtype):
    logits = np.array([[3, -np.inf, -np.inf], [-np.inf, 0, -np.inf]], np.float32)
    actual, expected = _both("Multinomial", 7, [("x", logits)], dtype, dtype=dtype,
                             sample_size=6)
    np.testing.assert_array_equal(actual, expected)
    assert actual.dtype == expected.dtype and actual.shape == (2, 6)


def _run(op, inputs=(), output_type=TensorProto.FLOAT, opset=22, **attrs):
    model = _model(op, opset, list(inputs), output_type, **attrs)
    return ort.InferenceSession(model).run(None, dict(inputs))[0]


@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-5.0, -2.0), (10.0, 10.5)])
def test_uniform_statistics(low, high):
    y = _run("RandomUniform", shape=[_N], low=low, high=high).astype(np.float64)
    width = high - low
    assert y.min() >= low and y.max() < high
    assert abs(y.mean() - (low + high) / 2) < 5 * width / np.sqrt(12 * _N)
    variance = width ** 2 / 12
    assert abs(y.var() - variance) < 5 * np.sqrt((width ** 4 / 80 - variance ** 2) / _N)
    # Ten equal bins hold a tenth each.
    counts = np.histogram(y, bins=10, range=(low, high))[0] / _N
    assert np.all(np.abs(counts - 0.1) < 5 * np.sqrt(0.09 / _N))


@pytest.mark.parametrize("mean,scale", [(0.0, 1.0), (3.0, 0.5), (-2.0, 10.0)])
def test_normal_statistics(mean, scale):
    y = _run("RandomNormal", shape=[_N], dtype=TensorProto.DOUBLE, mean=mean, scale=scale,
             output_type=TensorProto.DOUBLE)
    assert abs(y.mean() - mean) < 5 * scale / np.sqrt(_N)
    assert abs(y.var() - scale ** 2) < 5 * np.sqrt(2 * scale ** 4 / _N)
    z = (y - mean) / scale
    for k, mass in ((1, 0.682689492), (2, 0.954499736)):
        inside = np.mean(np.abs(z) < k)
        assert abs(inside - mass) < 5 * np.sqrt(mass * (1 - mass) / _N)
    assert abs(np.mean(z ** 3)) < 5 * np.sqrt(15 / _N)  # symmetric: skewness 0


def test_bernoulli_frequencies():
    p = np.random.RandomState(5).uniform(0, 1, 20).astype(np.float32)
    x = np.tile(p, (_N // 20, 1))
    y = _run("Bernoulli", [("x", x)], TensorProto.FLOAT)
    frequency = y.mean(axis=0)
    assert np.all(np.abs(frequency - p) < 5 * np.sqrt(p * (1 - p) / (_N // 20)) + 1e-9)
    certain = _run("Bernoulli", [("x", np.array([0, 1] * 5000, np.float64))], TensorProto.DOUBLE)
    np.testing.assert_array_equal(certain, np.array([0, 1] * 5000, np.float64))


def test_multinomial_frequencies_per_row():
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [5.0, 5.0, -np.inf, 4.0]], np.float32)
    y = _run("Multinomial", [("x", logits)], TensorProto.INT64, dtype=TensorProto.INT64,
             sample_size=_N // 2)
    for row in range(2):
        p = np.exp(logits[row] - logits[row].max())
        p /= p.sum()
        frequency = np.bincount(y[row], minlength=4) / (_N // 2)
        assert np.all(np.abs(frequency - p) < 5 * np.sqrt(p * (1 - p) / (_N // 2)) + 1e-12)


@pytest.mark.parametrize("op", ["RandomNormal", "RandomUniform", "RandomNormalLike",
                                "RandomUniformLike", "Bernoulli", "Multinomial"])
def test_seeds(op):
    inputs = []
    if op.endswith("Like") or op == "Bernoulli":
        inputs = [("x", np.full((50,), 0.5, np.float32))]
    elif op == "Multinomial":
        inputs = [("x", np.zeros((2, 10), np.float32))]
    attrs = {"shape": [50]} if op in ("RandomNormal", "RandomUniform") else {}
    if op == "Multinomial":
        attrs["sample_size"] = 25
    out = TensorProto.INT32 if op == "Multinomial" else TensorProto.FLOAT
    seeded = _model(op, 22, inputs, out, seed=1.25, **attrs)
    first, second = ort.InferenceSession(seeded), ort.InferenceSession(seeded)
    a = first.run(None, dict(inputs))[0]
    np.testing.assert_array_equal(a, first.run(None, dict(inputs))[0])
    np.testing.assert_array_equal(a, second.run(None, dict(inputs))[0])
    other = ort.InferenceSession(_model(op, 22, inputs, out, seed=2.5, **attrs))
    assert not np.array_equal(a, other.run(None, dict(inputs))[0])
    unseeded = ort.InferenceSession(_model(op, 22, inputs, out, **attrs))
    assert not np.array_equal(unseeded.run(None, dict(inputs))[0],
                              unseeded.run(None, dict(inputs))[0])


def test_refusals():
    with pytest.raises(Exception, match="input probability 0 is -0.5, outside"):
        _run("Bernoulli", [("x", np.array([-0.5, 0.5], np.float32))])
    with pytest.raises(Exception, match="low 2 must be <= high 1"):
        _run("RandomUniform", shape=[2], low=2.0, high=1.0)
    with pytest.raises(Exception, match="has no finite logit"):
        _run("Multinomial", [("x", np.full((1, 3), -np.inf, np.float32))], TensorProto.INT32)
