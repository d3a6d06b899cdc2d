// IsaKernels::requantize_row_s32 (the int8 convolution's requantization) of every level that has
// one against the scalar definition, in double: random sums (the full int32 range, so that the
// bias wraps), exact ties both ways (multipliers of 0.5 and 0.25), saturation at both ends, int8
// and uint8, with and without bias, per element and broadcast, counts ragged against the vectors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

uint8_t Reference(int32_t sum, int32_t bias, double multiplier, int32_t zero_point, bool to_int8) {
  const auto total = static_cast<int32_t>(static_cast<uint32_t>(sum) + static_cast<uint32_t>(bias));
  const double low = to_int8 ? -128.0 : 0.0, high = to_int8 ? 127.0 : 255.0;
  const double value = std::nearbyint(static_cast<double>(total) * multiplier) + zero_point;
  const double clamped = value < low ? low : (value > high ? high : value);
  return static_cast<uint8_t>(static_cast<int32_t>(clamped));
}

TEST(RequantizeKernels, EveryLevelMatchesTheScalarDefinition) {
  std::mt19937 engine(11);
  std::uniform_int_distribution<int32_t> small(-600, 600);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_real_distribution<float> scale(1e-4f, 0.7f);
  int levels_with_kernel = 0;
  for (const CpuIsa level : Levels()) {
    const auto kernel = KernelsFor(level).requantize_row_s32;
    if (kernel == nullptr) continue;  // baseline: its caller's SSE2 loop
    ++levels_with_kernel;
    for (const int64_t count : {1, 7, 8, 16, 33, 100}) {
      for (const bool to_int8 : {false, true}) {
        for (const bool with_bias : {false, true}) {
          for (const bool broadcast : {false, true}) {
            std::vector<int32_t> sums(static_cast<size_t>(count)), bias(sums.size());
            std::vector<double> multipliers(sums.size());
            for (size_t i = 0; i < sums.size(); ++i) {
              sums[i] = i % 5 == 4 ? any(engine) : small(engine);
              bias[i] = i % 7 == 6 ? any(engine) : small(engine);
              // Ties: an even or odd sum times 0.5, sums times 0.25.
              multipliers[i] = i % 3 == 0 ? 0.5 : (i % 3 == 1 ? 0.25 : scale(engine));
            }
            const int32_t zero_point = to_int8 ? -3 : 7;
            std::vector<uint8_t> out(sums.size());
            kernel(sums.data(), with_bias ? bias.data() : nullptr, multipliers.data(), broadcast,
                   count, zero_point, to_int8, out.data());
            for (size_t i = 0; i < sums.size(); ++i) {
              const size_t p = broadcast ? 0 : i;
              EXPECT_EQ(out[i], Reference(sums[i], with_bias ? bias[p] : 0, multipliers[p],
                                          zero_point, to_int8))
                  << IsaName(level) << " count " << count << " i " << i << " int8 " << to_int8
                  << " bias " << with_bias << " broadcast " << broadcast;
            }
          }
        }
      }
    }
  }
  if (levels_with_kernel == 0) GTEST_SKIP() << "no level with a requantize_row_s32 here";
}

}  // namespace
}  // namespace prism::mlas
