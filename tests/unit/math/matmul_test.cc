// MatMul kernel tests. Expected values were computed with numpy.matmul (small integers, so every
// floating type is exact) or checked by hand.
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

TEST(MatMulTest, Float2D) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 3}, {1, -2, 3, 0, 0, 1});
  test.Input<float>("B", {3, 4}, {-2, 3, -3, -2, 3, -1, -1, -3, 3, 1, -3, 1});
  test.Output<float>("Y", {2, 4}, {1, 8, -10, 7, 3, 1, -3, 1});
  test.Run();
}

TEST(MatMulTest, FloatOpset1) {
  OpTester test("MatMul", 1);
  test.Input<float>("A", {3, 2}, {-3, 0, -1, 3, 0, 1});
  test.Input<float>("B", {2, 2}, {1, 2, -3, -3});
  test.Output<float>("Y", {3, 2}, {-3, -6, -10, -11, -3, -3});
  test.Run();
}

TEST(MatMulTest, DoubleOpset1) {
  OpTester test("MatMul", 1);
  test.Input<double>("A", {2, 3}, {2, -3, 0, 2, -3, -1});
  test.Input<double>("B", {3, 2}, {-3, -2, 3, 3, 1, 3});
  test.Output<double>("Y", {2, 2}, {-15, -13, -16, -16});
  test.Run();
}

TEST(MatMulTest, DoubleOpset13) {
  OpTester test("MatMul", 13);
  test.Input<double>("A", {2, 2, 3}, {-2, 0, 0, -3, 0, -3, -2, -3, -3, 3, 2, 1});
  test.Input<double>("B", {3, 2}, {1, 1, -1, -2, 0, -3});
  test.Output<double>("Y", {2, 2, 2}, {-2, -2, -3, 6, 1, 13, 1, -4});
  test.Run();
}

TEST(MatMulTest, Float16Opset9) {
  OpTester test("MatMul", 9);
  test.Input<Float16>("A", {2, 3}, ToFloat16({2, 1, -3, 2, 1, 0}));
  test.Input<Float16>("B", {3, 2}, ToFloat16({-2, 0, 0, 0, -2, 0}));
  test.Output<Float16>("Y", {2, 2}, ToFloat16({2, 0, -4, 0}));
  test.Run();
}

TEST(MatMulTest, Float16Opset13Batched) {
  OpTester test("MatMul", 13);
  test.Input<Float16>("A", {2, 2, 3}, ToFloat16({0, 1, 0, -2, 0, 3, -2, 2, -2, 2, -2, -1}));
  test.Input<Float16>("B", {2, 3, 2}, ToFloat16({0, -1, -1, 2, 0, 0, -1, -3, 1, 2, 0, -2}));
  test.Output<Float16>("Y", {2, 2, 2}, ToFloat16({-1, 2, 0, 2, 4, 14, -4, -8}));
  test.Run();
}

TEST(MatMulTest, BFloat16Opset13) {
  OpTester test("MatMul", 13);
  test.Input<BFloat16>("A", {2, 3}, ToBFloat16({-2, 1, 0, 3, 3, 1}));
  test.Input<BFloat16>("B", {3, 3}, ToBFloat16({1, 2, 1, 0, 0, -3, 1, 0, -3}));
  test.Output<BFloat16>("Y", {2, 3}, ToBFloat16({-2, -4, -5, 4, 6, -9}));
  test.Run();
}

TEST(MatMulTest, Int32Opset9) {
  OpTester test("MatMul", 9);
  test.Input<int32_t>("A", {2, 3}, {40, 4, -7, 37, 27, 0});
  test.Input<int32_t>("B", {3, 2}, {-11, -47, -21, -38, 26, 29});
  test.Output<int32_t>("Y", {2, 2}, {-706, -2235, -974, -2765});
  test.Run();
}

