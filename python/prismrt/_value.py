"""OrtValue and the conversions between numpy arrays and PrismValue handles."""
import ctypes
import numbers
import re
import threading

import numpy as np

from . import _device, _dlpack, _env_allocators, _types
from ._c_api import _P, DIMS_NOT_WRITTEN, api, decode
from .capi.onnxruntime_pybind11_state import InvalidArgument
from .capi.onnxruntime_pybind11_state import NotImplemented as PrismNotImplemented

# PrismValueKind, PrismDeviceType, PrismMemType, PrismAllocatorType.
_KIND_TENSOR = 1
_KIND_SEQUENCE = 2
_KIND_OPTIONAL = 3
_KIND_MAP = 4
_DEVICE_CPU = 0
_MEM_DEFAULT = 0
_DEVICE_ALLOCATOR = 0



class Handle:
    """Owns one C object and releases it with its Release* function when collected."""

    __slots__ = ("pointer", "_release", "__weakref__")

    def __init__(self, pointer, release):
        self.pointer = pointer
        self._release = release

    def __del__(self):
        pointer, self.pointer = self.pointer, None
        if pointer:
            try:
                self._release(pointer)
            except Exception:  # interpreter shutdown: the library may already be gone
                pass


def owned_value(pointer):
    return Handle(ctypes.c_void_p(pointer), api().ReleaseValue_unchecked)


def memory_name(device_type):
    """The C ABI's memory name of a device_type string ('cpu', 'cuda', 'testdevice'), an
    OrtDevice or an OrtMemoryInfo."""
    return _device.memory_name(device_type)


def is_cpu_device(device_type):
    return memory_name(device_type) == "Cpu"


_cpu_info = None


def cpu_memory_info():
    """A CPU PrismMemoryInfo kept for the life of the process."""
    global _cpu_info
    if _cpu_info is None:
        handle = _P()
        api().check(api().CreateCpuMemoryInfo(_DEVICE_ALLOCATOR, _MEM_DEFAULT, ctypes.byref(handle)))
        _cpu_info = Handle(handle, api().ReleaseMemoryInfo)
    return _cpu_info.pointer


def make_memory_info(device_type, device_id):
    """An owned PrismMemoryInfo for onnxruntime's (device_type, device_id); an OrtDevice or
    OrtMemoryInfo brings its own device id."""
    name = memory_name(device_type)
    device_id = _device.device_id_of(device_type, device_id)
    handle = _P()
    if name == "Cpu":
        api().check(api().CreateCpuMemoryInfo(_DEVICE_ALLOCATOR, _MEM_DEFAULT, ctypes.byref(handle)))
    else:
        api().check(api().CreateMemoryInfo(name.encode("utf-8"), _DEVICE_ALLOCATOR, int(device_id),
                                           _MEM_DEFAULT, ctypes.byref(handle)))
    return Handle(handle, api().ReleaseMemoryInfo)


def _shape_array(shape):
    dims = [int(d) for d in shape]
    for d in dims:
        if d < 0:
            raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : negative dimension in "
                                  "shape %s" % (dims,))
    return (ctypes.c_int64 * max(len(dims), 1))(*dims), len(dims)


def _default_allocator():
    allocator = _P()
    api().check(api().GetAllocatorWithDefaultOptions(ctypes.byref(allocator)))
    return allocator


def _encode_string(item):
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode("utf-8")
    if isinstance(item, np.bytes_):
        return bytes(item)
    if isinstance(item, np.str_):
        return str(item).encode("utf-8")
    raise TypeError("a string tensor element must be str or bytes, got %s" % type(item).__name__)


def _string_tensor(array):
    """An owned PrismValue holding a copy of a str/bytes/object array."""
    shape, rank = _shape_array(array.shape)
    handle = _P()
    api().check(api().CreateTensorAsValue(_default_allocator(), shape, rank, _types.STRING,
                                          ctypes.byref(handle)))
    value = Handle(handle, api().ReleaseValue)
    encoded = [_encode_string(item) for item in array.reshape(-1)]
    count = len(encoded)
    buffers = [ctypes.create_string_buffer(item, len(item)) for item in encoded]
    pointers = (ctypes.c_void_p * max(count, 1))(*[ctypes.addressof(b) for b in buffers])
    lengths = (ctypes.c_size_t * max(count, 1))(*[len(item) for item in encoded])
    api().check(api().FillStringTensor(value.pointer, pointers, lengths, count))
    return value


