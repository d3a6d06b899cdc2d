"""DLPack exchange of CPU tensors (OrtValue.from_dlpack / to_dlpack / __dlpack__ /
__dlpack_device__, OrtValueVector.dlpack_at / to_dlpacks), with numpy as the other side and
onnxruntime as the oracle where it supports the same call."""
import ctypes
import gc
import weakref

import numpy as np
import onnx
import onnxruntime
import pytest

import prismrt as ort
from prismrt.capi.onnxruntime_pybind11_state import InvalidArgument, PrismError

from conftest import add_relu_model, assert_close, identity_model

NUMERIC = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
           np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_]
# onnxruntime's DLPack converter rejects complex (DLPack code 5) and numpy's kDLBool (code 6).
ORT_NUMERIC = [t for t in NUMERIC if t not in (np.complex64, np.complex128, np.bool_)]


def sample(dtype, shape=(2, 3)):
    values = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if dtype == np.bool_:
        return values % 2 == 0
    return (values + 1).astype(dtype)


# --- A hand-made producer: a DLManagedTensor over a numpy array whose deleter counts its calls.

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

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAME = b"dltensor"


class Producer:
    """Owns a float32 array and exposes it as a "dltensor" capsule; counts deleter calls."""

    def __init__(self, array, device_type=1, code=2, bits=32, lanes=1, strides=None):
        self.array = array
        self.deleted = 0
        self.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self.managed = DLManagedTensor()
        tensor = self.managed.dl_tensor
        tensor.data = array.ctypes.data
        tensor.device = DLDevice(device_type, 0)
        tensor.ndim = array.ndim
        tensor.dtype = DLDataType(code, bits, lanes)
        tensor.shape = self.shape
        tensor.strides = self.strides
        self.deleter = DELETER(self._delete)
        self.managed.deleter = self.deleter

    def _delete(self, managed):
        assert ctypes.addressof(managed.contents) == ctypes.addressof(self.managed)
        self.deleted += 1

    def capsule(self):
        # No capsule destructor: an unconsumed capsule leaves the deleter uncalled.
        return _capsule_new(ctypes.addressof(self.managed), _NAME, None)


# --- Import (numpy -> OrtValue) and export (OrtValue -> numpy)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda t: np.dtype(t).name)
def test_round_trip_every_numeric_dtype(dtype):
    source = sample(dtype)
    value = ort.OrtValue.from_dlpack(source)
    assert value.data_ptr() == source.ctypes.data  # shared, not copied
    assert value.shape() == [2, 3]
    # The same element type as the numpy path (checked against onnxruntime in test_dtypes.py).
    assert value.data_type() == ort.OrtValue.ortvalue_from_numpy(source).data_type()
    np.testing.assert_array_equal(value.numpy(), source)
    back = np.from_dlpack(value)
    assert back.dtype == source.dtype and back.ctypes.data == source.ctypes.data
    np.testing.assert_array_equal(back, source)


@pytest.mark.parametrize("dtype", ORT_NUMERIC, ids=lambda t: np.dtype(t).name)
def test_import_matches_onnxruntime(dtype):
    source = sample(dtype, (3, 1, 2))
    ours = ort.OrtValue.from_dlpack(source)
    theirs = onnxruntime.OrtValue.from_dlpack(source)
    assert ours.data_type() == theirs.data_type()
    assert ours.shape() == theirs.shape()
    assert ours.__dlpack_device__() == theirs.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(np.from_dlpack(ours), np.from_dlpack(theirs))


def test_writes_are_seen_both_ways():
    source = np.zeros((2, 2), np.float32)
    value = ort.OrtValue.from_dlpack(source)
    source[0, 1] = 5.0
    assert value.numpy()[0, 1] == 5.0
    exported = np.from_dlpack(value)  # numpy asks for DLPack 1.0: a writable array
    assert exported.flags.writeable
    exported[1, 0] = 7.0
    assert source[1, 0] == 7.0 and value.numpy()[1, 0] == 7.0
    value.update_inplace(np.full((2, 2), 3.0, np.float32))
    np.testing.assert_array_equal(exported, np.full((2, 2), 3.0, np.float32))


