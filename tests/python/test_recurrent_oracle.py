"""RNN, GRU and LSTM against onnxruntime on random inputs: every direction, every activation
function (with and without activation_alpha / activation_beta), clip, GRU linear_before_reset,
LSTM input_forget and peepholes, sequence_lens of mixed lengths (0 and full included), initial
states, omitted biases and outputs, opsets 7 to 22.

onnxruntime runs only float and only layout 0, so:
- layout 1 is checked against onnxruntime on the transposed inputs (outputs transposed back);
- double, float16 and opsets 1/3 are checked against `_reference` below (the spec's equations
  in numpy, float64), which the float cases first check against onnxruntime.

Also: models shaped like torch.onnx's export of a 2-layer bidirectional nn.LSTM and of a
batch_first nn.GRU (torch is not installed here, so they are built with onnx.helper the way the
exporter writes them), run at several batch sizes and sequence lengths on one session each;
and bad shapes, lengths and attributes are refused naming the input or attribute.
"""
import re

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

_RNG = np.random.RandomState(20261125)
_NAMES = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_FUNCTIONS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def _model(op, opset, elem, feeds, attrs, outputs):
    """One-node model; feeds: {name: array} (absent names are omitted inputs); outputs: the
    output names, "" for an omitted one."""
    last = max(_NAMES.index(n) for n in feeds)
    inputs = [n if n in feeds else "" for n in _NAMES[:last + 1]]
    value_infos = [helper.make_tensor_value_info(
        n, TensorProto.INT32 if n == "sequence_lens" else elem, None) for n in inputs if n]
    node = helper.make_node(op, inputs, outputs, **attrs)
    graph = helper.make_graph([node], "recurrent", value_infos,
                              [helper.make_tensor_value_info(o, elem, None) for o in outputs if o])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8).SerializeToString()


# --- the spec's equations in numpy (float64) ---------------------------------------------------

# alpha/beta when the lists do not reach the function: the ONNX operators' defaults (ScaledTanh's
# operator had none: 1 and 1).
_DEFAULTS = {"Affine": (1.0, 0.0), "LeakyRelu": (0.01, None), "ThresholdedRelu": (1.0, None),
             "ScaledTanh": (1.0, 1.0), "HardSigmoid": (0.2, 0.5), "Elu": (1.0, None)}


def _activation(name, alpha, beta):
    return {
        "Relu": lambda x: np.maximum(x, 0),
        "Tanh": np.tanh,
        "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "Affine": lambda x: alpha * x + beta,
        "LeakyRelu": lambda x: np.where(x >= 0, x, alpha * x),
        "ThresholdedRelu": lambda x: np.where(x >= alpha, x, 0),
        "ScaledTanh": lambda x: alpha * np.tanh(beta * x),
        "HardSigmoid": lambda x: np.clip(alpha * x + beta, 0, 1),
        "Elu": lambda x: np.where(x >= 0, x, alpha * (np.exp(np.minimum(x, 0)) - 1)),
        "Softsign": lambda x: x / (1 + np.abs(x)),
        "Softplus": lambda x: np.logaddexp(0, x),
    }[name]


def _functions(op, attrs, directions):
    names = list(attrs.get("activations", _FUNCTIONS[op] * directions))
    alphas = list(attrs.get("activation_alpha", []))
    betas = list(attrs.get("activation_beta", []))
    functions = []
    for name in names:
        alpha, beta = _DEFAULTS.get(name, (None, None))
        if alpha is not None and alphas:
            alpha = alphas.pop(0)
        if beta is not None and betas:
            beta = betas.pop(0)
        functions.append(_activation(name, alpha, beta))
    per = len(_FUNCTIONS[op])
    return [functions[d * per:(d + 1) * per] for d in range(directions)]


