"""Whether this onnxruntime's 8-bit GEMM is exact on this CPU, and two ways to keep the int8
oracle tests meaningful where it is not.

onnxruntime's u8s8 kernels on x86 CPUs with AVX2 but no VNNI (this project's CI machines, an AMD
EPYC) multiply with vpmaddubsw, whose int16 sums of two adjacent products saturate: 255 * -128
twice is -65280, kept as -32768. Its results then differ from the exact integer sums wherever a
pair of products overflows int16 (with random full-range inputs: most outputs). With VNNI
(vpdpbusd sums into int32) it is exact. The probe below finds out once per process.

- check_against_onnxruntime: for tests that check Prism against an exact reference (numpy int64
  sums, onnx.reference) and compare with onnxruntime besides: that comparison alone becomes a
  visible OnnxruntimeInexactWarning where the probe shows onnxruntime inexact, else it fails.
- model_for_exact_onnxruntime: for tests whose oracle is onnxruntime itself: it gets the int8
  weights as uint8 (w + 128, zero point + 128: the same integer sums), which its u8u8 GEMM
  computes exactly, and the comparison stays strict.
"""
import functools
import warnings

import numpy as np
import onnxruntime
import onnx
from onnx import TensorProto, helper, numpy_helper

_ELEM = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}


class OnnxruntimeInexactWarning(UserWarning):
    """A comparison with onnxruntime not enforced: its 8-bit GEMM is inexact on this CPU."""


def _probe_inputs(a_type, b_type):
    """(a, b) pairs whose pair sums overflow int16 however the kernel treats the signs: every
    combination of each type's two extremes (a kernel may shift int8 to uint8 by 128 first:
    -128 * -128 overflows as it is, 127 * -128 once 127 became 255), then random full-range
    values."""
    a_info, b_info = np.iinfo(a_type), np.iinfo(b_type)
    k = 64
    for a_value in (a_info.min, a_info.max):
        for b_value in (b_info.min, b_info.max):
            for m in (1, 4):  # one row (a GEMV path) and several
                yield np.full((m, k), a_value, a_type), np.full((k, 8), b_value, b_type)
    rng = np.random.RandomState(1)
    yield (rng.randint(a_info.min, a_info.max + 1, (8, 256)).astype(a_type),
           rng.randint(b_info.min, b_info.max + 1, (256, 16)).astype(b_type))


@functools.lru_cache(maxsize=None)
def _probe(a_name, b_name):
    a_type, b_type = np.dtype(a_name), np.dtype(b_name)
    for a, b in _probe_inputs(a_type, b_type):
        expected = a.astype(np.int64) @ b.astype(np.int64)
        for b_constant in (False, True):  # fed, and prepacked at session creation
            inputs = [helper.make_tensor_value_info("a", _ELEM[a_type], list(a.shape))]
            initializers = []
            if b_constant:
                initializers.append(numpy_helper.from_array(b, "b"))
            else:
                inputs.append(helper.make_tensor_value_info("b", _ELEM[b_type], list(b.shape)))
            graph = helper.make_graph(
                [helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "probe", inputs,
                [helper.make_tensor_value_info("y", TensorProto.INT32, None)], initializers)
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)],
                                      ir_version=8).SerializeToString()
            feeds = {"a": a} if b_constant else {"a": a, "b": b}
            try:
                session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
                actual = session.run(None, feeds)[0]
            except Exception:  # pylint: disable=broad-except  (a type pair it refuses)
                continue
            if not np.array_equal(actual.astype(np.int64), expected):
                return False
    return True


def onnxruntime_int8_gemm_is_exact(a_type, b_type):
    """False where onnxruntime's MatMulInteger misses the exact sums of extreme inputs on this
    CPU with these two input types in either order (probed once per order, per process): its
    convolutions put the weights first (ConvInteger's int8 x, uint8 w runs the u8s8 kernel)."""
    a_name, b_name = np.dtype(a_type).name, np.dtype(b_type).name
    return _probe(a_name, b_name) and _probe(b_name, a_name)


