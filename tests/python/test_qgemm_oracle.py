"""com.microsoft QGemm (providers/cpu/contrib/qgemm.cc) against onnxruntime's QGemm and an exact
numpy reference on random shapes (transA, transB, per-tensor and per-column b zero points and
scales, alpha, the int32 bias C, float and 8-bit outputs, B constant (prepacked) or fed), and
QDQGemmFusion (src/optimizer/qdq_gemm_fusion.cc): a QDQ Gemm becomes QGemm, computes what the
unfused graph computes, and the saved optimized model runs in onnxruntime with the same
outputs."""
import collections

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt
from ort_int8_exactness import check_against_onnxruntime, model_for_exact_onnxruntime

_RNG = np.random.RandomState(20261126)
_ELEM = {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint8): TensorProto.UINT8}


def _qgemm_model(a, b, b_constant, params, trans_a, trans_b, alpha, c, y):
    """QGemm with a (and b unless constant) as graph inputs; params: the scales and zero points."""
    a_scale, a_zero, b_scale, b_zero = params
    initializers = [numpy_helper.from_array(a_scale, "a_scale"),
                    numpy_helper.from_array(a_zero, "a_zero"),
                    numpy_helper.from_array(b_scale, "b_scale"),
                    numpy_helper.from_array(b_zero, "b_zero")]
    inputs = [helper.make_tensor_value_info("a", _ELEM[a.dtype], list(a.shape))]
    if b_constant:
        initializers.append(numpy_helper.from_array(b, "b"))
    else:
        inputs.append(helper.make_tensor_value_info("b", _ELEM[b.dtype], list(b.shape)))
    names = ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "", "", ""]
    if c is not None:
        initializers.append(numpy_helper.from_array(c, "c"))
        names[6] = "c"
    out_type = TensorProto.FLOAT
    if y is not None:
        initializers += [numpy_helper.from_array(y[0], "y_scale"),
                         numpy_helper.from_array(y[1], "y_zero")]
        names[7:9] = ["y_scale", "y_zero"]
        out_type = _ELEM[y[1].dtype]
    while not names[-1]:
        names.pop()
    node = helper.make_node("QGemm", names, ["y"], domain="com.microsoft", transA=int(trans_a),
                            transB=int(trans_b), alpha=alpha)
    graph = helper.make_graph([node], "qgemm", inputs,
                              [helper.make_tensor_value_info("y", out_type, None)],
                              initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)],
                             ir_version=8).SerializeToString()


def _session(runtime, model, threads=1, disabled_optimizers=None, **options_set):
    options = runtime.SessionOptions()
    options.intra_op_num_threads = threads
    for key, value in options_set.items():
        setattr(options, key, value)
    extra = {"disabled_optimizers": disabled_optimizers} if disabled_optimizers else {}
    return runtime.InferenceSession(model, options, providers=["CPUExecutionProvider"], **extra)


@pytest.mark.parametrize("a_type,b_type", [(np.uint8, np.int8), (np.uint8, np.uint8),
                                           (np.int8, np.int8)])
