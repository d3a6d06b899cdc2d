// Reads a small integer list given as an input tensor (shapes, axes): a scalar or a 1-D
// tensor of int64 (int32 accepted too) in CPU memory.
#pragma once

#include <string>
#include <vector>

#include "framework/tensor.h"

namespace prism::cpu {

inline std::vector<int64_t> ReadIntList(const Tensor& tensor, const std::string& what) {
  PRISM_ENFORCE(tensor.Shape().Rank() <= 1, kInvalidArgument, what,
                " must be a scalar or 1-D tensor, got shape ", tensor.Shape().ToString());
  const int64_t count = tensor.NumElements();
  std::vector<int64_t> values(static_cast<size_t>(count));
  if (tensor.Type() == ElementType::kInt64) {
    const int64_t* data = tensor.Data<int64_t>();
    for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = data[i];
  } else if (tensor.Type() == ElementType::kInt32) {
    const int32_t* data = tensor.Data<int32_t>();
    for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = data[i];
  } else {
    PRISM_THROW(kInvalidArgument, what, " must be an int64 tensor, got ",
                ElementTypeName(tensor.Type()));
  }
  return values;
}

}  // namespace prism::cpu