def _reference(op, feeds, attrs):
    """Y, Y_h (, Y_c) in layout 0 or 1 as attrs say, float64."""
    f64 = {k: (v.astype(np.float64) if k != "sequence_lens" else v) for k, v in feeds.items()}
    layout = attrs.get("layout", 0)
    x = f64["X"] if layout == 0 else f64["X"].transpose(1, 0, 2)
    seq, batch, _ = x.shape
    w, r = f64["W"], f64["R"]
    dirs, hidden = w.shape[0], r.shape[2]
    gates = _GATES[op]

    def state(name):
        if name not in f64:
            return np.zeros((dirs, batch, hidden))
        return f64[name] if layout == 0 else f64[name].transpose(1, 0, 2)

    h0, c0 = state("initial_h"), state("initial_c")
    b = f64.get("B", np.zeros((dirs, 2 * gates * hidden)))
    p = f64.get("P", np.zeros((dirs, 3 * hidden)))
    lens = feeds.get("sequence_lens", np.full(batch, seq, np.int32)).astype(int)
    clip = attrs.get("clip")
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    functions = _functions(op, attrs, dirs)
    direction = attrs.get("direction", "forward")
    y = np.zeros((seq, dirs, batch, hidden))
    y_h = np.zeros((dirs, batch, hidden))
    y_c = np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        fn = functions[d]
        wb, rb = b[d, :gates * hidden], b[d, gates * hidden:]
        for n in range(batch):
            h, c = h0[d, n].copy(), c0[d, n].copy()
            steps = range(lens[n] - 1, -1, -1) if reverse else range(lens[n])
            for t in steps:
                xw = w[d] @ x[t, n] + wb
                hr = r[d] @ h + rb
                if op == "RNN":
                    h = fn[0](cl(xw + hr))
                elif op == "GRU":
                    z = fn[0](cl(xw[:hidden] + hr[:hidden]))
                    rr = fn[0](cl(xw[hidden:2 * hidden] + hr[hidden:2 * hidden]))
                    rh, rbh = r[d, 2 * hidden:], rb[2 * hidden:]
                    if attrs.get("linear_before_reset", 0):
                        pre = xw[2 * hidden:] + rr * (rh @ h + rbh)
                    else:
                        pre = xw[2 * hidden:] + rh @ (rr * h) + rbh
                    h = (1 - z) * fn[1](cl(pre)) + z * h
                else:
                    pi, po, pf = p[d, :hidden], p[d, hidden:2 * hidden], p[d, 2 * hidden:]
                    g = xw + hr
                    i = fn[0](cl(g[:hidden] + pi * c))
                    if attrs.get("input_forget", 0):
                        f = 1 - i
                    else:
                        f = fn[0](cl(g[2 * hidden:3 * hidden] + pf * c))
                    c = f * c + i * fn[1](cl(g[3 * hidden:]))
                    o = fn[0](cl(g[hidden:2 * hidden] + po * c))
                    h = o * fn[2](c)
                y[t, d, n] = h
            if lens[n] > 0:
                y_h[d, n], y_c[d, n] = h, c
    if layout == 1:
        y, y_h, y_c = y.transpose(2, 0, 1, 3), y_h.transpose(1, 0, 2), y_c.transpose(1, 0, 2)
    return [y, y_h, y_c] if op == "LSTM" else [y, y_h]


# --- inputs ------------------------------------------------------------------------------------

def _feeds(op, seq, batch, input_size, hidden, dirs, dtype=np.float32, bias=True, lens=None,
           initial=True, peepholes=False, layout=0, scale=0.6):
    gates = _GATES[op]

    def rand(*shape):
        return (_RNG.standard_normal(shape) * scale).astype(dtype)

    feeds = {"X": rand(*((seq, batch, input_size) if layout == 0 else (batch, seq, input_size))),
             "W": rand(dirs, gates * hidden, input_size), "R": rand(dirs, gates * hidden, hidden)}
    if bias:
        feeds["B"] = rand(dirs, 2 * gates * hidden)
    if lens is not None:
        feeds["sequence_lens"] = np.array(lens, np.int32)
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    if initial:
        feeds["initial_h"] = rand(*state)
        if op == "LSTM":
            feeds["initial_c"] = rand(*state)
    if peepholes:
        feeds["P"] = rand(dirs, 3 * hidden)
    return feeds


def _outputs(op):
    return ["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"]


def _run_both(op, opset, feeds, attrs, outputs=None):
    outputs = outputs or _outputs(op)
    model = _model(op, opset, TensorProto.FLOAT, feeds, attrs, outputs)
    expected = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    actual = ort.InferenceSession(model).run(None, feeds)
    return actual, expected


def _check(actual, expected, rtol=1e-4, atol=1e-5):
    """Same outputs, shapes and element types (a float64 `_reference` result stands for the
    actual type)."""
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and (a.dtype == e.dtype or e.dtype == np.float64)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


