// MaxPool, AveragePool and GlobalAveragePool on the CPU EP. Expected values come from
// onnxruntime 1.31 (cross-checked with onnx.reference where it is correct) on inputs that are
// exact in float16/bfloat16; a few are hand-checked.
#include <gtest/gtest.h>

#include <limits>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

std::vector<Float16> H(std::initializer_list<float> values) {
  std::vector<Float16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

std::vector<BFloat16> B(std::initializer_list<float> values) {
  std::vector<BFloat16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

// Hand-checked: 2x2 windows with stride 2 over 0..15 pick each window's bottom-right cell.
TEST(MaxPoolTest, HandCheckedStride2WithIndices) {
  OpTester test("MaxPool", 12);
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  test.Input<float>("x", {1, 1, 4, 4}, x);
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<float>("y", {1, 1, 2, 2}, {5, 7, 13, 15});
  test.Output<int64_t>("i", {1, 1, 2, 2}, {5, 7, 13, 15});
  test.Run();
}

// Hand-checked: column-major indices of the same maxima are w * height + h, plus the plane
// offset (n * C + c) * H * W.
TEST(MaxPoolTest, HandCheckedColumnMajorIndicesWithPlaneOffset) {
  OpTester test("MaxPool", 12);
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i);
  test.Input<float>("x", {1, 2, 4, 4}, x);
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("storage_order", int64_t{1});
  test.Output<float>("y", {1, 2, 2, 2}, {5, 7, 13, 15, 21, 23, 29, 31});
  test.Output<int64_t>("i", {1, 2, 2, 2}, {5, 13, 7, 15, 21, 29, 23, 31});
  test.Run();
}

// Hand-checked: ceil mode would give 3 windows (starts 0, 2, 4) but the one starting at 4 lies
// in the right padding, so it is dropped.
TEST(AveragePoolTest, HandCheckedCeilModeDropsWindowStartingInRightPad) {
  OpTester test("AveragePool", 19);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Attr("strides", std::vector<int64_t>{2});
  test.Attr("pads", std::vector<int64_t>{0, 1});
  test.Attr("ceil_mode", int64_t{1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<float>("y", {1, 1, 2}, {1.5f, 3.5f});
  test.Run();
}

// A stride at the int64 limit with ceil_mode: one window per axis (the ceil division is formed
// without in - kernel + stride - 1, which overflows). Rows 0-1 of the 4x4 plane 0..15, windows
// 2x2 at columns 0, 1, 2: their maxima are x[1][1..3].
TEST(MaxPoolTest, CeilModeWithAStrideAtTheInt64Limit) {
  OpTester test("MaxPool", 12);
  std::vector<float> plane(16);
  for (int i = 0; i < 16; ++i) plane[i] = static_cast<float>(i);
  test.Input<float>("x", {1, 1, 4, 4}, plane);
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 1});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<float>("y", {1, 1, 1, 3}, {5, 6, 7});
  test.Run();
}

// Hand-checked: ceil-mode cells beyond the end pad are never counted, even with
// count_include_pad (window at 2 covers x[2] and pad x[3]; x[4] lies past the pad).
TEST(AveragePoolTest, HandCheckedCeilOverhangNotCounted) {
  OpTester test("AveragePool", 19);
  test.Input<float>("x", {1, 1, 3}, {2, 4, 6});
  test.Attr("kernel_shape", std::vector<int64_t>{3});
  test.Attr("strides", std::vector<int64_t>{2});
  test.Attr("pads", std::vector<int64_t>{0, 1});
  test.Attr("ceil_mode", int64_t{1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<float>("y", {1, 1, 2}, {4, 3});
  test.Run();
}

TEST(MaxPoolTest, Opset1Float2dDefault) {
  OpTester test("MaxPool", 1);
  test.Input<float>(
      "x", {1, 2, 4, 4},
      {4.25f,  1.25f,  1.75f, 3.75f,  0.75f, 2.75f,  3.25f,  -2.75f, -4.5f, -2.0f, -2.25f,
       3.5f,   4.0f,   -5.0f, -0.25f, 3.0f,  -3.75f, 2.75f,  -4.0f,  -0.5f, 3.0f,  -2.0f,
       -1.75f, -2.25f, 2.0f,  -2.5f,  4.75f, -0.75f, -0.25f, 0.0f,   0.75f, 0.5f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Output<float>("y", {1, 2, 3, 3},
                     {4.25f, 3.25f, 3.75f, 2.75f, 3.25f, 3.5f, 4.0f, -0.25f, 3.5f, 3.0f, 2.75f,
                      -0.5f, 3.0f, 4.75f, 4.75f, 2.0f, 4.75f, 4.75f});
  test.Run();
}

TEST(MaxPoolTest, Opset1Float16Strides) {
  OpTester test("MaxPool", 1);
  test.Input<Float16>("x", {1, 1, 5, 5}, H({0.0,   4.75, 3.0,  2.75, 2.0, 1.0,  -1.75, 4.75,  -0.5,
                                            -3.0,  3.25, -3.5, 3.5,  1.0, -4.0, -4.75, -0.75, -4.75,
                                            -3.75, 0.0,  4.5,  -0.5, 3.0, 4.0,  3.0}));
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<Float16>("y", {1, 1, 2, 2}, H({4.75, 4.75, 4.5, 4.0}));
  test.Run();
}

TEST(MaxPoolTest, Opset8DoubleIndicesRowMajor) {
  OpTester test("MaxPool", 8);
  test.Input<double>(
      "x", {2, 2, 4, 4},
      {1.25, -0.75, 0,    -2.5,  -0.25, -1.25, -2.75, 4.75,  -5,   -4.25, -3.25, 4.5,   1.75,
       3.75, -3,    2,    -1.5,  -0.25, -5,    1,     3.25,  1.5,  -3.5,  0.25,  -2.5,  4.5,
       3.75, -3.25, 0,    4.25,  3.25,  2,     1.25,  -4.75, 2.25, -0.5,  -4.25, -2.75, 0.25,
       2.25, 0,     1,    3.5,   1.75,  -1.5,  1.25,  0.75,  -4,   -4.5,  1.5,   -1.25, 0.75,
       -2,   -2.75, -3.5, -1.25, 3,     -1,    -1.25, 0.75,  4.75, -1.25, 0.75,  -0.75});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<double>(
      "y", {2, 2, 2, 2},
      {1.25, 4.75, 3.75, 4.5, 3.25, 1, 4.5, 3.75, 1.25, 2.25, 1.25, 3.5, 1.5, 0.75, 4.75, 0.75});
  test.Output<int64_t>("i", {2, 2, 2, 2},
                       {0, 7, 13, 11, 20, 19, 25, 26, 32, 34, 45, 42, 49, 51, 60, 59});
  test.Run();
}

TEST(MaxPoolTest, Opset8FloatIndicesColumnMajor) {
  OpTester test("MaxPool", 8);
  test.Input<float>(
      "x", {2, 2, 3, 4},
      {1.0f,  -0.75f, 1.25f,  0.25f, 1.75f,  4.5f,  -3.5f, 0.5f,   -0.75f, -1.5f,  -2.75f, -4.5f,
       -1.0f, 3.25f,  -4.25f, -1.0f, 4.5f,   4.5f,  -3.0f, -5.0f,  1.5f,   -5.0f,  -2.0f,  -0.25f,
       3.5f,  -4.25f, 1.5f,   0.25f, -3.75f, 3.25f, 3.25f, -0.25f, 4.25f,  1.0f,   4.0f,   4.5f,
       0.5f,  -2.25f, -3.75f, 0.5f,  -3.25f, 2.5f,  4.25f, -2.75f, 0.5f,   -4.75f, -3.25f, -1.25f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{1, 2});
  test.Attr("storage_order", int64_t{1});
  test.Output<float>("y", {2, 2, 2, 2},
                     {4.5f, 1.25f, 4.5f, 0.5f, 4.5f, -1.0f, 4.5f, -0.25f, 3.5f, 3.25f, 4.25f, 4.5f,
                      2.5f, 4.25f, 2.5f, 4.25f});
  test.Output<int64_t>("i", {2, 2, 2, 2},
                       {4, 6, 4, 10, 13, 21, 13, 23, 24, 31, 26, 35, 40, 43, 40, 43});
  test.Run();
}

TEST(MaxPoolTest, Opset8Float16PadsIndices) {
  OpTester test("MaxPool", 8);
  test.Input<Float16>("x", {1, 2, 3, 3},
                      H({3.75, 4.5, 1.25, 0.75, 0.5, -4.5, -1.25, 4.75, -1.0, -3.0, -2.75, 2.0,
                         -4.75, 4.5, 3.75, 0.5, -0.5, 2.5}));
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Output<Float16>("y", {1, 2, 3, 3},
                       H({4.5, 4.5, 4.5, 4.75, 4.75, 4.75, 4.75, 4.75, 4.75, 4.5, 4.5, 4.5, 4.5,
                          4.5, 4.5, 4.5, 4.5, 4.5}));
  test.Output<int64_t>("i", {1, 2, 3, 3},
                       {1, 1, 1, 7, 7, 7, 7, 7, 7, 13, 13, 13, 13, 13, 13, 13, 13, 13});
  test.Run();
}

TEST(MaxPoolTest, Opset10FloatCeilDilations) {
  OpTester test("MaxPool", 10);
  test.Input<float>(
      "x", {1, 1, 6, 7},
      {0.25f, -0.25f, -2.0f,  -0.75f, 2.5f,  -4.5f,  -4.75f, 2.0f,   -1.5f,  3.0f, -4.75f,
       4.0f,  -4.0f,  -1.0f,  4.5f,   -4.0f, 1.5f,   2.25f,  -0.75f, -4.25f, 0.0f, -0.75f,
       3.5f,  1.75f,  -1.75f, -4.5f,  0.75f, -2.25f, 1.75f,  3.5f,   -1.5f,  4.0f, 0.0f,
       0.25f, 2.5f,   2.75f,  4.0f,   4.75f, -3.5f,  -1.0f,  4.25f,  -2.0f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("dilations", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<float>("y", {1, 1, 3, 3}, {4.5f, 2.5f, 2.5f, 4.5f, 1.5f, 2.5f, 1.75f, 0.0f, 2.5f});
  test.Output<int64_t>("i", {1, 1, 3, 3}, {14, 4, 4, 14, 16, 34, 28, 32, 34});
  test.Run();
}

TEST(MaxPoolTest, Opset10Float16Ceil) {
  OpTester test("MaxPool", 10);
  test.Input<Float16>(
      "x", {1, 1, 5, 5},
      H({-5.0, 0.75, 2.5,   2.25, 3.0, 1.25, -3.75, 3.25, -1.0,  3.25,  3.0,   4.5,  -5.0,
         3.5,  1.25, -0.25, 2.75, 4.5, 0.0,  -4.25, 2.25, -2.75, -2.75, -3.25, -3.25}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<Float16>("y", {1, 1, 3, 3},
                       H({1.25, 3.25, 3.25, 4.5, 4.5, 1.25, 2.25, -2.75, -3.25}));
  test.Run();
}

TEST(MaxPoolTest, Opset10DoubleDilations) {
  OpTester test("MaxPool", 10);
  test.Input<double>("x", {1, 1, 5, 5}, {4,   -1.5, -4,    -3.25, -1.25, -1.75, -2,  4.25, 3.5,
                                         0.5, 4.75, -1.75, -3.75, -2.5,  -4.25, 4.5, -3,   -0.75,
                                         -3,  4.75, -3.5,  0,     4.5,   0,     3.75});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("dilations", std::vector<int64_t>{2, 1});
  test.Output<double>("y", {1, 1, 3, 4},
                      {4.75, -1.5, -2.5, -1.25, 4.5, 4.25, 4.25, 4.75, 4.75, 4.5, 4.5, 3.75});
  test.Run();
}

TEST(MaxPoolTest, Opset11Float1dPads) {
  OpTester test("MaxPool", 11);
  test.Input<float>("x", {1, 3, 7},
                    {3.75f, 2.5f, 2.25f,  0.75f, 0.75f,  3.25f,  -0.75f, 4.25f, 3.75f, -1.5f, -1.0f,
                     2.0f,  4.0f, -4.25f, -4.5f, -2.75f, -0.75f, -3.5f,  0.0f,  0.25f, 4.5f});
  test.Attr("kernel_shape", std::vector<int64_t>{3});
  test.Attr("pads", std::vector<int64_t>{1, 2});
  test.Attr("strides", std::vector<int64_t>{2});
  test.Output<float>(
      "y", {1, 3, 4},
      {3.75f, 2.5f, 3.25f, 3.25f, 4.25f, 3.75f, 4.0f, 4.0f, -2.75f, -0.75f, 0.25f, 4.5f});
  test.Output<int64_t>("i", {1, 3, 4}, {0, 1, 5, 5, 7, 8, 12, 12, 15, 16, 19, 20});
  test.Run();
}

TEST(MaxPoolTest, Opset11DoubleSameUpper) {
  OpTester test("MaxPool", 11);
  test.Input<double>("x", {1, 1, 5, 4},
                     {2.25, -2.5, 2.75,  3,     1.75, 1.75,  -2,   2,  -3.75, 1.25,
                      4,    4.5,  -2.25, -1.75, 1,    -1.25, 2.25, -3, -3.5,  -4.5});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 3});
  test.Attr("auto_pad", std::string("SAME_UPPER"));
  test.Attr("strides", std::vector<int64_t>{2, 1});
  test.Output<double>("y", {1, 1, 3, 4},
                      {2.25, 2.75, 3, 3, 1.25, 4, 4.5, 4.5, 2.25, 2.25, -3, -3.5});
  test.Run();
}

TEST(MaxPoolTest, Opset11Float16SameLower) {
  OpTester test("MaxPool", 11);
  test.Input<Float16>("x", {1, 1, 4, 5},
                      H({-0.5, -3.0,  -2.25, 4.0,  3.0,  3.25, 0.75,  -4.0, 2.25,  1.0,
                         4.0,  -0.25, -3.5,  0.75, -0.5, 1.5,  -1.25, -2.0, -3.75, 4.5}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("auto_pad", std::string("SAME_LOWER"));
  test.Output<Float16>("y", {1, 1, 4, 5},
                       H({-0.5, -0.5, -2.25, 4.0,  4.0,  3.25, 3.25, 0.75,  4.0,  4.0,
                          4.0,  4.0,  0.75,  2.25, 2.25, 4.0,  4.0,  -0.25, 0.75, 4.5}));
  test.Run();
}

TEST(MaxPoolTest, Opset12Int8Valid) {
  OpTester test("MaxPool", 12);
  test.Input<int8_t>("x", {1, 2, 4, 5},
                     {65, -9,  -68, 32,   -23, 34,   -105, -81,  60,  -113, 45, -23, -128, 67,
                      51, 80,  101, 58,   87,  -100, 107,  105,  49,  77,   61, 96,  99,   5,
                      80, 106, -52, -117, -85, -121, -17,  -123, -62, -64,  52, -65});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("auto_pad", std::string("VALID"));
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<int8_t>("y", {1, 2, 2, 2}, {65, 60, 101, 87, 107, 80, -52, 52});
  test.Output<int64_t>("i", {1, 2, 2, 2}, {0, 8, 16, 18, 20, 28, 30, 38});
  test.Run();
}

TEST(MaxPoolTest, Opset12Uint8Pads) {
  OpTester test("MaxPool", 12);
  test.Input<uint8_t>("x", {1, 1, 4, 4},
                      {243, 48, 248, 145, 62, 9, 78, 151, 27, 42, 29, 173, 22, 5, 116, 79});
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<uint8_t>("y", {1, 1, 2, 2}, {243, 248, 62, 173});
  test.Run();
}

TEST(MaxPoolTest, Opset12Float3d) {
  OpTester test("MaxPool", 12);
  test.Input<float>(
      "x", {1, 2, 3, 4, 4},
      {0.5f,   4.25f, 3.5f,   0.25f,  1.25f,  3.0f,   -0.75f, 1.5f,  -3.0f,  1.0f,   -2.75f,
       -3.25f, 2.5f,  0.5f,   -1.25f, -4.75f, -2.75f, 3.0f,   -0.5f, 4.5f,   4.0f,   3.5f,
       -5.0f,  -4.5f, 0.75f,  -1.75f, 3.25f,  -2.0f,  -3.5f,  -4.0f, -2.0f,  1.25f,  -3.75f,
       2.75f,  -2.0f, -2.0f,  1.5f,   3.5f,   -0.75f, 2.75f,  -2.0f, -3.75f, 3.25f,  2.5f,
       2.5f,   3.75f, -0.25f, -3.25f, 0.75f,  0.5f,   -1.25f, 1.25f, -2.5f,  1.0f,   2.75f,
       -4.25f, -0.5f, 1.5f,   -4.5f,  1.25f,  4.0f,   3.0f,   1.75f, 3.0f,   -1.5f,  -1.75f,
       -4.25f, 2.0f,  -2.0f,  3.5f,   -0.5f,  3.75f,  -3.75f, -3.5f, -1.75f, -4.75f, -0.25f,
       1.5f,   1.5f,  -3.0f,  -3.5f,  0.5f,   1.25f,  4.25f,  3.75f, -1.25f, -3.5f,  -2.5f,
       3.75f,  -0.5f, 4.75f,  1.5f,   0.75f,  -4.0f,  0.75f,  -1.25f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2, 2});
  test.Attr("strides", std::vector<int64_t>{1, 2, 2});
  test.Output<float>("y", {1, 2, 2, 2, 2},
                     {4.25f, 4.5f, 2.5f, 3.25f, 4.0f, 4.5f, 3.75f, 3.25f, 3.5f, 3.75f, 4.0f, 3.0f,
                      3.75f, 4.25f, 3.75f, 4.75f});
  test.Output<int64_t>("i", {1, 2, 2, 2, 2},
                       {1, 19, 12, 26, 20, 19, 45, 26, 69, 71, 60, 63, 84, 83, 88, 90});
  test.Run();
}

TEST(MaxPoolTest, Opset12Double3dColumnMajor) {
  OpTester test("MaxPool", 12);
  test.Input<double>(
      "x", {1, 1, 3, 3, 4},
      {3.25,  -3.75, -3.25, 1.5,   1.75, 3.25,  0,     -1.25, -2,   -1.5,  1.5,   0.25,
       -2.25, -3,    2,     -2.75, -3,   -1.75, 3.5,   -0.5,  0.75, -4.25, -1.75, 2.5,
       2.5,   0.75,  3.75,  -2.25, -3.5, -4.25, -3.25, 2.5,   4,    -3.75, 0,     -3.75});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2, 2});
  test.Attr("storage_order", int64_t{1});
  test.Output<double>("y", {1, 1, 2, 2, 3},
                      {3.25, 3.5, 3.5, 3.25, 3.5, 3.5, 2.5, 3.75, 3.75, 4, 3.5, 3.5});
  test.Output<int64_t>("i", {1, 1, 2, 2, 3}, {0, 22, 22, 12, 22, 22, 2, 20, 20, 8, 22, 22});
  test.Run();
}

TEST(MaxPoolTest, Opset22BFloat16Ceil) {
  OpTester test("MaxPool", 22);
  test.Input<BFloat16>(
      "x", {1, 2, 5, 5},
      B({3.25, -3.75, 1.25,  -4.25, 2.25,  4.0,   2.25, -2.5, 3.25,  -2.0, 2.5, 3.25, -0.25,
         1.0,  3.5,   -3.25, -5.0,  -0.75, -3.25, 3.75, 3.5,  -1.25, -2.0, 2.0, -0.5, -4.25,
         1.5,  2.25,  -4.5,  2.75,  0.25,  3.25,  3.5,  1.5,  -1.75, -1.5, 2.0, -4.5, -2.75,
         0.0,  4.25,  2.5,   3.0,   -3.25, -2.25, -2.5, 2.25, 0.25,  -3.0, 2.25}));
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<BFloat16>("y", {1, 2, 2, 2}, B({4.0, 3.5, 3.5, 3.75, 3.5, 3.5, 4.25, 3.0}));
  test.Output<int64_t>("i", {1, 2, 2, 2}, {5, 14, 20, 19, 32, 32, 40, 42});
  test.Run();
}

TEST(MaxPoolTest, Opset22FloatCeilOutputSizeReduceByOne) {
  OpTester test("MaxPool", 22);
  test.Input<float>("x", {1, 1, 2, 2}, {1.25f, 3.75f, 0.5f, -3.75f});
  test.Attr("kernel_shape", std::vector<int64_t>{1, 1});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<float>("y", {1, 1, 1, 1}, {1.25f});
  test.Run();
}

TEST(MaxPoolTest, Opset22Int8Dilations3d) {
  OpTester test("MaxPool", 22);
  test.Input<int8_t>(
      "x", {1, 1, 4, 4, 4},
      {99,   -81, -114, 76,   -13, 36,  -95, 56,  -25,  127, 34,  112, 74,   87,  -106, 70,
       26,   -27, -49,  36,   -78, -81, 95,  66,  23,   65,  -46, 56,  -76,  -15, -91,  -32,
       -41,  -21, -7,   -120, -41, 88,  -18, 10,  -102, -29, 120, 12,  -123, 56,  69,   -31,
       -120, 84,  -64,  107,  -35, -29, 75,  -93, -121, 66,  109, 126, -96,  -91, -42,  54});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2, 2});
  test.Attr("dilations", std::vector<int64_t>{2, 2, 2});
  test.Output<int8_t>("y", {1, 1, 2, 2, 2}, {120, 127, 74, 88, 109, 126, 95, 66});
  test.Run();
}

TEST(MaxPoolTest, Opset22Uint8SameUpper) {
  OpTester test("MaxPool", 22);
  test.Input<uint8_t>("x", {1, 1, 3, 3}, {233, 211, 95, 235, 65, 31, 111, 23, 173});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("auto_pad", std::string("SAME_UPPER"));
  test.Output<uint8_t>("y", {1, 1, 3, 3}, {235, 211, 95, 235, 173, 173, 111, 173, 173});
  test.Run();
}

TEST(MaxPoolTest, Opset22Float16Indices) {
  OpTester test("MaxPool", 22);
  test.Input<Float16>("x", {1, 1, 4, 4},
                      H({4.75, -4.0, -4.0, -3.25, -3.25, 0.25, 0.5, 4.5, -0.75, 4.25, 2.5, 3.5,
                         -3.25, -0.5, 4.0, 2.5}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<Float16>("y", {1, 1, 2, 2}, H({4.75, 4.5, 4.25, 4.0}));
  test.Output<int64_t>("i", {1, 1, 2, 2}, {0, 7, 9, 14});
  test.Run();
}

TEST(MaxPoolTest, Opset22DoubleIndicesColumnMajor) {
  OpTester test("MaxPool", 22);
  test.Input<double>("x", {2, 1, 3, 3},
                     {-3, 3.25, 2.5, -3.75, -4.5, -2.5, -0.5, -3.5, -4.75, -4, -2, -1.25, -2, -0.75,
                      2, -2.75, -0.5, 2.25});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("storage_order", int64_t{1});
  test.Output<double>("y", {2, 1, 2, 2}, {3.25, 3.25, -0.5, -2.5, -0.75, 2, -0.5, 2.25});
  test.Output<int64_t>("i", {2, 1, 2, 2}, {3, 3, 2, 7, 13, 16, 14, 17});
  test.Run();
}

TEST(AveragePoolTest, Opset1Float2d) {
  OpTester test("AveragePool", 1);
  test.Input<float>(
      "x", {1, 2, 4, 4},
      {-4.5f,  4.25f,  4.75f, -2.25f, 3.75f,  -2.5f,  4.0f,   1.5f,  -2.75f, -4.5f, -1.25f,
       2.25f,  -2.75f, 0.0f,  -4.0f,  -1.0f,  -4.75f, 4.75f,  0.0f,  3.25f,  -4.0f, -3.5f,
       -3.25f, 0.5f,   3.5f,  1.0f,   -0.25f, 4.25f,  -3.25f, -3.5f, 1.5f,   3.5f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Output<float>("y", {1, 2, 3, 3},
                     {0.25f, 2.625f, 2.0f, -1.5f, -1.0625f, 1.625f, -2.5f, -2.4375f, -1.0f, -1.875f,
                      -0.5f, 0.125f, -0.75f, -1.5f, 0.3125f, -0.5625f, -0.3125f, 2.25f});
  test.Run();
}

TEST(AveragePoolTest, Opset1DoublePadsExcluded) {
  OpTester test("AveragePool", 1);
  test.Input<double>("x", {1, 1, 3, 3}, {-2.5, -2.5, 0.25, 2.75, -2.25, 3, 0, 2, 1.25});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Output<double>("y", {1, 1, 4, 4},
                      {-2.5, -2.5, -1.125, 0.25, 0.125, -1.125, -0.375, 1.625, 1.375, 0.625, 1,
                       2.125, 0, 1, 1.625, 1.25});
  test.Run();
}

TEST(AveragePoolTest, Opset1Float16) {
  OpTester test("AveragePool", 1);
  test.Input<Float16>("x", {1, 1, 4, 4},
                      H({-0.25, 0.25, 4.75, -1.25, 4.25, 2.75, -3.25, 3.5, -1.25, -3.25, -2.5,
                         -3.75, -1.75, -4.0, 0.25, 4.75}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<Float16>("y", {1, 1, 2, 2}, H({1.75, 0.9375, -2.5625, -0.3125}));
  test.Run();
}

TEST(AveragePoolTest, Opset7FloatCountIncludePad) {
  OpTester test("AveragePool", 7);
  test.Input<float>("x", {1, 1, 3, 3},
                    {4.5f, 4.25f, -2.75f, -2.75f, 1.75f, 4.5f, 3.25f, -3.0f, 2.25f});
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<float>("y", {1, 1, 3, 3},
                     {0.861111104f, 1.05555558f, 0.861111104f, 0.888888896f, 1.33333337f,
                      0.777777791f, -0.0833333358f, 0.666666687f, 0.611111104f});
  test.Run();
}

TEST(AveragePoolTest, Opset7DoubleSameLower) {
  OpTester test("AveragePool", 7);
  test.Input<double>("x", {1, 1, 4, 5},
                     {0,    -0.75, -0.25, 0.25, 4,     2.75, -4.75, 2.5, -2,   -1.75,
                      0.75, 4.75,  -4.5,  0,    -2.75, 4,    -0.5,  3.5, 3.75, -4});
  test.Attr("kernel_shape", std::vector<int64_t>{3, 2});
  test.Attr("auto_pad", std::string("SAME_LOWER"));
  test.Output<double>("y", {1, 1, 4, 5},
                      {1.375,
                       -0.6875,
                       -0.8125,
                       0.125,
                       0.125,
                       1.1666666666666667,
                       0.45833333333333331,
                       -0.5,
                       -0.66666666666666663,
                       -0.375,
                       2.5,
                       1.1666666666666667,
                       0.16666666666666666,
                       0.54166666666666663,
                       -1.125,
                       2.375,
                       2.25,
                       0.8125,
                       0.6875,
                       -0.75});
  test.Run();
}

TEST(AveragePoolTest, Opset7Float16CountIncludePad) {
  OpTester test("AveragePool", 7);
  test.Input<Float16>("x", {1, 1, 3, 3}, H({2.5, 2.75, 3.25, 4.75, 2.5, 3.25, 2.0, -2.25, 3.25}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 0, 0, 1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<Float16>("y", {1, 1, 3, 3},
                       H({1.3125, 1.5, 0.8125, 3.125, 2.9375, 1.625, 1.75, 1.6875, 1.625}));
  test.Run();
}

TEST(AveragePoolTest, Opset10FloatCeil) {
  OpTester test("AveragePool", 10);
  test.Input<float>("x", {1, 1, 5, 5},
                    {2.0f,  1.75f, 4.5f,  2.25f,  -1.75f, -2.0f, -1.75f, -3.5f, -4.25f,
                     2.5f,  2.75f, -3.5f, -1.25f, 4.0f,   3.25f, 0.75f,  4.5f,  -1.75f,
                     3.25f, 4.25f, 0.75f, -3.5f,  -2.25f, 0.0f,  -2.25f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<float>("y", {1, 1, 3, 3},
                     {0.0f, -0.25f, 0.375f, 1.125f, 1.0625f, 3.75f, -1.375f, -1.125f, -2.25f});
  test.Run();
}

TEST(AveragePoolTest, Opset10DoubleCeilCountIncludePad) {
  OpTester test("AveragePool", 10);
  test.Input<double>(
      "x", {1, 1, 4, 4},
      {-4.25, -3.5, 4.5, -1.25, 0.75, -0.75, 3, -4, -2.25, 0.75, 3, -0.5, 2, 3, 1.25, 3});
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("ceil_mode", int64_t{1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<double>("y", {1, 1, 3, 3},
                      {-0.86111111111111116, -0.22222222222222221, -0.875, 0.3888888888888889,
                       0.97222222222222221, -0.25, 0.83333333333333337, 1.2083333333333333, 0.75});
  test.Run();
}

TEST(AveragePoolTest, Opset10Float16Ceil) {
  OpTester test("AveragePool", 10);
  test.Input<Float16>("x", {1, 1, 3, 3},
                      H({4.5, -3.0, -0.75, -2.75, -1.0, -5.0, 1.75, -2.75, 3.25}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<Float16>("y", {1, 1, 2, 2}, H({-0.5625, -2.875, -0.5, 3.25}));
  test.Run();
}

TEST(AveragePoolTest, Opset11Float1dSameUpper) {
  OpTester test("AveragePool", 11);
  test.Input<float>("x", {1, 2, 7},
                    {2.0f, -1.75f, -0.5f, 1.5f, -1.0f, -3.0f, -4.75f, 0.5f, 0.25f, 2.5f, -3.75f,
                     -4.5f, 2.25f, 2.25f});
  test.Attr("kernel_shape", std::vector<int64_t>{4});
  test.Attr("auto_pad", std::string("SAME_UPPER"));
  test.Attr("strides", std::vector<int64_t>{2});
  test.Output<float>(
      "y", {1, 2, 4},
      {-0.0833333358f, -0.4375f, -1.8125f, -3.875f, 1.08333337f, -1.375f, -0.9375f, 2.25f});
  test.Run();
}

TEST(AveragePoolTest, Opset11Double3dValid) {
  OpTester test("AveragePool", 11);
  test.Input<double>("x", {1, 1, 3, 4, 4},
                     {2.75, -5,    1.5,   4.5,   2.5,  -0.5,  -0.25, -1,   -4.5,  2,    0.25, 0,
                      4.25, 2.25,  4.5,   -4.25, 4.5,  0.5,   -1,    0.5,  -4.75, 4.25, 1.25, -4.75,
                      4,    -0.5,  -4,    1.25,  -4.5, 0.5,   2.5,   -4.5, 2.75,  0.75, -2,   -3,
                      -5,   -3.25, -2.25, 3.75,  0,    -3.25, 2.25,  -0.5, 3.25,  2.5,  4.25, 2});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2, 2});
  test.Attr("auto_pad", std::string("VALID"));
  test.Attr("strides", std::vector<int64_t>{1, 2, 2});
  test.Output<double>("y", {1, 1, 2, 2, 2},
                      {0.53125, 0.09375, 0.4375, -0.53125, -0.03125, -0.9375, 0.25, 0.40625});
  test.Run();
}

TEST(AveragePoolTest, Opset11Float16Pads) {
  OpTester test("AveragePool", 11);
  test.Input<Float16>("x", {1, 1, 4, 4},
                      H({-4.0, 0.5, -1.0, 3.0, -3.5, -0.5, 3.25, 1.0, -4.75, 3.0, -1.5, 1.75, 1.5,
                         1.25, -1.0, -1.0}));
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<Float16>("y", {1, 1, 2, 2}, H({-1.875, 1.04199219, -0.5, 0.694335938}));
  test.Run();
}

TEST(AveragePoolTest, Opset19FloatDilations) {
  OpTester test("AveragePool", 19);
  test.Input<float>("x", {1, 1, 5, 5},
                    {-4.0f, 0.5f,   -2.25f, -1.25f, -3.5f,  2.25f, 4.0f,   -1.25f, -1.0f,
                     -0.5f, -4.5f,  2.5f,   3.75f,  0.0f,   -4.5f, -1.75f, -3.5f,  3.25f,
                     3.0f,  -1.25f, -1.25f, 3.25f,  -4.25f, 2.75f, 4.5f});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("dilations", std::vector<int64_t>{2, 2});
  test.Output<float>(
      "y", {1, 1, 3, 3},
      {-1.75f, 0.4375f, -1.625f, 0.625f, 0.625f, 0.0625f, -1.5625f, 2.125f, -0.125f});
  test.Run();
}

TEST(AveragePoolTest, Opset19DoubleDilationsCeilCountIncludePad) {
  OpTester test("AveragePool", 19);
  test.Input<double>(
      "x", {1, 1, 6, 6},
      {-0.75, 2.5,  2,     3.75,  -4.75, 2,    -1.25, 3.5,   3.5,  -2.25, 0.75,  -0.25,
       0.5,   3.25, 1.5,   2.5,   1.75,  -2.5, 0.75,  -1.25, -1,   -4,    -3.25, -1.75,
       -2.25, 1.25, -2.25, -2.75, -0.75, 0.5,  4.75,  0,     -1.5, -2,    -0.75, 4.25});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("dilations", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("ceil_mode", int64_t{1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<double>("y", {1, 1, 4, 4},
                      {0.875, 0.3125, -0.625, -0.125, 0.5625, -1, -2.0625, -1, -0.3125, -1.8125,
                       -0.875, 1.25, 0, -1, 1.125, 4.25});
  test.Run();
}

TEST(AveragePoolTest, Opset19Float16Dilations) {
  OpTester test("AveragePool", 19);
  test.Input<Float16>("x", {1, 1, 4, 4},
                      H({-1.5, -2.75, 0.75, 2.5, 4.25, -2.25, 3.75, 3.5, -1.25, -1.75, -2.5, -2.0,
                         3.75, -2.0, -0.25, 4.25}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("dilations", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Output<Float16>("y", {1, 1, 4, 4},
                       H({-2.25, 4.0, 0.625, 3.75, -2.25, -1.125, -1.0, -0.875, -2.125, 2.875,
                          0.875, 1.75, -1.75, -1.875, -1.875, -2.5}));
  test.Run();
}

TEST(AveragePoolTest, Opset22BFloat16Pads) {
  OpTester test("AveragePool", 22);
  test.Input<BFloat16>("x", {1, 2, 4, 4},
                       B({1.75, -3.75, -4.5,  -3.0, 3.5,  -2.75, -2.0, 0.25, -0.25, -4.25, -3.25,
                          4.75, -1.0,  -2.25, 3.25, -0.5, 3.25,  -3.5, -0.5, 3.0,   2.5,   1.75,
                          -0.5, 3.0,   -1.5,  1.5,  0.25, -2.0,  -3.0, 0.25, -2.0,  0.0}));
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<BFloat16>("y", {1, 2, 2, 2},
                        B({-0.3125, -2.625, -1.1640625, -0.75, 1.0, 0.54296875, 0.25, 0.25}));
  test.Run();
}

TEST(AveragePoolTest, Opset22FloatCeilLastWindowStartsOnPad) {
  OpTester test("AveragePool", 22);
  test.Input<float>("x", {1, 1, 2, 2}, {2.0f, 3.0f, 2.5f, 0.0f});
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("ceil_mode", int64_t{1});
  test.Output<float>("y", {1, 1, 2, 2}, {1.875f, 1.5f, 1.25f, 0.0f});
  test.Run();
}

TEST(AveragePoolTest, Opset22DoubleCountIncludePad) {
  OpTester test("AveragePool", 22);
  test.Input<double>("x", {1, 1, 3, 3}, {-4.5, -3.25, 2.25, 0.75, 3, -0.25, -0.75, -2.75, -4.5});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("count_include_pad", int64_t{1});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Output<double>("y", {1, 1, 2, 2}, {-1.125, -0.25, 0, -1.125});
  test.Run();
}

TEST(AveragePoolTest, Opset22Float16) {
  OpTester test("AveragePool", 22);
  test.Input<Float16>(
      "x", {1, 1, 3, 4},
      H({-3.75, 1.75, 0.75, -2.75, -1.5, 1.25, -1.25, -1.25, -2.5, 1.25, 3.75, -2.5}));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Output<Float16>("y", {1, 1, 2, 3}, H({-0.5625, 0.625, -1.125, -0.375, 1.25, -0.3125}));
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset1Float) {
  OpTester test("GlobalAveragePool", 1);
  test.Input<float>(
      "x", {2, 3, 2, 3},
      {-2.25f, -0.25f, -3.25f, 0.0f,   3.75f,  1.25f, -3.5f, -3.0f, -4.25f, 4.5f,   -1.75f, -2.25f,
       3.5f,   -2.0f,  -2.75f, -2.5f,  -1.25f, -4.5f, 1.25f, -1.0f, 4.5f,   2.5f,   -1.25f, 2.0f,
       3.0f,   -3.25f, -3.5f,  -3.75f, -4.75f, -2.0f, 2.75f, 2.5f,  -1.25f, -0.25f, 2.5f,   4.0f});
  test.Output<float>("y", {2, 3, 1, 1},
                     {-0.125f, -1.70833337f, -1.58333337f, 1.33333337f, -2.375f, 1.70833337f});
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset1Double3d) {
  OpTester test("GlobalAveragePool", 1);
  test.Input<double>(
      "x", {1, 2, 2, 2, 2},
      {-2.25, 1.5, 0.75, 1, 3, 2.5, -1.25, 2.5, -4.5, -1.75, -3, -2.5, 4, -0.75, -4.5, -0.25});
  test.Output<double>("y", {1, 2, 1, 1, 1}, {0.96875, -1.65625});
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset1Float16) {
  OpTester test("GlobalAveragePool", 1);
  test.Input<Float16>("x", {1, 2, 3, 3},
                      H({-4.5, -3.75, -1.25, -0.75, -2.75, 1.25, -0.25, -3.75, 3.0, -3.75, -1.5,
                         -3.5, 4.25, -2.25, 3.5, 4.5, -3.0, -4.75}));
  test.Output<Float16>("y", {1, 2, 1, 1}, H({-1.41699219, -0.722167969}));
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset22BFloat16) {
  OpTester test("GlobalAveragePool", 22);
  test.Input<BFloat16>("x", {1, 2, 4}, B({-5.0, -3.25, -1.0, -3.5, 4.5, -0.5, 3.25, -5.0}));
  test.Output<BFloat16>("y", {1, 2, 1}, B({-3.1875, 0.5625}));
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset22Float) {
  OpTester test("GlobalAveragePool", 22);
  test.Input<float>("x", {2, 2, 5},
                    {-3.75f, -0.5f, -3.5f,  -3.5f, -5.0f, -2.5f, 2.5f,  2.75f, 0.0f, -3.25f,
                     -0.75f, 1.0f,  -3.75f, -1.0f, 3.0f,  -1.0f, -0.5f, 3.0f,  1.5f, -3.5f});
  test.Output<float>("y", {2, 2, 1}, {-3.25f, -0.100000001f, -0.300000012f, -0.100000001f});
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset22Double) {
  OpTester test("GlobalAveragePool", 22);
  test.Input<double>("x", {1, 3, 2, 2},
                     {1, 4, -3, 3.75, 0.75, 1.5, -1.75, -4.75, -4.75, 1.5, 4.75, 1});
  test.Output<double>("y", {1, 3, 1, 1}, {1.4375, -1.0625, 0.625});
  test.Run();
}

TEST(GlobalAveragePoolTest, Opset22Float16) {
  OpTester test("GlobalAveragePool", 22);
  test.Input<Float16>("x", {1, 1, 2, 3}, H({-1.5, 2.5, 4.25, -3.0, -4.0, 4.5}));
  test.Output<Float16>("y", {1, 1, 1, 1}, H({0.458251953}));
  test.Run();
}

TEST(MaxPoolTest, NanPropagatesThroughWindows) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester test("MaxPool", 12);
  test.Input<float>("x", {1, 1, 4}, {1, nan, 3, 2});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Output<float>("y", {1, 1, 3}, {nan, nan, 3});
  test.Output<int64_t>("i", {1, 1, 3}, {1, 1, 2});
  test.Run();
}

TEST(PoolErrorTest, KernelLargerThanPaddedInput) {
  OpTester test("MaxPool", 12);
  test.Input<float>("x", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.Attr("kernel_shape", std::vector<int64_t>{5, 2});
  test.Attr("pads", std::vector<int64_t>{0, 0, 1, 0});
  test.Output<float>("y", {1, 1, 1, 1}, {1.f});
  test.ExpectFailure("is larger than the padded input");
}

TEST(PoolErrorTest, DilatedKernelLargerThanInput) {
  OpTester test("AveragePool", 19);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Attr("dilations", std::vector<int64_t>{4});
  test.Output<float>("y", {1, 1, 1}, {1.f});
  test.ExpectFailure("is larger than the padded input");
}

TEST(PoolErrorTest, InputRankDoesNotMatchKernel) {
  OpTester test("MaxPool", 12);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Output<float>("y", {1, 1, 1, 1}, {1.f});
  test.ExpectFailure("needs rank 4");
}

TEST(PoolErrorTest, MissingKernelShape) {
  OpTester test("AveragePool", 11);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Output<float>("y", {1, 1, 1}, {1.f});
  test.ExpectFailure("kernel_shape is required");
}

TEST(PoolErrorTest, BadAutoPad) {
  OpTester test("MaxPool", 11);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Attr("auto_pad", std::string("SAME"));
  test.Output<float>("y", {1, 1, 3}, {1.f, 1.f, 1.f});
  test.ExpectFailure("auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

TEST(PoolErrorTest, StridesCountMismatch) {
  OpTester test("AveragePool", 11);
  test.Input<float>("x", {1, 1, 4, 4}, std::vector<float>(16, 1.f));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Attr("strides", std::vector<int64_t>{1});
  test.Output<float>("y", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
  test.ExpectFailure("strides [1] must have 2 values");
}

TEST(PoolErrorTest, NegativePads) {
  OpTester test("MaxPool", 11);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Attr("pads", std::vector<int64_t>{-1, 0});
  test.Output<float>("y", {1, 1, 3}, {1.f, 1.f, 1.f});
  test.ExpectFailure("pads must be >= 0");
}

TEST(PoolErrorTest, BadStorageOrder) {
  OpTester test("MaxPool", 11);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Attr("storage_order", int64_t{2});
  test.Output<float>("y", {1, 1, 3}, {2.f, 3.f, 4.f});
  test.ExpectFailure("storage_order must be 0 (row major) or 1 (column major)");
}

TEST(PoolErrorTest, DilatedKernelOverflow) {
  OpTester test("MaxPool", 12);
  test.Input<float>("x", {1, 1, 4}, {1, 2, 3, 4});
  test.Attr("kernel_shape", std::vector<int64_t>{int64_t{1} << 62});
  test.Attr("dilations", std::vector<int64_t>{4});
  test.Output<float>("y", {1, 1, 1}, {1.f});
  test.ExpectFailure("dilated kernel size overflows int64");
}

// A huge kernel fully covered by huge pads must not loop over every kernel tap.
TEST(AveragePoolTest, HugeKernelWithHugePadsIsFast) {
  const int64_t big = int64_t{1} << 40;
  OpTester test("AveragePool", 19);
  test.Input<float>("x", {1, 1, 2}, {1, 3});
  test.Attr("kernel_shape", std::vector<int64_t>{big + 1});
  test.Attr("pads", std::vector<int64_t>{big, big});
  test.Attr("strides", std::vector<int64_t>{big});
  // Windows cover [-2^40, 1) (only x[0]) and [0, 2^40 + 1) (both cells).
  test.Output<float>("y", {1, 1, 2}, {1.f, 2.f});
  test.Run();
}

TEST(PoolErrorTest, GlobalAveragePoolNeedsRank2) {
  OpTester test("GlobalAveragePool", 22);
  test.Input<float>("x", {3}, {1, 2, 3});
  test.Output<float>("y", {1}, {2.f});
  test.ExpectFailure("must have rank >= 2");
}

TEST(PoolErrorTest, AveragePoolRejectsInt8) {
  // AveragePool has no integer types in the spec: no kernel matches.
  OpTester test("AveragePool", 22);
  test.Input<int8_t>("x", {1, 1, 2}, {1, 2});
  test.Attr("kernel_shape", std::vector<int64_t>{2});
  test.Output<int8_t>("y", {1, 1, 1}, {1});
  test.ExpectFailure("AveragePool");
}

// Double AveragePool and GlobalAveragePool sum in double: windows of 1 + k * 2^-30 (all 1 in
// float) must average to long double precision, with count_include_pad dividing by 9 at the
// padded corners.
TEST(AveragePoolDoublePrecisionTest, ExactToDoublePrecision) {
  constexpr int kH = 4, kW = 4;
  std::vector<double> x;
  for (int i = 0; i < kH * kW; ++i) x.push_back(NearOne(9 * i - 70) * (i % 3 ? 1 : 0.5));
  // 3x3 windows, stride 2, one pad on every side, padded cells counted: a 2x2 output.
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> y;
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        C sum = 0;
        for (int h = 2 * oh - 1; h < 2 * oh + 2; ++h)
          for (int w = 2 * ow - 1; w < 2 * ow + 2; ++w)
            if (h >= 0 && h < kH && w >= 0 && w < kW) sum += static_cast<C>(x[h * kW + w]);
        y.push_back(sum / 9);
      }
    return y;
  });
  OpTester test("AveragePool", 19);
  test.Input<double>("x", {1, 1, kH, kW}, x);
  test.Attr("kernel_shape", std::vector<int64_t>{3, 3});
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  test.Attr("count_include_pad", int64_t{1});
  test.Output<double>("y", {1, 1, 2, 2}, expected);
  test.Run();

  const std::vector<double> global = DoubleExpected([&]<typename C>() {
    C sum = 0;
    for (double v : x) sum += static_cast<C>(v);
    return std::vector<C>{sum / (kH * kW)};
  });
  OpTester global_test("GlobalAveragePool", 1);
  global_test.Input<double>("x", {1, 1, kH, kW}, x);
  global_test.Output<double>("y", {1, 1, 1, 1}, global);
  global_test.Run();
}

}  // namespace
}  // namespace prism::testing
