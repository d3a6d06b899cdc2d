"""Shape corners against onnxruntime: zero-size and rank-0 inputs to the elementwise operators
(unary math, activations, Size, CastLike, Dropout, BitCast, Identity), broadcasting corners of
the binary and variadic operators (a scalar against a matrix, a zero dim against a one, two
scalars, rank 3 against rank 2), NaN, infinities and negative axes in the reductions, ArgMax,
ArgMin, CumSum, LogSoftmax and Hardmax, and zero-size inputs to the tensor operators (Slice,
Pad, Split, Tile, Trilu, EyeLike, Expand, the gathers and scatters, OneHot, TopK, NonZero,
Unique, DepthToSpace, Compress, ReverseSequence, CenterCropPad).

These are the inputs a kernel written for the common case gets wrong: a loop that assumes at
least one element, a broadcast that treats rank 0 as rank 1, an activation or a reduction that
drops a NaN, a negative axis normalized against the wrong rank. Each case is one single-node
model run by both runtimes on the same seeded random inputs, four ways (input shapes declared,
dims left symbolic, the non-data inputs as initializers, every input an initializer); every
output must agree in dtype, shape and value (floats to rtol 1e-5, NaN where the oracle has NaN;
the other types exactly).

The oracle is onnxruntime. Where onnxruntime refuses a case (OneHot with scalar indices), the
oracle is onnx.reference, the spec's own implementation; where both refuse, the input is
invalid and Prism must refuse it too. Where onnxruntime answers but departs from the spec and
the reference (it skips NaN in ReduceMax, ReduceMin, ArgMax, ArgMin and Hardmax, and hands back
a wrongly shaped result for reductions over a zero-size axis) the case names onnx.reference as
its oracle and its id ends in -ref. Each failure message names the oracle that answered."""
import numpy as np
import onnx
import onnx.numpy_helper
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.helper import np_dtype_to_tensor_dtype

import prismrt as ort

_RNG = np.random.RandomState(20261126)
_F, _D, _I32, _I64 = np.float32, np.float64, np.int32, np.int64
_U8, _B = np.uint8, np.bool_
_ZERO_SIZE = [(0,), (2, 0, 3), (0, 4)]
_CORNERS = _ZERO_SIZE + [()]


# ---------------------------------------------------------------------------------------------
# Harness


def _name(shape):
    return "x".join(str(d) for d in shape) if shape else "scalar"


def _rand(shape, dtype, low=-3.0, high=3.0):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.asarray(_RNG.randint(0, 2, size=shape)).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return np.asarray(_RNG.randint(int(low), int(high), size=shape)).astype(dtype)
    return np.asarray(_RNG.uniform(low, high, size=shape)).astype(dtype)


def _ints(*values):
    return np.array(values, _I64)


def _case(cid, op, inputs, opset=18, outputs=1, fallback=None, oracle=None, out_types=None,
          **attrs):
    """One single-node case: inputs are arrays (None leaves an optional input out). oracle
    "onnx.reference" skips onnxruntime where it departs from the spec (the id ends in -ref);
    out_types names the output element types where ONNX's inference gives none."""
    assert all(x is None or isinstance(x, np.ndarray) for x in inputs), cid  # no numpy scalars
    spec = {"op": op, "inputs": inputs, "opset": opset, "outputs": outputs, "attrs": attrs,
            "fallback": fallback, "oracle": oracle, "out_types": out_types}
    return pytest.param(spec, id=cid + ("-ref" if oracle else ""))


