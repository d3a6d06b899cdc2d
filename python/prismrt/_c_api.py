"""ctypes binding of Prism's stable C ABI (include/prism/prism_c_api.h, PRISM_API_VERSION 9).

libprism.so exports one symbol, PrismGetApiBase(); everything else is reached through the
function table it returns. The table layout below must follow the header member by member:
tests/python/test_abi_table.py checks the order against the header.
"""
import ctypes
import os
import threading

from .capi.onnxruntime_pybind11_state import _error_from_status

API_VERSION = 9

# Opaque handles and strings.
_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_STR = ctypes.c_char_p
_PSTR = ctypes.POINTER(ctypes.c_char_p)
_PPSTR = ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))
_SIZE = ctypes.c_size_t
_PSIZE = ctypes.POINTER(ctypes.c_size_t)
_INT = ctypes.c_int
_PINT = ctypes.POINTER(ctypes.c_int)
_I64 = ctypes.c_int64
_PI64 = ctypes.POINTER(ctypes.c_int64)
_ENUM = ctypes.c_int
_PENUM = ctypes.POINTER(ctypes.c_int)
_STATUS = ctypes.c_void_p  # PrismStatus*: NULL on success
_VOID = None

# Callbacks (version 5): PrismLoggingFunction(param, severity, category, log_id, code_location,
# message) and PrismRunAsyncCallback(user_data, outputs, output_count, status).
LOGGING_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                    ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p)
RUN_ASYNC_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                      ctypes.c_size_t, ctypes.c_void_p)
# Version 6: PrismParallelForFunction(user_data, index).
PARALLEL_FOR_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)



