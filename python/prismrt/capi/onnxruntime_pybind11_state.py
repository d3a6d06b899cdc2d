"""Prism's error classes under onnxruntime's module name.

Code written for onnxruntime catches errors with, for example,
``from onnxruntime.capi.onnxruntime_pybind11_state import InvalidArgument``; with prismrt the same
import works from ``prismrt.capi.onnxruntime_pybind11_state``. Each class matches one
PrismErrorCode (whose values match onnxruntime's OrtErrorCode) and carries the C status message.
"""
import builtins


class PrismError(Exception):
    """Base of every error a Prism C API call reports."""

    code = 1
    code_name = "FAIL"

    def __init__(self, message=""):
        super().__init__(message)
        self.message = message


class Fail(PrismError):
    code, code_name = 1, "FAIL"


class InvalidArgument(PrismError):
    code, code_name = 2, "INVALID_ARGUMENT"


class NoSuchFile(PrismError):
    code, code_name = 3, "NO_SUCHFILE"


class NoModel(PrismError):
    code, code_name = 4, "NO_MODEL"


class EngineError(PrismError):
    code, code_name = 5, "ENGINE_ERROR"


class RuntimeException(PrismError):
    code, code_name = 6, "RUNTIME_EXCEPTION"


class InvalidProtobuf(PrismError):
    code, code_name = 7, "INVALID_PROTOBUF"


class ModelLoaded(PrismError):
    code, code_name = 8, "MODEL_LOADED"


# The name shadows the builtin constant inside this module only; the class is built through
# type() so the module keeps a reference to the real builtin.
NotImplemented = type("NotImplemented", (PrismError,), {  # noqa: A001
    "code": 9, "code_name": "NOT_IMPLEMENTED", "__module__": __name__,
    "__doc__": "A feature, type or attribute combination Prism does not implement."})


class InvalidGraph(PrismError):
    code, code_name = 10, "INVALID_GRAPH"


class EPFail(PrismError):
    code, code_name = 11, "EP_FAIL"


_BY_CODE = {cls.code: cls for cls in (Fail, InvalidArgument, NoSuchFile, NoModel, EngineError,
                                      RuntimeException, InvalidProtobuf, ModelLoaded,
                                      NotImplemented, InvalidGraph, EPFail)}

# Kept for code in this package that needs the builtin despite the class above.
_BUILTIN_NOT_IMPLEMENTED = builtins.NotImplemented


def _error_from_status(code, message):
    cls = _BY_CODE.get(int(code), Fail)
    return cls("[PrismError] : %d : %s : %s" % (cls.code, cls.code_name, message))
