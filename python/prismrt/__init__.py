"""prismrt: Prism's Python API, a drop-in for onnxruntime's (``import prismrt as ort``).

Everything goes through Prism's stable C ABI (libprism.so, include/prism/prism_c_api.h) with
ctypes; the package carries libprism.so, libprism_core.so and the plugin EP libraries in
prismrt/_lib/.
"""
from ._c_api import api as _api
from ._options import ExecutionMode, GraphOptimizationLevel, RunOptions, SessionOptions
from ._session import (InferenceSession, IOBinding, ModelMetadata, NodeArg,
                       PrepackedWeightsContainer, SessionIOBinding,
                       get_available_providers, get_device, get_version_string,
                       set_global_thread_pool_sizes,
                       set_default_logger_severity)
from ._value import OrtValue
from .capi import onnxruntime_pybind11_state
from .capi.onnxruntime_pybind11_state import (EngineError, EPFail, Fail, InvalidArgument,
                                              InvalidGraph, InvalidProtobuf, ModelLoaded, NoModel,
                                              NoSuchFile, PrismError, RuntimeException)
from .capi.onnxruntime_pybind11_state import NotImplemented  # noqa: A004

# Loading the library at import time makes a broken install fail here, with the reason.
__version__ = _api().version_string
version = __version__

__all__ = [
    "InferenceSession", "IOBinding", "SessionIOBinding", "NodeArg", "ModelMetadata", "OrtValue",
    "SessionOptions", "RunOptions", "GraphOptimizationLevel", "ExecutionMode",
    "get_available_providers", "get_device", "get_version_string", "set_default_logger_severity",
    "set_global_thread_pool_sizes", "PrepackedWeightsContainer",
    "PrismError", "Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError",
    "RuntimeException", "InvalidProtobuf", "ModelLoaded", "NotImplemented", "InvalidGraph",
    "EPFail", "onnxruntime_pybind11_state", "__version__",
]
