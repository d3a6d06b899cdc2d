// Sqrt, Exp, Erf, Sigmoid, Tanh, Relu: values for every registered (op, opset range, type).
// Expected values computed with numpy / math.erf in double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "math_test_util.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

template <typename T>
class UnaryFloatTypedTest : public ::testing::Test {};

using UnaryFloatTypes = ::testing::Types<float, double, Float16, BFloat16>;
TYPED_TEST_SUITE(UnaryFloatTypedTest, UnaryFloatTypes);

template <typename T>
void CheckUnary(const char* op, int opset, const std::vector<int64_t>& dims,
                std::initializer_list<double> x, std::initializer_list<double> y) {
  SCOPED_TRACE(::testing::Message() << op << " opset " << opset);
  OpTester test(op, opset);
  test.Input<T>("X", dims, Vals<T>(x));
  test.Output<T>("Y", dims, Vals<T>(y));
  test.Run();
}

// Opsets 1 (1-5), 6 (6-12) and 13+; bfloat16 only from 13.
template <typename T>
std::vector<int> ClassicOpsets() {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return {13, 21};
  } else {
    return {1, 6, 13, 21};
  }
}

TYPED_TEST(UnaryFloatTypedTest, Sqrt) {
  for (int opset : ClassicOpsets<TypeParam>())
    CheckUnary<TypeParam>("Sqrt", opset, {2, 2}, {0, 1, 4, 2.25}, {0, 1, 2, 1.5});
}

TYPED_TEST(UnaryFloatTypedTest, Exp) {
  for (int opset : ClassicOpsets<TypeParam>())
    CheckUnary<TypeParam>("Exp", opset, {4}, {0, 1, -1, 2},
                          {1.0, 2.718281828459045, 0.36787944117144233, 7.38905609893065});
}

TYPED_TEST(UnaryFloatTypedTest, Sigmoid) {
  for (int opset : ClassicOpsets<TypeParam>())
    CheckUnary<TypeParam>(
        "Sigmoid", opset, {5}, {0, 1, -2, 50, -100},
        {0.5, 0.7310585786300049, 0.11920292202211755, 1.0, 3.7200759760208361e-44});
}

TYPED_TEST(UnaryFloatTypedTest, Tanh) {
  for (int opset : ClassicOpsets<TypeParam>())
    CheckUnary<TypeParam>("Tanh", opset, {4}, {0, 0.5, -1, 20},
                          {0.0, 0.46211715726000974, -0.7615941559557649, 1.0});
}

TYPED_TEST(UnaryFloatTypedTest, Relu) {
  std::vector<int> opsets = ClassicOpsets<TypeParam>();
  opsets.push_back(14);
  for (int opset : opsets)
    CheckUnary<TypeParam>("Relu", opset, {2, 3}, {-1, 0, 2.5, -0.5, 3, -100}, {0, 0, 2.5, 0, 3, 0});
}

TYPED_TEST(UnaryFloatTypedTest, Erf) {
  std::vector<int> opsets = {13, 21};
  if (!std::is_same_v<TypeParam, BFloat16>) opsets.push_back(9);
  for (int opset : opsets)
    CheckUnary<TypeParam>("Erf", opset, {4}, {0, 0.5, -1, 2},
                          {0.0, 0.5204998778130465, -0.8427007929497149, 0.9953222650189527});
}

TEST(UnaryFloatTest, BFloat16RejectedBeforeOpset13) {
  OpTester test("Sqrt", 12);
  test.Input<BFloat16>("X", {1}, Vals<BFloat16>({4}));
  test.Output<BFloat16>("Y", {1}, Vals<BFloat16>({2}));
  test.ExpectFailure("no kernel for");
}

TEST(UnaryFloatTest, ZeroSizeTensor) {
  OpTester test("Exp", 13);
  test.Input<float>("X", {0, 3}, {});
  test.Output<float>("Y", {0, 3}, {});
  test.Run();
}

TEST(UnaryFloatTest, ScalarTensor) {
  OpTester test("Tanh", 13);
  test.Input<double>("X", {}, {0.5});
  test.Output<double>("Y", {}, {0.46211715726000974});
  test.Run();
}

TEST(UnaryFloatTest, SqrtOfNegativeIsNaN) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  OpTester test("Sqrt", 13);
  test.Input<float>("X", {2}, {-1, 9});
  test.Output<float>("Y", {2}, {kNaN, 3});
  test.Run();
}

