"""FlexAttention (ai.onnx.preview 1) against onnx.reference on random inputs (onnxruntime has no
kernel): grouped-query heads, different value head sizes, an explicit scale, score_mod (a
causal mask with Where, a soft cap) and prob_mod subgraphs, float16, bfloat16 and double
inputs, softmax_precision; a modifier returning the wrong shape is refused by name."""
import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort

_RNG = np.random.RandomState(20261128)


def _modifier(kind, elem):
    x = helper.make_tensor_value_info("s", elem, ["B", "H", "L", "S"])
    y = helper.make_tensor_value_info("t", elem, ["B", "H", "L", "S"])
    np_type = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64,
               TensorProto.FLOAT16: np.float16}[elem]
    if kind == "causal":
        nodes = [helper.make_node("Shape", ["s"], ["shape"]),
                 helper.make_node("Gather", ["shape", "two"], ["l"]),
                 helper.make_node("Gather", ["shape", "three"], ["n"]),
                 helper.make_node("Range", ["zero", "l", "one"], ["rows"]),
                 helper.make_node("Range", ["zero", "n", "one"], ["cols"]),
                 helper.make_node("Unsqueeze", ["rows", "axis"], ["rows2"]),
                 helper.make_node("Less", ["rows2", "cols"], ["masked"]),
                 helper.make_node("Where", ["masked", "ninf", "s"], ["t"])]
        inits = [helper.make_tensor("two", TensorProto.INT64, [], [2]),
                 helper.make_tensor("three", TensorProto.INT64, [], [3]),
                 helper.make_tensor("zero", TensorProto.INT64, [], [0]),
                 helper.make_tensor("one", TensorProto.INT64, [], [1]),
                 helper.make_tensor("axis", TensorProto.INT64, [1], [1]),
                 helper.make_tensor("ninf", elem, [], [float(np_type(-np.inf))])]
    elif kind == "softcap":
        nodes = [helper.make_node("Div", ["s", "cap"], ["d"]), helper.make_node("Tanh", ["d"], ["h"]),
                 helper.make_node("Mul", ["h", "cap"], ["t"])]
        inits = [helper.make_tensor("cap", elem, [], [2.5])]
    else:  # "halve": prob_mod scaling the probabilities
        nodes = [helper.make_node("Mul", ["s", "half"], ["t"])]
        inits = [helper.make_tensor("half", elem, [], [0.5])]
    return helper.make_graph(nodes, kind, [x], [y], initializer=inits)


def _model(elem, soft_elem=None, score_mod=None, prob_mod=None, **attrs):
    soft = soft_elem if soft_elem is not None else (
        TensorProto.DOUBLE if elem == TensorProto.DOUBLE else TensorProto.FLOAT)
    if score_mod:
        attrs["score_mod"] = _modifier(score_mod, soft)
    if prob_mod:
        attrs["prob_mod"] = _modifier(prob_mod, soft)
    if soft_elem is not None:
        attrs["softmax_precision"] = soft_elem
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview",
                            **attrs)
    graph = helper.make_graph([node], "flex",
                              [helper.make_tensor_value_info(n, elem, None) for n in "qkv"],
                              [helper.make_tensor_value_info("y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                   helper.make_opsetid("ai.onnx.preview", 1)],
                             ir_version=13)


@pytest.mark.parametrize("shapes", [((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 8)),
                                    ((1, 6, 4, 8), (1, 2, 7, 8), (1, 2, 7, 3)),
                                    ((2, 2, 1, 4), (2, 1, 1, 4), (2, 1, 1, 4))])
@pytest.mark.parametrize("mods", [(None, None), ("causal", None), ("softcap", "halve")])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_float_matches_reference(shapes, mods, scale):
    q, k, v = (_RNG.standard_normal(s).astype(np.float32) for s in shapes)
    attrs = {} if scale is None else {"scale": scale}
    model = _model(TensorProto.FLOAT, score_mod=mods[0], prob_mod=mods[1], **attrs)
    feeds = {"q": q, "k": k, "v": v}
    expected = ReferenceEvaluator(model).run(None, feeds)[0]
    actual = ort.InferenceSession(model.SerializeToString()).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("elem,dtype,soft,rtol", [
    (TensorProto.DOUBLE, np.float64, None, 1e-12),
    (TensorProto.FLOAT16, np.float16, None, 2e-3),
    (TensorProto.FLOAT16, np.float16, TensorProto.FLOAT16, 4e-3),
    (TensorProto.FLOAT, np.float32, TensorProto.DOUBLE, 1e-6),
    (TensorProto.BFLOAT16, ml_dtypes.bfloat16, None, 2e-2),
])
def test_other_types_match_reference(elem, dtype, soft, rtol):
    q = _RNG.standard_normal((1, 4, 3, 8)).astype(dtype)
    k = _RNG.standard_normal((1, 2, 5, 8)).astype(dtype)
    v = _RNG.standard_normal((1, 2, 5, 4)).astype(dtype)
    model = _model(elem, soft_elem=soft, score_mod="causal" if elem != TensorProto.BFLOAT16 else None)
    feeds = {"q": q, "k": k, "v": v}
    expected = ReferenceEvaluator(model).run(None, feeds)[0].astype(np.float64)
    actual = ort.InferenceSession(model.SerializeToString()).run(None, feeds)[0].astype(np.float64)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol)


def test_modifier_with_wrong_shape_is_refused_by_name():
    body = helper.make_graph(
        [helper.make_node("ReduceSum", ["s"], ["t"], keepdims=1)], "bad",
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview",
                            score_mod=body)
    graph = helper.make_graph([node], "flex",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
                               for n in "qkv"],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                    helper.make_opsetid("ai.onnx.preview", 1)],
                              ir_version=13)
    x = np.ones((1, 1, 2, 4), np.float32)
    with pytest.raises(Exception, match="score_mod must return one float tensor of shape"):
        ort.InferenceSession(model.SerializeToString()).run(None, {"q": x, "k": x, "v": x})
