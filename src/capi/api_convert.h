// Checked conversions between the C API's enums and the core's types.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/logging.h"
#include "framework/allocator.h"
#include "framework/memory_info.h"
#include "framework/value.h"
#include "prism/prism_c_api.h"
#include "session/inference_session.h"

namespace prism::capi {

// The integer a caller passed for an enum parameter. C lets any int through an enum type, but in
// C++ reading a value outside the enumerators' range as the enum is undefined behaviour (UBSan:
// "not a valid value for type"), so every enum argument is read as its underlying integer and
// range-checked as an int (the Checked* functions below).
template <typename Enum>
int EnumArgument(const Enum& value) {
  static_assert(std::is_enum_v<Enum>);
  std::underlying_type_t<Enum> raw;
  std::memcpy(&raw, &value, sizeof raw);
  return static_cast<int>(raw);
}

// level as a severity, or kInvalidArgument naming what when it is outside 0..4.
Severity CheckedSeverity(int level, const char* what);
// A tensor element type the C API can create (any but undefined), or kInvalidArgument.
ElementType CheckedElementType(int type);
MemType CheckedMemType(int mem_type);
// The device a memory name lives on ("Cpu", "CudaPinned": CPU; "Cuda": GPU; "TestDevice":
// simulated), or kInvalidArgument listing the known names.
DeviceType DeviceOfMemoryName(const std::string& name);
PrismValueKind ToValueKind(TypeKind kind);
// An allocator's statistics under onnxruntime's names (NumAllocs, InUse, MaxInUse, ...).
std::vector<std::pair<std::string, int64_t>> AllocatorStatsEntries(const AllocatorStats& stats);
// DescribeValue's fields of a value, and whether it alone holds its tensor's memory (dims_offset
// left 0; the dims are the tensor's shape).
PrismValueDescription DescribeContents(const PrismValue& value);
// A tensor over caller memory (CreateTensorWithDataAsValue, RunWithBuffers' feeds), checked: a
// known non-string element type, data_length at least the tensor's bytes, data non-NULL then.
Tensor TensorOverCallerMemory(const MemoryInfo& location, const void* data, size_t data_length,
                              const int64_t* shape, size_t shape_length, int type);
// The C view of a graph value's type: kind, onnxruntime's type string, and the tensor part.
std::unique_ptr<PrismTypeInfo> MakeTypeInfo(const ValueInfo& info);

}  // namespace prism::capi
