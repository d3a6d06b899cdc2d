"""Attention (opset 23) against onnxruntime on random inputs (onnx.reference where onnxruntime
refuses a case): 3-D and 4-D layouts, grouped-query heads, value heads of another size,
is_causal with and without a KV cache, boolean and additive masks of rank 2 to 4 (shorter than
the keys too), fully masked rows, softcap, an explicit scale, the present key/value outputs and
every qk_matmul_output mode."""
import numpy as np
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261130)


def _run_both(inputs, outputs, attrs, opset=23, threads=0):
    names = [name for name, _ in inputs]
    node = helper.make_node("Attention", [n if n else "" for n in names], outputs, **attrs)
    graph = helper.make_graph(
        [node], "attention",
        [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                       list(value.shape)) for name, value in inputs if name],
        [helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None) for name in outputs
         if name])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=10).SerializeToString()
    feeds = {name: value for name, value in inputs if name}
    try:
        expected = onnxruntime.InferenceSession(
            model, providers=["CPUExecutionProvider"]).run(None, feeds)
        oracle = "onnxruntime"
    except Exception:  # noqa: BLE001 (a case onnxruntime does not implement)
        expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)
        oracle = "reference"
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    actual = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    named = [name for name in outputs if name]
    assert len(actual) == len(expected) == len(named)
    for a, e, name in zip(actual, expected, named):
        assert a.shape == e.shape, (name, oracle)
        tolerance = 2e-3 if a.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=tolerance,
                                   atol=tolerance, err_msg="%s (oracle: %s)" % (name, oracle))


def _x(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("q_heads,kv_heads", [(2, 2), (4, 2), (4, 1)])
@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("with_past", [False, True])
def test_4d_heads_causal_and_cache(q_heads, kv_heads, causal, with_past):
    b, q_len, kv_len, past, head, v_head = 2, 3, 4, 2, 8, 6
    inputs = [("Q", _x(b, q_heads, q_len, head)), ("K", _x(b, kv_heads, kv_len, head)),
              ("V", _x(b, kv_heads, kv_len, v_head)), ("", None)]
    outputs = ["Y"]
    if with_past:
        inputs += [("past_key", _x(b, kv_heads, past, head)),
                   ("past_value", _x(b, kv_heads, past, v_head))]
        outputs += ["present_key", "present_value"]
    _run_both(inputs, outputs, {"is_causal": causal})


@pytest.mark.parametrize("q_heads,kv_heads", [(2, 2), (6, 3)])
def test_3d_layout(q_heads, kv_heads):
    b, q_len, kv_len, head = 2, 5, 3, 4
    inputs = [("Q", _x(b, q_len, q_heads * head)), ("K", _x(b, kv_len, kv_heads * head)),
              ("V", _x(b, kv_len, kv_heads * 2 * head))]
    _run_both(inputs, ["Y"], {"q_num_heads": q_heads, "kv_num_heads": kv_heads, "scale": 0.3})


@pytest.mark.parametrize("mask_shape", [(3, 4), (2, 3, 4), (2, 2, 3, 4), (1, 1, 3, 4), (3, 2)])
@pytest.mark.parametrize("boolean", [False, True])
@pytest.mark.parametrize("causal", [0, 1])
def test_masks(mask_shape, boolean, causal):
    b, heads, q_len, kv_len, head = 2, 2, 3, 4, 4
    if boolean:
        mask = _RNG.uniform(size=mask_shape) > 0.3
        mask[..., 0] = True  # every row attends somewhere
    else:
        mask = _x(*mask_shape)
    inputs = [("Q", _x(b, heads, q_len, head)), ("K", _x(b, heads, kv_len, head)),
              ("V", _x(b, heads, kv_len, head)), ("attn_mask", mask)]
    _run_both(inputs, ["Y"], {"is_causal": causal})


def test_fully_masked_rows_give_zeros():
    mask = np.ones((3, 4), bool)
    mask[1, :] = False
    inputs = [("Q", _x(1, 1, 3, 4)), ("K", _x(1, 1, 4, 4)), ("V", _x(1, 1, 4, 4)),
              ("attn_mask", mask)]
    _run_both(inputs, ["Y", "", "", "qk_out"], {"qk_matmul_output_mode": 3})


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("softcap", [0.0, 2.0])
def test_qk_matmul_output_modes_and_softcap(mode, softcap):
    inputs = [("Q", _x(2, 2, 3, 4)), ("K", _x(2, 2, 5, 4)), ("V", _x(2, 2, 5, 4)),
              ("attn_mask", _x(3, 5)), ("past_key", _x(2, 2, 1, 4)),
              ("past_value", _x(2, 2, 1, 4))]
    inputs[3] = ("attn_mask", _x(3, 6))
    attrs = {"qk_matmul_output_mode": mode}
    if softcap:
        attrs["softcap"] = softcap
    _run_both(inputs, ["Y", "present_key", "present_value", "qk_out"], attrs)


def test_float16():
    inputs = [("Q", _x(1, 2, 3, 8, dtype=np.float16)), ("K", _x(1, 2, 4, 8, dtype=np.float16)),
              ("V", _x(1, 2, 4, 8, dtype=np.float16))]
    _run_both(inputs, ["Y"], {"is_causal": 1})


@pytest.mark.parametrize("layout", ["3d", "4d"])
@pytest.mark.parametrize("causal", [0, 1])
def test_bert_sized_heads_on_two_threads(layout, causal):
    # Sizes where the float kernel's (batch, head) pairs split over the intra-op pool and its
    # products run the blocked SGEMM: grouped heads, a KV cache, a boolean key mask.
    b, q_heads, kv_heads, q_len, past, head = 2, 6, 3, 40, 24, 32
    total = past + q_len
    mask = _RNG.uniform(size=(b, 1, q_len, total)) > 0.2
    mask[..., 0] = True
    if layout == "3d":
        inputs = [("Q", _x(b, q_len, q_heads * head)), ("K", _x(b, q_len, kv_heads * head)),
                  ("V", _x(b, q_len, kv_heads * head))]
        attrs = {"q_num_heads": q_heads, "kv_num_heads": kv_heads, "is_causal": causal}
    else:
        inputs = [("Q", _x(b, q_heads, q_len, head)), ("K", _x(b, kv_heads, q_len, head)),
                  ("V", _x(b, kv_heads, q_len, head))]
        attrs = {"is_causal": causal}
    inputs += [("attn_mask", mask), ("past_key", _x(b, kv_heads, past, head)),
               ("past_value", _x(b, kv_heads, past, head))]
    _run_both(inputs, ["Y", "present_key", "present_value"], attrs, threads=2)
