#include "framework/element_type.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>

#include "common/status.h"

namespace prism {

bool IsKnownElementType(int32_t value) {
  return value >= 1 && value <= kMaxElementType;
}

ElementType ElementTypeFromDataTypeName(const std::string& name) {
  // The DataType names are ONNX's type spellings in upper case.
  for (int32_t value = 1; value <= kMaxElementType; ++value) {
    const char* spelled = ElementTypeName(static_cast<ElementType>(value));
    if (name.size() == std::strlen(spelled) &&
        std::equal(name.begin(), name.end(), spelled,
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }))
      return static_cast<ElementType>(value);
  }
  return ElementType::kUndefined;
}

const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kUndefined:
      return "undefined";
    case ElementType::kFloat:
      return "float";
    case ElementType::kUint8:
      return "uint8";
    case ElementType::kInt8:
      return "int8";
    case ElementType::kUint16:
      return "uint16";
    case ElementType::kInt16:
      return "int16";
    case ElementType::kInt32:
      return "int32";
    case ElementType::kInt64:
      return "int64";
    case ElementType::kString:
      return "string";
    case ElementType::kBool:
      return "bool";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kDouble:
      return "double";
    case ElementType::kUint32:
      return "uint32";
    case ElementType::kUint64:
      return "uint64";
    case ElementType::kComplex64:
      return "complex64";
    case ElementType::kComplex128:
      return "complex128";
    case ElementType::kBFloat16:
      return "bfloat16";
    case ElementType::kFloat8E4M3FN:
      return "float8e4m3fn";
    case ElementType::kFloat8E4M3FNUZ:
      return "float8e4m3fnuz";
    case ElementType::kFloat8E5M2:
      return "float8e5m2";
    case ElementType::kFloat8E5M2FNUZ:
      return "float8e5m2fnuz";
    case ElementType::kUint4:
      return "uint4";
    case ElementType::kInt4:
      return "int4";
    case ElementType::kFloat4E2M1:
      return "float4e2m1";
    case ElementType::kFloat8E8M0:
      return "float8e8m0";
    case ElementType::kUint2:
      return "uint2";
    case ElementType::kInt2:
      return "int2";
    case ElementType::kFloat6E2M3:
      return "float6e2m3";
    case ElementType::kFloat6E3M2:
      return "float6e3m2";
  }
  return "unknown";
}

int ElementBits(ElementType type) {
  switch (type) {
    case ElementType::kFloat:
    case ElementType::kInt32:
    case ElementType::kUint32:
      return 32;
    case ElementType::kDouble:
    case ElementType::kInt64:
    case ElementType::kUint64:
    case ElementType::kComplex64:
      return 64;
    case ElementType::kComplex128:
      return 128;
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
    case ElementType::kInt16:
    case ElementType::kUint16:
      return 16;
    case ElementType::kUint8:
    case ElementType::kInt8:
    case ElementType::kBool:
    case ElementType::kFloat8E4M3FN:
    case ElementType::kFloat8E4M3FNUZ:
    case ElementType::kFloat8E5M2:
    case ElementType::kFloat8E5M2FNUZ:
    case ElementType::kFloat8E8M0:
      return 8;
    case ElementType::kUint4:
    case ElementType::kInt4:
    case ElementType::kFloat4E2M1:
      return 4;
    case ElementType::kFloat6E2M3:
    case ElementType::kFloat6E3M2:
      return 6;
    case ElementType::kUint2:
    case ElementType::kInt2:
      return 2;
    case ElementType::kString:
    case ElementType::kUndefined:
      return 0;
  }
  return 0;
}

size_t StorageBytes(ElementType type, int64_t count) {
  PRISM_ENFORCE(count >= 0, kInvalidArgument, "negative element count ", count);
  if (type == ElementType::kString) {
    PRISM_ENFORCE(
        static_cast<uint64_t>(count) <= std::numeric_limits<size_t>::max() / sizeof(std::string),
        kInvalidArgument, "string tensor of ", count, " elements is too large");
    return static_cast<size_t>(count) * sizeof(std::string);
  }
  const int bits = ElementBits(type);
  PRISM_ENFORCE(bits > 0, kInvalidArgument, "element type ", ElementTypeName(type),
                " has no storage size");
  const uint64_t ucount = static_cast<uint64_t>(count);
  PRISM_ENFORCE(ucount <= (std::numeric_limits<uint64_t>::max() - 7) / static_cast<uint64_t>(bits),
                kInvalidArgument, "tensor of ", count, " ", ElementTypeName(type),
                " elements overflows the address space");
  return static_cast<size_t>((ucount * bits + 7) / 8);
}

bool IsSubByte(ElementType type) {
  const int bits = ElementBits(type);
  return bits > 0 && bits < 8;
}

bool IsFloatingPoint(ElementType type) {
  switch (type) {
    case ElementType::kFloat:
    case ElementType::kDouble:
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
    case ElementType::kFloat8E4M3FN:
    case ElementType::kFloat8E4M3FNUZ:
    case ElementType::kFloat8E5M2:
    case ElementType::kFloat8E5M2FNUZ:
    case ElementType::kFloat8E8M0:
    case ElementType::kFloat4E2M1:
    case ElementType::kFloat6E2M3:
    case ElementType::kFloat6E3M2:
      return true;
    default:
      return false;
  }
}

bool IsSignedInteger(ElementType type) {
  switch (type) {
    case ElementType::kInt8:
    case ElementType::kInt16:
    case ElementType::kInt32:
    case ElementType::kInt64:
    case ElementType::kInt4:
    case ElementType::kInt2:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedInteger(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
    case ElementType::kUint16:
    case ElementType::kUint32:
    case ElementType::kUint64:
    case ElementType::kUint4:
    case ElementType::kUint2:
      return true;
    default:
      return false;
  }
}

using E = ElementType;

const std::vector<ElementType>& AllTensorTypesIr4() {
  static const std::vector<ElementType> types = {
      E::kFloat,  E::kUint8, E::kInt8,    E::kUint16, E::kInt16,  E::kInt32,  E::kInt64,
      E::kString, E::kBool,  E::kFloat16, E::kDouble, E::kUint32, E::kUint64, E::kBFloat16};
  return types;
}

const std::vector<ElementType>& AllTensorTypes() {
  static const std::vector<ElementType> types = [] {
    std::vector<ElementType> t = AllTensorTypesIr4();
    for (E e : {E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ, E::kUint4,
                E::kInt4, E::kFloat4E2M1, E::kFloat8E8M0, E::kUint2, E::kInt2})
      t.push_back(e);
    return t;
  }();
  return types;
}

const std::vector<ElementType>& AllNumericTypes() {
  static const std::vector<ElementType> types = {E::kUint8,   E::kUint16, E::kUint32, E::kUint64,
                                                 E::kInt8,    E::kInt16,  E::kInt32,  E::kInt64,
                                                 E::kFloat16, E::kFloat,  E::kDouble};
  return types;
}

const std::vector<ElementType>& StandardFloatTypes() {
  static const std::vector<ElementType> types = {E::kFloat16, E::kFloat, E::kDouble};
  return types;
}

const std::vector<ElementType>& StandardFloatTypesBf16() {
  static const std::vector<ElementType> types = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  return types;
}

const std::vector<ElementType>& SignedIntegerTypes() {
  static const std::vector<ElementType> types = {E::kInt8, E::kInt16, E::kInt32, E::kInt64};
  return types;
}

const std::vector<ElementType>& UnsignedIntegerTypes() {
  static const std::vector<ElementType> types = {E::kUint8, E::kUint16, E::kUint32, E::kUint64};
  return types;
}

}  // namespace prism
