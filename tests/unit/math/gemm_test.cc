// Gemm kernel tests. Expected values were computed with numpy (alpha * A' @ B' + beta * C on
// small integers, so every floating type is exact) or checked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

TEST(GemmTest, FloatMatrixBias) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 3}, {-2, -3, 0, -2, 2, 1});
  test.Input<float>("B", {3, 4}, {-2, -1, -3, 2, 1, -3, 2, -3, 2, 1, 2, 1});
  test.Input<float>("C", {2, 4}, {-1, 1, -2, -1, 2, 2, 1, -2});
  test.Output<float>("Y", {2, 4}, {0, 12, -2, 4, 10, -1, 13, -11});
  test.Run();
}

TEST(GemmTest, FloatTransA) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 3}, {0, -3, -3, -2, 0, 3});
  test.Input<float>("B", {2, 2}, {0, -1, -1, -3});
  test.Input<float>("C", {3, 2}, {2, -3, 0, 3, -2, 0}).Attr("transA", int64_t{1});
  test.Output<float>("Y", {3, 2}, {4, 3, 0, 6, -5, -6});
  test.Run();
}

TEST(GemmTest, FloatTransB) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 3}, {-1, -2, 0, 1, 2, 3});
  test.Input<float>("B", {3, 3}, {-3, -3, -3, 0, -3, 2, 2, -1, 0});
  test.Input<float>("C", {2, 3}, {0, -2, -3, 0, -3, -2}).Attr("transB", int64_t{1});
  test.Output<float>("Y", {2, 3}, {9, 4, -3, -18, -3, -2});
  test.Run();
}

TEST(GemmTest, FloatTransAAndB) {
  OpTester test("Gemm", 11);
  test.Input<float>("A", {4, 2}, {1, -3, -1, -3, 3, 0, -2, 2});
  test.Input<float>("B", {3, 4}, {-1, 3, 0, -2, 0, -1, 2, -3, -1, 3, -3, 1});
  test.Input<float>("C", {2, 3}, {-3, -3, 1, -2, -2, -2})
      .Attr("transA", int64_t{1})
      .Attr("transB", int64_t{1})
      .Attr("alpha", 0.5f)
      .Attr("beta", -2.0f);
  test.Output<float>("Y", {2, 3}, {6, 12.5, -9.5, -1, 2.5, 2});
  test.Run();
}

TEST(GemmTest, FloatAlphaBeta) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {3, 2}, {1, 0, -1, -3, 0, -3});
  test.Input<float>("B", {2, 2}, {1, -1, -1, 0});
  test.Input<float>("C", {3, 2}, {2, -3, 3, -1, 3, 1}).Attr("alpha", 2.0f).Attr("beta", 0.25f);
  test.Output<float>("Y", {3, 2}, {2.5, -2.75, 4.75, 1.75, 6.75, 0.25});
  test.Run();
}

TEST(GemmTest, FloatScalarBias) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 2}, {3, 1, 1, 1});
  test.Input<float>("B", {2, 3}, {2, -2, -2, 1, -1, 2});
  test.Input<float>("C", {}, {3});
  test.Output<float>("Y", {2, 3}, {10, -4, -1, 6, 0, 3});
  test.Run();
}

TEST(GemmTest, FloatSingleElementBias) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 2}, {1, -1, -2, -2});
  test.Input<float>("B", {2, 3}, {3, 1, -1, 3, 0, 2});
  test.Input<float>("C", {1}, {0});
  test.Output<float>("Y", {2, 3}, {0, 1, -3, -12, -2, -2});
  test.Run();
}

// C of shape [N] is added to every row.
TEST(GemmTest, FloatRowVectorBias) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 3}, {0, -2, 3, 1, -3, -2});
  test.Input<float>("B", {3, 3}, {-1, -2, 1, -3, 2, 2, 0, 2, 1});
  test.Input<float>("C", {3}, {-1, 2, 2});
  test.Output<float>("Y", {2, 3}, {5, 4, 1, 7, -10, -5});
  test.Run();
}

