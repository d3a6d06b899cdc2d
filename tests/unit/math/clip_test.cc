// Clip: attribute bounds (opset 1-10), optional input bounds (11+), every registered type,
// min > max, NaN, defaults and error cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "math_test_util.h"

namespace prism::testing {
namespace {

template <typename T>
class ClipTypedTest : public ::testing::Test {};
using ClipTypes = ::testing::Types<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                   int64_t, uint8_t, uint16_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(ClipTypedTest, ClipTypes);

template <typename T>
std::vector<int> ClipInputOpsets() {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return {13, 21};
  } else if constexpr (std::is_integral_v<T>) {
    return {12, 13, 21};
  } else {
    return {11, 12, 13, 21};
  }
}

TYPED_TEST(ClipTypedTest, MinAndMaxInputs) {
  using T = TypeParam;
  for (int opset : ClipInputOpsets<T>()) {
    SCOPED_TRACE(opset);
    OpTester test("Clip", opset);
    test.Input<T>("X", {2, 3}, Vals<T>({1, 5, 3, 10, 2, 8}));
    test.Input<T>("min", {}, Vals<T>({2}));
    test.Input<T>("max", {}, Vals<T>({8}));
    test.Output<T>("Y", {2, 3}, Vals<T>({2, 5, 3, 8, 2, 8}));
    test.Run();
  }
}

TYPED_TEST(ClipTypedTest, OnlyMaxInput) {
  using T = TypeParam;
  OpTester test("Clip", 13);
  test.Input<T>("X", {3}, Vals<T>({1, 5, 9}));
  test.MissingInput();
  test.Input<T>("max", {}, Vals<T>({4}));
  test.Output<T>("Y", {3}, Vals<T>({1, 4, 4}));
  test.Run();
}

TYPED_TEST(ClipTypedTest, OnlyMinInput) {
  using T = TypeParam;
  OpTester test("Clip", 13);
  test.Input<T>("X", {3}, Vals<T>({1, 5, 9}));
  test.Input<T>("min", {}, Vals<T>({4}));
  test.Output<T>("Y", {3}, Vals<T>({4, 5, 9}));
  test.Run();
}

TYPED_TEST(ClipTypedTest, NoBoundsKeepsExtremes) {
  using T = TypeParam;
  // The defaults are lowest()/max() of T, so finite extremes pass through.
  const T lowest = std::is_integral_v<T> ? std::numeric_limits<T>::lowest() : Vals<T>({-60000})[0];
  const T highest = std::is_integral_v<T> ? std::numeric_limits<T>::max() : Vals<T>({60000})[0];
  OpTester test("Clip", 13);
  test.Input<T>("X", {3}, {lowest, Vals<T>({3})[0], highest});
  test.Output<T>("Y", {3}, {lowest, Vals<T>({3})[0], highest});
  test.Run();
}

TYPED_TEST(ClipTypedTest, MinGreaterThanMaxGivesMax) {
  using T = TypeParam;
  OpTester test("Clip", 13);
  test.Input<T>("X", {4}, Vals<T>({1, 5, 10, 3}));
  test.Input<T>("min", {}, Vals<T>({8}));
  test.Input<T>("max", {}, Vals<T>({2}));
  test.Output<T>("Y", {4}, Vals<T>({2, 2, 2, 2}));
  test.Run();
}

template <typename T>
class ClipAttrTypedTest : public ::testing::Test {};
using ClipAttrTypes = ::testing::Types<float, double, Float16>;
TYPED_TEST_SUITE(ClipAttrTypedTest, ClipAttrTypes);

TYPED_TEST(ClipAttrTypedTest, AttributeBoundsOpset1And6) {
  using T = TypeParam;
  for (int opset : {1, 6, 10}) {
    SCOPED_TRACE(opset);
    OpTester test("Clip", opset);
    test.Attr("min", -1.5f).Attr("max", 2.f);
    test.Input<T>("X", {2, 2}, Vals<T>({-3, -1, 1.5, 7}));
    test.Output<T>("Y", {2, 2}, Vals<T>({-1.5, -1, 1.5, 2}));
    test.Run();
  }
}

TYPED_TEST(ClipAttrTypedTest, OnlyMinAttribute) {
  using T = TypeParam;
  OpTester test("Clip", 6);
  test.Attr("min", 0.f);
  test.Input<T>("X", {3}, Vals<T>({-3, 0.5, 1000}));
  test.Output<T>("Y", {3}, Vals<T>({0, 0.5, 1000}));
  test.Run();
}

TEST(ClipTest, IntegerTypesRejectedInOpset11) {
  OpTester test("Clip", 11);
  test.Input<int32_t>("X", {1}, {5});
  test.Output<int32_t>("Y", {1}, {5});
  test.ExpectFailure("no kernel for");
}

TEST(ClipTest, NaNPassesThrough) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  OpTester test("Clip", 13);
  test.Input<float>("X", {3}, {kNaN, -5, 5});
  test.Input<float>("min", {}, {-1});
  test.Input<float>("max", {}, {1});
  test.Output<float>("Y", {3}, {kNaN, -1, 1});
  test.Run();
}

TEST(ClipTest, NaNPassesThroughAttributeVersion) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  OpTester test("Clip", 6);
  test.Attr("min", -1.f).Attr("max", 1.f);
  test.Input<double>("X", {2}, {kNaN, 3});
  test.Output<double>("Y", {2}, {kNaN, 1});
  test.Run();
}

TEST(ClipTest, MissingMinDefaultsToLowestForInfinity) {
  // The spec's default min is numeric_limits<T>::lowest(), so -inf becomes lowest().
  constexpr float kInf = std::numeric_limits<float>::infinity();
  OpTester test("Clip", 13);
  test.Input<float>("X", {2}, {-kInf, 1});
  test.MissingInput();
  test.Input<float>("max", {}, {5});
  test.Output<float>("Y", {2}, {std::numeric_limits<float>::lowest(), 1});
  test.SetTolerance(0, 0, "lowest() must come back bit-exact");
  test.Run();
}

TEST(ClipTest, Uint64ExtremesKeepPrecision) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  OpTester test("Clip", 13);
  test.Input<uint64_t>("X", {3}, {kMax, kMax - 1, 1});
  test.Input<uint64_t>("min", {}, {2});
  test.Input<uint64_t>("max", {}, {kMax - 1});
  test.Output<uint64_t>("Y", {3}, {kMax - 1, kMax - 1, 2});
  test.Run();
}

TEST(ClipTest, ZeroSizeInput) {
  OpTester test("Clip", 13);
  test.Input<float>("X", {0, 2}, {});
  test.Input<float>("min", {}, {0});
  test.Output<float>("Y", {0, 2}, {});
  test.Run();
}

TEST(ClipTest, NonScalarMinIsAnError) {
  OpTester test("Clip", 13);
  test.Input<float>("X", {2}, {1, 2});
  test.Input<float>("min", {2}, {0, 1});
  test.Output<float>("Y", {2}, {1, 2});
  test.ExpectFailure("input 'min' must be a scalar");
}

TEST(ClipTest, OneElementBoundTensorIsAccepted) {
  OpTester test("Clip", 13);
  test.Input<int8_t>("X", {3}, {-100, 0, 100});
  test.Input<int8_t>("min", {1}, {-10});
  test.Input<int8_t>("max", {1, 1}, {10});
  test.Output<int8_t>("Y", {3}, {-10, 0, 10});
  test.Run();
}

}  // namespace
}  // namespace prism::testing
