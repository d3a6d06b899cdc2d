// Det beyond the node tests, with determinants worked out by hand: signs from row swaps, batches,
// empty matrices, NaN, float16, and the refused shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

TEST(DetTest, SignsFollowRowSwapsAndBatchesKeepTheirShape) {
  OpTester test("Det", 11);
  test.Input<float>("X", {2, 2, 2, 2},
                    {1, 2, 3, 4,    // -2
                     0, 1, 1, 0,    // a swap: -1
                     2, 0, 0, 3,    // 6
                     1, 2, 2, 4});  // singular: 0
  test.Output<float>("Y", {2, 2}, {-2, -1, 6, 0});
  test.Run();
}

TEST(DetTest, LargerMatricesNeedPivoting) {
  // The 4x4 second-difference matrix has determinant n + 1 = 5; with its rows reversed (two
  // swaps) the sign is unchanged. The 3x3 [[0,2,1],[1,0,3],[4,1,0]] needs a pivot: det = 25.
  OpTester tridiagonal("Det", 22);
  tridiagonal.Input<double>("X", {4, 4}, {2, -1, 0, 0, -1, 2, -1, 0, 0, -1, 2, -1, 0, 0, -1, 2});
  tridiagonal.Output<double>("Y", {}, {5});
  tridiagonal.Run();
  OpTester reversed("Det", 22);
  reversed.Input<double>("X", {4, 4}, {0, 0, -1, 2, 0, -1, 2, -1, -1, 2, -1, 0, 2, -1, 0, 0});
  reversed.Output<double>("Y", {}, {5});
  reversed.Run();
  OpTester pivot("Det", 22);
  pivot.Input<float>("X", {3, 3}, {0, 2, 1, 1, 0, 3, 4, 1, 0});
  pivot.Output<float>("Y", {}, {25});
  pivot.Run();
}

TEST(DetTest, EmptyMatricesHaveDeterminantOneAndNanPropagates) {
  OpTester empty("Det", 11);
  empty.Input<float>("X", {3, 0, 0}, {});
  empty.Output<float>("Y", {3}, {1, 1, 1});
  empty.Run();
  OpTester no_batch("Det", 11);
  no_batch.Input<float>("X", {0, 2, 2}, {});
  no_batch.Output<float>("Y", {0}, {});
  no_batch.Run();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester with_nan("Det", 11);
  with_nan.Input<float>("X", {2, 2}, {1, nan, 3, 4});
  with_nan.Output<float>("Y", {}, {nan});
  with_nan.Run();
}

TEST(DetTest, HalfPrecisionIsComputedInDouble) {
  OpTester test("Det", 11);
  test.Input<Float16>("X", {2, 2}, {Float16(3.0f), Float16(8.0f), Float16(4.0f), Float16(6.0f)});
  test.Output<Float16>("Y", {}, {Float16(-14.0f)});
  test.Run();
}

TEST(DetTest, RefusesNonSquareInputsByName) {
  OpTester rectangle("Det", 11);
  rectangle.Input<float>("X", {2, 3}, {1, 2, 3, 4, 5, 6});
  rectangle.Output<float>("Y", {}, {0});
  rectangle.ExpectFailure("square matrices");
  OpTester vector("Det", 11);
  vector.Input<float>("X", {3}, {1, 2, 3});
  vector.Output<float>("Y", {}, {0});
  vector.ExpectFailure("square matrices");
}

}  // namespace
}  // namespace prism::testing
