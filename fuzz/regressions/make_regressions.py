#!/usr/bin/env python3
"""Writes the regression inputs of fuzz/regressions/<target>/ (committed; rerun to regenerate).

Each input reproduces one finding of a fuzz target in the smallest form we could write by hand
(not the fuzzer's mutated bytes, and never a copy of ../shared data). docs/security.md lists the
findings with their root causes, fixes and gtest regression tests.

Usage: .venv/bin/python fuzz/regressions/make_regressions.py
"""
import os
import struct

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data)


def model_bytes(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "regression", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8, producer_name="prism-fuzz-regression")
    return model.SerializeToString()


def int64_constant(name, values):
    return helper.make_node(
        "Constant", [], [name], name=name,
        value=helper.make_tensor(name, TensorProto.INT64, [len(values)], values))


# ---- model target

# Reshape's shape inference multiplied the target's dims in int64: [1,1,2^58+1,2^42+2] overflowed
# (UBSan). Tile after it, as in the fuzzer's input, multiplies dims again.
write("model", "reshape-target-overflows-int64.onnx", model_bytes(
    [int64_constant("target", [1, 1, (1 << 58) + 1, (1 << 42) + 2]),
     helper.make_node("Reshape", ["X", "target"], ["R"], name="reshape"),
     int64_constant("repeats", [1, 2, 3, 4]),
     helper.make_node("Tile", ["R", "repeats"], ["Y"], name="tile")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))

# A Loop whose trip count is -1 (none) and whose condition stays true: its body hands cond and x
# straight back, so it has no step, and RunOptions.terminate was never looked at. It ran until
# libFuzzer's timeout; now session.run_timeout_ms (the target sets 3 s) stops it.
body = helper.make_graph(
    [], "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("c", TensorProto.BOOL, []),
     helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
     helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])])
write("model", "endless-loop-without-steps.onnx", model_bytes(
    [helper.make_node("Constant", [], ["M"], value=helper.make_tensor("M", TensorProto.INT64, [], [-1])),
     helper.make_node("Constant", [], ["C"], value=helper.make_tensor("C", TensorProto.BOOL, [], [True])),
     helper.make_node("Loop", ["M", "C", "X"], ["Y"], name="loop", body=body)],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1])], opset=16))

# Tile's kernel computed each output dim as size * repeats in int64: 3 * 6557241061746409475
# overflowed (UBSan) before the shape was checked.
write("model", "tile-repeats-overflow-int64.onnx", model_bytes(
    [int64_constant("repeats", [6557241061746409475]),
     helper.make_node("Tile", ["X", "repeats"], ["Y"], name="tile")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))

# Add's value propagation (shape inference) of a one-value constant and an empty one read the
# empty one's first value: out of bounds (UBSan: reference binding to null pointer).
write("model", "add-one-value-and-none.onnx", model_bytes(
    [int64_constant("one", [5]),
     helper.make_node("Constant", [], ["none"],
                      value=helper.make_tensor("none", TensorProto.INT64, [0], [])),
     helper.make_node("Add", ["one", "none"], ["Y"], name="add")],
    [],
    [helper.make_tensor_value_info("Y", TensorProto.INT64, None)]))

# A MaxPool with no inputs (the fuzzer turned its input field into another field) reached the
# layout level's NchwcTransformer, which read the node's first input before checking the count
# (UBSan: reference binding to null pointer in std::vector::operator[]).
write("model", "maxpool-without-inputs.onnx", model_bytes(
    [helper.make_node("MaxPool", [], ["Y"], name="pool", kernel_shape=[3, 3])],
    [],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))

# Gradient nodes are expanded before the graph is checked; the rule for Add read input 1 of an
# Add with one input (AddressSanitizer: heap-buffer-overflow in the proto's repeated field).
gradient_graph = helper.make_graph(
    [helper.make_node("Add", ["X"], ["Z"], name="short_add"),
     helper.make_node("Gradient", ["X"], ["dX"], name="grad", domain="ai.onnx.preview.training",
                      xs=["X"], y="Z")],
    "regression",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("dX", TensorProto.FLOAT, [2])])
write("model", "gradient-of-add-with-one-input.onnx", helper.make_model(
    gradient_graph, ir_version=8, producer_name="prism-fuzz-regression",
    opset_imports=[helper.make_opsetid("", 17),
                   helper.make_opsetid("ai.onnx.preview.training", 1)]).SerializeToString())

