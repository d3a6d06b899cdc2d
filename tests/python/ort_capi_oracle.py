"""onnxruntime's C API through ctypes: the oracle for map inputs its Python binding cannot make.

onnxruntime's Python turns a dict into map(string, float) or map(int64, float) only, so models
taking map(string, int64), map(int64, string), map(int64, double) or map(string, double) (the
other DictVectorizer and CastMap input types) are run through the C library shipped in the
onnxruntime wheel (capi/libonnxruntime.so.*): a map is made from a keys tensor and a values
tensor with CreateValue(ONNX_TYPE_MAP), as a C program would. The members used below sit at
fixed indices of the OrtApi table (append-only since onnxruntime 1.0, version 1 of the table
holds them all).
"""
import ctypes
import os

import numpy as np
import onnxruntime

_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_SIZE = ctypes.c_size_t
_INT = ctypes.c_int
_I64P = ctypes.POINTER(ctypes.c_int64)
_STRS = ctypes.POINTER(ctypes.c_char_p)

# member: (index in OrtApi, return type, argument types)
_MEMBERS = {
    "GetErrorMessage": (2, ctypes.c_char_p, [_P]),
    "CreateEnv": (3, _P, [_INT, ctypes.c_char_p, _PP]),
    "CreateSessionFromArray": (8, _P, [_P, ctypes.c_char_p, _SIZE, _P, _PP]),
    "Run": (9, _P, [_P, _P, _STRS, _PP, _SIZE, _STRS, _SIZE, _PP]),
    "CreateSessionOptions": (10, _P, [_PP]),
    "CreateTensorAsOrtValue": (48, _P, [_P, _I64P, _SIZE, _INT, _PP]),
    "CreateTensorWithDataAsOrtValue": (49, _P, [_P, _P, _SIZE, _I64P, _SIZE, _INT, _PP]),
    "GetTensorMutableData": (51, _P, [_P, _PP]),
    "FillStringTensor": (52, _P, [_P, _STRS, _SIZE]),
    "GetStringTensorDataLength": (53, _P, [_P, ctypes.POINTER(_SIZE)]),
    "GetStringTensorContent": (54, _P, [_P, _P, _SIZE, ctypes.POINTER(_SIZE), _SIZE]),
    "GetTensorElementType": (60, _P, [_P, ctypes.POINTER(_INT)]),
    "GetDimensionsCount": (61, _P, [_P, ctypes.POINTER(_SIZE)]),
    "GetDimensions": (62, _P, [_P, _I64P, _SIZE]),
    "GetTensorTypeAndShape": (65, _P, [_P, _PP]),
    "CreateCpuMemoryInfo": (69, _P, [_INT, _INT, _PP]),
    "GetAllocatorWithDefaultOptions": (78, _P, [_PP]),
    "CreateValue": (82, _P, [_PP, _SIZE, _INT, _PP]),
    "ReleaseEnv": (92, None, [_P]),
    "ReleaseStatus": (93, None, [_P]),
    "ReleaseSession": (95, None, [_P]),
    "ReleaseValue": (96, None, [_P]),
    "ReleaseTensorTypeAndShapeInfo": (99, None, [_P]),
    "ReleaseSessionOptions": (100, None, [_P]),
}
_ONNX_TYPE_MAP = 3
_STRING = 8
_NUMERIC = {1: np.float32, 7: np.int64, 11: np.float64}


class OrtError(RuntimeError):
    """An error status of onnxruntime's C API (its message)."""


