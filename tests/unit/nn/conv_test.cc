// Conv kernel tests. Expected values were computed with onnx.reference (and cross-checked with
// onnxruntime except for dilated SAME padding, which onnxruntime rejects) on small integers, so
// every floating type is exact.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

std::vector<Float16> ToFloat16(const std::vector<float>& values) {
  std::vector<Float16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

std::vector<BFloat16> ToBFloat16(const std::vector<float>& values) {
  std::vector<BFloat16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

// Each output is the sum of a 3x3 window of 0..24: 54 = 0+1+2+5+6+7+10+11+12.
TEST(ConvTest, BasicNoPadding) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 5, 5}, {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                        13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
      .Input<float>("W", {1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})
      .Attr("kernel_shape", std::vector<int64_t>{3, 3})
      .Output<float>("Y", {1, 1, 3, 3}, {54, 63, 72, 99, 108, 117, 144, 153, 162});
  test.Run();
}

TEST(ConvTest, BasicWithPadding) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 5, 5}, {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                        13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
      .Input<float>("W", {1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})
      .Attr("kernel_shape", std::vector<int64_t>{3, 3})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<float>("Y", {1, 1, 5, 5},
                     {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                      117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
  test.Run();
}

TEST(ConvTest, StridesAndAsymmetricPadding) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 6, 5},
                    {0,  3,  2,  3, 3, -3, -2, -3, 1, 3,  0,  -3, 3,  -3, 1, -2, 2,  -3, 0, 1,
                     2,  0,  -2, 3, 1, 3,  2,  -1, 3, -2, -2, -1, -2, -2, 3, -2, -1, -3, 3, 2,
                     -1, -3, -3, 1, 3, 1,  -2, 0,  0, -1, 1,  3,  -2, 0,  0, -1, -2, 2,  1, 1})
      .Input<float>("W", {3, 2, 3, 3},
                    {2, 3,  3,  0,  0,  0, 1,  -2, 0,  0,  3, 0, 2, -2, -2, 2, -3, 3,
                     3, -1, -2, 3,  -3, 2, -1, 2,  0,  -3, 2, 3, 0, -3, -3, 1, 1,  2,
                     3, 3,  -1, -3, 3,  0, -3, -3, -3, -1, 1, 3, 2, 3,  0,  2, -2, 3})
      .Input<float>("B", {3}, {1, 2, -1})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{1, 0, 2, 1})
      .Output<float>("Y", {1, 3, 4, 2}, {-6, -19, -11, -4, -3, -9,  4,   5,   -4, 11, 34, 16,
                                         -6, -13, 16,  -1, 14, -17, -26, -16, 0,  2,  20, 9});
  test.Run();
}

// An even kernel needs odd padding: SAME_UPPER puts the extra pixel at the end.
TEST(ConvTest, AutoPadSameUpper) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 5, 6},
                    {1, 0,  2,  -3, -3, -2, 1,  3,  0,  1,  -2, -3, -3, -1, 2,  1,  0, -1, 1,  -2,
                     3, -1, 0,  1,  0,  1,  0,  -2, 1,  -1, 0,  1,  -2, 1,  -3, -1, 1, 3,  3,  -2,
                     3, 3,  -1, -1, -2, 0,  -3, -3, -3, 0,  -2, 1,  1,  0,  -3, -1, 3, 1,  -3, -3})
      .Input<float>("W", {2, 2, 2, 3}, {3,  2, 0,  3,  0, 0, 1, -3, -1, -1, -2, 0,
                                        -2, 2, -2, -1, 3, 0, 3, -3, -3, 2,  -2, -2})
      .Attr("auto_pad", std::string("SAME_UPPER"))
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Output<float>("Y", {1, 2, 3, 3},
                     {-2, -1, -28, -1, 18, 3, -1, -1, 7, -5, 3, -11, -3, -13, 3, -13, 9, -4});
  test.Run();
}

// SAME_LOWER puts the extra pixel at the beginning.
TEST(ConvTest, AutoPadSameLower) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 5, 6},
                    {-2, -3, -3, -2, 1,  -2, 0,  1,  -1, -2, 2, 1,  1,  -1, -1, 3, 2, -2, -1, 0,
                     2,  -2, -1, 1,  -2, -3, -2, -1, 3,  0,  3, -3, -1, 2,  -1, 2, 1, 0,  3,  -1,
                     -2, 2,  -2, 3,  -2, 2,  -2, 3,  -2, -3, 1, -3, 2,  3,  -3, 2, 2, -1, -2, 0})
      .Input<float>("W", {2, 2, 2, 3},
                    {1, 0, 0, -3, 0, 0, 0, -1, 3, 2, 3, -1, -3, 0, 1, 2, -2, 3, 0, 2, 3, 0, 0, 3})
      .Attr("auto_pad", std::string("SAME_LOWER"))
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Output<float>("Y", {1, 2, 3, 3},
                     {12, -2, 5, -10, -4, -8, -18, 10, 0, -14, 0, -6, 7, 13, 14, -12, -17, 12});
  test.Run();
}

TEST(ConvTest, AutoPadValid) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 5, 6}, {2, -2, -2, -1, 3,  3, 3, 1,  -1, 2,  -1, 1, -3, -3, -2,
                                        1, 2,  0,  -2, -3, 0, 3, -1, -2, -3, 0,  2, 1,  1,  -1})
      .Input<float>("W", {2, 1, 3, 2}, {3, -2, -2, 3, 3, -2, 0, 3, -3, -1, 1, 1})
      .Input<float>("B", {2}, {2, -2})
      .Attr("auto_pad", std::string("VALID"))
      .Attr("strides", std::vector<int64_t>{2, 1})
      .Output<float>("Y", {1, 2, 2, 5}, {6,   -10, -2, -15, 16, -15, -1, 7, -7, 9,
                                         -24, -15, -5, 5,   11, -5,  3,  1, -2, 3});
  test.Run();
}