def _model(spec, variant):
    inputs = spec["inputs"]
    names = ["" if x is None else "x%d" % i for i, x in enumerate(inputs)]
    while names and not names[-1]:
        names.pop()
    outs = ["y%d" % i for i in range(spec["outputs"])]
    node = helper.make_node(spec["op"], names, outs, **spec["attrs"])
    graph_inputs, initializers = [], []
    for i, (n, x) in enumerate(zip(names, inputs)):
        if not n:
            continue
        if variant == "folded" or (variant == "const" and i > 0):
            initializers.append(onnx.numpy_helper.from_array(x, n))
            continue
        dims = list(x.shape)
        if variant == "dynamic":
            dims = ["%s_d%d" % (n, d) for d in range(x.ndim)]
        graph_inputs.append(helper.make_tensor_value_info(
            n, np_dtype_to_tensor_dtype(x.dtype), dims))
    graph_outputs = []
    for name in outs:
        info = onnx.ValueInfoProto()
        info.name = name
        graph_outputs.append(info)
    graph = helper.make_graph([node], "corner", graph_inputs, graph_outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", spec["opset"])],
                              ir_version=10)
    # The output element types come from ONNX's own inference; the output shapes stay unknown,
    # so that neither runtime is handed a shape to trust.
    inferred = onnx.shape_inference.infer_shapes(model)
    for i, (out, known) in enumerate(zip(model.graph.output, inferred.graph.output)):
        elem = spec["out_types"][i] if spec["out_types"] else known.type.tensor_type.elem_type
        assert elem, "ONNX shape inference gave no type for %s of %s" % (out.name, spec["op"])
        out.CopyFrom(helper.make_tensor_value_info(out.name, elem, None))
    return model.SerializeToString()


def _feeds(spec, variant):
    if variant == "folded":
        return {}
    return {"x%d" % i: x for i, x in enumerate(spec["inputs"])
            if x is not None and (variant != "const" or i == 0)}


def _variants(cases):
    """Each case four ways: the inputs declared with their shapes (static), with every dim a
    name (dynamic), the inputs after the first as initializers (const: the shape, axes, pads and
    indices a loader may fold), and every input an initializer (folded: a graph with no input
    at all, which a runtime may evaluate at load)."""
    out = []
    for case in cases:
        spec = case.values[0]
        present = [x for x in spec["inputs"] if x is not None]
        for variant in ("static", "dynamic", "const", "folded"):
            if variant == "const" and len(present) < 2:
                continue
            out.append(pytest.param(spec, variant, id="%s-%s" % (case.id, variant)))
    return out


def _oracle(spec, model, feeds):
    """(outputs, oracle name); outputs is None where every oracle refuses the case."""
    if spec["oracle"] is None:
        try:
            return onnxruntime.InferenceSession(
                model, providers=["CPUExecutionProvider"]).run(None, feeds), "onnxruntime"
        except Exception:  # noqa: BLE001  (onnxruntime refuses: fall back to the spec)
            pass
    if spec["fallback"] is not None:
        return spec["fallback"](*[x for x in spec["inputs"] if x is not None]), "numpy"
    try:
        return onnx.reference.ReferenceEvaluator(model).run(None, feeds), "onnx.reference"
    except Exception:  # noqa: BLE001
        return None, "none"


def _prism(model, feeds):
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)


def _check(spec, variant):
    model, feeds = _model(spec, variant), _feeds(spec, variant)
    expected, oracle = _oracle(spec, model, feeds)
    if expected is None:  # invalid input: both oracles refuse it, so must Prism
        with pytest.raises(Exception):
            _prism(model, feeds)
        return
    actual = _prism(model, feeds)
    label = "%s %s (oracle %s)" % (spec["op"], variant, oracle)
    assert len(actual) == len(expected), label
    for i, (got, want) in enumerate(zip(actual, expected)):
        got, want = np.asarray(got), np.asarray(want)
        where = "%s output %d" % (label, i)
        assert got.dtype == want.dtype, "%s: dtype %s, want %s" % (where, got.dtype, want.dtype)
        assert got.shape == want.shape, "%s: shape %s, want %s" % (where, got.shape, want.shape)
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True,
                                       err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)


# ---------------------------------------------------------------------------------------------
# (a), (b): zero-size and rank-0 inputs to the elementwise operators

# op: (low, high) of the random float inputs, inside the op's domain where it has one
_UNARY_FLOAT = {
    "Abs": None, "Neg": None, "Sign": None, "Ceil": None, "Floor": None, "Round": None,
    "Reciprocal": (0.1, 4.0), "Log": (0.1, 4.0), "Sin": None, "Cos": None, "Tan": (-1.4, 1.4),
    "Asin": (-0.95, 0.95), "Acos": (-0.95, 0.95), "Atan": None, "Sinh": None, "Cosh": None,
    "Asinh": None, "Acosh": (1.0, 4.0), "Atanh": (-0.95, 0.95), "Softplus": None,
    "Softsign": None, "IsInf": None, "IsNaN": None,
}
_ACTIVATIONS = {"Celu": 18, "Elu": 18, "Gelu": 20, "HardSigmoid": 18, "HardSwish": 18,
                "LeakyRelu": 18, "Mish": 18, "Selu": 18, "Shrink": 18, "ThresholdedRelu": 18,
                "Swish": 24}