_DIRECTIONS = ["forward", "reverse", "bidirectional"]


def _dirs(direction):
    return 2 if direction == "bidirectional" else 1


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", _DIRECTIONS)
@pytest.mark.parametrize("opset", [7, 14, 22])
def test_defaults_and_full_inputs(op, direction, opset):
    dirs = _dirs(direction)
    for kwargs in ({"bias": False, "initial": False},
                   {"lens": [3, 5, 1, 4], "peepholes": op == "LSTM"}):
        feeds = _feeds(op, 5, 4, 3, 6, dirs, **kwargs)
        attrs = {"hidden_size": 6, "direction": direction}
        actual, expected = _run_both(op, opset, feeds, attrs)
        _check(actual, expected)
        _check(actual, _reference(op, feeds, attrs))


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", _DIRECTIONS)
def test_mixed_sequence_lengths_with_zero(op, direction):
    # Entries of length 0, 1, full and in between: Y is zero past each length, Y_h/Y_c hold
    # the last valid step's state (zero for length 0, as onnxruntime).
    feeds = _feeds(op, 6, 5, 2, 3, _dirs(direction), lens=[0, 6, 1, 4, 2],
                   peepholes=op == "LSTM")
    attrs = {"hidden_size": 3, "direction": direction}
    actual, expected = _run_both(op, 14, feeds, attrs)
    _check(actual, expected)
    assert not actual[0][:, :, 0].any() and not actual[1][:, 0].any()


_ORT_ZERO_DEFAULTS = ("Affine", "ThresholdedRelu", "ScaledTanh")
_ALL_ACTIVATIONS = ["Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
                    "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"]


@pytest.mark.parametrize("name", _ALL_ACTIVATIONS)
@pytest.mark.parametrize("with_params", [False, True])
def test_rnn_every_activation(name, with_params):
    attrs = {"hidden_size": 4, "direction": "bidirectional", "activations": [name, name]}
    if with_params:
        attrs.update(activation_alpha=[0.7, 1.3], activation_beta=[0.4, -0.2])
    feeds = _feeds("RNN", 4, 3, 3, 4, 2, lens=[4, 2, 3], scale=0.8)
    actual, expected = _run_both("RNN", 14, feeds, attrs)
    if with_params or name not in _ORT_ZERO_DEFAULTS:
        _check(actual, expected)
    else:
        # onnxruntime gives these functions alpha = beta = 0 when the lists do not reach them;
        # Prism takes the defaults of the ONNX operators of the same name (ThresholdedRelu's
        # alpha 1, Affine's 1 and 0; ScaledTanh, whose operator had none, 1 and 1).
        assert not np.allclose(actual[0], expected[0], atol=1e-3)
    _check(actual, _reference("RNN", feeds, attrs))


# (f, g) for GRU and (f, g, h) for LSTM; parameters are consumed in order by the functions
# that take them.
_GRU_SETS = [
    (["HardSigmoid", "Softsign"], {}),
    (["HardSigmoid", "Tanh"], {"activation_alpha": [0.3], "activation_beta": [0.45]}),
    (["Sigmoid", "LeakyRelu"], {"activation_alpha": [0.2]}),
    (["Sigmoid", "Elu"], {}),
    (["ScaledTanh", "Affine"], {"activation_alpha": [0.9, 0.5], "activation_beta": [1.1, 0.1]}),
    (["Sigmoid", "Relu"], {}),
    (["Sigmoid", "Softplus"], {}),
    (["Sigmoid", "ThresholdedRelu"], {"activation_alpha": [0.1]}),
]
_LSTM_SETS = [
    (["HardSigmoid", "Tanh", "Softsign"], {}),
    (["Sigmoid", "LeakyRelu", "Elu"], {"activation_alpha": [0.1, 0.5]}),
    (["HardSigmoid", "ScaledTanh", "Affine"],
     {"activation_alpha": [0.25, 1.5, 0.8], "activation_beta": [0.55, 0.7, -0.1]}),
    (["Sigmoid", "Relu", "Softplus"], {}),
    (["Sigmoid", "ThresholdedRelu", "Tanh"], {"activation_alpha": [0.05]}),
    (["Sigmoid", "Tanh", "Sigmoid"], {}),
]


