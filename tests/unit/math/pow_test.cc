// Pow: every base type (T) with every exponent type (T1) it is registered with, opset ranges,
// broadcasting, the legacy broadcast attributes and integer semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "math_test_util.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

// --- each exponent type with a float base, and a float base in every opset range ---

template <typename E>
class PowExponentTypedTest : public ::testing::Test {};
using PowExponentTypes = ::testing::Types<float, double, Float16, BFloat16, int8_t, int16_t,
                                          int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(PowExponentTypedTest, PowExponentTypes);

TYPED_TEST(PowExponentTypedTest, FloatBase) {
  using E = TypeParam;
  // bfloat16 exponents arrive in opset 15; everything else in 12.
  for (int opset : {12, 13, 15, 21}) {
    if (std::is_same_v<E, BFloat16> && opset < 15) continue;
    SCOPED_TRACE(opset);
    OpTester test("Pow", opset);
    test.Input<float>("X", {4}, {2, 3, 4, 1.5f});
    test.Input<E>("Y", {4}, Vals<E>({3, 2, 0, 1}));
    test.Output<float>("Z", {4}, {8, 9, 1, 1.5f});
    test.Run();
  }
}

TYPED_TEST(PowExponentTypedTest, Int32Base) {
  using E = TypeParam;
  OpTester test("Pow", 15);
  test.Input<int32_t>("X", {4}, {2, -3, 5, 7});
  test.Input<E>("Y", {4}, Vals<E>({10, 3, 0, 1}));
  test.Output<int32_t>("Z", {4}, {1024, -27, 1, 7});
  test.Run();
}

TYPED_TEST(PowExponentTypedTest, Int64Base) {
  using E = TypeParam;
  OpTester test("Pow", std::is_same_v<E, BFloat16> ? 15 : 13);  // bfloat16 exponents from 15
  test.Input<int64_t>("X", {3}, {-2, 3, 10});
  test.Input<E>("Y", {3}, Vals<E>({5, 4, 2}));
  test.Output<int64_t>("Z", {3}, {-32, 81, 100});
  test.Run();
}

TEST(PowTest, BFloat16ExponentRejectedBeforeOpset15) {
  OpTester test("Pow", 14);
  test.Input<float>("X", {1}, {2});
  test.Input<BFloat16>("Y", {1}, Vals<BFloat16>({2}));
  test.Output<float>("Z", {1}, {4});
  test.ExpectFailure("no kernel for");
}

// --- each base type with an exponent of its own type, in each opset range ---

template <typename T>
class PowBaseTypedTest : public ::testing::Test {};
using PowBaseTypes = ::testing::Types<float, double, Float16, BFloat16, int32_t, int64_t>;
TYPED_TEST_SUITE(PowBaseTypedTest, PowBaseTypes);

TYPED_TEST(PowBaseTypedTest, SameTypeExponentInEveryOpsetRange) {
  using T = TypeParam;
  std::vector<int> opsets;
  if constexpr (std::is_same_v<T, BFloat16>) {
    opsets = {15, 21};  // a bfloat16 exponent (T1) needs opset 15
  } else if constexpr (std::is_integral_v<T>) {
    opsets = {12, 13, 15};
  } else {
    opsets = {1, 7, 12, 13, 15};
  }
  for (int opset : opsets) {
    SCOPED_TRACE(opset);
    OpTester test("Pow", opset);
    test.Input<T>("X", {2, 2}, Vals<T>({2, 3, -2, 5}));
    test.Input<T>("Y", {2, 2}, Vals<T>({4, 3, 3, 2}));
    test.Output<T>("Z", {2, 2}, Vals<T>({16, 27, -8, 25}));
    test.Run();
  }
}

TYPED_TEST(PowBaseTypedTest, FloatExponentAndScalarBroadcast) {
  using T = TypeParam;
  OpTester test("Pow", 15);
  test.Input<T>("X", {2, 2}, Vals<T>({4, 9, 16, 25}));
  test.Input<float>("Y", {}, {0.5f});
  test.Output<T>("Z", {2, 2}, Vals<T>({2, 3, 4, 5}));
  test.Run();
}

TEST(PowTest, BFloat16BaseWithFloatExponentInOpset13) {
  OpTester test("Pow", 13);
  test.Input<BFloat16>("X", {3}, Vals<BFloat16>({2, -3, 0.5}));
  test.Input<float>("Y", {3}, {3, 2, -1});
  test.Output<BFloat16>("Z", {3}, Vals<BFloat16>({8, 9, 2}));
  test.Run();
}

TEST(PowTest, FloatNonIntegerExponents) {
  OpTester test("Pow", 15);
  test.Input<double>("X", {4}, {2, 8, 0, -8});
  test.Input<double>("Y", {4}, {-1, 1.0 / 3, 0, 0.5});
  test.Output<double>("Z", {4}, {0.5, 2, 1, std::nan("")});
  test.Run();
}

TEST(PowTest, FloatBaseNegativeIntExponent) {
  OpTester test("Pow", 15);
  test.Input<float>("X", {3}, {2, -4, 0});
  test.Input<int64_t>("Y", {3}, {-2, -1, -1});
  test.Output<float>("Z", {3}, {0.25f, -0.25f, std::numeric_limits<float>::infinity()});
  test.Run();
}

