"""SessionOptions, RunOptions and their enums, with onnxruntime's names and defaults.

Every attribute either reaches the runtime through the C ABI or warns that it has no effect
(tests/python/test_options_have_effect.py checks each one). As in onnxruntime (pybind classes),
setting an attribute neither class has raises AttributeError.
"""
import ctypes
import enum
import warnings

import numpy as np

from ._c_api import _P, _SIZE, api, decode
from ._value import Handle, OrtValue


class GraphOptimizationLevel(enum.IntEnum):
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_LAYOUT = 3  # basic, extended and layout transformers: the same as ORT_ENABLE_ALL
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class ExecutionOrder(enum.IntEnum):
    DEFAULT = 0
    PRIORITY_BASED = 1
    MEMORY_EFFICIENT = 2


def _check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    return int(value)


def _check_bool(name, value):
    if not isinstance(value, (bool, int)):
        raise TypeError("%s must be a bool, got %s" % (name, type(value).__name__))
    return bool(value)


def _check_str(name, value):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    return value


def _check_ortvalue(what, value):
    if not isinstance(value, OrtValue):
        raise TypeError("%s needs an OrtValue (OrtValue.ortvalue_from_numpy), got %s" %
                        (what, type(value).__name__))
    return value


class SessionOptions:
    """Settings for an InferenceSession. Values are kept here and handed to the C API when a
    session is made, so one SessionOptions can serve several sessions (as in onnxruntime)."""

    __slots__ = ("_intra_op_num_threads", "_inter_op_num_threads", "_graph_optimization_level",
                 "_execution_mode", "_execution_order", "_log_severity_level",
                 "_log_verbosity_level", "_log_verbosity_set", "_logid", "_enable_profiling",
                 "_profile_file_prefix", "_optimized_model_filepath", "_enable_cpu_mem_arena",
                 "_enable_mem_pattern", "_use_per_session_threads", "_enable_mem_reuse",
                 "_use_deterministic_compute", "_config_entries", "_held", "_kept_alive",
                 "__weakref__")

    def __init__(self):
        self._intra_op_num_threads = 0
        self._inter_op_num_threads = 0
        self._graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self._execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self._execution_order = ExecutionOrder.DEFAULT
        self._log_severity_level = -1  # -1: the process default (warnings)
        self._log_verbosity_level = 0
        self._log_verbosity_set = False  # until set, the process default verbosity applies
        self._logid = ""
        self._enable_profiling = False
        self._profile_file_prefix = "onnxruntime_profile_"
        self._optimized_model_filepath = ""
        self._enable_cpu_mem_arena = True
        self._enable_mem_pattern = True
        self._use_per_session_threads = True
        self._enable_mem_reuse = True
        self._use_deterministic_compute = False
        self._config_entries = {}
        # A PrismSessionOptions holding what is applied through the C ABI as it is added (custom
        # op libraries, model adjustments; None: nothing yet); sessions start from a clone of
        # it, so they share the loaded libraries and the supplied values.
        self._held = None
        # The OrtValues and buffers the held options point into, kept while these options (and
        # so the sessions made from them, which hold the options) live.
        self._kept_alive = []

    # -- threads and execution -------------------------------------------------------------
    @property
    def intra_op_num_threads(self):
        return self._intra_op_num_threads

    @intra_op_num_threads.setter
    def intra_op_num_threads(self, value):
        self._intra_op_num_threads = _check_int("intra_op_num_threads", value)

    @property
    def inter_op_num_threads(self):
        return self._inter_op_num_threads

    @inter_op_num_threads.setter
    def inter_op_num_threads(self, value):
        self._inter_op_num_threads = _check_int("inter_op_num_threads", value)

    @property
    def graph_optimization_level(self):
        return self._graph_optimization_level

    @graph_optimization_level.setter
    def graph_optimization_level(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("graph_optimization_level must be a GraphOptimizationLevel, got %r" %
                            (value,))
        self._graph_optimization_level = GraphOptimizationLevel(int(value))

    @property
    def execution_mode(self):
        return self._execution_mode

    @execution_mode.setter
    def execution_mode(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("execution_mode must be an ExecutionMode, got %r" % (value,))
        self._execution_mode = ExecutionMode(int(value))

    @property
    def execution_order(self):
        return self._execution_order

    @execution_order.setter
    def execution_order(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("execution_order must be an ExecutionOrder, got %r" % (value,))
        self._execution_order = ExecutionOrder(int(value))

    # -- logging and profiling -------------------------------------------------------------
    @property
    def log_severity_level(self):
        return self._log_severity_level

    @log_severity_level.setter
    def log_severity_level(self, value):
        self._log_severity_level = _check_int("log_severity_level", value)

    @property
    def log_verbosity_level(self):
        return self._log_verbosity_level

    @log_verbosity_level.setter
    def log_verbosity_level(self, value):
        value = _check_int("log_verbosity_level", value)
        if value < 0:
            raise ValueError("log_verbosity_level must be >= 0, got %d" % value)
        self._log_verbosity_level = value
        self._log_verbosity_set = True

    @property
    def logid(self):
        return self._logid

    @logid.setter
    def logid(self, value):
        self._logid = _check_str("logid", value)

    @property
    def enable_profiling(self):
        return self._enable_profiling

    @enable_profiling.setter
    def enable_profiling(self, value):
        self._enable_profiling = _check_bool("enable_profiling", value)

    @property
    def profile_file_prefix(self):
        return self._profile_file_prefix

    @profile_file_prefix.setter
    def profile_file_prefix(self, value):
        self._profile_file_prefix = _check_str("profile_file_prefix", value)

    @property
    def optimized_model_filepath(self):
        return self._optimized_model_filepath

    @optimized_model_filepath.setter
    def optimized_model_filepath(self, value):
        self._optimized_model_filepath = _check_str("optimized_model_filepath", str(value))

    # -- memory ----------------------------------------------------------------------------
    @property
    def enable_cpu_mem_arena(self):
        return self._enable_cpu_mem_arena

    @enable_cpu_mem_arena.setter
    def enable_cpu_mem_arena(self, value):
        self._enable_cpu_mem_arena = _check_bool("enable_cpu_mem_arena", value)

    @property
    def use_per_session_threads(self):
        return self._use_per_session_threads

    @use_per_session_threads.setter
    def use_per_session_threads(self, value):
        # False: use the pools of prismrt.set_global_thread_pool_sizes().
        self._use_per_session_threads = _check_bool("use_per_session_threads", value)

    @property
    def enable_mem_pattern(self):
        return self._enable_mem_pattern

    @enable_mem_pattern.setter
    def enable_mem_pattern(self, value):
        self._enable_mem_pattern = _check_bool("enable_mem_pattern", value)

    @property
    def enable_mem_reuse(self):
        return self._enable_mem_reuse

    @enable_mem_reuse.setter
    def enable_mem_reuse(self, value):
        self._enable_mem_reuse = _check_bool("enable_mem_reuse", value)

    @property
    def use_deterministic_compute(self):
        return self._use_deterministic_compute

    @use_deterministic_compute.setter
    def use_deterministic_compute(self, value):
        self._use_deterministic_compute = _check_bool("use_deterministic_compute", value)

    # -- free-form entries -----------------------------------------------------------------
    def add_session_config_entry(self, key, value):
        self._config_entries[_check_str("key", key)] = _check_str("value", value)

    def get_session_config_entry(self, key):
        if key not in self._config_entries:  # onnxruntime raises RuntimeError here too
            raise RuntimeError("SessionOptions does not have configuration with key: %s" % key)
        return self._config_entries[key]

    # -- custom operators ------------------------------------------------------------------
    def register_custom_ops_library(self, library_path):
        """Loads a shared library of custom ops and calls its exported RegisterCustomOps
        (include/prism/prism_c_api.h), as onnxruntime's does; sessions made with these options
        run its ops. Raises NoSuchFile when the file does not exist, InvalidArgument when it
        cannot be loaded or exports no RegisterCustomOps, or the error RegisterCustomOps
        returns."""
        path = _check_str("library_path", str(library_path))
        api().check(api().RegisterCustomOpsLibrary(self._held_options(), path.encode("utf-8"),
                                                   None))

    def _held_options(self):
        """The PrismSessionOptions that additions go to, made on first use."""
        if self._held is None:
            handle = _P()
            api().check(api().CreateSessionOptions(ctypes.byref(handle)))
            self._held = Handle(handle, api().ReleaseSessionOptions)
        return self._held.pointer

    # -- model adjustments (applied as a session loads its model) ---------------------------
    def add_free_dimension_override_by_denotation(self, dim_denotation, dim_value):
        """Fixes every dimension of the model's inputs whose denotation is dim_denotation (e.g.
        "DATA_BATCH", any case) to dim_value: get_inputs() shows the number, shape inference
        sees it, and a feed of another size is refused. A dimension the model fixes to another
        value makes session creation fail."""
        dim_denotation = _check_str("dim_denotation", dim_denotation)
        dim_value = _check_int("dim_value", dim_value)
        api().check(api().AddFreeDimensionOverride(self._held_options(),
                                                   dim_denotation.encode("utf-8"), dim_value))

    def add_free_dimension_override_by_name(self, dim_name, dim_value):
        """Fixes every dimension of the model's inputs whose dim_param is dim_name to
        dim_value (see add_free_dimension_override_by_denotation)."""
        dim_name = _check_str("dim_name", dim_name)
        dim_value = _check_int("dim_value", dim_value)
        api().check(api().AddFreeDimensionOverrideByName(self._held_options(),
                                                         dim_name.encode("utf-8"), dim_value))

    def add_initializer(self, name, ortvalue):
        """Sessions use ortvalue (a CPU tensor OrtValue of the initializer's type and shape) in
        place of the model's initializer name, sharing its memory (no copy); these options keep
        a reference to it. Session creation fails when the model has no such initializer or the
        type or shape differs."""
        name = _check_str("name", name)
        value = _check_ortvalue("add_initializer", ortvalue)
        api().check(api().AddInitializer(self._held_options(), name.encode("utf-8"),
                                         value._pointer()))
        self._kept_alive.append(value)

    def add_external_initializers(self, names, ortvalues):
        """Supplies the data of initializers the model stores externally (data_location
        EXTERNAL): names[i] from ortvalues[i], CPU tensors used in place (no copy)."""
        names = [_check_str("names[%d]" % i, n) for i, n in enumerate(list(names))]
        values = [_check_ortvalue("add_external_initializers", v) for v in list(ortvalues)]
        if len(names) != len(values):
            raise ValueError("add_external_initializers: %d names but %d ortvalues" %
                             (len(names), len(values)))
        encoded = [n.encode("utf-8") for n in names]
        name_array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
        value_array = (ctypes.c_void_p * max(len(values), 1))(*[v._pointer() for v in values])
        api().check(api().AddExternalInitializers(self._held_options(), name_array, value_array,
                                                  len(values)))
        self._kept_alive.extend(values)

    def add_external_initializers_from_files_in_memory(self, names, buffers, lengths):
        """Provides the contents of the external data files the model names (names[i], as in
        its external_data locations) from memory: buffers[i], bytes-like objects (bytes,
        bytearray, memoryview, numpy uint8 arrays) of lengths[i] bytes. Sessions copy the bytes
        their tensors use when they are created; these options keep the buffers alive."""
        names = [_check_str("names[%d]" % i, n) for i, n in enumerate(list(names))]
        buffers, lengths = list(buffers), [_check_int("lengths", n) for n in list(lengths)]
        if not len(names) == len(buffers) == len(lengths):
            raise ValueError("add_external_initializers_from_files_in_memory: %d names, %d "
                             "buffers and %d lengths; they must pair up" %
                             (len(names), len(buffers), len(lengths)))
        arrays = []
        for name, buffer, length in zip(names, buffers, lengths):
            try:  # a view of the caller's bytes, not a copy
                array = np.frombuffer(buffer, dtype=np.uint8)
            except (TypeError, ValueError, BufferError) as error:
                raise TypeError("add_external_initializers_from_files_in_memory: the buffer of "
                                "'%s' must be a contiguous bytes-like object, got %s (%s)" %
                                (name, type(buffer).__name__, error)) from None
            if length < 0 or length > array.size:
                raise ValueError("add_external_initializers_from_files_in_memory: length %d of "
                                 "'%s' is outside its buffer of %d bytes" %
                                 (length, name, array.size))
            arrays.append(array)
        count = len(names)
        name_array = (ctypes.c_char_p * max(count, 1))(*[n.encode("utf-8") for n in names])
        buffer_array = (ctypes.c_void_p * max(count, 1))(*[a.ctypes.data for a in arrays])
        length_array = (_SIZE * max(count, 1))(*lengths)
        api().check(api().AddExternalInitializersFromFilesInMemory(
            self._held_options(), name_array, buffer_array, length_array, count))
        self._kept_alive.extend(arrays)

    def _make_c_options(self):
        """An owned PrismSessionOptions with every setting applied (no providers yet)."""
        c = api()
        handle = _P()
        if self._held is not None:  # custom ops, libraries and model adjustments come along
            c.check(c.CloneSessionOptions(self._held.pointer, ctypes.byref(handle)))
        else:
            c.check(c.CreateSessionOptions(ctypes.byref(handle)))
        options = Handle(handle, c.ReleaseSessionOptions)
        pointer = options.pointer
        c.check(c.SetIntraOpNumThreads(pointer, self._intra_op_num_threads))
        c.check(c.SetInterOpNumThreads(pointer, self._inter_op_num_threads))
        c.check(c.SetGraphOptimizationLevel(pointer, int(self._graph_optimization_level)))
        c.check(c.SetExecutionMode(pointer, int(self._execution_mode)))
        if self._optimized_model_filepath:
            c.check(c.SetOptimizedModelFilePath(pointer,
                                                self._optimized_model_filepath.encode("utf-8")))
        if self._enable_profiling:
            c.check(c.EnableProfiling(pointer, self._profile_file_prefix.encode("utf-8")))
        else:
            c.check(c.DisableProfiling(pointer))
        if self._log_severity_level >= 0:
            c.check(c.SetSessionLogSeverityLevel(pointer, self._log_severity_level))
        if self._log_verbosity_set:
            c.check(c.SetSessionLogVerbosityLevel(pointer, self._log_verbosity_level))
        if self._logid:
            c.check(c.SetSessionLogId(pointer, self._logid.encode("utf-8")))
        c.check(c.EnableCpuMemArena(pointer, int(self._enable_cpu_mem_arena)))
        c.check(c.EnableMemPattern(pointer, int(self._enable_mem_pattern)))
        c.check(c.EnableMemReuse(pointer, int(self._enable_mem_reuse)))
        c.check(c.SetDeterministicCompute(pointer, int(self._use_deterministic_compute)))
        if self._execution_order != ExecutionOrder.DEFAULT:
            warnings.warn("SessionOptions.execution_order = %s has no effect in Prism: nodes run "
                          "in the order its planner gives them (topological, or as their inputs "
                          "become ready with ORT_PARALLEL)" % self._execution_order.name,
                          RuntimeWarning, stacklevel=3)
        if not self._use_per_session_threads:
            c.check(c.DisablePerSessionThreads(pointer))
        for key, value in self._config_entries.items():
            c.check(c.AddSessionConfigEntry(pointer, key.encode("utf-8"), value.encode("utf-8")))
        return options


class RunOptions:
    """Settings for one run. It owns a live PrismRunOptions, so setting terminate = True from
    another thread stops runs that use it."""

    __slots__ = ("_handle", "_log_severity_level", "_log_verbosity_level", "_logid",
                 "_terminate", "_only_execute_path_to_fetches", "__weakref__")

    def __init__(self):
        c = api()
        handle = _P()
        c.check(c.CreateRunOptions(ctypes.byref(handle)))
        self._handle = Handle(handle, c.ReleaseRunOptions)
        self._log_severity_level = -1
        self._log_verbosity_level = 0
        self._logid = ""
        self._terminate = False
        self._only_execute_path_to_fetches = False

    @property
    def log_severity_level(self):
        return self._log_severity_level

    @log_severity_level.setter
    def log_severity_level(self, value):
        value = _check_int("log_severity_level", value)
        if value >= 0:
            api().check(api().RunOptionsSetRunLogSeverityLevel(self._handle.pointer, value))
        self._log_severity_level = value

    @property
    def log_verbosity_level(self):
        return self._log_verbosity_level

    @log_verbosity_level.setter
    def log_verbosity_level(self, value):
        value = _check_int("log_verbosity_level", value)
        if value < 0:
            raise ValueError("log_verbosity_level must be >= 0, got %d" % value)
        api().check(api().RunOptionsSetRunLogVerbosityLevel(self._handle.pointer, value))
        self._log_verbosity_level = value

    @property
    def logid(self):
        return self._logid

    @logid.setter
    def logid(self, value):
        value = _check_str("logid", value)
        api().check(api().RunOptionsSetRunTag(self._handle.pointer, value.encode("utf-8")))
        self._logid = value

    # The C API's name for logid.
    run_tag = logid

    @property
    def terminate(self):
        return self._terminate

    @terminate.setter
    def terminate(self, value):
        value = _check_bool("terminate", value)
        if value:
            api().check(api().RunOptionsSetTerminate(self._handle.pointer))
        else:
            api().check(api().RunOptionsUnsetTerminate(self._handle.pointer))
        self._terminate = value

    @property
    def only_execute_path_to_fetches(self):
        return self._only_execute_path_to_fetches

    @only_execute_path_to_fetches.setter
    def only_execute_path_to_fetches(self, value):
        value = _check_bool("only_execute_path_to_fetches", value)
        api().check(api().RunOptionsSetOnlyExecutePathToFetches(self._handle.pointer, int(value)))
        self._only_execute_path_to_fetches = value

    def add_run_config_entry(self, key, value):
        key, value = _check_str("key", key), _check_str("value", value)
        # Known to the runtime: "memory.enable_memory_arena_shrinkage" ("cpu:0"); every entry is
        # stored in the C ABI's run options and reads back from there.
        api().check(api().AddRunConfigEntry(self._handle.pointer, key.encode("utf-8"),
                                            value.encode("utf-8")))

    def get_run_config_entry(self, key):
        key = _check_str("key", key)
        value = ctypes.c_char_p()
        api().check(api().GetRunConfigEntry(self._handle.pointer, key.encode("utf-8"),
                                            ctypes.byref(value)))
        if value.value is None:  # onnxruntime raises RuntimeError here too
            raise RuntimeError("RunOptions does not have configuration with key: %s" % key)
        return decode(value.value)