def _unary_input(op, shape):
    if op == "Round":  # halves: the ties round to even
        return np.asarray(_rand(shape, _I32, -8, 9) / 2, _F)
    if op in ("IsInf", "IsNaN"):
        x = _rand(shape, _F)
        if x.size == 0:
            return x
        special = {"IsInf": -np.inf, "IsNaN": np.nan}[op]
        return np.asarray(special, _F).reshape(shape) if shape == () else x
    low_high = _UNARY_FLOAT[op] or (-3.0, 3.0)
    return _rand(shape, _F, *low_high)


_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 2.5, -1e30], _F)


def _elementwise_cases():
    cases = []
    # NaN in, NaN out (IsNaN and IsInf aside): a kernel built on std::max or std::min, or on a
    # comparison that NaN fails, hands back a number. A rank-0 NaN and a vector of specials.
    for op in _UNARY_FLOAT:
        cases.append(_case("%s-f32-scalar-nan" % op, op, [np.asarray(np.nan, _F)]))
        cases.append(_case("%s-f32-specials" % op, op, [_SPECIALS.copy()]))
    for op, opset in _ACTIVATIONS.items():
        cases.append(_case("%s-%d-scalar-nan" % (op, opset), op, [np.asarray(np.nan, _F)],
                           opset))
        cases.append(_case("%s-%d-specials" % (op, opset), op, [_SPECIALS.copy()], opset))
    for shape in _CORNERS:
        s = _name(shape)
        for op in _UNARY_FLOAT:
            cases.append(_case("%s-f32-%s" % (op, s), op, [_unary_input(op, shape)]))
        for op in ("Abs", "Neg", "Sign"):
            cases.append(_case("%s-i32-%s" % (op, s), op, [_rand(shape, _I32, -9, 9)]))
        cases.append(_case("Not-bool-%s" % s, "Not", [_rand(shape, _B)]))
        cases.append(_case("BitwiseNot-i32-%s" % s, "BitwiseNot",
                           [_rand(shape, _I32, -2 ** 31, 2 ** 31 - 1)]))
        for op, opset in _ACTIVATIONS.items():
            cases.append(_case("%s-%d-%s" % (op, opset, s), op, [_rand(shape, _F)], opset))
        cases.append(_case("Size-%s" % s, "Size", [_rand(shape, _F)]))
        cases.append(_case("CastLike-f32-f64-%s" % s, "CastLike",
                           [_rand(shape, _F), np.zeros((), _D)]))
        cases.append(_case("CastLike-f32-i32-%s" % s, "CastLike",
                           [_rand(shape, _F, -50, 50), np.zeros((1,), _I32)]))
        cases.append(_case("Dropout-%s" % s, "Dropout", [_rand(shape, _F)]))
        cases.append(_case("Dropout-mask-%s" % s, "Dropout", [_rand(shape, _F)], outputs=2))
        cases.append(_case("Dropout-ratio-%s" % s, "Dropout",
                           [_rand(shape, _F), np.asarray(0.25, _F)], outputs=2))
        # BitCast is opset 26; should onnxruntime lack it, numpy's view is the oracle.
        cases.append(_case("BitCast-26-f32-i32-%s" % s, "BitCast", [_rand(shape, _F)], 26,
                           fallback=lambda x: [x.view(np.int32)], to=TensorProto.INT32))
        cases.append(_case("Identity-%s" % s, "Identity", [_rand(shape, _F)]))
        cases.append(_case("Identity-i64-%s" % s, "Identity", [_rand(shape, _I64)]))
    return cases


@pytest.mark.parametrize("spec,variant", _variants(_elementwise_cases()))
def test_zero_size_and_scalar_elementwise(spec, variant):
    _check(spec, variant)


# ---------------------------------------------------------------------------------------------
# (c): broadcasting corners

_PAIRS = [((), (2, 3)), ((2, 3), ()), ((0, 3), (1, 3)), ((2, 1), (1, 3)), ((1, 0), (3, 1)),
          ((), ()), ((4, 1, 2), (3, 1))]


