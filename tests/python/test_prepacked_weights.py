"""Prepacked weights through the Python API: MatMul and Gemm compute from their packed constant
B and match onnxruntime; sessions given one PrepackedWeightsContainer share the packed forms;
the original weights are released; session.disable_prepacking keeps them."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

_RNG = np.random.RandomState(20261127)


def _model(op, weight, **attrs):
    """Y = op(X, W[, C]) with W (and C for Gemm) as initializers."""
    inits = [numpy_helper.from_array(weight, "W")]
    inputs = ["X", "W"]
    if op == "Gemm":
        n = weight.shape[0] if attrs.get("transB") else weight.shape[1]
        inits.append(numpy_helper.from_array(_RNG.standard_normal(n).astype(np.float32), "C"))
        inputs.append("C")
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["Y"], **attrs)], "prepack",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, None])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8).SerializeToString()


def _check_against_onnxruntime(model, x, **kwargs):
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"], **kwargs)
    expected = onnxruntime.InferenceSession(
        model, providers=["CPUExecutionProvider"]).run(None, {"X": x})[0]
    np.testing.assert_allclose(session.run(None, {"X": x})[0], expected, rtol=1e-5, atol=1e-5)
    return session


@pytest.mark.parametrize("rows", [1, 5, 64])
def test_matmul_and_gemm_compute_from_the_packed_weight(rows):
    weight = _RNG.standard_normal((70, 33)).astype(np.float32)
    x = _RNG.standard_normal((rows, 70)).astype(np.float32)
    session = _check_against_onnxruntime(_model("MatMul", weight), x)
    stats = session.get_prepack_stats()
    assert stats["PackedInputs"] == 1 and stats["OriginalsReleased"] == 1
    assert stats["ReleasedBytes"] == weight.nbytes
    gemm = _model("Gemm", weight.T.copy(), transB=1, alpha=0.5, beta=2.0)
    assert _check_against_onnxruntime(gemm, x).get_prepack_stats()["PackedInputs"] == 1


def test_sessions_share_a_container():
    weight = _RNG.standard_normal((40, 50)).astype(np.float32)
    model = _model("MatMul", weight)
    container = ort.PrepackedWeightsContainer()
    x = _RNG.standard_normal((3, 40)).astype(np.float32)
    first = _check_against_onnxruntime(model, x, prepacked_weights_container=container)
    assert first.get_prepack_stats()["SharedHits"] == 0
    second = _check_against_onnxruntime(model, x, prepacked_weights_container=container)
    # The container's counts: the second session found the packing done.
    assert second.get_prepack_stats()["SharedHits"] == 1
    assert second.get_prepack_stats()["PackedWeights"] == 1
    del container  # the sessions keep what they use
    np.testing.assert_array_equal(first.run(None, {"X": x})[0], second.run(None, {"X": x})[0])
    with pytest.raises(TypeError, match="prismrt.PrepackedWeightsContainer"):
        ort.InferenceSession(model, prepacked_weights_container=object())


def test_disable_prepacking_keeps_the_weight():
    weight = _RNG.standard_normal((20, 30)).astype(np.float32)
    options = ort.SessionOptions()
    options.add_session_config_entry("session.disable_prepacking", "1")
    x = _RNG.standard_normal((4, 20)).astype(np.float32)
    session = _check_against_onnxruntime(_model("MatMul", weight), x, sess_options=options)
    stats = session.get_prepack_stats()
    assert stats["PackedInputs"] == 0 and stats["OriginalsReleased"] == 0