def _native_contiguous(array):
    if array.dtype.byteorder not in ("=", "|"):
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:
        array = array.copy(order="C")
    return array


def tensor_from_numpy(array, element_type=None, memory_info=None):
    """Wraps a numpy array as a PrismValue. Returns (handle, buffer): the value reads the buffer
    in place, so the buffer must outlive it. Strings and packed types are copied."""
    array = np.asarray(array)
    if element_type is None:
        element_type = _types.element_type_of_dtype(array.dtype)
    if element_type == _types.STRING:
        return _string_tensor(array), None
    if array.dtype != _types.numpy_dtype(element_type):
        array = array.astype(_types.numpy_dtype(element_type))
    if element_type in _types.PACKED_BITS:
        buffer = _types.pack(_native_contiguous(array), element_type)
    else:
        buffer = _native_contiguous(array)
    shape, rank = _shape_array(array.shape)
    handle = _P()
    api().check(api().CreateTensorWithDataAsValue(
        memory_info if memory_info is not None else cpu_memory_info(),
        ctypes.c_void_p(buffer.ctypes.data), buffer.nbytes, shape, rank, element_type,
        ctypes.byref(handle)))
    return Handle(handle, api().ReleaseValue), buffer


# Numpy dtypes (native byte order) whose arrays the core reads in place as they are: every
# fixed-size type but strings and the packed sub-byte ones.
_PLAIN_ELEMENT_TYPES = {dtype: element_type for dtype, element_type in _types._TYPE_OF_DTYPE.items()
                        if element_type != _types.STRING and
                        element_type not in _types.PACKED_BITS}
_PLAIN_DTYPES = {element_type: dtype for dtype, element_type in _PLAIN_ELEMENT_TYPES.items()}
_SHAPE_TYPES = [ctypes.c_int64 * max(rank, 1) for rank in range(9)]
_BYTE = ctypes.c_char


def tensor_from_plain_numpy(array):
    """tensor_from_numpy's common case in one C call: a C-contiguous numpy array of a plain
    element type, read in place (the caller keeps the array alive). None for any other array."""
    element_type = _PLAIN_ELEMENT_TYPES.get(array.dtype)
    if element_type is None or not array.flags.c_contiguous:
        return None
    shape = array.shape
    rank = len(shape)
    if rank >= len(_SHAPE_TYPES):
        return None
    try:
        data = ctypes.addressof(_BYTE.from_buffer(array))  # half the cost of array.ctypes.data
    except (TypeError, ValueError):  # read-only, empty, or a dtype the buffer protocol lacks
        data = array.ctypes.data
    handle = _P()
    c = api()
    c.check(c.CreateTensorWithDataAsValue_unchecked(
        cpu_memory_info(), ctypes.c_void_p(data), ctypes.c_size_t(array.nbytes),
        _SHAPE_TYPES[rank](*shape), ctypes.c_size_t(rank), ctypes.c_int(element_type),
        ctypes.byref(handle)))
    return Handle(handle, c.ReleaseValue_unchecked)


def plain_feed_address(array):
    """The data address of a C-contiguous numpy array of a plain element type and a rank the
    one-call run takes (RunWithBuffers' feeds: PrismTensorBuffer), or None for any other array.
    The caller keeps the array alive and unchanged during the run and the reading of its
    results."""
    if (array.dtype not in _PLAIN_ELEMENT_TYPES or not array.flags.c_contiguous or
            array.ndim >= len(_SHAPE_TYPES)):
        return None
    try:
        return ctypes.addressof(_BYTE.from_buffer(array))  # half the cost of array.ctypes.data
    except (TypeError, ValueError):  # read-only, empty, or a dtype the buffer protocol lacks
        return array.ctypes.data


