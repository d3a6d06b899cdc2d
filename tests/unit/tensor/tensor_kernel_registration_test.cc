// Checks that the registrations of the kernels in providers/cpu/tensor (data movement),
// reduction/reduce_mean.cc and controlflow/if.cc follow the ONNX spec: one registration per
// schema version range and exactly the element types the spec allows. The table was generated
// from onnx.defs (onnx 1.23.2) without complex64/complex128; ExpectedTypes adds them back where
// the spec allows them.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <sstream>

#include "framework/kernel_registry.h"
#include "providers/cpu/cpu_execution_provider.h"

namespace prism::testing {
namespace {

struct SpecRange {
  const char* op;
  int since;
  int end;
  const char* constraint;
  const char* types;  // sorted, space separated
  bool sequences;
  bool optionals;
};

std::string SortedTypeNames(const std::vector<ElementType>& types) {
  std::vector<std::string> names;
  for (ElementType t : types) names.push_back(ElementTypeName(t));
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : " ") + n;
  return joined;
}

// range.types plus complex64/complex128, which the spec allows for every range of the
// data-movement ops (and If) except their float-only first ranges.
std::string ExpectedTypes(const SpecRange& range) {
  static const std::set<std::string> kComplexOps = {"Concat",  "Flatten", "Gather",    "If",
                                                    "Reshape", "Squeeze", "Transpose", "Unsqueeze"};
  const std::string types = range.types;
  if (!kComplexOps.count(range.op) || types == "double float float16") return types;
  std::vector<std::string> names = {"complex64", "complex128"};
  std::istringstream words(types);
  for (std::string word; words >> word;) names.push_back(word);
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : " ") + n;
  return joined;
}

TEST(TensorKernelRegistrationTest, MatchesOnnxSpecVersionsAndTypes) {
  const std::vector<SpecRange> spec = {
      {"Concat", 1, 3, "T", "double float float16", false, false},
      {"Concat", 4, 10, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Concat", 11, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Concat", 13, INT_MAX, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Flatten", 1, 8, "T", "double float float16", false, false},
      {"Flatten", 9, 10, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Flatten", 11, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Flatten", 13, 20, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Flatten", 21, 22, "T",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Flatten", 23, 23, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Flatten", 24, 24, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 "
       "uint8",
       false, false},
      {"Flatten", 25, INT_MAX, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int2 int32 int4 int64 int8 string uint16 uint2 uint32 "
       "uint4 uint64 uint8",
       false, false},
      {"Gather", 1, 10, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Gather", 11, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Gather", 13, INT_MAX, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"If", 1, 10, "V",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"If", 11, 12, "V",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"If", 13, 15, "V",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", true,
       false},
      {"If", 16, 18, "V",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       true, true},
      {"If", 19, 20, "V",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int64 int8 string uint16 uint32 uint64 uint8",
       true, true},
      {"If", 21, 22, "V",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       true, true},
      {"If", 23, 23, "V",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       true, true},
      {"If", 24, 24, "V",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 "
       "uint8",
       true, true},
      {"If", 25, INT_MAX, "V",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int2 int32 int4 int64 int8 string uint16 uint2 uint32 "
       "uint4 uint64 uint8",
       true, true},
      {"ReduceMean", 1, 10, "T", "double float float16 int32 int64 uint32 uint64", false, false},
      {"ReduceMean", 11, 12, "T", "double float float16 int32 int64 uint32 uint64", false, false},
      {"ReduceMean", 13, 17, "T", "bfloat16 double float float16 int32 int64 uint32 uint64", false,
       false},
      {"ReduceMean", 18, INT_MAX, "T", "bfloat16 double float float16 int32 int64 uint32 uint64",
       false, false},
      {"Reshape", 1, 4, "T", "double float float16", false, false},
      {"Reshape", 5, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Reshape", 13, 13, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Reshape", 14, 18, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Reshape", 19, 20, "T",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int64 int8 string uint16 uint32 uint64 uint8",
       false, false},
      {"Reshape", 21, 22, "T",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Reshape", 23, 23, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Reshape", 24, 24, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 "
       "uint8",
       false, false},
      {"Reshape", 25, INT_MAX, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int2 int32 int4 int64 int8 string uint16 uint2 uint32 "
       "uint4 uint64 uint8",
       false, false},
      {"Squeeze", 1, 10, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Squeeze", 11, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Squeeze", 13, 20, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Squeeze", 21, 22, "T",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Squeeze", 23, 23, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Squeeze", 24, 24, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 "
       "uint8",
       false, false},
      {"Squeeze", 25, INT_MAX, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int2 int32 int4 int64 int8 string uint16 uint2 uint32 "
       "uint4 uint64 uint8",
       false, false},
      {"Transpose", 1, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Transpose", 13, 20, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Transpose", 21, 22, "T",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Transpose", 23, 23, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Transpose", 24, 24, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 "
       "uint8",
       false, false},
      {"Transpose", 25, INT_MAX, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int2 int32 int4 int64 int8 string uint16 uint2 uint32 "
       "uint4 uint64 uint8",
       false, false},
      {"Unsqueeze", 1, 10, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Unsqueeze", 11, 12, "T",
       "bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 uint8", false,
       false},
      {"Unsqueeze", 13, 20, "T",
       "bfloat16 bool double float float16 int16 int32 int64 int8 string uint16 uint32 uint64 "
       "uint8",
       false, false},
      {"Unsqueeze", 21, 22, "T",
       "bfloat16 bool double float float16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz "
       "int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Unsqueeze", 23, 23, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 uint8",
       false, false},
      {"Unsqueeze", 24, 24, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int32 int4 int64 int8 string uint16 uint32 uint4 uint64 "
       "uint8",
       false, false},
      {"Unsqueeze", 25, INT_MAX, "T",
       "bfloat16 bool double float float16 float4e2m1 float8e4m3fn float8e4m3fnuz float8e5m2 "
       "float8e5m2fnuz float8e8m0 int16 int2 int32 int4 int64 int8 string uint16 uint2 uint32 "
       "uint4 uint64 uint8",
       false, false},
  };
  std::map<std::string, std::vector<const KernelCreateInfo*>> registered;
  for (const KernelCreateInfo* info : CpuExecutionProvider::SharedRegistry()->All())
    if (info->def.domain.empty()) registered[info->def.op_type].push_back(info);

  std::map<std::string, size_t> expected_count;
  for (const SpecRange& range : spec) {
    SCOPED_TRACE(::testing::Message() << range.op << " " << range.since << "-" << range.end);
    ++expected_count[range.op];
    const KernelCreateInfo* match = nullptr;
    for (const KernelCreateInfo* info : registered[range.op])
      if (info->def.since_version == range.since && info->def.end_version == range.end)
        match = info;
    ASSERT_NE(match, nullptr) << "no registration for this version range";
    const TypeConstraint* constraint = nullptr;
    for (const TypeConstraint& c : match->def.constraints)
      if (c.name == range.constraint) constraint = &c;
    ASSERT_NE(constraint, nullptr) << "no constraint " << range.constraint;
    EXPECT_EQ(SortedTypeNames(constraint->allowed), ExpectedTypes(range));
    EXPECT_EQ(constraint->allow_sequence, range.sequences);
    EXPECT_EQ(constraint->allow_optional, range.optionals);
  }
  for (const auto& [op, count] : expected_count)
    EXPECT_EQ(registered[op].size(), count) << op << " has registrations outside the spec table";
}

}  // namespace
}  // namespace prism::testing
