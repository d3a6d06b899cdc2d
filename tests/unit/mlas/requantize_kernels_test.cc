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

// IsaKernels::requantize_channels_f32 (single precision, per-channel operands) against the same
// double-precision definition, byte for byte: exact ties (0.5, 0.25), near-ties (fl(1/6) and
// fl(1/10) times multiples of 3 and 5, within a float ulp of a half), the smallest multiplier it
// takes (2^-14) with sums around 2^24 (not exact as floats), negative multipliers, the full int32
// range with a wrapping bias, odd and even zero points, channel counts ragged against 16 and 8.
TEST(RequantizeKernels, ChannelsInSinglePrecisionMatchTheDoubleDefinition) {
  std::mt19937 engine(12);
  std::uniform_int_distribution<int32_t> small(-600, 600);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> near_tie(-300, 300);
  std::uniform_real_distribution<float> log_scale(-14.0f, -0.5f);
  int levels_with_kernel = 0;
  int64_t checked = 0;
  for (const CpuIsa level : Levels()) {
    const auto kernel = KernelsFor(level).requantize_channels_f32;
    if (kernel == nullptr) continue;
    ++levels_with_kernel;
    for (const int64_t channels : {1, 7, 8, 16, 24, 33, 96})
      for (const int64_t pixels : {1, 3})
        for (const bool to_int8 : {false, true})
          for (const bool with_bias : {false, true})
            for (const int32_t zero_point : {to_int8 ? -3 : 7, to_int8 ? 0 : 128, 1}) {
              std::vector<float> multipliers(static_cast<size_t>(channels));
              std::vector<int32_t> bias(multipliers.size());
              for (size_t c = 0; c < multipliers.size(); ++c) {
                const float kinds[] = {0.5f,
                                       0.25f,
                                       1.0f / 6.0f,
                                       1.0f / 10.0f,
                                       0x1p-14f,
                                       -std::exp2(log_scale(engine)),
                                       std::exp2(log_scale(engine))};
                multipliers[c] = kinds[c % 7];
                bias[c] = c % 5 == 4 ? any(engine) : small(engine);
              }
              std::vector<int32_t> sums(static_cast<size_t>(channels * pixels));
              for (size_t i = 0; i < sums.size(); ++i) {
                const size_t c = i % static_cast<size_t>(channels);
                if (c % 7 == 2 || c % 7 == 3)  // multiples of 3 or 5: near-ties
                  sums[i] = near_tie(engine) * (c % 7 == 2 ? 3 : 5);
                else if (c % 7 == 4)  // around 2^24 (either sign), near the clamp of 2^-14
                  sums[i] = (i % 2 ? -1 : 1) * ((1 << 24) + small(engine));
                else
                  sums[i] = i % 6 == 5 ? any(engine) : small(engine);
              }
              std::vector<uint8_t> out(sums.size(), 0xA5);
              kernel(sums.data(), with_bias ? bias.data() : nullptr, multipliers.data(), channels,
                     pixels, zero_point, to_int8, out.data());
              for (size_t i = 0; i < sums.size(); ++i) {
                const size_t c = i % static_cast<size_t>(channels);
                EXPECT_EQ(out[i], Reference(sums[i], with_bias ? bias[c] : 0, multipliers[c],
                                            zero_point, to_int8))
                    << IsaName(level) << " channels " << channels << " i " << i << " sum "
                    << sums[i] << " multiplier " << multipliers[c] << " int8 " << to_int8
                    << " bias " << with_bias << " zero point " << zero_point;
                ++checked;
              }
            }
  }
  if (levels_with_kernel == 0) GTEST_SKIP() << "no level with a requantize_channels_f32 here";
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace prism::mlas