TEST(ConvTest, AutoPadNotSetUsesPads) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 4, 4}, {0, -2, 3, 0, 2, 1, 0, 0, 2, -2, -3, -3, -1, 3, 3, 2})
      .Input<float>("W", {1, 1, 3, 3}, {-1, 3, 3, -1, -3, -2, -2, -3, 0})
      .Attr("auto_pad", std::string("NOTSET"))
      .Attr("pads", std::vector<int64_t>{0, 1, 1, 0})
      .Output<float>("Y", {1, 1, 3, 3}, {-20, 0, 23, 10, 4, 1, -3, -31, -32});
  test.Run();
}

TEST(ConvTest, Dilations) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 7, 7},
                    {-1, -1, 3,  -1, -2, 3,  2,  -2, -3, -1, -1, 1, 3,  1,  -2, 2,  1,  -2, -2, 2,
                     -3, 3,  1,  -2, 2,  -2, 0,  -3, -3, 2,  -3, 0, -1, 0,  -1, -2, -3, 0,  -3, -1,
                     0,  1,  1,  3,  3,  -1, 2,  -3, 2,  1,  2,  3, 0,  -1, -2, 2,  -2, -3, 0,  1,
                     1,  1,  -3, -3, 0,  -3, -1, 2,  2,  -1, 1,  2, 3,  2,  2,  3,  -1, 3,  -1, 3,
                     2,  1,  3,  2,  -2, -1, 2,  3,  -3, -1, 0,  2, 2,  2,  3,  -1, 1,  1})
      .Input<float>("W", {2, 2, 3, 3},
                    {0, -2, -1, -3, -3, -1, -2, -3, -2, 1, 1, 3, 2,  2, 0, -2, -2, 2,
                     2, 1,  -2, -2, -1, -3, 0,  3,  3,  2, 3, 2, -1, 1, 0, 0,  0,  0})
      .Attr("dilations", std::vector<int64_t>{2, 3})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<float>("Y", {1, 2, 5, 3},
                     {6,   -8, -2, -14, 16, 8,  8, -6,  24,  9,  9, -11, 20, 15, 12,
                      -14, 2,  3,  -17, 13, -6, 0, -18, -11, -2, 0, 13,  15, 29, 15});
  test.Run();
}

// No kernel_shape attribute, batch of 2, bias.
TEST(ConvTest, KernelShapeInferredFromW) {
  OpTester test("Conv", 11);
  test.Input<float>(
          "X", {2, 3, 4, 5},
          {-2, -2, 2,  -3, -2, 2,  3,  2,  -1, 1,  -1, -1, -1, 1,  1,  2,  0,  -2, -2, 2,
           -3, -2, 3,  -1, 3,  -2, -1, -3, -2, -2, 2,  3,  -3, -2, 1,  -3, 3,  -2, 3,  0,
           1,  2,  1,  -2, -3, 3,  1,  2,  -2, -1, 3,  3,  2,  2,  3,  -1, -1, 0,  2,  3,
           -1, 3,  -1, 0,  3,  2,  0,  -1, -2, 3,  2,  2,  2,  3,  -3, 0,  0,  3,  -2, 2,
           2,  -1, -3, 3,  3,  2,  -2, 2,  3,  -3, -3, 0,  2,  1,  1,  -3, 0,  -2, -2, -2,
           -2, -1, -3, 1,  2,  -2, 0,  3,  2,  3,  3,  2,  -1, -1, -2, 1,  -1, -1, 3,  -1})
      .Input<float>(
          "W", {4, 3, 2, 2},
          {3, -1, -1, 2, 0, -3, 1,  -1, 3, 2,  0,  -3, 1, 1,  -3, -2, -3, -3, 3, -1, 1, -2, 1, -2,
           1, -1, 2,  3, 0, 0,  -1, 3,  0, -1, -3, 0,  1, -1, -3, -3, -3, -2, 0, 0,  3, -1, 2, -3})
      .Input<float>("B", {4}, {0, 1, -1, 0})
      .Output<float>("Y", {2, 4, 3, 4},
                     {9,   -12, 12,  -22, 6,   22,  11,  -17, -1,  21, -1,  11,  -7,  -18, -6,  -9,
                      21,  31,  15,  -3,  -36, 12,  11,  9,   0,   -5, -2,  4,   -10, -28, -4,  2,
                      15,  -15, -4,  -11, 2,   -18, 10,  -8,  18,  17, 22,  -8,  -11, 8,   21,  2,
                      -9,  -5,  -29, 0,   -1,  4,   11,  9,   17,  13, -21, 11,  0,   8,   4,   -9,
                      -19, -14, -24, 0,   7,   0,   -18, 1,   -2,  11, -13, -19, 5,   7,   15,  -7,
                      -3,  6,   -2,  -4,  -23, 7,   1,   -25, -18, -5, -18, -1,  21,  -5,  -25, 9});
  test.Run();
}

