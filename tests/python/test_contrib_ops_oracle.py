"""com.microsoft ops (part 1) against onnxruntime's CPU EP on random inputs: Gelu, BiasGelu,
FastGelu, QuickGelu, SkipLayerNormalization, SkipSimplifiedLayerNormalization,
SimplifiedLayerNormalization (ONNX domain, as onnxruntime registers it; Prism also takes it in
com.microsoft), FusedMatMul and EmbedLayerNormalization, in float and float16, with every optional
input and output present and omitted and the broadcasting shapes onnxruntime accepts. BiasAdd
has no onnxruntime CPU kernel: it is checked against numpy. Bad shapes and ids are refused by
name."""
import itertools

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime
import pytest
from onnx import helper

import prismrt as ort

_RNG = np.random.default_rng(20261125)
MS = "com.microsoft"


def _model(op, inputs, outputs, domain=MS, constants=(), **attrs):
    """inputs: [(name, array or None)], None is an omitted optional input; outputs: names, ""
    for an omitted optional output; constants: the inputs given as initializers."""
    node = helper.make_node(op, [n if v is not None else "" for n, v in inputs], outputs,
                            domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "contrib",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
         for n, v in inputs if v is not None and n not in constants],
        [onnx.ValueInfoProto(name=o) for o in outputs if o],
        initializer=[onnx.numpy_helper.from_array(v, n) for n, v in inputs if n in constants])
    model = helper.make_model(graph, ir_version=10, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    return model.SerializeToString(), {n: v for n, v in inputs
                                       if v is not None and n not in constants}


_TYPE_NAMES = {np.dtype(np.float32): "tensor(float)", np.dtype(np.float16): "tensor(float16)",
               np.dtype(np.float64): "tensor(double)", np.dtype(np.int32): "tensor(int32)"}


def _tolerance(dtype):
    return dict(rtol=4e-3, atol=4e-3) if dtype == np.float16 else dict(rtol=1e-5, atol=1e-5)


def _prism(model, feeds):
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)


def _check(op, inputs, outputs, domain=MS, oracle_domain=None, constants=(), **attrs):
    model, feeds = _model(op, inputs, outputs, domain, constants, **attrs)
    oracle_model = model if oracle_domain is None else _model(op, inputs, outputs, oracle_domain,
                                                              constants, **attrs)[0]
    expected = onnxruntime.InferenceSession(
        oracle_model, providers=["CPUExecutionProvider"]).run(None, feeds)
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    actual = session.run(None, feeds)
    assert len(actual) == len(expected)
    for name, a, e, info in zip([o for o in outputs if o], actual, expected,
                                session.get_outputs()):
        assert a.dtype == e.dtype and a.shape == e.shape, (name, a.dtype, a.shape, e.dtype, e.shape)
        # The inferred type and shape (the model declares none) match the computed ones.
        assert (info.type, list(info.shape)) == (_TYPE_NAMES[a.dtype], list(a.shape)), (
            name, info.type, info.shape)
        np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64),
                                   err_msg=name, **_tolerance(e.dtype))
    return actual


def _rand(shape, dtype, scale=1.0):
    return (_RNG.standard_normal(shape) * scale).astype(dtype)


DTYPES = [np.float32, np.float16]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 8), (7,), (1, 16)])
@pytest.mark.parametrize("op,attrs", [
    ("Gelu", {}), ("QuickGelu", {}), ("QuickGelu", {"alpha": -0.5}), ("QuickGelu", {"alpha": 1.0})])
def test_unary_activations(op, attrs, shape, dtype):
    _check(op, [("X", _rand(shape, dtype, 3.0))], ["Y"], **attrs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_activations_of_a_scalar(dtype):
    for op in ("Gelu", "QuickGelu"):
        _check(op, [("X", np.array(-0.75, dtype))], ["Y"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 8), (5,), (4, 1)])
