"""DLPack exchange of CPU tensors: import a producer's DLManagedTensor as a PrismValue without a
copy, and export a PrismValue's data as a DLManagedTensor in a "dltensor" capsule.

The layout and the ownership rules follow the DLPack specification (dlpack.h, legacy unversioned
form, which is what onnxruntime and numpy exchange through ``__dlpack__()`` without arguments):

* A producer hands out a PyCapsule named "dltensor" holding a DLManagedTensor*. The consumer that
  takes ownership renames it "used_dltensor" so the capsule's destructor leaves it alone, and then
  calls the managed tensor's deleter exactly once when it no longer needs the memory.
* A capsule that is never consumed still holds "dltensor" when it dies: its destructor calls the
  deleter then.
"""
import ctypes
import threading

import numpy as np

from . import _types, _value
from ._c_api import _P, api
from .capi.onnxruntime_pybind11_state import InvalidArgument
from .capi.onnxruntime_pybind11_state import NotImplemented as PrismNotImplemented

# Capsule names. Module-level bytes objects: a capsule keeps the name pointer, not a copy.
_NAME = b"dltensor"
_USED_NAME = b"used_dltensor"
# DLPack 1.0's versioned form, exported when the consumer asks for it (max_version >= (1, 0)):
# numpy makes writable arrays only from it.
_VERSIONED_NAME = b"dltensor_versioned"

# DLDeviceType.
DL_CPU = 1
_DEVICE_NAMES = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan",
                 8: "kDLMetal", 9: "kDLVPI", 10: "kDLROCM", 11: "kDLROCMHost", 12: "kDLExtDev",
                 13: "kDLCUDAManaged", 14: "kDLOneAPI", 15: "kDLWebGPU", 16: "kDLHexagon",
                 17: "kDLMAIA"}

# DLDataTypeCode.
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_COMPLEX, _DL_BOOL = 0, 1, 2, 4, 5, 6
_CODE_NAMES = {0: "kDLInt", 1: "kDLUInt", 2: "kDLFloat", 3: "kDLOpaqueHandle", 4: "kDLBfloat",
               5: "kDLComplex", 6: "kDLBool"}

# (DLPack code, bits) <-> ONNX element type. Bool travels as kDLBool 8 (DLPack >= 0.8, numpy 2);
# kDLUInt 8 is bool only when the caller says so (is_bool_tensor), as in onnxruntime.
_ELEMENT_OF_DL = {
    (_DL_INT, 8): _types.INT8, (_DL_INT, 16): _types.INT16, (_DL_INT, 32): _types.INT32,
    (_DL_INT, 64): _types.INT64,
    (_DL_UINT, 8): _types.UINT8, (_DL_UINT, 16): _types.UINT16, (_DL_UINT, 32): _types.UINT32,
    (_DL_UINT, 64): _types.UINT64,
    (_DL_FLOAT, 16): _types.FLOAT16, (_DL_FLOAT, 32): _types.FLOAT, (_DL_FLOAT, 64): _types.DOUBLE,
    (_DL_BFLOAT, 16): _types.BFLOAT16,
    (_DL_COMPLEX, 64): _types.COMPLEX64, (_DL_COMPLEX, 128): _types.COMPLEX128,
    (_DL_BOOL, 8): _types.BOOL,
}
_DL_OF_ELEMENT = {element: code_bits for code_bits, element in _ELEMENT_OF_DL.items()}
_ELEMENT_BYTES = {element: bits // 8 for (_, bits), element in _ELEMENT_OF_DL.items()}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


VERSIONED_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", VERSIONED_DELETER), ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]

# PyCapsule_Destructor: void (*)(PyObject*). The argument stays a raw pointer: the capsule is
# being destroyed, so turning it into a Python object would resurrect it.
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_python = ctypes.pythonapi
_python.PyCapsule_New.restype = ctypes.py_object
_python.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_python.PyCapsule_IsValid.restype = ctypes.c_int
_python.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_python.PyCapsule_GetPointer.restype = ctypes.c_void_p
_python.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_python.PyCapsule_SetName.restype = ctypes.c_int
_python.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# The same functions taking the capsule as a raw pointer, for the capsule destructor.
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _python))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _python))


def _error(message):
    return InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : " + message)


def _dtype_name(dtype):
    return "%s bits=%d lanes=%d" % (_CODE_NAMES.get(dtype.code, "code %d" % dtype.code),
                                    dtype.bits, dtype.lanes)


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------


