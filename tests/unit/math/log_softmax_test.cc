// LogSoftmax: every version range and type against a long-double reference, the opset 1/11
// coerce-to-2-D semantics against opset 13's single axis, and inputs whose softmax underflows
// (log(softmax) would be -inf; the kernel must give the finite value).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "math_test_util.h"

namespace prism::testing {
namespace {

// log_softmax of each row of `x` seen as [rows, extent].
std::vector<double> Reference(const std::vector<double>& x, size_t extent) {
  std::vector<double> out;
  for (size_t r = 0; r < x.size() / extent; ++r) {
    long double max = -INFINITY, sum = 0;
    for (size_t e = 0; e < extent; ++e) max = std::max<long double>(max, x[r * extent + e]);
    for (size_t e = 0; e < extent; ++e) sum += std::exp(x[r * extent + e] - max);
    for (size_t e = 0; e < extent; ++e)
      out.push_back(static_cast<double>(x[r * extent + e] - max - std::log(sum)));
  }
  return out;
}

template <typename T>
void CheckOne(int opset) {
  SCOPED_TRACE(::testing::Message()
               << "opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  const std::vector<double> x = {0, 1, 2, -1, 0.5, 3};
  std::vector<T> expected;
  for (double v : Reference(x, 3)) expected.push_back(FromDouble<T>(v));
  OpTester test("LogSoftmax", opset);
  test.Input<T>("input", {2, 3}, Vals<T>({0, 1, 2, -1, 0.5, 3}));
  test.Output<T>("output", {2, 3}, expected);
  test.Run();
}

TEST(LogSoftmaxTest, EveryVersionRangeAndType) {
  for (int opset : {1, 11})
    TypeSet<Float16, float, double>::ForEach(
        [&](auto* type) { CheckOne<std::remove_pointer_t<decltype(type)>>(opset); });
  TypeSet<Float16, float, double, BFloat16>::ForEach(
      [&](auto* type) { CheckOne<std::remove_pointer_t<decltype(type)>>(13); });
}

// x [2, 2] with axis 0: opset 13 normalizes each column, opset 11 the whole tensor as one row.
TEST(LogSoftmaxTest, AxisSemanticsDifferBetweenOpsets) {
  const std::vector<double> x = {0, 1, 2, 4};
  const std::vector<double> whole = Reference(x, 4);
  const std::vector<double> col0 = Reference({0, 2}, 2), col1 = Reference({1, 4}, 2);
  OpTester v13("LogSoftmax", 13);
  v13.Input<double>("input", {2, 2}, x).Attr("axis", int64_t{0});
  v13.Output<double>("output", {2, 2}, {col0[0], col1[0], col0[1], col1[1]});
  v13.Run();
  OpTester v11("LogSoftmax", 11);
  v11.Input<double>("input", {2, 2}, x).Attr("axis", int64_t{0});
  v11.Output<double>("output", {2, 2}, whole);
  v11.Run();
}

TEST(LogSoftmaxTest, UnderflowingSoftmaxStaysFinite) {
  OpTester test("LogSoftmax", 13);
  test.Input<float>("input", {3}, {0, 200, 1000});
  test.Output<float>("output", {3}, {-1000, -800, 0});
  test.Run();
}

// Hardmax: 1 at the first maximum along the axis.
template <typename T>
void CheckHardmax(int opset) {
  SCOPED_TRACE(::testing::Message()
               << "Hardmax opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test("Hardmax", opset);
  test.Input<T>("input", {2, 3}, Vals<T>({1, 3, 3, -2, -1, -5}));
  test.Output<T>("output", {2, 3}, Vals<T>({0, 1, 0, 0, 1, 0}));
  test.Run();
}

TEST(HardmaxTest, EveryVersionRangeAndTypeFirstMaximumWins) {
  for (int opset : {1, 11})
    TypeSet<Float16, float, double>::ForEach(
        [&](auto* type) { CheckHardmax<std::remove_pointer_t<decltype(type)>>(opset); });
  TypeSet<Float16, float, double, BFloat16>::ForEach(
      [&](auto* type) { CheckHardmax<std::remove_pointer_t<decltype(type)>>(13); });
}

TEST(HardmaxTest, AxisSemanticsDifferBetweenOpsets) {
  // [2, 2, 2] with axis 1: opset 13 picks along axis 1 for each (outer, inner); opset 11 picks
  // one maximum in each flattened [2 * 2] block.
  const std::vector<float> x = {1, 8, 3, 2, 5, 6, 7, 4};
  OpTester v13("Hardmax", 13);
  v13.Input<float>("input", {2, 2, 2}, x).Attr("axis", int64_t{1});
  v13.Output<float>("output", {2, 2, 2}, {0, 1, 1, 0, 0, 1, 1, 0});
  v13.Run();
  OpTester v11("Hardmax", 11);
  v11.Input<float>("input", {2, 2, 2}, x).Attr("axis", int64_t{1});
  v11.Output<float>("output", {2, 2, 2}, {0, 1, 0, 0, 0, 0, 1, 0});
  v11.Run();
}

TEST(HardmaxTest, NaNIsTheMaximumAndEmptyIsFine) {
  OpTester nan("Hardmax", 13);
  nan.Input<float>("input", {3}, {5, std::nanf(""), 9});
  nan.Output<float>("output", {3}, {0, 1, 0});
  nan.Run();
  OpTester empty("Hardmax", 13);
  empty.Input<float>("input", {2, 0}, {});
  empty.Output<float>("output", {2, 0}, {});
  empty.Run();
}

}  // namespace
}  // namespace prism::testing
