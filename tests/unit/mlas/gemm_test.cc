// Direct tests of the internal GEMM helper: leading dimensions wider than the matrices,
// every transpose combination, beta handling and the integer path.
#include "mlas/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace prism::mlas {
namespace {

// Reference: C = alpha * op(A) * op(B) + beta * C with explicit strides, in double.
template <typename T>
std::vector<double> Reference(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                              double alpha, const std::vector<T>& a, int64_t lda,
                              const std::vector<T>& b, int64_t ldb, double beta,
                              const std::vector<T>& c, int64_t ldc) {
  std::vector<double> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = static_cast<double>(trans_a ? a[p * lda + i] : a[i * lda + p]);
        const double bv = static_cast<double>(trans_b ? b[j * ldb + p] : b[p * ldb + j]);
        sum += av * bv;
      }
      out[i * n + j] = alpha * sum + (beta != 0 ? beta * static_cast<double>(c[i * ldc + j]) : 0);
    }
  }
  return out;
}

template <typename T>
void CheckAllTransposes(double alpha, double beta) {
  const int64_t m = 5, n = 7, k = 6;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      // Stored shapes with 3 extra columns of padding each (lda > cols).
      const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
      const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
      const int64_t lda = a_cols + 3, ldb = b_cols + 3, ldc = n + 3;
      std::vector<T> a(a_rows * lda), b(b_rows * ldb), c(m * ldc);
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>((i * 7) % 9);
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>((i * 5) % 7);
      for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<T>(i % 4);
      const std::vector<double> expected =
          Reference(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      const std::vector<T> c_before = c;
      Gemm<T>(ta, tb, m, n, k, static_cast<T>(alpha), a.data(), lda, b.data(), ldb,
              static_cast<T>(beta), c.data(), ldc);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          if (j < n) {
            EXPECT_EQ(static_cast<double>(c[i * ldc + j]), expected[i * n + j])
                << "transA=" << ta << " transB=" << tb << " at " << i << "," << j;
          } else {
            EXPECT_EQ(c[i * ldc + j], c_before[i * ldc + j]) << "padding was written";
          }
        }
      }
    }
  }
}

TEST(MlasGemmTest, FloatAllTransposesWithLeadingDims) {
  CheckAllTransposes<float>(2, 0.5);
}
TEST(MlasGemmTest, DoubleAllTransposesWithLeadingDims) {
  CheckAllTransposes<double>(1, 3);
}
TEST(MlasGemmTest, Int32AllTransposesWithLeadingDims) {
  CheckAllTransposes<int32_t>(3, 2);
}
TEST(MlasGemmTest, Int64AllTransposesWithLeadingDims) {
  CheckAllTransposes<int64_t>(1, 0);
}
TEST(MlasGemmTest, Uint32AllTransposesWithLeadingDims) {
  CheckAllTransposes<uint32_t>(1, 1);
}
TEST(MlasGemmTest, Uint64AllTransposesWithLeadingDims) {
  CheckAllTransposes<uint64_t>(2, 0);
}

TEST(MlasGemmTest, ZeroBetaNeverReadsC) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1, 2}, b = {3, 4}, c = {nan};
  Gemm<float>(false, false, 1, 1, 2, 1.f, a.data(), 2, b.data(), 1, 0.f, c.data(), 1);
  EXPECT_EQ(c[0], 11.f);
}

TEST(MlasGemmTest, ZeroDepthScalesC) {
  std::vector<float> c = {1, 2, 3, 4};
  Gemm<float>(false, false, 2, 2, 0, 1.f, nullptr, 1, nullptr, 2, 2.f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{2, 4, 6, 8}));
  std::vector<int64_t> ci = {5, 6};
  Gemm<int64_t>(false, false, 1, 2, 0, 1, nullptr, 1, nullptr, 2, 0, ci.data(), 2);
  EXPECT_EQ(ci, (std::vector<int64_t>{0, 0}));
}

TEST(MlasGemmTest, SignedIntegerOverflowWraps) {
  std::vector<int32_t> a = {std::numeric_limits<int32_t>::max(), 1}, b = {2, 2}, c = {0};
  Gemm<int32_t>(false, false, 1, 1, 2, 1, a.data(), 2, b.data(), 1, 0, c.data(), 1);
  EXPECT_EQ(c[0], 0);  // (2^31 - 1) * 2 + 2 = 2^32 wraps to 0
}

}  // namespace
}  // namespace prism::mlas