PLAIN_ELEMENT_TYPES = _PLAIN_ELEMENT_TYPES  # numpy dtype -> element type, plain_feed_address's


# Results at least this large are handed over without a copy: the array views the result's own
# buffer and keeps the C value alive (as onnxruntime's arrays keep their OrtValue); below it a
# copy costs less than the view's bookkeeping.
ADOPT_BYTES = 1 << 16


def plain_result(description, dims, pointer):
    """A numpy array of a result RunWithBuffers described (a ValueDescription, the call's dims
    array, the owned PrismValue pointer), when it is a non-empty CPU tensor of a plain element
    type whose dims were written; None for anything else (to_python reads it). A result of
    ADOPT_BYTES or more that alone holds its memory (sole_owner: not an initializer's, a feed's
    or another result's) is adopted: the array views its buffer and owns the value (the caller
    must not release it); the others are copied. Returns (array or None, adopted)."""
    if (description.kind != _KIND_TENSOR or description.device_type != _DEVICE_CPU or
            description.dims_offset == DIMS_NOT_WRITTEN):
        return None, False
    size = description.size_in_bytes
    dtype = _PLAIN_DTYPES.get(description.element_type)
    if not size or dtype is None:
        return None, False
    # The library sizes a plain tensor as its element count times the element size; a view
    # larger than its buffer would be refused by numpy.
    offset = description.dims_offset
    shape = dims[offset:offset + description.rank]
    data = description.data
    if size < ADOPT_BYTES or not description.sole_owner:
        return _copy_out(data, size, dtype, shape), False
    buffer = (_BYTE * size).from_address(data)
    buffer.owner = Handle(ctypes.c_void_p(pointer), api().ReleaseValue_unchecked)
    return np.ndarray(shape, dtype, buffer), True


def value_from_python(item):
    """A PrismValue for a feed: an OrtValue, a numpy array (or anything np.asarray takes), a list
    of arrays for sequence inputs, or None for an empty optional. Returns (handle, keepalive)."""
    if isinstance(item, OrtValue):
        return item._handle, item
    if item is None:
        handle = _P()
        api().check(api().CreateEmptyOptionalValue(ctypes.byref(handle)))
        return Handle(handle, api().ReleaseValue), None
    return tensor_from_numpy(item)


def sequence_from_list(items, map_types=None):
    """A sequence of tensors from arrays, or with map_types (key, value element types) a
    sequence of maps from dicts. Returns (handle, keepalive)."""
    if map_types is not None:
        elements = [(map_from_dict(item, *map_types), None) for item in items]
    else:
        elements = [tensor_from_numpy(item) for item in items]
    pointers = (ctypes.c_void_p * max(len(elements), 1))(*[e[0].pointer.value for e in elements])
    handle = _P()
    api().check(api().CreateSequenceValue(pointers, len(elements), ctypes.byref(handle)))
    return Handle(handle, api().ReleaseValue), elements


_MAP_TYPE = re.compile(r"^(?:seq\()?map\((\w+),tensor\((\w+)\)\)\)?$")


def map_types(type_string):
    """(key, value) element types of 'map(K,tensor(V))' or 'seq(map(K,tensor(V)))', or None."""
    match = _MAP_TYPE.match(type_string or "")
    if match is None:
        return None
    return _types.element_type_of(match.group(1)), _types.element_type_of(match.group(2))


def _map_elements(items, element_type, what):
    """A 1-D numpy array of items for a map's keys or values, refusing Python values that do not
    fit element_type (onnxruntime refuses them too)."""
    if element_type == _types.STRING:
        for item in items:
            if not isinstance(item, (str, bytes, np.str_, np.bytes_)):
                raise TypeError("map %s of type string must be str, got %s" %
                                (what, type(item).__name__))
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array
    for item in items:
        if isinstance(item, (str, bytes, np.str_, np.bytes_)) or not isinstance(
                item, (numbers.Number, np.number)):
            raise TypeError("map %s of type %s must be numbers, got %s" %
                            (what, _types.TYPE_NAMES[element_type], type(item).__name__))
    return np.array(items, dtype=_types.numpy_dtype(element_type)).reshape(len(items))


