"""Allocators the process's environment shares (onnxruntime.create_and_register_allocator(_v2),
OrtArenaCfg), and device memory outside a session (OrtValue.ortvalue_from_numpy(x, 'cuda', 0)).

Sessions use a registered allocator only when their options set the config entry
session.use_env_allocators to "1", as in onnxruntime. A device OrtValue needs an allocator and a
copy for its memory: the first device value of a memory registers the allocator of the EP that
owns it (CUDAExecutionProvider for 'cuda', TestExecutionProvider for 'testdevice') with the
environment, unless one is registered already, and copies go through the environment
(CopyTensors).
"""
import ctypes
import threading

from ._c_api import _P, api, env
from ._device import OrtAllocatorType, OrtMemoryInfo, OrtMemType

# OrtArenaCfg's fields in the order of its 4-argument constructor, then the rest.
_ARENA_FIELDS = ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes",
                 "max_dead_bytes_per_chunk", "initial_growth_chunk_size_bytes",
                 "max_power_of_two_extend_bytes")

# The EP that owns each device memory name, for device values made without a session.
_PROVIDER_OF_MEMORY = {
    "Cuda": "CUDAExecutionProvider",
    "TestDevice": "TestExecutionProvider",
}


class OrtArenaCfg:
    """onnxruntime.OrtArenaCfg: OrtArenaCfg(max_mem, arena_extend_strategy,
    initial_chunk_size_bytes, max_dead_bytes_per_chunk) or OrtArenaCfg(dict). -1 means the
    default. Prism's arena has no counterpart for max_dead_bytes_per_chunk,
    initial_growth_chunk_size_bytes and max_power_of_two_extend_bytes: registering an allocator
    with any of them set (not -1) raises."""

    # The defaults, as onnxruntime's (instances set their own).
    max_mem = 0
    arena_extend_strategy = -1
    initial_chunk_size_bytes = -1
    max_dead_bytes_per_chunk = -1
    initial_growth_chunk_size_bytes = -1
    max_power_of_two_extend_bytes = -1

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], dict):
            for key, value in args[0].items():
                if key not in _ARENA_FIELDS:
                    raise RuntimeError("Invalid OrtArenaCfg option: %s" % key)
                setattr(self, key, int(value))
        elif len(args) == 4:
            for field, value in zip(_ARENA_FIELDS, args):
                setattr(self, field, int(value))
        else:
            raise TypeError("OrtArenaCfg takes (max_mem, arena_extend_strategy, "
                            "initial_chunk_size_bytes, max_dead_bytes_per_chunk) or a dict, got "
                            "%d arguments" % len(args))

    def _pairs(self):
        """The fields set away from their defaults (max_mem 0, the rest -1), as strings: an
        arena config of defaults is no config, so it may go with a non-arena allocator."""
        pairs = {}
        for field in _ARENA_FIELDS:
            value = int(getattr(self, field))
            if value != (0 if field == "max_mem" else -1):
                pairs[field] = str(value)
        return pairs

    def __repr__(self):
        return "OrtArenaCfg(%s)" % ", ".join("%s=%d" % (f, getattr(self, f))
                                             for f in _ARENA_FIELDS)


def _string_arrays(pairs):
    keys = [str(k).encode("utf-8") for k in pairs]
    values = [str(v).encode("utf-8") for v in pairs.values()]
    count = len(keys)
    return (ctypes.c_char_p * max(count, 1))(*keys), (ctypes.c_char_p * max(count, 1))(*values), \
        count


def _check_memory_info(mem_info):
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError("mem_info must be an OrtMemoryInfo, got %r" % (mem_info,))


def create_and_register_allocator(mem_info, arena_cfg):
    """Registers a CPU allocator with the environment, shared by sessions whose options set
    session.use_env_allocators to "1": an arena (configured by arena_cfg, an OrtArenaCfg or
    None) when mem_info's allocator type is ORT_ARENA_ALLOCATOR."""
    _check_memory_info(mem_info)
    pairs = arena_cfg._pairs() if arena_cfg is not None else {}
    keys, values, count = _string_arrays(pairs)
    api().check(api().CreateAndRegisterAllocator(env().handle, mem_info._handle.pointer, keys,
                                                 values, count))


def create_and_register_allocator_v2(provider_type, mem_info, provider_options, arena_cfg):
    """Registers the default-memory allocator of provider_type's EP (created with
    provider_options) with the environment, as create_and_register_allocator does for CPU
    memory. Device memory takes no arena settings (arena_cfg None or all defaults)."""
    _check_memory_info(mem_info)
    if not isinstance(provider_type, str):
        raise TypeError("provider_type must be a str, got %r" % (provider_type,))
    arena = arena_cfg._pairs() if arena_cfg is not None else {}
    arena_keys, arena_values, arena_count = _string_arrays(arena)
    option_keys, option_values, option_count = _string_arrays(dict(provider_options or {}))
    api().check(api().CreateAndRegisterAllocatorV2(
        env().handle, provider_type.encode("utf-8"), mem_info._handle.pointer, arena_keys,
        arena_values, arena_count, option_keys, option_values, option_count))


