"""InferenceSession, NodeArg, ModelMetadata and IOBinding over the Prism C API."""
import ctypes
import itertools
import os
import threading
import warnings

import numpy as np

from . import _types
from ._c_api import (_P, _PP, _PSTR, RUN_ASYNC_CALLBACK, TensorBuffer, ValueDescription, api,
                     decode, env)
from ._options import RunOptions, SessionOptions
from ._value import (Handle, OrtValue, OrtValueVector, make_memory_info, map_from_dict,
                     map_types, owned_value, PLAIN_ELEMENT_TYPES, plain_feed_address,
                     plain_result, sequence_from_list, tensor_from_numpy,
                     tensor_from_plain_numpy, to_python, value_from_python)
from .capi.onnxruntime_pybind11_state import InvalidArgument

CPU_PROVIDER = "CPUExecutionProvider"

_SIZES = [ctypes.c_size_t(n) for n in range(64)]  # the counts of a run, made once


def _size(n):
    return _SIZES[n] if n < len(_SIZES) else ctypes.c_size_t(n)


class _RunScratch:
    """The C arrays of a session's one-call runs on one thread (RunWithBuffers), made once:
    each ctypes array costs a run a few tenths of a microsecond. Feeds of rank 8 at most;
    results whose dims do not fit in dims_out are read with DescribeValue."""

    def __init__(self, feed_count, default_output_count):
        self.buffers = (TensorBuffer * max(feed_count, 1))()
        self.feed_names = (ctypes.c_char_p * max(feed_count, 1))()
        self.dims_in = (ctypes.c_int64 * (8 * max(feed_count, 1)))()
        self.dims_in_address = ctypes.addressof(self.dims_in)
        self.results = (ctypes.c_void_p * max(default_output_count, 1))()
        self.descriptions = (ValueDescription * max(default_output_count, 1))()
        self.dims_out = (ctypes.c_int64 * 64)()
        self.dims_out_capacity = ctypes.c_size_t(len(self.dims_out))


_NO_PLAN = (None, None, None)  # a feed name the model does not have: the core names it
_KIND_SEQUENCE = 2
_KIND_OPTIONAL = 3


def get_available_providers():
    """Providers whose library loads and whose device exists, best first, CPU last."""
    return api().string_array(api().GetAvailableProviders)


# onnxruntime 1.31's static list of execution provider names (get_all_providers): every provider
# some build of onnxruntime can have, best first. Kept here, not in the core: it is onnxruntime's
# catalogue, not what Prism has (get_available_providers says that).
_ALL_PROVIDERS = (
    "NvTensorRTRTXExecutionProvider", "TensorrtExecutionProvider", "CUDAExecutionProvider",
    "MIGraphXExecutionProvider", "OpenVINOExecutionProvider", "DnnlExecutionProvider",
    "VitisAIExecutionProvider", "QNNExecutionProvider", "NnapiExecutionProvider",
    "VSINPUExecutionProvider", "JsExecutionProvider", "CoreMLExecutionProvider",
    "ACLExecutionProvider", "DmlExecutionProvider", "RknpuExecutionProvider",
    "WebNNExecutionProvider", "WebGpuExecutionProvider", "XnnpackExecutionProvider",
    "CANNExecutionProvider", "AzureExecutionProvider", "CPUExecutionProvider",
)


def get_all_providers():
    """onnxruntime's list of every execution provider name (as of onnxruntime 1.31), whatever
    this build has; get_available_providers() lists the ones that work here."""
    return list(_ALL_PROVIDERS)


def get_build_info():
    """"Prism Build Info: version=..., build type=..., compiler=..., c-api-version=..."."""
    return decode(api().GetBuildInfoString())


def set_seed(seed):
    """The seed of random ops without a seed attribute (RandomNormal, RandomUniform, their Like
    forms, Bernoulli, Multinomial, Dropout in training mode), for sessions created from now on:
    two sessions created after set_seed(s) give the same values run by run."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError("set_seed takes an int, got %s" % type(seed).__name__)
    api().check(api().SetRandomSeed(int(seed)))


def has_collective_ops():
    """False: Prism has no collective (multi-device communication) ops."""
    return False


def disable_telemetry_events():
    """Prism sends no telemetry, so there is nothing to disable."""


def enable_telemetry_events():
    """Prism has no telemetry: warns that nothing is enabled."""
    warnings.warn("enable_telemetry_events has no effect: Prism sends no telemetry",
                  RuntimeWarning, stacklevel=2)


def print_debug_info():
    """Prints the version, the build and the providers, as onnxruntime's does."""
    print("prismrt %s" % get_version_string())
    print(get_build_info())
    print("available providers: %s" % ", ".join(get_available_providers()))
    print("libraries: %s" % os.path.dirname(os.path.abspath(api()._lib._name)))


def get_device():
    """'GPU' when a GPU provider is available, else 'CPU' (onnxruntime's build device)."""
    return "GPU" if "CUDAExecutionProvider" in get_available_providers() else "CPU"


def get_version_string():
    return api().version_string


