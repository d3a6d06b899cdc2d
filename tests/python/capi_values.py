"""Runs a model through the C ABI alone (tests/capi/run_model.c, built as prism_capi_run_model)
so that the model tests can check the C ABI as well as prismrt. Values travel in the small
binary format that run_model.c's header describes: tensors, sequences, maps (Python dicts, as
prismrt and onnxruntime return them) and sequences of maps (lists of dicts)."""
import os
import struct
import subprocess

import numpy as np
from onnx import helper

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def runner_path():
    build = os.environ.get("PRISM_BUILD_DIR") or os.path.join(REPO, "build")
    path = os.path.join(build, "prism_capi_run_model")
    if not os.path.isfile(path):
        raise FileNotFoundError("%s is missing: build the prism_capi_run_model target (or set "
                                "PRISM_BUILD_DIR to the build folder)" % path)
    return path


def _write_tensor(out, array):
    array = np.asarray(array)
    if array.dtype.kind in "OUS":
        elem = 8
        parts = [s.encode() if isinstance(s, str) else bytes(s) for s in array.reshape(-1)]
        body = b"".join(struct.pack("<I", len(p)) + p for p in parts)
    else:
        elem = helper.np_dtype_to_tensor_dtype(array.dtype)
        body = np.ascontiguousarray(array).tobytes()
    out.append(struct.pack("<BII", 1, elem, array.ndim))
    out.append(struct.pack("<%dq" % array.ndim, *array.shape))
    out.append(struct.pack("<Q", len(body)))
    out.append(body)


def _write_value(out, value):
    if isinstance(value, dict):
        keys = list(value)
        out.append(struct.pack("<B", 4))
        _write_tensor(out, np.array(keys, dtype=object if isinstance(keys[0], str) else np.int64))
        values = list(value.values())
        _write_tensor(out, np.array(values, dtype=object if isinstance(values[0], str)
                                    else np.float32 if isinstance(values[0], float) else np.int64))
    elif isinstance(value, list):
        out.append(struct.pack("<BI", 2, len(value)))
        for element in value:
            _write_value(out, element)
    else:
        _write_tensor(out, value)


def write_values(path, values):
    """values: {name: numpy array or list of arrays}."""
    out = [b"PRV1", struct.pack("<I", len(values))]
    for name, value in values.items():
        encoded = name.encode()
        out.append(struct.pack("<I", len(encoded)) + encoded)
        _write_value(out, value)
    with open(path, "wb") as f:
        f.write(b"".join(out))


class _Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, count):
        chunk = self.data[self.at:self.at + count]
        assert len(chunk) == count, "truncated value file"
        self.at += count
        return chunk

    def unpack(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def value(self):
        (kind,) = self.unpack("<B")
        if kind == 4:  # a dict of Python scalars, as prismrt and onnxruntime return maps
            keys, values = self.value(), self.value()
            return {k: v for k, v in zip(keys.tolist(), values.tolist())}
        if kind == 2:
            (count,) = self.unpack("<I")
            return [self.value() for _ in range(count)]
        assert kind == 1, "unknown value kind %d" % kind
        elem, rank = self.unpack("<II")
        shape = self.unpack("<%dq" % rank) if rank else ()
        (size,) = self.unpack("<Q")
        body = self.take(size)
        if elem == 8:
            items, at = [], 0
            while at < len(body):
                (length,) = struct.unpack_from("<I", body, at)
                items.append(body[at + 4:at + 4 + length].decode())
                at += 4 + length
            return np.array(items, dtype=object).reshape(shape)
        dtype = helper.tensor_dtype_to_np_dtype(elem)
        return np.frombuffer(body, dtype=dtype).reshape(shape).copy()


def read_values(path):
    """{name: value} in the file's order."""
    with open(path, "rb") as f:
        reader = _Reader(f.read())
    assert reader.take(4) == b"PRV1"
    (count,) = reader.unpack("<I")
    values = {}
    for _ in range(count):
        (length,) = reader.unpack("<I")
        name = reader.take(length).decode()
        values[name] = reader.value()
    return values


def run_through_c_abi(model, feeds, folder):
    """Every output of model (bytes or a path) for feeds, in the session's order, computed by
    prism_capi_run_model; folder receives the files."""
    folder = str(folder)
    if isinstance(model, (bytes, bytearray)):
        path = os.path.join(folder, "capi_model.onnx")
        with open(path, "wb") as f:
            f.write(model)
        model = path
    inputs, outputs = os.path.join(folder, "capi_in.bin"), os.path.join(folder, "capi_out.bin")
    write_values(inputs, feeds)
    result = subprocess.run([runner_path(), str(model), inputs, outputs], capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError("prism_capi_run_model failed: " + result.stderr.strip())
    return list(read_values(outputs).values())