@pytest.mark.parametrize("op,with_bias", [("FastGelu", False), ("FastGelu", True),
                                          ("BiasGelu", True)])
def test_bias_activations(op, with_bias, shape, dtype):
    bias = _rand(shape[-1:], dtype) if with_bias else None
    _check(op, [("X", _rand(shape, dtype, 3.0)), ("bias", bias)], ["Y"])


@pytest.mark.parametrize("op", ["FastGelu", "BiasGelu"])
def test_bias_of_the_wrong_shape_is_refused(op):
    model, feeds = _model(op, [("X", _rand((2, 4), np.float32)),
                               ("bias", _rand((2, 4), np.float32))], ["Y"])
    with pytest.raises(Exception, match=r"input 1 \(bias\) must be 1-D of length 4"):
        _prism(model, feeds)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bias_add_matches_numpy(dtype):
    x, bias, skip = _rand((2, 3, 8), dtype), _rand((8,), dtype), _rand((2, 3, 8), dtype)
    model, feeds = _model("BiasAdd", [("X", x), ("bias", bias), ("skip", skip)], ["Y"])
    expected = (x.astype(np.float32) + bias.astype(np.float32) + skip.astype(np.float32))
    np.testing.assert_allclose(_prism(model, feeds)[0].astype(np.float32),
                               expected.astype(dtype).astype(np.float32), **_tolerance(dtype))
    model, feeds = _model("BiasAdd", [("X", x), ("bias", bias), ("skip", skip[:1])], ["Y"])
    with pytest.raises(Exception, match=r"input 2 \(skip\) must have X's shape"):
        _prism(model, feeds)


OUTPUT_SETS = [["Y"], ["Y", "mean", "inv_std"], ["Y", "", "", "sum"],
               ["Y", "mean", "inv_std", "sum"], ["Y", "", "inv_std"]]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 8), (2, 3, 8)), ((2, 3, 8), (1, 3, 8)),
                                    ((2, 3, 8), (3, 8)), ((4, 8), (4, 8))])
@pytest.mark.parametrize("with_beta,with_bias", list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("outputs", OUTPUT_SETS)
def test_skip_layer_normalization(outputs, with_beta, with_bias, shapes, dtype):
    x_shape, skip_shape = shapes
    hidden = x_shape[-1]
    inputs = [("input", _rand(x_shape, dtype)), ("skip", _rand(skip_shape, dtype)),
              ("gamma", _rand((hidden,), dtype)),
              ("beta", _rand((hidden,), dtype) if with_beta else None),
              ("bias", _rand((hidden,), dtype) if with_bias else None)]
    while inputs[-1][1] is None:
        inputs.pop()
    _check("SkipLayerNormalization", inputs, outputs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 8), (2, 3, 8)), ((2, 3, 8), (1, 3, 8)),
                                    ((2, 3, 8), (3, 8)), ((4, 8), (4, 8))])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("outputs", OUTPUT_SETS)
def test_skip_simplified_layer_normalization(outputs, with_bias, shapes, dtype):
    x_shape, skip_shape = shapes
    hidden = x_shape[-1]
    inputs = [("input", _rand(x_shape, dtype)), ("skip", _rand(skip_shape, dtype)),
              ("gamma", _rand((hidden,), dtype))]
    if with_bias:
        inputs.append(("bias", _rand((hidden,), dtype)))
    _check("SkipSimplifiedLayerNormalization", inputs, outputs)


@pytest.mark.parametrize("op", ["SkipLayerNormalization", "SkipSimplifiedLayerNormalization"])
def test_skip_normalization_epsilon(op):
    inputs = [("input", _rand((2, 3, 8), np.float32, 0.01)), ("skip", _rand((2, 3, 8), np.float32,
                                                                             0.01)),
              ("gamma", _rand((8,), np.float32))]
    _check(op, inputs, ["Y", "mean", "inv_std"], epsilon=1e-3)