def set_global_thread_pool_sizes(intra_op_num_threads=0, inter_op_num_threads=0):
    """Creates the process's global thread pools (onnxruntime's function of this name; the C
    ABI's CreateEnvWithGlobalThreadPools): sessions whose SessionOptions.use_per_session_threads
    is False share them instead of starting their own. 0 means the physical cores the process may
    use. Once per process: the same sizes again are accepted, other sizes raise."""
    c = api()
    options = ctypes.c_void_p()
    c.check(c.CreateThreadingOptions(ctypes.byref(options)))
    try:
        c.check(c.SetGlobalIntraOpNumThreads(options, int(intra_op_num_threads)))
        c.check(c.SetGlobalInterOpNumThreads(options, int(inter_op_num_threads)))
        handle = ctypes.c_void_p()
        c.check(c.CreateEnvWithGlobalThreadPools(2, b"prismrt", options, ctypes.byref(handle)))
        c.ReleaseEnv(handle)  # the pools belong to the process, not to this environment
    finally:
        c.ReleaseThreadingOptions(options)


def set_default_logger_severity(severity):
    """Process-wide minimum log severity: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal."""
    api().check(api().SetLogSeverityLevel(env().handle, int(severity)))


def set_default_logger_verbosity(verbosity):
    """Process-wide verbosity (0 at start): with severity 0 (verbose), verbose messages of a
    level up to it are written (a run's per-node messages are level 1)."""
    api().check(api().SetLogVerbosityLevel(env().handle, int(verbosity)))


# Keeps what an asynchronous run uses (ctypes callback, arrays, feeds) until its callback ran.
_async_runs = {}
_async_lock = threading.Lock()
_async_ids = itertools.count(1)


class NodeArg:
    """A graph input/output description: name, type string and shape (int, str or None)."""

    def __init__(self, name, type, shape):  # noqa: A002 (onnxruntime's attribute names)
        self.name = name
        self.type = type
        self.shape = shape

    def __str__(self):
        return "NodeArg(name=%r, type=%r, shape=%r)" % (self.name, self.type, self.shape)

    __repr__ = __str__


class ModelMetadata:
    """The model's metadata (onnxruntime.ModelMetadata's attributes)."""

    def __init__(self, producer_name, graph_name, domain, description, graph_description,
                 version, custom_metadata_map):
        self.producer_name = producer_name
        self.graph_name = graph_name
        self.domain = domain
        self.description = description
        self.graph_description = graph_description
        self.version = version
        self.custom_metadata_map = custom_metadata_map


def _node_arg(type_info_pointer, name):
    c = api()
    try:
        type_string = ctypes.c_char_p()
        c.check(c.TypeInfoGetTypeString(type_info_pointer, ctypes.byref(type_string)))
        tensor = _P()
        c.check(c.TypeInfoGetTensorInfo(type_info_pointer, ctypes.byref(tensor)))
        kind = ctypes.c_int(0)
        c.check(c.TypeInfoGetKind(type_info_pointer, ctypes.byref(kind)))
        shape = []
        # Only plain tensors report a shape, as in onnxruntime.
        if tensor.value and decode(type_string.value).startswith("tensor("):
            rank = ctypes.c_int64(0)
            c.check(c.TensorInfoGetRank(tensor, ctypes.byref(rank)))
            if rank.value > 0:
                dims = (ctypes.c_int64 * rank.value)()
                c.check(c.TensorInfoGetDimensions(tensor, dims, rank.value))
                symbols = (ctypes.c_char_p * rank.value)()
                c.check(c.TensorInfoGetSymbolicDimensions(tensor, symbols, rank.value))
                for i in range(rank.value):
                    symbol = decode(symbols[i])
                    if symbol:
                        shape.append(symbol)
                    elif dims[i] >= 0:
                        shape.append(int(dims[i]))
                    else:
                        shape.append(None)
        return NodeArg(name, decode(type_string.value), shape)
    finally:
        c.ReleaseTypeInfo(type_info_pointer)


def _normalize_providers(providers, provider_options):
    """onnxruntime's provider arguments as [(name, {str: str})]: names or (name, options)
    tuples, with provider_options parallel to providers. Duplicates are dropped with a warning.
    """
    if providers is None:
        if provider_options is not None:
            raise ValueError("'provider_options' is given without 'providers'")
        return []
    if isinstance(providers, str):  # a single name, as some onnxruntime examples pass it
        providers = [providers]
    if provider_options is not None and len(provider_options) != len(providers):
        raise ValueError("'providers' and 'provider_options' should be the same length if both "
                         "are given.")
    result = []
    seen = set()
    for index, provider in enumerate(providers):
        if isinstance(provider, tuple):
            if len(provider) != 2 or not isinstance(provider[0], str) or not isinstance(
                    provider[1], dict):
                raise ValueError("Only string or (string, dict) tuple values are allowed in "
                                 "'providers', got %r" % (provider,))
            if provider_options is not None:
                raise ValueError("'providers' has (name, options) tuples, so 'provider_options' "
                                 "must not be given")
            name, options = provider
        elif isinstance(provider, str):
            name = provider
            options = provider_options[index] if provider_options is not None else {}
            if not isinstance(options, dict):
                raise ValueError("'provider_options' entries must be dicts, got %r" % (options,))
        else:
            raise ValueError("Only string or (string, dict) tuple values are allowed in "
                             "'providers', got %r" % (provider,))
        if name in seen:
            warnings.warn("Duplicate provider '%s' encountered, ignoring." % name)
            continue
        seen.add(name)
        result.append((name, {str(k): _option_text(v) for k, v in options.items()}))
    return result