// C of shape [M,1] is added to every column.
TEST(GemmTest, FloatColumnBias) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {3, 2}, {-1, -3, -2, -3, 2, 0});
  test.Input<float>("B", {2, 2}, {1, 1, -1, 3});
  test.Input<float>("C", {3, 1}, {-1, 1, 1});
  test.Output<float>("Y", {3, 2}, {1, -11, 2, -10, 3, 3});
  test.Run();
}

TEST(GemmTest, FloatOneByNBias) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 2}, {-1, 1, -2, -2});
  test.Input<float>("B", {2, 3}, {2, 1, -2, 0, 0, 3});
  test.Input<float>("C", {1, 3}, {3, -1, 0});
  test.Output<float>("Y", {2, 3}, {1, -2, 5, -1, -3, -2});
  test.Run();
}

// C is optional from opset 11.
TEST(GemmTest, FloatNoBiasOpset11) {
  OpTester test("Gemm", 11);
  test.Input<float>("A", {2, 3}, {0, -1, -3, -2, 0, 3});
  test.Input<float>("B", {3, 2}, {-1, 0, -3, -3, 0, 0});
  test.Output<float>("Y", {2, 2}, {3, 3, 2, 0});
  test.Run();
}

TEST(GemmTest, FloatNoBiasOpset13) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {3, 3}, {-1, -2, 2, -1, 1, 2, 2, -1, 3});
  test.Input<float>("B", {3, 1}, {0, -2, -1}).Attr("alpha", 3.0f);
  test.Output<float>("Y", {3, 1}, {6, -12, -3});
  test.Run();
}

TEST(GemmTest, FloatOpset1Broadcast) {
  OpTester test("Gemm", 1);
  test.Input<float>("A", {2, 3}, {-1, 0, -2, -2, 1, 3});
  test.Input<float>("B", {3, 2}, {0, 2, 0, 3, -2, -3});
  test.Input<float>("C", {2}, {-2, 0}).Attr("broadcast", int64_t{1});
  test.Output<float>("Y", {2, 2}, {2, 4, -8, -10});
  test.Run();
}

TEST(GemmTest, FloatOpset1NoBroadcast) {
  OpTester test("Gemm", 1);
  test.Input<float>("A", {2, 2}, {-3, 3, 1, -1});
  test.Input<float>("B", {2, 2}, {3, -2, 3, 3});
  test.Input<float>("C", {2, 2}, {3, -3, -2, -1});
  test.Output<float>("Y", {2, 2}, {3, 12, -2, -6});
  test.Run();
}

TEST(GemmTest, DoubleOpset6Broadcast) {
  OpTester test("Gemm", 6);
  test.Input<double>("A", {2, 2}, {-1, 3, -2, 2});
  test.Input<double>("B", {3, 2}, {0, 0, 1, -2, 0, 1});
  test.Input<double>("C", {1, 3}, {2, 0, -2})
      .Attr("transB", int64_t{1})
      .Attr("broadcast", int64_t{1});
  test.Output<double>("Y", {2, 3}, {2, -7, 1, 2, -6, 0});
  test.Run();
}

TEST(GemmTest, DoubleOpset7) {
  OpTester test("Gemm", 7);
  test.Input<double>("A", {2, 3}, {-1, 1, -2, 2, -2, -3});
  test.Input<double>("B", {3, 2}, {-2, 2, -1, -3, -2, -3});
  test.Input<double>("C", {2}, {-3, 3}).Attr("beta", 0.5f);
  test.Output<double>("Y", {2, 2}, {3.5, 2.5, 2.5, 20.5});
  test.Run();
}

TEST(GemmTest, DoubleOpset13) {
  OpTester test("Gemm", 13);
  test.Input<double>("A", {3, 2}, {-2, -1, -1, -2, 1, -1});
  test.Input<double>("B", {3, 2}, {3, 0, -2, 0, -1, 0});
  test.Input<double>("C", {2, 2}, {-3, 3, -3, -2}).Attr("transA", int64_t{1});
  test.Output<double>("Y", {2, 2}, {-8, 3, -1, -2});
  test.Run();
}

