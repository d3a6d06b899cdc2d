"""The CPU EP's int8 products on the int8 GEMM (src/mlas/qgemm.h) against exact references and
onnxruntime, on shapes large and ragged enough to cross its tiles, panels and cache blocks (m, n,
k not multiples of 4, 12, 16, 32, 144, 512 or 1024; k odd) and its thread split: MatMulInteger
with B as a graph input and as a constant initializer (prepacked at session creation), every
type pair, nonzero and per-column zero points, full-range weights (outside vpmaddubsw's pair
bound: the split path on AVX2) and 7-bit ones (within it); QLinearMatMul; com.microsoft
DynamicQuantizeMatMul. The sums are exact int64 numpy products."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt
from ort_int8_exactness import check_against_onnxruntime, model_for_exact_onnxruntime

_RNG = np.random.RandomState(20261126)
_ELEM = {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint8): TensorProto.UINT8}


def _range(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _matmul_integer(a, b, az, bz, b_constant):
    inputs = [helper.make_tensor_value_info("a", _ELEM[a.dtype], list(a.shape))]
    initializers = [numpy_helper.from_array(az, "az"), numpy_helper.from_array(bz, "bz")]
    if b_constant:
        initializers.append(numpy_helper.from_array(b, "b"))
    else:
        inputs.append(helper.make_tensor_value_info("b", _ELEM[b.dtype], list(b.shape)))
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])], "mmi", inputs,
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)], initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                             ir_version=8).SerializeToString()


def _session(runtime, model, threads):
    options = runtime.SessionOptions()
    options.intra_op_num_threads = threads
    return runtime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("a_type,b_type", [(np.uint8, np.int8), (np.int8, np.int8),
                                           (np.uint8, np.uint8), (np.int8, np.uint8)])
@pytest.mark.parametrize("m,n,k", [(1, 17, 5), (13, 33, 7), (150, 530, 1031), (37, 100, 2050)])
@pytest.mark.parametrize("b_constant", [False, True])
@pytest.mark.parametrize("seven_bit", [False, True])
def test_matmul_integer_exact_and_matches_onnxruntime(a_type, b_type, m, n, k, b_constant,
                                                      seven_bit):
    la, ha = _range(a_type)
    lb, hb = _range(b_type)
    a = _RNG.randint(la, ha + 1, (m, k)).astype(a_type)
    if seven_bit:  # within the pair bound after the shift to int8 (|b - 128| <= 64 for uint8)
        mid = 0 if b_type == np.int8 else 128
        b = _RNG.randint(mid - 64, mid + 65, (k, n)).astype(b_type)
    else:
        b = _RNG.randint(lb, hb + 1, (k, n)).astype(b_type)
    az = np.array(_RNG.randint(la, ha + 1), a_type)
    bz = _RNG.randint(lb, hb + 1, (n,)).astype(b_type)
    expected = ((a.astype(np.int64) - int(az)) @ (b.astype(np.int64) - bz.astype(np.int64)))
    expected = expected.astype(np.int32)
    model = _matmul_integer(a, b, az, bz, b_constant)
    feeds = {"a": a} if b_constant else {"a": a, "b": b}
    for threads in (1, 2):
        actual = _session(prismrt, model, threads).run(None, feeds)[0]
        np.testing.assert_array_equal(actual, expected)
    peer = _session(onnxruntime, model, 1).run(None, feeds)[0]
    check_against_onnxruntime(lambda: np.testing.assert_array_equal(peer, expected), a_type,
                              b_type, "MatMulInteger")


def test_matmul_integer_extreme_values():
    # 255 * -128 in every product: vpmaddubsw's int16 pairs would saturate.
    a = np.full((20, 300), 255, np.uint8)
    b = np.full((300, 40), -128, np.int8)
    model = _matmul_integer(a, b, np.array(0, np.uint8), np.zeros(40, np.int8), True)
    actual = _session(prismrt, model, 2).run(None, {"a": a})[0]
    np.testing.assert_array_equal(actual, np.full((20, 40), 300 * 255 * -128, np.int32))


@pytest.mark.parametrize("a_type,b_type", [(np.uint8, np.int8), (np.int8, np.uint8)])
def test_qlinear_matmul_large_matches_exact_requantization(a_type, b_type):
    la, ha = _range(a_type)
    lb, hb = _range(b_type)
    m, n, k = 70, 45, 333
    a = _RNG.randint(la, ha + 1, (m, k)).astype(a_type)
    b = _RNG.randint(lb, hb + 1, (k, n)).astype(b_type)
    az, bz = np.array(3, a_type), np.array(-5 if b_type == np.int8 else 130, b_type)
    a_scale, b_scale, y_scale = np.float32(0.02), np.float32(0.03), np.float32(40.0)
    y_zero = np.array(7, a_type)
    graph = helper.make_graph(
        [helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])],
        "qlmm", [helper.make_tensor_value_info("a", _ELEM[a.dtype], [m, k])],
        [helper.make_tensor_value_info("y", _ELEM[a.dtype], None)],
        initializer=[numpy_helper.from_array(v, name) for name, v in [
            ("as", np.array(a_scale)), ("az", az), ("b", b), ("bs", np.array(b_scale)),
            ("bz", bz), ("ys", np.array(y_scale)), ("yz", y_zero)]])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              ir_version=8).SerializeToString()
    sums = (a.astype(np.int64) - int(az)) @ (b.astype(np.int64) - int(bz))
    multiplier = float(np.float32(np.float32(a_scale * b_scale) / y_scale))
    expected = np.clip(np.rint(sums * multiplier) + int(y_zero), la, ha).astype(a_type)
    actual = _session(prismrt, model, 2).run(None, {"a": a})[0]
    np.testing.assert_array_equal(actual, expected)


def test_dynamic_quantize_matmul_matches_onnxruntime():
    m, n, k = 64, 70, 257
    a = _RNG.uniform(-2, 3, (m, k)).astype(np.float32)
    b = _RNG.randint(-128, 128, (k, n)).astype(np.int8)
    b_scale = _RNG.uniform(0.01, 0.02, (n,)).astype(np.float32)
    b_zero = _RNG.randint(-128, 128, (n,)).astype(np.int8)
    bias = _RNG.uniform(-1, 1, (n,)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("DynamicQuantizeMatMul", ["a", "b", "bs", "bz", "bias"], ["y"],
                          domain="com.microsoft")],
        "dqmm", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(b, "b"), numpy_helper.from_array(b_scale, "bs"),
                     numpy_helper.from_array(b_zero, "bz"), numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.microsoft", 1)],
                              ir_version=8).SerializeToString()
    actual = _session(prismrt, model, 2).run(None, {"a": a})[0]
    peer = _session(onnxruntime, model_for_exact_onnxruntime(model), 1).run(None, {"a": a})[0]
    np.testing.assert_allclose(actual, peer, rtol=1e-5, atol=1e-4)


def test_matmul_integer_prepacked_b_with_per_row_a_zero_point():
    # Per-row A zero points take the reference loops, which then need B rebuilt from its
    # prepacked form (PrePackedWeight::unpack).
    a = _RNG.randint(0, 256, (2, 4, 6)).astype(np.uint8)
    b = _RNG.randint(-128, 128, (6, 3)).astype(np.int8)
    az = _RNG.randint(0, 256, (2, 4, 1)).astype(np.uint8)
    bz = _RNG.randint(-128, 128, (3,)).astype(np.int8)
    model = _matmul_integer(a, b, az, bz, True)
    expected = (a.astype(np.int64) - az) @ (b.astype(np.int64) - bz.astype(np.int64))
    actual = _session(prismrt, model, 1).run(None, {"a": a})[0]
    np.testing.assert_array_equal(actual, expected.astype(np.int32))


@pytest.mark.parametrize("a_shape", [(3, 5, 40), (40,), (2, 1, 7, 40)])
def test_matmul_integer_prepacked_b_with_batched_or_vector_a(a_shape):
    a = _RNG.randint(-128, 128, a_shape).astype(np.int8)
    b = _RNG.randint(0, 256, (40, 17)).astype(np.uint8)
    az = np.array(-7, np.int8)
    bz = _RNG.randint(0, 256, (17,)).astype(np.uint8)
    model = _matmul_integer(a, b, az, bz, True)
    expected = (a.astype(np.int64) - int(az)) @ (b.astype(np.int64) - bz.astype(np.int64))
    for threads in (1, 2):
        actual = _session(prismrt, model, threads).run(None, {"a": a})[0]
        np.testing.assert_array_equal(actual, expected.astype(np.int32))
