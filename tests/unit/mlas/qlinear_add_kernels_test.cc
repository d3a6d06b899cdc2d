// IsaKernels::qlinear_add_u8 / qlinear_add_s8 (QLinearAdd's same-shape row) of every level that
// has them against the scalar steps in float: every product and the sum rounded to float (a
// fused multiply-add would differ), exact ties (ratios 0.5 and 0.25 with odd and even
// differences), saturation at both ends, infinite and NaN ratios (NaN gives the type's lowest
// value), counts ragged against the vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

template <typename T>
T Reference(T a, T b, int32_t a_zero, int32_t b_zero, float ratio_a, float ratio_b,
            int32_t c_zero) {
  const volatile float pa = static_cast<float>(static_cast<int32_t>(a) - a_zero) * ratio_a;
  const volatile float pb = static_cast<float>(static_cast<int32_t>(b) - b_zero) * ratio_b;
  float value = pa + pb;
  value += static_cast<float>(c_zero);
  value = std::fmin(std::fmax(value, static_cast<float>(std::numeric_limits<T>::min())),
                    static_cast<float>(std::numeric_limits<T>::max()));
  return static_cast<T>(std::nearbyint(value));
}

template <typename T, typename Kernel>
void Check(Kernel kernel, const char* level) {
  std::mt19937 engine(17);
  std::uniform_int_distribution<int> values(std::numeric_limits<T>::min(),
                                            std::numeric_limits<T>::max());
  std::uniform_real_distribution<float> ratios(0.01f, 3.0f);
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  for (const int64_t count : {1, 5, 15, 16, 31, 32, 33, 64, 100, 129}) {
    for (int trial = 0; trial < 8; ++trial) {
      // Ties in the first trials (0.5 and 0.25 times integers), random ratios after; last an
      // infinite ratio (0 * inf is NaN: the type's lowest value) and a NaN one.
      float ratio_a = trial == 0 ? 0.5f : (trial == 1 ? 0.25f : ratios(engine));
      float ratio_b = trial == 0 ? 0.5f : (trial == 1 ? 0.75f : ratios(engine));
      if (trial == 6) ratio_a = kInfinity;
      if (trial == 7) ratio_b = kNaN;
      const int32_t a_zero = values(engine), b_zero = values(engine), c_zero = values(engine);
      std::vector<T> a(static_cast<size_t>(count)), b(a.size()), c(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<T>(values(engine));
        b[i] = static_cast<T>(values(engine));
      }
      kernel(a.data(), b.data(), c.data(), count, a_zero, b_zero, ratio_a, ratio_b, c_zero);
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(static_cast<int>(c[i]), static_cast<int>(Reference<T>(a[i], b[i], a_zero, b_zero,
                                                                        ratio_a, ratio_b, c_zero)))
            << level << " count " << count << " trial " << trial << " i " << i;
    }
  }
}

TEST(QLinearAddKernels, EveryLevelMatchesTheFloatSteps) {
  int levels_with_kernel = 0;
  for (const CpuIsa level : Levels()) {
    const IsaKernels& kernels = KernelsFor(level);
    if (kernels.qlinear_add_u8 == nullptr) continue;  // baseline: the SSE2 loop of its caller
    ++levels_with_kernel;
    Check<uint8_t>(kernels.qlinear_add_u8, IsaName(level));
    Check<int8_t>(kernels.qlinear_add_s8, IsaName(level));
  }
  if (levels_with_kernel == 0) GTEST_SKIP() << "no level with a qlinear_add row here";
}

}  // namespace
}  // namespace prism::mlas
