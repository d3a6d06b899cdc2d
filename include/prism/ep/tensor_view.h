// A tensor an execution provider reads: element type, shape and data, owned by Prism.
#pragma once

#include <cstdint>
#include <vector>

#include "prism/ep/element_type.h"

namespace prism::ep {

struct TensorView {
  ElementType type = ElementType::kUndefined;
  std::vector<int64_t> shape;  // [] for a scalar
  const void* data = nullptr;  // row-major; null when the tensor has no elements
  // True when data lies in the EP's device memory (prism/ep/device_memory.h), false when it is
  // host memory the CPU can read.
  bool on_device = false;

  int64_t ElementCount() const {
    int64_t count = 1;
    for (int64_t dim : shape) count *= dim;
    return count;
  }
  template <typename T>
  const T* Data() const {
    return static_cast<const T*>(data);
  }
};

}  // namespace prism::ep
