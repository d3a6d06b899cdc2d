"""com.microsoft QAttention against onnxruntime on random 8-bit inputs and weights: uint8 and
int8 weights, per-tensor and per-column weight scales and zero points, zero points omitted,
masks, unidirectional, past/present. onnxruntime's CPU EP has no int8-input kernel; that case is
checked against onnxruntime's float Attention on the dequantized input and weights. A BERT
model fused by onnxruntime.transformers' optimizer and quantized by quantize_dynamic (Attention
becomes QAttention, EmbedLayerNormalization QEmbedLayerNormalization) runs through prismrt and
the C ABI against onnxruntime; QEmbedLayerNormalization alone on random tables."""
import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt
from capi_values import run_through_c_abi
from ort_int8_exactness import model_for_exact_onnxruntime

_MS = "com.microsoft"
_BATCH, _SEQ, _HIDDEN, _HEADS, _PAST = 2, 5, 16, 4, 3


def _int_array(rng, elem, shape, low=None, high=None):
    if elem == TensorProto.INT8:
        return rng.integers(-128 if low is None else low, 128 if high is None else high,
                            shape).astype(np.int8)
    return rng.integers(0 if low is None else low, 256 if high is None else high,
                        shape).astype(np.uint8)


def _case(seed, x_type=TensorProto.UINT8, w_type=TensorProto.INT8, per_column_scale=False,
          zero_points="scalar", mask=None, unidirectional=0, past=False):
    """(QAttention model, feeds, the float Attention model equal to it, its feeds)."""
    rng = np.random.default_rng(seed)
    hidden, projected = _HIDDEN, 3 * _HIDDEN
    weight = _int_array(rng, w_type, (hidden, projected))
    bias = rng.normal(size=projected).astype(np.float32)
    weight_scale = ((rng.random(projected) * 0.01 + 0.001) if per_column_scale
                    else np.array(0.004)).astype(np.float32)
    x = _int_array(rng, x_type, (_BATCH, _SEQ, hidden))
    x_scale = np.array(0.02, np.float32)
    x_zero = w_zero = None
    if zero_points != "none":
        x_zero = np.array(3 if x_type == TensorProto.INT8 else 128,
                          np.int8 if x_type == TensorProto.INT8 else np.uint8)
        w_shape = (projected,) if zero_points == "per_column" else ()
        w_zero = (_int_array(rng, w_type, w_shape, -6, 6) if w_type == TensorProto.INT8
                  else _int_array(rng, w_type, w_shape, 120, 136))
    inits = [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "bias"),
             numpy_helper.from_array(weight_scale, "ws")]
    names = ["x", "w", "bias", "xs", "ws", "mask" if mask is not None else "",
             "xz" if x_zero is not None else "", "wz" if w_zero is not None else "",
             "past" if past else ""]
    if x_zero is not None:
        inits.append(numpy_helper.from_array(x_zero, "xz"))
    if w_zero is not None:
        inits.append(numpy_helper.from_array(w_zero, "wz"))
    while names[-1] == "":
        names.pop()
    outputs = ["y", "present"] if past else ["y"]
    inputs = [helper.make_tensor_value_info("x", x_type, list(x.shape)),
              helper.make_tensor_value_info("xs", TensorProto.FLOAT, None)]
    feeds = {"x": x, "xs": x_scale}
    past_shape = [2, _BATCH, _HEADS, _PAST, hidden // _HEADS]
    if mask is not None:
        inputs.append(helper.make_tensor_value_info("mask", TensorProto.INT32, list(mask.shape)))
        feeds["mask"] = mask
    if past:
        inputs.append(helper.make_tensor_value_info("past", TensorProto.FLOAT, past_shape))
        feeds["past"] = rng.normal(size=past_shape).astype(np.float32)
    value_infos = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
    node = helper.make_node("QAttention", names, outputs, domain=_MS, num_heads=_HEADS,
                            unidirectional=unidirectional)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)]
    model = helper.make_model(helper.make_graph([node], "qattention", inputs, value_infos,
                                                initializer=inits),
                              opset_imports=opsets, ir_version=8).SerializeToString()

    # The same computation in float: dequantized input and weights into Attention.
    x_float = (x.astype(np.float32) - (0 if x_zero is None else float(x_zero))) * x_scale
    w_float = ((weight.astype(np.float32) - (0 if w_zero is None else w_zero.astype(np.float32)))
               * weight_scale).astype(np.float32)
    float_names = ["xf", "wf", "bias"] + (["mask"] if mask is not None else
                                          ([""] if past else [])) + (["past"] if past else [])
    float_inputs = [helper.make_tensor_value_info("xf", TensorProto.FLOAT, list(x.shape))]
    float_feeds = {"xf": x_float.astype(np.float32)}
    for name in ("mask", "past"):
        if name in feeds:
            float_inputs.append([i for i in inputs if i.name == name][0])
            float_feeds[name] = feeds[name]
    float_node = helper.make_node("Attention", float_names, outputs, domain=_MS,
                                  num_heads=_HEADS, unidirectional=unidirectional)
    float_model = helper.make_model(
        helper.make_graph([float_node], "attention", float_inputs, value_infos,
                          initializer=[numpy_helper.from_array(w_float, "wf"),
                                       numpy_helper.from_array(bias, "bias")]),
        opset_imports=opsets, ir_version=8).SerializeToString()
    return model, feeds, float_model, float_feeds


