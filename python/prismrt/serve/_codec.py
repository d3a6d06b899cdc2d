"""Request decoding, validation and response encoding for prismrt.serve (numpy only, no Ray).

Request bodies:

- JSON: ``{"inputs": {NAME: VALUE, ...}, "outputs": [NAME, ...]}`` ("outputs" optional). VALUE is
  a nested list, or ``{"data": LIST, "shape": [...], "dtype": "float32"}`` (shape and dtype
  optional; a flat data list is reshaped to shape).
- ``.npy`` (``application/x-npy``): one array; its input is ``?input=NAME``, or the model's only
  input.
- ``.npz`` (``application/x-npz``, as ``numpy.savez`` writes it): one array per input, by name.

Every problem with a request raises RequestError (HTTP 400) naming the input, what the model
expects and what was given. Responses are JSON, ``.npy`` (one output) or ``.npz``.
"""
import io
import json
import zipfile

import numpy as np

NPY_TYPES = ("application/x-npy", "application/npy")
NPZ_TYPES = ("application/x-npz", "application/npz", "application/zip")
JSON_TYPE = "application/json"
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"

# ONNX tensor type strings (as get_inputs() reports them) and their numpy dtypes.
_DTYPES = {
    "tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
    "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32,
    "tensor(int64)": np.int64, "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16,
    "tensor(uint32)": np.uint32, "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_,
    "tensor(string)": np.object_,
}


class RequestError(Exception):
    """A request the model cannot take: answered with HTTP ``status`` (400) and the message."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # keeps status through pickling (Ray sends it between processes)
        return (RequestError, (str(self), self.status))


class InferenceError(Exception):
    """A run that failed in a replica: status 400 when the runtime called its input invalid,
    500 otherwise. Pickled with its status so that the HTTP ingress can answer with it."""

    def __init__(self, message, status=500):
        super().__init__(message)
        self.status = status

    def __reduce__(self):
        return (InferenceError, (str(self), self.status))


class TensorSpec:
    """One model input or output: name, ONNX type string and shape (ints, symbols or None)."""

    def __init__(self, name, type, shape):
        self.name = name
        self.type = type
        self.shape = list(shape) if shape is not None else None
        self.dtype = np.dtype(_DTYPES[type]) if type in _DTYPES else None

    @classmethod
    def from_node_arg(cls, arg):
        return cls(arg.name, arg.type, arg.shape)

    @classmethod
    def from_dict(cls, d):
        return cls(d["name"], d["type"], d["shape"])

    def to_dict(self):
        return {"name": self.name, "type": self.type, "shape": self.shape}

    def shape_text(self):
        if self.shape is None:
            return "[any shape]"
        return "[%s]" % ", ".join("?" if d is None else str(d) for d in self.shape)

    def describe(self):
        return "%s %s" % (self.type, self.shape_text())


def _dtype_text(dtype):
    return "string" if dtype == np.object_ or dtype.kind in "US" else str(dtype)


def _shape_text(shape):
    return "[%s]" % ", ".join(str(d) for d in shape)


# ---- decoding --------------------------------------------------------------------------------
def body_kind(body, content_type):
    """'json', 'npy' or 'npz', from the Content-Type, else from the body's first bytes."""
    ct = (content_type or "").split(";")[0].strip().lower()
    if ct in NPY_TYPES:
        return "npy"
    if ct in NPZ_TYPES:
        return "npz"
    if ct == JSON_TYPE or ct.endswith("+json"):
        return "json"
    if body.startswith(_NPY_MAGIC):
        return "npy"
    if body.startswith(_ZIP_MAGIC):
        return "npz"
    return "json"


def _load_npy(data, what):
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as error:  # noqa: BLE001 (numpy raises several kinds for a bad file)
        raise RequestError("malformed .npy body for %s: %s" % (what, error)) from None
    if not isinstance(array, np.ndarray):
        raise RequestError("malformed .npy body for %s: not one array" % what)
    return array


