// The erf and GELU kernels of every instruction-set level (8 lanes, 16 on AVX-512) against
// std::erf/std::erfc in double: a dense sweep over [-10, 10], the branch boundaries (|z| = 1 and
// 6), special values (signed zeros, infinities, NaN, denormals), every count from 0 to 39 (two
// 16-lane vectors and the padded tail) and GELU's bias over counts past its blocks of 8 vectors.
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

std::vector<float> Inputs() {
  std::vector<float> x;
  for (int i = -200000; i <= 200000; ++i) x.push_back(static_cast<float>(i) * 5e-5f);
  for (float edge : {1.0f, 6.0f, 1.41421356f, 8.48528137f})
    for (float v : {edge, std::nextafter(edge, 0.0f), std::nextafter(edge, 10.0f)}) {
      x.push_back(v);
      x.push_back(-v);
    }
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 3e38f, -3e38f})
    x.push_back(v);
  return x;
}

double GeluReference(double x) {
  return x >= 0 ? 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)))
                : 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

TEST(ErfKernelsTest, ErfWithinThreeTenthsOfAMillionthEverywhere) {
  const std::vector<float> x = Inputs();
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    std::vector<float> y(x.size());
    KernelsFor(level).erf_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const double expected = std::erf(static_cast<double>(x[i]));
      const double error = std::fabs(y[i] - expected);
      // Relative where erf is small (|x| <= 1 and the odd polynomial; a denormal result keeps
      // less), absolute where it is within 0.16 of +-1.
      const double allowed =
          std::fabs(x[i]) <= 1.0f ? std::max(2.5e-7 * std::fabs(expected), 1.4e-45) : 3e-7;
      ASSERT_LE(error, allowed) << "erf(" << x[i] << ") = " << y[i] << ", expected " << expected;
      ASSERT_EQ(std::signbit(y[i]), std::signbit(x[i])) << x[i];
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float special[2] = {nan, -nan};
    KernelsFor(level).erf_f32(special, special, 2);
    EXPECT_TRUE(std::isnan(special[0]) && std::isnan(special[1]));
  }
}

TEST(ErfKernelsTest, GeluKeepsRelativePrecisionInTheNegativeTail) {
  const std::vector<float> x = Inputs();
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    std::vector<float> y(x.size());
    KernelsFor(level).gelu_erf_f32(x.data(), nullptr, y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isinf(x[i])) {  // inf, and -inf * 0 = NaN as the formula and onnxruntime give
        if (x[i] > 0)
          EXPECT_EQ(y[i], x[i]);
        else
          EXPECT_TRUE(std::isnan(y[i]));
        continue;
      }
      const double expected = GeluReference(static_cast<double>(x[i]));
      const double error = std::fabs(y[i] - expected);
      // 6e-7 relative (two roundings of the product on top of erf/erfc's error), except where the
      // exact value is below float's normal range or the kernel's erfc cut-off (z > 6).
      const double allowed =
          std::max(6e-7 * std::fabs(expected), x[i] < -8.48f ? 1e-16 * std::fabs(x[i]) : 1e-38);
      ASSERT_LE(error, allowed) << "gelu(" << x[i] << ") = " << y[i] << ", expected " << expected;
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float special[1] = {nan};
    KernelsFor(level).gelu_erf_f32(special, nullptr, special, 1);
    EXPECT_TRUE(std::isnan(special[0]));
  }
}

TEST(ErfKernelsTest, EveryCountIncludingThePaddedTail) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (int64_t count = 0; count < 40; ++count) {
      std::vector<float> x(static_cast<size_t>(count) + 1, 42.0f), y(x.size(), -7.0f);
      for (int64_t i = 0; i < count; ++i)
        x[static_cast<size_t>(i)] = 0.1f * static_cast<float>(i) - 1.0f;
      KernelsFor(level).erf_f32(x.data(), y.data(), count);
      for (int64_t i = 0; i < count; ++i)
        EXPECT_NEAR(y[static_cast<size_t>(i)], std::erf(x[static_cast<size_t>(i)]), 3e-7) << count;
      EXPECT_EQ(y[static_cast<size_t>(count)], -7.0f) << "nothing written past count " << count;
      // In place.
      KernelsFor(level).gelu_erf_f32(x.data(), nullptr, x.data(), count);
      for (int64_t i = 0; i < count; ++i) {
        const double v = 0.1 * static_cast<double>(i) - 1.0;
        EXPECT_NEAR(x[static_cast<size_t>(i)], GeluReference(v), 1e-6) << count;
      }
    }
  }
}

// gelu_erf_f32 with a bias: gelu(float(x + bias)) at counts around its blocks of 8 vectors (64
// and 128 floats) and their padded tail, out of place and in place, nothing written past count.
TEST(ErfKernelsTest, GeluAddsTheBiasFirstAtEveryCount) {
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> value(-9.0f, 9.0f);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (const int64_t count : {1, 7, 8, 9, 63, 64, 65, 72, 127, 128, 129, 136, 200, 257, 385}) {
      const auto size = static_cast<size_t>(count);
      std::vector<float> x(size), bias(size), y(size + 1, -7.0f);
      for (size_t i = 0; i < size; ++i) {
        x[i] = value(generator);
        bias[i] = 0.25f * value(generator);
      }
      const auto check = [&](const std::vector<float>& got, const char* form) {
        for (size_t i = 0; i < size; ++i) {
          const double expected = GeluReference(static_cast<double>(x[i] + bias[i]));
          ASSERT_LE(std::fabs(got[i] - expected), std::max(6e-7 * std::fabs(expected), 1e-16))
              << form << " count " << count << " at " << i << ": gelu(" << x[i] << " + " << bias[i]
              << ") = " << got[i] << ", expected " << expected;
        }
      };
      KernelsFor(level).gelu_erf_f32(x.data(), bias.data(), y.data(), count);
      check(y, "out of place");
      EXPECT_EQ(y[size], -7.0f) << "nothing written past count " << count;
      std::vector<float> in_place = x;
      KernelsFor(level).gelu_erf_f32(in_place.data(), bias.data(), in_place.data(), count);
      check(in_place, "in place");
    }
  }
}

}  // namespace
}  // namespace prism::mlas
