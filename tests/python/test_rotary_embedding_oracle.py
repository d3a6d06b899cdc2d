"""RotaryEmbedding (opset 23) against onnxruntime (onnx.reference where onnxruntime refuses a
case) on random inputs: 3-D and 4-D X, interleaved and half-split pairs, partial rotary
dimensions, caches indexed by position_ids or given per token; out-of-range positions are
refused by name."""
import numpy as np
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261202)


def _run(x, cos, sin, positions, **attrs):
    names = ["X", "cos", "sin"] + (["pos"] if positions is not None else [])
    values = [x, cos, sin] + ([positions] if positions is not None else [])
    graph = helper.make_graph(
        [helper.make_node("RotaryEmbedding", names, ["Y"], **attrs)], "rope",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for n, v in zip(names, values)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)],
                              ir_version=10).SerializeToString()
    feeds = dict(zip(names, values))
    try:
        expected = onnxruntime.InferenceSession(
            model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    except Exception:  # noqa: BLE001 (a case onnxruntime does not implement)
        expected = onnx.reference.ReferenceEvaluator(model).run(None, feeds)[0]
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)
    return model, feeds


@pytest.mark.parametrize("four_d", [False, True])
@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rotary", [0, 4])
@pytest.mark.parametrize("with_positions", [False, True])
def test_rotary_embedding_matches(four_d, interleaved, rotary, with_positions):
    b, s, heads, head = 2, 3, 2, 8
    half = (rotary or head) // 2
    x = _RNG.standard_normal((b, heads, s, head) if four_d else (b, s, heads * head))
    x = x.astype(np.float32)
    attrs = {"interleaved": interleaved}
    if rotary:
        attrs["rotary_embedding_dim"] = rotary
    if not four_d:
        attrs["num_heads"] = heads
    if with_positions:
        cache_shape, positions = (10, half), _RNG.randint(0, 10, size=(b, s)).astype(np.int64)
    else:
        cache_shape, positions = (b, s, half), None
    angles = _RNG.uniform(0, 6.3, size=cache_shape)
    _run(x, np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32), positions,
         **attrs)


def test_position_outside_the_cache_is_refused():
    x = np.ones((1, 1, 2, 4), np.float32)
    graph = helper.make_graph(
        [helper.make_node("RotaryEmbedding", ["X", "c", "s", "p"], ["Y"])], "rope",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 2, 4]),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("p", TensorProto.INT64, [1, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)],
                              ir_version=10).SerializeToString()
    feeds = {"X": x, "c": np.ones((3, 2), np.float32), "s": np.zeros((3, 2), np.float32),
             "p": np.array([[0, 3]], np.int64)}
    with pytest.raises(Exception, match=r"position_ids value 3 is outside \[0, 3\)"):
        ort.InferenceSession(model).run(None, feeds)