@pytest.mark.parametrize("skip_shape,gamma_shape,message", [
    ((2, 4, 8), (8,), r"input 1 \(skip\) must have input's shape"),
    ((2, 3, 8), (1, 8), r"input 2 \(gamma\) must be 1-D of length 8"),
])
def test_skip_normalization_bad_shapes_are_refused(skip_shape, gamma_shape, message):
    model, feeds = _model("SkipLayerNormalization", [
        ("input", _rand((2, 3, 8), np.float32)), ("skip", _rand(skip_shape, np.float32)),
        ("gamma", _rand(gamma_shape, np.float32))], ["Y"])
    with pytest.raises(Exception, match=message):
        _prism(model, feeds)


@pytest.mark.parametrize("x_dtype,scale_dtype", [(np.float32, np.float32), (np.float16, np.float16),
                                                 (np.float16, np.float32),
                                                 (np.float32, np.float16)])
@pytest.mark.parametrize("axis,scale_shape", [(-1, (8,)), (-1, (1, 8)), (-1, (3, 8)),
                                              (1, (3, 8)), (1, (8,)), (0, (2, 3, 8))])
@pytest.mark.parametrize("outputs", [["Y"], ["Y", "inv_std"]])
@pytest.mark.parametrize("domain", ["", MS])
def test_simplified_layer_normalization(domain, outputs, axis, scale_shape, x_dtype, scale_dtype):
    inputs = [("X", _rand((2, 3, 8), x_dtype)), ("scale", _rand(scale_shape, scale_dtype))]
    attrs = {} if axis == -1 else {"axis": axis}
    _check("SimplifiedLayerNormalization", inputs, outputs, domain=domain, oracle_domain="",
           **attrs)


def test_simplified_layer_normalization_epsilon_and_refusals():
    x = _rand((2, 3, 8), np.float32, 0.01)
    _check("SimplifiedLayerNormalization", [("X", x), ("scale", _rand((8,), np.float32))],
           ["Y", "inv_std"], domain="", epsilon=1e-3)
    model, feeds = _model("SimplifiedLayerNormalization",
                          [("X", x), ("scale", _rand((5,), np.float32))], ["Y"], domain="")
    with pytest.raises(Exception, match=r"input 1 \(scale\) of shape \[5\] cannot be broadcast"):
        _prism(model, feeds)
    model, feeds = _model("SimplifiedLayerNormalization",
                          [("X", x), ("scale", _rand((8,), np.float32))], ["Y"], domain="",
                          stash_type=11)
    with pytest.raises(Exception, match="attribute stash_type 11 is not supported"):
        _prism(model, feeds)


FUSED_MATMUL_CASES = [
    # (A shape as stored, B shape as stored, attributes)
    ((3, 4), (4, 5), {}),
    ((4, 3), (4, 5), {"transA": 1}),
    ((3, 4), (5, 4), {"transB": 1}),
    ((4, 3), (5, 4), {"transA": 1, "transB": 1, "alpha": 0.5}),
    ((2, 3, 4), (4, 5), {"alpha": 2.0}),
    ((2, 3, 4), (5, 4), {"transB": 1}),
    ((2, 4, 3), (4, 5), {"transA": 1}),
    ((2, 3, 4), (2, 4, 5), {}),
    ((1, 3, 4), (2, 4, 5), {}),
    ((2, 1, 3, 4), (3, 4, 5), {"transA": 0}),
    ((2, 1, 3, 4), (1, 3, 5, 4), {"transB": 1}),
    ((4,), (4, 5), {}),
    ((4,), (5, 4), {"transB": 1}),
    ((4,), (4, 5), {"transA": 1}),
    ((2, 3, 4), (4,), {}),
    ((2, 3, 4), (4,), {"transB": 1}),
    ((3, 2, 4), (2, 4, 5), {"transBatchA": 1}),
    ((4, 2, 3), (2, 4, 5), {"transBatchA": 1, "transA": 1}),
    ((2, 3, 4), (4, 2, 5), {"transBatchB": 1}),
    ((2, 3, 4), (5, 2, 4), {"transBatchB": 1, "transB": 1}),
    ((3, 2, 6, 4), (2, 6, 4, 5), {"transBatchA": 1}),
    ((4, 2, 6, 3), (5, 2, 6, 4), {"transBatchA": 1, "transA": 1, "transBatchB": 1,
                                  "transB": 1, "alpha": -1.5}),
    ((3, 1, 6, 4), (4, 2, 6, 5), {"transBatchA": 1, "transBatchB": 1}),
    ((2, 0, 4), (4, 5), {}),
    ((2, 3, 0), (0, 5), {}),
]