def _nonzero(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        magnitude = _rand(shape, dtype, 1, 8)
    else:
        magnitude = _rand(shape, dtype, 0.5, 4.0)
    return np.asarray(magnitude * np.where(_rand(shape, _B), 1, -1), dtype)


def _small_values(shape, dtype):  # few distinct values, so Equal and friends see ties
    return _rand(shape, _I32, -2, 3).astype(dtype)


# (id, op, input maker, attributes); the maker gives the inputs for a list of shapes
_BINARY = [
    ("Mod-i32-fmod0", "Mod",
     lambda a, b: [_rand(a, _I32, -20, 20), _nonzero(b, _I32)], {"fmod": 0}),
    ("Mod-f32-fmod1", "Mod",
     lambda a, b: [_rand(a, _F, -10, 10), _nonzero(b, _F)], {"fmod": 1}),
    ("Max-f32", "Max", lambda *s: [_rand(x, _F) for x in s], {}),
    ("Max-i32", "Max", lambda *s: [_rand(x, _I32, -9, 9) for x in s], {}),
    ("Min-f32", "Min", lambda *s: [_rand(x, _F) for x in s], {}),
    ("Min-i64", "Min", lambda *s: [_rand(x, _I64, -9, 9) for x in s], {}),
    ("Mean-f32", "Mean", lambda *s: [_rand(x, _F) for x in s], {}),
    ("Sum-f32", "Sum", lambda *s: [_rand(x, _F) for x in s], {}),
    ("And", "And", lambda *s: [_rand(x, _B) for x in s], {}),
    ("Or", "Or", lambda *s: [_rand(x, _B) for x in s], {}),
    ("Xor", "Xor", lambda *s: [_rand(x, _B) for x in s], {}),
    ("BitShift-u8-LEFT", "BitShift",
     lambda a, b: [_rand(a, _U8, 0, 256), _rand(b, _U8, 0, 8)], {"direction": "LEFT"}),
    ("BitShift-u8-RIGHT", "BitShift",
     lambda a, b: [_rand(a, _U8, 0, 256), _rand(b, _U8, 0, 8)], {"direction": "RIGHT"}),
]
for _op in ("Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"):
    for _dtype, _tag in ((_F, "f32"), (_I64, "i64")):
        _BINARY.append(("%s-%s" % (_op, _tag), _op,
                        lambda *s, _d=_dtype: [_small_values(x, _d) for x in s], {}))
for _op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
    _BINARY.append(("%s-i32" % _op, _op,
                    lambda *s: [_rand(x, _I32, -2 ** 31, 2 ** 31 - 1) for x in s], {}))
_VARIADIC = ("Max-f32", "Min-f32", "Mean-f32", "Sum-f32")


def _broadcast_cases():
    cases = []
    for cid, op, make, attrs in _BINARY:
        for a, b in _PAIRS:
            shapes = "%s-%s" % (_name(a), _name(b))
            cases.append(_case("%s-%s" % (cid, shapes), op, make(a, b), **attrs))
            if cid in _VARIADIC:  # a third input of shape [1]
                cases.append(_case("%s-3in-%s-1" % (cid, shapes), op, make(a, b, (1,))))
    for x, slope in [((2, 3), ()), ((2, 3), (1,)), ((2, 3), (3,)), ((), ()), ((0, 3), (3,)),
                     ((2, 3), (2, 1))]:
        cases.append(_case("PRelu-%s-slope-%s" % (_name(x), _name(slope)), "PRelu",
                           [_rand(x, _F), _rand(slope, _F, 0.0, 1.0)]))
    for c, x, y in [((), (2, 3), (1, 3)), ((0, 1), (1, 3), ()), ((2, 1), (1, 3), (2, 3)),
                    ((), (), ()), ((1, 3), (0, 1), (1,))]:
        cases.append(_case("Where-%s-%s-%s" % (_name(c), _name(x), _name(y)), "Where",
                           [_rand(c, _B), _rand(x, _F), _rand(y, _F)]))
    return cases


@pytest.mark.parametrize("spec,variant", _variants(_broadcast_cases()))
def test_broadcasting_corners(spec, variant):
    _check(spec, variant)


# ---------------------------------------------------------------------------------------------
# (d): NaN propagation and negative axes

_REDUCTIONS = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare",
               "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean")