def _json_array(name, value, spec):
    """A JSON input value (nested list or {"data", "shape", "dtype"}) as an array of the spec's
    dtype; refuses values whose kind does not fit (floats for an integer input, ...)."""
    declared_dtype, shape = None, None
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"data", "shape", "dtype"})
        if unknown or "data" not in value:
            raise RequestError("input '%s': a JSON object value needs 'data' (and optionally "
                               "'shape', 'dtype'), given keys %s" % (name, sorted(value)))
        declared_dtype, shape, value = value.get("dtype"), value.get("shape"), value["data"]
    expected = spec.dtype
    if expected is None:
        raise RequestError("input '%s': type %s is not served over HTTP" % (name, spec.type))
    if declared_dtype is not None:
        try:
            given = np.dtype(declared_dtype) if declared_dtype != "string" else np.dtype(object)
        except TypeError:
            raise RequestError("input '%s': unknown dtype %r" % (name, declared_dtype)) from None
        if given != expected and not (expected == np.object_ and given.kind in "OUS"):
            raise RequestError("input '%s': expected dtype %s (%s), given %s" % (
                name, _dtype_text(expected), spec.type, _dtype_text(given)))
    try:
        raw = np.array(value)
    except ValueError as error:
        raise RequestError("input '%s': not a rectangular nested list (%s)" % (name, error)) \
            from None
    kind = raw.dtype.kind
    if raw.size == 0:
        kind = expected.kind if expected is not None else "f"
    if kind == "O":
        raise RequestError("input '%s': not a rectangular nested list of numbers, booleans or "
                           "strings" % name)
    accepted = {"f": "fiu", "i": "iu", "u": "iu", "b": "b", "O": "U"}.get(expected.kind, "")
    given_kind = {"f": "float numbers", "i": "integers", "u": "integers", "b": "booleans",
                  "U": "strings"}.get(kind, "values of numpy kind %r" % kind)
    if kind not in accepted:
        raise RequestError("input '%s': expected %s (%s), given JSON %s" % (
            name, _dtype_text(expected), spec.type, given_kind))
    if expected.kind in "iu" and raw.size:
        info = np.iinfo(expected)
        if raw.min() < info.min or raw.max() > info.max:
            raise RequestError("input '%s': values out of the range of %s [%d, %d]" % (
                name, expected, info.min, info.max))
    array = raw.astype(expected) if expected != np.object_ else raw.astype(object)
    if shape is not None:
        try:
            array = array.reshape([int(d) for d in shape])
        except (ValueError, TypeError) as error:
            raise RequestError("input '%s': data of %d values does not fit shape %s (%s)" % (
                name, array.size, shape, error)) from None
    return array


def decode_request(body, content_type, query, input_specs):
    """Parses a request: returns (feeds {name: array}, requested output names or None, kind).

    ``query`` holds the URL query parameters (``input``, ``outputs``). Raises RequestError.
    """
    specs = {s.name: s for s in input_specs}
    kind = body_kind(body, content_type)
    outputs = None
    if query.get("outputs"):
        outputs = [n for n in query["outputs"].split(",") if n]
    if kind == "npy":
        name = query.get("input")
        if name is None:
            if len(input_specs) != 1:
                raise RequestError("a .npy body holds one array: name its input with ?input=NAME "
                                   "(the model's inputs: %s), or send .npz or JSON" %
                                   ", ".join(specs))
            name = input_specs[0].name
        feeds = {name: _load_npy(body, "input '%s'" % name)}
    elif kind == "npz":
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                members = archive.namelist()
                feeds = {}
                for member in members:
                    name = member[:-4] if member.endswith(".npy") else member
                    feeds[name] = _load_npy(archive.read(member), "input '%s'" % name)
        except (zipfile.BadZipFile, EOFError, OSError) as error:
            raise RequestError("malformed .npz body: %s" % error) from None
    else:
        try:
            document = json.loads(body.decode("utf-8") if body else "")
        except (UnicodeDecodeError, ValueError) as error:
            raise RequestError("malformed JSON body: %s" % error) from None
        if not isinstance(document, dict) or not isinstance(document.get("inputs"), dict):
            raise RequestError('a JSON body is an object {"inputs": {NAME: VALUE, ...}, '
                               '"outputs": [NAME, ...]}; "inputs" is missing or not an object')
        if "outputs" in document:
            if not (isinstance(document["outputs"], list) and
                    all(isinstance(n, str) for n in document["outputs"])):
                raise RequestError('"outputs" must be a list of output names')
            outputs = document["outputs"]
        feeds = {}
        for name, value in document["inputs"].items():
            if name not in specs:
                feeds[name] = None  # reported as unknown by validate()
                continue
            feeds[name] = _json_array(name, value, specs[name])
    return feeds, outputs, kind


# ---- validation ------------------------------------------------------------------------------
def batch_symbol(input_specs, output_specs):
    """The symbolic batch dimension (dim 0 of every input and output), or None.

    Requests can be concatenated along dim 0 only when every input's first dim is symbolic and
    the same symbol, and every output's first dim is symbolic too (the same symbol where named).
    Returns the symbol's name ('?' for unnamed dims), or None when the model has none.
    """
    names = set()
    for spec in list(input_specs) + list(output_specs):
        if spec.shape is None or not spec.shape or isinstance(spec.shape[0], int):
            return None
        if spec.shape[0] is not None:
            names.add(spec.shape[0])
    if not input_specs or len(names) > 1:
        return None
    return names.pop() if names else "?"


