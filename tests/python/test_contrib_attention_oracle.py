"""com.microsoft Attention against onnxruntime's CPU EP on random inputs: every mask_index format
onnxruntime's CPU kernel accepts (1-D right padding [B], [2B] ends and starts, 2-D and 3-D raw
masks), unidirectional with and without past, past/present, attention_bias broadcast over batch
and heads, qkv_hidden_sizes with a V of another width, scale, mask_filter_value, float16, and
the refusals (4-D masks, bad shapes)."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261125)
_MS = "com.microsoft"


def _model(inputs, outputs, attrs, op="Attention"):
    node = helper.make_node(op, [name for name, _ in inputs], outputs, domain=_MS, **attrs)
    graph = helper.make_graph(
        [node], "attention",
        [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                       list(value.shape)) for name, value in inputs if name],
        [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(inputs[0][1].dtype),
                                       None) for name in outputs if name])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid(_MS, 1)],
                             ir_version=9).SerializeToString()


def _run_both(inputs, outputs, attrs, tolerance=None):
    model = _model(inputs, outputs, attrs)
    feeds = {name: value for name, value in inputs if name}
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    named = [name for name in outputs if name]
    assert len(actual) == len(expected) == len(named)
    for a, e, name in zip(actual, expected, named):
        assert a.shape == e.shape, name
        assert a.dtype == e.dtype, name
        tol = tolerance or (3e-3 if a.dtype == np.float16 else 1e-4)
        np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=tol,
                                   atol=tol, err_msg=name)
    return actual


def _x(*shape, dtype=np.float32, scale=1.0):
    return (_RNG.standard_normal(shape) * scale).astype(dtype)


def _attention_inputs(b, s, hidden, heads, dtype=np.float32, qkv=None, past=0):
    qkv = qkv or (hidden, hidden, hidden)
    inputs = [("input", _x(b, s, hidden, dtype=dtype)),
              ("weights", _x(hidden, sum(qkv), dtype=dtype, scale=0.3)),
              ("bias", _x(sum(qkv), dtype=dtype, scale=0.3))]
    past_value = _x(2, b, heads, past, qkv[0] // heads, dtype=dtype) if past else None
    return inputs, past_value


def _masks(b, s, total):
    lengths = _RNG.randint(1, total + 1, size=b).astype(np.int32)
    starts = np.array([_RNG.randint(0, length) for length in lengths], np.int32)
    raw2 = (_RNG.rand(b, total) > 0.3).astype(np.int32)
    raw2[:, 0] = 1
    raw3 = (_RNG.rand(b, s, total) > 0.3).astype(np.int32)
    return {"none": None, "lengths": lengths, "ends_starts": np.concatenate([lengths, starts]),
            "raw2d": raw2, "raw3d": raw3, "raw2d_values": raw2 * _RNG.randint(1, 4, (b, total)).astype(np.int32)}


@pytest.mark.parametrize("mask_kind", ["none", "lengths", "ends_starts", "raw2d", "raw3d",
                                       "raw2d_values"])
@pytest.mark.parametrize("unidirectional", [0, 1])
@pytest.mark.parametrize("b,s,hidden,heads", [(2, 5, 16, 2), (3, 7, 24, 4), (1, 1, 8, 1)])
def test_masks_and_direction(mask_kind, unidirectional, b, s, hidden, heads):
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    mask = _masks(b, s, s)[mask_kind]
    if mask is not None:
        inputs.append(("mask_index", mask))
    _run_both(inputs, ["output"], {"num_heads": heads, "unidirectional": unidirectional})


@pytest.mark.parametrize("mask_kind", ["none", "lengths", "ends_starts", "raw2d", "raw3d"])
@pytest.mark.parametrize("unidirectional", [0, 1])
@pytest.mark.parametrize("s,past", [(1, 4), (3, 2), (2, 0)])
def test_past_and_present(mask_kind, unidirectional, s, past):
    b, hidden, heads = 2, 16, 4
    inputs, past_value = _attention_inputs(b, s, hidden, heads, past=past)
    if past_value is None:
        past_value = np.zeros((2, b, heads, 0, hidden // heads), np.float32)
    mask = _masks(b, s, past + s)[mask_kind]
    inputs += [("mask_index", mask if mask is not None else None), ("past", past_value)]
    inputs = [(name if value is not None else "", value) for name, value in inputs]
    _run_both(inputs, ["output", "present"],
              {"num_heads": heads, "unidirectional": unidirectional})


def test_present_without_past():
    b, s, hidden, heads = 2, 3, 16, 2
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    _run_both(inputs, ["output", "present"], {"num_heads": heads, "unidirectional": 1})


@pytest.mark.parametrize("bias_shape", ["full", "batch1", "heads1", "both1"])
@pytest.mark.parametrize("with_mask", [False, True])
def test_attention_bias(bias_shape, with_mask):
    b, s, hidden, heads = 2, 4, 16, 2
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    dims = {"full": (b, heads), "batch1": (1, heads), "heads1": (b, 1), "both1": (1, 1)}
    inputs.append(("mask_index", _masks(b, s, s)["raw2d"]) if with_mask else ("", None))
    inputs += [("", None), ("attention_bias", _x(*dims[bias_shape], s, s))]
    _run_both(inputs, ["output"], {"num_heads": heads})


@pytest.mark.parametrize("qkv", [(16, 16, 8), (8, 8, 24)])
def test_qkv_hidden_sizes(qkv):
    b, s, hidden, heads = 2, 5, 12, 4
    inputs, _ = _attention_inputs(b, s, hidden, heads, qkv=qkv)
    inputs.append(("mask_index", _masks(b, s, s)["lengths"]))
    _run_both(inputs, ["output"], {"num_heads": heads, "qkv_hidden_sizes": list(qkv)})


def test_scale_and_mask_filter_value():
    b, s, hidden, heads = 2, 6, 16, 2
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    inputs.append(("mask_index", _masks(b, s, s)["raw3d"]))
    _run_both(inputs, ["output"], {"num_heads": heads, "scale": 0.125,
                                   "mask_filter_value": -50.0})


def test_fully_masked_rows_follow_mask_filter_value():
    # Every key masked: the scores all shift by mask_filter_value, so softmax still spreads
    # over them by the raw scores (not zeros, as a -inf mask would give).
    b, s, hidden, heads = 2, 3, 8, 2
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    inputs.append(("mask_index", np.zeros((b, s), np.int32)))
    _run_both(inputs, ["output"], {"num_heads": heads})


@pytest.mark.parametrize("mask_kind", ["none", "lengths", "raw2d"])
def test_float16(mask_kind):
    b, s, hidden, heads = 2, 5, 16, 2
    inputs, _ = _attention_inputs(b, s, hidden, heads, dtype=np.float16)
    mask = _masks(b, s, s)[mask_kind]
    if mask is not None:
        inputs.append(("mask_index", mask))
    _run_both(inputs, ["output"], {"num_heads": heads, "unidirectional": 1})


def test_larger_shapes_split_over_threads():
    b, s, hidden, heads = 4, 33, 64, 4
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    inputs.append(("mask_index", _masks(b, s, s)["lengths"]))
    _run_both(inputs, ["output"], {"num_heads": heads})


def _prism_error(inputs, attrs, outputs=("output",)):
    model = _model(inputs, list(outputs), attrs)
    feeds = {name: value for name, value in inputs if name}
    with pytest.raises(Exception) as error:
        ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    return str(error.value)


def test_refusals_name_the_input():
    b, s, hidden, heads = 2, 3, 8, 2
    inputs, _ = _attention_inputs(b, s, hidden, heads)
    message = _prism_error(inputs + [("mask_index", np.ones((b, 1, s, s), np.int32))],
                           {"num_heads": heads})
    assert "4-D input 3 (mask_index)" in message
    message = _prism_error(inputs + [("mask_index", np.ones((b, s + 1), np.int32))],
                           {"num_heads": heads})
    assert "input 3 (mask_index) must be [2], [4], [2, 3] or [2, 3, 3], got [2,4]" in message
    message = _prism_error(inputs, {"num_heads": 3})
    assert "divisible by num_heads 3" in message
    message = _prism_error(inputs, {"num_heads": heads, "do_rotary": 1})
    assert "do_rotary" in message


# ---- MultiHeadAttention ----

def _run_mha(inputs, outputs, attrs, tolerance=None, reference_inputs=None):
    """Prism on inputs; onnxruntime on reference_inputs (an unpacked equivalent) or inputs."""
    model = _model(inputs, outputs, attrs, op="MultiHeadAttention")
    feeds = {name: value for name, value in inputs if name}
    reference = reference_inputs or inputs
    expected = onnxruntime.InferenceSession(
        _model(reference, outputs, attrs, op="MultiHeadAttention"),
        providers=["CPUExecutionProvider"]).run(
            None, {name: value for name, value in reference if name})
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    for a, e, name in zip(actual, expected, [o for o in outputs if o]):
        assert a.shape == e.shape, name
        tol = tolerance or (3e-3 if a.dtype == np.float16 else 1e-4)
        finite = np.isfinite(e) & (np.abs(e) < 1e30)  # causal scores hold the float lowest
        np.testing.assert_array_equal(finite, np.isfinite(a) & (np.abs(a) < 1e30), err_msg=name)
        np.testing.assert_allclose(a[finite].astype(np.float64), e[finite].astype(np.float64),
                                   rtol=tol, atol=tol, err_msg=name)
    return actual


def _mha_inputs(b, s, kv, hidden, heads, v_hidden=None, bias=True, past=0, dtype=np.float32):
    v_hidden = v_hidden or hidden
    inputs = [("query", _x(b, s, hidden, dtype=dtype)), ("key", _x(b, kv, hidden, dtype=dtype)),
              ("value", _x(b, kv, v_hidden, dtype=dtype)),
              ("bias", _x(2 * hidden + v_hidden, dtype=dtype)) if bias else ("", None)]
    pasts = None
    if past:
        pasts = [("past_key", _x(b, heads, past, hidden // heads, dtype=dtype)),
                 ("past_value", _x(b, heads, past, v_hidden // heads, dtype=dtype))]
    return inputs, pasts


def _with(inputs, mask=None, attention_bias=None, pasts=None):
    out = list(inputs)
    if mask is not None or attention_bias is not None or pasts:
        out.append(("key_padding_mask", mask) if mask is not None else ("", None))
    if attention_bias is not None or pasts:
        out.append(("attention_bias", attention_bias) if attention_bias is not None else ("", None))
    if pasts:
        out += pasts
    return out


@pytest.mark.parametrize("mask_kind", ["none", "lengths", "raw2d", "raw3d"])
@pytest.mark.parametrize("unidirectional", [0, 1])
@pytest.mark.parametrize("s,kv", [(4, 4), (3, 6), (1, 5), (5, 2)])
def test_mha_self_and_cross(mask_kind, unidirectional, s, kv):
    b, hidden, heads = 2, 16, 2
    inputs, _ = _mha_inputs(b, s, kv, hidden, heads)
    mask = _masks(b, s, kv)[mask_kind]
    _run_mha(_with(inputs, mask), ["output"],
             {"num_heads": heads, "unidirectional": unidirectional})


@pytest.mark.parametrize("mask_kind", ["none", "lengths", "raw2d", "raw3d"])
@pytest.mark.parametrize("unidirectional", [0, 1])
@pytest.mark.parametrize("with_bias", [False, True])
def test_mha_past_present_and_attention_bias(mask_kind, unidirectional, with_bias):
    b, s, past, hidden, heads = 2, 3, 4, 16, 4
    inputs, pasts = _mha_inputs(b, s, s, hidden, heads, past=past)
    total = past + s
    mask = _masks(b, s, total)[mask_kind]
    attention_bias = _x(1, heads, s, total) if with_bias else None
    _run_mha(_with(inputs, mask, attention_bias, pasts), ["output", "present_key",
                                                          "present_value"],
             {"num_heads": heads, "unidirectional": unidirectional})


@pytest.mark.parametrize("bias_dims", [(2, 2), (1, 2), (2, 1), (1, 1)])
def test_mha_attention_bias_broadcast(bias_dims):
    b, s, kv, hidden, heads = 2, 3, 5, 8, 2
    inputs, _ = _mha_inputs(b, s, kv, hidden, heads, bias=False)
    _run_mha(_with(inputs, None, _x(*bias_dims, s, kv)), ["output"], {"num_heads": heads})


def test_mha_value_of_another_width_scale_and_filter():
    b, s, kv, hidden, heads = 2, 4, 6, 16, 4
    inputs, _ = _mha_inputs(b, s, kv, hidden, heads, v_hidden=8)
    _run_mha(_with(inputs, _masks(b, s, kv)["raw3d"]), ["output"],
             {"num_heads": heads, "scale": 0.3, "mask_filter_value": -100.0})


def test_mha_present_without_past():
    b, s, hidden, heads = 2, 3, 8, 2
    inputs, _ = _mha_inputs(b, s, s, hidden, heads)
    _run_mha(inputs, ["output", "present_key", "present_value"], {"num_heads": heads})


def test_mha_key_value_per_head():
    # Cross attention with cached K and V in [B, N, L, H]: no bias, used as they are.
    b, s, kv, hidden, heads = 2, 3, 7, 16, 4
    inputs = [("query", _x(b, s, hidden)), ("key", _x(b, heads, kv, hidden // heads)),
              ("value", _x(b, heads, kv, hidden // heads)), ("", None)]
    _run_mha(_with(inputs, _masks(b, s, kv)["lengths"]), ["output", "present_key",
                                                          "present_value"],
             {"num_heads": heads})


def test_mha_packed_qkv_matches_unpacked():
    b, s, heads, head = 2, 5, 2, 4
    packed = _x(b, s, heads, 3, head)
    bias = _x(3 * heads * head)
    split = [packed[:, :, :, i].reshape(b, s, heads * head) for i in range(3)]
    mask = _masks(b, s, s)["lengths"]
    _run_mha([("query", packed), ("", None), ("", None), ("bias", bias),
              ("key_padding_mask", mask)], ["output"], {"num_heads": heads},
             reference_inputs=[("query", split[0]), ("key", split[1]), ("value", split[2]),
                               ("bias", bias), ("key_padding_mask", mask)])


def test_mha_packed_kv_matches_unpacked():
    b, s, kv, heads, head = 2, 3, 6, 2, 4
    query, packed, bias = _x(b, s, heads * head), _x(b, kv, heads, 2, head), _x(3 * heads * head)
    _run_mha([("query", query), ("key", packed), ("", None), ("bias", bias)], ["output"],
             {"num_heads": heads, "unidirectional": 1},
             reference_inputs=[("query", query),
                               ("key", packed[:, :, :, 0].reshape(b, kv, heads * head)),
                               ("value", packed[:, :, :, 1].reshape(b, kv, heads * head)),
                               ("bias", bias)])


def test_mha_qk_output():
    b, s, past, hidden, heads = 2, 3, 2, 8, 2
    inputs, pasts = _mha_inputs(b, s, s, hidden, heads, past=past)
    _run_mha(_with(inputs, _masks(b, s, past + s)["raw2d"], _x(b, heads, s, past + s), pasts),
             ["output", "present_key", "present_value", "qk"],
             {"num_heads": heads, "unidirectional": 1})


def test_mha_float16():
    # onnxruntime's float16 MultiHeadAttention takes no int32 key_padding_mask.
    b, s, hidden, heads = 2, 4, 16, 2
    inputs, _ = _mha_inputs(b, s, s, hidden, heads, dtype=np.float16)
    _run_mha(_with(inputs, None, _x(b, heads, s, s, dtype=np.float16)), ["output"],
             {"num_heads": heads, "unidirectional": 1})


def test_mha_refusals_name_the_input():
    b, s, hidden, heads = 2, 3, 8, 2
    inputs, _ = _mha_inputs(b, s, s, hidden, heads)

    def error(case_inputs, attrs):
        model = _model(case_inputs, ["output"], attrs, op="MultiHeadAttention")
        with pytest.raises(Exception) as caught:
            ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
                None, {name: value for name, value in case_inputs if name})
        return str(caught.value)

    # [2B] ends and starts: onnxruntime's MultiHeadAttention refuses them too
    assert "input 4 (key_padding_mask) must be [2], [2, 3] or [2, 3, 3], got [4]" in error(
        _with(inputs, np.array([3, 3, 0, 0], np.int32)), {"num_heads": heads})
    assert "input 3 (bias) must be 1-D [24], got [23]" in error(
        inputs[:3] + [("bias", _x(23))], {"num_heads": heads})
    assert "divisible by num_heads 3" in error(inputs, {"num_heads": 3})
    assert "input 2 (value) must be given" in error(inputs[:2], {"num_heads": heads})


# ---- GroupQueryAttention ----

def _gqa_inputs(b, s, heads, kv_heads, head, past=0, seqlens=None, total=None, packed=False,
                dtype=np.float32):
    seqlens = np.array(seqlens if seqlens is not None else [past + s - 1] * b, np.int32)
    total = np.array(total if total is not None else int(seqlens.max()) + 1, np.int32)
    if packed:
        inputs = [("query", _x(b, s, (heads + 2 * kv_heads) * head, dtype=dtype)), ("", None),
                  ("", None)]
    else:
        inputs = [("query", _x(b, s, heads * head, dtype=dtype)),
                  ("key", _x(b, s, kv_heads * head, dtype=dtype)),
                  ("value", _x(b, s, kv_heads * head, dtype=dtype))]
    if past:
        inputs += [("past_key", _x(b, kv_heads, past, head, dtype=dtype)),
                   ("past_value", _x(b, kv_heads, past, head, dtype=dtype))]
    else:
        inputs += [("", None), ("", None)]
    return inputs + [("seqlens_k", seqlens), ("total_sequence_length", total)]


def _rotary_caches(max_position, rotary_dim, dtype=np.float32):
    inverse = 1.0 / (10000 ** (np.arange(0, rotary_dim, 2) / rotary_dim))
    angles = np.outer(np.arange(max_position), inverse)
    return [("cos_cache", np.cos(angles).astype(dtype)), ("sin_cache", np.sin(angles).astype(dtype))]


def _extend(inputs, index, name, value):
    out = list(inputs)
    while len(out) < index:
        out.append(("", None))
    out.append((name, value))
    return out


def _gqa(inputs, attrs, outputs=("output", "present_key", "present_value"), tolerance=None):
    return _run_mha_like(inputs, list(outputs), attrs, "GroupQueryAttention", tolerance)


def _run_mha_like(inputs, outputs, attrs, op, tolerance=None):
    model = _model(inputs, outputs, attrs, op=op)
    feeds = {name: value for name, value in inputs if name}
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    for a, e, name in zip(actual, expected, [o for o in outputs if o]):
        assert a.shape == e.shape, (name, a.shape, e.shape)
        tol = tolerance or (3e-3 if a.dtype == np.float16 else 1e-4)
        np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=tol,
                                   atol=tol, err_msg=name)
    return actual


@pytest.mark.parametrize("heads,kv_heads", [(4, 2), (4, 4), (6, 1)])
@pytest.mark.parametrize("packed", [False, True])
def test_gqa_first_prompt(heads, kv_heads, packed):
    _gqa(_gqa_inputs(2, 5, heads, kv_heads, 8, packed=packed),
         {"num_heads": heads, "kv_num_heads": kv_heads})


@pytest.mark.parametrize("seqlens", [[3, 6, 5], [6, 6, 6], [0, 2, 1]])
def test_gqa_token_generation_ragged(seqlens):
    # One new token per entry after seqlens_k[b] cached ones; the past buffer holds 6 rows.
    inputs = _gqa_inputs(3, 1, 4, 2, 8, past=6, seqlens=seqlens, total=max(seqlens) + 1)
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2})


def test_gqa_subsequent_prompt():
    _gqa(_gqa_inputs(1, 3, 4, 2, 8, past=4, seqlens=[6], total=7),
         {"num_heads": 4, "kv_num_heads": 2})


@pytest.mark.parametrize("window", [0, 1, 3])
@pytest.mark.parametrize("past", [0, 5])
def test_gqa_local_window(window, past):
    s = 6 if past == 0 else 1
    _gqa(_gqa_inputs(2, s, 4, 2, 8, past=past),
         {"num_heads": 4, "kv_num_heads": 2, "local_window_size": window})


@pytest.mark.parametrize("softcap", [0.5, 5.0])
def test_gqa_softcap(softcap):
    _gqa(_gqa_inputs(2, 4, 4, 2, 8), {"num_heads": 4, "kv_num_heads": 2, "softcap": softcap,
                                       "scale": 0.7})


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rotary_dim", [32, 16])
@pytest.mark.parametrize("past", [0, 3])
def test_gqa_rotary(interleaved, rotary_dim, past):
    s = 4 if past == 0 else 1
    inputs = _gqa_inputs(2, s, 4, 2, 32, past=past) + _rotary_caches(16, rotary_dim)
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2, "do_rotary": 1,
                  "rotary_interleaved": interleaved})


def test_gqa_rotary_packed_token_generation_ragged():
    inputs = _gqa_inputs(3, 1, 4, 2, 16, past=5, seqlens=[2, 5, 4], total=6, packed=True)
    _gqa(inputs + _rotary_caches(16, 16), {"num_heads": 4, "kv_num_heads": 2, "do_rotary": 1})


@pytest.mark.parametrize("dims", [(2, 4), (1, 4), (2, 1), (1, 1)])
def test_gqa_attention_bias(dims):
    b, s = 2, 4
    inputs = _extend(_gqa_inputs(b, s, 4, 2, 8), 10, "attention_bias", _x(*dims, s, s))
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2})


def test_gqa_attention_bias_with_past():
    inputs = _gqa_inputs(3, 1, 4, 2, 8, past=5, seqlens=[2, 5, 4], total=6)
    _gqa(_extend(inputs, 10, "attention_bias", _x(3, 4, 1, 6)),
         {"num_heads": 4, "kv_num_heads": 2})


def test_gqa_head_sink_and_smooth_softmax():
    inputs = _gqa_inputs(2, 4, 4, 2, 8)
    _gqa(_extend(inputs, 11, "head_sink", _x(4)), {"num_heads": 4, "kv_num_heads": 2})
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2, "smooth_softmax": 1})


@pytest.mark.parametrize("mode", [1, 2])
def test_gqa_qk_output(mode):
    inputs = _gqa_inputs(2, 4, 4, 2, 8)
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2, "qk_output": mode},
         outputs=("output", "present_key", "present_value", "output_qk"))


def test_gqa_not_causal():
    _gqa(_gqa_inputs(2, 4, 4, 2, 8), {"num_heads": 4, "kv_num_heads": 2, "causal": 0})


def test_gqa_float16():
    inputs = _gqa_inputs(2, 4, 4, 2, 16, dtype=np.float16) + _rotary_caches(8, 16, np.float16)
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2, "do_rotary": 1})


def test_gqa_position_ids():
    # Positions given apart from the cache rows (here ahead of them, as after left padding).
    inputs = _gqa_inputs(2, 1, 4, 2, 16, past=4, seqlens=[3, 4], total=5) + _rotary_caches(
        16, 16)
    inputs = _extend(inputs, 9, "position_ids", np.array([[7], [12]], np.int64))
    _gqa(inputs, {"num_heads": 4, "kv_num_heads": 2, "do_rotary": 1})


def test_gqa_padded_first_prompt():
    # Right-padded prompts: entry 1 has 3 real tokens of 5.
    _gqa(_gqa_inputs(2, 5, 4, 2, 8, seqlens=[4, 2], total=5), {"num_heads": 4, "kv_num_heads": 2})


def test_gqa_refusals_name_the_input():
    inputs = _gqa_inputs(2, 3, 4, 2, 8)

    def error(case_inputs, attrs):
        model = _model(case_inputs, ["output"], attrs, op="GroupQueryAttention")
        with pytest.raises(Exception) as caught:
            ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
                None, {name: value for name, value in case_inputs if name})
        return str(caught.value)

    attrs = {"num_heads": 4, "kv_num_heads": 2}
    assert "num_heads 4 must be a positive multiple of kv_num_heads 3" in error(
        inputs, {"num_heads": 4, "kv_num_heads": 3})
    bad = [(n, np.array([9, 2], np.int32)) if n == "seqlens_k" else (n, v) for n, v in inputs]
    assert "input 5 (seqlens_k) value 9 of batch entry 0 does not fit" in error(bad, attrs)
    assert "do_rotary needs inputs 7 (cos_cache) and 8 (sin_cache)" in error(
        inputs, {**attrs, "do_rotary": 1})
    assert "sliding_window_cache is not supported" in error(
        inputs, {**attrs, "sliding_window_cache": 1})
    assert "local_window_size must be -1" in error(inputs, {**attrs, "causal": 0,
                                                            "local_window_size": 2})


# ---- RotaryEmbedding (com.microsoft) ----

def _rotary(inputs, attrs, tolerance=None):
    return _run_mha_like(inputs, ["output"], attrs, "RotaryEmbedding", tolerance)


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("layout", ["bsd", "bnsh"])
@pytest.mark.parametrize("per_token", [False, True])
def test_rotary_embedding(interleaved, layout, per_token):
    b, s, heads, head = 2, 5, 3, 16
    x = _x(b, s, heads * head) if layout == "bsd" else _x(b, heads, s, head)
    positions = (_RNG.randint(0, 20, size=(b, s)) if per_token else np.array([3])).astype(
        np.int64)
    _rotary([("input", x), ("position_ids", positions)] + _rotary_caches(24, head),
            {"interleaved": interleaved})


@pytest.mark.parametrize("interleaved", [0, 1])
def test_rotary_embedding_partial_dims(interleaved):
    b, s, heads, head, rotary_dim = 2, 4, 2, 32, 16
    _rotary([("input", _x(b, s, heads * head)),
             ("position_ids", _RNG.randint(0, 10, size=(b, s)).astype(np.int64))] +
            _rotary_caches(10, rotary_dim),
            {"interleaved": interleaved, "num_heads": heads, "rotary_embedding_dim": rotary_dim})


def test_rotary_embedding_num_heads_and_float16():
    b, s, heads, head = 1, 3, 4, 8
    _rotary([("input", _x(b, s, heads * head)), ("position_ids", np.array([0], np.int64))] +
            _rotary_caches(8, head), {"num_heads": heads})
    _rotary([("input", _x(b, s, heads * head, dtype=np.float16)),
             ("position_ids", np.array([2], np.int64))] + _rotary_caches(8, head, np.float16),
            {})


def test_rotary_embedding_refusals():
    x = _x(1, 3, 16)
    inputs = [("input", x), ("position_ids", np.array([[0, 1, 9]], np.int64))] + _rotary_caches(
        8, 16)
    model = _model(inputs, ["output"], {}, op="RotaryEmbedding")
    with pytest.raises(Exception, match="position 9 .* is outside cos_cache's 8 rows"):
        ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, {name: value for name, value in inputs})
    model = _model(inputs, ["output"], {"rotary_embedding_dim": 8}, op="RotaryEmbedding")
    with pytest.raises(Exception, match="num_heads must be given with rotary_embedding_dim"):
        ort.InferenceSession(model, providers=["CPUExecutionProvider"])