def map_from_dict(item, key_type, value_type):
    """An owned PrismValue map(key_type, tensor(value_type)) holding a copy of a dict."""
    if not isinstance(item, dict):
        raise TypeError("a map input takes a dict, got %s" % type(item).__name__)
    keys, _ = tensor_from_numpy(_map_elements(list(item.keys()), key_type, "keys"), key_type)
    values, _ = tensor_from_numpy(_map_elements(list(item.values()), value_type, "values"),
                                  value_type)
    handle = _P()
    api().check(api().CreateMapValue(keys.pointer, values.pointer, ctypes.byref(handle)))
    return Handle(handle, api().ReleaseValue)


def value_kind(pointer):
    kind = ctypes.c_int(0)
    api().check(api().GetValueKind(pointer, ctypes.byref(kind)))
    return kind.value


def has_value(pointer):
    flag = ctypes.c_int(0)
    api().check(api().ValueHasValue(pointer, ctypes.byref(flag)))
    return bool(flag.value)


def tensor_type_and_shape(pointer):
    info = _P()
    api().check(api().GetTensorTypeAndShape(pointer, ctypes.byref(info)))
    try:
        element_type = ctypes.c_int(0)
        api().check(api().TensorInfoGetElementType(info, ctypes.byref(element_type)))
        rank = ctypes.c_int64(0)
        api().check(api().TensorInfoGetRank(info, ctypes.byref(rank)))
        dims = (ctypes.c_int64 * max(rank.value, 1))()
        api().check(api().TensorInfoGetDimensions(info, dims, max(rank.value, 0)))
        return element_type.value, [dims[i] for i in range(max(rank.value, 0))]
    finally:
        api().ReleaseTensorTypeAndShapeInfo(info)


def tensor_memory(pointer):
    """(memory name, device id, PrismDeviceType) of a tensor value."""
    info = _P()
    api().check(api().GetTensorMemoryInfo(pointer, ctypes.byref(info)))
    name = ctypes.c_char_p()
    api().check(api().MemoryInfoGetName(info, ctypes.byref(name)))
    device_id = ctypes.c_int(0)
    api().check(api().MemoryInfoGetId(info, ctypes.byref(device_id)))
    device_type = ctypes.c_int(0)
    api().check(api().MemoryInfoGetDeviceType(info, ctypes.byref(device_type)))
    return decode(name.value), device_id.value, device_type.value


def copy_to_cpu(pointer, session):
    """An owned CPU copy of a value in device memory: through the session that made it, else
    through the environment (device values made with ortvalue_from_numpy and the like)."""
    copy = _P()
    if session is not None:
        api().check(api().SessionCopyValueToCpu(session.pointer, pointer, ctypes.byref(copy)))
        return Handle(copy, api().ReleaseValue)
    element_type, shape = tensor_type_and_shape(pointer)
    dims, rank = _shape_array(shape)
    api().check(api().CreateTensorAsValue(_default_allocator(), dims, rank, element_type,
                                          ctypes.byref(copy)))
    owned = Handle(copy, api().ReleaseValue)
    name, device_id, _ = tensor_memory(pointer)
    _env_allocators.device_allocator(name, device_id)  # the environment knows the device
    _env_allocators.copy_tensor(pointer, owned.pointer)
    return owned


def _device_tensor(memory_name, device_id, shape, element_type):
    """An owned tensor allocated in a device memory (the environment's allocator for it)."""
    if element_type == _types.STRING:
        raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : string tensors live in CPU "
                              "memory only, not on '%s'" % memory_name)
    allocator = _env_allocators.device_allocator(memory_name, device_id)
    dims, rank = _shape_array(shape)
    handle = _P()
    api().check(api().CreateTensorAsValue(allocator, dims, rank, element_type,
                                          ctypes.byref(handle)))
    return Handle(handle, api().ReleaseValue)


