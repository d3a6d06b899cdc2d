// Attributes shared by the pooling ops (kernel_shape, strides, dilations, pads, auto_pad,
// ceil_mode, ...) and the window geometry they give for one input shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/op_kernel.h"

namespace prism::cpu {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// Where the windows of one input shape lie, per spatial axis.
struct PoolGeometry {
  std::vector<int64_t> input;      // spatial input dims
  std::vector<int64_t> output;     // spatial output dims
  std::vector<int64_t> pad_begin;  // effective pads (auto_pad resolved)
  std::vector<int64_t> pad_end;
};

struct PoolAttributes {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;    // 1 per axis when absent
  std::vector<int64_t> dilations;  // 1 per axis when absent
  std::vector<int64_t> pads;       // [begin..., end...], 0 when absent
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
  bool count_include_pad = false;
  int64_t storage_order = 0;

  // Reads and validates the node's attributes; throws kInvalidArgument naming the node.
  // Attributes that the node's opset version does not define keep their defaults.
  static PoolAttributes Parse(const OpKernelInfo& info);

  size_t SpatialRank() const { return kernel_shape.size(); }

  // Output dims and effective pads for an input of shape [N, C, D1, ..., Dk]; throws when the
  // shape does not fit the attributes (rank mismatch, window larger than the padded input).
  PoolGeometry Geometry(const TensorShape& input_shape, const Node& node) const;
};

}  // namespace prism::cpu
