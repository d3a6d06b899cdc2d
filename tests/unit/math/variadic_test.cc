// Max, Min, Sum, Mean: every (op, version range, type) against hand-computed values, three inputs
// broadcast together (opset 8+), one shape required before, a single input, NaN propagation.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "math_test_util.h"

namespace prism::testing {
namespace {

using Floats = TypeSet<Float16, float, double>;
using FloatsBf16 = TypeSet<Float16, float, double, BFloat16>;
using Numeric = TypeSet<Float16, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t,
                        uint16_t, uint32_t, uint64_t>;
using NumericBf16 = TypeSet<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t>;

// Inputs [1, 5, 3] and [4, 2, 6] (the same shape: valid at every opset).
template <typename T>
void CheckTwo(const char* op, int opset, std::initializer_list<double> expected) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test(op, opset);
  test.Input<T>("A", {3}, Vals<T>({1, 5, 3}));
  test.Input<T>("B", {3}, Vals<T>({4, 2, 6}));
  test.Output<T>("Y", {3}, Vals<T>(expected));
  test.Run();
}

template <typename List>
void CheckAll(const char* op, int opset, std::initializer_list<double> expected) {
  List::ForEach(
      [&](auto* type) { CheckTwo<std::remove_pointer_t<decltype(type)>>(op, opset, expected); });
}

TEST(VariadicTest, EveryTypeAndVersionRange) {
  for (int opset : {1, 6, 8}) {
    CheckAll<Floats>("Max", opset, {4, 5, 6});
    CheckAll<Floats>("Min", opset, {1, 2, 3});
    CheckAll<Floats>("Sum", opset, {5, 7, 9});
    CheckAll<Floats>("Mean", opset, {2.5, 3.5, 4.5});
  }
  CheckAll<Numeric>("Max", 12, {4, 5, 6});
  CheckAll<Numeric>("Min", 12, {1, 2, 3});
  CheckAll<NumericBf16>("Max", 13, {4, 5, 6});
  CheckAll<NumericBf16>("Min", 13, {1, 2, 3});
  CheckAll<FloatsBf16>("Sum", 13, {5, 7, 9});
  CheckAll<FloatsBf16>("Mean", 13, {2.5, 3.5, 4.5});
}

TEST(VariadicTest, ThreeInputsBroadcastTogether) {
  OpTester test("Sum", 13);
  test.Input<float>("A", {2, 1}, {1, 2});
  test.Input<float>("B", {3}, {10, 20, 30});
  test.Input<float>("C", {1}, {100});
  test.Output<float>("Y", {2, 3}, {111, 121, 131, 112, 122, 132});
  test.Run();
  OpTester mean("Mean", 13);
  mean.Input<double>("A", {2, 1}, {1, 2});
  mean.Input<double>("B", {3}, {10, 20, 30});
  mean.Input<double>("C", {1}, {0});
  mean.Output<double>("Y", {2, 3}, {11.0 / 3, 21.0 / 3, 31.0 / 3, 12.0 / 3, 22.0 / 3, 32.0 / 3});
  mean.Run();
}

TEST(VariadicTest, SingleInputIsCopied) {
  OpTester test("Max", 13);
  test.Input<int32_t>("A", {2}, {-3, 7});
  test.Output<int32_t>("Y", {2}, {-3, 7});
  test.Run();
}

TEST(VariadicTest, NanPropagatesThroughMaxAndMin) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"Max", "Min"}) {
    SCOPED_TRACE(op);
    OpTester test(op, 13);
    test.Input<float>("A", {3}, Vals<float>({nan, 1, 2}));
    test.Input<float>("B", {3}, Vals<float>({1, nan, 3}));
    test.Output<float>("Y", {3}, Vals<float>({nan, nan, std::string(op) == "Max" ? 3.0 : 2.0}));
    test.Run();
  }
}

TEST(VariadicTest, BadInputsAreClearErrors) {
  OpTester old("Max", 6);
  old.Input<float>("A", {2}, {1, 2});
  old.Input<float>("B", {1}, {1});
  old.Output<float>("Y", {2}, {1, 2});
  old.ExpectFailure("before opset 8 every input must have one shape");
  OpTester mixed("Sum", 13);
  mixed.Input<float>("A", {1}, {1});
  mixed.Input<double>("B", {1}, {1});
  mixed.Output<float>("Y", {1}, {2});
  mixed.ExpectFailure("Sum");
}

}  // namespace
}  // namespace prism::testing
