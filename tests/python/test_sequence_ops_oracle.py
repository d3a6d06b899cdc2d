"""Sequence and optional ops (SequenceConstruct/Empty/At/Insert/Erase/Length, SplitToSequence,
ConcatFromSequence, SequenceMap, Optional, OptionalHasElement, OptionalGetElement) against
onnxruntime on random inputs, and how their values come back through run(): seq -> list,
optional(tensor) -> array or None, optional(seq) -> list or None, exactly as onnxruntime."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort

from conftest import make_model

RNG = np.random.default_rng(20261125)
DTYPES = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.FLOAT16: np.float16,
    TensorProto.INT64: np.int64,
    TensorProto.INT32: np.int32,
    TensorProto.INT8: np.int8,
    TensorProto.UINT16: np.uint16,
    TensorProto.BOOL: np.bool_,
    TensorProto.STRING: object,
}


def random_array(shape, elem=TensorProto.FLOAT):
    dtype = DTYPES[elem]
    if dtype is object:
        return np.array(["s%d" % v for v in RNG.integers(0, 100, size=shape).ravel()],
                        dtype=object).reshape(shape)
    if dtype is np.bool_:
        return RNG.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(0, 100, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def seq_info(name, elem=TensorProto.FLOAT):
    return helper.make_tensor_sequence_value_info(name, elem, None)


def tensor_info(name, elem=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def optional_info(name, inner):
    return helper.make_value_info(name, helper.make_optional_type_proto(inner))


def sessions(model):
    data = model.SerializeToString()
    return ort.InferenceSession(data), onnxruntime.InferenceSession(
        data, providers=["CPUExecutionProvider"])


def assert_same(ours, theirs, where="output"):
    if theirs is None:
        assert ours is None, where
    elif isinstance(theirs, list):
        assert isinstance(ours, list), "%s: %r is not a list" % (where, type(ours))
        assert len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, "%s[%d]" % (where, k))
    else:
        assert isinstance(ours, np.ndarray), "%s: %r" % (where, type(ours))
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (
            where, ours.dtype, ours.shape, theirs.dtype, theirs.shape)
        assert ours.tolist() == theirs.tolist(), where  # data movement: bit-exact


def check(model, feeds):
    ours_sess, ref_sess = sessions(model)
    ours = ours_sess.run(None, feeds)
    theirs = ref_sess.run(None, feeds)
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert_same(a, b, "output %d" % k)
    return ours


def check_reference(model, feeds):
    """For cases where onnxruntime departs from the spec: onnx.reference is the oracle."""
    ours = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    theirs = ReferenceEvaluator(model).run(None, feeds)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert_same(a, b, "output %d" % k)


def single(op, inputs, outputs, opset=17, **attrs):
    """One node whose inputs/outputs are (name, value_info) pairs ('' names a missing input)."""
    node = helper.make_node(op, [n for n, _ in inputs], [n for n, _ in outputs], **attrs)
    return make_model([node], [i for n, i in inputs if n], [o for _, o in outputs], opset=opset)


@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING,
                                  TensorProto.BOOL, TensorProto.FLOAT16])
@pytest.mark.parametrize("length", [1, 3])
def test_sequence_at_every_position(elem, length):
    model = single("SequenceAt", [("s", seq_info("s", elem)),
                                  ("p", tensor_info("p", TensorProto.INT64, []))],
                   [("y", tensor_info("y", elem))])
    items = [random_array((k + 1, 2), elem) for k in range(length)]
    ours_sess, _ = sessions(model)
    for position in range(-length, length):
        check(model, {"s": items, "p": np.array(position, np.int64)})
    for position in (length, -length - 1):
        with pytest.raises(Exception, match="out of range"):
            ours_sess.run(None, {"s": items, "p": np.array(position, np.int64)})


@pytest.mark.parametrize("with_position", [False, True])
@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.STRING, TensorProto.INT8])
def test_sequence_insert_positions(with_position, elem):
    inputs = [("s", seq_info("s", elem)), ("t", tensor_info("t", elem))]
    if with_position:
        inputs.append(("p", tensor_info("p", TensorProto.INT32, [])))
    model = single("SequenceInsert", inputs, [("y", seq_info("y", elem))])
    items = [random_array((2,), elem) for _ in range(3)]
    tensor = random_array((1, 3), elem)
    positions = range(-3, 4) if with_position else [None]
    for position in positions:
        feeds = {"s": items, "t": tensor}
        if position is not None:
            feeds["p"] = np.array(position, np.int32)
        check(model, feeds)


@pytest.mark.parametrize("with_position", [False, True])
def test_sequence_erase_positions(with_position):
    inputs = [("s", seq_info("s"))]
    if with_position:
        inputs.append(("p", tensor_info("p", TensorProto.INT64, [])))
    model = single("SequenceErase", inputs, [("y", seq_info("y"))])
    items = [random_array((k, 2)) for k in range(4)]
    for position in (range(-4, 4) if with_position else [None]):
        feeds = {"s": items}
        if position is not None:
            feeds["p"] = np.array(position, np.int64)
        check(model, feeds)


def test_construct_empty_length_chain():
    # len(SequenceConstruct(a, b)), len(SequenceEmpty()), and the empty sequence itself.
    nodes = [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
             helper.make_node("SequenceLength", ["s"], ["n"]),
             helper.make_node("SequenceEmpty", [], ["e"], dtype=TensorProto.INT32),
             helper.make_node("SequenceLength", ["e"], ["m"])]
    model = make_model(nodes, [tensor_info("a"), tensor_info("b")],
                       [seq_info("s"), tensor_info("n", TensorProto.INT64, []),
                        seq_info("e", TensorProto.INT32), tensor_info("m", TensorProto.INT64, [])])
    ours = check(model, {"a": random_array((2, 3)), "b": random_array((0,))})
    assert ours[2] == [] and ours[3] == 0


@pytest.mark.parametrize("shape, axis", [((4, 6), 0), ((4, 6), 1), ((4, 6), -1), ((2, 3, 5), 2),
                                         ((0, 3), 1), ((7,), 0)])
@pytest.mark.parametrize("form", ["none", "none_nokeep", "scalar", "scalar_uneven", "list"])
def test_split_to_sequence(shape, axis, form):
    x = random_array(shape)
    dim = shape[axis]
    inputs = [("x", tensor_info("x"))]
    feeds = {"x": x}
    attrs = {"axis": axis}
    if form == "none_nokeep":
        attrs["keepdims"] = 0
    if form.startswith("scalar"):
        if dim == 0:
            pytest.skip("a scalar split of an empty axis is degenerate in onnxruntime")
        chunk = max(1, dim // 2) if form == "scalar" else max(1, dim - 1 if dim > 2 else dim)
        inputs.append(("split", tensor_info("split", TensorProto.INT64, [])))
        feeds["split"] = np.array(chunk, np.int64)
        # keepdims=0 is ignored with a split input (the spec); onnxruntime squeezes anyway and
        # fails, so that case is checked against onnx.reference.
        keep_model = single("SplitToSequence", inputs, [("y", seq_info("y"))], axis=axis,
                            keepdims=0)
        check_reference(keep_model, feeds)
    if form == "list":
        lengths = [dim // 3, 0, dim - dim // 3] if dim else [0]
        inputs.append(("split", tensor_info("split", TensorProto.INT64, [len(lengths)])))
        feeds["split"] = np.array(lengths, np.int64)
    model = single("SplitToSequence", inputs, [("y", seq_info("y"))], **attrs)
    check(model, feeds)


@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.INT32, TensorProto.STRING,
                                  TensorProto.BOOL, TensorProto.DOUBLE])
@pytest.mark.parametrize("axis, new_axis", [(0, 0), (1, 0), (-1, 0), (-2, 0), (0, 1), (1, 1),
                                            (2, 1), (-1, 1), (-3, 1)])
def test_concat_from_sequence(elem, axis, new_axis):
    model = single("ConcatFromSequence", [("s", seq_info("s", elem))],
                   [("y", tensor_info("y", elem))], axis=axis, new_axis=new_axis)
    if new_axis:
        items = [random_array((2, 3), elem) for _ in range(3)]
    else:  # lengths differ along the axis
        along = axis % 2
        items = [random_array(tuple(k + 1 if d == along else 2 for d in range(2)), elem)
                 for k in range(3)]
    check(model, {"s": items})


def sequence_map_model(extra_kinds, body_op="Add", outputs=1):
    """SequenceMap over s and extra inputs x<i> (each 'seq' or 'tensor'); the body applies
    body_op to (element, first extra) and, with outputs=2, also returns its first input."""
    inputs = [seq_info("s")] + [seq_info("x%d" % i) if kind == "seq" else tensor_info("x%d" % i)
                                for i, kind in enumerate(extra_kinds)]
    body_inputs = [tensor_info("e")] + [tensor_info("f%d" % i) for i in range(len(extra_kinds))]
    body_nodes = [helper.make_node(body_op, ["e"] + (["f0"] if extra_kinds else []), ["r0"])]
    body_outputs = [tensor_info("r0")]
    if outputs == 2:
        body_nodes.append(helper.make_node("Identity", ["e"], ["r1"]))
        body_outputs.append(tensor_info("r1"))
    body = helper.make_graph(body_nodes, "body", body_inputs, body_outputs)
    node = helper.make_node("SequenceMap", ["s"] + ["x%d" % i for i in range(len(extra_kinds))],
                            ["y%d" % o for o in range(outputs)], body=body)
    return make_model([node], inputs, [seq_info("y%d" % o) for o in range(outputs)], opset=17)


@pytest.mark.parametrize("extra", ["tensor", "seq"])
@pytest.mark.parametrize("length", [0, 1, 4])
def test_sequence_map_extra_inputs(extra, length):
    model = sequence_map_model([extra], outputs=2)
    items = [random_array((k + 1,)) for k in range(length)]
    other = random_array((1,)) if extra == "tensor" else [random_array((k + 1,))
                                                          for k in range(length)]
    ours = check(model, {"s": items, "x0": other})
    assert len(ours[0]) == length


def test_sequence_map_shapes_of_each_element():
    model = sequence_map_model([], body_op="Shape")
    model.graph.output[0].CopyFrom(seq_info("y0", TensorProto.INT64))
    model.graph.node[0].attribute[0].g.output[0].CopyFrom(tensor_info("r0", TensorProto.INT64))
    check(model, {"s": [random_array((2, 3)), random_array((0,)), random_array((1, 1, 4))]})


def test_sequence_map_length_mismatch_is_an_error():
    sess, _ = sessions(sequence_map_model(["seq"]))
    with pytest.raises(Exception, match="input_sequence has 2"):
        sess.run(None, {"s": [random_array((1,))] * 2, "x0": [random_array((1,))]})


OPT_TENSOR = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
OPT_SEQ = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.INT64, None))


@pytest.mark.parametrize("inner", ["tensor", "seq"])
def test_optional_outputs_come_back_as_onnxruntime_returns_them(inner):
    # o = Optional(x); e = Optional(type=...); has = OptionalHasElement(o); got = GetElement(o).
    inner_type = OPT_TENSOR if inner == "tensor" else OPT_SEQ
    x_info = tensor_info("x") if inner == "tensor" else seq_info("x", TensorProto.INT64)
    nodes = [helper.make_node("Optional", ["x"], ["o"]),
             helper.make_node("Optional", [], ["e"], type=inner_type),
             helper.make_node("OptionalHasElement", ["o"], ["has_o"]),
             helper.make_node("OptionalHasElement", ["e"], ["has_e"]),
             helper.make_node("OptionalGetElement", ["o"], ["got"])]
    got_info = tensor_info("got") if inner == "tensor" else seq_info("got", TensorProto.INT64)
    model = make_model(nodes, [x_info],
                       [optional_info("o", inner_type), optional_info("e", inner_type),
                        tensor_info("has_o", TensorProto.BOOL, []),
                        tensor_info("has_e", TensorProto.BOOL, []), got_info], opset=18)
    x = random_array((2, 3)) if inner == "tensor" else [random_array((2,), TensorProto.INT64),
                                                        random_array((0,), TensorProto.INT64)]
    ours = check(model, {"x": x})
    assert ours[1] is None and bool(ours[2]) and not bool(ours[3])
    ours_sess, ref_sess = sessions(model)
    assert [o.type for o in ours_sess.get_outputs()] == [o.type for o in ref_sess.get_outputs()]
    assert isinstance(ours[0], np.ndarray if inner == "tensor" else list)


@pytest.mark.parametrize("inner", ["tensor", "seq"])
def test_optional_inputs_present_and_absent(inner):
    inner_type = OPT_TENSOR if inner == "tensor" else OPT_SEQ
    nodes = [helper.make_node("OptionalHasElement", ["o"], ["has"]),
             helper.make_node("Identity", ["o"], ["same"])]
    model = make_model(nodes, [optional_info("o", inner_type)],
                       [tensor_info("has", TensorProto.BOOL, []),
                        optional_info("same", inner_type)], opset=18)
    value = random_array((3,)) if inner == "tensor" else [random_array((1,), TensorProto.INT64)]
    check(model, {"o": value})
    ours = check(model, {"o": None})
    assert ours[1] is None and not bool(ours[0])


def test_optional_has_element_18_plain_and_missing_inputs():
    nodes = [helper.make_node("OptionalHasElement", ["x"], ["has_x"]),
             helper.make_node("OptionalHasElement", [""], ["has_none"]),
             helper.make_node("OptionalGetElement", ["x"], ["got"])]
    model = make_model(nodes, [tensor_info("x", TensorProto.INT32)],
                       [tensor_info("has_x", TensorProto.BOOL, []),
                        tensor_info("has_none", TensorProto.BOOL, []),
                        tensor_info("got", TensorProto.INT32)], opset=18)
    ours = check(model, {"x": random_array((2, 2), TensorProto.INT32)})
    assert bool(ours[0]) and not bool(ours[1])


def test_optional_get_element_of_empty_is_an_error():
    nodes = [helper.make_node("OptionalGetElement", ["o"], ["y"])]
    model = make_model(nodes, [optional_info("o", OPT_TENSOR)], [tensor_info("y")], opset=18)
    sess, _ = sessions(model)
    with pytest.raises(Exception, match="empty optional"):
        sess.run(None, {"o": None})