@pytest.mark.parametrize("functions,params", _GRU_SETS)
@pytest.mark.parametrize("linear_before_reset", [0, 1])
def test_gru_activation_sets(functions, params, linear_before_reset):
    attrs = {"hidden_size": 5, "activations": functions,
             "linear_before_reset": linear_before_reset, **params}
    feeds = _feeds("GRU", 4, 3, 3, 5, 1, lens=[4, 1, 3])
    actual, expected = _run_both("GRU", 14, feeds, attrs)
    _check(actual, expected)
    _check(actual, _reference("GRU", feeds, attrs))


@pytest.mark.parametrize("functions,params", _LSTM_SETS)
def test_lstm_activation_sets(functions, params):
    attrs = {"hidden_size": 4, "activations": functions, "direction": "reverse", **params}
    feeds = _feeds("LSTM", 4, 3, 3, 4, 1, lens=[2, 4, 3], peepholes=True)
    actual, expected = _run_both("LSTM", 14, feeds, attrs)
    _check(actual, expected)
    _check(actual, _reference("LSTM", feeds, attrs))


def test_forward_rnn_given_two_functions_uses_the_first():
    # RNN's spec default is ["Tanh", "Tanh"] for every direction; onnxruntime takes the first.
    attrs = {"hidden_size": 3, "activations": ["Relu", "Tanh"]}
    feeds = _feeds("RNN", 3, 2, 4, 3, 1)
    actual, expected = _run_both("RNN", 14, feeds, attrs)
    _check(actual, expected)
    _check(actual, _reference("RNN", feeds, {**attrs, "activations": ["Relu"]}))


def test_bidirectional_with_different_functions_per_direction():
    attrs = {"hidden_size": 3, "direction": "bidirectional",
             "activations": ["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Softsign", "Relu"]}
    feeds = _feeds("LSTM", 3, 2, 4, 3, 2, peepholes=True)
    actual, expected = _run_both("LSTM", 14, feeds, attrs)
    _check(actual, expected)
    _check(actual, _reference("LSTM", feeds, attrs))


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", _DIRECTIONS)
def test_clip(op, direction):
    attrs = {"hidden_size": 4, "direction": direction, "clip": 0.35}
    if op == "GRU":
        attrs["linear_before_reset"] = 1
    feeds = _feeds(op, 5, 3, 3, 4, _dirs(direction), lens=[5, 2, 4], scale=1.5,
                   peepholes=op == "LSTM")
    actual, expected = _run_both(op, 14, feeds, attrs)
    _check(actual, expected)
    # Without the clip the results differ: the test sees it.
    unclipped = _reference(op, feeds, {k: v for k, v in attrs.items() if k != "clip"})
    assert not np.allclose(actual[0], unclipped[0], atol=1e-3)


@pytest.mark.parametrize("direction", _DIRECTIONS)
@pytest.mark.parametrize("linear_before_reset", [0, 1])
def test_gru_linear_before_reset(direction, linear_before_reset):
    attrs = {"hidden_size": 5, "direction": direction, "linear_before_reset": linear_before_reset}
    feeds = _feeds("GRU", 5, 3, 4, 5, _dirs(direction), lens=[5, 3, 4], scale=1.0)
    actual, expected = _run_both("GRU", 14, feeds, attrs)
    _check(actual, expected)