TEST(GemmTest, Float16Opset7) {
  OpTester test("Gemm", 7);
  test.Input<Float16>("A", {2, 3}, ToFloat16({-3, -3, 2, 0, 0, 2}));
  test.Input<Float16>("B", {3, 2}, ToFloat16({3, 1, -3, -2, -2, 2}));
  test.Input<Float16>("C", {2, 2}, ToFloat16({3, 3, 1, 2}));
  test.Output<Float16>("Y", {2, 2}, ToFloat16({-1, 10, -3, 6}));
  test.Run();
}

TEST(GemmTest, Float16Opset11NoBias) {
  OpTester test("Gemm", 11);
  test.Input<Float16>("A", {2, 3}, ToFloat16({-3, -2, -1, 0, 2, 3}));
  test.Input<Float16>("B", {3, 3}, ToFloat16({-2, 1, 0, 0, 0, -3, 3, -3, -1}))
      .Attr("transB", int64_t{1});
  test.Output<Float16>("Y", {2, 3}, ToFloat16({4, 3, -2, 2, -9, -9}));
  test.Run();
}

TEST(GemmTest, Float16Opset6) {
  OpTester test("Gemm", 6);
  test.Input<Float16>("A", {2, 2}, ToFloat16({3, 0, 0, -3}));
  test.Input<Float16>("B", {2, 2}, ToFloat16({0, 3, 0, 1}));
  test.Input<Float16>("C", {2, 2}, ToFloat16({-3, 0, -2, -2})).Attr("alpha", 2.0f);
  test.Output<Float16>("Y", {2, 2}, ToFloat16({-3, 18, -2, -8}));
  test.Run();
}

TEST(GemmTest, Float16Opset1) {
  OpTester test("Gemm", 1);
  test.Input<Float16>("A", {2, 2}, ToFloat16({3, 1, 0, -1}));
  test.Input<Float16>("B", {2, 2}, ToFloat16({2, -2, 3, 1}));
  test.Input<Float16>("C", {2, 2}, ToFloat16({2, -1, 1, 2})).Attr("beta", 0.5f);
  test.Output<Float16>("Y", {2, 2}, ToFloat16({10, -5.5, -2.5, 0}));
  test.Run();
}

TEST(GemmTest, BFloat16Opset13) {
  OpTester test("Gemm", 13);
  test.Input<BFloat16>("A", {2, 3}, ToBFloat16({1, -3, 1, 3, -2, -1}));
  test.Input<BFloat16>("B", {3, 2}, ToBFloat16({-2, 2, 0, 0, -3, -2}));
  test.Input<BFloat16>("C", {2}, ToBFloat16({-1, 3})).Attr("alpha", 0.5f);
  test.Output<BFloat16>("Y", {2, 2}, ToBFloat16({-3.5, 3, -2.5, 7}));
  test.Run();
}

TEST(GemmTest, Int32Opset9) {
  OpTester test("Gemm", 9);
  test.Input<int32_t>("A", {2, 3}, {-28, -14, -19, 35, 9, 0});
  test.Input<int32_t>("B", {3, 2}, {46, 39, 17, 28, -21, -25});
  test.Input<int32_t>("C", {2, 2}, {19, 1, 4, 4});
  test.Output<int32_t>("Y", {2, 2}, {-1108, -1008, 1767, 1621});
  test.Run();
}

TEST(GemmTest, Int32Opset13TransposedBroadcastBias) {
  OpTester test("Gemm", 13);
  test.Input<int32_t>("A", {2, 3}, {-33, -48, 20, 9, -42, -2});
  test.Input<int32_t>("B", {2, 2}, {27, 35, 4, -41});
  test.Input<int32_t>("C", {3, 1}, {34, -14, 9})
      .Attr("transA", int64_t{1})
      .Attr("transB", int64_t{1});
  test.Output<int32_t>("Y", {3, 2}, {-542, -467, -2780, 1516, 479, 171});
  test.Run();
}

TEST(GemmTest, Int64Opset11NoBias) {
  OpTester test("Gemm", 11);
  test.Input<int64_t>("A", {2, 3}, {897LL, -678LL, 747LL, 768LL, -874LL, -843LL});
  test.Input<int64_t>("B", {3, 2}, {99LL, 391LL, -756LL, -814LL, -19LL, -841LL});
  test.Output<int64_t>("Y", {2, 2}, {587178LL, 274392LL, 752793LL, 1720687LL});
  test.Run();
}