class _ImportedTensor:
    """Owns a consumed DLManagedTensor and calls its deleter exactly once."""

    def __init__(self, address):
        self._address = address
        self._lock = threading.Lock()

    def release(self):
        with self._lock:
            address, self._address = self._address, None
        if address:
            managed = ctypes.cast(ctypes.c_void_p(address), ctypes.POINTER(DLManagedTensor))
            deleter = managed.contents.deleter
            if deleter:  # a NULL deleter means the producer keeps the memory alive itself
                deleter(managed)

    def __del__(self):
        # A value whose creation failed never reaches the handle's release.
        self.release()


def _element_type(dtype, is_bool_tensor):
    if dtype.lanes != 1:
        raise _error("DLPack tensors with vector lanes are not supported: got dtype %s" %
                     _dtype_name(dtype))
    element = _ELEMENT_OF_DL.get((dtype.code, dtype.bits))
    if element is None:
        raise _error("unsupported DLPack dtype %s; supported: int8/16/32/64, uint8/16/32/64, "
                     "float16/32/64, bfloat16, complex64/128, bool" % _dtype_name(dtype))
    if is_bool_tensor and element == _types.UINT8:
        return _types.BOOL
    return element


def _check_compact(tensor, dims):
    """Prism tensors are dense row-major: strides (in elements) must be the compact ones, except
    that a dimension of size 1 may have any stride and an empty tensor has no layout."""
    if not tensor.strides or 0 in dims:
        return  # NULL strides mean compact (DLPack)
    strides = [tensor.strides[i] for i in range(len(dims))]
    expected = 1
    for axis in reversed(range(len(dims))):
        if dims[axis] != 1 and strides[axis] != expected:
            raise _error("DLPack tensor with shape %s has strides %s (in elements); only "
                         "compact row-major tensors can be shared, make it contiguous first" %
                         (dims, strides))
        expected *= dims[axis]


def import_capsule(capsule, is_bool_tensor=False):
    """An owned PrismValue handle over the memory of a "dltensor" capsule (consumed: renamed
    "used_dltensor"). The producer's deleter runs when the PrismValue is released."""
    if type(capsule).__name__ != "PyCapsule" or not _python.PyCapsule_IsValid(capsule, _NAME):
        raise TypeError("from_dlpack expected an object with __dlpack__ or a DLPack capsule named "
                        "'dltensor' (not yet consumed), got %s" % _describe(capsule))
    address = _python.PyCapsule_GetPointer(capsule, _NAME)
    tensor = ctypes.cast(ctypes.c_void_p(address),
                         ctypes.POINTER(DLManagedTensor)).contents.dl_tensor
    if tensor.device.device_type != DL_CPU:
        raise PrismNotImplemented(
            "[PrismError] : 9 : NOT_IMPLEMENTED : from_dlpack takes CPU tensors (kDLCPU) only; "
            "got device %s (type %d, id %d)" % (
                _DEVICE_NAMES.get(tensor.device.device_type, "unknown"),
                tensor.device.device_type, tensor.device.device_id))
    element = _element_type(tensor.dtype, is_bool_tensor)
    if tensor.ndim < 0:
        raise _error("DLPack tensor has negative ndim %d" % tensor.ndim)
    dims = [tensor.shape[i] for i in range(tensor.ndim)]
    _check_compact(tensor, dims)
    count = int(np.prod(dims, dtype=np.int64))
    data = (tensor.data or 0) + tensor.byte_offset
    shape, rank = _value._shape_array(dims)

    # From here on the managed tensor is ours: the capsule must not call the deleter too.
    if _python.PyCapsule_SetName(capsule, _USED_NAME) != 0:
        raise RuntimeError("could not mark the DLPack capsule as consumed")
    owner = _ImportedTensor(address)
    handle = _P()
    api().check(api().CreateTensorWithDataAsValue(
        _value.cpu_memory_info(), ctypes.c_void_p(data or None), count * _ELEMENT_BYTES[element],
        shape, rank, element, ctypes.byref(handle)))

    def release(pointer):
        api().ReleaseValue(pointer)
        owner.release()

    return _value.Handle(handle, release)


def _describe(item):
    if type(item).__name__ == "PyCapsule":
        return "a capsule that is not an unconsumed 'dltensor' (already used?)"
    return type(item).__name__


def is_bool_source(data):
    """Whether a producer object's dtype is bool (onnxruntime's rule: a uint8 capsule from it
    then means bool)."""
    if isinstance(data, _value.OrtValue):
        return data.is_tensor() and data.element_type() == _types.BOOL
    dtype = getattr(data, "dtype", None)
    if dtype is None:
        return False
    return getattr(dtype, "name", str(dtype)) in ("bool", "bool_", "torch.bool")


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------

