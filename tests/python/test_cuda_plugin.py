"""The CUDA EP plugin where no GPU is usable (this project's CI machines): it is built and shipped
whenever a CUDA toolkit is found, loads, is left out of get_available_providers(), and a session
asking for it falls back to the CPU with onnxruntime's warning, or fails naming CUDA's error when
told to. On a GPU machine tests/gpu/ covers the EP itself."""
import os
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper

import prismrt as ort
from prismrt import _c_api

PLUGIN = os.path.join(_c_api.library_dir(), "libprism_provider_cuda.so")

pytestmark = [
    pytest.mark.skipif(not os.path.exists(PLUGIN),
                       reason="this build has no CUDA EP plugin (no CUDA toolkit found)"),
    pytest.mark.skipif(os.path.exists(PLUGIN) and
                       "CUDAExecutionProvider" in ort.get_available_providers(),
                       reason="a GPU is usable here: tests/gpu/ tests the CUDA EP itself"),
]


def relu_model():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8).SerializeToString()


def test_unavailable_without_a_gpu_and_sessions_fall_back():
    assert "CUDAExecutionProvider" not in ort.get_available_providers()
    assert "CUDAExecutionProvider" in ort.get_all_providers()
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = ort.InferenceSession(relu_model(),
                                       providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert any("CUDAExecutionProvider" in str(w.message) for w in caught)
    assert session.get_providers() == ["CPUExecutionProvider"]
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], np.maximum(x, 0))


def test_unavailable_is_an_error_naming_cuda_when_asked():
    options = ort.SessionOptions()
    options.add_session_config_entry("session.fail_on_unavailable_provider", "1")
    with pytest.raises(ort.EPFail, match="CUDAExecutionProvider.*no usable CUDA device"):
        ort.InferenceSession(relu_model(), options,
                             providers=["CUDAExecutionProvider", "CPUExecutionProvider"])


def test_no_device_values_without_a_device():
    with pytest.raises(ort.PrismError, match="'CUDAExecutionProvider' cannot provide a shared "
                                             "allocator: .*no usable CUDA device"):
        ort.OrtValue.ortvalue_from_numpy(np.zeros(3, np.float32), "cuda", 0)
