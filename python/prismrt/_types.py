"""Element types: ONNX numbers, onnxruntime's type strings, numpy dtypes, sub-byte packing.

Like onnx.numpy_helper, types numpy lacks come from ml_dtypes (bfloat16, the float8 family,
int4/uint4, int2/uint2, float4_e2m1fn, float6_e2m3fn/float6_e3m2fn), one element per numpy byte.
Prism stores the 6-bit, 4-bit and 2-bit types packed as a little-endian bit stream, element i in
bits [i * bits, (i + 1) * bits) (a 6-bit element may straddle two bytes), so they are packed on the
way in and unpacked on the way out.
"""
import numpy as np

try:
    import ml_dtypes
except ImportError:  # only the ml_dtypes types are then unavailable
    ml_dtypes = None

# ONNX TensorProto.DataType numbers (PrismElementType).
UNDEFINED = 0
FLOAT = 1
UINT8 = 2
INT8 = 3
UINT16 = 4
INT16 = 5
INT32 = 6
INT64 = 7
STRING = 8
BOOL = 9
FLOAT16 = 10
DOUBLE = 11
UINT32 = 12
UINT64 = 13
COMPLEX64 = 14
COMPLEX128 = 15
BFLOAT16 = 16
FLOAT8E4M3FN = 17
FLOAT8E4M3FNUZ = 18
FLOAT8E5M2 = 19
FLOAT8E5M2FNUZ = 20
UINT4 = 21
INT4 = 22
FLOAT4E2M1 = 23
FLOAT8E8M0 = 24
UINT2 = 25
INT2 = 26
FLOAT6E2M3 = 27
FLOAT6E3M2 = 28

# onnxruntime's spelling inside "tensor(...)".
TYPE_NAMES = {
    FLOAT: "float", UINT8: "uint8", INT8: "int8", UINT16: "uint16", INT16: "int16",
    INT32: "int32", INT64: "int64", STRING: "string", BOOL: "bool", FLOAT16: "float16",
    DOUBLE: "double", UINT32: "uint32", UINT64: "uint64", COMPLEX64: "complex64",
    COMPLEX128: "complex128", BFLOAT16: "bfloat16", FLOAT8E4M3FN: "float8e4m3fn",
    FLOAT8E4M3FNUZ: "float8e4m3fnuz", FLOAT8E5M2: "float8e5m2", FLOAT8E5M2FNUZ: "float8e5m2fnuz",
    UINT4: "uint4", INT4: "int4", FLOAT4E2M1: "float4e2m1", FLOAT8E8M0: "float8e8m0",
    UINT2: "uint2", INT2: "int2", FLOAT6E2M3: "float6e2m3", FLOAT6E3M2: "float6e3m2",
}

# Bits per element of the packed types.
PACKED_BITS = {UINT4: 4, INT4: 4, FLOAT4E2M1: 4, UINT2: 2, INT2: 2, FLOAT6E2M3: 6, FLOAT6E3M2: 6}
_PACKED_FLOATS = {FLOAT4E2M1, FLOAT6E2M3, FLOAT6E3M2}
_SIGNED_PACKED = {INT4, INT2}

_NUMPY_TYPES = {
    FLOAT: np.float32, UINT8: np.uint8, INT8: np.int8, UINT16: np.uint16, INT16: np.int16,
    INT32: np.int32, INT64: np.int64, STRING: np.object_, BOOL: np.bool_, FLOAT16: np.float16,
    DOUBLE: np.float64, UINT32: np.uint32, UINT64: np.uint64, COMPLEX64: np.complex64,
    COMPLEX128: np.complex128,
}
_ML_DTYPES_NAMES = {
    BFLOAT16: "bfloat16", FLOAT8E4M3FN: "float8_e4m3fn", FLOAT8E4M3FNUZ: "float8_e4m3fnuz",
    FLOAT8E5M2: "float8_e5m2", FLOAT8E5M2FNUZ: "float8_e5m2fnuz", UINT4: "uint4", INT4: "int4",
    FLOAT4E2M1: "float4_e2m1fn", FLOAT8E8M0: "float8_e8m0fnu", UINT2: "uint2", INT2: "int2",
    FLOAT6E2M3: "float6_e2m3fn", FLOAT6E3M2: "float6_e3m2fn",
}