def shared_allocator_stats(mem_info):
    """The statistics of the allocator registered for mem_info's memory (a dict of ints), or
    None when none is registered. Prism's own; onnxruntime has no Python counterpart."""
    _check_memory_info(mem_info)
    from ._value import Handle  # noqa: PLC0415 (_value imports this module)
    allocator = _P()
    api().check(api().GetSharedAllocator(env().handle, mem_info._handle.pointer,
                                         ctypes.byref(allocator)))
    if not allocator:
        return None
    owned = Handle(allocator, api().ReleaseAllocator)
    keys = ctypes.POINTER(ctypes.c_char_p)()
    values = ctypes.POINTER(ctypes.c_char_p)()
    count = ctypes.c_size_t(0)
    api().check(api().AllocatorGetStats(owned.pointer, ctypes.byref(keys), ctypes.byref(values),
                                        ctypes.byref(count)))
    try:
        return {keys[i].decode("utf-8"): int(values[i]) for i in range(count.value)}
    finally:
        api().ReleaseStringArray(keys, count.value)
        api().ReleaseStringArray(values, count.value)


_device_lock = threading.Lock()
_device_allocators = {}  # (memory name, device id) -> owned PrismAllocator handle


def device_allocator(memory_name, device_id):
    """The environment's allocator for a device memory, registered from the EP owning that memory
    on first use. Raises when no EP of this build owns it or it cannot run here."""
    key = (memory_name, int(device_id))
    with _device_lock:
        if key in _device_allocators:
            return _device_allocators[key].pointer
        from ._value import Handle  # noqa: PLC0415 (_value imports this module)
        info = OrtMemoryInfo(memory_name, OrtAllocatorType.ORT_DEVICE_ALLOCATOR, int(device_id),
                             OrtMemType.DEFAULT)
        allocator = _P()
        api().check(api().GetSharedAllocator(env().handle, info._handle.pointer,
                                             ctypes.byref(allocator)))
        if not allocator:
            provider = _PROVIDER_OF_MEMORY.get(memory_name)
            if provider is None:
                from .capi.onnxruntime_pybind11_state import InvalidArgument  # noqa: PLC0415
                raise InvalidArgument(
                    "[PrismError] : 2 : INVALID_ARGUMENT : no execution provider is known to own "
                    "'%s' memory; register its allocator with create_and_register_allocator_v2"
                    " first" % memory_name)
            create_and_register_allocator_v2(provider, info, {"device_id": str(int(device_id))},
                                             None)
            api().check(api().GetSharedAllocator(env().handle, info._handle.pointer,
                                                 ctypes.byref(allocator)))
        _device_allocators[key] = Handle(allocator, api().ReleaseAllocator)
        return _device_allocators[key].pointer


def copy_tensor(source_pointer, destination_pointer):
    """Copies one tensor into another of the same type and shape through the environment (CPU
    and any device memory it has an allocator for)."""
    sources = (ctypes.c_void_p * 1)(source_pointer)
    destinations = (ctypes.c_void_p * 1)(destination_pointer)
    api().check(api().CopyTensors(env().handle, sources, destinations, 1))


def unregister_allocator(mem_info):
    """Removes the allocator registered for mem_info's memory (Prism's addition, from the C ABI's
    UnregisterAllocator; sessions holding it keep it)."""
    _check_memory_info(mem_info)
    with _device_lock:
        api().check(api().UnregisterAllocator(env().handle, mem_info._handle.pointer))
        _device_allocators.pop((mem_info.name, mem_info.device_id), None)


def copy_tensors(src, dst, stream=None):
    """onnxruntime.copy_tensors: copies each source OrtValue into the destination at the same
    position (same element type and shape, already allocated), between CPU memory and any device
    memory (the device's allocator is registered with the environment on first use). Every pair
    is checked before anything is copied. stream must be None: Prism exposes no device streams."""
    from ._value import OrtValue, tensor_memory  # noqa: PLC0415 (_value imports this module)
    if stream is not None:
        raise TypeError("copy_tensors: Prism has no device streams; stream must be None")
    src, dst = list(src), list(dst)
    if len(src) != len(dst):
        raise ValueError("copy_tensors needs as many destinations as sources: %d and %d" %
                         (len(src), len(dst)))
    for value in src + dst:
        if not isinstance(value, OrtValue):
            raise TypeError("copy_tensors takes prismrt.OrtValue objects, got %r" % (value,))
        if not value.is_tensor():
            raise TypeError("copy_tensors copies tensors; got a value of %s" % value.data_type())
        name, device_id, device_type = tensor_memory(value._pointer())
        if device_type != 0:
            device_allocator(name, device_id)  # the environment knows the device
    count = len(src)
    sources = (ctypes.c_void_p * max(count, 1))(*[v._pointer() for v in src])
    destinations = (ctypes.c_void_p * max(count, 1))(*[v._pointer() for v in dst])
    api().check(api().CopyTensors(env().handle, sources, destinations, count))