TEST(PowTest, Int32BaseNegativeExponentTruncates) {
  OpTester test("Pow", 15);
  test.Input<int32_t>("X", {6}, {2, -2, 1, -1, -1, 7});
  test.Input<int32_t>("Y", {6}, {-1, -1, -5, -2, -3, -1});
  test.Output<int32_t>("Z", {6}, {0, 0, 1, 1, -1, 0});
  test.Run();
}

TEST(PowTest, ZeroToNegativeIntegerPowerIsAnError) {
  OpTester test("Pow", 15);
  test.Input<int64_t>("X", {1}, {0});
  test.Input<int64_t>("Y", {1}, {-1});
  test.Output<int64_t>("Z", {1}, {0});
  test.ExpectFailure("0 raised to the negative integer power");
}

TEST(PowTest, Int64ExactLargePowers) {
  OpTester test("Pow", 15);
  test.Input<int64_t>("X", {3}, {3, 2, -3});
  test.Input<int64_t>("Y", {3}, {39, 62, 39});
  test.Output<int64_t>("Z", {3}, {4052555153018976267, 4611686018427387904, -4052555153018976267});
  test.Run();
}

TEST(PowTest, Int64UnsignedExponent) {
  OpTester test("Pow", 15);
  test.Input<int64_t>("X", {2}, {1, 2});
  test.Input<uint64_t>("Y", {2}, {18446744073709551615u, 10});
  test.Output<int64_t>("Z", {2}, {1, 1024});
  test.Run();
}

TEST(PowTest, IntBaseFloatExponentTruncatesAndSaturates) {
  OpTester test("Pow", 15);
  // sqrt(2) = 1.41 -> 1; 2^40 saturates at int32 max; (-2)^0.5 is NaN -> 0.
  test.Input<int32_t>("X", {5}, {2, 9, 4, 2, -2});
  test.Input<float>("Y", {5}, {0.5f, 0.5f, 1.5f, 40, 0.5f});
  test.Output<int32_t>("Z", {5}, {1, 3, 8, 2147483647, 0});
  test.Run();
}

TEST(PowTest, RowBroadcast) {
  OpTester test("Pow", 7);
  test.Input<float>("X", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("Y", {3}, {1, 2, 3});
  test.Output<float>("Z", {2, 3}, {1, 4, 27, 4, 25, 216});
  test.Run();
}

TEST(PowTest, BaseBroadcastAgainstExponentColumn) {
  OpTester test("Pow", 15);
  test.Input<int64_t>("X", {3}, {1, 2, 3});
  test.Input<int32_t>("Y", {2, 1}, {2, 3});
  test.Output<int64_t>("Z", {2, 3}, {1, 4, 9, 1, 8, 27});
  test.Run();
}

TEST(PowTest, IncompatibleShapesNameBothShapes) {
  OpTester test("Pow", 15);
  test.Input<float>("X", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("Y", {2}, {1, 2});
  test.Output<float>("Z", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure("[2,3] and [2]");
}

TEST(PowTest, LegacyBroadcastWithAxis) {
  OpTester test("Pow", 1);
  test.Attr("broadcast", int64_t{1}).Attr("axis", int64_t{0});
  test.Input<float>("X", {2, 2}, {2, 3, 2, 3});
  test.Input<float>("Y", {2}, {2, 3});
  test.Output<float>("Z", {2, 2}, {4, 9, 8, 27});
  test.Run();
}

TEST(PowTest, LegacyWithoutBroadcastNeedsEqualShapes) {
  OpTester test("Pow", 1);
  test.Input<float>("X", {2, 2}, {2, 3, 2, 3});
  test.Input<float>("Y", {2}, {2, 3});
  test.Output<float>("Z", {2, 2}, {4, 9, 8, 27});
  test.ExpectFailure("same shape");
}

TEST(PowTest, IntegerBaseRejectedBeforeOpset12) {
  OpTester test("Pow", 11);
  test.Input<int32_t>("X", {1}, {2});
  test.Input<int32_t>("Y", {1}, {2});
  test.Output<int32_t>("Z", {1}, {4});
  test.ExpectFailure("no kernel for");
}

// A double base and exponent stay in double: bases 1 + k * 2^-30 (1 in float) raised to
// non-integer powers must match long double to 1e-12.
TEST(PowDoublePrecisionTest, ExactToDoublePrecision) {
  const std::vector<double> x = {NearOne(1), NearOne(-5), 2 * NearOne(9), 0.5 * NearOne(3)};
  const std::vector<double> y = {1.5, NearOne(2), -0.75, 3 * NearOne(-4)};
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> out;
    for (size_t i = 0; i < x.size(); ++i)
      out.push_back(std::pow(static_cast<C>(x[i]), static_cast<C>(y[i])));
    return out;
  });
  OpTester test("Pow", 15);
  test.Input<double>("X", {4}, x);
  test.Input<double>("Y", {4}, y);
  test.Output<double>("Z", {4}, expected);
  test.Run();
}

}  // namespace
}  // namespace prism::testing