def _option_text(value):
    # onnxruntime hands every option value to its providers as str(value).
    return str(value)


def _append_providers(options_handle, providers):
    c = api()
    for name, options in providers:
        keys = [k.encode("utf-8") for k in options]
        values = [v.encode("utf-8") for v in options.values()]
        key_array = (ctypes.c_char_p * max(len(keys), 1))(*keys)
        value_array = (ctypes.c_char_p * max(len(values), 1))(*values)
        c.check(c.AppendExecutionProvider(options_handle.pointer, name.encode("utf-8"),
                                          key_array, value_array, len(keys)))


def _disabled_optimizers(kwargs):
    """onnxruntime's disabled_optimizers keyword: a list or set of transformer names."""
    names = kwargs.get("disabled_optimizers")
    if names is None:
        return []
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple, set, frozenset)):
        raise TypeError("disabled_optimizers must be a list or set of str, got %s" %
                        type(names).__name__)
    for name in names:
        if not isinstance(name, str):
            raise TypeError("disabled_optimizers must hold str, got %s" % type(name).__name__)
    return sorted(names)


class PrepackedWeightsContainer:
    """Shares kernels' packed forms of constant weights between sessions (Prism's addition, as
    onnxruntime's C API PrepackedWeightsContainer): sessions created with
    ``InferenceSession(..., prepacked_weights_container=container)`` pack identical weights
    (same bytes, same format) once. The container may go away before its sessions."""

    def __init__(self):
        handle = _P()
        api().check(api().CreatePrepackedWeightsContainer(ctypes.byref(handle)))
        self._container = Handle(handle, api().ReleasePrepackedWeightsContainer)


def _prepacked_weights_container(kwargs):
    container = kwargs.get("prepacked_weights_container")
    if container is not None and not isinstance(container, PrepackedWeightsContainer):
        raise TypeError("prepacked_weights_container must be a prismrt.PrepackedWeightsContainer,"
                        " got %s" % type(container).__name__)
    return container