def _string_tensor_to_numpy(pointer, shape):
    count = int(np.prod(shape, dtype=np.int64))
    result = np.empty(count, dtype=object)
    data = ctypes.c_void_p()
    length = ctypes.c_size_t(0)
    for i in range(count):
        api().check(api().GetStringTensorElement(pointer, i, ctypes.byref(data),
                                                 ctypes.byref(length)))
        raw = ctypes.string_at(data.value, length.value) if length.value else b""
        try:
            result[i] = raw.decode("utf-8")
        except UnicodeDecodeError:
            result[i] = raw  # not UTF-8: hand back the bytes unchanged
    return result.reshape(shape)


class _Description(threading.local):
    """DescribeValue's out arguments, made once per thread (ctypes objects cost per call)."""

    def __init__(self):
        self.has_value = ctypes.c_int(0)
        self.kind = ctypes.c_int(0)
        self.element_type = ctypes.c_int(0)
        self.rank = ctypes.c_size_t(0)
        self.dims = (ctypes.c_int64 * 8)()
        self.capacity = ctypes.c_size_t(len(self.dims))
        self.size = ctypes.c_size_t(0)
        self.data = ctypes.c_void_p()
        self.device_type = ctypes.c_int(0)
        self.head = (ctypes.byref(self.has_value), ctypes.byref(self.kind),
                     ctypes.byref(self.element_type), ctypes.byref(self.rank))
        self.tail = (ctypes.byref(self.size), ctypes.byref(self.data),
                     ctypes.byref(self.device_type))


_description = _Description()


def describe(pointer):
    """One C call (DescribeValue): None for an empty optional, else (kind, element type, shape,
    size in bytes, data address or None, device type); tensors only have the last four set."""
    d = _description
    c = api()
    if type(pointer) is not ctypes.c_void_p:  # the unchecked call takes ctypes objects only
        pointer = ctypes.c_void_p(pointer)
    c.check(c.DescribeValue_unchecked(pointer, *d.head, d.dims, d.capacity, *d.tail))
    if not d.has_value.value:
        return None
    rank = d.rank.value
    dims = d.dims
    if rank > len(dims):
        dims = (ctypes.c_int64 * rank)()
        c.check(c.DescribeValue_unchecked(pointer, *d.head, dims, ctypes.c_size_t(rank), *d.tail))
    return (d.kind.value, d.element_type.value, dims[:rank], d.size.value, d.data.value,
            d.device_type.value)


def _element_count(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def _copy_out(data, size, dtype, shape):
    """A numpy copy of size bytes at data: a view of them in their shape, copied (one copy; half
    the cost of frombuffer and reshape, a third of an empty array and a memmove into it)."""
    return np.ndarray(shape, dtype, (_BYTE * size).from_address(data)).copy()


def _cpu_tensor_to_numpy(pointer, description=None):
    _, element_type, shape, size, data, _ = description or describe(pointer)
    if element_type == _types.STRING:
        return _string_tensor_to_numpy(pointer, shape)
    if element_type in _types.PACKED_BITS:
        packed = np.empty(size, dtype=np.uint8)
        if size:
            ctypes.memmove(packed.ctypes.data, data, size)
        return _types.unpack(packed, element_type, shape)
    dtype = _types.numpy_dtype(element_type)
    if size and size == dtype.itemsize * _element_count(shape):
        return _copy_out(data, size, dtype, shape)
    result = np.empty(shape, dtype=dtype)
    if result.nbytes != size:
        raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : tensor of %s %s holds %d "
                              "bytes, expected %d" % (_types.type_string(element_type), shape,
                                                      size, result.nbytes))
    if size:
        ctypes.memmove(result.ctypes.data, data, size)
    return result


def tensor_to_numpy(pointer, session=None, description=None):
    """A numpy copy of a tensor value, copied to the CPU first when it lives on a device."""
    description = description or describe(pointer)
    if description[5] != _DEVICE_CPU:
        copy = copy_to_cpu(pointer, session)
        return _cpu_tensor_to_numpy(copy.pointer)
    return _cpu_tensor_to_numpy(pointer, description)


