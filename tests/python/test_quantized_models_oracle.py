"""Models quantized by onnxruntime's own tools, run by Prism and by onnxruntime on the same
random inputs: quantize_dynamic (DynamicQuantizeLinear + MatMulInteger, int8 and uint8 weights)
on an MLP, and quantize_static in QDQ format with per-channel weights (QuantizeLinear /
DequantizeLinear around Conv, MatMul and Gemm) on a small CNN with a classifier head, and in
QOperator format (QLinearConv, QLinearMatMul) where it writes only ai.onnx ops. The op types
onnxruntime's tools wrote are asserted, so a change in the tools cannot silently empty a test."""
import collections

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_dynamic, quantize_static)

import prismrt as ort
from capi_values import run_through_c_abi
from ort_int8_exactness import check_against_onnxruntime, model_for_exact_onnxruntime

_RNG = np.random.RandomState(20261130)


def _save(graph, path):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                ir_version=8), str(path))
    return path


def _mlp(path):
    weights = [numpy_helper.from_array(_RNG.standard_normal(s).astype(np.float32), n)
               for n, s in [("W1", (16, 32)), ("B1", (32,)), ("W2", (32, 24)), ("W3", (24, 8))]]
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h"]),
             helper.make_node("Add", ["h", "B1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]),
             helper.make_node("MatMul", ["r", "W2"], ["h2"]),
             helper.make_node("Tanh", ["h2"], ["t"]),
             helper.make_node("MatMul", ["t", "W3"], ["y"])]
    graph = helper.make_graph(nodes, "mlp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])],
                              weights)
    return _save(graph, path)


def _cnn(path):
    def weight(name, shape, scale=0.5):
        return numpy_helper.from_array((_RNG.standard_normal(shape) * scale).astype(np.float32),
                                       name)
    weights = [weight("C1", (8, 3, 3, 3)), weight("C1b", (8,)), weight("C2", (8, 8, 3, 3)),
               weight("C2b", (8,)), weight("F", (8 * 4 * 4, 10), 0.1), weight("Fb", (10,))]
    nodes = [helper.make_node("Conv", ["x", "C1", "C1b"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "C2", "C2b"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Flatten", ["r2"], ["f"]),
             helper.make_node("Gemm", ["f", "F", "Fb"], ["y"])]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], weights)
    return _save(graph, path)


class _Calibration(CalibrationDataReader):
    def __init__(self, shape):
        self._batches = iter([{"x": _RNG.standard_normal(shape).astype(np.float32)}
                              for _ in range(8)])

    def get_next(self):
        return next(self._batches, None)


def _compare(path, shape, rtol=1e-5, atol=1e-5, oracle=None, fused_peer=False):
    """prismrt and the C ABI (prism_capi_run_model) against onnxruntime, batches 1 and 3.
    oracle: the model onnxruntime runs (default: the model at path) and its session options.
    fused_peer: also compare with onnxruntime's fully optimized session on the model at path,
    excused where its 8-bit kernels are inexact on this CPU (ort_int8_exactness)."""
    model, options = oracle or (str(path), None)
    for batch in (1, 3):
        x = _RNG.standard_normal((batch,) + shape).astype(np.float32)
        expected = onnxruntime.InferenceSession(
            model, options, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        actual = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
        through_c = run_through_c_abi(str(path), {"x": x}, path.parent)[0]
        np.testing.assert_allclose(through_c, expected, rtol=rtol, atol=atol)
        if fused_peer:
            fused = onnxruntime.InferenceSession(
                str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
            # On AVX2 without VNNI its fused int8 x int8 QDQ kernels are off by several output
            # steps too (seen: exact once quantize_static's reduce_range keeps the weights to 7
            # bits), on the CPUs where its u8s8 GEMM saturates: the same kernel family.
            check_against_onnxruntime(lambda: np.testing.assert_allclose(
                actual, fused, rtol=rtol, atol=atol), np.uint8, np.int8,
                "QDQ model fused by onnxruntime")


def _ops(path):
    return collections.Counter(n.op_type for n in onnx.load(str(path)).graph.node)


@pytest.mark.parametrize("weight_type", [QuantType.QInt8, QuantType.QUInt8])
def test_quantize_dynamic_mlp(tmp_path, weight_type):
    quantized = tmp_path / "mlp_dynamic.onnx"
    quantize_dynamic(str(_mlp(tmp_path / "mlp.onnx")), str(quantized), weight_type=weight_type)
    ops = _ops(quantized)
    assert ops["DynamicQuantizeLinear"] >= 1 and ops["MatMulInteger"] == 3, ops
    # uint8 activations: with int8 weights onnxruntime gets them as uint8 where its u8s8 GEMM
    # is inexact on this CPU (the same integer sums through its exact u8u8 GEMM).
    _compare(quantized, (16,), oracle=(model_for_exact_onnxruntime(str(quantized)), None))


def test_quantize_static_qdq_per_channel_cnn(tmp_path):
    quantized = tmp_path / "cnn_qdq.onnx"
    quantize_static(str(_cnn(tmp_path / "cnn.onnx")), str(quantized), _Calibration((2, 3, 8, 8)),
                    quant_format=QuantFormat.QDQ, per_channel=True)
    model = onnx.load(str(quantized))
    ops = _ops(quantized)
    assert ops["QuantizeLinear"] >= 2 and ops["DequantizeLinear"] >= 5, ops
    per_axis = [n for n in model.graph.node if n.op_type == "DequantizeLinear" and any(
        i.name == n.input[1] and len(i.dims) == 1 and i.dims[0] > 1
        for i in model.graph.initializer)]
    assert per_axis, "no per-channel DequantizeLinear in the quantized model"
    # Prism runs the QDQ pairs as written, and so does onnxruntime without graph optimizations
    # (no integer kernels): the oracle. Optimized, onnxruntime fuses them into integer kernels:
    # the same activations on the same grid, so within float rounding where those are exact.
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    _compare(quantized, (3, 8, 8), rtol=1e-4, atol=1e-4, oracle=(str(quantized), options),
             fused_peer=True)


def test_quantize_static_qoperator_cnn(tmp_path):
    quantized = tmp_path / "cnn_qop.onnx"
    quantize_static(str(_cnn(tmp_path / "cnn.onnx")), str(quantized), _Calibration((2, 3, 8, 8)),
                    quant_format=QuantFormat.QOperator, per_channel=False,
                    op_types_to_quantize=["Conv", "MatMul"])
    ops = _ops(quantized)
    assert ops["QLinearConv"] == 2, ops
    assert not [n for n in onnx.load(str(quantized)).graph.node if n.domain not in ("", "ai.onnx")]
    _compare(quantized, (3, 8, 8), rtol=1e-4, atol=1e-4)
