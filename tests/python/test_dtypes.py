"""Every ONNX element type round-trips through run(), IOBinding and OrtValue (Identity models),
including 0-d, empty and non-contiguous arrays; onnxruntime is the oracle where its numpy
interface has the type."""
import ctypes

import ml_dtypes
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto

import prismrt as ort

from conftest import identity_model

# element type -> (numpy dtype, value maker, onnxruntime can run it through numpy)
_RNG = np.random.RandomState(1234)


def _floats(dtype, low=-4.0, high=4.0):
    return lambda shape: _RNG.uniform(low, high, size=shape).astype(np.float32).astype(dtype)


def _ints(dtype, low, high):
    return lambda shape: _RNG.randint(low, high + 1, size=shape).astype(np.int64).astype(dtype)


def _choice(dtype, values):
    return lambda shape: np.array(values, dtype=np.float32)[
        _RNG.randint(0, len(values), size=shape)].astype(dtype)


def _strings(shape):
    words = np.array(["", "prism", "héllo wörld", "日本語", "a\x00b", "x" * 40], dtype=object)
    return words[_RNG.randint(0, len(words), size=shape)]


def _complex(dtype):
    return lambda shape: (_RNG.standard_normal(shape) + 1j * _RNG.standard_normal(shape)).astype(
        dtype)


CASES = {
    "float": (TensorProto.FLOAT, _floats(np.float32), True),
    "uint8": (TensorProto.UINT8, _ints(np.uint8, 0, 255), True),
    "int8": (TensorProto.INT8, _ints(np.int8, -128, 127), True),
    "uint16": (TensorProto.UINT16, _ints(np.uint16, 0, 65535), True),
    "int16": (TensorProto.INT16, _ints(np.int16, -32768, 32767), True),
    "int32": (TensorProto.INT32, _ints(np.int32, -2**31, 2**31 - 1), True),
    "int64": (TensorProto.INT64, lambda s: _RNG.randint(-2**62, 2**62, size=s, dtype=np.int64),
              True),
    "string": (TensorProto.STRING, _strings, True),
    "bool": (TensorProto.BOOL, lambda s: _RNG.randint(0, 2, size=s).astype(bool), True),
    "float16": (TensorProto.FLOAT16, _floats(np.float16), True),
    "double": (TensorProto.DOUBLE, lambda s: _RNG.standard_normal(s), True),
    "uint32": (TensorProto.UINT32, _ints(np.uint32, 0, 2**32 - 1), True),
    "uint64": (TensorProto.UINT64, lambda s: _RNG.randint(0, 2**63, size=s, dtype=np.uint64),
               True),
    "complex64": (TensorProto.COMPLEX64, _complex(np.complex64), False),
    "complex128": (TensorProto.COMPLEX128, _complex(np.complex128), False),
    "bfloat16": (TensorProto.BFLOAT16, _floats(ml_dtypes.bfloat16), False),
    "float8e4m3fn": (TensorProto.FLOAT8E4M3FN, _floats(ml_dtypes.float8_e4m3fn), False),
    "float8e4m3fnuz": (TensorProto.FLOAT8E4M3FNUZ, _floats(ml_dtypes.float8_e4m3fnuz), False),
    "float8e5m2": (TensorProto.FLOAT8E5M2, _floats(ml_dtypes.float8_e5m2), False),
    "float8e5m2fnuz": (TensorProto.FLOAT8E5M2FNUZ, _floats(ml_dtypes.float8_e5m2fnuz), False),
    "uint4": (TensorProto.UINT4, _ints(ml_dtypes.uint4, 0, 15), False),
    "int4": (TensorProto.INT4, _ints(ml_dtypes.int4, -8, 7), False),
    "float4e2m1": (TensorProto.FLOAT4E2M1,
                   _choice(ml_dtypes.float4_e2m1fn,
                           [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6]), False),
    "float8e8m0": (TensorProto.FLOAT8E8M0,
                   _choice(ml_dtypes.float8_e8m0fnu, [2.0**k for k in range(-10, 11)]), False),
    "uint2": (TensorProto.UINT2, _ints(ml_dtypes.uint2, 0, 3), False),
    "int2": (TensorProto.INT2, _ints(ml_dtypes.int2, -2, 1), False),
}

# Odd element counts exercise the padding of the packed types; 0-d and empty shapes too.
# Ranks above 8 take the binding's second DescribeValue call (its dims buffer holds 8).
SHAPES = [(2, 3), (7,), (3, 3, 1), (), (0,), (2, 0, 3), (2, 1, 2, 1, 1, 2, 1, 1, 3),
          (1, 2, 1, 1, 1, 1, 1, 1, 1, 0)]


# Every type, complex64/complex128 included (Identity passes them through since the core
# gained complex tensors).
def model_cases():
    return list(CASES)