class TensorBuffer(ctypes.Structure):
    """PrismTensorBuffer (version 9): a CPU tensor over caller memory, a feed of RunWithBuffers.
    dims and data are addresses (c_void_p: set from Python ints)."""
    _fields_ = [("element_type", ctypes.c_int), ("rank", ctypes.c_size_t),
                ("dims", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("size_in_bytes", ctypes.c_size_t)]


class ValueDescription(ctypes.Structure):
    """PrismValueDescription (version 9): what RunWithBuffers tells of a result."""
    _fields_ = [("has_value", ctypes.c_int), ("kind", ctypes.c_int),
                ("element_type", ctypes.c_int), ("device_type", ctypes.c_int),
                ("rank", ctypes.c_size_t), ("dims_offset", ctypes.c_size_t),
                ("size_in_bytes", ctypes.c_size_t), ("data", ctypes.c_void_p),
                ("sole_owner", ctypes.c_int)]


DIMS_NOT_WRITTEN = ctypes.c_size_t(-1).value  # ValueDescription.dims_offset: did not fit

# (member, return type, argument types) in the header's order.
_TABLE_V1 = [
    # status
    ("GetErrorCode", _ENUM, [_P]),
    ("GetErrorMessage", _STR, [_P]),
    ("ReleaseStatus", _VOID, [_P]),
    # strings
    ("ReleaseString", _VOID, [_P]),
    ("ReleaseStringArray", _VOID, [_PSTR, _SIZE]),
    # environment and logging
    ("CreateEnv", _STATUS, [_ENUM, _STR, _PP]),
    ("ReleaseEnv", _VOID, [_P]),
    ("SetLogSeverityLevel", _STATUS, [_P, _ENUM]),
    ("GetAvailableProviders", _STATUS, [_PPSTR, _PSIZE]),
    # session options
    ("CreateSessionOptions", _STATUS, [_PP]),
    ("CloneSessionOptions", _STATUS, [_P, _PP]),
    ("ReleaseSessionOptions", _VOID, [_P]),
    ("SetIntraOpNumThreads", _STATUS, [_P, _INT]),
    ("SetInterOpNumThreads", _STATUS, [_P, _INT]),
    ("SetGraphOptimizationLevel", _STATUS, [_P, _ENUM]),
    ("SetExecutionMode", _STATUS, [_P, _ENUM]),
    ("SetOptimizedModelFilePath", _STATUS, [_P, _STR]),
    ("EnableProfiling", _STATUS, [_P, _STR]),
    ("DisableProfiling", _STATUS, [_P]),
    ("SetSessionLogSeverityLevel", _STATUS, [_P, _INT]),
    ("SetSessionLogId", _STATUS, [_P, _STR]),
    ("EnableCpuMemArena", _STATUS, [_P, _INT]),
    ("EnableMemPattern", _STATUS, [_P, _INT]),
    ("AddSessionConfigEntry", _STATUS, [_P, _STR, _STR]),
    ("AppendExecutionProvider", _STATUS, [_P, _STR, _PSTR, _PSTR, _SIZE]),
    # sessions
    ("CreateSession", _STATUS, [_P, _STR, _P, _PP]),
    ("CreateSessionFromArray", _STATUS, [_P, _P, _SIZE, _P, _PP]),
    ("ReleaseSession", _VOID, [_P]),
    ("SessionGetInputCount", _STATUS, [_P, _PSIZE]),
    ("SessionGetOutputCount", _STATUS, [_P, _PSIZE]),
    ("SessionGetOverridableInitializerCount", _STATUS, [_P, _PSIZE]),
    ("SessionGetInputName", _STATUS, [_P, _SIZE, _PSTR]),
    ("SessionGetOutputName", _STATUS, [_P, _SIZE, _PSTR]),
    ("SessionGetOverridableInitializerName", _STATUS, [_P, _SIZE, _PSTR]),
    ("SessionGetInputTypeInfo", _STATUS, [_P, _SIZE, _PP]),
    ("SessionGetOutputTypeInfo", _STATUS, [_P, _SIZE, _PP]),
    ("SessionGetOverridableInitializerTypeInfo", _STATUS, [_P, _SIZE, _PP]),
    ("SessionGetModelMetadata", _STATUS, [_P, _PP]),
    ("SessionGetProviders", _STATUS, [_P, _PPSTR, _PSIZE]),
    ("SessionGetProviderOptions", _STATUS, [_P, _SIZE, _PPSTR, _PPSTR, _PSIZE]),
    ("SessionSetProviders", _STATUS, [_P, _P]),
    ("SessionGetPartitionReport", _STATUS, [_P, _ENUM, _PP]),
    ("Run", _STATUS, [_P, _P, _PSTR, _PP, _SIZE, _PSTR, _SIZE, _PP]),
    # run options
    ("CreateRunOptions", _STATUS, [_PP]),
    ("ReleaseRunOptions", _VOID, [_P]),
    ("RunOptionsSetRunLogSeverityLevel", _STATUS, [_P, _INT]),
    ("RunOptionsSetRunTag", _STATUS, [_P, _STR]),
    ("RunOptionsSetTerminate", _STATUS, [_P]),
    ("RunOptionsUnsetTerminate", _STATUS, [_P]),
    # memory info
    ("CreateCpuMemoryInfo", _STATUS, [_ENUM, _ENUM, _PP]),
    ("CreateMemoryInfo", _STATUS, [_STR, _ENUM, _INT, _ENUM, _PP]),
    ("ReleaseMemoryInfo", _VOID, [_P]),
    ("MemoryInfoGetName", _STATUS, [_P, _PSTR]),
    ("MemoryInfoGetId", _STATUS, [_P, _PINT]),
    ("MemoryInfoGetMemType", _STATUS, [_P, _PENUM]),
    ("MemoryInfoGetDeviceType", _STATUS, [_P, _PENUM]),
    # allocators
    ("GetAllocatorWithDefaultOptions", _STATUS, [_PP]),
    ("CreateAllocator", _STATUS, [_P, _P, _PP]),
    ("ReleaseAllocator", _VOID, [_P]),
    ("AllocatorAlloc", _STATUS, [_P, _SIZE, _PP]),
    ("AllocatorFree", _STATUS, [_P, _P]),
    ("AllocatorGetInfo", _STATUS, [_P, _PP]),
    # values
    ("CreateTensorWithDataAsValue", _STATUS, [_P, _P, _SIZE, _PI64, _SIZE, _ENUM, _PP]),
    ("CreateTensorAsValue", _STATUS, [_P, _PI64, _SIZE, _ENUM, _PP]),
    ("CreateSequenceValue", _STATUS, [_PP, _SIZE, _PP]),
    ("CreateEmptyOptionalValue", _STATUS, [_PP]),
    ("ReleaseValue", _VOID, [_P]),
    ("GetValueKind", _STATUS, [_P, _PENUM]),
    ("ValueHasValue", _STATUS, [_P, _PINT]),
    ("GetTensorMutableData", _STATUS, [_P, _PP]),
    ("GetTensorSizeInBytes", _STATUS, [_P, _PSIZE]),
    ("GetTensorTypeAndShape", _STATUS, [_P, _PP]),
    ("GetTensorMemoryInfo", _STATUS, [_P, _PP]),
    ("FillStringTensor", _STATUS, [_P, _PP, _PSIZE, _SIZE]),
    ("GetStringTensorElement", _STATUS, [_P, _SIZE, _PP, _PSIZE]),
    ("GetSequenceLength", _STATUS, [_P, _PSIZE]),
    ("GetSequenceElement", _STATUS, [_P, _SIZE, _PP]),
    # type info
    ("ReleaseTypeInfo", _VOID, [_P]),
    ("TypeInfoGetKind", _STATUS, [_P, _PENUM]),
    ("TypeInfoGetTypeString", _STATUS, [_P, _PSTR]),
    ("TypeInfoGetTensorInfo", _STATUS, [_P, _PP]),
    ("ReleaseTensorTypeAndShapeInfo", _VOID, [_P]),
    ("TensorInfoGetElementType", _STATUS, [_P, _PENUM]),
    ("TensorInfoGetRank", _STATUS, [_P, _PI64]),
    ("TensorInfoGetDimensions", _STATUS, [_P, _PI64, _SIZE]),
    ("TensorInfoGetSymbolicDimensions", _STATUS, [_P, _PSTR, _SIZE]),
    ("TensorInfoGetElementCount", _STATUS, [_P, _PI64]),
    # model metadata
    ("ReleaseModelMetadata", _VOID, [_P]),
    ("ModelMetadataGetProducerName", _STATUS, [_P, _PSTR]),
    ("ModelMetadataGetGraphName", _STATUS, [_P, _PSTR]),
    ("ModelMetadataGetDomain", _STATUS, [_P, _PSTR]),
    ("ModelMetadataGetDescription", _STATUS, [_P, _PSTR]),
    ("ModelMetadataGetGraphDescription", _STATUS, [_P, _PSTR]),
    ("ModelMetadataGetVersion", _STATUS, [_P, _PI64]),
    ("ModelMetadataGetCustomMetadataCount", _STATUS, [_P, _PSIZE]),
    ("ModelMetadataGetCustomMetadata", _STATUS, [_P, _SIZE, _PSTR, _PSTR]),
    # IO binding
    ("CreateIoBinding", _STATUS, [_P, _PP]),
    ("ReleaseIoBinding", _VOID, [_P]),
    ("BindInput", _STATUS, [_P, _STR, _P]),
    ("BindOutput", _STATUS, [_P, _STR, _P]),
    ("BindOutputToDevice", _STATUS, [_P, _STR, _P]),
    ("ClearBoundInputs", _STATUS, [_P]),
    ("ClearBoundOutputs", _STATUS, [_P]),
    ("RunWithBinding", _STATUS, [_P, _P, _P]),
    ("GetBoundOutputNames", _STATUS, [_P, _PPSTR, _PSIZE]),
    ("GetBoundOutputValues", _STATUS, [_P, ctypes.POINTER(_PP), _PSIZE]),
    ("ReleaseValueArray", _VOID, [_PP]),
    ("SessionCopyValueToCpu", _STATUS, [_P, _P, _PP]),
    # profiling
    ("SessionEndProfiling", _STATUS, [_P, _PP]),
]

# Appended by version 2.
_TABLE_V2 = [
    # retry on the CPU EP
    ("SessionSetFallbackEnabled", _STATUS, [_P, ctypes.c_int]),
    ("SessionGetFallbackEnabled", _STATUS, [_P, ctypes.POINTER(ctypes.c_int)]),
    ("SessionTakeFallbackNotice", _STATUS, [_P, _PP]),
    # graph transformers
    ("SetDisabledOptimizers", _STATUS, [_P, _PSTR, _SIZE]),
]

# Appended by version 3.
_TABLE_V3 = [
    # memory
    ("AddRunConfigEntry", _STATUS, [_P, _STR, _STR]),
    ("SessionGetAllocatorStats", _STATUS, [_P, _STR, ctypes.c_int, _PPSTR, _PPSTR, _PSIZE]),
    # global thread pools
    ("CreateThreadingOptions", _STATUS, [_PP]),
    ("ReleaseThreadingOptions", _VOID, [_P]),
    ("SetGlobalIntraOpNumThreads", _STATUS, [_P, ctypes.c_int]),
    ("SetGlobalInterOpNumThreads", _STATUS, [_P, ctypes.c_int]),
    ("CreateEnvWithGlobalThreadPools", _STATUS, [_ENUM, _STR, _P, _PP]),
    ("DisablePerSessionThreads", _STATUS, [_P]),
]

# Appended by version 4.
_TABLE_V4 = [
    # prepacked weights
    ("CreatePrepackedWeightsContainer", _STATUS, [_PP]),
    ("ReleasePrepackedWeightsContainer", _VOID, [_P]),
    ("CreateSessionWithPrepackedWeightsContainer", _STATUS, [_P, _STR, _P, _P, _PP]),
    ("CreateSessionFromArrayWithPrepackedWeightsContainer", _STATUS,
     [_P, ctypes.c_void_p, _SIZE, _P, _P, _PP]),
    ("SessionGetPrepackStats", _STATUS, [_P, _PPSTR, _PPSTR, _PSIZE]),
]

# Appended by version 5.
_TABLE_V5 = [
    # maps
    ("CreateMapValue", _STATUS, [_P, _P, _PP]),
    ("GetMapKeys", _STATUS, [_P, _PP]),
    ("GetMapValues", _STATUS, [_P, _PP]),
    ("TypeInfoGetMapTypes", _STATUS, [_P, _PENUM, _PENUM]),
    # logging
    ("CreateEnvWithCustomLogger", _STATUS, [LOGGING_FUNCTION, _P, _ENUM, _STR, _PP]),
    ("SetLogVerbosityLevel", _STATUS, [_P, _INT]),
    ("SetSessionLogVerbosityLevel", _STATUS, [_P, _INT]),
    ("RunOptionsSetRunLogVerbosityLevel", _STATUS, [_P, _INT]),
    # run and session options
    ("GetRunConfigEntry", _STATUS, [_P, _STR, _PSTR]),
    ("RunOptionsSetOnlyExecutePathToFetches", _STATUS, [_P, _INT]),
    ("GetSessionConfigEntry", _STATUS, [_P, _STR, _PSTR]),
    ("EnableMemReuse", _STATUS, [_P, _INT]),
    ("SetDeterministicCompute", _STATUS, [_P, _INT]),
    # process-wide settings
    ("SetRandomSeed", _STATUS, [_I64]),
    ("GetBuildInfoString", _STR, []),
    # profiling and asynchronous runs
    ("SessionGetProfilingStartTimeNs", _STATUS, [_P, ctypes.POINTER(ctypes.c_uint64)]),
    ("RunAsync", _STATUS, [_P, _P, _PSTR, _PP, _SIZE, _PSTR, _SIZE, _PP, RUN_ASYNC_CALLBACK, _P]),
]

# Appended by version 6.
_TABLE_V6 = [
    # statuses for callbacks
    ("CreateStatus", _STATUS, [_ENUM, _STR]),
    ("GetTensorData", _STATUS, [_P, _PP]),
    # custom op domains
    ("CreateCustomOpDomain", _STATUS, [_STR, _PP]),
    ("ReleaseCustomOpDomain", _VOID, [_P]),
    ("CustomOpDomainAdd", _STATUS, [_P, _P]),
    ("AddCustomOpDomain", _STATUS, [_P, _P]),
    ("RegisterCustomOpsLibrary", _STATUS, [_P, _STR, _PP]),
    # kernel info
    ("KernelInfoGetAttributeFloat", _STATUS, [_P, _STR, ctypes.POINTER(ctypes.c_float)]),
    ("KernelInfoGetAttributeInt64", _STATUS, [_P, _STR, _PI64]),
    ("KernelInfoGetAttributeString", _STATUS, [_P, _STR, _PSTR, _PSIZE]),
    ("KernelInfoGetAttributeFloats", _STATUS, [_P, _STR, _PP, _PSIZE]),
    ("KernelInfoGetAttributeInt64s", _STATUS, [_P, _STR, _PP, _PSIZE]),
    ("KernelInfoHasAttribute", _STATUS, [_P, _STR, _PINT]),
    ("KernelInfoGetInputCount", _STATUS, [_P, _PSIZE]),
    ("KernelInfoGetOutputCount", _STATUS, [_P, _PSIZE]),
    ("KernelInfoGetInputTypeInfo", _STATUS, [_P, _SIZE, _PP]),
    ("KernelInfoGetOutputTypeInfo", _STATUS, [_P, _SIZE, _PP]),
    ("KernelInfoGetNodeName", _STATUS, [_P, _PSTR]),
    # kernel context
    ("KernelContextGetInputCount", _STATUS, [_P, _PSIZE]),
    ("KernelContextGetOutputCount", _STATUS, [_P, _PSIZE]),
    ("KernelContextGetInput", _STATUS, [_P, _SIZE, _PP]),
    ("KernelContextGetOutput", _STATUS, [_P, _SIZE, _ENUM, _PI64, _SIZE, _PP]),
    ("KernelContextGetIntraOpThreadCount", _STATUS, [_P, _PINT]),
    ("KernelContextParallelFor", _STATUS, [_P, PARALLEL_FOR_FUNCTION, _P, _SIZE, _SIZE]),
]

# Appended by version 7.
_TABLE_V7 = [
    # model and session adjustments
    ("AddFreeDimensionOverride", _STATUS, [_P, _STR, _I64]),
    ("AddFreeDimensionOverrideByName", _STATUS, [_P, _STR, _I64]),
    ("AddInitializer", _STATUS, [_P, _STR, _P]),
    ("AddExternalInitializers", _STATUS, [_P, _PSTR, _PP, _SIZE]),
    ("AddExternalInitializersFromFilesInMemory", _STATUS, [_P, _PSTR, _PP, _PSIZE, _SIZE]),
    # environment allocators, device values, CUDA provider options
    ("CreateAndRegisterAllocator", _STATUS, [_P, _P, _PSTR, _PSTR, _SIZE]),
    ("CreateAndRegisterAllocatorV2", _STATUS,
     [_P, _STR, _P, _PSTR, _PSTR, _SIZE, _PSTR, _PSTR, _SIZE]),
    ("UnregisterAllocator", _STATUS, [_P, _P]),
    ("GetSharedAllocator", _STATUS, [_P, _P, _PP]),
    ("AllocatorGetStats", _STATUS, [_P, _PPSTR, _PPSTR, _PSIZE]),
    ("CopyTensors", _STATUS, [_P, _PP, _PP, _SIZE]),
    ("CreateCUDAProviderOptions", _STATUS, [_PP]),
    ("UpdateCUDAProviderOptions", _STATUS, [_P, _PSTR, _PSTR, _SIZE]),
    ("GetCUDAProviderOptionsAsString", _STATUS, [_P, _PSTR]),
    ("ReleaseCUDAProviderOptions", _VOID, [_P]),
    ("SessionOptionsAppendExecutionProvider_CUDA_V2", _STATUS, [_P, _P]),
]

# Appended by version 8.
_TABLE_V8 = [
    # one-call reads for bindings
    ("DescribeValue", _STATUS,
     [_P, _PINT, _PENUM, _PENUM, _PSIZE, _PI64, _SIZE, _PSIZE, _PP, _PENUM]),
]

# Appended by version 9.
_TABLE_V9 = [
    # a run in one call for bindings
    ("RunWithBuffers", _STATUS,
     [_P, _P, _PSTR, ctypes.POINTER(TensorBuffer), _SIZE, _PSTR, _SIZE, _PP,
      ctypes.POINTER(ValueDescription), _PI64, _SIZE]),
]

_TABLE = (_TABLE_V1 + _TABLE_V2 + _TABLE_V3 + _TABLE_V4 + _TABLE_V5 + _TABLE_V6 + _TABLE_V7 +
          _TABLE_V8 + _TABLE_V9)
TABLE_MEMBER_NAMES = [name for name, _, _ in _TABLE]
# The members with an argument-unchecked twin (NAME_unchecked): those every run calls.
UNCHECKED_MEMBER_NAMES = ["Run", "CreateTensorWithDataAsValue", "DescribeValue", "ReleaseValue",
                          "RunWithBuffers"]


class _PrismApiStruct(ctypes.Structure):
    _fields_ = [(name, ctypes.CFUNCTYPE(restype, *argtypes)) for name, restype, argtypes in _TABLE]


class _PrismApiBaseStruct(ctypes.Structure):
    _fields_ = [
        ("GetApi", ctypes.CFUNCTYPE(ctypes.POINTER(_PrismApiStruct), ctypes.c_uint32)),
        ("GetVersionString", ctypes.CFUNCTYPE(ctypes.c_char_p)),
    ]


def library_dir():
    """The folder holding libprism.so, libprism_core.so and the plugin EPs."""
    override = os.environ.get("PRISMRT_LIBRARY_DIR")  # for development only; never required
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")


class _Api:
    """The loaded function table, with each member as a plain attribute."""

    def __init__(self):
        directory = library_dir()
        core_path = os.path.join(directory, "libprism_core.so")
        prism_path = os.path.join(directory, "libprism.so")
        for path in (core_path, prism_path):
            if not os.path.exists(path):
                raise ImportError(
                    "prismrt: %s is missing; the package was installed without Prism's libraries "
                    "(reinstall with PRISM_BUILD_DIR pointing at a Prism build folder)" % path)
        # libprism_core.so is loaded first, by path: libprism.so and the plugin EPs then bind to
        # this copy, whatever their RUNPATH says, and the core finds plugins in its own folder.
        self._core = ctypes.CDLL(core_path)
        self._lib = ctypes.CDLL(prism_path)
        get_base = self._lib.PrismGetApiBase
        get_base.restype = ctypes.POINTER(_PrismApiBaseStruct)
        get_base.argtypes = []
        base = get_base()
        if not base:
            raise ImportError("prismrt: PrismGetApiBase() returned NULL")
        self._base = base.contents
        table = self._base.GetApi(API_VERSION)
        if not table:
            raise ImportError("prismrt: %s does not support C API version %d" %
                              (prism_path, API_VERSION))
        self._table = table.contents
        for name in TABLE_MEMBER_NAMES:
            setattr(self, name, getattr(self._table, name))
        # The per-run calls again, as prototypes without argument types: ctypes converts every
        # argument of a typed prototype (about 0.3 us apiece: DescribeValue's ten took 3.6 us,
        # 0.8 unchecked). Callers pass ctypes objects only (c_void_p, c_size_t, c_int, arrays,
        # byref; None for NULL), never a Python int, which would go as a 32-bit int.
        restypes = {name: restype for name, restype, _ in _TABLE}
        for name in UNCHECKED_MEMBER_NAMES:
            address = ctypes.cast(getattr(self._table, name), ctypes.c_void_p).value
            setattr(self, name + "_unchecked", ctypes.CFUNCTYPE(restypes[name])(address))
        self.version_string = self._base.GetVersionString().decode("utf-8")

    def check(self, status):
        """Raises the exception matching a non-NULL status, after releasing it."""
        if not status:
            return
        try:
            code = self.GetErrorCode(status)
            message = self.GetErrorMessage(status)
            message = message.decode("utf-8", "replace") if message else ""
        finally:
            self.ReleaseStatus(status)
        raise _error_from_status(code, message)

    def string_array(self, fill):
        """Calls fill(names_out, count_out) and returns the owned string array as a list."""
        names = _PSTR()
        count = _SIZE(0)
        self.check(fill(ctypes.byref(names), ctypes.byref(count)))
        try:
            return [names[i].decode("utf-8") for i in range(count.value)]
        finally:
            self.ReleaseStringArray(names, count)


_api = None
_api_lock = threading.Lock()


def api():
    global _api
    if _api is None:
        with _api_lock:
            if _api is None:
                _api = _Api()
    return _api


class _Env:
    """The process's PrismEnv, made on first use (onnxruntime also has one per process)."""

    def __init__(self, severity):
        handle = _P()
        api().check(api().CreateEnv(severity, b"prismrt", ctypes.byref(handle)))
        self.handle = handle


_env = None


def env():
    global _env
    if _env is None:
        with _api_lock:
            if _env is None:
                _env = _Env(2)  # warnings and above, onnxruntime's default
    return _env


def decode(raw):
    return raw.decode("utf-8") if raw is not None else ""
