// Test tensors of any numeric element type built from doubles, converted as a Cast would:
// rounded to nearest for the floating types, truncated toward zero for the integers, nonzero
// as true for bool.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/tensor.h"

namespace prism::testing {

Tensor CastValues(ElementType type, const std::vector<int64_t>& dims,
                  const std::vector<double>& values);

}  // namespace prism::testing