TEST(GemmTest, Int64Opset13IntegralAlphaBeta) {
  OpTester test("Gemm", 13);
  test.Input<int64_t>("A", {2, 2}, {-42LL, -2LL, 3LL, 30LL});
  test.Input<int64_t>("B", {2, 3}, {34LL, -48LL, 59LL, -18LL, 98LL, -25LL});
  test.Input<int64_t>("C", {3}, {-35LL, -98LL, -66LL}).Attr("alpha", 3.0f).Attr("beta", -2.0f);
  test.Output<int64_t>("Y", {2, 3}, {-4106LL, 5656LL, -7152LL, -1244LL, 8584LL, -1587LL});
  test.Run();
}

TEST(GemmTest, Uint32Opset9) {
  OpTester test("Gemm", 9);
  test.Input<uint32_t>("A", {2, 3}, {65u, 28u, 52u, 82u, 62u, 77u});
  test.Input<uint32_t>("B", {3, 2}, {30u, 61u, 64u, 53u, 87u, 42u});
  test.Input<uint32_t>("C", {2, 2}, {62u, 12u, 22u, 4u});
  test.Output<uint32_t>("Y", {2, 2}, {8328u, 7645u, 13149u, 11526u});
  test.Run();
}

TEST(GemmTest, Uint64Opset13) {
  OpTester test("Gemm", 13);
  test.Input<uint64_t>("A", {2, 3}, {290ULL, 779ULL, 723ULL, 848ULL, 499ULL, 380ULL});
  test.Input<uint64_t>("B", {2, 3}, {817ULL, 684ULL, 666ULL, 145ULL, 544ULL, 111ULL});
  test.Input<uint64_t>("C", {1}, {978ULL}).Attr("transB", int64_t{1});
  test.Output<uint64_t>("Y", {2, 2}, {1252262ULL, 547057ULL, 1288190ULL, 437574ULL});
  test.Run();
}

// A fractional alpha/beta scales in floating point, then truncates like numpy's astype.
TEST(GemmTest, Int32FractionalAlphaTruncates) {
  OpTester test("Gemm", 13);
  test.Input<int32_t>("A", {2, 3}, {7, -8, -5, -3, -8, 4});
  test.Input<int32_t>("B", {3, 2}, {2, 6, 7, 0, -5, -4});
  test.Input<int32_t>("C", {2, 2}, {0, -3, -4, 5}).Attr("alpha", 0.5f).Attr("beta", 1.5f);
  test.Output<int32_t>("Y", {2, 2}, {-8, 26, -47, -9});
  test.Run();
}

TEST(GemmTest, ZeroBetaIgnoresNonFiniteC) {
  // The ONNX reference skips C entirely when beta is 0, so its NaNs must not leak.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpTester test("Gemm", 13);
  test.Input<float>("A", {1, 2}, {1, 2});
  test.Input<float>("B", {2, 2}, {1, 0, 0, 1});
  test.Input<float>("C", {1, 2}, {nan, nan}).Attr("beta", 0.f);
  test.Output<float>("Y", {1, 2}, {1, 2});
  test.Run();
}

TEST(GemmTest, Uint32WrapsModulo2To32) {
  // 4294967295 * 2 + 1 = 2^33 - 1 = 4294967295 (mod 2^32).
  OpTester test("Gemm", 13);
  test.Input<uint32_t>("A", {1, 1}, {4294967295u});
  test.Input<uint32_t>("B", {1, 1}, {2u});
  test.Input<uint32_t>("C", {1, 1}, {1u});
  test.Output<uint32_t>("Y", {1, 1}, {4294967295u});
  test.Run();
}

