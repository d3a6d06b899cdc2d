"""Writes small ONNX models whose sizes, axes, counts and attributes sit at the int64 limits
(INT64_MAX, INT64_MIN, 2^31, 2^32, 2^62, -2^62, -1, 3037000500 = ceil(sqrt(INT64_MAX))): the
inputs that decide an output's size are initializers (so they reach shape inference, constant
folding and the kernels as given), the others graph inputs (the fuzz target feeds them).

scripts/fuzz.sh adds them to the model target's seeds: each runs once under AddressSanitizer
and UndefinedBehaviorSanitizer before the mutations start, and the mutator starts from them.
The first sweep (2026-11-29) found ten kernels and shape functions that formed sizes without
overflow checks (ConvTranspose, the NCHWc Conv, DepthToSpace/SpaceToDepth, EyeLike, blocked
QuantizeLinear/DequantizeLinear, ceil-mode pooling, Multinomial; Col2Im before it), the second
(com.microsoft and ai.onnx.ml ops) four more (MatMulNBits, QLinearAveragePool's shape function,
the tree ensembles' feature ids, FeatureVectorizer), the third LSTM and GRU's hidden_size.

    .venv/bin/python fuzz/make_hostile_models.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

INT64_MAX = int(np.iinfo(np.int64).max)
INT64_MIN = int(np.iinfo(np.int64).min)
EXTREMES = [INT64_MAX, INT64_MIN, 2**31, 2**32, 2**62, -2**62, -1, 3037000500]
ML = helper.make_opsetid("ai.onnx.ml", 3)


def floats(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def untyped(name):
    return helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None)


def sequence(name):
    return helper.make_tensor_sequence_value_info(name, TensorProto.FLOAT, None)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def f32(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


class Writer:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    def model(self, name, nodes, inputs, outputs, initializers=(), opset=21, extra_opsets=()):
        graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
        opsets = [helper.make_opsetid("", opset)] + list(extra_opsets)
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 10
        with open(os.path.join(self.folder, "hostile-%s.onnx" % name), "wb") as f:
            f.write(model.SerializeToString())
        self.count += 1


def shape_inputs(w):
    """Ops whose second input is a shape, repeats, axes or pads list."""
    cases = [
        ("Expand", "shape", [[v] for v in EXTREMES] + [[v, 3] for v in EXTREMES] +
         [[2**32, 2**32], [2**40, 2**40, 2**40]]),
        ("Tile", "repeats", [[v, 1] for v in EXTREMES] + [[2**32, 2**32], [2**62, 4]]),
        ("Reshape", "shape", [[v] for v in EXTREMES] + [[-1, v] for v in EXTREMES] +
         [[0, v] for v in EXTREMES]),
        ("Unsqueeze", "axes", [[v] for v in EXTREMES]),
        ("Squeeze", "axes", [[v] for v in EXTREMES]),
        ("ReduceSum", "axes", [[v] for v in EXTREMES]),
        ("CenterCropPad", "shape", [[v, 3] for v in EXTREMES] + [[2**32, 2**32]]),
        ("Pad", "pads", [[v, 0, 0, 0] for v in EXTREMES] + [[0, v, 0, v] for v in EXTREMES] +
         [[2**31] * 4]),
    ]
    for op, name, lists in cases:
        for k, values in enumerate(lists):
            w.model("%s-%s-%d" % (op, name, k), [helper.make_node(op, ["x", name], ["y"])],
                    [floats("x", [2, 3])], [untyped("y")], [i64(name, values)])


def scalar(name, value, dtype=np.int64):
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def one_value(w, k, v):
    """Ops with one size-like input or attribute set to v."""
    node = helper.make_node
    x23, x33, x43 = floats("x", [2, 3]), floats("x", [3, 3]), floats("x", [4, 3])
    x44 = floats("x", [1, 1, 4, 4])
    ones22 = f32("w", np.ones((1, 1, 2, 2)))
    cases = [
        ("ConstantOfShape", [node("ConstantOfShape", ["s"], ["y"])], [], [i64("s", [v])]),
        ("ConstantOfShape2", [node("ConstantOfShape", ["s"], ["y"])], [], [i64("s", [v, v])]),
        ("ConstantOfShape0", [node("ConstantOfShape", ["s"], ["y"])], [], [i64("s", [0, v, v])]),
        ("OneHot", [node("OneHot", ["i", "d", "v"], ["y"])], [],
         [i64("i", [0, 1]), i64("d", [v]), f32("v", [0, 1])]),
        ("OneHotAxis", [node("OneHot", ["i", "d", "v"], ["y"], axis=v)], [],
         [i64("i", [0, 1]), i64("d", [3]), f32("v", [0, 1])]),
        ("TopK", [node("TopK", ["x", "k"], ["y", "z"])], [x23], [i64("k", [v])]),
        ("TopKAxis", [node("TopK", ["x", "k"], ["y", "z"], axis=v)], [x23], [i64("k", [1])]),
        ("Range", [node("Range", ["a", "b", "c"], ["y"])], [],
         [scalar("a", 0), scalar("b", v), scalar("c", 1)]),
        ("RangeStep", [node("Range", ["a", "b", "c"], ["y"])], [],
         [scalar("a", INT64_MIN), scalar("b", INT64_MAX), scalar("c", v)]),
        ("RangeFloat", [node("Range", ["a", "b", "c"], ["y"])], [],
         [scalar("a", 0, np.float32), scalar("b", float(v), np.float32),
          scalar("c", 1e-30, np.float32)]),
        ("Slice", [node("Slice", ["x", "s", "e", "a", "t"], ["y"])], [x43],
         [i64("s", [v]), i64("e", [INT64_MAX]), i64("a", [0]), i64("t", [v])]),
        ("SliceEnd", [node("Slice", ["x", "s", "e", "a", "t"], ["y"])], [x43],
         [i64("s", [INT64_MAX]), i64("e", [v]), i64("a", [v]), i64("t", [-1])]),
        ("Split", [node("Split", ["x", "s"], ["y", "z"], axis=0)], [x43],
         [i64("s", [v, 4 - v if abs(v) < 2**62 else 1])]),
        ("SplitOutputs", [node("Split", ["x"], ["y", "z"], axis=0, num_outputs=v)], [x43], []),
        ("MaxUnpool", [node("MaxUnpool", ["x", "i", "o"], ["y"], kernel_shape=[2, 2],
                            strides=[2, 2])], [floats("x", [1, 1, 2, 2])],
         [i64("i", np.zeros((1, 1, 2, 2))), i64("o", [1, 1, v, 4])]),
        ("ResizeSizes", [node("Resize", ["x", "", "", "s"], ["y"])], [floats("x", [1, 1, 2, 2])],
         [i64("s", [1, 1, v, 2])]),
        ("ResizeScales", [node("Resize", ["x", "", "c"], ["y"])], [floats("x", [1, 1, 2, 2])],
         [f32("c", [1, 1, float(v), 1])]),
        ("ReverseSequence", [node("ReverseSequence", ["x", "l"], ["y"], batch_axis=1,
                                  time_axis=0)], [floats("x", [3, 2])], [i64("l", [v, 1])]),
        ("NonMaxSuppression", [node("NonMaxSuppression", ["b", "c", "m"], ["y"])],
         [floats("b", [1, 2, 4]), floats("c", [1, 1, 2])], [i64("m", [v])]),
        ("Trilu", [node("Trilu", ["x", "k"], ["y"])], [x33], [scalar("k", v)]),
        ("EyeLike", [node("EyeLike", ["x"], ["y"], k=v)], [x33], []),
        ("CumSum", [node("CumSum", ["x", "a"], ["y"], reverse=1, exclusive=1)], [x33],
         [scalar("a", v)]),
        ("Gather", [node("Gather", ["x", "i"], ["y"])], [x33], [i64("i", [v])]),
        ("GatherAxis", [node("Gather", ["x", "i"], ["y"], axis=v)], [x23], [i64("i", [0])]),
        ("GatherElements", [node("GatherElements", ["x", "i"], ["y"])], [x33],
         [i64("i", [[v, 0, 0]])]),
        ("ScatterElements", [node("ScatterElements", ["x", "i", "u"], ["y"])], [x33],
         [i64("i", [[v, 0, 0]]), f32("u", [[1, 2, 3]])]),
        ("GatherND", [node("GatherND", ["x", "i"], ["y"])], [x33], [i64("i", [[v, 0]])]),
        ("ScatterND", [node("ScatterND", ["x", "i", "u"], ["y"], reduction="mul")], [x33],
         [i64("i", [[v]]), f32("u", [[1, 2, 3]])]),
        ("Transpose", [node("Transpose", ["x"], ["y"], perm=[v, 0])], [x23], []),
        ("Unique", [node("Unique", ["x"], ["y", "a", "b", "c"], axis=v)], [x23], []),
        ("Hardmax", [node("Hardmax", ["x"], ["y"], axis=v)], [x23], []),
        ("LayerNormalization", [node("LayerNormalization", ["x", "s"], ["y"], axis=v)], [x23],
         [f32("s", [1, 1, 1])]),
        ("GroupNormalization", [node("GroupNormalization", ["x", "s", "b"], ["y"],
                                     num_groups=v)], [floats("x", [1, 4, 2])],
         [f32("s", [1] * 4), f32("b", [0] * 4)]),
        ("QuantizeBlocked", [node("QuantizeLinear", ["x", "s"], ["y"], axis=1, block_size=v)],
         [floats("x", [2, 4])], [f32("s", np.ones((2, 2)))]),
        ("DequantizeBlocked", [node("DequantizeLinear", ["x", "s"], ["y"], axis=1,
                                    block_size=v)], [floats("x", [2, 4], TensorProto.INT8)],
         [f32("s", np.ones((2, 2)))]),
        ("DequantizeAxis", [node("DequantizeLinear", ["x", "s"], ["y"], axis=v)],
         [floats("x", [2, 4], TensorProto.INT8)], [f32("s", np.ones(4))]),
        ("Multinomial", [node("Multinomial", ["x"], ["y"], sample_size=v)],
         [floats("x", [1, 3])], []),
        ("RandomNormal", [node("RandomNormal", [], ["y"], shape=[v, 2])], [], []),
        ("NegativeLogLikelihoodLoss", [node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"],
                                            ignore_index=v)], [x23], [i64("t", [v, 1])]),
        ("SoftmaxCrossEntropyLoss", [node("SoftmaxCrossEntropyLoss", ["x", "t"], ["y"])], [x23],
         [i64("t", [v, 1])]),
        ("MaxRoiPool", [node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[v, 2])], [x44],
         [f32("r", [[0, 0, 0, 2, 2]])]),
        ("RoiAlign", [node("RoiAlign", ["x", "r", "b"], ["y"], output_height=v,
                           sampling_ratio=v)], [x44], [f32("r", [[0, 0, 2, 2]]), i64("b", [0])]),
        ("Mod", [node("Mod", ["x", "s"], ["y"])], [floats("x", [3], TensorProto.INT64)],
         [i64("s", [v])]),
        ("Div", [node("Div", ["x", "s"], ["y"])], [floats("x", [3], TensorProto.INT64)],
         [i64("s", [v])]),
        ("Abs", [node("Abs", ["s"], ["y"])], [], [i64("s", [v, INT64_MIN])]),
        ("Neg", [node("Neg", ["s"], ["y"])], [], [i64("s", [v, INT64_MIN])]),
        ("ReduceProd", [node("ReduceProd", ["s"], ["y"], keepdims=0)], [], [i64("s", [v, v])]),
        ("CastToInt64", [node("Cast", ["s"], ["y"], to=TensorProto.INT64)], [],
         [f32("s", [float(v), 1e30, -1e30, np.nan, np.inf])]),
        ("CastToUint8", [node("Cast", ["s"], ["y"], to=TensorProto.UINT8)], [],
         [f32("s", [float(v), 1e30, -1e30, np.nan, np.inf])]),
        ("ArrayFeatureExtractor", [node("ArrayFeatureExtractor", ["x", "i"], ["y"],
                                        domain="ai.onnx.ml")], [floats("x", [2, 4])],
         [i64("i", [v])], 21, [ML]),
        ("SequenceAt", [node("SplitToSequence", ["x"], ["q"], axis=0),
                        node("SequenceAt", ["q", "p"], ["y"])], [x43], [scalar("p", v)]),
        ("SequenceInsert", [node("SplitToSequence", ["x"], ["q"], axis=0),
                            node("SequenceInsert", ["q", "x", "p"], ["y"])], [x43],
         [scalar("p", v)]),
        ("ConcatFromSequence", [node("SplitToSequence", ["x"], ["q"], axis=0),
                                node("ConcatFromSequence", ["q"], ["y"], axis=v, new_axis=1)],
         [x43], []),
        ("Attention", [node("Attention", ["q", "k", "v"], ["y"], q_num_heads=v,
                            kv_num_heads=v)],
         [floats("q", [1, 2, 4]), floats("k", [1, 2, 4]), floats("v", [1, 2, 4])], [], 23),
        ("TensorScatter", [node("TensorScatter", ["c", "u", "w"], ["y"], axis=v)],
         [floats("c", [1, 4, 2]), floats("u", [1, 1, 2])], [i64("w", [v])], 24),
        ("Col2Im", [node("Col2Im", ["x", "i", "b"], ["y"])], [floats("x", [1, 4, 1])],
         [i64("i", [v, 2]), i64("b", [2, 2])], 18),
        ("LSTM-hidden_size", [node("LSTM", ["x", "w", "r"], ["y"], hidden_size=v)],
         [floats("x", [1, 1, 2])], [f32("w", np.ones((1, 4, 2))), f32("r", np.ones((1, 4, 1)))],
         14),
        ("GRU-hidden_size", [node("GRU", ["x", "w", "r"], ["y"], hidden_size=v)],
         [floats("x", [1, 1, 2])], [f32("w", np.ones((1, 3, 2))), f32("r", np.ones((1, 3, 1)))],
         14),
        ("RNN-hidden_size", [node("RNN", ["x", "w", "r"], ["y"], hidden_size=v)],
         [floats("x", [1, 1, 2])], [f32("w", np.ones((1, 1, 2))), f32("r", np.ones((1, 1, 1)))],
         14),
    ]
    for attr_op, attribute in [("DepthToSpace", "blocksize"), ("SpaceToDepth", "blocksize"),
                               ("Shape", "start"), ("Shape", "end"), ("Flatten", "axis"),
                               ("LRN", "size"), ("Softmax", "axis"), ("ArgMax", "axis"),
                               ("LpNormalization", "axis")]:
        cases.append(("%s-%s" % (attr_op, attribute),
                      [node(attr_op, ["x"], ["y"], **{attribute: v})],
                      [floats("x", [1, 4, 3, 3])], []))
    for window in ("BlackmanWindow", "HannWindow", "HammingWindow"):
        cases.append((window, [node(window, ["s"], ["y"])], [], [scalar("s", v)], 17))
    cases += [
        ("DFT", [node("DFT", ["x", "n", ""], ["y"])], [floats("x", [1, 4, 1])],
         [scalar("n", v)], 20),
        ("STFTStep", [node("STFT", ["x", "s", "", "l"], ["y"])], [floats("x", [1, 16, 1])],
         [scalar("s", v), scalar("l", 4)], 17),
        ("STFTLength", [node("STFT", ["x", "s", "", "l"], ["y"])], [floats("x", [1, 16, 1])],
         [scalar("s", 1), scalar("l", v)], 17),
        ("MelWeightMatrix", [node("MelWeightMatrix", ["a", "b", "c", "d", "e"], ["y"])], [],
         [scalar("a", v), scalar("b", 16), scalar("c", 8000), scalar("d", 0, np.float32),
          scalar("e", 4000, np.float32)], 17),
    ]
    for pool in ("MaxPool", "AveragePool", "LpPool"):
        for attrs in ({"kernel_shape": [v, 2]}, {"kernel_shape": [2, 2], "strides": [v, 1]},
                      {"kernel_shape": [2, 2], "pads": [v, 0, v, 0], "ceil_mode": 1},
                      {"kernel_shape": [2, 2], "strides": [v, 1], "ceil_mode": 1}):
            cases.append(("%s-%s" % (pool, "-".join(sorted(attrs))),
                          [node(pool, ["x"], ["y"], **attrs)], [x44], []))
    cases.append(("MaxPool-dilations", [node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2],
                                             dilations=[v, 1])], [x44], []))
    for attrs in ({"pads": [v, 0, 0, 0]}, {"strides": [v, 1]}, {"dilations": [v, 1]},
                  {"group": v}):
        key = list(attrs)[0]
        cases.append(("Conv-" + key, [node("Conv", ["x", "w"], ["y"], **attrs)], [x44],
                      [ones22]))
        cases.append(("ConvTranspose-" + key, [node("ConvTranspose", ["x", "w"], ["y"], **attrs)],
                      [x44], [ones22]))
    cases.append(("ConvTranspose-output_shape", [node("ConvTranspose", ["x", "w"], ["y"],
                                                      output_shape=[v, 4])], [x44], [ones22]))
    cases.append(("ConvTranspose-output_padding",
                  [node("ConvTranspose", ["x", "w"], ["y"], output_padding=[v, 0],
                        strides=[2, 2])], [x44], [ones22]))
    for case in cases:
        name, nodes, inputs, initializers = case[:4]
        opset = case[4] if len(case) > 4 else 21
        extra = case[5] if len(case) > 5 else ()
        outputs = [sequence(o) if n.op_type in ("SequenceInsert",) else untyped(o)
                   for n in nodes[-1:] for o in n.output]
        w.model("%s-%d" % (name, k), nodes, inputs, outputs, initializers, opset, extra)


def u8(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.uint8), name)


def contrib_and_ml(w, k, v):
    """com.microsoft and ai.onnx.ml ops with an attribute or index at v."""
    def ms(op, inputs, outputs, **attributes):
        return helper.make_node(op, inputs, outputs, domain="com.microsoft", **attributes)

    def ml(op, inputs, outputs, **attributes):
        return helper.make_node(op, inputs, outputs, domain="ai.onnx.ml", **attributes)

    microsoft = [helper.make_opsetid("com.microsoft", 1)]
    nbits_b = [u8("b", np.zeros((1, 1, 8))), f32("s", [1.0])]
    qparams = [f32("ys", 1.0), u8("yz", 0)]
    qpool_inputs = [f32("s", 1.0), u8("z", 0)] + qparams
    qkv = [floats("q", [1, 2, 4]), floats("k", [1, 2, 4]), floats("v", [1, 2, 4])]
    x23 = floats("x", [2, 3])
    tree = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2],
                nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values=[0.5, 0, 0],
                nodes_truenodeids=[1, 0, 0], target_treeids=[0, 0], target_nodeids=[1, 2],
                target_ids=[0, 0], target_weights=[1.0, 2.0])
    cases = [
        ("MatMulNBits-N", [ms("MatMulNBits", ["a", "b", "s"], ["y"], K=16, N=v, bits=4,
                              block_size=16)], [floats("a", [1, 16])], nbits_b),
        ("MatMulNBits-K", [ms("MatMulNBits", ["a", "b", "s"], ["y"], K=v, N=1, bits=4,
                              block_size=16)], [floats("a", [1, 16])], nbits_b),
        ("MatMulNBits-block_size", [ms("MatMulNBits", ["a", "b", "s"], ["y"], K=16, N=1, bits=4,
                                       block_size=v)], [floats("a", [1, 16])], nbits_b),
        ("Attention-num_heads", [ms("Attention", ["x", "w", "b"], ["y"], num_heads=v)],
         [floats("x", [1, 2, 4])], [f32("w", np.ones((4, 12))), f32("b", np.zeros(12))]),
        ("MultiHeadAttention-num_heads", [ms("MultiHeadAttention", ["q", "k", "v"], ["y"],
                                             num_heads=v)], qkv, []),
        ("GroupQueryAttention-num_heads",
         [ms("GroupQueryAttention", ["q", "k", "v", "", "", "sl", "tl"], ["y", "pk", "pv"],
             num_heads=v, kv_num_heads=v)], qkv,
         [numpy_helper.from_array(np.array([1], np.int32), "sl"),
          numpy_helper.from_array(np.array(2, np.int32), "tl")]),
        ("RotaryEmbedding-position", [ms("RotaryEmbedding", ["x", "p", "c", "s"], ["y"])],
         [floats("x", [1, 2, 4])],
         [i64("p", [[v, 0]]), f32("c", np.ones((2, 2))), f32("s", np.ones((2, 2)))]),
        ("QLinearConcat-axis", [ms("QLinearConcat", ["ys", "yz", "a", "as", "az"], ["y"], axis=v)],
         [floats("a", [2, 2], TensorProto.UINT8)], qparams + [f32("as", 1.0), u8("az", 0)]),
        ("QLinearAveragePool-strides",
         [ms("QLinearAveragePool", ["x", "s", "z", "ys", "yz"], ["y"], kernel_shape=[2, 2],
             strides=[v, 1], ceil_mode=1)], [floats("x", [1, 1, 4, 4], TensorProto.UINT8)],
         qpool_inputs),
        ("QLinearAveragePool-pads",
         [ms("QLinearAveragePool", ["x", "s", "z", "ys", "yz"], ["y"], kernel_shape=[v, 2],
             pads=[v, 0, v, 0])], [floats("x", [1, 1, 4, 4], TensorProto.UINT8)], qpool_inputs),
        ("FusedMatMul-trans", [ms("FusedMatMul", ["a", "b"], ["y"], transA=v, transBatchA=v)],
         [floats("a", [2, 2]), floats("b", [2, 2])], []),
        ("LabelEncoder", [ml("LabelEncoder", ["x"], ["y"], keys_int64s=[v, 1], values_int64s=[v, 2],
                             default_int64=v)], [floats("x", [3], TensorProto.INT64)], []),
        ("TreeEnsembleRegressor-ids",
         [ml("TreeEnsembleRegressor", ["x"], ["y"], n_targets=1, nodes_featureids=[v, 0, 0],
             nodes_falsenodeids=[v, 0, 0], **tree)], [x23], []),
        ("TreeEnsembleRegressor-feature",
         [ml("TreeEnsembleRegressor", ["x"], ["y"], n_targets=1, nodes_featureids=[v, 0, 0],
             nodes_falsenodeids=[2, 0, 0], **tree)], [x23], []),
        ("TreeEnsembleRegressor-targets",
         [ml("TreeEnsembleRegressor", ["x"], ["y"], n_targets=v, nodes_featureids=[0, 0, 0],
             nodes_falsenodeids=[2, 0, 0], **dict(tree, target_ids=[v, 0]))], [x23], []),
        ("TreeEnsembleClassifier-class_ids",
         [ml("TreeEnsembleClassifier", ["x"], ["y", "z"], classlabels_int64s=[0, 1],
             nodes_treeids=[0], nodes_nodeids=[0], nodes_featureids=[0], nodes_modes=["LEAF"],
             nodes_values=[0.0], nodes_truenodeids=[0], nodes_falsenodeids=[0],
             class_treeids=[0], class_nodeids=[0], class_ids=[v], class_weights=[1.0])],
         [x23], []),
        ("TreeEnsemble-feature",
         [ml("TreeEnsemble", ["x"], ["y"], n_targets=1, nodes_splits=f32("ns", [0.5]),
             nodes_featureids=[v], nodes_modes=u8("nm", [0]), nodes_truenodeids=[0],
             nodes_falsenodeids=[1], nodes_trueleafs=[1], nodes_falseleafs=[1],
             leaf_targetids=[0, 0], leaf_weights=f32("lw", [1.0, 2.0]), tree_roots=[0])],
         [x23], [], 21, [helper.make_opsetid("ai.onnx.ml", 5)]),
        ("ArrayFeatureExtractor-2d", [ml("ArrayFeatureExtractor", ["x", "i"], ["y"])],
         [floats("x", [2, 4])], [i64("i", [[v, 0]])]),
        ("OneHotEncoder", [ml("OneHotEncoder", ["x"], ["y"], cats_int64s=[v, 1, 2])],
         [floats("x", [2], TensorProto.INT64)], []),
        ("FeatureVectorizer", [ml("FeatureVectorizer", ["x"], ["y"], inputdimensions=[v])],
         [x23], []),
        ("Imputer", [ml("Imputer", ["x"], ["y"], imputed_value_int64s=[v],
                        replaced_value_int64=v)], [floats("x", [2, 3], TensorProto.INT64)], []),
        ("SVMRegressor", [ml("SVMRegressor", ["x"], ["y"], n_supports=v, coefficients=[1.0],
                             support_vectors=[1.0, 2.0, 3.0], rho=[0.0])], [x23], []),
        ("LinearClassifier", [ml("LinearClassifier", ["x"], ["y", "z"],
                                 coefficients=[1.0, 2, 3], classlabels_ints=[v],
                                 intercepts=[0.0])], [x23], []),
    ]
    for case in cases:
        name, nodes, inputs, initializers = case[:4]
        opset = case[4] if len(case) > 4 else 21
        extra = list(case[5]) if len(case) > 5 else [ML]
        if any(n.domain == "com.microsoft" for n in nodes):
            extra = microsoft
        w.model("%s-%d" % (name, k), nodes, inputs, [untyped(o) for o in nodes[-1].output],
                initializers, opset, extra)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    writer = Writer(folder)
    shape_inputs(writer)
    for k, v in enumerate(EXTREMES):
        one_value(writer, k, v)
        contrib_and_ml(writer, k, v)
    print("make_hostile_models.py: %d models in %s" % (writer.count, folder))


if __name__ == "__main__":
    main()