def make_array(name, shape):
    return np.asarray(CASES[name][1](shape))


def assert_same(actual, expected):
    assert isinstance(actual, np.ndarray), type(actual)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype == object or expected.dtype.kind == "U":
        assert actual.dtype == object
        assert actual.tolist() == np.asarray(expected, dtype=object).tolist()
        return
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    # Bit equality: Identity must not change a single bit (NaN payloads included).
    assert actual.tobytes() == np.ascontiguousarray(expected).tobytes()


@pytest.fixture(scope="module")
def sessions():
    cache = {}

    def get(name):
        if name not in cache:
            model = identity_model(CASES[name][0], shape=None).SerializeToString()
            ref = None
            if CASES[name][2]:
                ref = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
            cache[name] = (ort.InferenceSession(model), ref)
        return cache[name]

    return get


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)) or "scalar")
@pytest.mark.parametrize("name", model_cases())
def test_run_round_trip(sessions, name, shape):
    sess, ref = sessions(name)
    assert sess.get_inputs()[0].type == "tensor(%s)" % name
    data = make_array(name, shape)
    result = sess.run(None, {"x": data})[0]
    assert_same(result, data)
    if ref is not None:
        assert_same(result, ref.run(None, {"x": data})[0])


@pytest.mark.parametrize("name", model_cases())
def test_non_contiguous_arrays(sessions, name):
    sess, ref = sessions(name)
    base = make_array(name, (4, 6))
    for view in (base[:, ::2], base.T, base[::-1, 1:5:3]):
        assert not view.flags.c_contiguous
        result = sess.run(None, {"x": view})[0]
        assert_same(result, view)
        if ref is not None:
            assert_same(result, ref.run(None, {"x": view})[0])


@pytest.mark.parametrize("shape", [(2, 3), (), (0, 2), (5,)],
                         ids=lambda s: "x".join(map(str, s)) or "scalar")
@pytest.mark.parametrize("name", model_cases())
def test_iobinding_round_trip(sessions, name, shape):
    sess, _ = sessions(name)
    data = make_array(name, shape)
    binding = sess.io_binding()
    binding.bind_cpu_input("x", data)
    binding.bind_output("y")
    sess.run_with_iobinding(binding)
    assert_same(binding.copy_outputs_to_cpu()[0], data)
    outputs = binding.get_outputs()
    assert outputs[0].device_name() == "cpu"
    assert outputs[0].shape() == list(shape)
    assert outputs[0].data_type() == "tensor(%s)" % name
    assert_same(outputs[0].numpy(), data)


@pytest.mark.parametrize("name", model_cases())
def test_iobinding_non_contiguous_and_ortvalue_input(sessions, name):
    sess, _ = sessions(name)
    view = make_array(name, (3, 4))[:, ::-2]
    binding = sess.io_binding()
    binding.bind_cpu_input("x", view)
    binding.bind_output("y", "cpu")
    sess.run_with_iobinding(binding)
    assert_same(binding.copy_outputs_to_cpu()[0], view)
    # Rebinding the same name replaces the input.
    value = ort.OrtValue.ortvalue_from_numpy(make_array(name, (2, 2)))
    binding.bind_ortvalue_input("x", value)
    sess.run_with_iobinding(binding)
    assert_same(binding.copy_outputs_to_cpu()[0], value.numpy())


@pytest.mark.parametrize("shape", [(2, 3), (), (0,)], ids=["2x3", "scalar", "empty"])
@pytest.mark.parametrize("name", list(CASES))
def test_ortvalue_round_trip(name, shape):
    data = make_array(name, shape)
    value = ort.OrtValue.ortvalue_from_numpy(data)
    assert value.is_tensor() and value.has_value()
    assert value.device_name() == "cpu"
    assert value.shape() == list(shape)
    assert value.data_type() == "tensor(%s)" % name
    assert value.element_type() == CASES[name][0]
    assert_same(value.numpy(), data)


@pytest.mark.parametrize("name", [n for n in CASES if n != "string"])
def test_ortvalue_from_shape_and_type(name):
    element_type = CASES[name][0]
    dtype = np.dtype(make_array(name, (1,)).dtype)
    for spec in (dtype.type, element_type):
        value = ort.OrtValue.ortvalue_from_shape_and_type([2, 3], spec)
        assert value.shape() == [2, 3]
        assert value.element_type() == element_type
        data = make_array(name, (2, 3))
        value.update_inplace(data)
        assert_same(value.numpy(), data)


def test_ortvalue_shares_numpy_memory_like_onnxruntime():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    value = ort.OrtValue.ortvalue_from_numpy(data)
    assert value.data_ptr() == data.ctypes.data
    data[0, 0] = 42
    assert value.numpy()[0, 0] == 42
    theirs = onnxruntime.OrtValue.ortvalue_from_numpy(data)
    for method in ("device_name", "shape", "data_type", "element_type", "is_tensor", "has_value"):
        assert getattr(value, method)() == getattr(theirs, method)(), method