# Shrink on int16 with a bias of 1e31: the result, computed in double, was converted to int16
# out of range (UBSan: float-cast-overflow). It saturates now.
write("model", "shrink-int16-huge-bias.onnx", model_bytes(
    [helper.make_node("Shrink", ["X"], ["Y"], name="shrink", bias=-1e31, lambd=0.5)],
    [helper.make_tensor_value_info("X", TensorProto.INT16, [3])],
    [helper.make_tensor_value_info("Y", TensorProto.INT16, [3])]))

# HannWindow of size INT32_MAX: the kernel filled a vector of that many doubles (16 GiB) before
# asking for its output, which the session's limit would have refused (libFuzzer:
# out-of-memory (malloc(17179869168))).
write("model", "hann-window-size-int32-max.onnx", model_bytes(
    [helper.make_node("Constant", [], ["N"],
                      value=helper.make_tensor("N", TensorProto.INT32, [], [2147483647])),
     helper.make_node("HannWindow", ["N"], ["W"], name="window")],
    [],
    [helper.make_tensor_value_info("W", TensorProto.FLOAT, None)]))

# MelWeightMatrix with num_mel_bins INT32_MAX (found by CI's fuzz smoke): the kernel filled a
# vector of that many bin edges (16 GiB) and the double matrix before asking for its output
# (libFuzzer: out-of-memory (malloc(17179869184))).
write("model", "melweightmatrix-bins-int32-max.onnx", model_bytes(
    [helper.make_node("Constant", [], ["bins"],
                      value=helper.make_tensor("bins", TensorProto.INT64, [], [2147483647])),
     helper.make_node("Constant", [], ["dft"],
                      value=helper.make_tensor("dft", TensorProto.INT64, [], [16])),
     helper.make_node("Constant", [], ["rate"],
                      value=helper.make_tensor("rate", TensorProto.INT64, [], [1000])),
     helper.make_node("Constant", [], ["low"],
                      value=helper.make_tensor("low", TensorProto.FLOAT, [], [0.0])),
     helper.make_node("Constant", [], ["high"],
                      value=helper.make_tensor("high", TensorProto.FLOAT, [], [500.0])),
     helper.make_node("MelWeightMatrix", ["bins", "dft", "rate", "low", "high"], ["M"],
                      name="mel")],
    [],
    [helper.make_tensor_value_info("M", TensorProto.FLOAT, None)]))

# ConcatFromSequence with new_axis=1 at the first tensor's last axis over a sequence whose second
# tensor has a lower rank (found by CI's fuzz smoke): the new axis was inserted past the second
# tensor's dims (AddressSanitizer: heap-buffer-overflow). Such a tensor is refused now.
write("model", "concatfromsequence-new-axis-lower-rank.onnx", model_bytes(
    [helper.make_node("SequenceConstruct", ["A", "B"], ["S"], name="pack"),
     helper.make_node("ConcatFromSequence", ["S"], ["Y"], name="stack", axis=2, new_axis=1)],
    [helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 2]),
     helper.make_tensor_value_info("B", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))

# GridSample (cubic, zeros padding) with a grid coordinate of 3.4e38: the tap index was converted
# to int64 out of range (UBSan: float-cast-overflow in AxisTapsOf; the reflection fold likewise).
# Far-outside coordinates now clamp to where every tap reads padding (or fold in double).
write("model", "gridsample-coordinate-3e38.onnx", model_bytes(
    [helper.make_node("GridSample", ["X", "grid"], ["Y"], name="sample", mode="cubic")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 2, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, 1, 3])],
    [helper.make_tensor("grid", TensorProto.FLOAT, [1, 1, 3, 2],
                        [3.4028234663852886e38, 0.0, -3.4028234663852886e38, 0.0,
                         float("nan"), 0.0])],
    opset=20))

# DeformConv with a NaN offset: the sample position passed the "outside" test (NaN compares
# false) and its floor was converted to int64 (UBSan: nan is outside the range of 'long').
write("model", "deformconv-nan-offset.onnx", model_bytes(
    [helper.make_node("DeformConv", ["X", "W", "offset"], ["Y"], name="deform")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 2, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, 2, 2])],
    [helper.make_tensor("W", TensorProto.FLOAT, [1, 1, 1, 1], [1.0]),
     helper.make_tensor("offset", TensorProto.FLOAT, [1, 2, 2, 2],
                        [float("nan"), 0, 0, 0, 0, 3.4028234663852886e38, 0, float("-inf")])],
    opset=19))