def _onnxruntime(model, feeds, int8_weights=False):
    """int8_weights: int8 weights meet uint8 inputs in its GEMM (see
    ort_int8_exactness.model_for_exact_onnxruntime)."""
    if int8_weights:
        model = model_for_exact_onnxruntime(model)
    return onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)


def _assert_close(actual, expected, atol=1e-5):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("w_type", [TensorProto.INT8, TensorProto.UINT8])
@pytest.mark.parametrize("per_column_scale", [False, True])
@pytest.mark.parametrize("zero_points", ["none", "scalar", "per_column"])
def test_weights_scales_and_zero_points(w_type, per_column_scale, zero_points):
    model, feeds, _, _ = _case(1, w_type=w_type, per_column_scale=per_column_scale,
                               zero_points=zero_points)
    _assert_close(prismrt.InferenceSession(model).run(None, feeds),
                  _onnxruntime(model, feeds, int8_weights=True))


@pytest.mark.parametrize("mask", [np.array([5, 3], np.int32), np.array([4, 2, 0, 1], np.int32),
                                  np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], np.int32)])
@pytest.mark.parametrize("unidirectional", [0, 1])
def test_masks_and_direction(mask, unidirectional):
    model, feeds, _, _ = _case(2, mask=mask, unidirectional=unidirectional)
    _assert_close(prismrt.InferenceSession(model).run(None, feeds),
                  _onnxruntime(model, feeds, int8_weights=True))


@pytest.mark.parametrize("unidirectional", [0, 1])
def test_past_and_present(unidirectional):
    model, feeds, _, _ = _case(3, past=True, unidirectional=unidirectional)
    _assert_close(prismrt.InferenceSession(model).run(None, feeds),
                  _onnxruntime(model, feeds, int8_weights=True))


@pytest.mark.parametrize("zero_points", ["none", "scalar", "per_column"])
def test_int8_input_equals_float_attention_on_dequantized_values(zero_points):
    """onnxruntime has no int8-input QAttention: its float Attention on the dequantized values
    is the oracle (the integer products are exact, so only float rounding differs)."""
    model, feeds, float_model, float_feeds = _case(4, x_type=TensorProto.INT8,
                                                   zero_points=zero_points,
                                                   mask=np.array([5, 2], np.int32))
    _assert_close(prismrt.InferenceSession(model).run(None, feeds),
                  _onnxruntime(float_model, float_feeds), atol=1e-4)


def test_refusals_name_the_input():
    model, feeds, _, _ = _case(5)
    session = prismrt.InferenceSession(model)
    with pytest.raises(Exception, match="input_scale"):
        bad = dict(feeds, xs=np.array([0.1, 0.2], np.float32))
        session.run(None, bad)