def check_against_onnxruntime(check, a_type, b_type, what):
    """Runs check(), an assertion comparing with onnxruntime's result of an 8-bit GEMM op whose
    inputs are a_type and b_type. Where the probe shows onnxruntime's GEMM inexact for that pair
    on this CPU, a failing check becomes an OnnxruntimeInexactWarning (shown in pytest's
    warnings summary) instead of a failure; everywhere else it fails as usual."""
    try:
        check()
    except AssertionError as error:
        if onnxruntime_int8_gemm_is_exact(a_type, b_type):
            raise
        first_line = next((line for line in str(error).splitlines() if line.strip()), "")
        warnings.warn(OnnxruntimeInexactWarning(
            "%s: comparison with onnxruntime not enforced: its %s/%s GEMM saturates int16 "
            "pair sums on this CPU (AVX2 without VNNI), probed by ort_int8_exactness.py (%s)"
            % (what, np.dtype(a_type).name, np.dtype(b_type).name, first_line)), stacklevel=2)


# (weight input, its zero point input) of the ops whose int8 weights meet 8-bit activations in
# onnxruntime's GEMM.
_WEIGHT_SLOTS = {
    "MatMulInteger": (1, 3), "ConvInteger": (1, 3), "DynamicQuantizeMatMul": (1, 3),
    "QAttention": (1, 7), "QLinearConv": (3, 5), "QLinearMatMul": (3, 5), "QGemm": (3, 5),
    "DequantizeLinear": (0, 2),
}


def _int8_weights_as_uint8(model):
    """The model with every int8 weight w and its zero point z stored as uint8 w + 128 and
    z + 128 (a missing z becomes 128): w - z, hence every integer sum and every output, is
    unchanged. Raises ValueError where that would not hold (an int8 tensor elsewhere)."""
    proto = onnx.load_from_string(model) if isinstance(model, bytes) else onnx.load(model)
    graph = proto.graph
    initializers = {i.name: i for i in graph.initializer}
    uses = {}
    for node in graph.node:
        for slot, name in enumerate(node.input):
            if name:
                uses.setdefault(name, []).append((node.op_type, slot))
    shifted = set()
    for node in graph.node:
        slots = _WEIGHT_SLOTS.get(node.op_type)
        if slots is None or len(node.input) <= slots[0]:
            continue
        weight = initializers.get(node.input[slots[0]])
        if weight is None or weight.data_type != TensorProto.INT8:
            continue
        zero_slot = slots[1]
        while len(node.input) <= zero_slot:
            node.input.append("")
        if not node.input[zero_slot]:
            zero = numpy_helper.from_array(np.array(0, np.int8), weight.name + "__zero_point")
            graph.initializer.append(zero)
            initializers[zero.name] = graph.initializer[-1]
            node.input[zero_slot] = zero.name
            uses[zero.name] = [(node.op_type, zero_slot)]
        for name in (weight.name, node.input[zero_slot]):
            if name in shifted:
                continue
            tensor = initializers.get(name)
            if tensor is None or tensor.data_type != TensorProto.INT8:
                raise ValueError("%s: zero point %s is not an int8 initializer" %
                                 (node.op_type, name))
            shifted.add(name)
    for name in shifted:
        foreign = [u for u in uses.get(name, []) if _WEIGHT_SLOTS.get(u[0]) is None or
                   u[1] not in _WEIGHT_SLOTS[u[0]]]
        if foreign:
            raise ValueError("int8 %s is also read as %s" % (name, foreign))
        tensor = initializers[name]
        values = numpy_helper.to_array(tensor).astype(np.int16) + 128
        tensor.CopyFrom(numpy_helper.from_array(values.astype(np.uint8), name))
    int8_left = [i.name for i in graph.initializer if i.data_type == TensorProto.INT8] + [
        i.name for i in graph.input if i.type.tensor_type.elem_type == TensorProto.INT8]
    if int8_left:
        raise ValueError("int8 tensors other than weights: %s" % int8_left)
    return proto.SerializeToString()


def model_for_exact_onnxruntime(model):
    """The model (bytes or a path) to give onnxruntime as the oracle of Prism on uint8
    activations and int8 weights: unchanged where its u8s8 GEMM is exact on this CPU, else the
    same computation with the weights stored as uint8 (_int8_weights_as_uint8), which its exact
    u8u8 GEMM runs. Same integer sums either way, so the comparison stays strict."""
    if onnxruntime_int8_gemm_is_exact(np.uint8, np.int8):
        return model
    assert onnxruntime_int8_gemm_is_exact(np.uint8, np.uint8), \
        "onnxruntime's u8u8 GEMM is inexact on this CPU too: no exact oracle"
    return _int8_weights_as_uint8(model)