@pytest.mark.parametrize("direction", _DIRECTIONS)
@pytest.mark.parametrize("input_forget", [0, 1])
@pytest.mark.parametrize("peepholes", [False, True])
def test_lstm_input_forget_and_peepholes(direction, input_forget, peepholes):
    attrs = {"hidden_size": 4, "direction": direction, "input_forget": input_forget}
    feeds = _feeds("LSTM", 4, 3, 3, 4, _dirs(direction), lens=[4, 1, 3], peepholes=peepholes,
                   scale=1.0)
    actual, expected = _run_both("LSTM", 14, feeds, attrs)
    _check(actual, expected)
    _check(actual, _reference("LSTM", feeds, attrs))


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", _DIRECTIONS)
def test_layout_1_matches_onnxruntime_on_transposed_inputs(op, direction):
    dirs = _dirs(direction)
    feeds = _feeds(op, 4, 3, 2, 5, dirs, lens=[4, 2, 0], peepholes=op == "LSTM", layout=1)
    attrs = {"hidden_size": 5, "direction": direction, "layout": 1}
    model = _model(op, 14, TensorProto.FLOAT, feeds, attrs, _outputs(op))
    actual = ort.InferenceSession(model).run(None, feeds)
    seq_major = dict(feeds)
    seq_major["X"] = feeds["X"].transpose(1, 0, 2)
    for name in ("initial_h", "initial_c"):
        if name in feeds:
            seq_major[name] = feeds[name].transpose(1, 0, 2)
    _, expected = _run_both(op, 14, seq_major, {"hidden_size": 5, "direction": direction})
    expected = [expected[0].transpose(2, 0, 1, 3)] + [s.transpose(1, 0, 2) for s in expected[1:]]
    _check(actual, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_omitted_outputs_and_inputs(op):
    # Only Y_h, with B omitted by name ("") before sequence_lens and initial_h.
    feeds = _feeds(op, 3, 2, 3, 4, 1, bias=False, lens=[3, 2])
    outputs = ["", "Y_h"] + ([""] if op == "LSTM" else [])
    actual, expected = _run_both(op, 14, feeds, {"hidden_size": 4}, outputs)
    assert len(actual) == 1
    _check(actual, expected)
    # Only Y.
    actual, expected = _run_both(op, 14, feeds, {"hidden_size": 4}, ["Y"])
    _check(actual, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_hidden_size_taken_from_r(op):
    # onnxruntime requires the attribute; the spec has it optional, R's last dim says it.
    feeds = _feeds(op, 3, 2, 3, 4, 1)
    actual = ort.InferenceSession(_model(op, 14, TensorProto.FLOAT, feeds, {}, _outputs(op))).run(
        None, feeds)
    _, expected = _run_both(op, 14, feeds, {"hidden_size": 4})
    _check(actual, expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", _DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
def test_double_against_reference(op, direction, layout):
    attrs = {"hidden_size": 5, "direction": direction, "layout": layout, "clip": 1.5}
    if op == "GRU":
        attrs["linear_before_reset"] = 1 if direction == "reverse" else 0
    feeds = _feeds(op, 5, 3, 4, 5, _dirs(direction), dtype=np.float64, lens=[5, 0, 3],
                   peepholes=op == "LSTM", layout=layout, scale=0.9)
    model = _model(op, 22, TensorProto.DOUBLE, feeds, attrs, _outputs(op))
    actual = ort.InferenceSession(model).run(None, feeds)
    expected = _reference(op, feeds, attrs)
    for a, e in zip(actual, expected):
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_float16_against_reference_on_the_same_inputs(op):
    feeds = _feeds(op, 4, 2, 3, 4, 2, dtype=np.float16, lens=[4, 2], peepholes=op == "LSTM")
    attrs = {"hidden_size": 4, "direction": "bidirectional"}
    model = _model(op, 14, TensorProto.FLOAT16, feeds, attrs, _outputs(op))
    actual = ort.InferenceSession(model).run(None, feeds)
    expected = _reference(op, feeds, attrs)
    for a, e in zip(actual, expected):
        assert a.dtype == np.float16
        # Computed in float and rounded once: within a float16 rounding of the exact result.
        np.testing.assert_allclose(a.astype(np.float64), e, rtol=2e-3, atol=2e-4)


@pytest.mark.parametrize("op,opset,attrs", [
    ("RNN", 1, {}), ("GRU", 1, {}), ("GRU", 3, {"linear_before_reset": 1}), ("LSTM", 1, {}),
    ("RNN", 1, {"output_sequence": 1}),
])
def test_opsets_before_7_against_reference(op, opset, attrs):
    attrs = {"hidden_size": 3, "direction": "bidirectional", **attrs}
    feeds = _feeds(op, 3, 2, 2, 3, 2, lens=[3, 1])
    model = _model(op, opset, TensorProto.FLOAT, feeds, attrs, _outputs(op))
    actual = ort.InferenceSession(model).run(None, feeds)
    _check(actual, _reference(op, feeds, attrs))


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_empty_batch_and_empty_sequence(op):
    for seq, batch in ((3, 0), (0, 2)):
        feeds = _feeds(op, seq, batch, 3, 4, 1, initial=False)
        model = _model(op, 14, TensorProto.FLOAT, feeds, {"hidden_size": 4}, _outputs(op))
        actual = ort.InferenceSession(model).run(None, feeds)
        assert actual[0].shape == (seq, 1, batch, 4)
        for state in actual[1:]:
            assert state.shape == (1, batch, 4) and not state.any()


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_bad_shapes_are_refused_by_name(op):
    gates = _GATES[op]
    feeds = _feeds(op, 3, 2, 3, 4, 1, lens=[3, 2])
    cases = [
        ("W", feeds["W"][:, :gates * 4 - 1], "input W"),
        ("R", np.zeros((1, gates * 4, 3), np.float32), "input R"),
        ("B", np.zeros((1, 2 * gates * 4 + 1), np.float32), "input B"),
        ("initial_h", np.zeros((1, 3, 4), np.float32), "input initial_h"),
        ("sequence_lens", np.array([4, 2], np.int32), "sequence_lens[0]"),
        ("sequence_lens", np.array([-1, 2], np.int32), "sequence_lens[0]"),
        ("sequence_lens", np.array([3], np.int32), "input sequence_lens"),
    ]
    for name, value, message in cases:
        bad = dict(feeds)
        bad[name] = value
        model = _model(op, 14, TensorProto.FLOAT, bad, {"hidden_size": 4}, _outputs(op))
        with pytest.raises(Exception, match=re.escape(message)):
            ort.InferenceSession(model).run(None, bad)
    # W for two directions with direction forward.
    bad = dict(feeds)
    bad["W"] = np.concatenate([feeds["W"], feeds["W"]])
    model = _model(op, 14, TensorProto.FLOAT, bad, {"hidden_size": 4}, _outputs(op))
    with pytest.raises(Exception, match="input W must have shape"):
        ort.InferenceSession(model).run(None, bad)


@pytest.mark.parametrize("attrs,message", [
    ({"activations": ["Gelu"]}, "unknown function 'Gelu'"),
    ({"activations": ["Tanh", "Tanh", "Tanh"]}, "activations must list 1 functions"),
    # Bidirectional needs both directions' functions (as onnxruntime).
    ({"activations": ["Relu"], "direction": "bidirectional"}, "activations must list 2 functions"),
    ({"direction": "sideways"}, "direction must be forward, reverse or bidirectional"),
    ({"layout": 2}, "layout must be 0 or 1"),
    ({"hidden_size": 0}, "hidden_size must be positive"),
])
def test_bad_attributes_are_refused_by_name(attrs, message):
    feeds = _feeds("RNN", 2, 1, 2, 3, 1)
    model = _model("RNN", 14, TensorProto.FLOAT, feeds, attrs, ["Y"])
    with pytest.raises(Exception, match=message):
        ort.InferenceSession(model).run(None, feeds)


# --- models shaped like torch.onnx's exports -----------------------------------------------------

def _init(name, array):
    return numpy_helper.from_array(np.ascontiguousarray(array, np.float32), name)


def _ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def _torch_lstm_model(input_size, hidden, layers=2):
    """torch.onnx's export of nn.LSTM(input_size, hidden, num_layers=2, bidirectional=True)
    called as lstm(x, (h0, c0)): per layer, Slice of h0/c0 for the layer, an LSTM node with
    weights in ONNX gate order (iofc) as initializers, then Transpose [seq, dirs, batch, hidden]
    -> [seq, batch, dirs, hidden] and Reshape to [seq, batch, 2 * hidden] feeding the next
    layer; the final states are Concat of each layer's Y_h / Y_c."""
    nodes, inits = [], [_ints("shape_seq_batch_features", [0, 0, -1])]
    layer_input, in_size = "input", input_size
    states_h, states_c = [], []
    for layer in range(layers):
        w = _RNG.standard_normal((2, 4 * hidden, in_size)) * 0.4
        r = _RNG.standard_normal((2, 4 * hidden, hidden)) * 0.4
        b = _RNG.standard_normal((2, 8 * hidden)) * 0.2
        inits += [_init(f"W{layer}", w), _init(f"R{layer}", r), _init(f"B{layer}", b),
                  _ints(f"start{layer}", [2 * layer]), _ints(f"end{layer}", [2 * layer + 2]),
                  _ints(f"axis{layer}", [0])]
        for state in ("h0", "c0"):
            nodes.append(helper.make_node("Slice", [state, f"start{layer}", f"end{layer}",
                                                    f"axis{layer}"], [f"{state}_{layer}"]))
        nodes.append(helper.make_node(
            "LSTM", [layer_input, f"W{layer}", f"R{layer}", f"B{layer}", "", f"h0_{layer}",
                     f"c0_{layer}"], [f"Y{layer}", f"Yh{layer}", f"Yc{layer}"],
            hidden_size=hidden, direction="bidirectional"))
        nodes.append(helper.make_node("Transpose", [f"Y{layer}"], [f"Yt{layer}"],
                                      perm=[0, 2, 1, 3]))
        nodes.append(helper.make_node("Reshape", [f"Yt{layer}", "shape_seq_batch_features"],
                                      [f"out{layer}"]))
        layer_input, in_size = f"out{layer}", 2 * hidden
        states_h.append(f"Yh{layer}")
        states_c.append(f"Yc{layer}")
    nodes.append(helper.make_node("Identity", [layer_input], ["output"]))
    nodes.append(helper.make_node("Concat", states_h, ["hn"], axis=0))
    nodes.append(helper.make_node("Concat", states_c, ["cn"], axis=0))
    graph = helper.make_graph(
        nodes, "torch_lstm",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["seq", "batch", input_size]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, [2 * layers, "batch", hidden]),
         helper.make_tensor_value_info("c0", TensorProto.FLOAT, [2 * layers, "batch", hidden])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                       ["seq", "batch", 2 * hidden]),
         helper.make_tensor_value_info("hn", TensorProto.FLOAT, [2 * layers, "batch", hidden]),
         helper.make_tensor_value_info("cn", TensorProto.FLOAT, [2 * layers, "batch", hidden])],
        initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                             ir_version=8).SerializeToString()