def _ml_dtype(name):
    if ml_dtypes is None or not hasattr(ml_dtypes, name):
        return None
    return np.dtype(getattr(ml_dtypes, name))


_DTYPE_OF = {t: np.dtype(v) for t, v in _NUMPY_TYPES.items()}
for _t, _name in _ML_DTYPES_NAMES.items():
    _dtype = _ml_dtype(_name)
    if _dtype is not None:
        _DTYPE_OF[_t] = _dtype
_TYPE_OF_DTYPE = {dtype: t for t, dtype in _DTYPE_OF.items()}


def type_string(element_type):
    return "tensor(%s)" % TYPE_NAMES.get(element_type, "undefined")


def numpy_dtype(element_type):
    """The numpy dtype that holds element_type (TypeError when there is none)."""
    dtype = _DTYPE_OF.get(int(element_type))
    if dtype is None:
        if int(element_type) in _ML_DTYPES_NAMES:
            raise TypeError("element type %s needs the ml_dtypes package (ml_dtypes.%s)" %
                            (TYPE_NAMES[int(element_type)], _ML_DTYPES_NAMES[int(element_type)]))
        raise TypeError("unsupported ONNX element type %r" % (element_type,))
    return dtype


def element_type_of_dtype(dtype):
    """The ONNX element type of a numpy dtype; numpy str ('U'/'S') arrays are strings."""
    dtype = np.dtype(dtype)
    if dtype.kind in ("U", "S", "O"):
        return STRING
    native = dtype.newbyteorder("=") if dtype.byteorder not in ("=", "|") else dtype
    element_type = _TYPE_OF_DTYPE.get(native)
    if element_type is None:
        raise TypeError("numpy dtype %s has no ONNX element type" % dtype)
    return element_type


def element_type_of(spec):
    """Accepts a numpy dtype/type (np.float32), an ONNX element type number, or a type string
    ('tensor(float)' or 'float')."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if int(spec) not in TYPE_NAMES:
            raise TypeError("unknown ONNX element type %d" % int(spec))
        return int(spec)
    if isinstance(spec, str):
        name = spec[len("tensor("):-1] if spec.startswith("tensor(") and spec.endswith(")") else spec
        for element_type, type_name in TYPE_NAMES.items():
            if type_name == name:
                return element_type
    return element_type_of_dtype(spec)


def storage_bytes(element_type, count):
    bits = PACKED_BITS.get(element_type)
    if bits is not None:
        return (count * bits + 7) // 8
    return count * numpy_dtype(element_type).itemsize


def pack(array, element_type):
    """Packs a numpy array of a 6/4/2-bit type into Prism's byte layout (a uint8 array)."""
    bits = PACKED_BITS[element_type]
    mask = (1 << bits) - 1
    flat = array.reshape(-1)
    if element_type in _PACKED_FLOATS:
        codes = flat.view(np.uint8) & mask
    elif element_type in _SIGNED_PACKED:
        codes = flat.astype(np.int8).view(np.uint8) & mask
    else:
        codes = flat.astype(np.uint8) & mask
    # Each code's bits, least significant first, concatenated into one little-endian stream.
    stream = np.unpackbits(codes.reshape(-1, 1), axis=1, bitorder="little")[:, :bits]
    return np.packbits(stream.reshape(-1), bitorder="little")


def unpack(packed, element_type, shape):
    """The inverse of pack: a numpy array of the ml_dtypes type with the given shape."""
    bits = PACKED_BITS[element_type]
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.asarray(packed, dtype=np.uint8).reshape(-1)
    stream = np.unpackbits(raw, bitorder="little")[:count * bits].reshape(count, bits)
    padded = np.zeros((count, 8), dtype=np.uint8)
    padded[:, :bits] = stream
    codes = np.packbits(padded, axis=1, bitorder="little").reshape(-1)
    dtype = numpy_dtype(element_type)
    if element_type in _PACKED_FLOATS:
        values = codes.view(dtype)
    elif element_type in _SIGNED_PACKED:
        signed = codes.astype(np.int8)
        signed = np.where(signed >= (1 << (bits - 1)), signed - (1 << bits), signed).astype(np.int8)
        values = signed.astype(dtype)
    else:
        values = codes.astype(dtype)
    return values.reshape(shape)