def test_export_of_an_ortvalue_from_numpy_shares_its_array():
    array = np.arange(4, dtype=np.int64)
    value = ort.OrtValue.ortvalue_from_numpy(array)
    exported = np.from_dlpack(value)
    array[2] = 40
    assert exported[2] == 40


def test_bool_tensors():
    flags = np.array([True, False, True])
    # numpy exports bool as kDLBool; it is bool on the way in and on the way out.
    value = ort.OrtValue.from_dlpack(flags)
    assert value.data_type() == "tensor(bool)"
    back = np.from_dlpack(value)
    assert back.dtype == np.bool_
    np.testing.assert_array_equal(back, flags)
    # kDLUInt 8 is uint8 unless is_bool_tensor says bool, as in onnxruntime's capi.
    raw = np.array([1, 0, 1], np.uint8)
    assert ort.OrtValue.from_dlpack(raw.__dlpack__()).data_type() == "tensor(uint8)"
    assert ort.OrtValue.from_dlpack(raw.__dlpack__(), True).data_type() == "tensor(bool)"
    assert ort.OrtValue.from_dlpack(raw.__dlpack__(), False).data_type() == "tensor(uint8)"
    oracle = onnxruntime.capi.onnxruntime_pybind11_state.OrtValue
    assert oracle.from_dlpack(raw.__dlpack__(), True).data_type() == "tensor(bool)"
    np.testing.assert_array_equal(ort.OrtValue.from_dlpack(raw.__dlpack__(), True).numpy(),
                                  flags)
    # Importing a bool OrtValue (exported as kDLBool) keeps bool without the flag.
    assert ort.OrtValue.from_dlpack(value).data_type() == "tensor(bool)"


def test_zero_dim_and_empty_tensors():
    scalar = np.array(2.5, np.float32)
    value = ort.OrtValue.from_dlpack(scalar)
    assert value.shape() == [] and value.numpy() == 2.5
    back = np.from_dlpack(value)
    assert back.shape == () and back == 2.5
    for shape in [(0,), (0, 3), (2, 0, 4)]:
        empty = np.zeros(shape, np.float32)
        value = ort.OrtValue.from_dlpack(empty)
        assert value.shape() == list(shape)
        assert onnxruntime.OrtValue.from_dlpack(empty).shape() == list(shape)
        assert np.from_dlpack(value).shape == shape


def test_unit_dimensions_may_have_any_stride():
    # A transposed (3, 1) is still compact: strides of size-1 axes do not matter (onnxruntime
    # accepts it too).
    column = np.arange(3, dtype=np.float32).reshape(3, 1)
    row = column.T
    assert ort.OrtValue.from_dlpack(row).shape() == [1, 3]
    assert onnxruntime.OrtValue.from_dlpack(row).shape() == [1, 3]
    np.testing.assert_array_equal(ort.OrtValue.from_dlpack(row).numpy(), row)


def test_imported_value_as_session_input():
    model = add_relu_model()
    data = {name: np.random.RandomState(i).standard_normal((3, 4)).astype(np.float32)
            for i, name in enumerate("abc")}
    ref = onnxruntime.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
    sess = ort.InferenceSession(model.SerializeToString())
    feeds = {name: ort.OrtValue.from_dlpack(array) for name, array in data.items()}
    expected = ref.run(None, data)
    for got, want in zip(sess.run(None, feeds), expected):
        assert_close(got, want)
    # The run reads the producer's memory in place: a change shows in the next run.
    data["a"] += 1.0
    for got, want in zip(sess.run(None, feeds), ref.run(None, data)):
        assert_close(got, want)
    # run_with_ort_values takes them as well.
    outputs = sess.run_with_ort_values(["z"], feeds)
    assert_close(outputs[0].numpy(), ref.run(["z"], data)[0])