# Found reading the code after the DeformConv finding: RoiAlign's adaptive sampling grid of a
# 3.4e38-wide region, Resize's output dim for a scale of 3.4e38, and a tf_crop_and_resize box
# ending at 3.4e38 were converted to int64 out of range.
write("model", "roialign-region-3e38-wide.onnx", model_bytes(
    [helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], name="align")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 4, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [helper.make_tensor("rois", TensorProto.FLOAT, [2, 4],
                        [0, 0, 3.4028234663852886e38, 3, 0, 0, float("nan"), 3]),
     helper.make_tensor("batch_indices", TensorProto.INT64, [2], [0, 0])],
    opset=16))
write("model", "resize-scale-and-crop-box-3e38.onnx", model_bytes(
    [helper.make_node("Resize", ["X", "", "huge_scales"], ["Y"], name="scale"),
     helper.make_node("Resize", ["X", "roi", "unit_scales"], ["Z"], name="crop", mode="linear",
                      coordinate_transformation_mode="tf_crop_and_resize")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 2, 2])],
    [helper.make_tensor_value_info("Z", TensorProto.FLOAT, None),
     helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [helper.make_tensor("huge_scales", TensorProto.FLOAT, [4], [1, 1, 3.4028234663852886e38, 1]),
     helper.make_tensor("roi", TensorProto.FLOAT, [8], [0, 0, 0, 0, 1, 1, 3.4028234663852886e38, 1]),
     helper.make_tensor("unit_scales", TensorProto.FLOAT, [4], [1, 1, 1, 1])],
    opset=19))