// Two groups: output channels 0-2 see input channels 0-1, 3-5 see 2-3.
TEST(ConvTest, Groups) {
  OpTester test("Conv", 11);
  test.Input<float>(
          "X", {1, 4, 4, 4},
          {-2, -2, 3,  -3, 1,  -2, 2,  2,  -2, 1,  0,  3, -2, -1, 3,  1,  -3, 0,  2, 0,  -2, 3,
           -3, 3,  -1, 1,  3,  -2, -2, -1, -1, -2, 0,  1, -2, -2, 3,  -2, 0,  -3, 1, -1, 2,  -2,
           -1, 3,  0,  -1, -2, -1, 2,  -3, 3,  -2, -3, 0, 3,  -2, -3, -1, -2, 3,  2, 1})
      .Input<float>(
          "W", {6, 2, 3, 3},
          {-2, -3, 2,  2, -2, 1,  2,  -2, 0,  -1, 3,  1,  -3, -1, 3, 1,  -3, 0,  -1, 1,  2,  2,
           3,  -2, -2, 2, 1,  3,  2,  3,  3,  2,  -3, 1,  1,  -2, 2, 3,  0,  0,  -1, 2,  -3, 3,
           3,  1,  -2, 3, -2, -2, 2,  3,  -1, -2, -1, 1,  -3, 3,  1, -3, -1, -2, 3,  -1, 0,  -1,
           1,  3,  -3, 1, 0,  1,  -1, 2,  -2, -1, -3, -3, -1, 0,  2, -3, 0,  -2, 1,  3,  3,  -2,
           0,  -3, 1,  2, -3, -2, -2, 1,  3,  2,  -1, -3, 0,  2,  0, -1, 1,  0,  1,  1})
      .Input<float>("B", {6}, {2, 1, -2, 1, 3, -2})
      .Attr("group", int64_t{2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<float>("Y", {1, 6, 4, 4},
                     {11,  15,  -9,  -4,  9,   15,  -12, 12, 11,  22,  -18, 0,   10,  15,  3,   -7,
                      -15, -27, 20,  4,   -23, 5,   5,   15, -15, -14, 43,  5,   -3,  -6,  15,  11,
                      -5,  10,  9,   -15, -1,  -12, 17,  15, 17,  -9,  29,  -13, -1,  14,  -12, 19,
                      -19, -2,  13,  -11, 16,  28,  -12, -8, 45,  -7,  9,   3,   -18, -6,  31,  4,
                      -7,  7,   10,  10,  7,   8,   15,  5,  17,  -24, -10, 0,   8,   -2,  32,  14,
                      9,   -3,  -13, 3,   -16, 7,   1,   -7, -6,  -9,  22,  1,   9,   -29, 3,   6});
  test.Run();
}

// group == C with one output per channel (MobileNet's depthwise layers).
TEST(ConvTest, Depthwise) {
  OpTester test("Conv", 11);
  test.Input<float>(
          "X", {2, 3, 5, 5},
          {0,  0,  -3, -3, -1, -2, -1, -3, -1, 3,  1,  0,  1,  2, -3, -2, -1, -3, 0,  -2, -3, -2,
           3,  0,  -3, 1,  2,  3,  3,  2,  3,  -1, 3,  2,  0,  3, 2,  -1, 3,  0,  -3, 2,  3,  1,
           3,  3,  0,  -2, -3, -3, 3,  2,  -2, -3, -2, 1,  -3, 1, 1,  2,  3,  -3, 1,  3,  -3, 0,
           0,  3,  2,  0,  -3, 3,  0,  2,  1,  -1, -1, -1, 0,  0, 2,  0,  3,  -1, 2,  3,  3,  -1,
           -3, 0,  1,  2,  0,  1,  0,  3,  -3, 0,  -3, 1,  0,  2, -2, 2,  3,  3,  1,  2,  -3, 0,
           -3, 1,  0,  -2, -1, -3, 1,  -1, 1,  3,  -1, -3, 2,  0, -2, -2, -1, 2,  2,  0,  -3, 3,
           2,  -1, 2,  -1, 1,  -3, -3, 0,  1,  -2, 2,  -2, 2,  1, 0,  -1, 2,  -3})
      .Input<float>("W", {3, 1, 3, 3}, {0, 0, -2, -1, 1,  3, -3, 1,  -2, 0,  0, -2, 2, -2,
                                        1, 3, 2,  3,  -1, 3, 2,  -3, -1, -1, 0, 1,  2})
      .Input<float>("B", {3}, {-3, 0, -3})
      .Attr("group", int64_t{3})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<float>(
          "Y", {2, 3, 5, 5},
          {-3,  -1,  -13, -4,  5,  -7,  -10, -5,  15,  -8,  0,   16,  6,   -4,  -10, -7,  -12,
           0,   -3,  -8,  -10, 13, 2,   -11, -6,  3,   17,  10,  15,  8,   1,   15,  1,   1,
           13,  -2,  -1,  20,  12, 15,  10,  -2,  -20, -14, -19, -10, -2,  -1,  -7,  0,   -13,
           -13, -1,  13,  10,  9,  -6,  -3,  -23, -14, -6,  -12, 17,  2,   -4,  3,   -13, 8,
           -8,  -20, -3,  9,   -1, -3,  -12, -5,  -18, 2,   -16, 2,   -2,  2,   -7,  -1,  9,
           6,   -13, -22, -8,  -3, 7,   -12, 19,  -7,  6,   -13, -9,  -11, -3,  1,   11,  11,
           8,   -5,  -11, -12, 3,  -12, -3,  -14, 2,   -22, 10,  11,  7,   -6,  -12, 4,   1,
           -8,  -3,  8,   -12, -4, 4,   3,   9,   -4,  -8,  -7,  -10, -1,  -11, -9,  -4,  -9,
           20,  -1,  10,  15,  -2, -10, -10, -19, 1,   -5,  -8,  0,   -3,  2});
  test.Run();
}

TEST(ConvTest, DepthwiseStrideTwoAsymmetricPads) {
  OpTester test("Conv", 11);
  test.Input<float>(
          "X", {1, 4, 7, 6},
          {3,  3,  3,  2,  1,  2,  1,  -3, -3, 3,  0,  0,  0,  3,  -1, -3, 1,  0,  3,  -1, 0,
           2,  2,  -2, -2, 3,  2,  -3, -3, -1, -3, 3,  2,  3,  -1, 2,  -1, -1, -1, 0,  3,  1,
           1,  -3, -2, -3, 1,  1,  1,  -3, 0,  2,  0,  2,  3,  0,  -2, 1,  -1, 2,  -1, 2,  1,
           -2, 1,  3,  -2, 2,  -2, 2,  3,  0,  -3, -2, -2, 3,  2,  2,  -2, 3,  -2, -1, 0,  1,
           0,  3,  3,  2,  -3, 0,  -1, 0,  -3, 3,  -1, 3,  1,  -3, 0,  0,  -1, 1,  2,  3,  -1,
           -3, -1, 2,  -3, 2,  1,  -3, -1, -3, -1, -2, -2, 1,  -1, -3, -3, -3, 1,  2,  2,  -1,
           0,  1,  -1, -3, 2,  3,  -3, -3, -3, -2, 2,  -2, -3, 1,  -1, 2,  -1, 2,  3,  2,  2,
           3,  1,  1,  1,  -1, 0,  3,  -2, -1, -2, -1, 1,  -2, -3, 3,  -1, -3, -2, -2, 1,  2})
      .Input<float>("W", {4, 1, 3, 3},
                    {1, -3, 1, -2, -3, 1, -1, 2,  1, -1, -1, 3, -3, 3,  2, 0, -3, -1,
                     1, 0,  3, -2, 2,  0, -3, -3, 3, 1,  0,  3, 1,  -1, 2, 3, 0,  3})
      .Attr("group", int64_t{4})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{0, 1, 1, 1})
      .Output<float>("Y", {1, 4, 3, 3},
                     {-9, 6,  0, -8, 5,   -22, 18, -16, 11,  -22, 14, 4,  2, 2,  12, -2,  19,  -5,
                      -5, 12, 0, 10, -29, 10,  4,  5,   -31, 3,   -3, 10, 1, 19, 18, -12, -13, 7});
  test.Run();
}

TEST(ConvTest, DepthwiseDilatedSameUpper) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 6, 6},
                    {-3, 3,  2,  -2, 0,  -1, 3,  0,  3,  -2, -1, 3, 1,  -2, 3,  -3, -2, 1,
                     -2, -2, 1,  1,  3,  1,  -2, -1, -1, 0,  2,  1, 3,  -3, -2, 1,  -2, 1,
                     -3, 3,  0,  1,  -3, 0,  -3, -2, -2, 2,  1,  3, -2, 1,  -2, -1, 3,  -2,
                     2,  2,  -2, -2, -2, 1,  -3, -1, -2, 3,  -3, 0, -3, -3, -2, -1, 1,  -2})
      .Input<float>("W", {2, 1, 3, 3},
                    {-3, -1, -2, -1, -3, 1, -3, -2, 0, -2, -1, -2, -2, 2, 0, -1, -3, -3})
      .Input<float>("B", {2}, {-2, -1})
      .Attr("group", int64_t{2})
      .Attr("dilations", std::vector<int64_t>{2, 2})
      .Attr("auto_pad", std::string("SAME_UPPER"))
      .Output<float>(
          "Y", {1, 2, 6, 6},
          {7,   -9, -14, 12, -9,  10, -4, 0,  -11, 11, -11, -14, 1,   4,   1,  8,   -6, 3,
           -10, 15, -15, 1,  -10, -8, -4, 9,  3,   7,  -14, 3,   -13, 8,   -2, 2,   0,  -10,
           5,   5,  4,   3,  -14, 4,  -7, -5, 11,  8,  13,  0,   13,  -10, 29, -20, 23, -8,
           25,  13, 3,   -1, 1,   5,  -1, -2, 1,   10, -2,  -3,  -5,  -5,  3,  -1,  11, 0});
  test.Run();
}

