"""HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix and STFT (opset 17) against
onnxruntime on random parameters, and against onnx.reference where onnxruntime lacks a case
(MelWeightMatrix with double or float16 edges; STFT of a complex signal, whose frames onnxruntime
reads wrongly, and STFT without window and frame_length, which onnxruntime fails) or departs
from the spec (MelWeightMatrix computed in float, whose bins can differ from the reference's).
Corners: sizes 0 and 1, symmetric and periodic, every output_datatype, zero-width mel triangles,
frame_step longer than the frame, one frame covering the signal, empty batches, and the inputs
that are refused by name. Long STFTs: 997 frames of 512 against onnxruntime, and mixed-radix,
prime and power-of-two frames in double against numpy's FFT."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import prismrt as ort

_RNG = np.random.RandomState(20261125)
_WINDOWS = ["HannWindow", "HammingWindow", "BlackmanWindow"]
_OUTPUT_TYPES = [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT64,
                 TensorProto.INT32, TensorProto.UINT8, TensorProto.INT8, TensorProto.UINT64]


def _model(op, feeds, output_type, **attrs):
    names = [name if value is not None else "" for name, value in feeds]
    inputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                            value.shape)
              for name, value in feeds if value is not None]
    while not names[-1]:
        names.pop()
    graph = helper.make_graph([helper.make_node(op, names, ["y"], **attrs)], op.lower(), inputs,
                              [helper.make_tensor_value_info("y", output_type, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _run_all(op, feeds, output_type=TensorProto.FLOAT, oracle="onnxruntime", **attrs):
    model = _model(op, feeds, output_type, **attrs)
    inputs = {name: value for name, value in feeds if value is not None}
    actual = ort.InferenceSession(model.SerializeToString()).run(None, inputs)[0]
    if oracle == "onnxruntime":
        expected = onnxruntime.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)[0]
    else:
        expected = ReferenceEvaluator(model).run(None, inputs)[0]
    return actual, expected


@pytest.mark.parametrize("op", _WINDOWS)
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize("size", [0, 1, 2, 3, 10, 33, 256])
def test_windows_float(op, periodic, size):
    actual, expected = _run_all(op, [("size", np.array(size, np.int64))], periodic=periodic)
    assert actual.dtype == np.float32 and actual.shape == (size,)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("op", _WINDOWS)
@pytest.mark.parametrize("output_type", _OUTPUT_TYPES)
@pytest.mark.parametrize("size_type", [np.int32, np.int64])
def test_windows_every_output_type(op, output_type, size_type):
    size = np.array(17, size_type)
    for periodic in (0, 1):
        actual, expected = _run_all(op, [("size", size)], output_type, periodic=periodic,
                                    output_datatype=output_type)
        assert actual.dtype == expected.dtype
        # onnxruntime computes in float: an integer cast of a window value right at 1.0 may
        # land on either side, so integers compare within one unit; floats near their precision.
        tolerance = 2e-3 if output_type == TensorProto.FLOAT16 else 1e-6
        if np.issubdtype(actual.dtype, np.integer):
            assert np.all(np.abs(actual.astype(np.int64) - expected.astype(np.int64)) <= 1)
        else:
            np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance)


def test_windows_exact_values():
    """Hand-checked: a periodic Hann window of 4 is sin^2(pi n / 4) = 0, 1/2, 1, 1/2; the
    symmetric Hamming window of 3 is 25/46 - 21/46 cos(pi n) = 2/23, 1, 2/23; the periodic
    Blackman window of 4 is 0.42 - 0.5 cos(pi n / 2) + 0.08 cos(pi n) = 0, 0.34, 1, 0.34."""
    def run(op, size, periodic):
        model = _model(op, [("size", np.array(size, np.int64))], TensorProto.DOUBLE,
                       periodic=periodic, output_datatype=TensorProto.DOUBLE)
        return ort.InferenceSession(model.SerializeToString()).run(
            None, {"size": np.array(size, np.int64)})[0]
    np.testing.assert_allclose(run("HannWindow", 4, 1), [0, 0.5, 1, 0.5], atol=1e-15)
    np.testing.assert_allclose(run("HammingWindow", 3, 0), [2 / 23, 1, 2 / 23], atol=1e-15)
    np.testing.assert_allclose(run("BlackmanWindow", 4, 1), [0, 0.34, 1, 0.34], atol=1e-15)


def test_window_errors():
    model = _model("HannWindow", [("size", np.array(1, np.int64))], TensorProto.FLOAT)
    with pytest.raises(Exception, match="size must be >= 0, got -3"):
        ort.InferenceSession(model.SerializeToString()).run(None, {"size": np.array(-3, np.int64)})
    model = _model("HannWindow", [("size", np.array(1, np.int64))], TensorProto.INT64,
                   periodic=0, output_datatype=TensorProto.INT64)
    with pytest.raises(Exception, match="symmetric window of size 1 is 0/0"):
        ort.InferenceSession(model.SerializeToString()).run(None, {"size": np.array(1, np.int64)})
    model = _model("HannWindow", [("size", np.array([3, 4], np.int64))], TensorProto.FLOAT)
    with pytest.raises(Exception, match="input size must be a scalar, got shape \\[2\\]"):
        ort.InferenceSession(model.SerializeToString()).run(
            None, {"size": np.array([3, 4], np.int64)})


def _mel_feeds(bins, dft, rate, low, high, index_type=np.int64, edge_type=np.float32):
    return [("num_mel_bins", np.array(bins, index_type)), ("dft_length", np.array(dft, index_type)),
            ("sample_rate", np.array(rate, index_type)),
            ("lower_edge_hertz", np.array(low, edge_type)),
            ("upper_edge_hertz", np.array(high, edge_type))]


def _random_mel_case():
    rate = int(_RNG.randint(1000, 48000))
    bins = int(_RNG.randint(1, 40))
    dft = int(_RNG.randint(8, 1024))
    low = float(_RNG.uniform(0, rate / 4))
    high = float(_RNG.uniform(low, rate / 2))
    return bins, dft, rate, low, high


def test_mel_weight_matrix_node_test_case():
    feeds = _mel_feeds(8, 16, 8192, 0, 4096, np.int32)
    actual, expected = _run_all("MelWeightMatrix", feeds)
    np.testing.assert_array_equal(actual, expected)
    actual, reference = _run_all("MelWeightMatrix", feeds, oracle="reference")
    np.testing.assert_array_equal(actual, reference)


@pytest.mark.parametrize("case", range(40))
def test_mel_weight_matrix_random_against_reference(case):
    """Exact: the reference's integer bins (its float32 mel edges, numpy's floor division)."""
    params = _random_mel_case()
    output_type = _OUTPUT_TYPES[case % len(_OUTPUT_TYPES)]
    edge_type = [np.float32, np.float64, np.float16][case % 3]
    index_type = [np.int64, np.int32][case % 2]
    actual, expected = _run_all("MelWeightMatrix", _mel_feeds(*params, index_type, edge_type),
                                output_type, oracle="reference", output_datatype=output_type)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    tolerance = 1e-3 if output_type == TensorProto.FLOAT16 else 1e-6
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("case", range(20))
def test_mel_weight_matrix_random_against_onnxruntime(case):
    """onnxruntime computes the bins in float; where its bins equal the reference's (nearly
    always), Prism must equal it too."""
    feeds = _mel_feeds(*_random_mel_case())
    actual, expected = _run_all("MelWeightMatrix", feeds)
    _, reference = _run_all("MelWeightMatrix", feeds, oracle="reference")
    if np.array_equal(expected, reference):
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_allclose(actual, reference, rtol=1e-6, atol=1e-7)


def test_mel_weight_matrix_zero_width_triangles_and_edges():
    # Many mel bins over few spectrogram bins: several triangles collapse to a single 1.
    for feeds in (_mel_feeds(20, 16, 16000, 0, 8000), _mel_feeds(3, 64, 8000, 300, 300),
                  _mel_feeds(0, 10, 8000, 0, 4000), _mel_feeds(5, 1, 8000, 0, 4000)):
        actual, expected = _run_all("MelWeightMatrix", feeds, oracle="reference")
        np.testing.assert_array_equal(actual, expected)


def test_mel_weight_matrix_errors():
    model = _model("MelWeightMatrix", _mel_feeds(8, 16, 8000, 0, 4000), TensorProto.FLOAT)
    session = ort.InferenceSession(model.SerializeToString())
    with pytest.raises(Exception, match="reaches spectrogram bin"):
        session.run(None, dict(_mel_feeds(8, 16, 8000, 0, 12000)))
    with pytest.raises(Exception, match="sample_rate must be positive, got 0"):
        session.run(None, dict(_mel_feeds(8, 16, 0, 0, 4000)))
    with pytest.raises(Exception, match="dft_length must be positive, got 0"):
        session.run(None, dict(_mel_feeds(8, 0, 8000, 0, 4000)))


def _stft_feeds(signal, step, window=None, frame_length=None, step_type=np.int64):
    return [("signal", signal), ("frame_step", np.array(step, step_type)), ("window", window),
            ("frame_length", None if frame_length is None else np.array(frame_length, step_type))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("onesided", [0, 1])
@pytest.mark.parametrize("layout", ["window", "frame_length", "both", "neither"])
@pytest.mark.parametrize("step", [1, 3, 8, 20])
def test_stft_real_signals(dtype, onesided, layout, step):
    signal = _RNG.standard_normal((2, 40, 1)).astype(dtype)
    frame = 16 if layout != "neither" else 40
    window = _RNG.uniform(0, 1, frame).astype(dtype) if layout in ("window", "both") else None
    length = frame if layout in ("frame_length", "both") else None
    output_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    # onnxruntime cannot default frame_length to the signal's length (it sizes the output
    # negatively): the reference is the oracle there.
    oracle = "reference" if layout == "neither" else "onnxruntime"
    actual, expected = _run_all("STFT", _stft_feeds(signal, step, window, length), output_type,
                                oracle=oracle, onesided=onesided)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("frame", [5, 8, 13])
def test_stft_complex_signal_against_reference(frame):
    signal = _RNG.standard_normal((3, 30, 2)).astype(np.float32)
    window = _RNG.uniform(0, 1, frame).astype(np.float32)
    actual, expected = _run_all("STFT", _stft_feeds(signal, 4, window, step_type=np.int32),
                                oracle="reference", onesided=0)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


def test_stft_empty_batch_and_half_precision():
    actual, expected = _run_all("STFT", _stft_feeds(np.zeros((0, 16, 1), np.float32), 4,
                                                    frame_length=8), oracle="reference")
    assert actual.shape == (0, 3, 5, 2) == expected.shape
    signal = _RNG.standard_normal((1, 24, 1)).astype(np.float16)
    actual, expected = _run_all("STFT", _stft_feeds(signal, 4, frame_length=8),
                                TensorProto.FLOAT16, oracle="reference")
    np.testing.assert_allclose(actual.astype(np.float32), expected.astype(np.float32),
                               rtol=5e-3, atol=1e-2)


def test_stft_errors():
    feeds = _stft_feeds(np.ones((1, 16, 2), np.float32), 4)
    model = _model("STFT", feeds, TensorProto.FLOAT)
    with pytest.raises(Exception, match="onesided=1 .* needs a real signal"):
        ort.InferenceSession(model.SerializeToString()).run(
            None, {k: v for k, v in feeds if v is not None})
    feeds = _stft_feeds(np.ones((1, 16, 1), np.float32), 4, np.ones(8, np.float32), 6)
    model = _model("STFT", feeds, TensorProto.FLOAT)
    with pytest.raises(Exception, match="window has length 8 but frame_length is 6"):
        ort.InferenceSession(model.SerializeToString()).run(
            None, {k: v for k, v in feeds if v is not None})
    feeds = _stft_feeds(np.ones((1, 16, 1), np.float32), 0, frame_length=20)
    model = _model("STFT", feeds, TensorProto.FLOAT)
    session = ort.InferenceSession(model.SerializeToString())
    with pytest.raises(Exception, match="frame_step must be positive, got 0"):
        session.run(None, {k: v for k, v in feeds if v is not None})
    inputs = {k: v for k, v in feeds if v is not None}
    inputs["frame_step"] = np.array(2, np.int64)
    with pytest.raises(Exception, match=r"frame_length 20 must be in \[1, signal length 16\]"):
        session.run(None, inputs)


def _hann(frame):
    return np.sin(np.pi * np.arange(frame) / frame) ** 2


def test_stft_997_frames_of_512_against_onnxruntime():
    """The benchmark's shape (benchmarks/signal_bench.py): 997 frames of 512, step 128, Hann."""
    signal = _RNG.standard_normal((1, 128 * 996 + 512, 1)).astype(np.float32)
    actual, expected = _run_all("STFT", _stft_feeds(signal, 128, _hann(512).astype(np.float32),
                                                    512))
    assert actual.shape == expected.shape == (1, 997, 257, 2)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("frame", [400, 509, 512, 1009])
@pytest.mark.parametrize("onesided", [0, 1])
def test_stft_long_frames_in_double_against_numpy(frame, onesided):
    """Mixed-radix, prime (Bluestein) and power-of-two frames in double against numpy's FFT of
    the windowed frames: equal to rounding (1e-12 of the largest bin)."""
    step, frames = 97, 9
    signal = _RNG.standard_normal((2, step * (frames - 1) + frame, 1))
    window = _hann(frame)
    model = _model("STFT", _stft_feeds(signal, step, window, frame), TensorProto.DOUBLE,
                   onesided=onesided)
    actual = ort.InferenceSession(model.SerializeToString()).run(
        None, {"signal": signal, "frame_step": np.array(step, np.int64), "window": window,
               "frame_length": np.array(frame, np.int64)})[0]
    starts = np.arange(frames) * step
    windowed = signal[:, starts[:, None] + np.arange(frame), 0] * window
    expected = np.fft.rfft(windowed) if onesided else np.fft.fft(windowed)
    assert actual.shape == expected.shape + (2,)
    np.testing.assert_allclose(actual[..., 0] + 1j * actual[..., 1], expected, rtol=0,
                               atol=1e-12 * np.abs(expected).max())