def _map_part(pointer, getter):
    part = _P()
    api().check(getter(pointer, ctypes.byref(part)))
    owned = Handle(part, api().ReleaseValue)
    return _cpu_tensor_to_numpy(owned.pointer).tolist()


def map_to_dict(pointer):
    """A map value as onnxruntime returns it: a dict of Python keys (int or str) and values
    (float, int or str), in ascending key order."""
    keys = _map_part(pointer, api().GetMapKeys)
    values = _map_part(pointer, api().GetMapValues)
    return dict(zip(keys, values))


def sequence_elements(pointer):
    """The owned element handles of a sequence."""
    length = ctypes.c_size_t(0)
    api().check(api().GetSequenceLength(pointer, ctypes.byref(length)))
    elements = []
    for i in range(length.value):
        element = _P()
        api().check(api().GetSequenceElement(pointer, i, ctypes.byref(element)))
        elements.append(Handle(element, api().ReleaseValue))
    return elements


def to_python(pointer, session=None):
    """A run result as onnxruntime returns it: numpy array, list of arrays, dict (a map), list
    of dicts (a sequence of maps), or None."""
    description = describe(pointer)
    if description is None:
        return None
    kind, element_type, shape, size, data, device_type = description
    if kind == _KIND_TENSOR and device_type == _DEVICE_CPU and size:
        # The common result, a CPU tensor of a plain type: one copy out of its buffer.
        dtype = _PLAIN_DTYPES.get(element_type)
        if dtype is not None and size == dtype.itemsize * _element_count(shape):
            return _copy_out(data, size, dtype, shape)
    if kind == _KIND_TENSOR:
        return tensor_to_numpy(pointer, session, description)
    if kind == _KIND_MAP:
        return map_to_dict(pointer)
    if kind == _KIND_SEQUENCE:
        items = []
        for owned in sequence_elements(pointer):
            if value_kind(owned.pointer) == _KIND_MAP:
                items.append(map_to_dict(owned.pointer))
            else:
                items.append(tensor_to_numpy(owned.pointer, session))
        return items
    raise PrismNotImplemented("[PrismError] : 9 : NOT_IMPLEMENTED : values of kind %d (sparse "
                              "tensors) cannot be read through the C API" % kind)


def _data_type(pointer):
    kind = value_kind(pointer)
    if kind == _KIND_TENSOR:
        return _types.type_string(tensor_type_and_shape(pointer)[0])
    if kind == _KIND_MAP:
        key_type = _types.TYPE_NAMES[_map_part_type(pointer, api().GetMapKeys)]
        return "map(%s,%s)" % (key_type, _types.type_string(_map_part_type(pointer,
                                                                           api().GetMapValues)))
    if kind == _KIND_SEQUENCE:
        elements = sequence_elements(pointer)
        return "seq(%s)" % _data_type(elements[0].pointer) if elements else "seq"
    return "unknown"


def _map_part_type(pointer, getter):
    part = _P()
    api().check(getter(pointer, ctypes.byref(part)))
    owned = Handle(part, api().ReleaseValue)
    return tensor_type_and_shape(owned.pointer)[0]