// group == C with two outputs per input channel.
TEST(ConvTest, DepthwiseChannelMultiplier) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 4, 4},
                    {3, 1,  0,  -3, 3,  -2, -3, -1, 0,  -2, -3, 3, -3, 0, -2, -2,
                     1, -1, -1, -3, -2, 2,  -3, 3,  -1, -2, -2, 2, 2,  3, -1, -2})
      .Input<float>("W", {4, 1, 3, 3},
                    {1, -3, 1,  2,  -1, -2, -1, -3, 0,  1, -3, 3, 3,  0, -1, -1, -2, 2,
                     2, 2,  -3, -2, 3,  2,  2,  2,  -3, 2, -3, 0, -3, 2, 2,  2,  3,  3})
      .Attr("group", int64_t{2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<float>("Y", {1, 4, 4, 4},
                     {-14, 8,   19,  9,  -7,  20, 10,  -2, 2,   17, 5,  -1,  1,  1,   16,  -14,
                      -11, 4,   12,  5,  -8,  10, 1,   -3, -7,  2,  -5, -3,  -6, -10, 18,  -18,
                      -9,  2,   -18, -7, 7,   7,  -16, 7,  -22, 14, 1,  4,   16, 3,   -27, -4,
                      0,   -14, -1,  0,  -12, -5, -9,  24, 15,  -5, 16, -13, 13, 2,   -13, -11});
  test.Run();
}

// 1x1 kernel: no im2col needed.
TEST(ConvTest, PointwiseWithBias) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {2, 3, 3, 3},
                    {-2, 3,  0, 3,  0,  -2, -2, -2, 0, -2, -2, -1, 1,  0, 1,  -1, 2,  -1,
                     1,  -3, 2, 0,  -2, 3,  -3, -1, 2, -2, 1,  -1, -1, 2, -1, -3, -2, -1,
                     -2, -2, 0, -1, -2, -3, -2, 3,  2, -2, 2,  -2, 3,  0, -3, 0,  2,  0})
      .Input<float>("W", {4, 3, 1, 1}, {0, 3, -2, -2, -2, 0, -3, -1, -3, -3, -3, 2})
      .Input<float>("B", {4}, {-2, -2, 1, -1})
      .Output<float>("Y", {2, 4, 3, 3},
                     {-10, -2,  -9, 1,   2,  -5, 1,  6,  -9, 6,  -4,  0,  -10, -2, 0, 4,  -2, 0,
                      6,   3,   -4, -9,  7,  -3, 17, 8,  -4, 13, -10, 6,  -13, -5, 8, 2,  -3, 6,
                      -4,  -12, 2,  -11, -8, -5, -8, 3,  4,  6,  0,   0,  2,   -2, 6, 8,  -4, -4,
                      15,  -6,  10, -4,  -3, 16, 12, -2, 2,  7,  6,   -2, 11,  -1, 5, 14, 0,  -4});
  test.Run();
}

