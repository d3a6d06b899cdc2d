// The GEMM with a prepacked B (mlas/packed_gemm.h) against a double-precision reference: every
// edge of the 6-row micro-tile and the 16-wide panel, both transposes, alpha and beta, leading
// dimensions wider than the matrices, a thread pool, and each instruction-set level's kernel.
#include "mlas/packed_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"

namespace prism::mlas {
namespace {

struct Problem {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
};

// Runs `multiply` (which must compute C = alpha * op(A) * B + beta * C) on random data and checks
// every element of C against the reference, and that the padding columns of C are untouched.
template <typename Multiply>
void Check(const Problem& pb, Multiply multiply) {
  SCOPED_TRACE(::testing::Message()
               << "m=" << pb.m << " n=" << pb.n << " k=" << pb.k << " transA=" << pb.trans_a
               << " transB=" << pb.trans_b << " alpha=" << pb.alpha << " beta=" << pb.beta);
  std::mt19937 generator(static_cast<uint32_t>(pb.m * 1000003 + pb.n * 1009 + pb.k));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const int64_t lda = (pb.trans_a ? pb.m : pb.k) + 2, ldb = (pb.trans_b ? pb.k : pb.n) + 3;
  const int64_t ldc = pb.n + 5;
  std::vector<float> a((pb.trans_a ? pb.k : pb.m) * lda), b((pb.trans_b ? pb.n : pb.k) * ldb),
      c(pb.m * ldc);
  for (float& x : a) x = value(generator);
  for (float& x : b) x = value(generator);
  for (float& x : c) x = value(generator);
  const std::vector<float> c_before = c;
  const PackedMatrixB packed = PackedMatrixB::Pack(pb.trans_b, pb.k, pb.n, b.data(), ldb);
  ASSERT_EQ(packed.K(), pb.k);
  ASSERT_EQ(packed.N(), pb.n);
  multiply(a.data(), lda, packed, c.data(), ldc);
  for (int64_t i = 0; i < pb.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      if (j >= pb.n) {
        ASSERT_EQ(c[i * ldc + j], c_before[i * ldc + j]) << "padding column " << j << " written";
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < pb.k; ++p) {
        const double av = pb.trans_a ? a[p * lda + i] : a[i * lda + p];
        const double bv = pb.trans_b ? b[j * ldb + p] : b[p * ldb + j];
        sum += av * bv;
        magnitude += std::fabs(av * bv);
      }
      const double expected =
          pb.alpha * sum +
          (pb.beta != 0 ? pb.beta * static_cast<double>(c_before[i * ldc + j]) : 0);
      const double tolerance = 1e-6 * (pb.k + 1) * (std::fabs(pb.alpha) * magnitude + 1);
      ASSERT_NEAR(c[i * ldc + j], expected, tolerance) << "at " << i << "," << j;
    }
  }
}

std::vector<Problem> Problems() {
  std::vector<Problem> problems;
  for (int64_t m : {1, 5, 6, 7, 13, 97})
    for (int64_t n : {1, 15, 16, 17, 40})
      for (int64_t k : {1, 3, 64, 130})
        problems.push_back({m % 2 == 0, n % 2 == 1, m, n, k, 1.0f, 0.0f});
  // Several k blocks of 256 and groups of 4+ panels (A copied tile by tile), partial tiles.
  problems.push_back({false, false, 50, 100, 600, 0.5f, 1.5f});
  problems.push_back({true, false, 13, 260, 300, 1.0f, 0.0f});
  problems.push_back({false, true, 100, 300, 257, 1.0f, 1.0f});
  problems.push_back({false, false, 8, 20, 33, 0.5f, 1.5f});
  problems.push_back({true, true, 8, 20, 33, -2.0f, 1.0f});
  problems.push_back({false, true, 3, 3, 0, 1.0f, 0.5f});   // k = 0: C = beta * C
  problems.push_back({false, false, 3, 3, 0, 1.0f, 0.0f});  // k = 0, beta 0: zeros
  return problems;
}

TEST(PackedGemmTest, MatchesTheReferenceOnEveryTileEdge) {
  for (const Problem& pb : Problems())
    Check(pb, [&](const float* a, int64_t lda, const PackedMatrixB& b, float* c, int64_t ldc) {
      GemmPackedB(pb.trans_a, pb.m, a, lda, pb.alpha, b, pb.beta, c, ldc);
    });
}

TEST(PackedGemmTest, SplitsOverAThreadPool) {
  ThreadPool pool(3);
  for (const Problem& pb : {Problem{false, false, 300, 70, 200, 1.0f, 0.0f},
                            Problem{true, true, 97, 130, 64, 0.5f, 2.0f}})
    Check(pb, [&](const float* a, int64_t lda, const PackedMatrixB& b, float* c, int64_t ldc) {
      GemmPackedB(pb.trans_a, pb.m, a, lda, pb.alpha, b, pb.beta, c, ldc, &pool);
    });
}

// Each level's SGEMM on the packed panels directly (the dispatched one is tested above; the
// forced-ISA passes of run_extended.sh run that with each level too).
TEST(PackedGemmTest, EveryInstructionSetLevelComputesThePanels) {
  ThreadPool pool(2);
  for (CpuIsa level : {CpuIsa::kBaseline, CpuIsa::kAvx2Fma, CpuIsa::kAvx512}) {
    if (!IsaUsable(level)) {
      std::cout << "[ SKIPPED  ] level " << IsaName(level) << ": not on this CPU or build\n";
      continue;
    }
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& kernels = KernelsFor(level);
    for (const Problem& pb : Problems()) {
      Check(pb, [&](const float* a, int64_t lda, const PackedMatrixB& b, float* c, int64_t ldc) {
        SgemmPackedB(kernels, pb.trans_a, pb.m, a, lda, pb.alpha, b, pb.beta, c, ldc, nullptr);
      });
      Check(pb, [&](const float* a, int64_t lda, const PackedMatrixB& b, float* c, int64_t ldc) {
        SgemmPackedB(kernels, pb.trans_a, pb.m, a, lda, pb.alpha, b, pb.beta, c, ldc, &pool);
      });
    }
  }
}

}  // namespace
}  // namespace prism::mlas