@pytest.mark.parametrize("trans_a,trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("quantized", [False, True])
@pytest.mark.parametrize("per_column", [False, True])
def test_qgemm_matches_onnxruntime_and_an_exact_reference(a_type, b_type, trans_a, trans_b,
                                                          quantized, per_column):
    m, k, n = [int(v) for v in _RNG.randint(1, 70, 3)]
    k += 60  # several depth groups and a ragged tail
    a = _RNG.randint(np.iinfo(a_type).min, np.iinfo(a_type).max + 1, (m, k)).astype(a_type)
    b = _RNG.randint(np.iinfo(b_type).min, np.iinfo(b_type).max + 1, (k, n)).astype(b_type)
    columns = n if per_column else 1
    a_zero = np.array(_RNG.randint(np.iinfo(a_type).min, np.iinfo(a_type).max + 1), a_type)
    b_zero = np.array(_RNG.randint(-5, 6, columns) + (128 if b_type == np.uint8 else 0), b_type)
    b_scale = (_RNG.uniform(0.001, 0.01, columns)).astype(np.float32)
    if not per_column:
        b_zero, b_scale = b_zero.reshape(()), b_scale.reshape(())
    a_scale = np.array(0.02, np.float32)
    alpha = float(np.float32(_RNG.choice([1.0, 0.75, 2.5])))
    c = _RNG.randint(-5000, 5000, n).astype(np.int32)
    y = (np.array(0.7, np.float32), np.array(3 if a_type == np.int8 else 120, a_type)) \
        if quantized else None

    sums = ((a.astype(np.int64) - int(a_zero)) @ (b.astype(np.int64) - b_zero.astype(np.int64))
            + c).astype(np.int32)
    multiplier = (np.float32(alpha) * a_scale * b_scale).astype(np.float32)
    if quantized:
        multiplier = (multiplier / y[0]).astype(np.float32)
        info = np.iinfo(y[1].dtype)
        expected = np.clip(np.rint(sums.astype(np.float64) * multiplier.astype(np.float64))
                           + int(y[1]), info.min, info.max).astype(y[1].dtype)
    else:
        expected = sums.astype(np.float32) * multiplier

    a_stored = np.ascontiguousarray(a.T) if trans_a else a
    b_stored = np.ascontiguousarray(b.T) if trans_b else b
    params = (a_scale, a_zero, b_scale, b_zero)
    for b_constant in (False, True):
        model = _qgemm_model(a_stored, b_stored, b_constant, params, trans_a, trans_b, alpha, c, y)
        feeds = {"a": a_stored} if b_constant else {
      "a" : a_stored, "b" : b_stored
    }
        for threads in (1, 2):
            actual = _session(prismrt, model, threads).run(None, feeds)[0]
            np.testing.assert_array_equal(actual, expected)
#B constant: where onnxruntime's u8s8 GEMM is inexact on this CPU, it gets B as uint8 (the
#same sums through its exact u8u8 GEMM) and the comparison stays strict.
        peer_model = model_for_exact_onnxruntime(model) if b_constant and (
            a_type, b_type) == (np.uint8, np.int8) else model
        peer = _session(onnxruntime, peer_model).run(None, feeds)[0]

        def compare_peer():
            if quantized:
#onnxruntime rounds the product to float before rounding to an integer : one step
#apart at most, and only where the double product sits within a float ulp of a tie.
                difference = np.abs(peer.astype(np.int32) - expected.astype(np.int32))
                assert difference.max() <= 1 and np.mean(difference) < 0.01
            else:
                np.testing.assert_array_equal(peer, expected)
        if peer_model is not model:
            compare_peer()
        else:
            check_against_onnxruntime(compare_peer, a_type, b_type, "QGemm")

#-- -- QDQGemmFusion -- --

def _qdq_gemm(trans_b, per_column, with_bias, quantize_output, alpha=1.0, bias_scale_factor=1.0):
    """x [4, 24] -> Q/DQ -> Gemm(DQ(W int8), DQ(bias int32)) [-> Q -> DQ] -> y."""
    rng = np.random.RandomState(7)
    k, n = 24, 10
    x_scale, x_zero = np.array(0.03, np.float32), np.array(120, np.uint8)
    w = rng.randint(-127, 128, (n, k) if trans_b else (k, n)).astype(np.int8)
    w_scale = rng.uniform(0.002, 0.01, n).astype(np.float32) if per_column \
        else np.array(0.005, np.float32)
    w_zero = np.zeros(n, np.int8) if per_column else np.array(0, np.int8)
    initializers = [numpy_helper.from_array(v, name) for v, name in
                    [(x_scale, "x_scale"), (x_zero, "x_zero"), (w, "w"), (w_scale, "w_scale"),
                     (w_zero, "w_zero")]]
    nodes = [helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xd"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wd"],
                              axis=0 if trans_b else 1)]
    gemm_inputs = ["xd", "wd"]
    if with_bias:
        bias_scale = (np.float32(alpha) * x_scale * w_scale * np.float32(bias_scale_factor)) \
            .astype(np.float32)
        initializers += [numpy_helper.from_array(rng.randint(-3000, 3000, n).astype(np.int32), "b"),
                         numpy_helper.from_array(bias_scale, "b_scale"),
                         numpy_helper.from_array(np.zeros(bias_scale.shape, np.int32), "b_zero")]
        nodes.append(helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero"], ["bd"],
                                      axis=0))
        gemm_inputs.append("bd")
    gemm_out = "g" if quantize_output else "y"
    nodes.append(helper.make_node("Gemm", gemm_inputs, [gemm_out], transB=int(trans_b),
                                  alpha=alpha))
    if quantize_output:
        initializers += [numpy_helper.from_array(np.array(0.05, np.float32), "y_scale"),
                         numpy_helper.from_array(np.array(128, np.uint8), "y_zero")]
        nodes += [helper.make_node("QuantizeLinear", ["g", "y_scale", "y_zero"], ["gq"]),
                  helper.make_node("DequantizeLinear", ["gq", "y_scale", "y_zero"], ["y"])]
    graph = helper.make_graph(nodes, "qdq_gemm",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, n])],
                              initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8).SerializeToString()


