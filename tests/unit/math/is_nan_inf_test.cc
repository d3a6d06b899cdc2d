// IsNaN and IsInf on every (version range, type): float, double, float16, bfloat16 and the four
// float8 formats of opset 20 (bit patterns checked with ml_dtypes), and IsInf's detect flags.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "math_test_util.h"

namespace prism::testing {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
void Check(const char* op, int opset, std::vector<bool> expected, int64_t positive = 1,
           int64_t negative = 1) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test(op, opset);
  test.Input<T>("X", {5}, Vals<T>({1, kNan, kInf, -kInf, -2}));
  if (std::string(op) == "IsInf") {
    test.Attr("detect_positive", positive);
    test.Attr("detect_negative", negative);
  }
  test.Output<bool>("Y", {5}, expected);
  test.Run();
}

TEST(IsNanInfTest, WideFloatTypes) {
  const std::vector<bool> nan = {false, true, false, false, false};
  const std::vector<bool> inf = {false, false, true, true, false};
  TypeSet<Float16, float, double>::ForEach(
      [&](auto* type) { Check<std::remove_pointer_t<decltype(type)>>("IsNaN", 9, nan); });
  TypeSet<Float16, float, double, BFloat16>::ForEach([&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    Check<T>("IsNaN", 13, nan);
    Check<T>("IsNaN", 20, nan);
    Check<T>("IsInf", 20, inf);
  });
  TypeSet<float, double>::ForEach([&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    Check<T>("IsInf", 10, inf);
    Check<T>("IsInf", 10, {false, false, true, false, false}, 1, 0);
    Check<T>("IsInf", 10, {false, false, false, true, false}, 0, 1);
  });
}

void CheckFloat8(ElementType type, std::vector<uint8_t> bits, std::vector<bool> nan,
                 std::vector<bool> inf) {
  SCOPED_TRACE(ElementTypeName(type));
  const int64_t n = static_cast<int64_t>(bits.size());
  OpTester is_nan("IsNaN", 20);
  is_nan.InputTensor("X", MakeRawTensor(type, {n}, bits));
  is_nan.Output<bool>("Y", {n}, nan);
  is_nan.Run();
  OpTester is_inf("IsInf", 20);
  is_inf.InputTensor("X", MakeRawTensor(type, {n}, bits));
  is_inf.Output<bool>("Y", {n}, inf);
  is_inf.Run();
}

TEST(IsNanInfTest, Float8FormatsFromTheirBits) {
  // 1.0, NaN, -2.0, and for E5M2 +inf and -inf: the FN/FNUZ formats have no infinity.
  CheckFloat8(ElementType::kFloat8E4M3FN, {0x38, 0x7f, 0xff, 0xc0}, {false, true, true, false},
              {false, false, false, false});
  CheckFloat8(ElementType::kFloat8E4M3FNUZ, {0x40, 0x80, 0xc8}, {false, true, false},
              {false, false, false});
  CheckFloat8(ElementType::kFloat8E5M2, {0x3c, 0x7e, 0x7c, 0xfc, 0xc0},
              {false, true, false, false, false}, {false, false, true, true, false});
  CheckFloat8(ElementType::kFloat8E5M2FNUZ, {0x40, 0x80, 0xc4}, {false, true, false},
              {false, false, false});
}

}  // namespace
}  // namespace prism::testing