@pytest.mark.parametrize("dtype", DTYPES + [np.float64])
@pytest.mark.parametrize("a_shape,b_shape,attrs", FUSED_MATMUL_CASES)
def test_fused_matmul(a_shape, b_shape, attrs, dtype):
    _check("FusedMatMul", [("A", _rand(a_shape, dtype)), ("B", _rand(b_shape, dtype))], ["Y"],
           **attrs)


@pytest.mark.parametrize("a_shape,b_shape,attrs", [
    c for c in FUSED_MATMUL_CASES if len(c[1]) == 2 and not any(k.startswith("transBatch")
                                                                for k in c[2])])
def test_fused_matmul_with_a_constant_b(a_shape, b_shape, attrs):
    # a constant 2-D float B is prepacked at session creation
    _check("FusedMatMul", [("A", _rand(a_shape, np.float32)), ("B", _rand(b_shape, np.float32))],
           ["Y"], constants=("B",), **attrs)


@pytest.mark.parametrize("a_shape,b_shape,attrs,message", [
    ((2, 3, 4), (3, 5), {}, "inner dimensions differ"),
    ((2, 3, 4), (4, 5), {"transBatchA": 1}, "transBatchA/transBatchB need A and B of one rank"),
    ((2, 3, 4), (3, 4, 5), {}, "cannot be broadcast"),
])
def test_fused_matmul_bad_shapes_are_refused(a_shape, b_shape, attrs, message):
    model, feeds = _model("FusedMatMul", [("A", _rand(a_shape, np.float32)),
                                          ("B", _rand(b_shape, np.float32))], ["Y"], **attrs)
    with pytest.raises(Exception, match=message):
        _prism(model, feeds)