# ONNX Attention (opset 24) with nonpad_kv_seqlen INT64_MIN: the causal/window offset
# nonpad - q_len overflowed int64 (UBSan: signed integer overflow). Now refused naming the entry.
write("model", "attention-nonpad-int64-min.onnx", model_bytes(
    [helper.make_node("Attention", ["Q", "K", "V", "", "", "", "nonpad"], ["Y"], name="attend",
                      is_causal=1)],
    [helper.make_tensor_value_info("Q", TensorProto.FLOAT, [1, 1, 1, 2]),
     helper.make_tensor_value_info("K", TensorProto.FLOAT, [1, 1, 2, 2]),
     helper.make_tensor_value_info("V", TensorProto.FLOAT, [1, 1, 2, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [helper.make_tensor("nonpad", TensorProto.INT64, [1], [-9223372036854775808])],
    opset=24))

# Split with 'split' entries INT64_MAX and 3: their sum overflowed int64 (UBSan, in
# std::accumulate) before it was compared with the axis. Now summed with a bound.
write("model", "split-sizes-sum-overflows.onnx", model_bytes(
    [helper.make_node("Split", ["X", "sizes"], ["A", "B"], name="split")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("A", TensorProto.FLOAT, None),
     helper.make_tensor_value_info("B", TensorProto.FLOAT, None)],
    [helper.make_tensor("sizes", TensorProto.INT64, [2], [9223372036854775807, 3])],
    opset=13))

# SplitToSequence with 'split' lengths 7 and INT64_MAX (the fuzzer's input; SequenceLength after
# it): their sum overflowed int64 (UBSan) before it was compared with the axis. Now summed with a
# bound, as Split's.
write("model", "splittosequence-lengths-sum-overflows.onnx", model_bytes(
    [helper.make_node("SplitToSequence", ["X", "lengths"], ["S"], name="split"),
     helper.make_node("SequenceLength", ["S"], ["N"], name="length")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("N", TensorProto.INT64, [])],
    [helper.make_tensor("lengths", TensorProto.INT64, [2], [7, 9223372036854775807])],
    opset=12))

# TensorScatter with write_indices INT64_MAX (the fuzzer fed it to the seed
# test_tensorscatter_3d): index + updates overflowed int64 (UBSan) before it was compared with the
# cache length. Now compared as index <= length - updates.
write("model", "tensorscatter-write-index-int64-max.onnx", model_bytes(
    [helper.make_node("TensorScatter", ["cache", "update", "indices"], ["present"],
                      name="scatter")],
    [helper.make_tensor_value_info("cache", TensorProto.FLOAT, [3, 4, 5]),
     helper.make_tensor_value_info("update", TensorProto.FLOAT, [3, 2, 5])],
    [helper.make_tensor_value_info("present", TensorProto.FLOAT, None)],
    [helper.make_tensor("indices", TensorProto.INT64, [3], [9223372036854775807, 0, 0])],
    opset=24))

# A ReduceMean with no inputs (CI's fuzz smoke): LayerNormFusion read its input 0 (UBSan:
# reference binding to null pointer). A graph with a node lacking a required input is now not
# optimized; the run names the missing input.
write("model", "reducemean-without-inputs.onnx", model_bytes(
    [helper.make_node("ReduceMean", [], ["M"], name="mean", axes=[-1]),
     helper.make_node("Sub", ["M", "M"], ["Y"], name="sub")],
    [],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))

# Slice with step INT64_MAX: the element count (span + step - 1) / step overflowed int64 (UBSan).
# Now 1 + (span - 1) / step.
write("model", "slice-step-int64-max.onnx", model_bytes(
    [helper.make_node("Slice", ["X", "starts", "ends", "axes", "steps"], ["Y"], name="slice")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [5])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [helper.make_tensor("starts", TensorProto.INT64, [1], [0]),
     helper.make_tensor("ends", TensorProto.INT64, [1], [5]),
     helper.make_tensor("axes", TensorProto.INT64, [1], [0]),
     helper.make_tensor("steps", TensorProto.INT64, [1], [9223372036854775807])],
    opset=13))

# Col2Im multiplied image_shape's values (a run-time input) into its pixel count unchecked:
# 9223372036854775807 * 9223372036854775807 (UBSan; CI's fuzz smoke of session 34). Every size
# it derives is now checked.
write("model", "col2im-huge-image-shape.onnx", model_bytes(
    [helper.make_node("Col2Im", ["X", "image_shape", "block_shape"], ["Y"], name="col2im")],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 4, 1])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [helper.make_tensor("image_shape", TensorProto.INT64, [2],
                        [9223372036854775807, 9223372036854775807]),
     helper.make_tensor("block_shape", TensorProto.INT64, [2], [2, 2])], opset=18))

# The rest of this section came from fuzz/make_hostile_models.py's first sweep (sizes and
# attributes at the int64 limits), each here in its smallest form.
INT64_MAX = 9223372036854775807
INT64_MIN = -9223372036854775808


def one_node(name, node, inputs, initializers=(), opset=21):
    write("model", name, model_bytes(
        [node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in node.output],
        initializers, opset=opset))


ones_2x2 = helper.make_tensor("W", TensorProto.FLOAT, [1, 1, 2, 2], [1.0] * 4)
# ConvTranspose's kernel formed stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1
# and subtracted pads without checks (UBSan: 9223372036854775807 * 3, 6 + 9223372036854775807,
# 5 - -9223372036854775808); negative pads, output_padding and output_shape were accepted.
for attribute, value in (("strides", [INT64_MAX, 1]), ("dilations", [INT64_MAX, 1]),
                         ("output_padding", [INT64_MAX, 0]), ("pads", [0, INT64_MIN, 0, 0]),
                         ("output_shape", [INT64_MIN, 4])):
    one_node("convtranspose-%s-%s.onnx" % (attribute.replace("_", "-"),
                                           "int64-max" if value[0] == INT64_MAX else "int64-min"),
             helper.make_node("ConvTranspose", ["X", "W"], ["Y"], name="convtranspose",
                              **{attribute: value}),
             [("X", [1, 1, 4, 4])], [ones_2x2])
# The NCHWc Conv (the layout transformer's rewrite of a Conv with constant weights) bounded its
# strides, dilations and pads from below only: (kernel - 1) * dilation, in + pads and the
# kernels' byte offsets overflowed (UBSan in nchwc_conv.cc and nchwc_kernels.h).
for attribute, value in (("strides", [INT64_MAX, 1]), ("dilations", [INT64_MAX, 1]),
                         ("pads", [INT64_MAX, 0, 0, 0])):
    one_node("nchwc-conv-%s-int64-max.onnx" % attribute,
             helper.make_node("Conv", ["X", "W"], ["Y"], name="conv", **{attribute: value}),
             [("X", [1, 1, 4, 4])], [ones_2x2])
# DepthToSpace's and SpaceToDepth's shape inference (and kernel) formed blocksize * blocksize:
# 4294967296^2 overflowed (UBSan in selection_shapes.cc).
for op in ("DepthToSpace", "SpaceToDepth"):
    one_node("%s-blocksize-2-pow-32.onnx" % op.lower(),
             helper.make_node(op, ["X"], ["Y"], name=op.lower(), blocksize=1 << 32),
             [("X", [1, 4, 3, 3])])
# EyeLike negated k for the first row of the diagonal: -INT64_MIN (UBSan in eye_like.cc).
one_node("eyelike-k-int64-min.onnx",
         helper.make_node("EyeLike", ["X"], ["Y"], name="eyelike", k=INT64_MIN), [("X", [3, 3])])
# Blocked QuantizeLinear / DequantizeLinear counted blocks as (dim + block_size - 1) / block_size:
# 4 + 9223372036854775807 overflowed (UBSan in quantize_linear.cc).
for op, elem in (("QuantizeLinear", TensorProto.FLOAT), ("DequantizeLinear", TensorProto.INT8)):
    write("model", "%s-block-size-int64-max.onnx" % op.lower(), model_bytes(
        [helper.make_node(op, ["X", "scale"], ["Y"], name=op.lower(), axis=1,
                          block_size=INT64_MAX)],
        [helper.make_tensor_value_info("X", elem, [2, 4])],
        [helper.make_tensor_value_info("Y", TensorProto.UNDEFINED, None)],
        [helper.make_tensor("scale", TensorProto.FLOAT, [2, 2], [1.0] * 4)], opset=21))
# Pooling with ceil_mode divided (span + stride - 1) / stride: 2 + 9223372036854775807 overflowed
# (UBSan in pool_attributes.cc).
one_node("maxpool-ceil-mode-stride-int64-max.onnx",
         helper.make_node("MaxPool", ["X"], ["Y"], name="maxpool", kernel_shape=[2, 2],
                          strides=[INT64_MAX, 1], ceil_mode=1), [("X", [1, 1, 4, 4])])
# Multinomial allocated sample_size draws per row before making its output, so an absurd
# sample_size ran out of memory (libFuzzer: malloc(17179869184)) instead of failing the output's
# size check.
write("model", "multinomial-sample-size-int64-max.onnx", model_bytes(
    [helper.make_node("Multinomial", ["X"], ["Y"], name="multinomial", sample_size=INT64_MAX)],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.INT32, None)], opset=21))

