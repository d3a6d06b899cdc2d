"""Loop against onnxruntime on random inputs: a trip count alone, a condition alone (the body
decides when to stop), both, zero iterations (empty scan outputs), loop-carried values that grow
from one iteration to the next, scan outputs, outer-scope reads, and Loop, If and Loop nested
three deep reading values from every enclosing scope."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261205)
_F = TensorProto.FLOAT


def _scalar(name, elem):
    return helper.make_tensor_value_info(name, elem, [])


def _run_both(graph, feeds, opset=16):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8).SerializeToString()
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    actual = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


def _accumulate_body(stop_above=None):
    """acc_out = acc + x * i (x from the outer scope), scan = acc_out; cond_out = cond, or
    sum(acc_out) <= stop_above when given."""
    nodes = [helper.make_node("Cast", ["i"], ["i_f"], to=_F),
             helper.make_node("Mul", ["x", "i_f"], ["step"]),
             helper.make_node("Add", ["acc", "step"], ["acc_out"]),
             helper.make_node("Identity", ["acc_out"], ["scan"])]
    if stop_above is None:
        nodes.append(helper.make_node("Identity", ["cond"], ["cond_out"]))
    else:
        nodes += [helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
                  helper.make_node("Constant", [], ["limit"],
                                   value=helper.make_tensor("l", _F, [], [stop_above])),
                  helper.make_node("LessOrEqual", ["total", "limit"], ["cond_out"])]
    return helper.make_graph(
        nodes, "body",
        [_scalar("i", TensorProto.INT64), _scalar("cond", TensorProto.BOOL),
         helper.make_tensor_value_info("acc", _F, [3])],
        [_scalar("cond_out", TensorProto.BOOL), helper.make_tensor_value_info("acc_out", _F, [3]),
         helper.make_tensor_value_info("scan", _F, [3])])


@pytest.mark.parametrize("trips,cond,stop_above", [
    (5, None, None), (0, None, None), (None, True, 30.0), (7, True, 12.0), (3, False, None)])
def test_trip_count_and_condition(trips, cond, stop_above):
    inputs, feeds = [], {"x": _RNG.uniform(0.5, 1.5, 3).astype(np.float32),
                         "acc0": np.zeros(3, np.float32)}
    node_inputs = ["", "", "acc0"]
    if trips is not None:
        node_inputs[0] = "M"
        inputs.append(_scalar("M", TensorProto.INT64))
        feeds["M"] = np.array(trips, np.int64)
    if cond is not None:
        node_inputs[1] = "c"
        inputs.append(_scalar("c", TensorProto.BOOL))
        feeds["c"] = np.array(cond)
    loop = helper.make_node("Loop", node_inputs, ["acc_final", "scans"],
                            body=_accumulate_body(stop_above))
    graph = helper.make_graph(
        [loop], "loop",
        inputs + [helper.make_tensor_value_info("x", _F, [3]),
                  helper.make_tensor_value_info("acc0", _F, [3])],
        [helper.make_tensor_value_info("acc_final", _F, [3]),
         helper.make_tensor_value_info("scans", _F, None)])
    _run_both(graph, feeds)


def test_growing_loop_carried_value():
    # v_out = Concat(v, [i]): the carried value grows by one element per iteration.
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=_F),
         helper.make_node("Unsqueeze", ["i_f", "zero"], ["i_1d"]),
         helper.make_node("Concat", ["v", "i_1d"], ["v_out"], axis=0),
         helper.make_node("Identity", ["cond"], ["cond_out"])],
        "body", [_scalar("i", TensorProto.INT64), _scalar("cond", TensorProto.BOOL),
                 helper.make_tensor_value_info("v", _F, [None])],
        [_scalar("cond_out", TensorProto.BOOL), helper.make_tensor_value_info("v_out", _F, [None])],
        [helper.make_tensor("zero", TensorProto.INT64, [1], [0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body)], "grow",
        [_scalar("M", TensorProto.INT64), helper.make_tensor_value_info("v0", _F, [2])],
        [helper.make_tensor_value_info("v", _F, [None])])
    _run_both(graph, {"M": np.array(4, np.int64), "v0": np.ones(2, np.float32)})


def test_loop_if_loop_nested_three_deep_with_outer_scope_reads():
    # outer Loop (3 trips) -> If (on the outer iteration's parity) -> inner Loop (2 trips); the
    # innermost body reads x (main graph), i (outer body) and a (If branch).
    inner_body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=_F),
         helper.make_node("Mul", ["x", "i_f"], ["xi"]),
         helper.make_node("Add", ["xi", "a"], ["xia"]),
         helper.make_node("Add", ["w", "xia"], ["w_out"]),
         helper.make_node("Identity", ["c2"], ["c2_out"])],
        "inner", [_scalar("j", TensorProto.INT64), _scalar("c2", TensorProto.BOOL),
                  helper.make_tensor_value_info("w", _F, [4])],
        [_scalar("c2_out", TensorProto.BOOL), helper.make_tensor_value_info("w_out", _F, [4])])

    def branch(name, scale):
        return helper.make_graph(
            [helper.make_node("Constant", [], ["k"],
                              value=helper.make_tensor("k", _F, [], [scale])),
             helper.make_node("Mul", ["acc", "k"], ["a"]),
             helper.make_node("Loop", ["two", "", "acc"], ["r"], body=inner_body)],
            name, [], [helper.make_tensor_value_info("r", _F, [4])])
    outer_body = helper.make_graph(
        [helper.make_node("Mod", ["i", "two"], ["parity"]),
         helper.make_node("Cast", ["parity"], ["odd"], to=TensorProto.BOOL),
         helper.make_node("If", ["odd"], ["acc_out"], then_branch=branch("then", 0.5),
                          else_branch=branch("else", -1.0)),
         helper.make_node("Identity", ["c"], ["c_out"])],
        "outer", [_scalar("i", TensorProto.INT64), _scalar("c", TensorProto.BOOL),
                  helper.make_tensor_value_info("acc", _F, [4])],
        [_scalar("c_out", TensorProto.BOOL), helper.make_tensor_value_info("acc_out", _F, [4])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["three", "", "acc0"], ["y"], body=outer_body)], "nested",
        [helper.make_tensor_value_info("x", _F, [4]), helper.make_tensor_value_info("acc0", _F, [4])],
        [helper.make_tensor_value_info("y", _F, [4])],
        [helper.make_tensor("two", TensorProto.INT64, [], [2]),
         helper.make_tensor("three", TensorProto.INT64, [], [3])])
    for _ in range(3):
        _run_both(graph, {"x": _RNG.standard_normal(4).astype(np.float32),
                          "acc0": _RNG.standard_normal(4).astype(np.float32)})