def _with_nan(shape, low=-3.0, high=3.0):
    """Random floats with one NaN: in row 1 for rank 2, in batch 0 row 1 for rank 3."""
    x = _rand(shape, _F, low, high)
    x[(0,) * (len(shape) - 2) + (1, 2)] = np.nan
    return x


# onnxruntime departs from the spec (and onnx.reference, the oracle for these, marked -ref):
# its ReduceMax and ReduceMin skip NaN, where the reference propagates it as np.max does; a
# reduction over a zero-size axis hands back the input unchanged ([0, 3] for [0, 3] reduced on
# axis 0) instead of the op's identity of shape [3]; ArgMax and ArgMin skip NaN, where the
# reference takes NaN as the extreme value as np.argmax and np.argmin do; and ArgMax or ArgMin
# of a [0, 3] on axis -1 gives [0, 3] instead of [0, 1].
_REF = "onnx.reference"
_INFS = np.array([[np.inf, 1, 2], [-np.inf, -np.inf, -np.inf], [np.inf, -np.inf, 0],
                  [np.inf, np.inf, 1]], _F)
_NAN_SKIPPED = ("ReduceMax", "ReduceMin")


def _reduction_cases():
    cases = []
    for op in _REDUCTIONS:
        low = 0.1 if op == "ReduceLogSum" else -3.0  # a negative sum has no log
        nan_oracle = _REF if op in _NAN_SKIPPED else None
        for shape in ((3, 4), (2, 3, 4)):
            for axes in ([-1], [-2, -1]):
                for keep in (0, 1):
                    cases.append(_case(
                        "%s-nan-%s-axes%s-keep%d" % (op, _name(shape), axes, keep), op,
                        [_with_nan(shape, low), np.array(axes, _I64)], oracle=nan_oracle,
                        keepdims=keep))
        for keep in (0, 1):
            cases.append(_case("%s-scalar-noaxes-keep%d" % (op, keep), op,
                               [_rand((), _F, 0.1, 3.0)], keepdims=keep))
        cases.append(_case("%s-scalar-nan" % op, op, [np.asarray(np.nan, _F)]))
        # noop_with_empty_axes=1 with empty axes reduces nothing, yet each element still goes
        # through the op's own map (|x| for ReduceL1 and L2, x*x for ReduceSumSquare, log x for
        # ReduceLogSum), as a reduction over a single element would
        cases.append(_case("%s-noop-2x3-axes-empty" % op, op,
                           [_rand((2, 3), _F, low, 3.0), np.zeros((0,), _I64)],
                           noop_with_empty_axes=1))
        cases.append(_case("%s-noop-scalar-noaxes" % op, op,
                           [np.asarray(1.5 if op == "ReduceLogSum" else -1.5, _F)],
                           noop_with_empty_axes=1))
        # infinities: a row of -inf has a LogSumExp of -inf (not the NaN of inf - inf), a row
        # with +inf and -inf a max of +inf and a sum of NaN
        cases.append(_case("%s-inf-4x3-axes[-1]" % op, op, [_INFS.copy(), _ints(-1)],
                           keepdims=0))
        cases.append(_case("%s-axes-empty-reduces-all" % op, op,
                           [_with_nan((3, 4), low), np.zeros((0,), _I64)], oracle=nan_oracle,
                           keepdims=0))
        # Reductions over a zero-size axis give the op's identity (ReduceMax and ReduceMin:
        # -inf and +inf, said so from opset 20).
        opset = 20 if op in ("ReduceMax", "ReduceMin") else 18
        cases.append(_case("%s-%d-0x3-axes[-2]" % (op, opset), op,
                           [_rand((0, 3), _F), np.array([-2], _I64)], opset, oracle=_REF,
                           keepdims=0))
    x = np.array([[1, np.nan, 3, 3], [2, 5, 5, 1], [np.nan, np.nan, 0, -1]], _F)
    for op in ("ArgMax", "ArgMin"):
        for keep in (0, 1):
            for last in (0, 1):
                cases.append(_case("%s-nan-axis-1-keep%d-last%d" % (op, keep, last), op, [x],
                                   oracle=_REF, axis=-1, keepdims=keep,
                                   select_last_index=last))
            cases.append(_case("%s-ties-axis-1-keep%d" % (op, keep), op,
                               [_small_values((3, 5), _F)], axis=-1, keepdims=keep,
                               select_last_index=keep))
        cases.append(_case("%s-0x3-axis-1" % op, op, [_rand((0, 3), _F)], oracle=_REF, axis=-1))
        # No extreme of an empty axis: the reference refuses, so must Prism (onnxruntime hands
        # back a [2, 0, 3] for the [2, 1, 3] it declares)
        cases.append(_case("%s-2x0x3-axis-2-invalid" % op, op, [_rand((2, 0, 3), _F)],
                           oracle=_REF, axis=-2))
    for exclusive in (0, 1):
        for reverse in (0, 1):
            tag = "excl%d-rev%d" % (exclusive, reverse)
            cases.append(_case("CumSum-nan-3x4-axis-1-%s" % tag, "CumSum",
                               [_with_nan((3, 4)), np.asarray(-1, _I64)],
                               exclusive=exclusive, reverse=reverse))
            cases.append(_case("CumSum-nan-2x3x4-axis-2-i32-%s" % tag, "CumSum",
                               [_with_nan((2, 3, 4)), np.asarray(-2, _I32)],
                               exclusive=exclusive, reverse=reverse))
    for shape in ((0, 3), (2, 0), (2, 0, 4)):
        cases.append(_case("CumSum-%s-axis-1" % _name(shape), "CumSum",
                           [_rand(shape, _F), np.asarray(-1, _I64)]))
    for shape in ((3, 4), (2, 3, 4), (0, 3), (3, 0), (2, 0, 4), (0, 2, 3)):
        cases.append(_case("LogSoftmax-13-axis-2-%s" % _name(shape), "LogSoftmax",
                           [_rand(shape, _F)], 13, axis=-2))
        # integer-valued floats: ties, where the first maximum wins
        cases.append(_case("Hardmax-13-axis-2-%s" % _name(shape), "Hardmax",
                           [_small_values(shape, _F)], 13, axis=-2))
    cases.append(_case("LogSoftmax-13-nan-axis-2-3x4", "LogSoftmax", [_with_nan((3, 4))], 13,
                       axis=-2))
    cases.append(_case("LogSoftmax-13-inf-axis-2-4x3", "LogSoftmax", [_INFS.copy()], 13,
                       axis=-2))
    # Hardmax takes NaN as the maximum, as ArgMax does (onnxruntime skips it: -ref)
    cases.append(_case("Hardmax-13-nan-axis-2-3x4", "Hardmax", [_with_nan((3, 4))], 13,
                       oracle=_REF, axis=-2))
    return cases