class InferenceSession:
    """Loads a model and runs it: onnxruntime.InferenceSession's interface.

    path_or_bytes: a model path (str or os.PathLike) or the serialized model (bytes).
    sess_options: a SessionOptions; providers: names or (name, options) tuples in priority order;
    provider_options: a list of option dicts parallel to providers.
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 **kwargs):
        if isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path = os.fspath(path_or_bytes)
            self._model_bytes = None
        elif isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            self._model_path = None
            self._model_bytes = bytes(path_or_bytes)
        else:
            raise TypeError("Unable to load from type '%s'" % type(path_or_bytes).__name__)
        if sess_options is not None and not isinstance(sess_options, SessionOptions):
            raise TypeError("sess_options must be a prismrt.SessionOptions, got %s" %
                            type(sess_options).__name__)
        self._sess_options = sess_options if sess_options is not None else SessionOptions()
        self._kwargs = kwargs
        self._disabled_optimizers = _disabled_optimizers(kwargs)
        self._prepacked = _prepacked_weights_container(kwargs)
        self._session = None
        # onnxruntime's retry on the CPU provider lives in the core (C, C++ and Python get it);
        # the session says when it happened, and it is announced here as onnxruntime does.
        self._create_session(_normalize_providers(providers, provider_options))

    # -- creation --------------------------------------------------------------------------
    def _make_c_options(self):
        options = self._sess_options._make_c_options()
        names = [n.encode("utf-8") for n in self._disabled_optimizers]
        array = (ctypes.c_char_p * max(len(names), 1))(*names)
        api().check(api().SetDisabledOptimizers(options.pointer, array, len(names)))
        return options

    def _create_session(self, requested):
        c = api()
        options = self._make_c_options()
        _append_providers(options, requested)
        handle = _P()
        shared = self._prepacked._container.pointer if self._prepacked is not None else None
        if self._model_path is not None:
            path = self._model_path.encode("utf-8")
            if shared is not None:
                c.check(c.CreateSessionWithPrepackedWeightsContainer(
                    env().handle, path, options.pointer, shared, ctypes.byref(handle)))
            else:
                c.check(c.CreateSession(env().handle, path, options.pointer,
                                        ctypes.byref(handle)))
        else:
            data = ctypes.c_char_p(self._model_bytes)  # points into the bytes: no copy
            if shared is not None:
                c.check(c.CreateSessionFromArrayWithPrepackedWeightsContainer(
                    env().handle, data, len(self._model_bytes), options.pointer, shared,
                    ctypes.byref(handle)))
            else:
                c.check(c.CreateSessionFromArray(env().handle, data, len(self._model_bytes),
                                                 options.pointer, ctypes.byref(handle)))
        self._session = Handle(handle, c.ReleaseSession)
        self._set_requested(requested)
        self._read_interface()
        if not self._announce_fallback():
            self._warn_unused(requested)

    def _set_requested(self, requested):
        self._requested = requested
        # The core retries on the CPU provider only when another provider was asked for: a
        # CPU-only session has no notice to collect after its runs.
        self._may_fall_back = any(name != CPU_PROVIDER for name, _ in requested)

    def _announce_fallback(self):
        """Warns with the core's notice when the session fell back to the CPU provider."""
        out = ctypes.c_void_p()
        api().check(api().SessionTakeFallbackNotice(self._session.pointer, ctypes.byref(out)))
        try:
            notice = ctypes.string_at(out.value).decode("utf-8") if out.value else ""
        finally:
            api().ReleaseString(out)
        if notice:
            warnings.warn(notice)
        return bool(notice)

    def _warn_unused(self, requested):
        in_use = set(self.get_providers())
        for name, _ in requested:
            if name not in in_use:
                warnings.warn("Specified provider '%s' is not in available provider names."
                              "Available providers: '%s'" %
                              (name, ", ".join(get_available_providers())))

    def _read_interface(self):
        c = api()
        pointer = self._session.pointer

        def read(count_fn, name_fn, type_fn):
            count = ctypes.c_size_t(0)
            c.check(count_fn(pointer, ctypes.byref(count)))
            args = []
            for i in range(count.value):
                name = ctypes.c_char_p()
                c.check(name_fn(pointer, i, ctypes.byref(name)))
                info = _P()
                c.check(type_fn(pointer, i, ctypes.byref(info)))
                args.append(_node_arg(info, decode(name.value)))
            return args

        self._inputs_meta = read(c.SessionGetInputCount, c.SessionGetInputName,
                                 c.SessionGetInputTypeInfo)
        self._outputs_meta = read(c.SessionGetOutputCount, c.SessionGetOutputName,
                                  c.SessionGetOutputTypeInfo)
        self._overridable_initializers = read(c.SessionGetOverridableInitializerCount,
                                              c.SessionGetOverridableInitializerName,
                                              c.SessionGetOverridableInitializerTypeInfo)
        # What each run needs, worked out once: the feed name's metadata (inputs before
        # overridable initializers) with its map types, the required inputs, and the default
        # output names with their C array.
        self._feed_plans = {}
        for meta in self._overridable_initializers + self._inputs_meta:
            self._feed_plans[meta.name] = (meta, map_types(meta.type), meta.name.encode("utf-8"))
        self._required_inputs = [m.name for m in self._inputs_meta
                                 if not m.type.startswith("optional(")]
        self._run_scratch = threading.local()  # a _RunScratch per thread
        # The feeds the one-call run takes (a numpy array for a tensor input), by name.
        self._buffer_feed_names = {
            name: plan[2] for name, plan in self._feed_plans.items()
            if plan[0].type.startswith(("tensor(", "optional(tensor("))}
        self._default_outputs = [m.name for m in self._outputs_meta]
        encoded = [n.encode("utf-8") for n in self._default_outputs]
        self._default_outputs_c = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)

    # -- model interface -------------------------------------------------------------------
    def get_session_options(self):
        return self._sess_options

    def get_inputs(self):
        return list(self._inputs_meta)

    def get_outputs(self):
        return list(self._outputs_meta)

    def get_overridable_initializers(self):
        return list(self._overridable_initializers)

    def get_modelmeta(self):
        c = api()
        handle = _P()
        c.check(c.SessionGetModelMetadata(self._session.pointer, ctypes.byref(handle)))
        metadata = Handle(handle, c.ReleaseModelMetadata)

        def text(fn):
            out = ctypes.c_char_p()
            c.check(fn(metadata.pointer, ctypes.byref(out)))
            return decode(out.value)

        version = ctypes.c_int64(0)
        c.check(c.ModelMetadataGetVersion(metadata.pointer, ctypes.byref(version)))
        count = ctypes.c_size_t(0)
        c.check(c.ModelMetadataGetCustomMetadataCount(metadata.pointer, ctypes.byref(count)))
        custom = {}
        for i in range(count.value):
            key = ctypes.c_char_p()
            value = ctypes.c_char_p()
            c.check(c.ModelMetadataGetCustomMetadata(metadata.pointer, i, ctypes.byref(key),
                                                     ctypes.byref(value)))
            custom[decode(key.value)] = decode(value.value)
        return ModelMetadata(text(c.ModelMetadataGetProducerName),
                             text(c.ModelMetadataGetGraphName), text(c.ModelMetadataGetDomain),
                             text(c.ModelMetadataGetDescription),
                             text(c.ModelMetadataGetGraphDescription), version.value, custom)

    # -- providers -------------------------------------------------------------------------
    def get_providers(self):
        pointer = self._session.pointer
        return api().string_array(
            lambda names, count: api().SessionGetProviders(pointer, names, count))

    def get_provider_options(self):
        c = api()
        result = {}
        for index, name in enumerate(self.get_providers()):
            keys = _PSTR()
            values = _PSTR()
            count = ctypes.c_size_t(0)
            c.check(c.SessionGetProviderOptions(self._session.pointer, index, ctypes.byref(keys),
                                                ctypes.byref(values), ctypes.byref(count)))
            try:
                result[name] = {decode(keys[i]): decode(values[i]) for i in range(count.value)}
            finally:
                c.ReleaseStringArray(keys, count)
                c.ReleaseStringArray(values, count)
        return result

    def get_allocator_stats(self, memory_name="Cpu", device_id=0):
        """The session's allocator statistics for one memory (Prism's addition; the names are
        onnxruntime's allocator statistics keys): NumAllocs, NumFrees, InUse, MaxInUse,
        MaxAllocSize, NumReserves, TotalAllocated, NumArenaExtensions, NumArenaShrinkages,
        Arena, Shared (1: the environment's allocator, session.use_env_allocators). Values are
        ints."""
        c = api()
        keys, values, count = _PSTR(), _PSTR(), ctypes.c_size_t(0)
        c.check(c.SessionGetAllocatorStats(self._session.pointer, memory_name.encode("utf-8"),
                                           int(device_id), ctypes.byref(keys),
                                           ctypes.byref(values), ctypes.byref(count)))
        try:
            return {decode(keys[i]): int(decode(values[i])) for i in range(count.value)}
        finally:
            c.ReleaseStringArray(keys, count)
            c.ReleaseStringArray(values, count)

    def get_prepack_stats(self):
        """What prepacking did at session creation (Prism's addition): PackedInputs,
        PackedWeights, PackedBytes, SharedHits, OriginalsReleased, ReleasedBytes (ints; see
        SessionGetPrepackStats in prism_c_api.h)."""
        c = api()
        keys, values, count = _PSTR(), _PSTR(), ctypes.c_size_t(0)
        c.check(c.SessionGetPrepackStats(self._session.pointer, ctypes.byref(keys),
                                         ctypes.byref(values), ctypes.byref(count)))
        try:
            return {decode(keys[i]): int(decode(values[i])) for i in range(count.value)}
        finally:
            c.ReleaseStringArray(keys, count)
            c.ReleaseStringArray(values, count)

    def set_providers(self, providers=None, provider_options=None):
        """Re-plans the session for a new provider list (priority order)."""
        requested = _normalize_providers(providers, provider_options)
        options = SessionOptions()._make_c_options()
        _append_providers(options, requested)
        api().check(api().SessionSetProviders(self._session.pointer, options.pointer))
        self._set_requested(requested)
        self._warn_unused(requested)

    def disable_fallback(self):
        """Stops retrying on the CPU provider when a run fails in another provider."""
        api().check(api().SessionSetFallbackEnabled(self._session.pointer, 0))

    def enable_fallback(self):
        """Retries on the CPU provider when a run fails in another provider (the default)."""
        api().check(api().SessionSetFallbackEnabled(self._session.pointer, 1))

    @property
    def _enable_fallback(self):
        enabled = ctypes.c_int(0)
        api().check(api().SessionGetFallbackEnabled(self._session.pointer, ctypes.byref(enabled)))
        return bool(enabled.value)

    def get_partition_report(self, format="text"):  # noqa: A002
        """Prism extension: which provider runs which node ('text' or 'dot')."""
        out = ctypes.c_void_p()
        api().check(api().SessionGetPartitionReport(self._session.pointer,
                                                    1 if format == "dot" else 0,
                                                    ctypes.byref(out)))
        try:
            return ctypes.string_at(out.value).decode("utf-8")
        finally:
            api().ReleaseString(out)

    def end_profiling(self):
        """Stops profiling; returns the trace file written ('' when profiling is off)."""
        out = ctypes.c_void_p()
        api().check(api().SessionEndProfiling(self._session.pointer, ctypes.byref(out)))
        try:
            return ctypes.string_at(out.value).decode("utf-8") if out.value else ""
        finally:
            api().ReleaseString(out)

    # -- running ---------------------------------------------------------------------------
    def _feed_value(self, name, item):
        """Converts one feed to a PrismValue, following the input's declared type."""
        meta, declared, _ = self._feed_plans.get(name, _NO_PLAN)
        if isinstance(item, OrtValue):
            return item._handle, item
        if declared is not None and meta.type.startswith("map("):
            # A dict for a map input; its pairs are copied.
            return map_from_dict(item, *declared), None
        if declared is not None and isinstance(item, (list, tuple)):
            return sequence_from_list(item, declared)  # a list of dicts
        if isinstance(item, dict):
            raise TypeError("input '%s' is %s: only map inputs take a dict" %
                            (name, meta.type if meta is not None else "not a model input"))
        if meta is not None and meta.type.startswith(("seq(", "optional(seq(")) and isinstance(
                item, (list, tuple)):
            return sequence_from_list(item)
        if item is None:
            return value_from_python(None)
        if not isinstance(item, np.ndarray) and meta is not None and meta.type.startswith(
                "tensor("):
            # Python scalars and lists take the input's element type, as in onnxruntime.
            try:
                dtype = _types.numpy_dtype(_types.element_type_of(meta.type))
            except TypeError:
                dtype = None
            item = np.asarray(item, dtype=dtype)
        return tensor_from_numpy(item)

    def _validate_input(self, feed_names):
        missing = [name for name in self._required_inputs if name not in feed_names]
        if missing:
            raise ValueError("Required inputs (%s) are missing from input feed (%s)." %
                             (missing, list(feed_names)))

    def _output_names(self, output_names):
        if not output_names:
            return [m.name for m in self._outputs_meta]
        if isinstance(output_names, str):
            raise TypeError("output_names must be a list of names, not a str")
        return list(output_names)

    def _prepare_run(self, output_names, input_feed, run_options):
        """The C arguments of Run/RunAsync: (output names, feed keepalive, C arrays)."""
        if not isinstance(input_feed, dict):
            raise TypeError("input_feed must be a dict {input name: value}, got %s" %
                            type(input_feed).__name__)
        if run_options is not None and not isinstance(run_options, RunOptions):
            raise TypeError("run_options must be a prismrt.RunOptions")
        self._validate_input(input_feed)
        keep = []
        feed_names = []
        feed_pointers = []
        plans = self._feed_plans
        for name, item in input_feed.items():
            # The common feed, a contiguous numeric numpy array for a tensor input, in one call.
            plan = plans.get(name, _NO_PLAN)
            if type(item) is np.ndarray and plan[1] is None:
                handle = tensor_from_plain_numpy(item)
                keepalive = item
                if handle is None:
                    handle, keepalive = self._feed_value(name, item)
            else:
                handle, keepalive = self._feed_value(name, item)
            keep.append((handle, keepalive))
            feed_names.append(plan[2] if plan[2] is not None else str(name).encode("utf-8"))
            feed_pointers.append(handle.pointer.value)
        count = len(feed_names)
        if not output_names:
            names = self._default_outputs
            output_array = self._default_outputs_c
        else:
            names = self._output_names(output_names)
            output_array = (ctypes.c_char_p * max(len(names), 1))(
                *[str(n).encode("utf-8") for n in names])
        arrays = ((ctypes.c_char_p * max(count, 1))(*feed_names),
                  (ctypes.c_void_p * max(count, 1))(*feed_pointers), count, output_array,
                  len(names))
        return names, keep, arrays

    def _run_values(self, output_names, input_feed, run_options):
        """Runs and returns the owned result handles (list of Handle)."""
        names, keep, arrays = self._prepare_run(output_names, input_feed, run_options)
        results = (ctypes.c_void_p * max(len(names), 1))()
        c = api()
        feed_names, feeds, feed_count, fetch_names, fetch_count = arrays
        c.check(c.Run_unchecked(self._session.pointer,
                                run_options._handle.pointer if run_options is not None else None,
                                feed_names, feeds, ctypes.c_size_t(feed_count), fetch_names,
                                ctypes.c_size_t(fetch_count), results))
        # Results may alias feed buffers (Identity), so they keep the feeds alive.
        return [owned_value(results[i]) for i in range(len(names))], keep

    def _run_buffers(self, output_names, input_feed, run_options):
        """run()'s common case in one C call (RunWithBuffers): every feed a C-contiguous numpy
        array of a plain element type for a tensor input. None, having run nothing, when a feed
        is anything else: run() then takes the general path."""
        encoded_names = self._buffer_feed_names
        scratch = self._run_scratch.__dict__.get("arrays")
        if scratch is None:
            scratch = self._run_scratch.arrays = _RunScratch(len(encoded_names),
                                                             len(self._default_outputs))
        buffers = scratch.buffers
        feed_names = scratch.feed_names
        if len(input_feed) > len(buffers):
            return None
        dims_in = scratch.dims_in
        dims_at = 0
        count = 0
        for name, item in input_feed.items():
            encoded = encoded_names.get(name)
            if type(item) is not np.ndarray or encoded is None:
                return None
            data = plain_feed_address(item)
            if data is None:
                return None
            rank = item.ndim
            dims_in[dims_at:dims_at + rank] = item.shape
            buffer = buffers[count]
            buffer.element_type = PLAIN_ELEMENT_TYPES[item.dtype]
            buffer.rank = rank
            buffer.dims = scratch.dims_in_address + 8 * dims_at
            buffer.data = data
            buffer.size_in_bytes = item.nbytes
            feed_names[count] = encoded
            dims_at += rank
            count += 1
        self._validate_input(input_feed)
        if not output_names:
            fetch_count = len(self._default_outputs)
            fetch_names = self._default_outputs_c
            results = scratch.results
            descriptions = scratch.descriptions
        else:
            names = self._output_names(output_names)
            fetch_count = len(names)
            fetch_names = (ctypes.c_char_p * max(fetch_count, 1))(
                *[str(n).encode("utf-8") for n in names])
            results = (ctypes.c_void_p * max(fetch_count, 1))()
            descriptions = (ValueDescription * max(fetch_count, 1))()
        dims = scratch.dims_out
        c = api()
        c.check(c.RunWithBuffers_unchecked(
            self._session.pointer, run_options._handle.pointer if run_options is not None else None,
            feed_names, buffers, _size(count), fetch_names, _size(fetch_count), results,
            descriptions, dims, scratch.dims_out_capacity))
        # Read every result while the feeds live (a result may alias one), then release those
        # not adopted by their arrays, and leave the slots NULL for the next run.
        values = []
        try:
            for i in range(fetch_count):
                value, adopted = plain_result(descriptions[i], dims, results[i])
                if adopted:
                    results[i] = None
                elif value is None:
                    value = to_python(results[i], self._session)
                values.append(value)
        finally:
            for i in range(fetch_count):
                if results[i] is not None:
                    c.ReleaseValue_unchecked(ctypes.c_void_p(results[i]))
                    results[i] = None
        return values

    def run_async(self, output_names, input_feed, callback, user_data, run_options=None):
        """Runs on a thread of Prism's async pool and returns at once; callback(results,
        user_data, err) is then called on that thread: results as run() returns them and err ""
        or, on failure, results [] and err the error's message (onnxruntime's run_async).
        The feeds may change once this returns; run_options must not be reused meanwhile."""
        if not callable(callback):
            raise TypeError("callback must be callable")
        names, keep, arrays = self._prepare_run(output_names, input_feed, run_options)
        results = (ctypes.c_void_p * max(len(names), 1))()
        session = self._session
        token = next(_async_ids)

        def finished(_user_data, outputs, count, status):
            try:
                if status:
                    c = api()
                    message = c.GetErrorMessage(status)
                    err = message.decode("utf-8", "replace") if message else "failed"
                    c.ReleaseStatus(status)
                    values = []
                else:
                    handles = [owned_value(outputs[i]) for i in range(count)]
                    values = [to_python(h.pointer, session) for h in handles]
                    err = ""
                callback(values, user_data, err)
            finally:
                with _async_lock:
                    _async_runs.pop(token, None)

        c_callback = RUN_ASYNC_CALLBACK(finished)
        with _async_lock:
            _async_runs[token] = (c_callback, results, keep, arrays, run_options, session)
        try:
            api().check(api().RunAsync(
                session.pointer, run_options._handle.pointer if run_options is not None else None,
                *arrays, results, c_callback, None))
        except BaseException:
            with _async_lock:
                _async_runs.pop(token, None)
            raise

    def run_with_ortvaluevector(self, run_options, feed_names, feeds, fetch_names, fetches,
                                fetch_devices):
        """onnxruntime's lowest-overhead run: feeds (an OrtValueVector or a list of OrtValues)
        by feed_names; the fetch_names outputs are appended to fetches (an OrtValueVector,
        cleared first), each left in the memory of its entry of fetch_devices (an OrtDevice, a
        device_type string, or None for the CPU; an empty list: all on the CPU)."""
        if len(feed_names) != len(feeds):
            raise ValueError("feed_names and feeds differ in length (%d, %d)" %
                             (len(feed_names), len(feeds)))
        if fetch_devices and len(fetch_devices) != len(fetch_names):
            raise ValueError("fetch_names and fetch_devices differ in length (%d, %d)" %
                             (len(fetch_names), len(fetch_devices)))
        binding = IOBinding(self)
        for name, value in zip(feed_names, feeds):
            binding.bind_ortvalue_input(name, value)
        for index, name in enumerate(fetch_names):
            device = fetch_devices[index] if fetch_devices else None
            binding.bind_output(name, device if device is not None else "cpu")
        self.run_with_iobinding(binding, run_options)
        outputs = binding.get_outputs()
        if isinstance(fetches, OrtValueVector):
            fetches.clear()
            for value in outputs:
                fetches.push_back(value)
        else:
            fetches[:] = outputs

    def create_ortvalue_from_shape_and_type(self, shape, element_type, device_type, device_id=0,
                                            vendor_id=-1):
        """An OrtValue of shape and element_type allocated by this session's allocator for
        device_type's memory (any memory an EP of the session owns, device memory included)."""
        del vendor_id
        element = _types.element_type_of(element_type)
        info = make_memory_info(device_type, device_id)
        c = api()
        allocator = _P()
        c.check(c.CreateAllocator(self._session.pointer, info.pointer, ctypes.byref(allocator)))
        allocator = Handle(allocator, c.ReleaseAllocator)
        dims = [int(d) for d in shape]
        shape_array = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        handle = _P()
        c.check(c.CreateTensorAsValue(allocator.pointer, shape_array, len(dims), element,
                                      ctypes.byref(handle)))
        return OrtValue(Handle(handle, c.ReleaseValue), allocator, self._session)

    def get_profiling_start_time_ns(self):
        """When profiling started, in nanoseconds since the Unix epoch (the clock onnxruntime's
        reads, time.time_ns()); 0 when profiling is off."""
        start = ctypes.c_uint64(0)
        api().check(api().SessionGetProfilingStartTimeNs(self._session.pointer,
                                                         ctypes.byref(start)))
        return start.value

    def _with_fallback(self, action):
        # The core retries a run that failed in an EP on the CPU provider; announce it here.
        try:
            return action()
        finally:
            if self._may_fall_back and self._announce_fallback():
                self._set_requested([(CPU_PROVIDER, {})])

    def run(self, output_names, input_feed, run_options=None):
        """Computes output_names (None or [] = all outputs) from input_feed {name: value};
        returns a list of numpy arrays (lists for sequences, dicts for maps, lists of dicts for
        sequences of maps, None for empty optionals)."""
        def action():
            if type(input_feed) is dict and (run_options is None or
                                             type(run_options) is RunOptions):
                values = self._run_buffers(output_names, input_feed, run_options)
                if values is not None:
                    return values
            handles, _ = self._run_values(output_names, input_feed, run_options)
            return [to_python(h.pointer, self._session) for h in handles]

        return self._with_fallback(action)

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        """As run(), with OrtValue feeds and OrtValue results."""
        def action():
            handles, keep = self._run_values(output_names, input_dict_ort_values, run_options)
            return [OrtValue(h, keep, self._session) for h in handles]

        return self._with_fallback(action)

    def io_binding(self):
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        if run_options is not None and not isinstance(run_options, RunOptions):
            raise TypeError("run_options must be a prismrt.RunOptions")
        api().check(api().RunWithBinding(
            self._session.pointer, run_options._handle.pointer if run_options is not None else None,
            iobinding._handle.pointer))


