"""Sequence and optional values through run(), against onnxruntime (Identity models)."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

from conftest import make_model


def identity(value_info_x, value_info_y):
    model = make_model([helper.make_node("Identity", ["x"], ["y"])], [value_info_x],
                       [value_info_y], opset=17)
    data = model.SerializeToString()
    return ort.InferenceSession(data), onnxruntime.InferenceSession(
        data, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("element_type, dtype", [(TensorProto.FLOAT, np.float32),
                                                 (TensorProto.INT64, np.int64),
                                                 (TensorProto.STRING, object)])
def test_sequence_round_trip(element_type, dtype):
    sess, ref = identity(helper.make_tensor_sequence_value_info("x", element_type, None),
                         helper.make_tensor_sequence_value_info("y", element_type, None))
    name = helper.tensor_dtype_to_string(element_type).split(".")[-1].lower()
    type_name = {"float": "float", "int64": "int64", "string": "string"}[name]
    assert sess.get_inputs()[0].type == ref.get_inputs()[0].type == "seq(tensor(%s))" % type_name
    if dtype is object:
        items = [np.array(["a", "bc"], dtype=object), np.array([["d"]], dtype=object)]
    else:
        items = [np.arange(6, dtype=dtype).reshape(2, 3), np.array(7, dtype=dtype),
                 np.zeros((0, 2), dtype=dtype)]
    ours = sess.run(None, {"x": items})[0]
    theirs = ref.run(None, {"x": items})[0]
    assert isinstance(ours, list) and len(ours) == len(theirs) == len(items)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tolist() == b.tolist()
    assert sess.run(None, {"x": []})[0] == []


def test_optional_tensor():
    tensor_type = helper.make_tensor_type_proto(TensorProto.FLOAT, [2])
    sess, ref = identity(
        helper.make_value_info("x", helper.make_optional_type_proto(tensor_type)),
        helper.make_value_info("y", helper.make_optional_type_proto(tensor_type)))
    assert sess.get_inputs()[0].type == ref.get_inputs()[0].type == "optional(tensor(float))"
    value = np.array([1.5, -2], np.float32)
    np.testing.assert_array_equal(sess.run(None, {"x": value})[0], ref.run(None, {"x": value})[0])
    assert sess.run(None, {"x": None}) == ref.run(None, {"x": None}) == [None]
    assert sess.run(None, {}) == [None]


def test_sequence_ortvalues():
    sess, _ = identity(helper.make_tensor_sequence_value_info("x", TensorProto.FLOAT, None),
                       helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, None))
    items = [np.ones((2,), np.float32), np.full((1, 3), 2, np.float32)]
    result = sess.run_with_ort_values(None, {"x": items})[0]
    assert result.is_tensor_sequence() and not result.is_tensor()
    assert result.data_type() == "seq(tensor(float))"
    with pytest.raises(ort.InvalidArgument):
        result.numpy()
