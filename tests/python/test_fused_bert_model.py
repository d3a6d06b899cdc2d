"""A small BERT built with onnx.helper in the pattern PyTorch exports it, fused by
onnxruntime.transformers' optimizer into com.microsoft ops (EmbedLayerNormalization, Attention,
SkipLayerNormalization, a Gelu variant), then run by Prism and onnxruntime on random ids and
padded attention masks at several batch sizes and sequence lengths."""
import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort
from capi_values import run_through_c_abi

# onnxruntime.transformers' optimizer needs sympy (pinned in requirements-test.txt).
from onnxruntime.transformers.optimizer import optimize_model  # noqa: E402

_HIDDEN, _HEADS, _LAYERS, _VOCAB, _MAX_POSITIONS, _FFN = 32, 4, 2, 50, 64, 64


class _Builder:
    """Collects nodes and initializers; names are unique per builder."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.nodes, self.initializers, self.count = [], [], 0

    def name(self, stem):
        self.count += 1
        return "%s_%d" % (stem, self.count)

    def const(self, stem, value):
        name = self.name(stem)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, stem, *shape, scale=0.1):
        return self.const(stem, (self.rng.standard_normal(shape) * scale).astype(np.float32))

    def op(self, op_type, inputs, **attrs):
        output = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=self.name(op_type),
                                           **attrs))
        return output

    def linear(self, x, fan_in, fan_out):  # nn.Linear: MatMul then Add of the bias
        product = self.op("MatMul", [x, self.weight("weight", fan_in, fan_out)])
        return self.op("Add", [self.weight("bias", fan_out, scale=0.05), product])

    def layer_norm(self, x):
        gamma = self.const("gamma", (1 + 0.1 * self.rng.standard_normal(_HIDDEN)).astype(
            np.float32))
        beta = self.weight("beta", _HIDDEN, scale=0.05)
        return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-12)


def _to_heads(b, x, key=False):
    shape = b.const("shape", np.array([0, 0, _HEADS, _HIDDEN // _HEADS], np.int64))
    return b.op("Transpose", [b.op("Reshape", [x, shape])],
                perm=[0, 2, 3, 1] if key else [0, 2, 1, 3])


def _encoder_layer(b, x, extended_mask):
    q = _to_heads(b, b.linear(x, _HIDDEN, _HIDDEN))
    k = _to_heads(b, b.linear(x, _HIDDEN, _HIDDEN), key=True)
    v = _to_heads(b, b.linear(x, _HIDDEN, _HIDDEN))
    scores = b.op("Div", [b.op("MatMul", [q, k]),
                          b.const("sqrt_d", np.array(np.sqrt(_HIDDEN // _HEADS), np.float32))])
    probs = b.op("Softmax", [b.op("Add", [scores, extended_mask])], axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    merged = b.op("Reshape", [context, b.const("shape", np.array([0, 0, _HIDDEN], np.int64))])
    attention_out = b.layer_norm(b.op("Add", [b.linear(merged, _HIDDEN, _HIDDEN), x]))
    hidden = b.linear(attention_out, _HIDDEN, _FFN)
    # gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))), as torch exports it
    erf = b.op("Erf", [b.op("Div", [hidden, b.const("sqrt2", np.array(1.4142135, np.float32))])])
    gelu = b.op("Mul", [b.op("Mul", [hidden, b.op("Add", [erf, b.const(
        "one", np.array(1.0, np.float32))])]), b.const("half", np.array(0.5, np.float32))])
    return b.layer_norm(b.op("Add", [b.linear(gelu, _FFN, _HIDDEN), attention_out]))


def _bert_model(seed=7):
    b = _Builder(seed)
    # Embeddings: word + token type, then the position slice of a [1, max] id table.
    words = b.op("Gather", [b.weight("word_embeddings", _VOCAB, _HIDDEN, scale=0.5),
                            "input_ids"])
    types = b.op("Gather", [b.weight("token_type_embeddings", 2, _HIDDEN, scale=0.5),
                            "token_type_ids"])
    seq_len = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const("one", np.array(1, np.int64))])
    end = b.op("Unsqueeze", [seq_len, b.const("axes", np.array([0], np.int64))])
    position_ids = b.op("Slice", [b.const("position_ids", np.arange(_MAX_POSITIONS,
                                                                      dtype=np.int64)[None]),
                                  b.const("starts", np.array([0], np.int64)), end,
                                  b.const("axes", np.array([1], np.int64)),
                                  b.const("steps", np.array([1], np.int64))])
    positions = b.op("Gather", [b.weight("position_embeddings", _MAX_POSITIONS, _HIDDEN,
                                         scale=0.5), position_ids])
    x = b.layer_norm(b.op("Add", [b.op("Add", [words, types]), positions]))
    # The extended mask (1 - mask[:, None, None, :]) * -10000.
    unsqueezed = b.op("Unsqueeze", [b.op("Unsqueeze", ["attention_mask", b.const(
        "axes", np.array([1], np.int64))]), b.const("axes", np.array([2], np.int64))])
    inverted = b.op("Sub", [b.const("one", np.array(1.0, np.float32)),
                            b.op("Cast", [unsqueezed], to=TensorProto.FLOAT)])
    extended_mask = b.op("Mul", [inverted, b.const("minus", np.array(-10000.0, np.float32))])
    for _ in range(_LAYERS):
        x = _encoder_layer(b, x, extended_mask)
    b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ids = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
           for name in ("input_ids", "token_type_ids", "attention_mask")]
    graph = helper.make_graph(
        b.nodes, "tiny_bert", ids,
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       ["batch", "sequence", _HIDDEN])], b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8,
                              producer_name="pytorch", producer_version="2.1.0")
    onnx.checker.check_model(model)
    return model


def build_fused_model(folder):
    """(the exported model's path, the fused model's path), written into folder."""
    path = str(folder / "bert.onnx")
    onnx.save(_bert_model(), path)
    optimized = optimize_model(path, model_type="bert", num_heads=_HEADS, hidden_size=_HIDDEN,
                               opt_level=0)
    fused_path = str(folder / "bert_fused.onnx")
    optimized.save_model_to_file(fused_path)
    return path, fused_path


@pytest.fixture(scope="module")
def fused_model(tmp_path_factory):
    return build_fused_model(tmp_path_factory.mktemp("fused_bert"))


def _op_types(path):
    return {(node.domain or "ai.onnx", node.op_type) for node in onnx.load(path).graph.node}


def test_the_fusions_fire(fused_model):
    _, fused_path = fused_model
    ops = _op_types(fused_path)
    for op in ("Attention", "SkipLayerNormalization", "EmbedLayerNormalization"):
        assert ("com.microsoft", op) in ops, (op, sorted(ops))
    assert ops & {("com.microsoft", g) for g in ("Gelu", "BiasGelu", "FastGelu")}, sorted(ops)
    # Nothing of the unfused attention is left.
    assert ("ai.onnx", "Softmax") not in ops and ("ai.onnx", "Erf") not in ops, sorted(ops)


def _feeds(rng, batch, seq, padding):
    input_ids = rng.randint(0, _VOCAB, size=(batch, seq)).astype(np.int64)
    token_type_ids = rng.randint(0, 2, size=(batch, seq)).astype(np.int64)
    mask = np.ones((batch, seq), np.int64)
    if padding:
        for row in range(batch):  # right padding, as tokenizers pad; row 0 keeps every token
            mask[row, rng.randint(1, seq + 1) if row else seq:] = 0
    return {"input_ids": input_ids, "token_type_ids": token_type_ids, "attention_mask": mask}


@pytest.mark.parametrize("batch,seq", [(1, 1), (1, 7), (2, 5), (3, 16), (4, 33)])
@pytest.mark.parametrize("padding", [False, True])
def test_fused_model_matches_onnxruntime(fused_model, batch, seq, padding, tmp_path):
    original_path, fused_path = fused_model
    rng = np.random.RandomState(batch * 100 + seq + padding)
    feeds = _feeds(rng, batch, seq, padding)
    expected = onnxruntime.InferenceSession(
        fused_path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    session = ort.InferenceSession(fused_path, providers=["CPUExecutionProvider"])
    actual = session.run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)
    through_c = run_through_c_abi(fused_path, feeds, tmp_path)[0]  # the C ABI alone
    np.testing.assert_allclose(through_c, expected, rtol=1e-4, atol=1e-4)
    # The fused graph computes what the exported one does (the unfused model through Prism).
    unfused = ort.InferenceSession(original_path, providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    np.testing.assert_allclose(actual, unfused, rtol=1e-3, atol=1e-3)


def test_one_session_serves_several_shapes(fused_model):
    _, fused_path = fused_model
    session = ort.InferenceSession(fused_path, providers=["CPUExecutionProvider"])
    reference = onnxruntime.InferenceSession(fused_path, providers=["CPUExecutionProvider"])
    rng = np.random.RandomState(11)
    for batch, seq in [(2, 9), (1, 3), (5, 12), (2, 9)]:
        feeds = _feeds(rng, batch, seq, True)
        np.testing.assert_allclose(session.run(None, feeds)[0], reference.run(None, feeds)[0],
                                   rtol=1e-4, atol=1e-4)
