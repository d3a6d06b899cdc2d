// Squeeze's and Unsqueeze's output shapes: shared by the CPU EP's kernels and device EPs' (views
// either way).
#pragma once

#include <optional>
#include <vector>

#include "common/status.h"
#include "framework/tensor_shape.h"
#include "graph/node.h"

namespace prism::cpu {

// axes: none (or empty) removes every size-1 dim.
inline TensorShape SqueezedShape(const TensorShape& shape,
                                 const std::optional<std::vector<int64_t>>& axes,
                                 const Node& node) {
  const int64_t rank = static_cast<int64_t>(shape.Rank());
  std::vector<bool> drop(shape.Rank(), false);
  if (!axes.has_value() || axes->empty()) {
    // No axes (or an empty list, as onnxruntime reads it): remove every size-1 dim.
    for (size_t i = 0; i < shape.Rank(); ++i) drop[i] = shape[i] == 1;
  } else {
    for (int64_t axis : *axes) {
      PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node.Describe(), ": axis ",
                    axis, " is out of range [", -rank, ", ", rank - 1, "] for input ",
                    shape.ToString());
      const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      PRISM_ENFORCE(!drop[a], kInvalidArgument, node.Describe(), ": axis ", axis,
                    " is given more than once");
      PRISM_ENFORCE(shape[a] == 1, kInvalidArgument, node.Describe(), ": cannot squeeze axis ",
                    axis, " of input ", shape.ToString(), " because its size is ", shape[a],
                    ", not 1");
      drop[a] = true;
    }
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < shape.Rank(); ++i)
    if (!drop[i]) dims.push_back(shape[i]);
  return TensorShape(dims);
}

// Axes index the output, whose rank is the input's plus the number of new dims; they may come in
// any order.
inline TensorShape UnsqueezedShape(const TensorShape& shape,
                                   const std::optional<std::vector<int64_t>>& axes,
                                   const Node& node) {
  PRISM_ENFORCE(axes.has_value(), kInvalidArgument, node.Describe(),
                ": the axes input is required");
  const int64_t out_rank = static_cast<int64_t>(shape.Rank() + axes->size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t axis : *axes) {
    PRISM_ENFORCE(axis >= -out_rank && axis < out_rank, kInvalidArgument, node.Describe(),
                  ": axis ", axis, " is out of range [", -out_rank, ", ", out_rank - 1,
                  "] for output rank ", out_rank, " (input ", shape.ToString(), ")");
    const size_t a = static_cast<size_t>(axis < 0 ? axis + out_rank : axis);
    PRISM_ENFORCE(!inserted[a], kInvalidArgument, node.Describe(), ": axis ", axis,
                  " is given more than once");
    inserted[a] = true;
  }
  std::vector<int64_t> dims(static_cast<size_t>(out_rank));
  size_t next = 0;
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = inserted[i] ? 1 : shape[next++];
  return TensorShape(dims);
}

}  // namespace prism::cpu