class OrtValue:
    """A value the runtime can read: onnxruntime.OrtValue's interface over a PrismValue.

    CPU tensors made from numpy share the array's memory (as in onnxruntime) and keep it alive.
    """

    def __init__(self, handle, keepalive=None, session=None):
        self._handle = handle
        self._keepalive = keepalive
        self._session = session  # the C session able to copy this value to the CPU

    @staticmethod
    def ortvalue_from_numpy(numpy_obj, device_type="cpu", device_id=0, vendor_id=-1):
        """A CPU value shares the array's memory; a device value ('cuda', 'testdevice', an
        OrtDevice or OrtMemoryInfo) is a copy in that device's memory."""
        handle, buffer = tensor_from_numpy(numpy_obj)
        if is_cpu_device(device_type):
            return OrtValue(handle, (numpy_obj, buffer))
        element_type, shape = tensor_type_and_shape(handle.pointer)
        device = _device_tensor(memory_name(device_type),
                                _device.device_id_of(device_type, device_id), shape, element_type)
        _env_allocators.copy_tensor(handle.pointer, device.pointer)
        return OrtValue(device)

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(data, onnx_element_type):
        element_type = _types.element_type_of(onnx_element_type)
        handle, buffer = tensor_from_numpy(data, element_type)
        return OrtValue(handle, (data, buffer))

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type="cpu", device_id=0,
                                     vendor_id=-1):
        element = _types.element_type_of(element_type)
        if not is_cpu_device(device_type):
            return OrtValue(_device_tensor(memory_name(device_type),
                                           _device.device_id_of(device_type, device_id),
                                           list(shape), element))
        dims, rank = _shape_array(shape)
        handle = _P()
        api().check(api().CreateTensorAsValue(_default_allocator(), dims, rank, element,
                                              ctypes.byref(handle)))
        return OrtValue(Handle(handle, api().ReleaseValue))

    @staticmethod
    def from_dlpack(data, is_bool_tensor=None):
        """An OrtValue sharing the memory of a CPU tensor from another library, through DLPack:
        data is an object with __dlpack__ (numpy, PyTorch, an OrtValue) or a "dltensor" capsule.
        The producer's memory stays alive until this value is released. is_bool_tensor (as in
        onnxruntime's capi form) reads a uint8 tensor as bool; None takes it from data's dtype,
        as onnxruntime's OrtValue.from_dlpack does."""
        if is_bool_tensor is None:
            is_bool_tensor = _dlpack.is_bool_source(data)
        capsule = data.__dlpack__() if hasattr(data, "__dlpack__") else data
        return OrtValue(_dlpack.import_capsule(capsule, bool(is_bool_tensor)))

    def to_dlpack(self):
        """A DLPack capsule ("dltensor") over this CPU tensor's memory, shared, not copied; the
        value stays alive until the consumer is done with it."""
        return _dlpack.export_value(self)

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """The DLPack protocol's export, shared, not copied unless copy=True (stream is for
        device tensors; CPU tensors ignore it). A consumer asking for max_version >= (1, 0) gets
        a versioned, writable capsule ("dltensor_versioned"), others the legacy "dltensor"."""
        return _dlpack.dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """(DLDeviceType, device id): (1, 0) for CPU tensors."""
        return _dlpack.device_of(self)

    def _pointer(self):
        return self._handle.pointer

    def _require_tensor(self, what):
        if not self.is_tensor():
            raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : %s needs a tensor "
                                  "OrtValue" % what)

    def data_ptr(self):
        self._require_tensor("data_ptr()")
        data = ctypes.c_void_p()
        api().check(api().GetTensorMutableData(self._pointer(), ctypes.byref(data)))
        return data.value or 0

    def device_name(self):
        self._require_tensor("device_name()")
        return tensor_memory(self._pointer())[0].lower()

    def shape(self):
        self._require_tensor("shape()")
        return tensor_type_and_shape(self._pointer())[1]

    def element_type(self):
        self._require_tensor("element_type()")
        return tensor_type_and_shape(self._pointer())[0]

    def data_type(self):
        """onnxruntime's type string: "tensor(float)", "seq(tensor(int64))",
        "map(int64,tensor(float))", "seq(map(string,tensor(float)))" ("seq" when empty)."""
        if not self.has_value():
            return "optional"
        return _data_type(self._pointer())

    def has_value(self):
        return has_value(self._pointer())

    def is_tensor(self):
        return self.has_value() and value_kind(self._pointer()) == _KIND_TENSOR

    def is_tensor_sequence(self):
        """True for a sequence of tensors (a sequence of maps is not one, as in onnxruntime)."""
        if not self.has_value() or value_kind(self._pointer()) != _KIND_SEQUENCE:
            return False
        elements = sequence_elements(self._pointer())
        return not elements or value_kind(elements[0].pointer) == _KIND_TENSOR

    def is_sparse_tensor(self):
        return False

    def tensor_size_in_bytes(self):
        self._require_tensor("tensor_size_in_bytes()")
        size = ctypes.c_size_t(0)
        api().check(api().GetTensorSizeInBytes(self._pointer(), ctypes.byref(size)))
        return size.value

    def numpy(self):
        """A numpy copy of the value (copied from the device first when needed)."""
        if not self.has_value():
            raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : the OrtValue holds "
                                  "an empty optional")
        if not self.is_tensor():
            raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : numpy() needs a tensor "
                                  "OrtValue; this one holds %s" % self.data_type())
        return to_python(self._pointer(), self._session)

    def update_inplace(self, np_arr):
        """Overwrites the tensor's contents with a same-sized numpy array (copied to the device
        for a device tensor)."""
        self._require_tensor("update_inplace()")
        _, _, device_type = tensor_memory(self._pointer())
        element_type, shape = tensor_type_and_shape(self._pointer())
        source = np.asarray(np_arr)
        if element_type == _types.STRING or int(np.prod(source.shape, dtype=np.int64)) != int(
                np.prod(shape, dtype=np.int64)):
            raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : update_inplace needs a "
                                  "non-string array of %d elements, got shape %s" %
                                  (int(np.prod(shape, dtype=np.int64)), list(source.shape)))
        source = source.astype(_types.numpy_dtype(element_type), copy=False)
        if element_type in _types.PACKED_BITS:
            buffer = _types.pack(_native_contiguous(source), element_type)
        else:
            buffer = _native_contiguous(source)
        if device_type != _DEVICE_CPU:
            staged, _ = tensor_from_numpy(source.reshape(shape), element_type)
            name, device_id, _ = tensor_memory(self._pointer())
            _env_allocators.device_allocator(name, device_id)  # the environment knows the device
            _env_allocators.copy_tensor(staged.pointer, self._pointer())
            return
        if buffer.nbytes:
            ctypes.memmove(self.data_ptr(), buffer.ctypes.data, buffer.nbytes)

    def __repr__(self):
        if self.is_tensor():
            return "<prismrt.OrtValue %s %s on %s>" % (self.data_type(), self.shape(),
                                                       self.device_name())
        return "<prismrt.OrtValue %s>" % self.data_type()


