// Host-only geometry of Conv and ConvTranspose for the CUDA EP's cuDNN kernels (no CUDA here, so
// the unit tests build it on every machine): the attributes read from the node, the ONNX output
// shape and effective pads for an input shape, and how asymmetric pads become cuDNN's symmetric
// ones (an explicit zero-padded copy of X for the difference, cuDNN's pads for the rest).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/tensor_shape.h"
#include "graph/node.h"

namespace prism::cuda {

enum class ConvAutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct ConvAttributes {
  int64_t group = 1;
  std::vector<int64_t> kernel_shape;  // empty: W's spatial dims
  std::vector<int64_t> strides;       // empty: 1 per axis
  std::vector<int64_t> dilations;     // empty: 1 per axis
  std::vector<int64_t> pads;          // empty: 0; else [begin..., end...]
  ConvAutoPad auto_pad = ConvAutoPad::kNotSet;
  std::vector<int64_t> output_padding;  // ConvTranspose; empty: 0 per axis
  std::vector<int64_t> output_shape;    // ConvTranspose; spatial dims, or N and C too

  // Reads the node's attributes; throws kInvalidArgument naming the node for a bad auto_pad or
  // a group below 1.
  static ConvAttributes FromNode(const Node& node);
};

// The resolved geometry of one call: spatial vectors have one entry per spatial axis.
struct ConvGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  std::vector<int64_t> input;   // spatial input dims
  std::vector<int64_t> kernel;  // spatial kernel dims
  std::vector<int64_t> output;  // spatial output dims
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pad_begin;  // ConvTranspose: may be negative (output_shape > full)
  std::vector<int64_t> pad_end;

  TensorShape OutputShape() const;
  bool SymmetricPads() const { return pad_begin == pad_end; }
};

// Conv: X [N, C, D...] and W [M, C / group, k...]; throws kInvalidArgument naming the node when
// the shapes do not fit the attributes. Same output shape as the CPU EP's Conv.
ConvGeometry ComputeConvGeometry(const ConvAttributes& attributes, const TensorShape& x,
                                 const TensorShape& w, const Node& node);

// ConvTranspose: X [N, C, D...] and W [C, M / group, k...]. Output dims stride * (in - 1) +
// output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end, or output_shape (auto_pad
// SAME_*: in * stride) with the pads following from it as in the CPU EP's ConvTranspose.
ConvGeometry ComputeConvTransposeGeometry(const ConvAttributes& attributes, const TensorShape& x,
                                          const TensorShape& w, const Node& node);

// cuDNN takes one pad per axis for both ends. For asymmetric pads, X is first copied into a
// zero-padded buffer with explicit_begin/explicit_end extra cells per axis and cuDNN pads
// `symmetric` on both sides: explicit_begin + symmetric = pad_begin and explicit_end + symmetric
// = pad_end, so the output is exactly the ONNX one.
struct PadSplit {
  std::vector<int64_t> explicit_begin;
  std::vector<int64_t> explicit_end;
  std::vector<int64_t> symmetric;
  bool NeedsCopy() const;
  // X's spatial dims after the explicit padding.
  std::vector<int64_t> PaddedInput(const std::vector<int64_t>& input) const;
};
PadSplit SplitPads(const std::vector<int64_t>& pad_begin, const std::vector<int64_t>& pad_end);

// ConvTranspose through cuDNN's backward-data convolution. Direct (cuDNN writes Y with pads
// pad_begin) when the pads are symmetric and non-negative; otherwise cuDNN writes the full
// result (no pads, dims `full`) and Y[o] = full[o + pad_begin] (0 outside it) per axis.
std::vector<int64_t> ConvTransposeFullOutput(const ConvGeometry& geometry);

// The attribute combinations the CUDA EP's Conv/FusedConv/ConvTranspose decline, as a reason
// naming the attribute ("" when it runs them). Shapes are checked at run time.
std::string ConvAttributeDeclineReason(const Node& node);

}  // namespace prism::cuda