def test_identity_output_exported_to_numpy():
    sess = ort.InferenceSession(identity_model(onnx.TensorProto.FLOAT16, [2]).SerializeToString())
    x = np.array([1.5, -2.0], np.float16)
    (y,) = sess.run_with_ort_values(["y"], {"x": ort.OrtValue.ortvalue_from_numpy(x)})
    back = np.from_dlpack(y)
    assert back.dtype == np.float16
    np.testing.assert_array_equal(back, x)


# --- Lifetime


def test_producer_deleter_runs_once_after_the_value_is_gone():
    producer = Producer(np.arange(6, dtype=np.float32).reshape(2, 3))
    capsule = producer.capsule()
    value = ort.OrtValue.from_dlpack(capsule)
    assert repr(capsule).startswith('<capsule object "used_dltensor"')
    exported = np.from_dlpack(value)  # a second holder of the same memory
    del capsule, value
    gc.collect()
    assert producer.deleted == 0  # numpy still holds the exported tensor
    np.testing.assert_array_equal(exported, producer.array)
    del exported
    gc.collect()
    assert producer.deleted == 1
    gc.collect()
    assert producer.deleted == 1


def test_producer_deleter_runs_once_after_a_session_used_the_value():
    producer = Producer(np.ones((3, 4), np.float32))
    value = ort.OrtValue.from_dlpack(producer.capsule())
    sess = ort.InferenceSession(add_relu_model().SerializeToString())
    ones = np.ones((3, 4), np.float32)
    z, s = sess.run(None, {"a": value, "b": ones, "c": ones})
    np.testing.assert_array_equal(s, np.full((3, 4), 2.0, np.float32))
    assert producer.deleted == 0
    del value
    gc.collect()
    assert producer.deleted == 1


def test_exported_value_lives_until_the_consumer_lets_go():
    value = ort.OrtValue.ortvalue_from_numpy(np.arange(5, dtype=np.float64))
    handle = _weak_handle(value)
    first = np.from_dlpack(value)
    second = np.from_dlpack(value)
    del value
    gc.collect()
    assert handle() is not None
    np.testing.assert_array_equal(first, np.arange(5.0))
    del first
    gc.collect()
    assert handle() is not None  # second still holds it
    del second
    gc.collect()
    assert handle() is None


def test_unconsumed_capsule_releases_the_value():
    value = ort.OrtValue.ortvalue_from_numpy(np.arange(3, dtype=np.int32))
    handle = _weak_handle(value)
    capsules = [value.to_dlpack(), value.__dlpack__(), value.__dlpack__(max_version=(1, 0))]
    assert [repr(c).split('"')[1] for c in capsules] == ["dltensor", "dltensor",
                                                         "dltensor_versioned"]
    del value
    gc.collect()
    assert handle() is not None
    del capsules
    gc.collect()
    assert handle() is None


def test_capsule_consumed_by_prismrt_releases_the_exporter():
    value = ort.OrtValue.ortvalue_from_numpy(np.arange(3, dtype=np.int32))
    handle = _weak_handle(value)
    imported = ort.OrtValue.from_dlpack(value.to_dlpack())
    assert imported.data_ptr() == value.data_ptr()
    del value
    gc.collect()
    assert handle() is not None
    np.testing.assert_array_equal(imported.numpy(), [0, 1, 2])
    del imported
    gc.collect()
    assert handle() is None


def _weak_handle(value):
    return weakref.ref(value._handle)


# --- OrtValueVector


def test_ortvaluevector_dlpack_at_and_to_dlpacks():
    arrays = [np.arange(3, dtype=np.float32), np.array([[1, 2]], np.int64)]
    vector = ort.OrtValueVector([ort.OrtValue.ortvalue_from_numpy(a) for a in arrays])
    capsule = vector.dlpack_at(1)
    np.testing.assert_array_equal(ort.OrtValue.from_dlpack(capsule).numpy(), arrays[1])
    capsules = vector.to_dlpacks(None)
    assert len(capsules) == 2 and all(repr(c).startswith('<capsule object "dltensor"')
                                      for c in capsules)
    tensors = vector.to_dlpacks(lambda c: ort.OrtValue.from_dlpack(c).numpy())
    for got, want in zip(tensors, arrays):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(IndexError):
        vector.dlpack_at(5)