class OrtValueVector:
    """A list of OrtValues (onnxruntime's capi OrtValueVector, the feeds and fetches of
    InferenceSession.run_with_ortvaluevector and IOBinding.get_outputs_as_ortvaluevector)."""

    def __init__(self, values=()):
        self._values = []
        for value in values:
            self.push_back(value)

    def push_back(self, value):
        if not isinstance(value, OrtValue):
            raise TypeError("OrtValueVector holds prismrt.OrtValue, got %s" %
                            type(value).__name__)
        self._values.append(value)

    def push_back_batch(self, values, *unused):
        """Appends OrtValues (onnxruntime's form takes arrays with pointers and shapes; only
        OrtValues are accepted here)."""
        del unused
        for value in values:
            self.push_back(value)

    def reserve(self, count):
        del count  # a Python list grows as needed

    def shrink_to_fit(self):
        pass

    def element_type_at(self, index):
        return self._values[index].element_type()

    def bool_tensor_indices(self):
        return [i for i, value in enumerate(self._values)
                if value.is_tensor() and value.element_type() == _types.BOOL]

    def dlpack_at(self, index):
        """The DLPack capsule of the value at index (see OrtValue.to_dlpack)."""
        return self._values[index].to_dlpack()

    def to_dlpacks(self, to_tensor=None):
        """A list with every value exported through DLPack: the capsules themselves when to_tensor
        is None, else to_tensor(capsule) for each (e.g. torch.utils.dlpack.from_dlpack)."""
        capsules = [value.to_dlpack() for value in self._values]
        if to_tensor is None:
            return capsules
        return [to_tensor(capsule) for capsule in capsules]

    def clear(self):
        self._values.clear()

    def __len__(self):
        return len(self._values)

    def __getitem__(self, index):
        return self._values[index]

    def __iter__(self):
        return iter(self._values)

    def __repr__(self):
        return "OrtValueVector(%r)" % (self._values,)
