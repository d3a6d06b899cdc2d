// Tensor element types. Numbering follows ONNX's TensorProto.DataType, including the types
// newer than Debian's libonnx (float8, 4-bit, 2-bit, float4, float6), which Prism defines itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace prism {

enum class ElementType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
  kFloat6E2M3 = 27,
  kFloat6E3M2 = 28,
};

constexpr int32_t kMaxElementType = 28;

bool IsKnownElementType(int32_t value);
// ONNX's spelling, e.g. "float", "float16", "float8e4m3fn", "int4", "string".
const char* ElementTypeName(ElementType type);
// The type a TensorProto.DataType name stands for ("FLOAT", "INT8"; any case), as Cast-1 to Cast-5
// name their target type; kUndefined for any other text.
ElementType ElementTypeFromDataTypeName(const std::string& name);
// Bits per element: 4 for int4/uint4/float4e2m1, 2 for int2/uint2, 6 for float6e2m3/float6e3m2,
// 8 * sizeof otherwise.
// 0 for string (stored as std::string objects) and undefined.
int ElementBits(ElementType type);
// Bytes needed for count elements, sub-byte types packed as a little-endian bit stream (element i
// in bits [i * bits, (i + 1) * bits), so a float6 element may straddle two bytes).
// Throws on overflow.
size_t StorageBytes(ElementType type, int64_t count);
bool IsSubByte(ElementType type);
bool IsFloatingPoint(ElementType type);  // every IEEE-like or float8/float6/float4 type
bool IsSignedInteger(ElementType type);
bool IsUnsignedInteger(ElementType type);

// Type lists used by kernel definitions (ONNX spec constraint groups).
const std::vector<ElementType>& AllTensorTypes();          // everything but undefined/complex
const std::vector<ElementType>& AllTensorTypesIr4();       // the 15 pre-float8 types
const std::vector<ElementType>& AllNumericTypes();         // ints, uints, float16/32/64, (no bf16)
const std::vector<ElementType>& StandardFloatTypes();      // float16, float, double
const std::vector<ElementType>& StandardFloatTypesBf16();  // float16, float, double, bfloat16
const std::vector<ElementType>& SignedIntegerTypes();
const std::vector<ElementType>& UnsignedIntegerTypes();

}  // namespace prism
