// Sampling kernels fed coordinates no image has: NaN, infinite and 3.4e38 offsets, regions,
// scales and crop boxes (the model fuzzer found float-to-integer conversions out of range in
// DeformConv; RoiAlign and Resize had the same pattern). Each gives a defined result, worked out
// by hand, or an error naming the value; never undefined behaviour (the sanitizer jobs run these
// too).
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr float kHuge = std::numeric_limits<float>::max();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(SamplingHostileValuesTest, DeformConvOffsetsOutsideOrNaNSampleZero) {
  // A 1x1 kernel of weight 1 over X = [[1, 2], [3, 4]]: each output is X at its own position
  // moved by the (dy, dx) offset. Position (0, 0) has dy NaN, (0, 1) dx 3.4e38, (1, 1) dx -inf:
  // all sample nothing; (1, 0) is unmoved.
  OpTester test("DeformConv", 19);
  test.Input<float>("X", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("W", {1, 1, 1, 1}, {1});
  test.Input<float>("offset", {1, 2, 2, 2}, {kNaN, 0, 0, 0, 0, kHuge, 0, -kInf});
  test.Output<float>("Y", {1, 1, 2, 2}, {0, 0, 3, 0});
  test.Run();
}

void ExpectRoiAlignError(float x2, const char* message) {
  OpTester test("RoiAlign", 16);
  test.Input<float>("X", {1, 1, 4, 4}, std::vector<float>(16, 1.0f));
  test.Input<float>("rois", {1, 4}, {0, 0, x2, 3});
  test.Input<int64_t>("batch_indices", {1}, {0});
  test.Output<float>("Y", {1, 1, 1, 1}, {1});
  test.ExpectFailure(message);
}

TEST(SamplingHostileValuesTest, RoiAlignRefusesRegionsWithoutAFiniteSamplingGrid) {
  // sampling_ratio 0 takes ceil(extent / bins) samples per bin: NaN has no count, and 3.4e38
  // would be a grid no memory holds.
  ExpectRoiAlignError(kNaN, "region 0 of rois has a NaN width");
  ExpectRoiAlignError(kHuge, "samples per bin with sampling_ratio 0 (at most 65536)");
}

TEST(SamplingHostileValuesTest, RoiAlignRegionOfHugeNegativeExtentSamplesNothing) {
  // half_pixel regions keep a negative extent: -3.4e38 wide gives ceil(-3.4e38) samples per bin,
  // none (the fuzzer found it converted to an integer out of range), so the bin averages nothing.
  OpTester test("RoiAlign", 16);
  test.Input<float>("X", {1, 1, 4, 4}, std::vector<float>(16, 1.0f));
  test.Input<float>("rois", {1, 4}, {0, 0, -kHuge, 3});
  test.Input<int64_t>("batch_indices", {1}, {0});
  test.Output<float>("Y", {1, 1, 1, 1}, {0});
  test.Run();
}

TEST(SamplingHostileValuesTest, RoiAlignRegionOfNaNWithAFixedRatioSamplesZero) {
  // With sampling_ratio 2 there is no count to take; NaN sample positions read nothing.
  OpTester test("RoiAlign", 16);
  test.Input<float>("X", {1, 1, 4, 4}, std::vector<float>(16, 1.0f));
  test.Input<float>("rois", {1, 4}, {kNaN, 0, 2, 2});
  test.Input<int64_t>("batch_indices", {1}, {0});
  test.Attr("sampling_ratio", int64_t{2});
  test.Output<float>("Y", {1, 1, 1, 1}, {0});
  test.Run();
}

TEST(SamplingHostileValuesTest, ResizeRefusesAScaleThatGivesNoDim) {
  OpTester test("Resize", 19);
  test.Input<float>("X", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.MissingInput();
  test.Input<float>("scales", {4}, {1, 1, kHuge, 1});
  test.Output<float>("Y", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.ExpectFailure("scale 3.40282e+38 for axis 2 makes an output dim of");
}

void ExpectCropAndResize(float end, const std::vector<float>& expected) {
  // Axis 2 crops [0, end] of the rows into 2 rows: row 0 reads input row 0, row 1 the
  // coordinate end, which is beyond the input (or NaN) and takes the extrapolation value 10.
  OpTester test("Resize", 19);
  test.Input<float>("X", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("roi", {8}, {0, 0, 0, 0, 1, 1, end, 1});
  test.Input<float>("scales", {4}, {1, 1, 1, 1});
  test.Attr("mode", "linear");
  test.Attr("coordinate_transformation_mode", "tf_crop_and_resize");
  test.Attr("extrapolation_value", 10.0f);
  test.Output<float>("Y", {1, 1, 2, 2}, expected);
  test.Run();
}

TEST(SamplingHostileValuesTest, ResizeCropBoxesFarOutsideOrNaNExtrapolate) {
  ExpectCropAndResize(kHuge, {1, 2, 10, 10});
  // The spec's formula multiplies the output index by the box's extent: row 0's coordinate is
  // 0 * inf or 0 * NaN, which is NaN, so row 0 extrapolates too.
  ExpectCropAndResize(kInf, {10, 10, 10, 10});
  ExpectCropAndResize(kNaN, {10, 10, 10, 10});
}

}  // namespace
}  // namespace prism::testing
