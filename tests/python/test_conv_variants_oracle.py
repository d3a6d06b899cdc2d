"""ConvInteger and DeformConv against onnxruntime on random inputs: ConvInteger (also against
onnx.reference, for the type pairs onnxruntime refuses) with int8 and
uint8 inputs, scalar and per-channel weight zero points, pads, strides, dilations, groups and
auto_pad; DeformConv (2-D) with groups, offset groups, masks, bias, pads, strides and
dilations, offsets reaching outside the image; zero offsets equal Conv; 1-D and 3-D
DeformConv against a direct numpy sum."""
import itertools

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort
from ort_int8_exactness import check_against_onnxruntime

_RNG = np.random.RandomState(20261126)


def _model(op, inputs, elems, out_elem, opset, **attrs):
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], **attrs)], op.lower(),
        [helper.make_tensor_value_info(name, elem, None) for name, elem in zip(inputs, elems)],
        [helper.make_tensor_value_info("y", out_elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=9).SerializeToString()


_INT = {np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8}


@pytest.mark.parametrize("x_type,w_type", [(np.uint8, np.int8), (np.int8, np.int8),
                                           (np.uint8, np.uint8), (np.int8, np.uint8)])
@pytest.mark.parametrize("attrs,group,per_channel", [
    ({}, 1, False),
    ({"pads": [1, 2, 0, 1], "strides": [2, 1]}, 1, True),
    ({"dilations": [2, 1], "auto_pad": "SAME_UPPER"}, 1, False),
    ({"group": 2, "pads": [1, 1, 1, 1]}, 2, True),
])
def test_conv_integer_matches_onnxruntime(x_type, w_type, attrs, group, per_channel):
    info = np.iinfo
    x = _RNG.randint(info(x_type).min, info(x_type).max + 1, (2, 4, 6, 7)).astype(x_type)
    w = _RNG.randint(info(w_type).min, info(w_type).max + 1, (4, 4 // group, 3, 2)).astype(w_type)
    x_zero = np.array(_RNG.randint(info(x_type).min, info(x_type).max + 1), x_type)
    w_zero = (_RNG.randint(info(w_type).min, info(w_type).max + 1, 4) if per_channel else
              np.array(_RNG.randint(info(w_type).min, info(w_type).max + 1))).astype(w_type)
    model = _model("ConvInteger", ["x", "w", "xz", "wz"],
                   [_INT[x_type], _INT[w_type], _INT[x_type], _INT[w_type]], TensorProto.INT32,
                   10, **attrs)
    feeds = {"x": x, "w": w, "xz": x_zero, "wz": w_zero}
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    np.testing.assert_array_equal(actual, ReferenceEvaluator(model).run(None, feeds)[0])
    try:
        peer = onnxruntime.InferenceSession(model).run(None, feeds)[0]
    except Exception as error:  # onnxruntime lacks int8 X and some per-channel zero points
        assert "ConvInteger" in str(error) or "Conv" in str(error)
        return
    check_against_onnxruntime(lambda: np.testing.assert_array_equal(actual, peer), x_type,
                              w_type, "ConvInteger")


def test_conv_integer_against_numpy_for_every_type_pair():
    # A direct sum, so the type pairs and per-channel zero points onnxruntime refuses are checked.
    for x_type, w_type in itertools.product([np.int8, np.uint8], repeat=2):
        x = _RNG.randint(0, 100, (1, 2, 4, 4)).astype(x_type)
        w = _RNG.randint(0, 100, (3, 2, 2, 2)).astype(w_type)
        xz, wz = np.array(7, x_type), np.array([1, 5, 9], w_type)
        model = _model("ConvInteger", ["x", "w", "xz", "wz"],
                       [_INT[x_type], _INT[w_type], _INT[x_type], _INT[w_type]],
                       TensorProto.INT32, 10)
        y = ort.InferenceSession(model).run(None, {"x": x, "w": w, "xz": xz, "wz": wz})[0]
        xs = x.astype(np.int32) - 7
        ws = w.astype(np.int32) - wz.astype(np.int32)[:, None, None, None]
        expected = np.zeros((1, 3, 3, 3), np.int32)
        for m, i, j in itertools.product(range(3), range(3), range(3)):
            expected[0, m, i, j] = np.sum(xs[0, :, i:i + 2, j:j + 2] * ws[m])
        np.testing.assert_array_equal(y, expected)


def _deform_numpy(x, w, offset, b, mask, strides, pads, dilations, group, offset_group):
    """Direct N-D deformable convolution: multilinear sampling with zeros outside."""
    n, c = x.shape[:2]
    m = w.shape[0]
    kernel = w.shape[2:]
    rank = len(kernel)
    out = offset.shape[2:]
    taps = int(np.prod(kernel))
    y = np.zeros((n, m) + out)
    for b_i in range(n):
        for o in itertools.product(*[range(s) for s in out]):
            for oc in range(m):
                g = oc // (m // group)
                total = 0.0 if b is None else float(b[oc])
                for ci in range(c // group):
                    ch = g * (c // group) + ci
                    og = ch // (c // offset_group)
                    for k_flat, k in enumerate(itertools.product(*[range(s) for s in kernel])):
                        tap = og * taps + k_flat
                        pos = [o[d] * strides[d] - pads[d] + k[d] * dilations[d] +
                               offset[(b_i, tap * rank + d) + o] for d in range(rank)]
                        low = [int(np.floor(p)) for p in pos]
                        value = 0.0
                        for corner in itertools.product([0, 1], repeat=rank):
                            idx = [low[d] + corner[d] for d in range(rank)]
                            if all(0 <= idx[d] < x.shape[2 + d] for d in range(rank)):
                                weight = np.prod([(pos[d] - low[d]) if corner[d] else
                                                  (1 - (pos[d] - low[d])) for d in range(rank)])
                                value += weight * x[(b_i, ch) + tuple(idx)]
                        if mask is not None:
                            value *= mask[(b_i, tap) + o]
                        total += value * w[(oc, ci) + k]
                y[(b_i, oc) + o] = total
    return y


def _deform_inputs(shape, kernel, m, group, offset_group, strides, pads, dilations, dtype):
    x = _RNG.standard_normal(shape).astype(dtype)
    w = _RNG.standard_normal((m, shape[1] // group) + tuple(kernel)).astype(dtype)
    rank = len(kernel)
    out = tuple((shape[2 + d] + pads[d] + pads[d + rank] - ((kernel[d] - 1) * dilations[d] + 1))
                // strides[d] + 1 for d in range(rank))
    taps = int(np.prod(kernel))
    offset = (_RNG.standard_normal((shape[0], offset_group * taps * rank) + out) * 1.5).astype(dtype)
    mask = _RNG.uniform(0, 1, (shape[0], offset_group * taps) + out).astype(dtype)
    b = _RNG.standard_normal(m).astype(dtype)
    return x, w, offset, b, mask


@pytest.mark.parametrize("case", [
    dict(shape=(1, 2, 5, 6), kernel=(3, 3), m=4, group=1, offset_group=1, strides=(1, 1),
         pads=(1, 1, 1, 1), dilations=(1, 1), use_mask=False, use_bias=False),
    dict(shape=(2, 4, 6, 5), kernel=(2, 3), m=6, group=2, offset_group=2, strides=(2, 1),
         pads=(0, 1, 1, 0), dilations=(1, 2), use_mask=True, use_bias=True),
    dict(shape=(1, 4, 4, 4), kernel=(2, 2), m=2, group=1, offset_group=4, strides=(1, 1),
         pads=(0, 0, 0, 0), dilations=(1, 1), use_mask=True, use_bias=False),
])
def test_deform_conv_2d_matches_numpy_and_onnxruntime(case):
    x, w, offset, b, mask = _deform_inputs(case["shape"], case["kernel"], case["m"],
                                           case["group"], case["offset_group"], case["strides"],
                                           case["pads"], case["dilations"], np.float32)
    inputs = ["x", "w", "offset"] + (["b"] if case["use_bias"] else [""] if case["use_mask"] else [])
    if case["use_mask"]:
        inputs.append("mask")
    attrs = dict(group=case["group"], offset_group=case["offset_group"],
                 strides=list(case["strides"]), pads=list(case["pads"]),
                 dilations=list(case["dilations"]))
    feeds = {"x": x, "w": w, "offset": offset}
    if case["use_bias"]:
        feeds["b"] = b
    if case["use_mask"]:
        feeds["mask"] = mask
    names = [i for i in inputs if i]
    graph = helper.make_graph(
        [helper.make_node("DeformConv", inputs, ["y"], **attrs)], "deform",
        [helper.make_tensor_value_info(i, TensorProto.FLOAT, None) for i in names],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)],
                              ir_version=9).SerializeToString()
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    expected = _deform_numpy(x.astype(np.float64), w, offset, b if case["use_bias"] else None,
                             mask if case["use_mask"] else None, case["strides"], case["pads"],
                             case["dilations"], case["group"], case["offset_group"])
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)
    try:
        peer = onnxruntime.InferenceSession(model).run(None, feeds)[0]
    except Exception as error:
        pytest.skip(f"onnxruntime has no DeformConv here: {str(error)[:80]}")
    np.testing.assert_allclose(actual, peer, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,kernel", [((1, 2, 7), (3,)), ((1, 2, 3, 4, 3), (2, 2, 2))])
def test_deform_conv_other_ranks_match_numpy(shape, kernel):
    rank = len(kernel)
    strides, pads, dilations = (1,) * rank, (1,) * (2 * rank), (1,) * rank
    x, w, offset, b, mask = _deform_inputs(shape, kernel, 3, 1, 2, strides, pads, dilations,
                                           np.float64)
    graph = helper.make_graph(
        [helper.make_node("DeformConv", ["x", "w", "offset", "b", "mask"], ["y"],
                          offset_group=2, pads=list(pads))], "deform",
        [helper.make_tensor_value_info(i, TensorProto.DOUBLE, None)
         for i in ["x", "w", "offset", "b", "mask"]],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)],
                              ir_version=10).SerializeToString()
    actual = ort.InferenceSession(model).run(
        None, {"x": x, "w": w, "offset": offset, "b": b, "mask": mask})[0]
    expected = _deform_numpy(x, w, offset, b, mask, strides, pads, dilations, 1, 2)
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-10)


def test_deform_conv_with_zero_offsets_is_conv():
    x = _RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    w = _RNG.standard_normal((2, 3, 3, 3)).astype(np.float32)
    offset = np.zeros((1, 18, 4, 4), np.float32)
    deform = _model("DeformConv", ["x", "w", "offset"], [TensorProto.FLOAT] * 3,
                    TensorProto.FLOAT, 19)
    conv = _model("Conv", ["x", "w"], [TensorProto.FLOAT] * 2, TensorProto.FLOAT, 19)
    np.testing.assert_allclose(
        ort.InferenceSession(deform).run(None, {"x": x, "w": w, "offset": offset})[0],
        ort.InferenceSession(conv).run(None, {"x": x, "w": w})[0], rtol=1e-5, atol=1e-5)


def test_deform_conv_bad_offset_shape_is_refused_by_name():
    model = _model("DeformConv", ["x", "w", "offset"], [TensorProto.FLOAT] * 3,
                   TensorProto.FLOAT, 19)
    feeds = {"x": np.zeros((1, 1, 4, 4), np.float32), "w": np.zeros((1, 1, 2, 2), np.float32),
             "offset": np.zeros((1, 4, 3, 3), np.float32)}
    with pytest.raises(Exception, match="offset must be"):
        ort.InferenceSession(model).run(None, feeds)