def _embed_inputs(dtype, with_segment, with_mask, positions, batch=2, seq=5, hidden=8,
                  vocab=11, max_pos=7, segments=3):
    ids = _RNG.integers(0, vocab, (batch, seq)).astype(np.int32)
    seg = _RNG.integers(0, segments, (batch, seq)).astype(np.int32) if with_segment else None
    mask = _RNG.integers(0, 2, (batch, seq)).astype(np.int32) if with_mask else None
    pos = None
    if positions == "per_batch":
        pos = _RNG.integers(0, max_pos, (batch, seq)).astype(np.int32)
    elif positions == "shared":
        pos = _RNG.integers(0, max_pos, (1, seq)).astype(np.int32)
    return [("input_ids", ids), ("segment_ids", seg), ("word", _rand((vocab, hidden), dtype)),
            ("position", _rand((max_pos, hidden), dtype)),
            ("segment", _rand((segments, hidden), dtype) if with_segment else None),
            ("gamma", _rand((hidden,), dtype)), ("beta", _rand((hidden,), dtype)),
            ("mask", mask), ("position_ids", pos)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_segment", [False, True])
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("positions", [None, "per_batch", "shared"])
@pytest.mark.parametrize("outputs", [["Y", "mask_index"], ["Y", "mask_index", "sum"],
                                     ["Y", "", "sum"]])
def test_embed_layer_normalization(outputs, positions, with_mask, with_segment, dtype):
    inputs = _embed_inputs(dtype, with_segment, with_mask, positions)
    while inputs[-1][1] is None:
        inputs.pop()
    _check("EmbedLayerNormalization", inputs, outputs)


def test_embed_layer_normalization_without_mask_index_and_with_epsilon():
    inputs = _embed_inputs(np.float32, True, True, None)[:8]
    _check("EmbedLayerNormalization", inputs, ["Y"], mask_index_type=0, epsilon=1e-3)
    # mask values other than 0 and 1: onnxruntime counts the ones
    inputs[7] = ("mask", np.array([[2, 1, 0, 1, 1], [1, -1, 1, 0, 0]], np.int32))
    assert list(_check("EmbedLayerNormalization", inputs, ["Y", "mask_index"])[1]) == [3, 2]


@pytest.mark.parametrize("name,value,message", [
    ("input_ids", 11, r"input 0 \(input_ids\) value 11 is out of range \[0, 11\)"),
    ("input_ids", -1, r"input 0 \(input_ids\) value -1 is out of range"),
    ("segment_ids", 3, r"input 1 \(segment_ids\) value 3 is out of range \[0, 3\)"),
    ("position_ids", 7, r"input 8 \(position_ids\) value 7 is out of range \[0, 7\)"),
])
def test_embed_layer_normalization_ids_out_of_range_are_refused(name, value, message):
    inputs = _embed_inputs(np.float32, True, False, "per_batch")
    index = [n for n, _ in inputs].index(name)
    ids = inputs[index][1].copy()
    ids[1, 2] = value
    inputs[index] = (name, ids)
    model, feeds = _model("EmbedLayerNormalization", inputs, ["Y", "mask_index"])
    with pytest.raises(Exception, match=message):
        _prism(model, feeds)


def test_embed_layer_normalization_long_sequence_is_refused():
    inputs = _embed_inputs(np.float32, False, False, None, seq=9)
    while inputs[-1][1] is None:
        inputs.pop()
    model, feeds = _model("EmbedLayerNormalization", inputs, ["Y", "mask_index"])
    with pytest.raises(Exception, match=r"position 7 is out of range \[0, 7\)"):
        _prism(model, feeds)


@pytest.mark.parametrize("dtype", DTYPES)
def test_larger_shapes_split_over_the_thread_pool(dtype):
    """Shapes big enough that the kernels split their rows over the session's intra-op pool."""
    x, hidden = _rand((4, 64, 256), dtype), (256,)
    _check("SkipLayerNormalization", [("x", x), ("s", _rand((64, 256), dtype)),
                                      ("g", _rand(hidden, dtype)), ("b", _rand(hidden, dtype)),
                                      ("bias", _rand(hidden, dtype))], ["Y", "m", "i", "sum"])
    _check("SkipSimplifiedLayerNormalization", [("x", x), ("s", _rand((4, 64, 256), dtype)),
                                                ("g", _rand(hidden, dtype))],
           ["Y", "m", "i", "sum"])
    _check("SimplifiedLayerNormalization", [("x", x), ("g", _rand(hidden, dtype))], ["Y", "i"],
           domain="")
    wide = _rand((4, 64, 1024), dtype, 3.0)
    for op in ("Gelu", "QuickGelu"):
        _check(op, [("x", wide)], ["Y"])
    for op in ("FastGelu", "BiasGelu"):
        _check(op, [("x", wide), ("b", _rand((1024,), dtype))], ["Y"])
    _check("FusedMatMul", [("a", _rand((4, 64, 128), dtype)), ("b", _rand((4, 256, 128), dtype))],
           ["Y"], transB=1, alpha=0.3)
    _check("FusedMatMul", [("a", _rand((64, 4, 128), dtype)), ("b", _rand((4, 256, 128), dtype))],
           ["Y"], transB=1, transBatchA=1)
    _check("EmbedLayerNormalization", _embed_inputs(dtype, True, True, "shared", batch=4, seq=64,
                                                    hidden=256, vocab=100, max_pos=64),
           ["Y", "mask_index", "sum"])
