"""DFT against onnxruntime on random signals: real and complex inputs, forward and inverse,
one-sided forward (rfft) and inverse (irfft), dft_length shorter and longer than the signal,
every signal axis of a 4-D input, opset 17 (axis attribute) and 20 (axis input); a one-sided
forward transform of a complex signal is refused by name. Long mixed-radix, prime and
power-of-two lengths against numpy's FFT in double (and onnxruntime where it runs an FFT)."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261209)


def _check(opset, x, length, axis, **attrs):
    inputs = ["x", "n" if length is not None else ""]
    feeds = {"x": x}
    if length is not None:
        feeds["n"] = np.array(length, np.int64)
    if opset >= 20:
        inputs.append("axis")
        feeds["axis"] = np.array(axis, np.int64)
    else:
        attrs["axis"] = axis
    while not inputs[-1]:
        inputs.pop()
    graph = helper.make_graph(
        [helper.make_node("DFT", inputs, ["y"], **attrs)], "dft",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT if n == "x" else TensorProto.INT64,
                                       None) for n in inputs if n],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=10).SerializeToString()
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("components", [1, 2])
@pytest.mark.parametrize("inverse", [0, 1])
@pytest.mark.parametrize("length", [None, 5, 12])
def test_full_transforms(opset, components, inverse, length):
    x = _RNG.standard_normal((2, 8, 3, components)).astype(np.float32)
    _check(opset, x, length, 1, inverse=inverse)


@pytest.mark.parametrize("axis", [1, 2, -2])
def test_every_signal_axis(axis):
    _check(20, _RNG.standard_normal((2, 6, 5, 2)).astype(np.float32), None, axis)


@pytest.mark.parametrize("length", [None, 6, 9])
def test_one_sided(length):
    x = _RNG.standard_normal((2, 8, 1)).astype(np.float32)
    _check(20, x, length, 1, onesided=1)
    half = _RNG.standard_normal((2, 5, 2)).astype(np.float32)
    _check(20, half, length, 1, onesided=1, inverse=1)


def test_one_sided_forward_of_a_complex_signal_is_refused():
    graph = helper.make_graph(
        [helper.make_node("DFT", ["x"], ["y"], onesided=1)], "dft",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                              ir_version=10).SerializeToString()
    with pytest.raises(Exception, match="one-sided forward transform needs a real input"):
        ort.InferenceSession(model).run(None, {"x": np.ones((1, 4, 2), np.float32)})


def _dft_model(dtype, length, **attrs):
    element = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    inputs = ["x", "n"] if length is not None else ["x"]
    graph = helper.make_graph(
        [helper.make_node("DFT", inputs, ["y"], axis=1, **attrs)], "dft",
        [helper.make_tensor_value_info("x", element, None)] +
        ([helper.make_tensor_value_info("n", TensorProto.INT64, None)] if length else []),
        [helper.make_tensor_value_info("y", element, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             ir_version=8).SerializeToString()


def _as_complex(x):
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]


# numpy's FFT for each mode: (input components, the oracle on the signal along axis 1).
_NUMPY_MODES = {
    "forward": (2, lambda x, n: np.fft.fft(x, n, axis=1)),
    "real": (1, lambda x, n: np.fft.fft(x, n, axis=1)),
    "inverse": (2, lambda x, n: np.fft.ifft(x, n, axis=1)),
    "rfft": (1, lambda x, n: np.fft.rfft(x, n, axis=1)),
    "irfft": (2, lambda x, n: np.fft.irfft(x, n, axis=1)),
}


@pytest.mark.parametrize("n", [1000, 1009, 4096, 4099, 210 * 17])
@pytest.mark.parametrize("mode", sorted(_NUMPY_MODES))
def test_long_transforms_in_double_against_numpy(n, mode):
    """Mixed-radix, prime (Bluestein) and power-of-two lengths, in double against numpy's FFT:
    Prism computes in double, so the two agree to rounding (1e-12 of the largest value)."""
    components, oracle = _NUMPY_MODES[mode]
    length = n // 2 + 1 if mode == "irfft" else n
    x = _RNG.standard_normal((2, length, components))
    attrs = {"inverse": int(mode in ("inverse", "irfft")), "onesided": int(mode in ("rfft",
                                                                                   "irfft"))}
    model = _dft_model(np.float64, n if mode == "irfft" else None, **attrs)
    feeds = {"x": x, **({"n": np.array(n, np.int64)} if mode == "irfft" else {})}
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    expected = oracle(_as_complex(x), n)
    if mode == "irfft":
        assert actual.shape == (2, n, 1)
        actual = actual[..., 0]
    else:
        assert actual.shape == expected.shape + (2,)
        actual = _as_complex(actual)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("n", [1000, 1009, 4096])
@pytest.mark.parametrize("mode", ["forward", "inverse", "rfft"])
def test_long_float_transforms_against_numpy_and_onnxruntime(n, mode):
    """float: within the output's rounding of numpy's double FFT of the same input; and within
    1e-5 of the largest value of onnxruntime's where n is a power of two (elsewhere onnxruntime
    sums directly in float, 1e-4 to 3e-4 of the largest value off the exact result here)."""
    components, oracle = _NUMPY_MODES[mode]
    x = _RNG.standard_normal((1, n, components)).astype(np.float32)
    model = _dft_model(np.float32, None, inverse=int(mode == "inverse"),
                       onesided=int(mode == "rfft"))
    actual = ort.InferenceSession(model).run(None, {"x": x})[0]
    exact = oracle(_as_complex(x.astype(np.float64)), n)
    assert actual.shape == exact.shape + (2,)
    np.testing.assert_allclose(_as_complex(actual.astype(np.float64)), exact, rtol=0,
                               atol=1e-7 * np.abs(exact).max())
    if n & (n - 1) == 0:
        expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, {"x": x})[0]
        np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-5 * np.abs(expected).max())