def test_quantize_dynamic_bert_runs_qattention(tmp_path):
    """A BERT model fused by onnxruntime.transformers (Attention present), then quantized by
    quantize_dynamic: Attention becomes QAttention; prismrt and the C ABI against onnxruntime."""
    from onnxruntime.quantization import quantize_dynamic
    from test_fused_bert_model import _feeds, build_fused_model

    _, fused_path = build_fused_model(tmp_path)
    quantized_path = str(tmp_path / "bert_quantized.onnx")
    # The fused model's com.microsoft ops have no onnx shape inference: say the weights' type.
    quantize_dynamic(fused_path, quantized_path,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    ops = {n.op_type for n in onnx.load(quantized_path).graph.node}
    assert {"QAttention", "QEmbedLayerNormalization"} <= ops and "Attention" not in ops, sorted(ops)
    rng = np.random.RandomState(5)
    for batch, seq in [(1, 7), (3, 16)]:
        feeds = _feeds(rng, batch, seq, True)
        expected = _onnxruntime(quantized_path, feeds, int8_weights=True)[0]
        np.testing.assert_allclose(prismrt.InferenceSession(quantized_path).run(None, feeds)[0],
                                   expected, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(run_through_c_abi(quantized_path, feeds, tmp_path)[0],
                                   expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("table_type", [TensorProto.UINT8, TensorProto.INT8])
@pytest.mark.parametrize("with_segment,with_mask", [(True, True), (False, False), (True, False)])
def test_qembed_layer_normalization(table_type, with_segment, with_mask):
    rng = np.random.default_rng(6)
    vocab, positions, segments, hidden, batch, seq = 30, 16, 2, 8, 3, 7
    tables = {"word": (vocab, hidden), "position": (positions, hidden),
              "segment": (segments, hidden), "gamma": (hidden,), "beta": (hidden,)}
    inits, names = [], {}
    for stem, shape in tables.items():
        if stem == "segment" and not with_segment:
            continue
        inits += [numpy_helper.from_array(_int_array(rng, table_type, shape), stem + "_q"),
                  numpy_helper.from_array(np.array(rng.random() * 0.05 + 0.01, np.float32),
                                          stem + "_s"),
                  numpy_helper.from_array(_int_array(rng, table_type, (), 0, 20), stem + "_z")]
        names[stem] = stem
    order = ["word", "position", "segment", "gamma", "beta"]
    inputs = (["ids", "seg_ids" if with_segment else ""]
              + [(s + "_q") if s in names else "" for s in order] + ["mask" if with_mask else ""]
              + [(s + "_s") if s in names else "" for s in order]
              + [(s + "_z") if s in names else "" for s in order])
    node = helper.make_node("QEmbedLayerNormalization", inputs, ["y", "mask_index"], domain=_MS,
                            epsilon=1e-5)
    graph_inputs = [helper.make_tensor_value_info("ids", TensorProto.INT32, [batch, seq])]
    feeds = {"ids": rng.integers(0, vocab, (batch, seq)).astype(np.int32)}
    if with_segment:
        graph_inputs.append(helper.make_tensor_value_info("seg_ids", TensorProto.INT32,
                                                          [batch, seq]))
        feeds["seg_ids"] = rng.integers(0, segments, (batch, seq)).astype(np.int32)
    if with_mask:
        graph_inputs.append(helper.make_tensor_value_info("mask", TensorProto.INT32,
                                                          [batch, seq]))
        feeds["mask"] = (rng.random((batch, seq)) < 0.7).astype(np.int32)
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
               helper.make_tensor_value_info("mask_index", TensorProto.INT32, None)]
    model = helper.make_model(
        helper.make_graph([node], "qembed", graph_inputs, outputs, initializer=inits),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)],
        ir_version=8).SerializeToString()
    expected = _onnxruntime(model, feeds)
    actual = prismrt.InferenceSession(model).run(None, feeds)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(actual[1], expected[1])