TEST(MatMulTest, Int32Opset13Batched) {
  OpTester test("MatMul", 13);
  test.Input<int32_t>("A", {3, 2, 2}, {-21, -42, 4, -12, 20, -29, -6, 41, -43, 31, 19, 2});
  test.Input<int32_t>("B", {2, 3}, {-9, -21, -24, 14, 12, 36});
  test.Output<int32_t>("Y", {3, 2, 3},
                       {-399, -63, -1008, -204, -228, -528, -586, -768, -1524, 628, 618, 1620, 821,
                        1275, 2148, -143, -375, -384});
  test.Run();
}

TEST(MatMulTest, Int64Opset9) {
  OpTester test("MatMul", 9);
  test.Input<int64_t>("A", {2, 3}, {762LL, 36LL, -354LL, 512LL, 954LL, -557LL});
  test.Input<int64_t>("B", {3, 2}, {-894LL, 646LL, 908LL, -503LL, 373LL, -514LL});
  test.Output<int64_t>("Y", {2, 2}, {-780582LL, 656100LL, 200743LL, 137188LL});
  test.Run();
}

TEST(MatMulTest, Uint32Opset9) {
  OpTester test("MatMul", 9);
  test.Input<uint32_t>("A", {2, 3}, {17u, 5u, 79u, 49u, 54u, 76u});
  test.Input<uint32_t>("B", {3, 2}, {92u, 54u, 47u, 37u, 73u, 87u});
  test.Output<uint32_t>("Y", {2, 2}, {7566u, 7976u, 12594u, 11256u});
  test.Run();
}

TEST(MatMulTest, Uint64Opset13) {
  OpTester test("MatMul", 13);
  test.Input<uint64_t>("A", {2, 3}, {661ULL, 260ULL, 475ULL, 588ULL, 233ULL, 331ULL});
  test.Input<uint64_t>("B", {3, 2}, {774ULL, 888ULL, 225ULL, 469ULL, 85ULL, 670ULL});
  test.Output<uint64_t>("Y", {2, 2}, {610489ULL, 1027158ULL, 535672ULL, 853191ULL});
  test.Run();
}

// 1-D x 1-D gives a scalar.
TEST(MatMulTest, VectorTimesVector) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {4}, {0, 1, -3, 0});
  test.Input<float>("B", {4}, {-2, 1, 1, 2});
  test.Output<float>("Y", {}, {-2});
  test.Run();
}

TEST(MatMulTest, VectorTimesMatrix) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {3}, {1, 2, -1});
  test.Input<float>("B", {3, 2}, {-2, 3, 0, 0, -1, 1});
  test.Output<float>("Y", {2}, {-1, 2});
  test.Run();
}

TEST(MatMulTest, MatrixTimesVector) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 3}, {-3, 2, 0, 2, -3, 2});
  test.Input<float>("B", {3}, {-2, 2, -3});
  test.Output<float>("Y", {2}, {10, -16});
  test.Run();
}

// The promoted dim of a 1-D A is dropped from the batched result.
TEST(MatMulTest, VectorTimes3D) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {3}, {1, 0, 3});
  test.Input<float>("B", {2, 3, 2}, {2, -2, -1, -3, -1, -3, 3, -1, -2, -2, 2, 2});
  test.Output<float>("Y", {2, 2}, {-1, -11, 9, 5});
  test.Run();
}

TEST(MatMulTest, Batched4DTimesVector) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 2, 2, 3}, {0,  -2, 3,  -3, -3, -2, -2, 3, -2, 2,  0,  -1,
                                        -3, 2,  -1, -1, 3,  1,  -1, 0, 1,  -3, -2, 1});
  test.Input<float>("B", {3}, {-2, 1, 3});
  test.Output<float>("Y", {2, 2, 2}, {7, -3, 1, -7, 5, 8, 5, 7});
  test.Run();
}

TEST(MatMulTest, Batched3D) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 2, 3}, {0, 3, -1, 1, -2, -3, -1, 1, -3, -3, 1, -2});
  test.Input<float>("B", {2, 3, 2}, {3, -3, -1, -3, 0, 2, 2, -3, -2, 0, -1, -3});
  test.Output<float>("Y", {2, 2, 2}, {-3, -11, 5, -3, -1, 12, -6, 15});
  test.Run();
}