TEST(ConvTest, PointwiseStrided) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 5, 5},
                    {2,  1,  2, -1, 0,  -2, 1, 1,  -1, -3, 2, -2, 0,  0, 1,  -3, -3,
                     3,  3,  2, -2, 2,  -3, 0, -3, 1,  2,  2, -2, -2, 3, 0,  -2, 0,
                     -3, -1, 3, 2,  -3, 2,  3, 1,  -1, 2,  3, 1,  3,  3, -2, -1})
      .Input<float>("W", {2, 2, 1, 1}, {2, -3, 3, 2})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Output<float>("Y", {1, 2, 3, 3},
                     {1, -2, 6, 7, -6, -4, -7, -15, -3, 8, 10, -4, 4, 4, 7, -4, -3, -11});
  test.Run();
}

TEST(ConvTest, Conv1D) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {2, 2, 7}, {0,  -1, 3,  -1, 0, 0, 1,  -3, 3, 3, 0,  1, 0,  -1,
                                     -1, -3, -3, 2,  2, 1, -2, -3, 3, 1, -1, 1, -3, -1})
      .Input<float>("W", {3, 2, 3}, {-2, -1, 1, 3, -3, 0, 0, -1, 0, -3, 1, 3, -2, -2, 1, -2, 3, 1})
      .Input<float>("B", {3}, {0, 3, -1})
      .Attr("strides", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{1, 2})
      .Output<float>("Y", {2, 3, 4}, {8, -2, -1,  2,  9,  -6, 4,  1,  -8, -3, 4,  -6,
                                      7, 17, -11, -6, 10, -5, -4, 13, -8, 9,  -6, 4});
  test.Run();
}

TEST(ConvTest, Conv1DDilatedGrouped) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 4, 9},
                    {-3, 0, -2, 3, 0, 1, -2, 0, -1, 3, 3,  -2, -2, -1, 1, 2, 1,  -2,
                     0,  0, -2, 2, 0, 0, 3,  0, -2, 2, -2, -3, 1,  2,  3, 2, -2, -2})
      .Input<float>("W", {2, 2, 2}, {-2, -1, -2, 3, -3, 3, -3, -2})
      .Attr("group", int64_t{2})
      .Attr("dilations", std::vector<int64_t>{3})
      .Output<float>("Y", {1, 2, 6}, {-9, -9, 10, 6, 5, -9, -2, 2, 9, -4, -2, -11});
  test.Run();
}

TEST(ConvTest, Conv3D) {
  OpTester test("Conv", 11);
  test.Input<float>(
          "X", {1, 2, 4, 4, 3},
          {-2, -3, 3, 1, 2, -3, 3, -1, 2,  0,  0,  1,  3,  2, 3,  -2, -2, 1, -3, -3, 1, 3,  -3, -1,
           2,  0,  3, 3, 2, 1,  3, 0,  -2, 3,  -1, 1,  -3, 3, -2, 1,  2,  1, 2,  -1, 3, -1, -1, 1,
           3,  3,  0, 1, 3, -1, 0, 0,  -2, 2,  3,  -2, -2, 3, 1,  3,  1,  0, 0,  -2, 1, -3, -3, 1,
           2,  -1, 2, 1, 2, -3, 1, 1,  0,  -1, -1, -3, 1,  2, 2,  3,  0,  2, -2, 0,  2, -3, 3,  0})
      .Input<float>(
          "W", {2, 2, 2, 3, 2},
          {2, 0, 2,  0, -2, -1, 0, -2, -3, 3, 3,  1,  1, 2, 3, -2, 2,  3,  0, 2,  2, -2, 2, -2,
           0, 1, -3, 1, -3, 0,  3, 2,  0,  1, -1, -2, 0, 1, 0, 3,  -2, -1, 3, -1, 3, 1,  3, -1})
      .Input<float>("B", {2}, {-2, 2})
      .Attr("pads", std::vector<int64_t>{1, 0, 1, 0, 1, 0})
      .Attr("strides", std::vector<int64_t>{1, 2, 1})
      .Output<float>("Y", {1, 2, 4, 2, 3},
                     {12,  17,  -12, -12, -2, 3,  -26, -5, -3,  15, -12, 3,  -1, 16, 15,  11,
                      -19, -11, 11,  14,  18, -3, 2,   10, -9,  3,  12,  10, 18, 13, 22,  24,
                      16,  5,   -18, -26, 9,  44, 37,  0,  -18, 9,  6,   -9, -4, 8,  -19, 6});
  test.Run();
}

