#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

// x has shape [3,2,2]; expected values computed with numpy.mean.
const std::vector<float> kX = {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2};

template <typename T>
std::vector<T> Convert(const std::vector<float>& values) {
  std::vector<T> out;
  for (float v : values) out.push_back(T(v));
  return out;
}

template <typename T>
void CheckFloatType(int opset) {
  OpTester test("ReduceMean", opset);
  test.Input<T>("data", {3, 2, 2}, Convert<T>(kX));
  test.Attr("axes", std::vector<int64_t>{1});
  test.Output<T>("reduced", {3, 1, 2}, Convert<T>({12.5f, 1.5f, 35.f, 1.5f, 57.5f, 1.5f}));
  test.Run();
}

TEST(ReduceMeanTest, FloatingTypesEveryAttributeVersion) {
  for (int opset : {1, 11, 13}) {
    SCOPED_TRACE(opset);
    CheckFloatType<float>(opset);
    CheckFloatType<double>(opset);
    CheckFloatType<Float16>(opset);
  }
  CheckFloatType<BFloat16>(13);
}

TEST(ReduceMeanTest, FloatingTypesOpset18) {
  OpTester f("ReduceMean", 18);
  f.Input<float>("data", {3, 2, 2}, kX).Input<int64_t>("axes", {2}, {0, 2});
  f.Attr("keepdims", int64_t{0});
  f.Output<float>("reduced", {2}, {15.5f, 21.f});
  f.Run();

  OpTester d("ReduceMean", 18);
  d.Input<double>("data", {3, 2, 2}, Convert<double>(kX)).Input<int64_t>("axes", {1}, {-1});
  d.Attr("keepdims", int64_t{0});
  d.Output<double>("reduced", {3, 2}, {3, 11, 15.5, 21, 28, 31});
  d.Run();

  OpTester h("ReduceMean", 18);
  h.Input<Float16>("data", {3, 2, 2}, Convert<Float16>(kX));
  h.Output<Float16>("reduced", {1, 1, 1}, {Float16(18.25f)});
  h.Run();

  OpTester b("ReduceMean", 18);
  b.Input<BFloat16>("data", {3, 2, 2}, Convert<BFloat16>(kX)).Input<int64_t>("axes", {1}, {1});
  b.Output<BFloat16>("reduced", {3, 1, 2},
                     Convert<BFloat16>({12.5f, 1.5f, 35.f, 1.5f, 57.5f, 1.5f}));
  b.Run();
}

TEST(ReduceMeanTest, SignedIntegersTruncateTowardZero) {
  for (int opset : {1, 11, 13}) {
    SCOPED_TRACE(opset);
    OpTester i32("ReduceMean", opset);
    i32.Input<int32_t>("data", {2, 3}, {1, 2, 4, -3, -4, -6});
    i32.Attr("axes", std::vector<int64_t>{1}).Attr("keepdims", int64_t{0});
    i32.Output<int32_t>("reduced", {2}, {2, -4});
    i32.Run();

    OpTester i64("ReduceMean", opset);
    i64.Input<int64_t>("data", {2, 3}, {1, 2, 4, -3, -4, -6});
    i64.Attr("axes", std::vector<int64_t>{0});
    i64.Output<int64_t>("reduced", {1, 3}, {-1, -1, -1});
    i64.Run();
  }
  OpTester big("ReduceMean", 18);  // exact in 64-bit accumulation, lossy through double
  big.Input<int64_t>("data", {2}, {(int64_t{1} << 60) + 1, (int64_t{1} << 60) + 3});
  big.Output<int64_t>("reduced", {1}, {(int64_t{1} << 60) + 2});
  big.Run();
}

TEST(ReduceMeanTest, UnsignedIntegers) {
  for (int opset : {1, 11, 13, 18}) {
    SCOPED_TRACE(opset);
    OpTester u64("ReduceMean", opset);
    u64.Input<uint64_t>("data", {2, 3}, {1, 2, 4, 3, 4, 7});
    if (opset < 18)
      u64.Attr("axes", std::vector<int64_t>{1});
    else
      u64.Input<int64_t>("axes", {1}, {1});
    u64.Output<uint64_t>("reduced", {2, 1}, {2, 4});
    u64.Run();

    OpTester u32("ReduceMean", opset);
    u32.Input<uint32_t>("data", {2, 2}, {4000000000u, 4000000000u, 1, 2});
    u32.Attr("keepdims", int64_t{0});
    u32.Output<uint32_t>("reduced", {}, {2000000000u});  // sums beyond 32 bits stay exact
    u32.Run();
  }
}

TEST(ReduceMeanTest, Opset18NoAxesReducesAll) {
  OpTester test("ReduceMean", 18);
  test.Input<float>("data", {3, 2, 2}, kX);
  test.Attr("keepdims", int64_t{0});
  test.Output<float>("reduced", {}, {18.25f});
  test.Run();

  OpTester empty_axes("ReduceMean", 18);
  empty_axes.Input<float>("data", {3, 2, 2}, kX).Input<int64_t>("axes", {0}, {});
  empty_axes.Output<float>("reduced", {1, 1, 1}, {18.25f});
  empty_axes.Run();
}

