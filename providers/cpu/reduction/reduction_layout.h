// How the Reduce* kernels walk their input: the dims with size-1 dims dropped and neighbours of
// the same kind (reduced or kept) merged, with row-major strides, so the loops run over as few
// axes as possible and the innermost one is contiguous.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/tensor_shape.h"

namespace prism::cpu {

struct ReductionLayout {
  std::vector<int64_t> dims;
  std::vector<bool> reduced;
  std::vector<int64_t> strides;  // input strides of the merged dims

  // The merged dims of one kind, outermost first, with their input strides.
  std::vector<int64_t> DimsOf(bool kind) const;
  std::vector<int64_t> StridesOf(bool kind) const;
  bool InnerReduced() const { return reduced.back(); }
  int64_t Inner() const { return dims.back(); }
};

// Never empty: a shape whose dims are all 1 becomes one kept dim of size 1.
ReductionLayout MakeReductionLayout(const TensorShape& shape, const std::vector<bool>& reduce);

// The axes a Reduce* node reduces, resolved against `shape`: which axes, how many elements each
// output gathers, and the output dims. `axes` empty means every axis.
struct ReductionAxes {
  std::vector<bool> reduce;
  int64_t count = 1;
  std::vector<int64_t> out_dims;
};

ReductionAxes ResolveReductionAxes(const std::string& node, const TensorShape& shape,
                                   const std::vector<int64_t>& axes, bool keep_dims);

}  // namespace prism::cpu
