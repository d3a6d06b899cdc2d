// ConvTranspose's output geometry, values worked out by hand: strides with pads and
// output_padding, output_shape's extra cells at the end, and the refused geometries (negative
// pads, output_padding or output_shape; attributes whose output size overflows int64).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

// x [1, 1, 2] = {1, 2}, W [1, 1, 2] = {1, 10}: each input i adds x[i] * W to output positions
// i * stride + {0, 1} (before the pads are cut).
TEST(ConvTransposeTest, StridesPadsAndOutputPadding) {
  OpTester test("ConvTranspose", 11);
  test.Input<float>("X", {1, 1, 2}, {1, 2});
  test.Input<float>("W", {1, 1, 2}, {1, 10});
  // Full output: stride 2 * (2 - 1) + output_padding 1 + (2 - 1) + 1 = 5 cells:
  // {1, 10, 2, 20, 0}; pads 1 + 0 drop the first.
  test.Attr("strides", std::vector<int64_t>{2});
  test.Attr("pads", std::vector<int64_t>{1, 0});
  test.Attr("output_padding", std::vector<int64_t>{1});
  test.Output<float>("Y", {1, 1, 4}, {10, 2, 20, 0});
  test.Run();
}

TEST(ConvTransposeTest, OutputShapeLargerThanTheFullResultPadsAtTheEnd) {
  OpTester test("ConvTranspose", 11);
  test.Input<float>("X", {1, 1, 2}, {1, 2});
  test.Input<float>("W", {1, 1, 2}, {1, 10});
  test.Attr("output_shape", std::vector<int64_t>{4});  // full result {1, 12, 20}, one more
  test.Output<float>("Y", {1, 1, 4}, {1, 12, 20, 0});
  test.Run();
}

TEST(ConvTransposeTest, RefusesNegativeAndOverflowingGeometry) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const auto refused = [](const char* attribute, std::vector<int64_t> values, const char* why) {
    OpTester test("ConvTranspose", 11);
    test.Input<float>("X", {1, 1, 2}, {1, 2});
    test.Input<float>("W", {1, 1, 2}, {1, 10});
    test.Attr(attribute, values);
    test.Output<float>("Y", {1, 1, 3}, {1, 12, 20});
    test.ExpectFailure(why);
  };
  refused("pads", {kMin, 0}, "must not be negative");
  refused("output_padding", {-1}, "must not be negative");
  refused("output_shape", {-3}, "must not be negative");
  refused("strides", {kMax}, "overflows int64");
  refused("dilations", {kMax}, "overflows int64");
  refused("output_padding", {kMax}, "overflows int64");
  refused("output_shape", {kMax}, "overflows the address space");
}

}  // namespace
}  // namespace prism::testing