// Batch dims broadcast numpy-style: [2,1] with [3] gives [2,3].
TEST(MatMulTest, BatchBroadcastBothSides) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 1, 2, 3}, {-3, 1, 2, 1, 0, 2, -2, 2, 3, -1, 1, -3});
  test.Input<float>("B", {3, 3, 2},
                    {1, -1, -1, -3, 3, 3, 3, 2, 0, -2, 2, -3, 0, -2, -1, -3, -2, 0});
  test.Output<float>("Y", {2, 3, 2, 2}, {2, 6, 7,   5,   -5, -14, 7,  -4, -5, 3,  -4, -2,
                                         5, 5, -11, -11, 0,  -17, -9, 5,  -8, -2, 5,  -1});
  test.Run();
}

// A without batch meets every matrix of B.
TEST(MatMulTest, MatrixTimesBatchedB) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 3}, {0, 1, 3, 2, 0, -2});
  test.Input<float>("B", {4, 3, 2}, {2, 3,  3,  1, 0, 1,  -3, -2, -1, -1, -3, 1,
                                     0, -2, -3, 1, 3, -2, 3,  -3, 2,  -1, 1,  1});
  test.Output<float>("Y", {4, 2, 2}, {3, 4, 4, 4, -10, 2, 0, -6, 6, -5, -6, 0, 5, 2, 4, -8});
  test.Run();
}

// B with a batch of one folds A's batch into M.
TEST(MatMulTest, BatchOfOneInB) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {3, 2, 3}, {1, 1, 0, -2, -1, -3, 2, -1, -2, 3, -1, 2, 2, 2, 3, 2, -3, -1});
  test.Input<float>("B", {1, 3, 2}, {3, 3, 1, 3, 3, 2});
  test.Output<float>("Y", {3, 2, 2}, {4, 6, -16, -15, -1, -1, 14, 10, 17, 18, 0, -5});
  test.Run();
}

TEST(MatMulTest, Int64BatchBroadcast) {
  OpTester test("MatMul", 13);
  test.Input<int64_t>("A", {1, 2, 2, 3},
                      {-7LL, 3LL, 7LL, 5LL, -4LL, -1LL, 0LL, 3LL, -2LL, 5LL, -3LL, -7LL});
  test.Input<int64_t>("B", {2, 1, 3, 2},
                      {-4LL, 8LL, 5LL, 0LL, -6LL, 6LL, -9LL, -6LL, -3LL, -9LL, -8LL, -7LL});
  test.Output<int64_t>("Y", {2, 2, 2, 2},
                       {1LL, -14LL, -34LL, 34LL, 27LL, -12LL, 7LL, -2LL, -2LL, -34LL, -25LL, 13LL,
                        7LL, -13LL, 20LL, 46LL});
  test.Run();
}

TEST(MatMulTest, Uint32WrapsModulo2To32) {
  // 4294967295 * 2 + 2 * 3 = 8589934596 = 4 (mod 2^32), as numpy's uint32 matmul gives.
  OpTester test("MatMul", 13);
  test.Input<uint32_t>("A", {1, 2}, {4294967295u, 2u});
  test.Input<uint32_t>("B", {2, 1}, {2u, 3u});
  test.Output<uint32_t>("Y", {1, 1}, {4u});
  test.Run();
}

TEST(MatMulTest, Int64IsExactBeyondDoublePrecision) {
  // 2^53 + 1 - 3 is not representable in double; integer arithmetic must keep it.
  OpTester test("MatMul", 13);
  test.Input<int64_t>("A", {1, 2}, {9007199254740993LL, 3LL});
  test.Input<int64_t>("B", {2, 1}, {1LL, -1LL});
  test.Output<int64_t>("Y", {1, 1}, {9007199254740990LL});
  test.Run();
}

