"""prismrt: Prism's Python API, a drop-in for onnxruntime's (``import prismrt as ort``).

Everything goes through Prism's stable C ABI (libprism.so, include/prism/prism_c_api.h) with
ctypes; the package carries libprism.so, libprism_core.so and the plugin EP libraries in
prismrt/_lib/.
"""
from ._c_api import api as _api
from ._device import (OrtAllocatorType, OrtDevice, OrtDeviceMemoryType, OrtDeviceVendorId,
                      OrtMemoryInfo, OrtMemoryInfoDeviceType, OrtMemType)
from ._env_allocators import (OrtArenaCfg, copy_tensors, create_and_register_allocator,
                              create_and_register_allocator_v2)
from ._options import (ExecutionMode, ExecutionOrder, GraphOptimizationLevel, RunOptions,
                       SessionOptions)
from ._session import (InferenceSession, IOBinding, ModelMetadata, NodeArg,
                       PrepackedWeightsContainer, SessionIOBinding, disable_telemetry_events,
                       enable_telemetry_events, get_all_providers, get_available_providers,
                       get_build_info, get_device, get_version_string, has_collective_ops,
                       print_debug_info, set_default_logger_severity,
                       set_default_logger_verbosity, set_global_thread_pool_sizes, set_seed)
from ._value import OrtValue, OrtValueVector
from .capi import onnxruntime_pybind11_state
from .capi.onnxruntime_pybind11_state import (EngineError, EPFail, Fail, InvalidArgument,
                                              InvalidGraph, InvalidProtobuf, ModelLoaded, NoModel,
                                              NoSuchFile, PrismError, RuntimeException)
from .capi.onnxruntime_pybind11_state import NotImplemented  # noqa: A004

# onnxruntime keeps OrtValueVector in its capi module.
onnxruntime_pybind11_state.OrtValueVector = OrtValueVector

# Loading the library at import time makes a broken install fail here, with the reason.
__version__ = _api().version_string
version = __version__
package_name = "prismrt"
cuda_version = ""  # Prism's build has no CUDA toolkit version (onnxruntime: "" without CUDA)

__all__ = [
    "InferenceSession", "IOBinding", "SessionIOBinding", "NodeArg", "ModelMetadata", "OrtValue",
    "SessionOptions", "RunOptions", "GraphOptimizationLevel", "ExecutionMode", "ExecutionOrder",
    "OrtMemoryInfo", "OrtDevice", "OrtMemType", "OrtAllocatorType", "OrtMemoryInfoDeviceType",
    "OrtDeviceMemoryType", "OrtDeviceVendorId", "OrtArenaCfg", "create_and_register_allocator",
    "create_and_register_allocator_v2", "copy_tensors",
    "get_all_providers", "get_available_providers", "get_build_info", "get_device",
    "get_version_string", "set_default_logger_severity", "set_default_logger_verbosity",
    "set_seed", "has_collective_ops", "disable_telemetry_events", "enable_telemetry_events",
    "print_debug_info", "set_global_thread_pool_sizes", "PrepackedWeightsContainer",
    "PrismError", "Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError",
    "RuntimeException", "InvalidProtobuf", "ModelLoaded", "NotImplemented", "InvalidGraph",
    "EPFail", "onnxruntime_pybind11_state", "__version__", "version", "package_name",
    "cuda_version",
]