# Exported tensors still held by a consumer (or by an unconsumed capsule), by manager_ctx:
# the OrtValue (which keeps its memory alive), the managed tensor struct and its shape array.
_exports = {}
_exports_lock = threading.Lock()
_next_export = [1]


def _release_export(managed):
    """The deleter of both managed tensor forms: drops the reference on the exported value."""
    try:
        with _exports_lock:
            _exports.pop(managed.contents.manager_ctx, None)
    except Exception:  # interpreter shutdown: nothing left to release
        pass


_DELETER = DELETER(_release_export)
_VERSIONED_DELETER = VERSIONED_DELETER(_release_export)


def _destructor(name, struct):
    """A capsule destructor: a capsule still holding its unconsumed name was never taken by a
    consumer, so the managed tensor is still the producer's to delete."""

    def destroy(capsule):
        try:
            if _raw_is_valid(capsule, name):
                address = _raw_get_pointer(capsule, name)
                _release_export(ctypes.cast(ctypes.c_void_p(address), ctypes.POINTER(struct)))
        except Exception:  # interpreter shutdown
            pass

    return _CAPSULE_DESTRUCTOR(destroy)


_CAPSULE_DESTROY = _destructor(_NAME, DLManagedTensor)
_VERSIONED_CAPSULE_DESTROY = _destructor(_VERSIONED_NAME, DLManagedTensorVersioned)


def device_of(value):
    """(DLDeviceType, device id) of a tensor OrtValue."""
    value._require_tensor("__dlpack_device__()")
    name, device_id, device_type = _value.tensor_memory(value._pointer())
    if device_type != _value._DEVICE_CPU:
        raise PrismNotImplemented("[PrismError] : 9 : NOT_IMPLEMENTED : DLPack export covers CPU "
                                  "tensors only; this OrtValue lives in '%s' memory" % name)
    return DL_CPU, 0


def export_value(value, versioned=False):
    """A DLPack capsule over value's data (shared, not copied): "dltensor", or with versioned
    "dltensor_versioned" (DLPack 1.0, writable). The value stays alive until the consumer calls
    the deleter, or until the capsule dies unconsumed."""
    device_of(value)
    element, dims = _value.tensor_type_and_shape(value._pointer())
    dl_type = _DL_OF_ELEMENT.get(element)
    if dl_type is None:
        raise _error("DLPack export does not support %s tensors" % _types.type_string(element))
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(1, 0)
        managed.flags = 0  # neither read-only nor a copy
        managed.deleter = _VERSIONED_DELETER
    else:
        managed = DLManagedTensor()
        managed.deleter = _DELETER
    shape = (ctypes.c_int64 * max(len(dims), 1))(*dims)
    managed.dl_tensor.data = value.data_ptr() or None
    managed.dl_tensor.device = DLDevice(DL_CPU, 0)
    managed.dl_tensor.ndim = len(dims)
    managed.dl_tensor.dtype = DLDataType(dl_type[0], dl_type[1], 1)
    managed.dl_tensor.shape = shape
    managed.dl_tensor.strides = None  # compact row-major
    managed.dl_tensor.byte_offset = 0
    with _exports_lock:
        key = _next_export[0]
        _next_export[0] += 1
        managed.manager_ctx = key
        _exports[key] = (value, managed, shape)
    if versioned:
        return _python.PyCapsule_New(ctypes.addressof(managed), _VERSIONED_NAME,
                                     _VERSIONED_CAPSULE_DESTROY)
    return _python.PyCapsule_New(ctypes.addressof(managed), _NAME, _CAPSULE_DESTROY)


def dlpack(value, stream=None, max_version=None, dl_device=None, copy=None):
    """OrtValue.__dlpack__: the DLPack protocol's export with the consumer's keywords (2023.12
    array API): a versioned capsule when max_version allows 1.x, a copy only when copy is True."""
    del stream  # CPU memory needs no stream synchronisation
    if dl_device is not None and tuple(dl_device) != device_of(value):
        raise BufferError("DLPack export to device %s is not supported: the OrtValue is on the "
                          "CPU %s" % (tuple(dl_device), device_of(value)))
    if copy:
        value = _value.OrtValue.ortvalue_from_numpy(value.numpy())
    versioned = max_version is not None and int(max_version[0]) >= 1
    return export_value(value, versioned)


def live_exports():
    """How many exported tensors are still held (for tests)."""
    with _exports_lock:
        return len(_exports)
