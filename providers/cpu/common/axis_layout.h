// A tensor seen as [outer, extent, inner] around one axis: the kernels that work along a single
// axis (softmax, hardmax, arg min/max, cumulative sums) index element (o, e, i) at
// (o * extent + e) * inner + i.
#pragma once

#include <cstdint>

#include "framework/tensor_shape.h"

namespace prism::cpu {

struct AxisLayout {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};

inline AxisLayout AroundAxis(const TensorShape& shape, size_t axis) {
  return {shape.SizeToDimension(axis), shape[axis], shape.SizeFromDimension(axis + 1)};
}

// Opsets before 13 of Softmax, LogSoftmax and Hardmax coerce the input to 2-D at `axis`.
inline AxisLayout CoercedTo2D(const TensorShape& shape, size_t axis) {
  return {shape.SizeToDimension(axis), shape.SizeFromDimension(axis), 1};
}

}  // namespace prism::cpu