TEST(ConvTest, Conv3DSameLower) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 4, 5},
                    {1, 2, 3,  1,  0,  0, -2, 3, 3,  -3, -3, -1, 1, -2, 2, 3,  -2, -1, -3, -1,
                     0, 3, -2, 0,  -3, 0, -3, 2, -2, 1,  -3, 0,  3, -1, 3, 2,  -2, -3, 1,  -1,
                     0, 2, -2, -2, -2, 0, 0,  2, 3,  0,  0,  1,  1, 0,  0, -2, 2,  -3, 0,  0})
      .Input<float>("W", {1, 1, 2, 2, 2}, {-1, -3, -1, 3, -2, -1, 1, -1})
      .Attr("auto_pad", std::string("SAME_LOWER"))
      .Output<float>(
          "Y", {1, 1, 3, 4, 5},
          {-1, -1, -1, 2,  1,  -1, -2,  -12, -7, 4,   3,  0,  -1, -6,  -7, 0,  12,  0,   2,   0,
           3,  2,  12, -2, 2,  -3, -13, -9,  8,  -13, -6, 6,  -2, -17, 13, 19, 7,   -5,  -12, -3,
           0,  7,  -5, 2,  -9, 0,  -20, 8,   -1, 23,  -9, 11, 4,  -8,  3,  17, -10, -14, 1,   -12});
  test.Run();
}

TEST(ConvTest, FloatOpset1) {
  OpTester test("Conv", 1);
  test.Input<float>("X", {1, 1, 4, 4}, {3, -1, -1, -1, -1, -3, 3, 1, -2, 3, -2, -3, -3, -3, 2, 2})
      .Input<float>("W", {1, 1, 2, 2}, {0, -1, 2, -2})
      .Input<float>("B", {1}, {2})
      .Output<float>("Y", {1, 1, 3, 3}, {7, -9, 7, -5, 9, 3, -1, -6, 5});
  test.Run();
}

TEST(ConvTest, DoubleOpset1) {
  OpTester test("Conv", 1);
  test.Input<double>("X", {1, 2, 4, 4}, {0, 0, 1, -2, -3, 0, -3, 3,  -1, 3,  2, 3,  1, -1, -1, -3,
                                         0, 3, 0, -1, 2,  3, 1,  -1, -3, -1, 0, -3, 3, -2, -1, -1})
      .Input<double>("W", {2, 2, 3, 3},
                     {1,  3, 3, 1,  2, 2, 2, 0, -2, 3, 3, 3, 1,  -3, -1, 3, -1, -1,
                      -3, 3, 0, -2, 1, 1, 0, 0, -1, 1, 2, 2, -1, 1,  2,  1, -1, -3})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<double>("Y", {1, 2, 4, 4},
                      {-8, -5, 5,  -2, -8, -19, 4, 6,  21, 31, 24, 19, -13, 9,  -1,  -3,
                       -5, 3,  -4, -3, 14, 8,   5, -1, 2,  37, -7, 13, -12, -4, -13, -4});
  test.Run();
}

TEST(ConvTest, DoubleOpset22Depthwise) {
  OpTester test("Conv", 22);
  test.Input<double>("X", {1, 2, 4, 4}, {-2, 0, 1, -2, 3, -3, 3, -1, -2, 0,  0,  -3, 1, 0, -3, -3,
                                         -1, 0, 1, -1, 3, 1,  1, 0,  -1, -1, -3, 2,  3, 2, 2,  -1})
      .Input<double>("W", {2, 1, 3, 3},
                     {-2, -3, 3, -1, 0, -3, 0, 0, 3, 0, -2, -1, 0, 3, 0, -2, 2, -3})
      .Input<double>("B", {2}, {2, 3})
      .Attr("group", int64_t{2})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<double>("Y", {1, 2, 2, 2}, {-7, 5, -16, -4, 3, 6, -7, -5});
  test.Run();
}

TEST(ConvTest, Float16Opset11) {
  OpTester test("Conv", 11);
  test.Input<Float16>("X", {1, 2, 4, 4},
                      ToFloat16({0, 2, 0,  3,  2, 0, 0, -2, -2, 0,  -3, 1, 3, -2, 1,  -1,
                                 1, 1, -1, -1, 0, 1, 1, 3,  -2, -3, 1,  1, 2, -2, -1, -1}))
      .Input<Float16>("W", {2, 2, 2, 2},
                      ToFloat16({2, -2, -1, -1, -1, 2, 1, -3, -1, -3, 1, -3, -3, 1, 0, -2}))
      .Input<Float16>("B", {2}, ToFloat16({-2, 2}))
      .Output<Float16>(
          "Y", {1, 2, 3, 3},
          ToFloat16({-10, -3, -15, 13, -4, 7, -3, 11, -7, -6, -6, -5, 5, 7, 0, 20, 18, 6}));
  test.Run();
}

TEST(ConvTest, Float16Opset1) {
  OpTester test("Conv", 1);
  test.Input<Float16>("X", {1, 1, 5}, ToFloat16({-1, 0, 3, 1, -3}))
      .Input<Float16>("W", {2, 1, 3}, ToFloat16({-3, 3, 0, -1, -2, 1}))
      .Attr("pads", std::vector<int64_t>{1, 1})
      .Output<Float16>("Y", {1, 2, 5}, ToFloat16({-3, 3, 9, -6, -12, 2, 4, -5, -8, 5}));
  test.Run();
}

