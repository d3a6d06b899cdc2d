// Test helper for the data-movement kernels: builds a tensor of ANY element type whose
// element i encodes the small integer codes[i] (numbers for numeric types, "s<code>" for
// strings, code % 2 for bool, the raw byte for float8 types, code % 16 / code % 4 for the
// packed 4-bit / 2-bit types). Moving elements around moves the codes, so one expected code
// list checks every type.
#pragma once

#include <string>
#include <vector>

#include "framework/tensor.h"
#include "op_tester.h"

namespace prism::testing {

inline Tensor MakeCodedTensor(ElementType type, const std::vector<int64_t>& dims,
                              const std::vector<int>& codes) {
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  PRISM_ENFORCE(static_cast<int64_t>(codes.size()) == tensor.NumElements(), kInvalidArgument,
                "MakeCodedTensor: ", codes.size(), " codes for ", tensor.Describe());
  void* raw = tensor.MutableRawData();
  const size_t n = codes.size();
  auto fill = [&](auto* out, auto convert) {
    for (size_t i = 0; i < n; ++i) out[i] = convert(codes[i]);
  };
  switch (type) {
    case ElementType::kFloat:
      fill(static_cast<float*>(raw), [](int c) { return float(c); });
      break;
    case ElementType::kDouble:
      fill(static_cast<double*>(raw), [](int c) { return double(c); });
      break;
    case ElementType::kFloat16:
      fill(static_cast<Float16*>(raw), [](int c) { return Float16(float(c)); });
      break;
    case ElementType::kBFloat16:
      fill(static_cast<BFloat16*>(raw), [](int c) { return BFloat16(float(c)); });
      break;
    case ElementType::kInt8:
      fill(static_cast<int8_t*>(raw), [](int c) { return int8_t(c); });
      break;
    case ElementType::kInt16:
      fill(static_cast<int16_t*>(raw), [](int c) { return int16_t(c); });
      break;
    case ElementType::kInt32:
      fill(static_cast<int32_t*>(raw), [](int c) { return int32_t(c); });
      break;
    case ElementType::kInt64:
      fill(static_cast<int64_t*>(raw), [](int c) { return int64_t(c); });
      break;
    case ElementType::kUint8:
      fill(static_cast<uint8_t*>(raw), [](int c) { return uint8_t(c); });
      break;
    case ElementType::kUint16:
      fill(static_cast<uint16_t*>(raw), [](int c) { return uint16_t(c); });
      break;
    case ElementType::kUint32:
      fill(static_cast<uint32_t*>(raw), [](int c) { return uint32_t(c); });
      break;
    case ElementType::kUint64:
      fill(static_cast<uint64_t*>(raw), [](int c) { return uint64_t(c); });
      break;
    case ElementType::kBool:
      fill(static_cast<bool*>(raw), [](int c) { return c % 2 != 0; });
      break;
    case ElementType::kString:
      fill(static_cast<std::string*>(raw), [](int c) { return "s" + std::to_string(c); });
      break;
    case ElementType::kFloat8E4M3FN:
    case ElementType::kFloat8E4M3FNUZ:
    case ElementType::kFloat8E5M2:
    case ElementType::kFloat8E5M2FNUZ:
    case ElementType::kFloat8E8M0:
      // Codes below 0x7c are finite, distinct values in every float8 format.
      fill(static_cast<uint8_t*>(raw), [](int c) { return uint8_t(c % 0x7c); });
      break;
    default: {
      const int bits = ElementBits(type);
      PRISM_ENFORCE(bits == 4 || bits == 2, kInvalidArgument, "MakeCodedTensor: unsupported ",
                    ElementTypeName(type));
      auto* bytes = static_cast<uint8_t*>(raw);
      for (size_t b = 0; b < tensor.SizeInBytes(); ++b) bytes[b] = 0;
      const int per_byte = 8 / bits;
      for (size_t i = 0; i < n; ++i) {
        const unsigned value = static_cast<unsigned>(codes[i]) & ((1u << bits) - 1u);
        bytes[i / per_byte] |= static_cast<uint8_t>(value << ((i % per_byte) * bits));
      }
    }
  }
  return tensor;
}

// One schema version range of an op: the opset it starts at and the element types it allows.
struct OpsetTypes {
  int opset;
  std::vector<ElementType> types;
};

// 0, 1, ..., count-1.
inline std::vector<int> Iota(int count) {
  std::vector<int> codes(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) codes[static_cast<size_t>(i)] = i;
  return codes;
}

}  // namespace prism::testing