def _torch_gru_model(input_size, hidden):
    """torch.onnx's export of nn.GRU(input_size, hidden, batch_first=True) called as
    gru(x, h0): Transpose of the batch-first input to [seq, batch, input], a GRU node with
    linear_before_reset=1 (PyTorch's cell) and weights in ONNX gate order (zrh), Squeeze of the
    direction axis, Transpose back to batch-first."""
    w = _RNG.standard_normal((1, 3 * hidden, input_size)) * 0.5
    r = _RNG.standard_normal((1, 3 * hidden, hidden)) * 0.5
    b = _RNG.standard_normal((1, 6 * hidden)) * 0.2
    nodes = [
        helper.make_node("Transpose", ["input"], ["x_seq"], perm=[1, 0, 2]),
        helper.make_node("GRU", ["x_seq", "W", "R", "B", "", "h0"], ["Y", "hn"],
                         hidden_size=hidden, linear_before_reset=1),
        helper.make_node("Squeeze", ["Y", "axis1"], ["y_seq"]),
        helper.make_node("Transpose", ["y_seq"], ["output"], perm=[1, 0, 2]),
    ]
    graph = helper.make_graph(
        nodes, "torch_gru",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", "seq", input_size]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, [1, "batch", hidden])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", "seq", hidden]),
         helper.make_tensor_value_info("hn", TensorProto.FLOAT, [1, "batch", hidden])],
        initializer=[_init("W", w), _init("R", r), _init("B", b), _ints("axis1", [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                             ir_version=8).SerializeToString()


def test_torch_style_two_layer_bidirectional_lstm():
    model = _torch_lstm_model(input_size=5, hidden=6)
    prism = ort.InferenceSession(model)
    oracle = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    for batch, seq in ((1, 1), (3, 7), (8, 2), (2, 12)):
        feeds = {"input": _RNG.standard_normal((seq, batch, 5)).astype(np.float32),
                 "h0": _RNG.standard_normal((4, batch, 6)).astype(np.float32),
                 "c0": _RNG.standard_normal((4, batch, 6)).astype(np.float32)}
        actual = prism.run(None, feeds)
        assert actual[0].shape == (seq, batch, 12)
        _check(actual, oracle.run(None, feeds))


def test_torch_style_batch_first_gru():
    model = _torch_gru_model(input_size=4, hidden=7)
    prism = ort.InferenceSession(model)
    oracle = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    for batch, seq in ((1, 3), (5, 1), (4, 9), (16, 5)):
        feeds = {"input": _RNG.standard_normal((batch, seq, 4)).astype(np.float32),
                 "h0": _RNG.standard_normal((1, batch, 7)).astype(np.float32)}
        actual = prism.run(None, feeds)
        assert actual[0].shape == (batch, seq, 7)
        _check(actual, oracle.run(None, feeds))