def validate(feeds, input_specs, batch_dim=None):
    """Checks names, dtypes, ranks and static dims; converts string inputs to object arrays.

    Returns the feeds in graph order. batch_dim: the model's batch symbol (batch_symbol), whose
    size must then agree across the inputs of one request. Raises RequestError.
    """
    specs = {s.name: s for s in input_specs}
    for name in feeds:
        if name not in specs:
            raise RequestError("unknown input '%s' (the model's inputs: %s)" % (
                name, ", ".join("%s %s" % (s.name, s.describe()) for s in input_specs)))
    checked = {}
    batch_sizes = {}
    for spec in input_specs:
        if spec.name not in feeds:
            raise RequestError("missing input '%s' (expected %s)" % (spec.name, spec.describe()))
        array = feeds[spec.name]
        if spec.dtype is None:
            raise RequestError("input '%s': type %s is not served over HTTP" % (
                spec.name, spec.type))
        if spec.dtype == np.object_:
            if array.dtype.kind not in "OUS":
                raise RequestError("input '%s': expected string (%s), given %s" % (
                    spec.name, spec.type, _dtype_text(array.dtype)))
            array = array.astype(object)
        elif array.dtype != spec.dtype:
            raise RequestError("input '%s': expected dtype %s (%s), given %s" % (
                spec.name, _dtype_text(spec.dtype), spec.type, _dtype_text(array.dtype)))
        if spec.shape is not None:
            if array.ndim != len(spec.shape):
                raise RequestError("input '%s': expected rank %d %s, given rank %d %s" % (
                    spec.name, len(spec.shape), spec.shape_text(), array.ndim,
                    _shape_text(array.shape)))
            for axis, (want, have) in enumerate(zip(spec.shape, array.shape)):
                if isinstance(want, int) and want != have:
                    raise RequestError("input '%s': expected shape %s, given %s (dim %d must be "
                                       "%d)" % (spec.name, spec.shape_text(),
                                                _shape_text(array.shape), axis, want))
        if batch_dim is not None:
            batch_sizes[spec.name] = array.shape[0]
        checked[spec.name] = array
    if len(set(batch_sizes.values())) > 1:
        raise RequestError("inputs disagree on the batch dimension '%s': %s" % (
            batch_dim, ", ".join("%s has %d" % kv for kv in batch_sizes.items())))
    return checked


def select_outputs(requested, output_specs):
    """The output names to return: all when requested is None. Raises RequestError."""
    names = [s.name for s in output_specs]
    if requested is None:
        return names
    for name in requested:
        if name not in names:
            raise RequestError("unknown output '%s' (the model's outputs: %s)" % (
                name, ", ".join(names)))
    return list(requested)


# ---- encoding --------------------------------------------------------------------------------
def response_kind(request_kind, accept, query, n_outputs):
    """'json', 'npy' or 'npz': ?format=, else Accept, else the request's own kind (npy for one
    output, npz for more)."""
    wanted = (query.get("format") or "").lower()
    if not wanted:
        accept = (accept or "").lower()
        if any(t in accept for t in NPY_TYPES):
            wanted = "npy"
        elif any(t in accept for t in NPZ_TYPES):
            wanted = "npz"
        elif JSON_TYPE in accept:
            wanted = "json"
        else:
            wanted = request_kind
    if wanted not in ("json", "npy", "npz"):
        raise RequestError("unknown format '%s' (json, npy or npz)" % wanted)
    if wanted == "npy" and n_outputs != 1:
        if (query.get("format") or "").lower() == "npy" or "npy" in (accept or ""):
            raise RequestError("a .npy response holds one output: %d requested (ask for one with "
                               "?outputs=NAME, or for .npz)" % n_outputs)
        wanted = "npz"
    return wanted


def _to_json_value(array):
    array = np.asarray(array)
    if array.dtype == np.object_ or array.dtype.kind in "US":
        data = np.vectorize(lambda v: v.decode() if isinstance(v, bytes) else str(v),
                            otypes=[object])(array).tolist() if array.size else array.tolist()
        dtype = "string"
    else:
        data = array.tolist()
        dtype = str(array.dtype)
    return {"dtype": dtype, "shape": list(array.shape), "data": data}


def encode_response(outputs, kind):
    """(body bytes, content type) of {name: array} as JSON, .npy (one output) or .npz."""
    if kind == "json":
        body = json.dumps({"outputs": {n: _to_json_value(v) for n, v in outputs.items()}})
        return body.encode("utf-8"), JSON_TYPE
    buffer = io.BytesIO()
    if kind == "npy":
        (value,) = outputs.values()
        np.save(buffer, np.asarray(value), allow_pickle=False)
        return buffer.getvalue(), NPY_TYPES[0]
    np.savez(buffer, **{n: np.asarray(v) for n, v in outputs.items()})
    return buffer.getvalue(), NPZ_TYPES[0]


def decode_response(body, content_type):
    """The client side of encode_response: {name: array} (used by the tests and the benchmark)."""
    ct = (content_type or "").split(";")[0].strip().lower()
    if ct in NPY_TYPES:
        return {None: np.load(io.BytesIO(body), allow_pickle=False)}
    if ct in NPZ_TYPES:
        with np.load(io.BytesIO(body), allow_pickle=False) as archive:
            return {n: archive[n] for n in archive.files}
    document = json.loads(body)
    out = {}
    for name, value in document["outputs"].items():
        dtype = object if value["dtype"] == "string" else value["dtype"]
        out[name] = np.array(value["data"], dtype=dtype).reshape(value["shape"])
    return out


def encode_npz(feeds):
    buffer = io.BytesIO()
    np.savez(buffer, **feeds)
    return buffer.getvalue()


def encode_npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()
