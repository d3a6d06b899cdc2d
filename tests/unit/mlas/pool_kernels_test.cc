// The pooling row kernels of every instruction-set level against a scalar reference: random
// counts (ragged against the eight- and thirty-two-output groups), strides 1 to 3, dilations,
// window sizes, 0 to 3 window rows, NaN and infinities among the values. Each row is a buffer of
// exactly the length the kernel may read, so a read past it shows up in the sanitizer builds.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

float Reference(bool max, const std::vector<std::vector<float>>& rows, int64_t i, int64_t taps,
                int64_t dilation, int64_t stride) {
  float acc = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  bool nan = false;
  for (const std::vector<float>& row : rows)
    for (int64_t t = 0; t < taps; ++t) {
      const float v = row[static_cast<size_t>(i * stride + t * dilation)];
      nan = nan || std::isnan(v);
      acc = max ? (v > acc ? v : acc) : acc + v;
    }
  return max && nan ? std::numeric_limits<float>::quiet_NaN() : acc;
}

TEST(PoolKernelsTest, RowsMatchTheScalarReferenceOnEveryLevel) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  std::uniform_int_distribution<int> percent(0, 99);
  int64_t cases = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int64_t count = 1 + trial % 80;
    const int64_t stride = 1 + (trial / 80) % 3;
    const int64_t dilation = 1 + (trial / 7) % 2;
    const int64_t taps = 1 + (trial / 3) % 4;
    const int64_t row_count = (trial / 11) % 4;
    const bool special = trial % 5 == 0;
    const size_t length = static_cast<size_t>((count - 1) * stride + (taps - 1) * dilation + 1);
    std::vector<std::vector<float>> rows(static_cast<size_t>(row_count));
    for (std::vector<float>& row : rows) {
      row.resize(length);
      for (float& v : row) {
        v = value(rng);
        const int p = percent(rng);
        if (special && p < 3) v = std::numeric_limits<float>::quiet_NaN();
        if (special && p >= 3 && p < 6) v = -std::numeric_limits<float>::infinity();
        if (special && p == 6) v = std::numeric_limits<float>::infinity();
      }
    }
    std::vector<const float*> starts;
    for (const std::vector<float>& row : rows) starts.push_back(row.data());
    for (CpuIsa level : Levels()) {
      for (bool max : {true, false}) {
        SCOPED_TRACE(testing::Message() << IsaName(level) << (max ? " max" : " sum") << " count "
                                        << count << " stride " << stride << " dilation " << dilation
                                        << " taps " << taps << " rows " << row_count);
        // Sixteen guard values after the outputs: nothing may be written there.
        std::vector<float> out(static_cast<size_t>(count + 16), 12345.0f);
        const auto kernel =
            max ? KernelsFor(level).pool_max_row_f32 : KernelsFor(level).pool_sum_row_f32;
        kernel(out.data(), count, starts.data(), row_count, taps, dilation, stride);
        for (int64_t i = 0; i < count; ++i) {
          const float expected = Reference(max, rows, i, taps, dilation, stride);
          const float got = out[static_cast<size_t>(i)];
          if (std::isnan(expected)) {
            ASSERT_TRUE(std::isnan(got)) << "output " << i << " = " << got << ", expected NaN";
          } else {
            // The same additions in the same order: equal, not merely close.
            ASSERT_EQ(got, expected) << "output " << i;
          }
        }
        for (int64_t i = count; i < count + 16; ++i)
          ASSERT_EQ(out[static_cast<size_t>(i)], 12345.0f) << "written past the row at " << i;
        ++cases;
      }
    }
  }
  EXPECT_GE(cases, 1200);
}

}  // namespace
}  // namespace prism::mlas
