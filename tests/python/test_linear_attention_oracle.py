"""LinearAttention (opset 27) against onnx.reference, the spec's implementation (onnxruntime 1.31
has no kernel for it), on random inputs: every update rule, decay per head and per key dim, beta
per head and shared, grouped query heads, a past state, an explicit scale; a step-by-step decode
(each present_state fed back) equals one pass; a missing decay for a gated rule is refused."""
import numpy as np
import onnx.reference
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261208)


def _model(names, **attrs):
    graph = helper.make_graph(
        [helper.make_node("LinearAttention", [n or "" for n in names], ["y", "state"], **attrs)],
        "linear_attention",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in names if n],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("state", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)],
                             ir_version=10).SerializeToString()


def _feeds(b, t, q_heads, kv_heads, dk, dv, rule, per_dim_decay, shared_beta, past):
    f = {"q": _RNG.standard_normal((b, t, q_heads * dk)).astype(np.float32) * 0.5,
         "k": _RNG.standard_normal((b, t, kv_heads * dk)).astype(np.float32) * 0.5,
         "v": _RNG.standard_normal((b, t, kv_heads * dv)).astype(np.float32)}
    names = ["q", "k", "v", "past" if past else None, None, None]
    if past:
        f["past"] = _RNG.standard_normal((b, kv_heads, dk, dv)).astype(np.float32) * 0.1
    if rule in ("gated", "gated_delta"):
        width = kv_heads * dk if per_dim_decay else kv_heads
        f["decay"] = -_RNG.uniform(0.01, 0.5, size=(b, t, width)).astype(np.float32)
        names[4] = "decay"
    if rule in ("delta", "gated_delta"):
        f["beta"] = _RNG.uniform(0.1, 0.9, size=(b, t, 1 if shared_beta else kv_heads)).astype(
            np.float32)
        names[5] = "beta"
    while names[-1] is None:
        names.pop()
    return names, f


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
@pytest.mark.parametrize("heads", [(2, 2), (4, 2)])
@pytest.mark.parametrize("variant", [(False, False, False), (True, True, True)])
def test_matches_the_reference(rule, heads, variant):
    per_dim_decay, shared_beta, past = variant
    names, feeds = _feeds(2, 5, heads[0], heads[1], 4, 3, rule, per_dim_decay, shared_beta, past)
    attrs = {"q_num_heads": heads[0], "kv_num_heads": heads[1], "update_rule": rule}
    if past:
        attrs["scale"] = 0.7
    model = _model(names, **attrs)
    expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)
    actual = ort.InferenceSession(model).run(None, feeds)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-5)


def test_decode_steps_equal_one_pass():
    names, feeds = _feeds(1, 6, 2, 2, 4, 4, "gated_delta", False, False, True)
    attrs = {"q_num_heads": 2, "kv_num_heads": 2}
    whole = ort.InferenceSession(_model(names, **attrs)).run(None, feeds)
    session = ort.InferenceSession(_model(names, **attrs))
    state, pieces = feeds["past"], []
    for t in range(6):
        step = {n: (v[:, t:t + 1] if n != "past" else state) for n, v in feeds.items()}
        y, state = session.run(None, step)
        pieces.append(y)
    np.testing.assert_allclose(np.concatenate(pieces, axis=1), whole[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state, whole[1], rtol=1e-5, atol=1e-6)


def test_gated_rule_without_decay_is_refused():
    names, feeds = _feeds(1, 2, 1, 1, 2, 2, "linear", False, False, False)
    with pytest.raises(Exception, match="update_rule 'gated' requires input decay"):
        ort.InferenceSession(_model(names, q_num_heads=1, kv_num_heads=1,
                                    update_rule="gated")).run(None, feeds)
