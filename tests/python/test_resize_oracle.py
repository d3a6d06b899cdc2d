"""Resize against onnxruntime on random shapes: every mode, nearest rounding, coordinate
transformation, scales and sizes, axes, keep_aspect_ratio_policy, antialias, exclude_outside,
and element types beyond float (integers round half to even and saturate; nearest moves any
element). Each case is one single-node model run by both runtimes on the same random input.

Where onnxruntime and the ONNX reference (which the node tests and Prism follow) differ by
design, the cases stay on the ground they share: dims of 1, 2, 4 or 8 and scales that are
binary fractions (onnxruntime maps coordinates in float32, the reference in float64: with these
the mapped coordinates are exact in both, so nearest-neighbour ties cannot round apart), scales
that give whole output lengths (for align_corners and tf_crop_and_resize the reference divides
by the fractional length scale * size, onnxruntime by the rounded one), and, for linear and
cubic, the ranks onnxruntime accepts (2-D, or 4-D resized on the last two axes). Where
onnxruntime has no kernel (double, and integer linear/cubic) or departs from the reference
(tf_crop_and_resize, which it gives other values for; cubic with pytorch_half_pixel), the
oracle is onnx.reference, the spec's own implementation."""
import itertools

import numpy as np
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261124)
_TRANSFORMS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
               "asymmetric", "tf_crop_and_resize")
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _model(rank, elem, attrs, use_sizes, count, with_roi):
    inputs = [helper.make_tensor_value_info("X", elem, [None] * rank),
              helper.make_tensor_value_info("roi", TensorProto.FLOAT, [None]),
              helper.make_tensor_value_info("scales", TensorProto.FLOAT, [None]),
              helper.make_tensor_value_info("sizes", TensorProto.INT64, [count])]
    node_inputs = ["X", "roi" if with_roi else "", "" if use_sizes else "scales",
                   "sizes" if use_sizes else ""]
    node = helper.make_node("Resize", node_inputs, ["Y"], **attrs)
    graph = helper.make_graph([node], "resize", [i for i, name in zip(inputs, node_inputs)
                                                  if name],
                              [helper.make_tensor_value_info("Y", elem, [None] * rank)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)],
                             ir_version=9).SerializeToString()


def _run_both(model, feeds, oracle):
    if oracle == "onnxruntime":
        expected = onnxruntime.InferenceSession(
            model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    else:
        expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)[0]
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    return actual, expected


def _oracle(mode, transform, elem):
    if elem != TensorProto.FLOAT or transform == "tf_crop_and_resize":
        return "reference"
    if mode == "cubic" and transform == "pytorch_half_pixel":
        return "reference"
    return "onnxruntime"


def _case(mode, transform, nearest, use_sizes, antialias, policy, axes, shape, exclude, elem):
    rank = len(shape)
    resized = list(axes) if axes else list(range(rank))
    attrs = {"mode": mode, "coordinate_transformation_mode": transform}
    if mode == "nearest":
        attrs["nearest_mode"] = nearest
    if mode == "cubic":
        attrs["cubic_coeff_a"] = -0.5 if exclude else -0.75
        attrs["exclude_outside"] = int(exclude)
    if antialias:
        attrs["antialias"] = 1
    if axes:
        attrs["axes"] = list(axes)
    if use_sizes and policy != "stretch":
        attrs["keep_aspect_ratio_policy"] = policy
    if transform == "tf_crop_and_resize":
        attrs["extrapolation_value"] = 7.5
    x = _RNG.uniform(-10, 10, size=shape)
    dtype = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64,
             TensorProto.INT32: np.int32, TensorProto.UINT8: np.uint8}[elem]
    if elem == TensorProto.UINT8:
        x = _RNG.randint(0, 256, size=shape)
    x = x.astype(dtype)
    feeds = {"X": x}
    if use_sizes:
        feeds["sizes"] = np.array([int(_RNG.choice(_DIMS)) * (1 + int(_RNG.randint(0, 2)))
                                   for _ in resized], dtype=np.int64)
    else:
        # Whole output lengths: a scale whose product with the dim is an integer (0.75 and
        # 1.25 only for dims divisible by 4).
        scales = []
        for a in resized:
            choices = [s for s in _SCALES if float(s * shape[a]).is_integer() and s * shape[a] > 0]
            scales.append(_RNG.choice(choices))
        feeds["scales"] = np.array(scales, dtype=np.float32)
    with_roi = transform == "tf_crop_and_resize"
    if with_roi:
        starts = _RNG.uniform(-0.2, 0.5, size=len(resized))
        ends = _RNG.uniform(0.5, 1.2, size=len(resized))
        feeds["roi"] = np.concatenate([starts, ends]).astype(np.float32)
    model = _model(rank, elem, attrs, use_sizes, len(resized), with_roi)
    actual, expected = _run_both(model, feeds, _oracle(mode, transform, elem))
    assert actual.shape == expected.shape, (attrs, feeds)
    if np.issubdtype(dtype, np.integer):
        # Integer results are rounded reals: a half-way value may round either way when the two
        # runtimes sum the weights in a different order.
        np.testing.assert_allclose(actual.astype(np.int64), expected.astype(np.int64), atol=1,
                                   err_msg=str(attrs))
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4, err_msg=str(attrs))


_DIMS = (1, 2, 4, 8)
_SCALES = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)


def _shape(rank):
    return tuple(int(v) for v in _RNG.choice(_DIMS, size=rank))


@pytest.mark.parametrize("mode,transform", list(itertools.product(
    ("nearest", "linear", "cubic"), _TRANSFORMS)))
def test_every_mode_and_transform(mode, transform):
    for trial in range(12):
        if mode == "nearest":
            shape, axes = _shape(int(_RNG.choice([1, 2, 3, 4]))), None
        elif trial % 2:
            shape, axes = _shape(2), None
        else:
            shape, axes = _shape(4), (2, 3)
        nearest = _NEAREST[trial % len(_NEAREST)]
        use_sizes = trial % 3 == 1
        exclude = mode == "cubic" and trial % 3 == 0
        _case(mode, transform, nearest, use_sizes, False, "stretch", axes, shape, exclude,
              TensorProto.FLOAT)


@pytest.mark.parametrize("mode", ("linear", "cubic"))
def test_antialias_when_shrinking(mode):
    for trial in range(10):
        shape = (1, 2) + tuple(int(v) for v in _RNG.choice((4, 8), size=2))
        _case(mode, "half_pixel", "round_prefer_floor", trial % 2 == 1, True, "stretch", (2, 3),
              shape, False, TensorProto.FLOAT)


@pytest.mark.parametrize("policy", ("stretch", "not_larger", "not_smaller"))
def test_axes_and_aspect_policies(policy):
    for trial in range(8):
        shape = (2, 3) + _shape(2)
        axes = (3, 2) if trial % 2 else (2, 3)
        mode = ("nearest", "linear")[trial % 2]
        _case(mode, "asymmetric", "floor", True, False, policy, axes, shape, False,
              TensorProto.FLOAT)


@pytest.mark.parametrize("elem", (TensorProto.DOUBLE, TensorProto.INT32, TensorProto.UINT8))
def test_other_element_types(elem):
    for trial, mode in enumerate(("nearest", "linear", "cubic") * 3):
        shape, axes = (_shape(3), None) if mode == "nearest" else (_shape(4), (2, 3))
        _case(mode, _TRANSFORMS[trial % 5], "round_prefer_ceil", trial % 2 == 0, False,
              "stretch", axes, shape, False, elem)