class IOBinding:
    """Inputs and outputs bound ahead of a run (onnxruntime.IOBinding)."""

    def __init__(self, session):
        self._session_object = session
        handle = _P()
        api().check(api().CreateIoBinding(session._session.pointer, ctypes.byref(handle)))
        self._session = session._session
        self._handle = Handle(handle, api().ReleaseIoBinding)
        self._inputs = {}   # name -> what keeps the bound memory alive
        self._outputs = {}

    def bind_cpu_input(self, name, arr_on_cpu):
        """Binds a numpy array (copied when it is not a contiguous native array)."""
        handle, buffer = tensor_from_numpy(arr_on_cpu)
        self._bind_input_value(name, handle, (arr_on_cpu, buffer))

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds memory the caller owns: buffer_ptr on (device_type, device_id)."""
        element = _types.element_type_of(element_type)
        if element == _types.STRING:
            raise InvalidArgument("[PrismError] : 2 : INVALID_ARGUMENT : string inputs cannot "
                                  "be bound by pointer; use bind_cpu_input")
        info = make_memory_info(device_type, device_id)
        dims = [int(d) for d in shape]
        count = int(np.prod(dims, dtype=np.int64))
        shape_array = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        handle = _P()
        api().check(api().CreateTensorWithDataAsValue(
            info.pointer, ctypes.c_void_p(int(buffer_ptr)), _types.storage_bytes(element, count),
            shape_array, len(dims), element, ctypes.byref(handle)))
        self._bind_input_value(name, Handle(handle, api().ReleaseValue), None)

    def bind_ortvalue_input(self, name, ortvalue):
        if not isinstance(ortvalue, OrtValue):
            raise TypeError("bind_ortvalue_input needs a prismrt.OrtValue")
        self._bind_input_value(name, ortvalue._handle, ortvalue)

    def _bind_input_value(self, name, handle, keepalive):
        api().check(api().BindInput(self._handle.pointer, name.encode("utf-8"), handle.pointer))
        self._inputs[name] = (handle, keepalive)

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None,
                    buffer_ptr=None):
        """Binds an output to a device (the run allocates it there) or, with buffer_ptr, to
        caller memory of the given element_type and shape."""
        info = make_memory_info(device_type, device_id)
        if buffer_ptr is None:
            api().check(api().BindOutputToDevice(self._handle.pointer, name.encode("utf-8"),
                                                 info.pointer))
            self._outputs[name] = None
            return
        if element_type is None or shape is None:
            raise ValueError("bind_output with buffer_ptr needs element_type and shape")
        element = _types.element_type_of(element_type)
        dims = [int(d) for d in shape]
        count = int(np.prod(dims, dtype=np.int64))
        shape_array = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        handle = _P()
        api().check(api().CreateTensorWithDataAsValue(
            info.pointer, ctypes.c_void_p(int(buffer_ptr)), _types.storage_bytes(element, count),
            shape_array, len(dims), element, ctypes.byref(handle)))
        value = Handle(handle, api().ReleaseValue)
        api().check(api().BindOutput(self._handle.pointer, name.encode("utf-8"), value.pointer))
        self._outputs[name] = value

    def bind_ortvalue_output(self, name, ortvalue):
        if not isinstance(ortvalue, OrtValue):
            raise TypeError("bind_ortvalue_output needs a prismrt.OrtValue")
        api().check(api().BindOutput(self._handle.pointer, name.encode("utf-8"),
                                     ortvalue._handle.pointer))
        self._outputs[name] = ortvalue

    def clear_binding_inputs(self):
        api().check(api().ClearBoundInputs(self._handle.pointer))
        self._inputs.clear()

    def clear_binding_outputs(self):
        api().check(api().ClearBoundOutputs(self._handle.pointer))
        self._outputs.clear()

    # Prism runs are synchronous: bound memory is ready as soon as a call returns.
    def synchronize_inputs(self):
        pass

    def synchronize_outputs(self):
        pass

    def get_output_names(self):
        pointer = self._handle.pointer
        return api().string_array(
            lambda names, count: api().GetBoundOutputNames(pointer, names, count))

    def _output_handles(self):
        c = api()
        values = _PP()
        count = ctypes.c_size_t(0)
        c.check(c.GetBoundOutputValues(self._handle.pointer, ctypes.byref(values),
                                       ctypes.byref(count)))
        if not values:
            return []
        try:
            return [owned_value(values[i]) for i in range(count.value)]
        finally:
            c.ReleaseValueArray(values)

    def get_outputs(self):
        """The last run's outputs as OrtValues, where they were bound (device or CPU)."""
        keep = (list(self._inputs.values()), dict(self._outputs))
        return [OrtValue(h, keep, self._session) for h in self._output_handles()]

    def copy_outputs_to_cpu(self):
        """The last run's outputs as numpy arrays (copied from device memory when needed)."""
        return [to_python(h.pointer, self._session) for h in self._output_handles()]

    def get_outputs_as_ortvaluevector(self):
        """The last run's outputs as an OrtValueVector (where they were bound)."""
        return OrtValueVector(self.get_outputs())


# Code written for onnxruntime sometimes names the binding class this way.
SessionIOBinding = IOBinding

__all__ = ["InferenceSession", "IOBinding", "NodeArg", "ModelMetadata", "get_available_providers",
           "get_all_providers", "get_build_info", "get_device", "get_version_string",
           "set_default_logger_severity", "set_default_logger_verbosity", "set_seed"]
