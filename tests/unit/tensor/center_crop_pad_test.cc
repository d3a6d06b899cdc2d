// CenterCropPad beyond the node tests, values worked out by hand: odd differences (the crop
// window starts rounded down, the odd pad goes to the end), a subset of axes, negative axes,
// strings, and the refused inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

TEST(CenterCropPadTest, OddDifferencesCropFromTheStartRoundedDownAndPadAtTheEnd) {
  // Axis 0: 4 -> 1 keeps row 1 (start (4 - 1) / 2 = 1); axis 1: 2 -> 5 pads 1 before, 2 after.
  OpTester test("CenterCropPad", 18);
  test.Input<float>("input_data", {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  test.Input<int64_t>("shape", {2}, {1, 5});
  test.Output<float>("output", {1, 5}, {0, 2, 3, 0, 0});
  test.Run();
}

TEST(CenterCropPadTest, AxesSubsetNegativeAxesAndInt32Shape) {
  OpTester test("CenterCropPad", 18);
  test.Input<int32_t>("input_data", {2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  test.Input<int32_t>("shape", {1}, {1});
  test.Attr("axes", std::vector<int64_t>{-2});  // axis 1: 3 -> 1 keeps the middle row
  test.Output<int32_t>("output", {2, 1, 2}, {3, 4, 9, 10});
  test.Run();
}

TEST(CenterCropPadTest, StringsPadWithEmptyStrings) {
  OpTester test("CenterCropPad", 18);
  test.Input<std::string>("input_data", {2}, {"a", "b"});
  test.Input<int64_t>("shape", {1}, {3});
  test.Output<std::string>("output", {3}, {"a", "b", ""});
  test.Run();
}

TEST(CenterCropPadTest, RefusesMismatchedShapesRepeatedAxesAndNegativeSizes) {
  OpTester lengths("CenterCropPad", 18);
  lengths.Input<float>("input_data", {2, 2}, {1, 2, 3, 4});
  lengths.Input<int64_t>("shape", {1}, {1});
  lengths.Output<float>("output", {1, 2}, {1, 2});
  lengths.ExpectFailure("has 1 entries but 2 axes");
  OpTester twice("CenterCropPad", 18);
  twice.Input<float>("input_data", {2, 2}, {1, 2, 3, 4});
  twice.Input<int64_t>("shape", {2}, {1, 1});
  twice.Attr("axes", std::vector<int64_t>{0, -2});
  twice.Output<float>("output", {1, 2}, {1, 2});
  twice.ExpectFailure("appears twice");
  OpTester negative("CenterCropPad", 18);
  negative.Input<float>("input_data", {2}, {1, 2});
  negative.Input<int64_t>("shape", {1}, {-1});
  negative.Output<float>("output", {0}, {});
  negative.ExpectFailure("negative");
}

}  // namespace
}  // namespace prism::testing
