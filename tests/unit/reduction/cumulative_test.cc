// CumSum and CumProd: every version range and type, the four exclusive/reverse combinations on
// hand-checked values, axes of both index types and negative, integer wrap-around, inner dims
// (axis not last), empty tensors, and the errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../math/math_test_util.h"

namespace prism::testing {
namespace {

using Base = TypeSet<float, double, int32_t, int64_t, uint32_t, uint64_t>;
using WithHalves = TypeSet<float, double, int32_t, int64_t, uint32_t, uint64_t, Float16, BFloat16>;

template <typename T>
void CheckOne(const char* op, int opset) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  const bool product = std::string(op) == "CumProd";
  for (bool int64_axis : {false, true}) {
    OpTester test(op, opset);
    test.Input<T>("x", {4}, Vals<T>({1, 2, 3, 4}));
    if (int64_axis)
      test.Input<int64_t>("axis", {}, {-1});
    else
      test.Input<int32_t>("axis", {}, {0});
    test.Output<T>("y", {4}, product ? Vals<T>({1, 2, 6, 24}) : Vals<T>({1, 3, 6, 10}));
    test.Run();
  }
}

template <typename List>
void CheckAll(const char* op, int opset) {
  List::ForEach([&](auto* type) { CheckOne<std::remove_pointer_t<decltype(type)>>(op, opset); });
}

TEST(CumulativeTest, EveryVersionRangeAndType) {
  CheckAll<Base>("CumSum", 11);
  CheckAll<WithHalves>("CumSum", 14);
  CheckAll<WithHalves>("CumProd", 26);
}

TEST(CumulativeTest, ExclusiveAndReverse) {
  struct Case {
    int64_t exclusive, reverse;
    std::vector<float> sum, prod;
  };
  const std::vector<Case> cases = {
      {0, 0, {1, 3, 6, 10}, {1, 2, 6, 24}},
      {1, 0, {0, 1, 3, 6}, {1, 1, 2, 6}},
      {0, 1, {10, 9, 7, 4}, {24, 24, 12, 4}},
      {1, 1, {9, 7, 4, 0}, {24, 12, 4, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "exclusive " << c.exclusive << " reverse " << c.reverse);
    for (const char* op : {"CumSum", "CumProd"}) {
      OpTester test(op, 26);
      test.Input<float>("x", {4}, {1, 2, 3, 4}).Input<int64_t>("axis", {}, {-1});
      test.Attr("exclusive", c.exclusive).Attr("reverse", c.reverse);
      test.Output<float>("y", {4}, std::string(op) == "CumSum" ? c.sum : c.prod);
      test.Run();
    }
  }
}

// [2, 3, 2] along the middle axis: each (outer, inner) line runs on its own.
TEST(CumulativeTest, MiddleAxisKeepsLinesApart) {
  OpTester test("CumSum", 14);
  test.Input<int64_t>("x", {2, 3, 2}, {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60});
  test.Input<int64_t>("axis", {1}, {-2});
  test.Attr("reverse", int64_t{1});
  test.Output<int64_t>("y", {2, 3, 2}, {6, 60, 5, 50, 3, 30, 15, 150, 11, 110, 6, 60});
  test.Run();
}

TEST(CumulativeTest, IntegersWrapLikeTheType) {
  OpTester sum("CumSum", 14);
  sum.Input<int32_t>("x", {3}, {INT32_MAX, 1, 1}).Input<int32_t>("axis", {}, {0});
  sum.Output<int32_t>("y", {3}, {INT32_MAX, INT32_MIN, INT32_MIN + 1});
  sum.Run();
  OpTester prod("CumProd", 26);
  prod.Input<uint32_t>("x", {2}, {65536, 65536}).Input<int32_t>("axis", {}, {0});
  prod.Output<uint32_t>("y", {2}, {65536, 0});
  prod.Run();
}

TEST(CumulativeTest, EmptyAndErrors) {
  OpTester empty("CumSum", 14);
  empty.Input<float>("x", {0, 3}, {}).Input<int64_t>("axis", {}, {1});
  empty.Output<float>("y", {0, 3}, {});
  empty.Run();
  OpTester axis("CumSum", 14);
  axis.Input<float>("x", {2}, {1, 2}).Input<int64_t>("axis", {}, {1});
  axis.Output<float>("y", {2}, {1, 3});
  axis.ExpectFailure("axis 1 is out of range [-1, 0]");
  OpTester two_axes("CumProd", 26);
  two_axes.Input<float>("x", {2}, {1, 2}).Input<int64_t>("axis", {2}, {0, 0});
  two_axes.Output<float>("y", {2}, {1, 2});
  two_axes.ExpectFailure("must be a scalar");
  OpTester scalar("CumSum", 14);
  scalar.Input<float>("x", {}, {1}).Input<int64_t>("axis", {}, {0});
  scalar.Output<float>("y", {}, {1});
  scalar.ExpectFailure("rank >= 1");
}

}  // namespace
}  // namespace prism::testing
