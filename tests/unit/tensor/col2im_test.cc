// Col2Im beyond the node tests, values worked out by hand: overlapping taps summed, pads with
// dilation, and the refused geometries (sizes from the run-time inputs that overflow 64 bits,
// negative pads).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

TEST(Col2ImTest, OverlappingTapsAreSummed) {
  // A 1-D image of 4 pixels, blocks of 2 at stride 1: 3 blocks; tap 0 of block b lands on pixel
  // b, tap 1 on pixel b + 1.
  OpTester test("Col2Im", 18);
  test.Input<float>("input", {1, 2, 3}, {1, 2, 3, 10, 20, 30});
  test.Input<int64_t>("image_shape", {1}, {4});
  test.Input<int64_t>("block_shape", {1}, {2});
  test.Output<float>("output", {1, 1, 4}, {1, 12, 23, 30});
  test.Run();
}

TEST(Col2ImTest, PadsAndDilationDropWhatFallsOutside) {
  // Image 3, block 2 with dilation 2 (span 3), pads 1 + 1: 3 blocks at p = 0..2; tap 0 lands on
  // pixel p - 1, tap 1 on p + 1 (-1 and 3 are in the pads).
  OpTester test("Col2Im", 18);
  test.Input<float>("input", {1, 2, 3}, {1, 2, 3, 10, 20, 30});
  test.Input<int64_t>("image_shape", {1}, {3});
  test.Input<int64_t>("block_shape", {1}, {2});
  test.Attr("dilations", std::vector<int64_t>{2});
  test.Attr("pads", std::vector<int64_t>{1, 1});
  test.Output<float>("output", {1, 1, 3}, {2, 13, 20});
  test.Run();
}

TEST(Col2ImTest, RefusesSizesThatOverflowAndNegativePads) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  OpTester image("Col2Im", 18);  // image + pads overflows
  image.Input<float>("input", {1, 2, 1}, {1, 2});
  image.Input<int64_t>("image_shape", {1}, {kMax});
  image.Input<int64_t>("block_shape", {1}, {2});
  image.Attr("pads", std::vector<int64_t>{1, 1});
  image.Output<float>("output", {1, 1, 1}, {0});
  image.ExpectFailure("overflow 64-bit sizes");
  OpTester span("Col2Im", 18);  // dilation * (block - 1) overflows
  span.Input<float>("input", {1, 2, 1}, {1, 2});
  span.Input<int64_t>("image_shape", {1}, {4});
  span.Input<int64_t>("block_shape", {1}, {kMax / 2});
  span.Attr("dilations", std::vector<int64_t>{3});
  span.Output<float>("output", {1, 1, 4}, {0, 0, 0, 0});
  span.ExpectFailure("overflow 64-bit sizes");
  OpTester taps("Col2Im", 18);  // the product of block_shape overflows
  taps.Input<float>("input", {1, 2, 1}, {1, 2});
  taps.Input<int64_t>("image_shape", {2}, {kMax, kMax});
  taps.Input<int64_t>("block_shape", {2}, {kMax / 4, 8});
  taps.Output<float>("output", {1, 1, 1, 1}, {0});
  taps.ExpectFailure("overflow 64-bit sizes");
  OpTester pads("Col2Im", 18);
  pads.Input<float>("input", {1, 2, 1}, {1, 2});
  pads.Input<int64_t>("image_shape", {1}, {2});
  pads.Input<int64_t>("block_shape", {1}, {2});
  pads.Attr("pads", std::vector<int64_t>{-1, 1});
  pads.Output<float>("output", {1, 1, 2}, {0, 0});
  pads.ExpectFailure("pads not negative");
}

}  // namespace
}  // namespace prism::testing
