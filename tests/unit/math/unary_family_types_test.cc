// Every (op, schema version range, element type) of the unary family computed once against a
// double-precision reference (std:: functions on the input as rounded to its type): the type
// coverage check (tests/coverage) counts these runs as the evidence for each registration.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "math_test_util.h"

namespace prism::testing {
namespace {

template <typename T>
void CheckOp(const char* op, int opset, const std::function<double(double)>& reference,
             std::initializer_list<double> inputs) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  const std::vector<T> x = Vals<T>(inputs);
  std::vector<T> y;
  for (T value : x) y.push_back(FromDouble<T>(reference(AsDouble(value))));
  const int64_t n = static_cast<int64_t>(x.size());
  OpTester test(op, opset);
  test.Input<T>("X", {n}, x);
  test.Output<T>("Y", {n}, y);
  test.Run();
}

using Floats = TypeSet<Float16, float, double>;
using FloatsBf16 = TypeSet<Float16, float, double, BFloat16>;
using Signed = TypeSet<Float16, float, double, int8_t, int16_t, int32_t, int64_t>;
using SignedBf16 = TypeSet<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t>;
using Numeric = TypeSet<Float16, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t,
                        uint16_t, uint32_t, uint64_t>;
using NumericBf16 = TypeSet<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t>;

// A float function at each opset: floats only, and with bfloat16 at the last opset.
void CheckFloatFunction(const char* op, std::vector<int> float_opsets, int bf16_opset,
                        const std::function<double(double)>& f,
                        std::initializer_list<double> inputs) {
  for (int opset : float_opsets)
    Floats::ForEach(
        [&](auto* type) { CheckOp<std::remove_pointer_t<decltype(type)>>(op, opset, f, inputs); });
  FloatsBf16::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>(op, bf16_opset, f, inputs);
  });
}

TEST(UnaryFamilyTypesTest, FloatFunctions) {
  const auto l = [](double (*f)(double)) { return std::function<double(double)>(f); };
  CheckFloatFunction("Ceil", {1, 6}, 13, l(std::ceil), {-1.5, 0.25, 2});
  CheckFloatFunction("Floor", {1, 6}, 13, l(std::floor), {-1.5, 0.75, 2});
  CheckFloatFunction("Reciprocal", {1, 6}, 13, [](double x) { return 1.0 / x; }, {0.5, -4, 2});
  CheckFloatFunction("Log", {1, 6}, 13, l(std::log), {0.5, 1, 3});
  CheckFloatFunction("Round", {11}, 22, l(std::nearbyint), {0.5, 1.5, -2.5, 0.75});
  CheckFloatFunction("Sin", {7}, 22, l(std::sin), {0, 0.5, -1});
  CheckFloatFunction("Cos", {7}, 22, l(std::cos), {0, 0.5, -1});
  CheckFloatFunction("Tan", {7}, 22, l(std::tan), {0, 0.5, -1});
  CheckFloatFunction("Asin", {7}, 22, l(std::asin), {0, 0.5, -0.75});
  CheckFloatFunction("Acos", {7}, 22, l(std::acos), {0, 0.5, -0.75});
  CheckFloatFunction("Atan", {7}, 22, l(std::atan), {0, 0.5, -2});
  CheckFloatFunction("Sinh", {9}, 22, l(std::sinh), {0, 0.5, -1});
  CheckFloatFunction("Cosh", {9}, 22, l(std::cosh), {0, 0.5, -1});
  CheckFloatFunction("Asinh", {9}, 22, l(std::asinh), {0, 0.5, -1});
  CheckFloatFunction("Acosh", {9}, 22, l(std::acosh), {1, 1.5, 3});
  CheckFloatFunction("Atanh", {9}, 22, l(std::atanh), {0, 0.5, -0.25});
  CheckFloatFunction("Softsign", {1}, 22, [](double x) { return x / (1 + std::fabs(x)); },
                     {0, 0.5, -3});
  CheckFloatFunction("Softplus", {1}, 22, [](double x) { return std::log1p(std::exp(x)); },
                     {0, 0.5, -3});
}

double Sign(double x) {
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
}

TEST(UnaryFamilyTypesTest, AbsNegSign) {
  const auto abs = [](double x) { return std::fabs(x); };
  const auto neg = [](double x) { return -x; };
  Floats::ForEach([&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    CheckOp<T>("Abs", 1, abs, {-2, 0, 3});
    CheckOp<T>("Neg", 1, neg, {-2, 0, 3});
  });
  Numeric::ForEach([&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    const bool is_signed = !std::is_unsigned_v<T>;
    CheckOp<T>("Abs", 6, abs, {is_signed ? -2.0 : 2.0, 0, 3});
    CheckOp<T>("Sign", 9, Sign, {is_signed ? -2.0 : 2.0, 0, 3});
  });
  NumericBf16::ForEach([&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    const bool is_signed = !std::is_unsigned_v<T>;
    CheckOp<T>("Abs", 13, abs, {is_signed ? -2.0 : 2.0, 0, 3});
    CheckOp<T>("Sign", 13, Sign, {is_signed ? -2.0 : 2.0, 0, 3});
  });
  Signed::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>("Neg", 6, neg, {-2, 0, 3});
  });
  SignedBf16::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>("Neg", 13, neg, {-2, 0, 3});
  });
}

}  // namespace
}  // namespace prism::testing
