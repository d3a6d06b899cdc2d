#include "typed_values.h"

#include <gtest/gtest.h>

#include "framework/allocator.h"
#include "framework/float16.h"

namespace prism::testing {

Tensor CastValues(ElementType type, const std::vector<int64_t>& dims,
                  const std::vector<double>& values) {
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  void* raw = tensor.MutableRawData();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (type) {
      case ElementType::kFloat:
        static_cast<float*>(raw)[i] = static_cast<float>(v);
        break;
      case ElementType::kDouble:
        static_cast<double*>(raw)[i] = v;
        break;
      case ElementType::kFloat16:
        static_cast<Float16*>(raw)[i] = Float16(static_cast<float>(v));
        break;
      case ElementType::kBFloat16:
        static_cast<BFloat16*>(raw)[i] = BFloat16(static_cast<float>(v));
        break;
      case ElementType::kInt8:
        static_cast<int8_t*>(raw)[i] = static_cast<int8_t>(v);
        break;
      case ElementType::kInt16:
        static_cast<int16_t*>(raw)[i] = static_cast<int16_t>(v);
        break;
      case ElementType::kInt32:
        static_cast<int32_t*>(raw)[i] = static_cast<int32_t>(v);
        break;
      case ElementType::kInt64:
        static_cast<int64_t*>(raw)[i] = static_cast<int64_t>(v);
        break;
      case ElementType::kUint8:
        static_cast<uint8_t*>(raw)[i] = static_cast<uint8_t>(v);
        break;
      case ElementType::kUint16:
        static_cast<uint16_t*>(raw)[i] = static_cast<uint16_t>(v);
        break;
      case ElementType::kUint32:
        static_cast<uint32_t*>(raw)[i] = static_cast<uint32_t>(v);
        break;
      case ElementType::kUint64:
        static_cast<uint64_t*>(raw)[i] = static_cast<uint64_t>(v);
        break;
      case ElementType::kBool:
        static_cast<bool*>(raw)[i] = v != 0;
        break;
      default:
        ADD_FAILURE() << "CastValues: no conversion to " << ElementTypeName(type);
    }
  }
  return tensor;
}

}  // namespace prism::testing
