"""onnxruntime's memory and device descriptions (OrtMemoryInfo, OrtDevice) and their enums.

An OrtMemoryInfo holds a PrismMemoryInfo made by the C ABI (CreateMemoryInfo); both it and an
OrtDevice are accepted wherever prismrt takes a device_type ('cpu', 'cuda', 'testdevice'):
IOBinding.bind_input/bind_output, OrtValue.ortvalue_from_numpy,
InferenceSession.create_ortvalue_from_shape_and_type.
"""
import ctypes
import enum

from ._c_api import _P, api, decode


class OrtMemType(enum.IntEnum):
    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1  # onnxruntime's alias of CPU_OUTPUT
    DEFAULT = 0


class OrtAllocatorType(enum.IntEnum):
    INVALID = -1
    ORT_DEVICE_ALLOCATOR = 0
    ORT_ARENA_ALLOCATOR = 1


class OrtMemoryInfoDeviceType(enum.IntEnum):
    CPU = 0
    GPU = 1
    FPGA = 2
    NPU = 3


class OrtDeviceMemoryType(enum.IntEnum):
    DEFAULT = 0
    HOST_ACCESSIBLE = 5


class OrtDeviceVendorId(enum.IntEnum):
    NONE = 0
    AMD = 0x1002
    NVIDIA = 0x10DE
    ARM = 0x13B5
    MICROSOFT = 0x1414
    HUAWEI = 0x19E5
    QUALCOMM = 0x5143
    INTEL = 0x8086


# onnxruntime's device names (any case) -> (Prism's memory name, OrtDevice device type).
# "testdevice" is Prism's simulated device memory (the TestExecutionProvider plugin).
_DEVICES = {
    "cpu": ("Cpu", 0),
    "cuda": ("Cuda", 1),
    "gpu": ("Cuda", 1),
    "cuda_pinned": ("CudaPinned", 0),
    "testdevice": ("TestDevice", 4),
}


def memory_name(device):
    """The C ABI memory name of onnxruntime's device_type string, an OrtDevice or an
    OrtMemoryInfo."""
    if isinstance(device, (OrtDevice, OrtMemoryInfo)):
        return device._memory_name
    if not isinstance(device, str):
        raise TypeError("device_type must be a string such as 'cpu' or 'cuda', an OrtDevice or an "
                        "OrtMemoryInfo, got %r" % (device,))
    known = _DEVICES.get(device.lower())
    return known[0] if known is not None else device


def device_id_of(device, device_id):
    """The device id an OrtDevice or OrtMemoryInfo carries, else the one given."""
    if isinstance(device, OrtDevice):
        return device.device_id()
    if isinstance(device, OrtMemoryInfo):
        return device.device_id
    return device_id


class OrtMemoryInfo:
    """Where a tensor lives (onnxruntime.OrtMemoryInfo): name ('Cpu', 'Cuda', 'CudaPinned', an
    EP's memory such as 'TestDevice'), allocator type, device id and memory type."""

    def __init__(self, name, allocator_type, device_id, mem_type):
        if not isinstance(name, str):
            raise TypeError("OrtMemoryInfo name must be a str, got %r" % (name,))
        self._allocator_type = OrtAllocatorType(int(allocator_type))
        mem = OrtMemType(int(mem_type))
        handle = _P()
        c = api()
        c.check(c.CreateMemoryInfo(name.encode("utf-8"), max(int(self._allocator_type), 0),
                                   int(device_id), int(mem), ctypes.byref(handle)))
        from ._value import Handle  # noqa: PLC0415 (_value imports this module)
        self._handle = Handle(handle, c.ReleaseMemoryInfo)
        self._device_mem_type = OrtDeviceMemoryType.DEFAULT
        self._vendor_id = 0

    @staticmethod
    def create_v2(name, device_type, vendor_id, device_id, mem_type, alignment, allocator_type):
        """onnxruntime's CreateMemoryInfo_V2 form: device type, vendor and device memory type
        are recorded as given; the memory is found by name."""
        del device_type, alignment  # Prism finds the device from the memory's name
        info = OrtMemoryInfo(name, allocator_type, device_id, OrtMemType.DEFAULT)
        info._device_mem_type = OrtDeviceMemoryType(int(mem_type))
        info._vendor_id = int(vendor_id)
        return info

    @property
    def _memory_name(self):
        return self.name

    def _get(self, getter, ctype):
        out = ctype()
        api().check(getter(self._handle.pointer, ctypes.byref(out)))
        return out.value

    @property
    def name(self):
        return decode(self._get(api().MemoryInfoGetName, ctypes.c_char_p))

    @property
    def device_id(self):
        return self._get(api().MemoryInfoGetId, ctypes.c_int)

    @property
    def mem_type(self):
        return OrtMemType(self._get(api().MemoryInfoGetMemType, ctypes.c_int))

    @property
    def allocator_type(self):
        return self._allocator_type

    @property
    def device_mem_type(self):
        return self._device_mem_type

    @property
    def device_vendor_id(self):
        return self._vendor_id

    def _device_type(self):
        # PrismDeviceType numbers CPU, GPU, FPGA and NPU as onnxruntime's OrtDevice does.
        return self._get(api().MemoryInfoGetDeviceType, ctypes.c_int)

    def __repr__(self):
        return "OrtMemoryInfo(name=%r, allocator_type=%s, device_id=%d, mem_type=%s)" % (
            self.name, self.allocator_type.name, self.device_id, self.mem_type.name)


class OrtDevice:
    """A device (onnxruntime.OrtDevice): made with OrtDevice.make('cpu' | 'cuda' |
    'testdevice' | a memory name, device_id)."""

    def __init__(self, memory, device_type, device_id, vendor_id=0):
        self._memory_name = memory
        self._device_type = int(device_type)
        self._device_id = int(device_id)
        self._vendor_id = int(vendor_id)

    @staticmethod
    def make(ort_device_name, device_id, vendor_id=-1):
        if not isinstance(ort_device_name, str):
            raise TypeError("ort_device_name must be a str, got %r" % (ort_device_name,))
        known = _DEVICES.get(ort_device_name.lower())
        if known is None:
            # Any memory name the C ABI knows (an EP's device memory): its device type is the
            # memory's.
            info = OrtMemoryInfo(ort_device_name, OrtAllocatorType.ORT_DEVICE_ALLOCATOR,
                                 int(device_id), OrtMemType.DEFAULT)
            known = (ort_device_name, info._device_type())
        return OrtDevice(known[0], known[1], device_id, max(int(vendor_id), 0))

    def device_id(self):
        return self._device_id

    def device_type(self):
        return self._device_type

    def device_vendor_id(self):
        return self._vendor_id

    def device_mem_type(self):
        return int(OrtDeviceMemoryType.DEFAULT)

    def __repr__(self):
        return "OrtDevice(%r, device_id=%d)" % (self._memory_name, self._device_id)
