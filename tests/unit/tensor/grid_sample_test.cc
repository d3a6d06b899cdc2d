// GridSample with grid coordinates no image has (found by the model fuzzer: a grid value of
// 3.4e38 made the tap index conversion undefined): far outside, infinite and NaN coordinates in
// every padding mode, values worked out by hand. The ordinary cases are the node tests and
// tests/python/test_grid_sample_oracle.py.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr float kHuge = std::numeric_limits<float>::max();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// X is [[1, 2], [3, 4]]; the four grid points have y = 0 (halfway between the rows, so a column
// reads the mean of its two values) and x = 3.4e38, -3.4e38, +inf and NaN.
void ExpectSamples(const std::string& mode, const std::string& padding,
                   const std::vector<float>& expected) {
  OpTester test("GridSample", 20);
  test.Input<float>("X", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("grid", {1, 1, 4, 2}, {kHuge, 0, -kHuge, 0, kInf, 0, kNaN, 0});
  test.Attr("mode", mode);
  test.Attr("padding_mode", padding);
  test.Output<float>("Y", {1, 1, 1, 4}, expected);
  test.Run();
}

TEST(GridSampleTest, CoordinatesFarOutsideReadPaddingZero) {
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    SCOPED_TRACE(mode);
    ExpectSamples(mode, "zeros", {0, 0, 0, 0});
  }
}

TEST(GridSampleTest, CoordinatesFarOutsideClampToTheBorder) {
  // x = +3.4e38 and +inf read column 1 (mean 3), -3.4e38 column 0 (mean 2); NaN lies nowhere
  // and reads zero.
  ExpectSamples("linear", "border", {3, 2, 3, 0});
}

TEST(GridSampleTest, CoordinatesFarOutsideReflectIntoTheInput) {
  // 3.4e38 is a multiple of the reflection period 4 (twice the range [-0.5, 1.5]): it folds onto
  // the border 1.5, whose taps 1 and 2 both reflect to column 1; -3.4e38 folds onto -0.5 (column
  // 0); an infinite distance has no position and folds onto the border.
  ExpectSamples("linear", "reflection", {3, 2, 3, 0});
}

}  // namespace
}  // namespace prism::testing
