"""Einsum against onnxruntime (float, double, int32, int64: the types its CPU kernel has) and
against numpy.einsum, the ONNX reference's own implementation, for the other element types and
for what onnxruntime refuses (size-1 broadcasting of letters, more than 26 distinct labels
written in both cases). Each case is one single-node model on random inputs; the malformed
equations must be refused with an error that names the problem."""
import numpy as np
import onnxruntime
import pytest
from onnx import helper, numpy_helper  # noqa: F401  (numpy_helper keeps onnx's dtype table)
from onnx.helper import np_dtype_to_tensor_dtype

import prismrt as ort

_RNG = np.random.RandomState(20261125)

# (equation, input shapes)
_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(2, 3), (3, 2)]),                       # implicit output: ik
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhid,bhjd->bhij", [(2, 3, 4, 5), (2, 3, 6, 5)]),  # attention scores
    ("bhij,bhjd->bhid", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(5, 5)]),                                  # trace
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(3, 4)]),
    ("ijk->kij", [(2, 3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,i", [(6,), (6,)]),                             # inner product
    ("i,j->ij", [(3,), (4,)]),                         # outer product
    ("i,j", [(3,), (4,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),                   # elementwise
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ab,bc,ca->", [(3, 4), (4, 5), (5, 3)]),
    ("abc,cd,a->bd", [(2, 3, 4), (4, 5), (2,)]),
    ("...ii->...i", [(3, 4, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (1, 5, 4, 2)]),     # ellipsis broadcast, implicit
    ("i...,i...->...", [(3, 2, 2), (3, 2, 2)]),
    ("...,...->...", [(2, 3), (1, 3)]),
    ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]),
    (",->", [(), ()]),                                 # scalars
    ("i,->i", [(4,), ()]),
    ("Ab,bA->A", [(3, 4), (4, 3)]),                    # upper and lower case are distinct
    ("ij,jk->ik", [(0, 3), (3, 4)]),                   # empty result
    ("ij,jk->ik", [(2, 0), (0, 4)]),                   # empty sum: zeros
    ("i j , j k -> i k", [(2, 3), (3, 2)]),            # spaces
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),     # bilinear
]

# Cases onnxruntime refuses or computes otherwise; numpy is the oracle.
_NUMPY_ONLY = [
    ("ij,ij->ij", [(1, 4), (3, 4)]),                   # a letter of size 1 broadcasts
    ("ij,jk->ik", [(2, 1), (3, 4)]),
    ("ii->i", [(1, 1)]),
    ("aA", [(3, 2)]),  # implicit: 'A' sorts before 'a' (onnxruntime refuses upper case here)
    ("aAb", [(3, 2, 4)]),
]


def _model(equation, shapes, dtype, opset):
    elem = np_dtype_to_tensor_dtype(np.dtype(dtype))
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    graph = helper.make_graph(
        [node], "einsum",
        [helper.make_tensor_value_info(n, elem, list(s)) for n, s in zip(names, shapes)],
        [helper.make_tensor_value_info("y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10).SerializeToString()


def _inputs(shapes, dtype):
    if np.issubdtype(dtype, np.floating):
        return [(_RNG.uniform(-1, 1, size=s)).astype(dtype) for s in shapes]
    info = np.iinfo(dtype)
    low, high = max(info.min, -4), min(info.max, 5)
    return [_RNG.randint(low, high, size=s).astype(dtype) for s in shapes]


def _numpy_einsum(equation, inputs, dtype):
    if dtype == np.float16:  # Prism sums float16 in float; so does this oracle
        return np.einsum(equation, *[x.astype(np.float32) for x in inputs]).astype(np.float16)
    return np.einsum(equation, *inputs)


def _prism(model, feeds):
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("equation,shapes", _CASES)
def test_einsum_matches_onnxruntime(equation, shapes, dtype):
    model = _model(equation, shapes, dtype, 12)
    inputs = _inputs(shapes, dtype)
    feeds = {f"x{i}": x for i, x in enumerate(inputs)}
    expected = onnxruntime.InferenceSession(
        model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    actual = _prism(model, feeds)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if np.issubdtype(dtype, np.floating):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.int16, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
@pytest.mark.parametrize("equation,shapes", _CASES[:12] + _CASES[17:24])
def test_einsum_other_types_match_numpy(equation, shapes, dtype):
    model = _model(equation, shapes, dtype, 12)
    inputs = _inputs(shapes, dtype)
    actual = _prism(model, {f"x{i}": x for i, x in enumerate(inputs)})
    expected = _numpy_einsum(equation, inputs, dtype)
    assert actual.dtype == np.dtype(dtype)
    assert actual.shape == expected.shape
    if dtype == np.float16:
        np.testing.assert_allclose(actual.astype(np.float32), expected.astype(np.float32),
                                   rtol=2e-3, atol=2e-3)
    else:
        np.testing.assert_array_equal(actual, expected)


def test_integer_overflow_wraps_as_numpy():
    inputs = [np.full((4,), 100, np.int8), np.full((4,), 3, np.int8)]
    model = _model("i,i->", [(4,), (4,)], np.int8, 12)
    actual = _prism(model, {"x0": inputs[0], "x1": inputs[1]})
    assert actual == np.einsum("i,i->", *inputs)  # 1200 wraps to -80


@pytest.mark.parametrize("equation,shapes", _NUMPY_ONLY)
def test_size_one_letters_broadcast_as_numpy(equation, shapes):
    inputs = _inputs(shapes, np.float32)
    actual = _prism(_model(equation, shapes, np.float32, 12),
                    {f"x{i}": x for i, x in enumerate(inputs)})
    np.testing.assert_allclose(actual, np.einsum(equation, *inputs), rtol=1e-5, atol=1e-6)


def test_bfloat16_from_opset_28():
    # bfloat16 joined Einsum's types in opset 28; numpy has no bfloat16, so the inputs are
    # bfloat16-exact floats built through Cast and the result is cast back to float.
    x = _RNG.randint(-8, 8, size=(3, 4)).astype(np.float32) / 4
    w = _RNG.randint(-8, 8, size=(4, 2)).astype(np.float32) / 4
    nodes = [helper.make_node("Cast", ["x"], ["xb"], to=16),
             helper.make_node("Cast", ["w"], ["wb"], to=16),
             helper.make_node("Einsum", ["xb", "wb"], ["yb"], equation="ij,jk->ik"),
             helper.make_node("Cast", ["yb"], ["y"], to=1)]
    graph = helper.make_graph(
        nodes, "einsum_bf16",
        [helper.make_tensor_value_info("x", 1, [3, 4]),
         helper.make_tensor_value_info("w", 1, [4, 2])],
        [helper.make_tensor_value_info("y", 1, [3, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)],
                              ir_version=10).SerializeToString()
    actual = _prism(model, {"x": x, "w": w})
    np.testing.assert_array_equal(actual, x @ w)  # small sums of quarters are exact


@pytest.mark.parametrize("equation,shapes,message", [
    ("ij,jk->ik", [(2, 3)], "2 input terms but the node has 1 inputs"),
    ("ij->ik", [(2, 3)], "output letter 'k'"),
    ("ij->ii", [(2, 3)], "appears more than once"),
    ("ijk->ij", [(2, 3)], "names 3 dimensions but input 0 has rank 2"),
    ("i1->i", [(2, 3)], "only letters and '...'"),
    ("...ij->ij", [(4, 2, 3)], "has no '...'"),
    ("i...j...->ij", [(2, 3, 4)], "more than one ellipsis"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "has size 4 but the same label has size 3"),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)], "every ellipsis must stand for the same number"),
])
def test_malformed_equations_are_refused_by_name(equation, shapes, message):
    model = _model(equation, shapes, np.float32, 12)
    with pytest.raises(Exception, match=message.replace("(", r"\(").replace(".", r"\.")):
        _prism(model, {f"x{i}": x for i, x in enumerate(_inputs(shapes, np.float32))})