@pytest.mark.parametrize("spec,variant", _variants(_reduction_cases()))
def test_nan_and_negative_axes(spec, variant):
    _check(spec, variant)


# ---------------------------------------------------------------------------------------------
# (e): zero-size inputs to the tensor operators


def _tensor_cases():
    f = _rand
    c = _case
    return [
        c("Slice-0x4-axes-1", "Slice", [f((0, 4), _F), _ints(1), _ints(3), _ints(-1)]),
        c("Slice-0x4-axis0-step-1", "Slice",
          [f((0, 4), _F), _ints(-1), _ints(-100), _ints(0), _ints(-1)]),
        c("Slice-3x4-to-empty", "Slice", [f((3, 4), _F), _ints(2), _ints(1), _ints(-2)]),
        c("Slice-2x0x3-steps2", "Slice",
          [f((2, 0, 3), _F), _ints(0, 0), _ints(5, 5), _ints(-2, -1), _ints(1, 2)]),
        c("Pad-const-0x3-rows", "Pad", [f((0, 3), _F), _ints(1, 0, 1, 0), np.asarray(1.5, _F)],
          mode="constant"),
        c("Pad-const-0x3-cols", "Pad", [f((0, 3), _F), _ints(0, 1, 0, 1)], mode="constant"),
        c("Pad-const-0x3-axes-1", "Pad",
          [f((0, 3), _F), _ints(2, 0), np.asarray(-2.0, _F), _ints(-1)], mode="constant"),
        c("Pad-const-0x3-none", "Pad", [f((0, 3), _F), _ints(0, 0, 0, 0)], mode="constant"),
        c("Split-0x4-axis1-split", "Split", [f((0, 4), _F), _ints(1, 3)], outputs=2, axis=1),
        c("Split-0x4-axis1-num2", "Split", [f((0, 4), _F)], outputs=2, axis=1, num_outputs=2),
        c("Split-0x4-axis-1-split0", "Split", [f((0, 4), _F), _ints(0, 4)], outputs=2, axis=-1),
        c("Split-0x4-axis0-split", "Split", [f((0, 4), _F), _ints(0, 0)], outputs=2, axis=0),
        c("Tile-0x2", "Tile", [f((0, 2), _F), _ints(3, 2)]),
        c("Tile-2x3-repeat0", "Tile", [f((2, 3), _F), _ints(0, 1)]),
        c("Trilu-0x3-upper", "Trilu", [f((0, 3), _F)]),
        c("Trilu-0x3-lower-k1", "Trilu", [f((0, 3), _F), np.asarray(1, _I64)], upper=0),
        c("Trilu-2x0x0-upper", "Trilu", [f((2, 0, 0), _F)]),
        c("Trilu-2x0x0-lower", "Trilu", [f((2, 0, 0), _F)], upper=0),
        c("EyeLike-0x3", "EyeLike", [f((0, 3), _F)]),
        c("EyeLike-3x0-k1-i64", "EyeLike", [f((3, 0), _F)], k=1, dtype=TensorProto.INT64),
        c("Expand-0x1-to-0x3", "Expand", [f((0, 1), _F), _ints(0, 3)]),
        c("Expand-0x1-to-1x3", "Expand", [f((0, 1), _F), _ints(1, 3)]),
        c("Expand-scalar-to-2x2", "Expand", [f((), _F), _ints(2, 2)]),
        c("Expand-1x3-to-0x1", "Expand", [f((1, 3), _F), _ints(0, 1)]),
        c("Expand-2x3-to-empty-shape", "Expand", [f((2, 3), _F), np.zeros((0,), _I64)]),
        c("GatherElements-2x3-idx2x0", "GatherElements",
          [f((2, 3), _F), np.zeros((2, 0), _I64)], axis=-1),
        c("GatherElements-0x3-idx0x2", "GatherElements",
          [f((0, 3), _F), np.zeros((0, 2), _I64)], axis=-1),
        c("GatherElements-2x0-idx2x0", "GatherElements",
          [f((2, 0), _F), np.zeros((2, 0), _I64)], axis=-1),
        c("ScatterElements-2x3-empty", "ScatterElements",
          [f((2, 3), _F), np.zeros((2, 0), _I64), f((2, 0), _F)], axis=-1),
        c("ScatterElements-2x3-empty-add", "ScatterElements",
          [f((2, 3), _F), np.zeros((0, 0), _I64), f((0, 0), _F)], axis=-1, reduction="add"),
        c("ScatterElements-0x3-empty", "ScatterElements",
          [f((0, 3), _F), np.zeros((0, 3), _I64), f((0, 3), _F)], axis=-1),
        c("ScatterND-2x3-idx0x1", "ScatterND",
          [f((2, 3), _F), np.zeros((0, 1), _I64), f((0, 3), _F)]),
        c("ScatterND-2x3-idx0x2", "ScatterND",
          [f((2, 3), _F), np.zeros((0, 2), _I64), f((0,), _F)]),
        c("ScatterND-2x3-idx0x2-mul", "ScatterND",
          [f((2, 3), _F), np.zeros((0, 2), _I64), f((0,), _F)], reduction="mul"),
        c("OneHot-idx0", "OneHot", [np.zeros((0,), _I64), np.asarray(4, _I64),
                                    np.array([0, 1], _F)]),
        c("OneHot-idx0-axis0", "OneHot", [np.zeros((0,), _I64), np.asarray(4, _I64),
                                          np.array([0, 1], _F)], axis=0),
        # Scalar indices: ONNX's shape inference wants rank >= 1 and onnxruntime refuses them
        # on that ground; onnx.reference computes them (a vector of depth), the oracle here.
        c("OneHot-scalar", "OneHot", [np.asarray(2, _I64), np.asarray(4, _I64),
                                      np.array([-1, 5], _F)], out_types=[TensorProto.FLOAT]),
        c("OneHot-scalar-negative", "OneHot", [np.asarray(-1, _I32), np.array([3], _I64),
                                               np.array([0, 1], _I64)],
          out_types=[TensorProto.INT64]),
        c("TopK-3x0-k0", "TopK", [f((3, 0), _F), _ints(0)], outputs=2, axis=-1),
        c("TopK-0x3-k2", "TopK", [f((0, 3), _F), _ints(2)], outputs=2, axis=-1),
        c("TopK-3x4-k0", "TopK", [f((3, 4), _F), _ints(0)], outputs=2, axis=-1, largest=0),
        c("NonZero-0x3", "NonZero", [f((0, 3), _F)]),
        c("NonZero-scalar-nonzero", "NonZero", [np.asarray(2.5, _F)]),
        c("NonZero-scalar-zero", "NonZero", [np.asarray(0, _I32)]),
        c("Unique-0", "Unique", [f((0,), _F)], outputs=4),
        c("Unique-0-unsorted", "Unique", [f((0,), _I64)], outputs=4, sorted=0),
        c("Unique-2x0-flat", "Unique", [f((2, 0), _F)], outputs=4),
        c("DepthToSpace-0x4x2x2-DCR", "DepthToSpace", [f((0, 4, 2, 2), _F)], blocksize=2),
        c("DepthToSpace-0x4x2x2-CRD", "DepthToSpace", [f((0, 4, 2, 2), _F)], blocksize=2,
          mode="CRD"),
        c("DepthToSpace-1x4x0x2", "DepthToSpace", [f((1, 4, 0, 2), _F)], blocksize=2),
        c("Compress-0x3-axis0", "Compress", [f((0, 3), _F), np.zeros((0,), _B)], axis=0),
        c("Compress-0x3-axis-1", "Compress", [f((0, 3), _F), np.array([1, 0, 1], _B)],
          axis=-1),
        c("Compress-0x3-flat", "Compress", [f((0, 3), _F), np.zeros((0,), _B)]),
        c("Compress-2x3-axis0-empty", "Compress", [f((2, 3), _F), np.zeros((0,), _B)], axis=0),
        c("ReverseSequence-0x2x3", "ReverseSequence", [f((0, 2, 3), _F), _ints(0, 0)],
          batch_axis=1, time_axis=0),
        c("ReverseSequence-2x0x3", "ReverseSequence", [f((2, 0, 3), _F), _ints(0, 0)],
          batch_axis=0, time_axis=1),
        c("ReverseSequence-0x2-batch0", "ReverseSequence", [f((0, 2), _F),
                                                           np.zeros((0,), _I64)],
          batch_axis=0, time_axis=1),
        c("CenterCropPad-3x4-to-0x4", "CenterCropPad", [f((3, 4), _F), _ints(0, 4)]),
        c("CenterCropPad-3x4-axis-1-to-0", "CenterCropPad", [f((3, 4), _F), _ints(0)],
          axes=[-1]),
        c("CenterCropPad-0x2-to-2x2", "CenterCropPad", [f((0, 2), _F), _ints(2, 2)]),
        c("CenterCropPad-0x2-axis0-to-3", "CenterCropPad", [f((0, 2), _I32), _ints(3)],
          axes=[0]),
    ]