class OrtCApi:
    def __init__(self):
        folder = os.path.join(os.path.dirname(onnxruntime.__file__), "capi")
        library = next(f for f in sorted(os.listdir(folder)) if f.startswith("libonnxruntime.so"))
        self._lib = ctypes.CDLL(os.path.join(folder, library))
        self._lib.OrtGetApiBase.restype = ctypes.POINTER(_P)
        base = self._lib.OrtGetApiBase()
        get_api = ctypes.CFUNCTYPE(_P, ctypes.c_uint32)(base[0])
        table = ctypes.cast(get_api(1), ctypes.POINTER(_P))
        for name, (index, restype, argtypes) in _MEMBERS.items():
            setattr(self, name, ctypes.CFUNCTYPE(restype, *argtypes)(table[index]))
        self._env = _P()
        self._check(self.CreateEnv(3, b"prism-oracle", ctypes.byref(self._env)))  # errors only
        self._cpu = _P()
        self._check(self.CreateCpuMemoryInfo(0, 0, ctypes.byref(self._cpu)))
        self._allocator = _P()
        self._check(self.GetAllocatorWithDefaultOptions(ctypes.byref(self._allocator)))

    def _check(self, status):
        if status:
            message = self.GetErrorMessage(status).decode("utf-8", "replace")
            self.ReleaseStatus(status)
            raise OrtError(message)

    def _tensor(self, array, owned, buffers):
        dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        out = _P()
        if array.dtype.kind in "OUS":
            self._check(self.CreateTensorAsOrtValue(self._allocator, dims, array.ndim, _STRING,
                                                    ctypes.byref(out)))
            owned.append(out)
            items = [str(item).encode("utf-8") for item in array.reshape(-1)]
            self._check(self.FillStringTensor(out, (ctypes.c_char_p * max(len(items), 1))(*items),
                                              len(items)))
        else:
            element = {np.dtype(v): k for k, v in _NUMERIC.items()}[array.dtype]
            array = np.ascontiguousarray(array)
            buffers.append(array)  # the tensor reads it in place
            self._check(self.CreateTensorWithDataAsOrtValue(
                self._cpu, array.ctypes.data, array.nbytes, dims, array.ndim, element,
                ctypes.byref(out)))
            owned.append(out)
        return out

    def _to_numpy(self, value):
        info = _P()
        self._check(self.GetTensorTypeAndShape(value, ctypes.byref(info)))
        try:
            element = _INT()
            self._check(self.GetTensorElementType(info, ctypes.byref(element)))
            rank = _SIZE()
            self._check(self.GetDimensionsCount(info, ctypes.byref(rank)))
            dims = (ctypes.c_int64 * max(rank.value, 1))()
            self._check(self.GetDimensions(info, dims, rank.value))
        finally:
            self.ReleaseTensorTypeAndShapeInfo(info)
        shape = [dims[i] for i in range(rank.value)]
        count = int(np.prod(shape, dtype=np.int64))
        if element.value == _STRING:
            total = _SIZE()
            self._check(self.GetStringTensorDataLength(value, ctypes.byref(total)))
            text = ctypes.create_string_buffer(max(total.value, 1))
            offsets = (_SIZE * max(count, 1))()
            self._check(self.GetStringTensorContent(value, text, total.value, offsets, count))
            raw = text.raw[:total.value]
            ends = [offsets[i] for i in range(1, count)] + [total.value]
            items = [raw[offsets[i]:ends[i]].decode("utf-8") for i in range(count)]
            return np.array(items, dtype=object).reshape(shape)
        data = _P()
        self._check(self.GetTensorMutableData(value, ctypes.byref(data)))
        result = np.empty(shape, dtype=_NUMERIC[element.value])
        if result.nbytes:
            ctypes.memmove(result.ctypes.data, data.value, result.nbytes)
        return result

    def run_map(self, model_bytes, keys, values, input_name="X", output_name="Y"):
        """Runs a model whose one input is the map keys[i] -> values[i] (numpy arrays: int64 or
        object (str) keys; float32, float64, int64 or object values) and returns its one tensor
        output as numpy. Raises OrtError with onnxruntime's message when it refuses."""
        owned, buffers = [], []
        options, session = _P(), _P()
        self._check(self.CreateSessionOptions(ctypes.byref(options)))
        try:
            self._check(self.CreateSessionFromArray(self._env, model_bytes, len(model_bytes),
                                                    options, ctypes.byref(session)))
            pair = (_P * 2)(self._tensor(np.asarray(keys), owned, buffers),
                            self._tensor(np.asarray(values), owned, buffers))
            feed = _P()
            self._check(self.CreateValue(pair, 2, _ONNX_TYPE_MAP, ctypes.byref(feed)))
            owned.append(feed)
            out = (_P * 1)()
            self._check(self.Run(session, None, (ctypes.c_char_p * 1)(input_name.encode()),
                                 (_P * 1)(feed), 1, (ctypes.c_char_p * 1)(output_name.encode()),
                                 1, out))
            try:
                return self._to_numpy(out[0])
            finally:
                self.ReleaseValue(out[0])
        finally:
            for value in owned:
                self.ReleaseValue(value)
            if session:
                self.ReleaseSession(session)
            self.ReleaseSessionOptions(options)


_api = None


def ort_capi():
    """The process's one OrtCApi (its environment lives as long as the process)."""
    global _api
    if _api is None:
        _api = OrtCApi()
    return _api
