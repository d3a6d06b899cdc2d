// ArgMax and ArgMin: every version range and type on hand-checked indices, ties with and without
// select_last_index, NaN as numpy treats it, negative axes, keepdims, wide inner dims (more than
// one block of positions), and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../math/math_test_util.h"

namespace prism::testing {
namespace {

using Numeric = TypeSet<Float16, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t,
                        uint16_t, uint32_t, uint64_t>;
using NumericBf16 = TypeSet<Float16, float, double, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t>;

// data [2, 3] = {2, 9, 9, 7, 1, 1}: along axis 1 the maximum ties at 1 and 2, the minimum at 1
// and 2 in the second row.
template <typename T>
void CheckOne(const char* op, int opset) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  const bool is_max = std::string(op) == "ArgMax";
  OpTester first(op, opset);
  first.Input<T>("data", {2, 3}, Vals<T>({2, 9, 9, 7, 1, 1}));
  first.Attr("axis", int64_t{1});
  first.Output<int64_t>("reduced", {2, 1},
                        is_max ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{0, 1});
  first.Run();
  if (opset < 12) return;
  OpTester last(op, opset);
  last.Input<T>("data", {2, 3}, Vals<T>({2, 9, 9, 7, 1, 1}));
  last.Attr("axis", int64_t{-1}).Attr("select_last_index", int64_t{1});
  last.Attr("keepdims", int64_t{0});
  last.Output<int64_t>("reduced", {2},
                       is_max ? std::vector<int64_t>{2, 0} : std::vector<int64_t>{0, 2});
  last.Run();
}

template <typename List>
void CheckAll(const char* op, int opset) {
  List::ForEach([&](auto* type) { CheckOne<std::remove_pointer_t<decltype(type)>>(op, opset); });
}

TEST(ArgMinMaxTest, EveryVersionRangeAndType) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    CheckAll<Numeric>(op, 1);
    CheckAll<Numeric>(op, 11);
    CheckAll<Numeric>(op, 12);
    CheckAll<NumericBf16>(op, 13);
  }
}

TEST(ArgMinMaxTest, DefaultAxisIsZero) {
  OpTester test("ArgMin", 13);
  test.Input<float>("data", {3, 2}, {4, 0, -1, 5, 2, 5});
  test.Output<int64_t>("reduced", {1, 2}, {1, 0});
  test.Run();
}

// numpy: NaN is both the maximum and the minimum; the first one wins, the last one with
// select_last_index.
TEST(ArgMinMaxTest, NaNIsChosenLikeNumpy) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"ArgMax", "ArgMin"}) {
    SCOPED_TRACE(op);
    OpTester first(op, 13);
    first.Input<float>("data", {5}, {1, nan, 100, nan, -100});
    first.Output<int64_t>("reduced", {1}, {1});
    first.Run();
    OpTester last(op, 13);
    last.Input<float>("data", {5}, {1, nan, 100, nan, -100});
    last.Attr("select_last_index", int64_t{1});
    last.Output<int64_t>("reduced", {1}, {3});
    last.Run();
  }
}

// Axis 0 of [3, 150]: the inner dim spans three blocks of positions.
TEST(ArgMinMaxTest, WideInnerDim) {
  // data[r][i] = (r + i) % 3 - i / 2: the maximum is at the r with (r + i) % 3 == 2, the
  // minimum at the r with (r + i) % 3 == 0.
  std::vector<float> data(3 * 150);
  std::vector<int64_t> argmax(150), argmin(150);
  for (int i = 0; i < 150; ++i) {
    for (int r = 0; r < 3; ++r) data[r * 150 + i] = static_cast<float>((r + i) % 3) - i * 0.5f;
    argmax[i] = (5 - i % 3) % 3;
    argmin[i] = (3 - i % 3) % 3;
  }
  OpTester max("ArgMax", 13);
  max.Input<float>("data", {3, 150}, data).Attr("keepdims", int64_t{0});
  max.Output<int64_t>("reduced", {150}, argmax);
  max.Run();
  OpTester min("ArgMin", 13);
  min.Input<float>("data", {3, 150}, data).Attr("keepdims", int64_t{0});
  min.Output<int64_t>("reduced", {150}, argmin);
  min.Run();
}

TEST(ArgMinMaxTest, EmptyAxisFailsUnlessOutputEmpty) {
  OpTester empty_out("ArgMax", 13);
  empty_out.Input<float>("data", {0, 3}, {}).Attr("axis", int64_t{1});
  empty_out.Output<int64_t>("reduced", {0, 1}, {});
  empty_out.Run();
  OpTester empty_axis("ArgMax", 13);
  empty_axis.Input<float>("data", {2, 0}, {}).Attr("axis", int64_t{1});
  empty_axis.Output<int64_t>("reduced", {2, 1}, {0, 0});
  empty_axis.ExpectFailure("is empty, so there is no maximum");
  OpTester scalar("ArgMin", 13);
  scalar.Input<float>("data", {}, {1});
  scalar.Output<int64_t>("reduced", {}, {0});
  scalar.ExpectFailure("rank >= 1");
  OpTester axis("ArgMin", 13);
  axis.Input<float>("data", {2}, {1, 2}).Attr("axis", int64_t{1});
  axis.Output<int64_t>("reduced", {1}, {0});
  axis.ExpectFailure("axis 1 is out of range [-1, 0]");
}

}  // namespace
}  // namespace prism::testing