TEST(ConvTest, Float16Opset22) {
  OpTester test("Conv", 22);
  test.Input<Float16>("X", {1, 2, 3, 3},
                      ToFloat16({-1, -2, 3, -1, 1, 3, -3, 3, -3, -2, -3, -2, -1, 1, 0, 3, 1, -1}))
      .Input<Float16>("W", {2, 1, 2, 2}, ToFloat16({1, -1, 1, 0, -2, 0, -2, -3}))
      .Attr("group", int64_t{2})
      .Output<Float16>("Y", {1, 2, 2, 2}, ToFloat16({0, -4, -5, 1, 3, 4, -7, -1}));
  test.Run();
}

TEST(ConvTest, BFloat16Opset22) {
  OpTester test("Conv", 22);
  test.Input<BFloat16>("X", {1, 2, 4, 4},
                       ToBFloat16({2, -2, -2, 0, 3, -3, -2, -2, 3, 3, 1,  -1, 2, 3, -3, -2,
                                   2, 1,  2,  0, 2, 1,  -3, -3, 3, 3, -2, 0,  1, 2, 0,  0}))
      .Input<BFloat16>(
          "W", {2, 2, 3, 3},
          ToBFloat16({-2, 2,  2, 0,  -3, -1, -2, -3, 0,  2,  0, 1,  0, -3, -3, 2, 2, -3,
                      -2, -2, 1, -3, -1, 0,  0,  2,  -2, -3, 0, -1, 0, 1,  1,  1, 3, 3}))
      .Input<BFloat16>("B", {2}, ToBFloat16({2, 3}))
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Output<BFloat16>(
          "Y", {1, 2, 4, 4},
          ToBFloat16({-19, 19, 19, 0,  -24, 16, 23, 22, -37, -33, 10, 11, -1, -4,  13,  0,
                      25,  -4, -4, -7, 14,  -5, 14, 2,  3,   6,   -1, 14, -2, -22, -21, 20}));
  test.Run();
}

TEST(ConvTest, FloatOpset22Grouped3D) {
  OpTester test("Conv", 22);
  test.Input<float>("X", {1, 2, 3, 3, 3},
                    {-3, -2, 1,  3,  -1, -2, -2, 2,  1,  1,  0,  1,  -1, 3, -2, 3,  2,  3,
                     2,  -2, -1, -3, 2,  -1, 2,  -3, -1, 1,  -1, 1,  -1, 2, -3, -3, -3, 3,
                     3,  3,  3,  3,  3,  -1, 3,  1,  1,  -1, -1, -3, 1,  3, 1,  -2, 2,  1})
      .Input<float>("W", {2, 1, 2, 2, 2}, {0, 2, 3, 1, -1, -1, 0, 2, -1, -2, 3, 0, -3, 1, 3, -2})
      .Attr("group", int64_t{2})
      .Output<float>("Y", {1, 2, 2, 2, 2},
                     {9, -8, -4, 8, 4, 10, 12, 2, -5, 10, -11, -14, -1, 7, -10, -2});
  test.Run();
}

// Some kernel taps never touch the input: whole rows of the lowering are padding.
TEST(ConvTest, PaddingWiderThanDilatedKernelReach) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 2, 3}, {0, 3, 2, 3, 3, -3, -2, -3, 1, 3, 0, -3})
      .Input<float>("W", {2, 2, 3, 2}, {3, -3, 1, -2, 2, -3, 0,  1,  2,  0,  -2, 3,
                                        1, 3,  2, -1, 3, -2, -2, -1, -2, -2, 3,  -2})
      .Input<float>("B", {2}, {-1, -3})
      .Attr("pads", std::vector<int64_t>{4, 3, 4, 3})
      .Attr("dilations", std::vector<int64_t>{3, 4})
      .Output<float>("Y", {1, 2, 4, 5}, {-1, -1, -1, -1, -1, -7, -5, -1, -5, -4, -7, 5, -1, 8,
                                         2,  -1, -1, -1, -1, -1, -3, -3, -3, -3, -3, 0, -7, -3,
                                         1,  9,  -6, 6,  -3, -3, 3,  -3, -3, -3, -3, -3});
  test.Run();
}

// Single channel, single output: the direct (depthwise) path with empty tap ranges.
TEST(ConvTest, SingleChannelLargePaddingAndDilation) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 2, 3}, {3, 2, -1, -3, -3, 1})
      .Input<float>("W", {1, 1, 3, 2}, {3, 1, -2, 0, 0, -1})
      .Attr("pads", std::vector<int64_t>{4, 3, 4, 3})
      .Attr("dilations", std::vector<int64_t>{3, 4})
      .Attr("strides", std::vector<int64_t>{2, 3})
      .Output<float>("Y", {1, 1, 2, 2}, {0, 0, 0, 6});
  test.Run();
}

TEST(ConvTest, ConstantWeightsAndBias) {
  // Weights as initializers, the way real models carry them; a 1-D dot product per position.
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 4}, {1, 2, 3, 4});
  test.Input<float>("W", {1, 1, 2}, {10, 1}, true).Input<float>("B", {1}, {0.5f}, true);
  test.Output<float>("Y", {1, 1, 3}, {12.5f, 23.5f, 34.5f});
  test.Run();
}