TEST(UnaryFloatTest, SigmoidExtremesDoNotOverflow) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  OpTester test("Sigmoid", 13);
  test.Input<double>("X", {4}, {-kInf, kInf, -1000, 1000});
  test.Output<double>("Y", {4}, {0, 1, 0, 1});
  test.Run();
}

TEST(UnaryFloatTest, ReluKeepsNaNAndInfinity) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  OpTester test("Relu", 14);
  test.Input<float>("X", {4}, {kNaN, -kInf, kInf, -0.f});
  test.Output<float>("Y", {4}, {kNaN, 0, kInf, 0});
  test.Run();
}

TEST(UnaryFloatTest, ReluFloat16KeepsNaN) {
  OpTester test("Relu", 13);
  test.Input<Float16>("X", {2}, {Float16::FromBits(0x7e00), Float16(-2.f)});
  test.Output<Float16>("Y", {2}, {Float16::FromBits(0x7e00), Float16(0.f)});
  test.Run();
}

// --- integer types ---

template <typename T>
class ReluIntTypedTest : public ::testing::Test {};
using ReluIntTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t>;
TYPED_TEST_SUITE(ReluIntTypedTest, ReluIntTypes);

TYPED_TEST(ReluIntTypedTest, ClampsNegativesFromOpset14) {
  using T = TypeParam;
  constexpr T kLowest = std::numeric_limits<T>::lowest();
  constexpr T kMax = std::numeric_limits<T>::max();
  OpTester test("Relu", 14);
  test.Input<T>("X", {5}, {-5, 0, 7, kLowest, kMax});
  test.Output<T>("Y", {5}, {0, 0, 7, 0, kMax});
  test.Run();
}

TYPED_TEST(ReluIntTypedTest, RejectedBeforeOpset14) {
  using T = TypeParam;
  OpTester test("Relu", 13);
  test.Input<T>("X", {1}, {-5});
  test.Output<T>("Y", {1}, {0});
  test.ExpectFailure("no kernel for");
}

template <typename T>
class ErfIntTypedTest : public ::testing::Test {};
using ErfIntTypes =
    ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(ErfIntTypedTest, ErfIntTypes);

TYPED_TEST(ErfIntTypedTest, TruncatesErfInOpset9) {
  using T = TypeParam;
  // erf(1) = 0.84, erf(3) = 0.99998 truncate to 0; erf(10) is exactly 1.0 in double.
  OpTester test("Erf", 9);
  if constexpr (std::is_signed_v<T>) {
    test.Input<T>("X", {6}, {0, 1, 3, 10, -1, -10});
    test.Output<T>("Y", {6}, {0, 0, 0, 1, 0, -1});
  } else {
    test.Input<T>("X", {4}, {0, 1, 3, 10});
    test.Output<T>("Y", {4}, {0, 0, 0, 1});
  }
  test.Run();
}

TYPED_TEST(ErfIntTypedTest, RejectedFromOpset13) {
  using T = TypeParam;
  OpTester test("Erf", 13);
  test.Input<T>("X", {1}, {1});
  test.Output<T>("Y", {1}, {0});
  test.ExpectFailure("no kernel for");
}

// Double kernels compute in double: on inputs 1 + k * 2^-30 (all 1 in float) each result must
// match a long double evaluation to 1e-12, which a kernel computing in float misses by ~1e-9.
template <typename Fn>
void CheckUnaryInDouble(const char* op, Fn fn, bool negative_inputs = true) {
  SCOPED_TRACE(op);
  std::vector<double> x;
  for (double scale : {1.0, -1.0, 2.0, -0.5, 0.75, 3.0})
    x.push_back(NearOne(static_cast<int>(8 * scale) + 1) *
                (negative_inputs ? scale : scale * scale));
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> out;
    for (double v : x) out.push_back(fn(static_cast<C>(v)));
    return out;
  });
  OpTester test(op, 13);
  test.Input<double>("X", {6}, x);
  test.Output<double>("Y", {6}, expected);
  test.Run();
}

TEST(UnaryDoublePrecisionTest, ExactToDoublePrecision) {
  CheckUnaryInDouble(
      "Sqrt", [](auto v) { return std::sqrt(v); }, /*negative_inputs=*/false);
  CheckUnaryInDouble("Exp", [](auto v) { return std::exp(v); });
  CheckUnaryInDouble("Erf", [](auto v) { return std::erf(v); });
  CheckUnaryInDouble("Tanh", [](auto v) { return std::tanh(v); });
  CheckUnaryInDouble("Sigmoid", [](auto v) { return 1 / (1 + std::exp(-v)); });
}

}  // namespace
}  // namespace prism::testing