TEST(GemmTest, LargerTransposedProductMatchesNaiveLoop) {
  const int64_t m = 33, k = 65, n = 40;
  std::vector<float> a(k * m), b(n * k), c(n), y(m * n);
  for (int64_t i = 0; i < k * m; ++i) a[i] = static_cast<float>((i * 7) % 11) - 5.f;
  for (int64_t i = 0; i < n * k; ++i) b[i] = static_cast<float>((i * 5) % 13) - 6.f;
  for (int64_t j = 0; j < n; ++j) c[j] = static_cast<float>(j % 5);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.f;
      for (int64_t p = 0; p < k; ++p) sum += a[p * m + i] * b[j * k + p];
      y[i * n + j] = 2.f * sum + 3.f * c[j];
    }
  }
  OpTester test("Gemm", 13);
  test.Input<float>("A", {k, m}, a);
  test.Input<float>("B", {n, k}, b);
  test.Input<float>("C", {n}, c);
  test.Attr("transA", int64_t{1}).Attr("transB", int64_t{1}).Attr("alpha", 2.f).Attr("beta", 3.f);
  test.Output<float>("Y", {m, n}, y);
  test.Run();
}

TEST(GemmTest, MismatchedInnerDimensionFails) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {2, 2}, {1, 2, 3, 4});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("inner dimensions differ");
}

TEST(GemmTest, NonBroadcastableCFails) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("B", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("C", {2}, {1, 2});
  test.Output<float>("Y", {2, 3}, {0, 0, 0, 0, 0, 0});
  test.ExpectFailure("not unidirectionally broadcastable");
}

TEST(GemmTest, Opset6WithoutBroadcastNeedsFullC) {
  OpTester test("Gemm", 6);
  test.Input<float>("A", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("B", {2, 2}, {1, 0, 0, 1});
  test.Input<float>("C", {2}, {1, 2});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("broadcast=0");
}

TEST(GemmTest, MissingCBeforeOpset11Fails) {
  OpTester test("Gemm", 9);
  test.Input<float>("A", {1, 1}, {1});
  test.Input<float>("B", {1, 1}, {1});
  test.Output<float>("Y", {1, 1}, {1});
  test.ExpectFailure("required input 2");
}

TEST(GemmTest, ThreeDimensionalAFails) {
  OpTester test("Gemm", 13);
  test.Input<float>("A", {1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("B", {2, 2}, {1, 0, 0, 1});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("needs 2-D A and B");
}

// Double Gemm computes alpha * A' * B' + beta * C in double (alpha and beta are float
// attributes, used at their float value): entries 1 + k * 2^-30 are all 1 in float.
TEST(GemmDoublePrecisionTest, ExactToDoublePrecision) {
  constexpr int kM = 2, kK = 3, kN = 3;
  const float alpha = 0.3f;  // not a short binary fraction: the kernel must use float(0.3)
  const float beta = -1.25f;
  std::vector<double> a;  // stored K x M (transA)
  for (int i = 0; i < kK * kM; ++i) a.push_back(NearOne(2 * i - 5) * (i % 2 ? -1 : 1.5));
  std::vector<double> b;  // stored N x K (transB)
  for (int i = 0; i < kN * kK; ++i) b.push_back(NearOne(7 - 3 * i) * (i % 3 ? 0.5 : 1));
  const std::vector<double> c = {NearOne(4), NearOne(-6), NearOne(11)};  // one row, broadcast
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    std::vector<C> y;
    for (int m = 0; m < kM; ++m)
      for (int n = 0; n < kN; ++n) {
        C sum = 0;
        for (int k = 0; k < kK; ++k)
          sum += static_cast<C>(a[k * kM + m]) * static_cast<C>(b[n * kK + k]);
        y.push_back(static_cast<C>(alpha) * sum + static_cast<C>(beta) * static_cast<C>(c[n]));
      }
    return y;
  });
  OpTester test("Gemm", 13);
  test.Input<double>("A", {kK, kM}, a);
  test.Input<double>("B", {kN, kK}, b);
  test.Input<double>("C", {kN}, c);
  test.Attr("transA", int64_t{1}).Attr("transB", int64_t{1});
  test.Attr("alpha", alpha).Attr("beta", beta);
  test.Output<double>("Y", {kM, kN}, expected);
  test.Run();
}

}  // namespace
}  // namespace prism::testing