# --- Errors


def test_non_compact_strides_are_refused():
    matrix = np.arange(6, dtype=np.float32).reshape(2, 3)
    for view in (matrix.T, matrix[:, ::2]):
        with pytest.raises(InvalidArgument, match=r"strides \[1, 3\]|strides \[3, 2\]"):
            ort.OrtValue.from_dlpack(view)
        with pytest.raises(RuntimeError, match="contiguous"):  # onnxruntime refuses as well
            onnxruntime.OrtValue.from_dlpack(view)


def test_non_cpu_device_is_refused_and_the_producer_keeps_ownership():
    producer = Producer(np.zeros(4, np.float32), device_type=2)  # kDLCUDA
    capsule = producer.capsule()
    with pytest.raises(PrismError, match="kDLCUDA"):
        ort.OrtValue.from_dlpack(capsule)
    assert repr(capsule).startswith('<capsule object "dltensor"')  # not consumed
    gc.collect()
    assert producer.deleted == 0


@pytest.mark.parametrize("code,bits,lanes,named", [
    (2, 8, 1, "kDLFloat bits=8"), (3, 64, 1, "kDLOpaqueHandle"), (2, 32, 4, "lanes=4"),
    (9, 8, 1, "code 9")])
def test_unsupported_dtype_is_refused(code, bits, lanes, named):
    producer = Producer(np.zeros(4, np.float32), code=code, bits=bits, lanes=lanes)
    with pytest.raises(InvalidArgument, match=named):
        ort.OrtValue.from_dlpack(producer.capsule())
    gc.collect()
    assert producer.deleted == 0


def test_bad_capsules_are_refused():
    with pytest.raises(TypeError, match="got int"):
        ort.OrtValue.from_dlpack(5)
    capsule = np.ones(3).__dlpack__()
    ort.OrtValue.from_dlpack(capsule)
    with pytest.raises(TypeError, match="already used"):
        ort.OrtValue.from_dlpack(capsule)
    with pytest.raises(TypeError):  # onnxruntime also refuses a consumed capsule
        onnxruntime.OrtValue.from_dlpack(capsule)


def test_strings_cannot_be_exported():
    value = ort.OrtValue.ortvalue_from_numpy(np.array(["a", "b"], dtype=object))
    with pytest.raises(InvalidArgument, match=r"tensor\(string\)"):
        value.to_dlpack()


def test_device_values_cannot_be_exported(add_relu_path):
    sess = ort.InferenceSession(add_relu_path, providers=[
        ("TestExecutionProvider", {"ops": "Add,Relu"}), "CPUExecutionProvider"])
    binding = sess.io_binding()
    for name in "abc":
        binding.bind_cpu_input(name, np.ones((2, 4), np.float32))
    binding.bind_output("s", "TestDevice", 0)
    sess.run_with_iobinding(binding)
    device_value = binding.get_outputs()[0]
    with pytest.raises(PrismError, match="'TestDevice' memory"):
        device_value.__dlpack_device__()
    with pytest.raises(PrismError, match="CPU tensors only"):
        np.from_dlpack(device_value)


def test_protocol_keywords_copy_and_device():
    array = np.arange(4, dtype=np.float32)
    value = ort.OrtValue.ortvalue_from_numpy(array)
    copied = np.from_dlpack(value, copy=True)  # numpy passes copy=True to __dlpack__
    np.testing.assert_array_equal(copied, array)
    array[0] = 9.0
    assert copied[0] == 0.0  # a copy: the write does not show
    shared = np.from_dlpack(value, copy=False)
    array[1] = 8.0
    assert shared[1] == 8.0
    with pytest.raises(BufferError, match=r"device \(2, 0\)"):
        value.__dlpack__(dl_device=(2, 0))
    assert repr(value.__dlpack__(dl_device=(1, 0))).startswith('<capsule object "dltensor"')
