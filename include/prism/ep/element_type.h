// Tensor element types as execution providers see them: ONNX's TensorProto.DataType numbering.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prism::ep {

enum class ElementType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,  // elements are std::string objects
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  // Later ONNX types (float8, 4-bit, ...) keep their TensorProto numbers; ElementSize gives 0.
};

// onnxruntime's spelling of a tensor type: "tensor(float)".
inline const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFloat:
      return "tensor(float)";
    case ElementType::kUint8:
      return "tensor(uint8)";
    case ElementType::kInt8:
      return "tensor(int8)";
    case ElementType::kUint16:
      return "tensor(uint16)";
    case ElementType::kInt16:
      return "tensor(int16)";
    case ElementType::kInt32:
      return "tensor(int32)";
    case ElementType::kInt64:
      return "tensor(int64)";
    case ElementType::kString:
      return "tensor(string)";
    case ElementType::kBool:
      return "tensor(bool)";
    case ElementType::kFloat16:
      return "tensor(float16)";
    case ElementType::kDouble:
      return "tensor(double)";
    case ElementType::kUint32:
      return "tensor(uint32)";
    case ElementType::kUint64:
      return "tensor(uint64)";
    case ElementType::kComplex64:
      return "tensor(complex64)";
    case ElementType::kComplex128:
      return "tensor(complex128)";
    case ElementType::kBFloat16:
      return "tensor(bfloat16)";
    default:
      return "tensor(other)";
  }
}

// Bytes per element of the fixed-size types above; 0 for strings and types not listed.
inline size_t ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
    case ElementType::kInt8:
    case ElementType::kBool:
      return 1;
    case ElementType::kUint16:
    case ElementType::kInt16:
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      return 2;
    case ElementType::kFloat:
    case ElementType::kInt32:
    case ElementType::kUint32:
      return 4;
    case ElementType::kInt64:
    case ElementType::kUint64:
    case ElementType::kDouble:
    case ElementType::kComplex64:
      return 8;
    case ElementType::kComplex128:
      return 16;
    default:
      return 0;
  }
}

}  // namespace prism::ep