# The second sweep (com.microsoft and ai.onnx.ml ops):
MICROSOFT = helper.make_opsetid("com.microsoft", 1)
ONNX_ML = helper.make_opsetid("ai.onnx.ml", 3)


def model_with(nodes, inputs, outputs, initializers, opsets):
    graph = helper.make_graph(nodes, "regression", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=opsets, ir_version=8,
                             producer_name="prism-fuzz-regression").SerializeToString()


# MatMulNBits formed N * blocks * blob unchecked (UBSan: 9223372036854775807 * 8); the K file
# guards the first fix, whose blocks * block_size overflowed for K near the limit.
for attribute in ("N", "K"):
    sizes = {"K": 16, "N": 1, attribute: INT64_MAX}
    write("model", "matmulnbits-%s-int64-max.onnx" % attribute.lower(), model_with(
        [helper.make_node("MatMulNBits", ["A", "B", "scales"], ["Y"], name="matmulnbits",
                          domain="com.microsoft", bits=4, block_size=16, **sizes)],
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        [helper.make_tensor("B", TensorProto.UINT8, [1, 1, 8], [0] * 8),
         helper.make_tensor("scales", TensorProto.FLOAT, [1], [1.0])],
        [helper.make_opsetid("", 21), MICROSOFT]))
# QLinearAveragePool's shape function formed the window, the padded span and the ceil division
# in int64 (UBSan: 2 + 9223372036854775807 in contrib_quant_shapes.cc).
write("model", "qlinearaveragepool-stride-int64-max.onnx", model_with(
    [helper.make_node("QLinearAveragePool", ["X", "s", "z", "ys", "yz"], ["Y"],
                      name="qlinearaveragepool", domain="com.microsoft", kernel_shape=[2, 2],
                      strides=[INT64_MAX, 1], ceil_mode=1)],
    [helper.make_tensor_value_info("X", TensorProto.UINT8, [1, 1, 4, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.UINT8, None)],
    [helper.make_tensor("s", TensorProto.FLOAT, [], [1.0]),
     helper.make_tensor("z", TensorProto.UINT8, [], [0]),
     helper.make_tensor("ys", TensorProto.FLOAT, [], [1.0]),
     helper.make_tensor("yz", TensorProto.UINT8, [], [0])],
    [helper.make_opsetid("", 21), MICROSOFT]))
# The tree ensembles counted features as the largest id + 1 (UBSan: 9223372036854775807 + 1)
# and took negative feature ids as column indices.
write("model", "treeensembleregressor-feature-int64-max.onnx", model_with(
    [helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], name="trees", domain="ai.onnx.ml",
                      n_targets=1, nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2],
                      nodes_featureids=[INT64_MAX, 0, 0],
                      nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values=[0.5, 0, 0],
                      nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
                      target_treeids=[0, 0], target_nodeids=[1, 2], target_ids=[0, 0],
                      target_weights=[1.0, 2.0])],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], [],
    [helper.make_opsetid("", 21), ONNX_ML]))
