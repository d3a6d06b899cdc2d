// Run-time ISA choice: the PRISM_CPU_ISA override, and every level's kernels against a plain
// reference (the AVX2 and AVX-512 levels are skipped, visibly, on CPUs without them).
#include "mlas/cpu_isa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"

namespace prism::mlas {
namespace {

TEST(CpuIsa, EnvironmentOverride) {
  const CpuFeatures with{true, false};
  const CpuFeatures without{false, false};
  std::string warning;
  EXPECT_EQ(ResolveIsa(nullptr, with, true, true, &warning), CpuIsa::kAvx2Fma);
  EXPECT_EQ(ResolveIsa("", without, true, true, &warning), CpuIsa::kBaseline);
  EXPECT_EQ(ResolveIsa(nullptr, with, false, false, &warning), CpuIsa::kBaseline);  // not built
  EXPECT_EQ(warning, "");
  EXPECT_EQ(ResolveIsa("baseline", with, true, true, &warning), CpuIsa::kBaseline);
  EXPECT_EQ(ResolveIsa("AVX2", with, true, true, &warning), CpuIsa::kAvx2Fma);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(ResolveIsa("avx2", without, true, true, &warning), CpuIsa::kBaseline);
  EXPECT_NE(warning.find("this CPU lacks AVX2+FMA"), std::string::npos) << warning;
  warning.clear();
  EXPECT_EQ(ResolveIsa("avx2", with, false, false, &warning), CpuIsa::kBaseline);
  EXPECT_NE(warning.find("this build has no AVX2 kernels"), std::string::npos) << warning;
  warning.clear();
  EXPECT_EQ(ResolveIsa("sse9", with, true, true, &warning), CpuIsa::kAvx2Fma);
  EXPECT_NE(warning.find("PRISM_CPU_ISA=sse9 is not a known level"), std::string::npos) << warning;
}

TEST(CpuIsa, Avx512OverrideAndFallback) {
  const CpuFeatures avx2_only{true, false};
  const CpuFeatures avx512{true, true};
  std::string warning;
  // The best level by default; any lower one on request.
  EXPECT_EQ(ResolveIsa(nullptr, avx512, true, true, &warning), CpuIsa::kAvx512);
  EXPECT_EQ(ResolveIsa("AVX512", avx512, true, true, &warning), CpuIsa::kAvx512);
  EXPECT_EQ(ResolveIsa("avx2", avx512, true, true, &warning), CpuIsa::kAvx2Fma);
  EXPECT_EQ(ResolveIsa("baseline", avx512, true, true, &warning), CpuIsa::kBaseline);
  EXPECT_EQ(warning, "");
  // Not built: AVX2 is the best.
  EXPECT_EQ(ResolveIsa(nullptr, avx512, true, false, &warning), CpuIsa::kAvx2Fma);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(ResolveIsa("avx512", avx512, true, false, &warning), CpuIsa::kAvx2Fma);
  EXPECT_NE(warning.find("this build has no AVX-512 kernels; using AVX2+FMA"), std::string::npos)
      << warning;
  warning.clear();
  EXPECT_EQ(ResolveIsa("avx512", avx2_only, true, true, &warning), CpuIsa::kAvx2Fma);
  EXPECT_NE(warning.find("this CPU lacks AVX-512"), std::string::npos) << warning;
  warning.clear();
  EXPECT_EQ(ResolveIsa("sse9", avx512, true, true, &warning), CpuIsa::kAvx512);
  EXPECT_NE(warning.find("(baseline, avx2, avx512)"), std::string::npos) << warning;
}

TEST(CpuIsa, ActiveLevelFollowsTheEnvironment) {
  std::string warning;
  const CpuIsa expected = ResolveIsa(std::getenv("PRISM_CPU_ISA"), DetectCpuFeatures(),
                                     BuiltWithAvx2(), BuiltWithAvx512(), &warning);
  EXPECT_EQ(ActiveIsa(), expected);
  EXPECT_TRUE(IsaUsable(ActiveIsa()));
  std::cout << "active ISA: " << IsaName(ActiveIsa()) << "\n";
}

template <typename T>
void CheckLevel(const IsaKernels& kernels) {
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int64_t m = 37, n = 53, k = 71;
  std::vector<T> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (T& v : a) v = static_cast<T>(uniform(random));
  for (T& v : b) v = static_cast<T>(uniform(random));
  for (int trans = 0; trans < 4; ++trans) {
    const bool trans_a = (trans & 1) != 0, trans_b = (trans & 2) != 0;
    const int64_t lda = trans_a ? m : k, ldb = trans_b ? k : n;
    std::vector<T> c(static_cast<size_t>(m * n), T(1));
    auto gemm = [&] {
      if constexpr (std::is_same_v<T, float>)
        Sgemm(kernels, trans_a, trans_b, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, 1.0f,
              c.data(), n, nullptr);
      else
        kernels.gemm_accumulate_f64(trans_a, trans_b, m, n, k, 0.5, a.data(), lda, b.data(), ldb,
                                    c.data(), n);
    };
    gemm();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += double(trans_a ? a[p * lda + i] : a[i * lda + p]) *
                 double(trans_b ? b[j * ldb + p] : b[p * ldb + j]);
        ASSERT_NEAR(c[i * n + j], 1.0 + 0.5 * sum, 1e-4) << "trans " << trans_a << trans_b;
      }
  }
  std::vector<T> src(300), dst(100, T(2));
  for (T& v : src) v = static_cast<T>(uniform(random));
  if constexpr (std::is_same_v<T, float>)
    kernels.scaled_add_f32(dst.data(), src.data(), 100, 3, 1.5f);
  else
    kernels.scaled_add_f64(dst.data(), src.data(), 100, 3, 1.5);
  for (size_t i = 0; i < 100; ++i) ASSERT_NEAR(dst[i], 2.0 + 1.5 * double(src[3 * i]), 1e-6);
}

TEST(CpuIsa, BaselineKernelsAreRight) {
  CheckLevel<float>(KernelsFor(CpuIsa::kBaseline));
  CheckLevel<double>(KernelsFor(CpuIsa::kBaseline));
}

TEST(CpuIsa, Avx2KernelsAreRight) {
  if (!BuiltWithAvx2()) GTEST_SKIP() << "this build has no AVX2 kernels";
  if (!DetectCpuFeatures().avx2_fma) GTEST_SKIP() << "this CPU lacks AVX2+FMA";
  // A distinct table: the dispatch really has two levels.
  EXPECT_NE(&KernelsFor(CpuIsa::kAvx2Fma), &KernelsFor(CpuIsa::kBaseline));
  CheckLevel<float>(KernelsFor(CpuIsa::kAvx2Fma));
  CheckLevel<double>(KernelsFor(CpuIsa::kAvx2Fma));
}

TEST(CpuIsa, Avx512KernelsAreRight) {
  if (!BuiltWithAvx512()) GTEST_SKIP() << "this build has no AVX-512 kernels";
  if (!DetectCpuFeatures().avx512) GTEST_SKIP() << "this CPU lacks AVX-512 F/BW/DQ/VL";
  EXPECT_NE(&KernelsFor(CpuIsa::kAvx512), &KernelsFor(CpuIsa::kAvx2Fma));
  CheckLevel<float>(KernelsFor(CpuIsa::kAvx512));
  CheckLevel<double>(KernelsFor(CpuIsa::kAvx512));
}

}  // namespace
}  // namespace prism::mlas