@pytest.mark.parametrize("spec,variant", _variants(_tensor_cases()))
def test_zero_size_tensor_ops(spec, variant):
    _check(spec, variant)


# ---------------------------------------------------------------------------------------------
# Invalid corners: both oracles refuse these, so Prism must refuse them too (no numbers)


def _invalid_cases():
    f32 = TensorProto.FLOAT
    return [
        _case("Add-2x3-0x3", "Add", [_rand((2, 3), _F), _rand((0, 3), _F)], out_types=[f32]),
        _case("Add-2x3-3x2", "Add", [_rand((2, 3), _F), _rand((3, 2), _F)], out_types=[f32]),
        _case("Where-2x1-3x1-scalar", "Where",
              [_rand((2, 1), _B), _rand((3, 1), _F), _rand((), _F)], out_types=[f32]),
        _case("Expand-2x3-to-0x3", "Expand", [_rand((2, 3), _F), _ints(0, 3)],
              out_types=[f32]),
        _case("ReduceSum-3x4-axes[-3]", "ReduceSum", [_rand((3, 4), _F), _ints(-3)],
              out_types=[f32]),
        _case("CumSum-3x4-axis-3", "CumSum", [_rand((3, 4), _F), np.asarray(-3, _I64)],
              out_types=[f32]),
    ]


@pytest.mark.parametrize("spec,variant", _variants(_invalid_cases()))
def test_invalid_corners_are_refused(spec, variant):
    _check(spec, variant)