# FeatureVectorizer summed inputdimensions and multiplied by the rows unchecked, and allocated
# the result before making its output (UBSan: 2 * 9223372036854775807; out of memory for 2^32).
write("model", "featurevectorizer-inputdimensions-int64-max.onnx", model_with(
    [helper.make_node("FeatureVectorizer", ["X"], ["Y"], name="vectorizer", domain="ai.onnx.ml",
                      inputdimensions=[INT64_MAX])],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], [],
    [helper.make_opsetid("", 21), ONNX_ML]))

# The recurrent ops formed gates * hidden_size unchecked (UBSan: 4 * 9223372036854775807 in
# recurrent.cc; third sweep, LSTM and GRU).
write("model", "lstm-hidden-size-int64-max.onnx", model_bytes(
    [helper.make_node("LSTM", ["X", "W", "R"], ["Y"], name="lstm", hidden_size=INT64_MAX)],
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 1, 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [helper.make_tensor("W", TensorProto.FLOAT, [1, 4, 2], [1.0] * 8),
     helper.make_tensor("R", TensorProto.FLOAT, [1, 4, 1], [1.0] * 4)], opset=14))

# ---- tensor_proto target

# A bool tensor whose raw_data holds the byte 2: loaded as is, undefined behaviour for every
# kernel reading it as bool. Now refused naming the element.
tensor = helper.make_tensor("B", TensorProto.BOOL, [3], b"\x01\x00\x02", raw=True)
write("tensor_proto", "bool-raw-data-byte-2.pb", tensor.SerializeToString())

# ---- capi target: scripts of calls (see Script::Step in capi_fuzzer.cc: the first byte of a
# step picks the call group, modulo 64; the following bytes its arguments)

# Group 0 (CreateEnv) with Int() = kValues[128 % 11] = INT_MAX as the PrismLoggingLevel: the
# library read the parameter as the enum (UBSan: not a valid value for type).
write("capi", "create-env-level-int-max.bin", bytes([0x80, 0x80]))
# Group 33 (CreateCpuMemoryInfo) with allocator type kValues[0x31 % 11] = 4: CheckAllocatorType
# took the enum by value, reading it as the enum again (UBSan).
write("capi", "cpu-memory-info-allocator-type-4.bin", bytes([0xA1, 0x31]))
# Group 46 (CreateEmptyOptionalValue) twice, the second time with out = NULL (the input has run
# out: every read is 0): the value made for it leaked (LeakSanitizer).
write("capi", "empty-optional-null-out.bin", bytes([0xEE, 0x24, 0xEE]))
# Group 37 (GetAllocatorWithDefaultOptions), then group 40 (AllocatorAlloc) on that allocator
# (0x01 % 2), a size read as U16 (choice 0x00 < 250) of 4096, and out = NULL (0x00 % 8): the
# memory was allocated before the NULL check and leaked.
write("capi", "allocator-alloc-null-out.bin",
      bytes([37, 0x01, 40, 0x01, 0x00]) + struct.pack("<H", 4096) + bytes([0x00]))
# Groups 37 and 40 again, with choice 0xFD (>= 250: SIZE_MAX - (0xFD % 4) * 63) and an out
# pointer: the size passed the rounding check and reached aligned_alloc (AddressSanitizer:
# requested allocation size exceeds maximum supported size). Now refused before allocating.
write("capi", "allocator-alloc-size-max.bin", bytes([37, 0x01, 40, 0x01, 0xFD, 0x01]))
