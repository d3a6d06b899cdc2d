"""Scan against onnxruntime on random inputs: opset 9+ with two scan inputs along different axes,
either direction, two scan outputs along chosen axes and directions, a running-sum state; opset 8
with a batch, sequence_lens shorter than the sequence, and reversed inputs; Scan nested in Scan
reading an outer-scope value."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261206)
_F = TensorProto.FLOAT


def _info(name, shape):
    return helper.make_tensor_value_info(name, _F, shape)


def _run_both(graph, feeds, opset):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8).SerializeToString()
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


def _body():
    # state' = state + a * b; outputs: state', a - b
    return helper.make_graph(
        [helper.make_node("Mul", ["a", "b"], ["ab"]),
         helper.make_node("Add", ["s", "ab"], ["s_out"]),
         helper.make_node("Sub", ["a", "b"], ["d"])],
        "body", [_info("s", [3]), _info("a", [3]), _info("b", [3])],
        [_info("s_out", [3]), _info("d", [3])])


@pytest.mark.parametrize("input_axes,input_dirs", [([0, 0], [0, 0]), ([0, 1], [1, 0]),
                                                   ([1, 1], [1, 1])])
@pytest.mark.parametrize("output_axes,output_dirs", [([0], [0]), ([1], [1]), ([-1], [0])])
def test_scan_9_and_later(input_axes, input_dirs, output_axes, output_dirs):
    length = 4
    shapes = [(length, 3) if axis == 0 else (3, length) for axis in input_axes]
    node = helper.make_node("Scan", ["s0", "a", "b"], ["s", "d"], body=_body(),
                            num_scan_inputs=2, scan_input_axes=input_axes,
                            scan_input_directions=input_dirs, scan_output_axes=output_axes,
                            scan_output_directions=output_dirs)
    graph = helper.make_graph([node], "scan",
                              [_info("s0", [3]), _info("a", list(shapes[0])),
                               _info("b", list(shapes[1]))],
                              [_info("s", [3]), _info("d", None)])
    feeds = {"s0": _RNG.standard_normal(3).astype(np.float32),
             "a": _RNG.standard_normal(shapes[0]).astype(np.float32),
             "b": _RNG.standard_normal(shapes[1]).astype(np.float32)}
    _run_both(graph, feeds, 16)


@pytest.mark.parametrize("lens", [None, [4, 2, 1]])
@pytest.mark.parametrize("directions", [[0, 0], [1, 0]])
def test_scan_8_batched(lens, directions):
    node = helper.make_node("Scan", ["lens" if lens else "", "s0", "a", "b"], ["s", "d"],
                            body=_body(), num_scan_inputs=2, directions=directions)
    inputs = [_info("s0", [3, 3]), _info("a", [3, 4, 3]), _info("b", [3, 4, 3])]
    feeds = {"s0": _RNG.standard_normal((3, 3)).astype(np.float32),
             "a": _RNG.standard_normal((3, 4, 3)).astype(np.float32),
             "b": _RNG.standard_normal((3, 4, 3)).astype(np.float32)}
    if lens:
        inputs.insert(0, helper.make_tensor_value_info("lens", TensorProto.INT64, [3]))
        feeds["lens"] = np.array(lens, np.int64)
    graph = helper.make_graph([node], "scan8", inputs, [_info("s", [3, 3]), _info("d", None)])
    _run_both(graph, feeds, 8)


def test_scan_in_scan_with_outer_scope_read():
    inner = helper.make_graph(
        [helper.make_node("Mul", ["e", "w"], ["ew"]),
         helper.make_node("Add", ["t", "ew"], ["t_out"])],
        "inner", [_info("t", []), _info("e", [])], [_info("t_out", [])])
    outer = helper.make_graph(
        [helper.make_node("Scan", ["zero", "row"], ["total"], body=inner, num_scan_inputs=1),
         helper.make_node("Add", ["acc", "total"], ["acc_out"]),
         helper.make_node("Identity", ["total"], ["per_row"])],
        "outer", [_info("acc", []), _info("row", [5])],
        [_info("acc_out", []), _info("per_row", [])],
        [helper.make_tensor("zero", _F, [], [0.0])])
    graph = helper.make_graph(
        [helper.make_node("Scan", ["acc0", "m"], ["acc", "rows"], body=outer,
                          num_scan_inputs=1)],
        "nested", [_info("acc0", []), _info("m", [4, 5]), _info("w", [])],
        [_info("acc", []), _info("rows", [4])])
    _run_both(graph, {"acc0": np.array(1.0, np.float32),
                      "m": _RNG.standard_normal((4, 5)).astype(np.float32),
                      "w": np.array(0.5, np.float32)}, 16)