TEST(ConvTest, EmptyBatchGivesEmptyOutput) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {0, 1, 3, 3}, {})
      .Input<float>("W", {2, 1, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  test.Output<float>("Y", {0, 2, 2, 2}, {});
  test.Run();
}

TEST(ConvTest, ChannelMismatchFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 3, 3, 3}, std::vector<float>(27, 1.f));
  test.Input<float>("W", {1, 2, 2, 2}, std::vector<float>(8, 1.f));
  test.Output<float>("Y", {1, 1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("channel mismatch");
}

TEST(ConvTest, GroupChannelMismatchFails) {
  // group 2 with W holding 2 channels per group needs 4 input channels, X has 2.
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 3, 3}, std::vector<float>(18, 1.f));
  test.Input<float>("W", {2, 2, 2, 2}, std::vector<float>(16, 1.f)).Attr("group", int64_t{2});
  test.Output<float>("Y", {1, 2, 2, 2}, std::vector<float>(8, 0.f));
  test.ExpectFailure("channel mismatch");
}

TEST(ConvTest, OutputChannelsNotDivisibleByGroupFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2, 3, 3}, std::vector<float>(18, 1.f));
  test.Input<float>("W", {3, 1, 2, 2}, std::vector<float>(12, 1.f)).Attr("group", int64_t{2});
  test.Output<float>("Y", {1, 3, 2, 2}, std::vector<float>(12, 0.f));
  test.ExpectFailure("not divisible by group");
}

TEST(ConvTest, BiasOfWrongLengthFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Input<float>("W", {2, 1, 2, 2}, std::vector<float>(8, 1.f))
      .Input<float>("B", {3}, {1, 2, 3});
  test.Output<float>("Y", {1, 2, 2, 2}, std::vector<float>(8, 0.f));
  test.ExpectFailure("bias B must have shape [2]");
}

TEST(ConvTest, KernelShapeMismatchFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Input<float>("W", {1, 1, 2, 2}, std::vector<float>(4, 1.f));
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Output<float>("Y", {1, 1, 1, 1}, {0});
  test.ExpectFailure("kernel_shape");
}

TEST(ConvTest, WeightRankMismatchFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Input<float>("W", {1, 1, 2}, {1, 1});
  test.Output<float>("Y", {1, 1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("must have the rank of X");
}

TEST(ConvTest, InputWithoutSpatialDimsFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 2}, {1, 2}).Input<float>("W", {1, 2}, {1, 1});
  test.Output<float>("Y", {1, 1}, {0});
  test.ExpectFailure("rank >= 3");
}

TEST(ConvTest, ZeroStrideFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Input<float>("W", {1, 1, 2, 2}, std::vector<float>(4, 1.f));
  test.Attr("strides", std::vector<int64_t>{0, 1});
  test.Output<float>("Y", {1, 1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("strides must be >= 1");
}

TEST(ConvTest, WrongPadsLengthFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Input<float>("W", {1, 1, 2, 2}, std::vector<float>(4, 1.f));
  test.Attr("pads", std::vector<int64_t>{1, 1});
  test.Output<float>("Y", {1, 1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("must have 4 values");
}

TEST(ConvTest, KernelLargerThanPaddedInputFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 2, 2}, std::vector<float>(4, 1.f));
  test.Input<float>("W", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Output<float>("Y", {1, 1, 1, 1}, {0});
  test.ExpectFailure("smaller than the dilated kernel extent");
}

TEST(ConvTest, UnknownAutoPadFails) {
  OpTester test("Conv", 11);
  test.Input<float>("X", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Input<float>("W", {1, 1, 2, 2}, std::vector<float>(4, 1.f));
  test.Attr("auto_pad", std::string("SAME"));
  test.Output<float>("Y", {1, 1, 2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("auto_pad 'SAME'");
}

// Double Conv accumulates in double: 1 + k * 2^-30 inputs and weights (all 1 in float), two
// groups, a bias and padding; each output must match long double to 1e-12.
TEST(ConvDoublePrecisionTest, ExactToDoublePrecision) {
  constexpr int kChannels = 2, kH = 3, kW = 3, kOut = 4;  // group 2: 2 outputs per group
  std::vector<double> x, w, bias;
  for (int i = 0; i < kChannels * kH * kW; ++i) x.push_back(NearOne(5 * i - 40) * (i % 4 ? 1 : -2));
  for (int i = 0; i < kOut * 2 * 2; ++i) w.push_back(NearOne(11 - 3 * i) * (i % 3 ? 0.5 : -1));
  for (int o = 0; o < kOut; ++o) bias.push_back(NearOne(o * 13 - 20));
  // 2x2 kernels, pads 1 at the start only: output 3x3.
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> y;
    for (int o = 0; o < kOut; ++o) {
      const int c = o / 2;
      for (int oh = 0; oh < 3; ++oh)
        for (int ow = 0; ow < 3; ++ow) {
          C sum = static_cast<C>(bias[o]);
          for (int kh = 0; kh < 2; ++kh)
            for (int kw = 0; kw < 2; ++kw) {
              const int h = oh - 1 + kh, col = ow - 1 + kw;
              if (h < 0 || h >= kH || col < 0 || col >= kW) continue;
              sum += static_cast<C>(x[(c * kH + h) * kW + col]) *
                     static_cast<C>(w[(o * 2 + kh) * 2 + kw]);
            }
          y.push_back(sum);
        }
    }
    return y;
  });
  OpTester test("Conv", 11);
  test.Input<double>("X", {1, kChannels, kH, kW}, x);
  test.Input<double>("W", {kOut, 1, 2, 2}, w);
  test.Input<double>("B", {kOut}, bias);
  test.Attr("group", int64_t{2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 0, 0});
  test.Output<double>("Y", {1, kOut, 3, 3}, expected);
  test.Run();
}

}  // namespace
}  // namespace prism::testing