def _ops(path):
    return collections.Counter(n.op_type for n in onnx.load(path).graph.node)


@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize("per_column", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("quantize_output", [False, True])
def test_qdq_gemm_becomes_qgemm_and_its_saved_model_runs_in_onnxruntime(
        tmp_path, trans_b, per_column, with_bias, quantize_output):
    model = _qdq_gemm(trans_b, per_column, with_bias, quantize_output, alpha=1.5)
    x = np.random.RandomState(3).uniform(-3, 3, (4, 24)).astype(np.float32)
    saved = str(tmp_path / "fused.onnx")
    fused = _session(prismrt, model, optimized_model_filepath=saved).run(None, {"x": x})[0]
    ops = _ops(saved)
    assert ops["QGemm"] == 1 and ops["Gemm"] == 0, ops
#Only the input 's QuantizeLinear and, with the quantized output, the output' s
#DequantizeLinear remain.
    assert ops["DequantizeLinear"] == int(quantize_output) and ops["QuantizeLinear"] == 1, ops
    unfused = _session(prismrt, model, disabled_optimizers=["QDQGemmFusion"]).run(
        None, {"x": x})[0]
    step = 0.05 if quantize_output else 0.0
#The float Gemm sums dequantized floats; QGemm the exact integers : float rounding, plus one
#output step where that moves a value across a rounding boundary.
    np.testing.assert_allclose(fused, unfused, rtol=1e-5, atol=step + 1e-4)
#onnxruntime runs both as QGemm (its own QDQ fusion) on uint8 x and int8 w: given as uint8
#where its u8s8 GEMM is inexact on this CPU (the same integer sums, its exact u8u8 GEMM).
    expected = _session(onnxruntime, model_for_exact_onnxruntime(model)).run(None, {"x": x})[0]
    reloaded = _session(onnxruntime, model_for_exact_onnxruntime(saved)).run(None, {"x": x})[0]
    np.testing.assert_allclose(reloaded, expected, rtol=1e-5, atol=step + 1e-4)
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=step + 1e-4)


def test_qdq_gemm_fusion_keeps_what_it_must_not_fuse(tmp_path):
    x = np.random.RandomState(4).uniform(-3, 3, (4, 24)).astype(np.float32)
#A bias whose scale is not alpha * x_scale * w_scale : QGemm would add another value.
    for model in [_qdq_gemm(1, True, True, True, bias_scale_factor=1.5)]:
        saved = str(tmp_path / "kept.onnx")
        actual = _session(prismrt, model, optimized_model_filepath=saved).run(None, {"x": x})[0]
        assert _ops(saved)["Gemm"] == 1, _ops(saved)
        unfused = _session(prismrt, model, graph_optimization_level=(
            prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL)).run(None, {"x": x})[0]
        np.testing.assert_allclose(actual, unfused, rtol=1e-5, atol=1e-5)