TEST(MatMulTest, Int64OverflowWraps) {
  OpTester test("MatMul", 13);
  test.Input<int64_t>("A", {1, 2}, {int64_t{1} << 62, 3LL});
  test.Input<int64_t>("B", {2, 1}, {2LL, 1LL});
  test.Output<int64_t>("Y", {1, 1}, {-9223372036854775805LL});
  test.Run();
}

TEST(MatMulTest, EmptyRowsGiveEmptyOutput) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {0, 3}, {});
  test.Input<float>("B", {3, 2}, {1, 2, 3, 4, 5, 6});
  test.Output<float>("Y", {0, 2}, {});
  test.Run();
}

TEST(MatMulTest, ZeroInnerDimensionGivesZeros) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 0}, {});
  test.Input<float>("B", {0, 3}, {});
  test.Output<float>("Y", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.Run();
}

TEST(MatMulTest, LargerProductMatchesNaiveLoop) {
  // Big enough for Eigen's blocked path; compares against a straightforward triple loop.
  const int64_t m = 37, k = 70, n = 45;
  std::vector<float> a(m * k), b(k * n), y(m * n, 0.f);
  for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 7) % 11) - 5.f;
  for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 5) % 13) - 6.f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) y[i * n + j] += a[i * k + p] * b[p * n + j];
  OpTester test("MatMul", 13);
  test.Input<float>("A", {m, k}, a);
  test.Input<float>("B", {k, n}, b);
  test.Output<float>("Y", {m, n}, y);
  test.Run();
}

TEST(MatMulTest, MismatchedInnerDimensionFails) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {2, 2}, {1, 2, 3, 4});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("inner dimensions differ");
}

TEST(MatMulTest, MismatchedVectorLengthsFail) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {3}, {1, 2, 3});
  test.Input<float>("B", {2}, {1, 2});
  test.Output<float>("Y", {}, {0});
  test.ExpectFailure("inner dimensions differ");
}

TEST(MatMulTest, NonBroadcastableBatchFails) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {2, 1, 2}, {1, 2, 3, 4});
  test.Input<float>("B", {3, 2, 1}, {1, 2, 3, 4, 5, 6});
  test.Output<float>("Y", {3, 1, 1}, {0, 0, 0});
  test.ExpectFailure("cannot be broadcast");
}

TEST(MatMulTest, ScalarInputFails) {
  OpTester test("MatMul", 13);
  test.Input<float>("A", {}, {2});
  test.Input<float>("B", {1}, {3});
  test.Output<float>("Y", {}, {6});
  test.ExpectFailure("rank >= 1");
}

// Double MatMul accumulates in double: entries 1 + k * 2^-30 (all 1 in float) with a broadcast
// batch; each dot product must match long double to 1e-12.
TEST(MatMulDoublePrecisionTest, ExactToDoublePrecision) {
  constexpr int kBatch = 2, kM = 2, kK = 3, kN = 2;
  std::vector<double> a;
  for (int i = 0; i < kBatch * kM * kK; ++i) a.push_back(NearOne(3 * i - 7) * (i % 2 ? -1.5 : 1));
  std::vector<double> b;  // one matrix, broadcast over A's batch
  for (int i = 0; i < kK * kN; ++i) b.push_back(NearOne(5 - 2 * i) * (i % 3 ? 0.75 : 2));
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> y;
    for (int batch = 0; batch < kBatch; ++batch)
      for (int m = 0; m < kM; ++m)
        for (int n = 0; n < kN; ++n) {
          C sum = 0;
          for (int k = 0; k < kK; ++k)
            sum += static_cast<C>(a[(batch * kM + m) * kK + k]) * static_cast<C>(b[k * kN + n]);
          y.push_back(sum);
        }
    return y;
  });
  OpTester test("MatMul", 13);
  test.Input<double>("A", {kBatch, kM, kK}, a);
  test.Input<double>("B", {kK, kN}, b);
  test.Output<double>("Y", {kBatch, kM, kN}, expected);
  test.Run();
}

}  // namespace
}  // namespace prism::testing