def test_numpy_unicode_and_bytes_string_arrays(sessions):
    sess, ref = sessions("string")
    unicode_array = np.array([["a", "bé"], ["日本", ""]])
    assert unicode_array.dtype.kind == "U"
    result = sess.run(None, {"x": unicode_array})[0]
    assert result.dtype == object
    assert result.tolist() == ref.run(None, {"x": unicode_array})[0].tolist()
    bytes_array = np.array([b"ab", b"c"])
    assert sess.run(None, {"x": bytes_array})[0].tolist() == ["ab", "c"]


@pytest.mark.parametrize("name", model_cases())
def test_read_only_arrays_and_results_that_do_not_alias_the_feed(sessions, name):
    # A read-only feed takes the binding's other way to its address; Identity's output is the
    # fed buffer itself inside the run, so the result must be a copy of it, not a view.
    sess, _ = sessions(name)
    data = make_array(name, (3, 4))
    data.setflags(write=False)
    result = sess.run(None, {"x": data})[0]
    assert_same(result, data)
    writable = make_array(name, (3, 4))
    before = writable.copy()
    result = sess.run(None, {"x": writable})[0]
    if result.dtype != object:
        result.view(np.uint8)[...] ^= 0xFF  # every bit flipped in the result only
        assert_same(writable, before)


def test_big_endian_arrays_are_converted(sessions):
    sess, _ = sessions("int32")
    data = np.arange(5, dtype=">i4")
    result = sess.run(None, {"x": data})[0]
    assert result.dtype == np.int32
    np.testing.assert_array_equal(result, np.arange(5))


def test_bind_input_and_output_by_pointer(sessions):
    sess, _ = sessions("float")
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros((3, 4), dtype=np.float32)
    binding = sess.io_binding()
    binding.bind_input("x", "cpu", 0, np.float32, list(data.shape), data.ctypes.data)
    binding.bind_output("y", "cpu", 0, np.float32, list(out.shape), out.ctypes.data)
    sess.run_with_iobinding(binding)
    binding.synchronize_outputs()
    np.testing.assert_array_equal(out, data)
    np.testing.assert_array_equal(binding.copy_outputs_to_cpu()[0], data)
    # A preallocated OrtValue output receives the results in place.
    target = ort.OrtValue.ortvalue_from_shape_and_type([3, 4], np.float32)
    binding.clear_binding_outputs()
    binding.bind_ortvalue_output("y", target)
    sess.run_with_iobinding(binding)
    np.testing.assert_array_equal(target.numpy(), data)


@pytest.mark.parametrize("name", ["int4", "uint2", "float4e2m1"])
def test_packed_types_by_pointer(sessions, name):
    # bind_input takes Prism's packed layout: two 4-bit (or four 2-bit) elements per byte.
    from prismrt import _types
    sess, _ = sessions(name)
    data = make_array(name, (5,))
    element_type = CASES[name][0]
    packed = _types.pack(data, element_type)
    binding = sess.io_binding()
    binding.bind_input("x", "cpu", 0, element_type, [5], packed.ctypes.data)
    binding.bind_output("y")
    sess.run_with_iobinding(binding)
    assert_same(binding.copy_outputs_to_cpu()[0], data)


def test_packing_layout_matches_onnx():
    # onnx packs the first element into the low bits, as Prism does.
    from onnx import numpy_helper
    from prismrt import _types
    data = np.array([1, -2, 3, -8, 7], dtype=ml_dtypes.int4)
    tensor = numpy_helper.from_array(data)
    assert _types.pack(data, _types.INT4).tobytes() == tensor.raw_data
    assert_same(_types.unpack(np.frombuffer(tensor.raw_data, np.uint8), _types.INT4, (5,)), data)
    u2 = np.array([0, 1, 2, 3, 3, 1], dtype=ml_dtypes.uint2)
    assert _types.pack(u2, _types.UINT2).tobytes() == numpy_helper.from_array(u2).raw_data


def test_data_pointer_lifetime(sessions):
    # The bound array may be dropped by the caller: the binding keeps it alive.
    sess, _ = sessions("float")
    binding = sess.io_binding()
    binding.bind_cpu_input("x", np.full((64, 64), 3.5, dtype=np.float32))
    binding.bind_output("y")
    import gc
    gc.collect()
    _ = [np.ones((64, 64), np.float32) * 9 for _ in range(10)]
    sess.run_with_iobinding(binding)
    np.testing.assert_array_equal(binding.copy_outputs_to_cpu()[0], np.full((64, 64), 3.5))
    assert ctypes.sizeof(ctypes.c_void_p) == 8