TEST(ReduceMeanTest, Opset18NoopWithEmptyAxes) {
  OpTester test("ReduceMean", 18);
  test.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Input<int64_t>("axes", {0}, {});
  test.Attr("noop_with_empty_axes", int64_t{1});
  test.Output<float>("reduced", {2, 2}, {1, 2, 3, 4});
  test.Run();

  OpTester missing("ReduceMean", 18);
  missing.Input<int32_t>("data", {2}, {1, 2}).Attr("noop_with_empty_axes", int64_t{1});
  missing.Output<int32_t>("reduced", {2}, {1, 2});
  missing.Run();
}

TEST(ReduceMeanTest, ConstantAxesInput) {
  OpTester test("ReduceMean", 18);
  test.Input<float>("data", {2, 2}, {1, 2, 3, 4});
  test.Input<int64_t>("axes", {1}, {0}, /*constant=*/true);
  test.Output<float>("reduced", {1, 2}, {2, 3});
  test.Run();
}

TEST(ReduceMeanTest, EmptyReductionIsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester test("ReduceMean", 18);
  test.Input<float>("data", {2, 0, 4}, {}).Input<int64_t>("axes", {1}, {1});
  test.Output<float>("reduced", {2, 1, 4}, std::vector<float>(8, nan));
  test.Run();

  OpTester kept_empty("ReduceMean", 13);  // reducing a non-empty axis of an empty tensor
  kept_empty.Input<double>("data", {0, 3}, {}).Attr("axes", std::vector<int64_t>{1});
  kept_empty.Output<double>("reduced", {0, 1}, {});
  kept_empty.Run();

  OpTester ints("ReduceMean", 13);
  ints.Input<int32_t>("data", {0, 2}, {}).Attr("axes", std::vector<int64_t>{0});
  ints.Output<int32_t>("reduced", {1, 2}, {0, 0});
  ints.Run();
}

TEST(ReduceMeanTest, SizeOneAndInterleavedAxes) {
  // data [2,1,3,2] = arange(12); mean over axes {0, 2} keeps dims 1 and 3.
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  OpTester test("ReduceMean", 13);
  test.Input<float>("data", {2, 1, 3, 2}, x).Attr("axes", std::vector<int64_t>{0, 2});
  test.Output<float>("reduced", {1, 1, 1, 2}, {5, 6});
  test.Run();
}

TEST(ReduceMeanTest, ScalarInput) {
  OpTester test("ReduceMean", 13);
  test.Input<float>("data", {}, {4.5f});
  test.Output<float>("reduced", {}, {4.5f});
  test.Run();
}

TEST(ReduceMeanTest, AxisOutOfRangeFails) {
  OpTester test("ReduceMean", 13);
  test.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Attr("axes", std::vector<int64_t>{2});
  test.Output<float>("reduced", {2, 1}, {1, 2});
  test.ExpectFailure("axis 2 is out of range [-2, 1]");
}

TEST(ReduceMeanTest, DuplicateAxisFails) {
  OpTester test("ReduceMean", 18);
  test.Input<float>("data", {2, 2}, {1, 2, 3, 4}).Input<int64_t>("axes", {2}, {1, -1});
  test.Output<float>("reduced", {2, 1}, {1, 2});
  test.ExpectFailure("more than once");
}

// Double ReduceMean accumulates in double: 1 + k * 2^-30 (all 1 in float) over a middle and a
// last axis must match long double to 1e-12.
TEST(ReduceMeanDoublePrecisionTest, ExactToDoublePrecision) {
  constexpr int kA = 2, kB = 3, kC = 4;
  std::vector<double> x;
  for (int i = 0; i < kA * kB * kC; ++i) x.push_back(NearOne(7 * i - 80) * (i % 5 ? 1 : -3));
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> mean(kA * kC, 0);
    for (int a = 0; a < kA; ++a)
      for (int b = 0; b < kB; ++b)
        for (int c = 0; c < kC; ++c) mean[a * kC + c] += static_cast<C>(x[(a * kB + b) * kC + c]);
    for (C& m : mean) m /= kB;
    return mean;
  });
  OpTester test("ReduceMean", 18);
  test.Input<double>("data", {kA, kB, kC}, x).Input<int64_t>("axes", {1}, {1});
  test.Output<double>("reduced", {kA, 1, kC}, expected);
  test.Run();

  const std::vector<double> row_means = DoubleExpected([&]<typename C>() {
    std::vector<C> mean(kA * kB, 0);
    for (int r = 0; r < kA * kB; ++r) {
      for (int c = 0; c < kC; ++c) mean[r] += static_cast<C>(x[r * kC + c]);
      mean[r] /= kC;
    }
    return mean;
  });
  OpTester last("ReduceMean", 13);
  last.Input<double>("data", {kA, kB, kC}, x);
  last.Attr("axes", std::vector<int64_t>{-1}).Attr("keepdims", int64_t{0});
  last.Output<double>("reduced", {kA, kB}, row_means);
  last.Run();
}

}  // namespace
}  // namespace prism::testing
