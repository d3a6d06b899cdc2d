// The exp, log, tanh, sigmoid, GELU-tanh, QuickGelu and softmax-step (maximum, exp-sum, scale)
// kernels of every
// instruction-set level (8 lanes, 16 on AVX-512) against the double-precision library functions:
// dense sweeps over each function's interesting range, the branch and range edges (denormal
// results, overflow, the small-argument polynomials' cut-offs), special values, and every count
// from 0 to 39 (two 16-lane vectors and the padded tail, nothing written past count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

using MapKernel = void (*)(const float*, float*, int64_t);

std::vector<float> Sweep(float lo, float hi, int steps) {
  std::vector<float> x;
  for (int i = 0; i <= steps; ++i)
    x.push_back(lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(steps));
  return x;
}

void AddAround(std::vector<float>& x, std::initializer_list<float> edges) {
  for (float edge : edges)
    for (float v : {edge, std::nextafter(edge, -kInf), std::nextafter(edge, kInf)}) {
      x.push_back(v);
      x.push_back(-v);
    }
}

// Runs kernel over x and checks each result against reference within
// max(relative * |expected|, absolute), a result the reference gives as infinite exactly.
void ExpectWithin(MapKernel kernel, const std::vector<float>& x,
                  const std::function<double(double)>& reference, double relative, double absolute,
                  const char* name) {
  std::vector<float> y(x.size());
  kernel(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = reference(static_cast<double>(x[i]));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(y[i])) << name << "(" << x[i] << ") = " << y[i] << ", expected NaN";
      continue;
    }
    // The float result of the exact value (the reference rounded), for the ends of the range.
    const auto rounded = static_cast<float>(expected);
    if (std::isinf(rounded)) {
      ASSERT_EQ(y[i], rounded) << name << "(" << x[i] << ")";
      continue;
    }
    const double error = std::fabs(static_cast<double>(y[i]) - expected);
    ASSERT_LE(error, std::max(relative * std::fabs(expected), absolute))
        << name << "(" << x[i] << ") = " << y[i] << ", expected " << expected;
  }
}

TEST(TranscendentalKernelsTest, ExpWithinTwoUlpAcrossTheFloatRange) {
  std::vector<float> x = Sweep(-110.0f, 90.0f, 400000);
  AddAround(x, {0.0f, 87.3365f, 88.3762f, 88.7228f, 103.279f, 103.972f, 104.0f, 0.34657f});
  for (float v : {kInf, -kInf, 1e-30f, 1e-40f, 3e38f, -3e38f, 200.0f, -200.0f}) x.push_back(v);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    // Denormal results keep fewer bits: an absolute error of half their spacing.
    ExpectWithin(
        KernelsFor(level).exp_f32, x, [](double v) { return std::exp(v); }, 2.4e-7, 1.5e-45, "exp");
  }
}

TEST(TranscendentalKernelsTest, ExpOfTheExtremesIsExactlyZeroOneAndInfinity) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    float v[] = {-kInf, -120.0f, 0.0f, -0.0f, 89.0f, kInf, kNan};
    KernelsFor(level).exp_f32(v, v, 7);
    EXPECT_EQ(v[0], 0.0f);
    EXPECT_EQ(v[1], 0.0f);
    EXPECT_EQ(v[2], 1.0f);
    EXPECT_EQ(v[3], 1.0f);
    EXPECT_EQ(v[4], kInf);
    EXPECT_EQ(v[5], kInf);
    EXPECT_TRUE(std::isnan(v[6]));
  }
}

TEST(TranscendentalKernelsTest, LogWithinTwoUlpIncludingDenormals) {
  std::vector<float> x = Sweep(1e-6f, 4.0f, 200000);
  for (double v = 1.4e-45; v < 3e38; v *= 1.37) x.push_back(static_cast<float>(v));
  AddAround(x, {1.0f, 0.70710678f, 1.41421356f, 2.0f, 0.5f, std::numeric_limits<float>::min(),
                std::numeric_limits<float>::max()});
  for (float v :
       {0.0f, -0.0f, kInf, -kInf, -1.0f, 1e-40f, std::numeric_limits<float>::denorm_min()})
    x.push_back(v);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    ExpectWithin(
        KernelsFor(level).log_f32, x, [](double v) { return v == 0.0 ? -HUGE_VAL : std::log(v); },
        2.4e-7, 1e-45, "log");
  }
}

TEST(TranscendentalKernelsTest, TanhWithinThreeTenthsOfAMillionth) {
  std::vector<float> x = Sweep(-12.0f, 12.0f, 400000);
  AddAround(x, {0.3f, 9.0f, 1e-3f, 1e-20f});
  for (float v : {0.0f, -0.0f, kInf, -kInf, 1e-40f, -1e-40f, 3e38f, -3e38f}) x.push_back(v);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    ExpectWithin(
        KernelsFor(level).tanh_f32, x, [](double v) { return std::tanh(v); }, 3e-7, 1.5e-45,
        "tanh");
    std::vector<float> signs = {0.0f, -0.0f, -1e-40f};
    KernelsFor(level).tanh_f32(signs.data(), signs.data(), 3);
    EXPECT_FALSE(std::signbit(signs[0]));
    EXPECT_TRUE(std::signbit(signs[1]));
    EXPECT_TRUE(std::signbit(signs[2]));
  }
}

TEST(TranscendentalKernelsTest, SigmoidWithinFourUlpOnBothSides) {
  std::vector<float> x = Sweep(-110.0f, 40.0f, 300000);
  AddAround(x, {0.0f, 87.0f, 103.0f});
  for (float v : {kInf, -kInf, 1e-40f, 3e38f, -3e38f}) x.push_back(v);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    ExpectWithin(
        KernelsFor(level).sigmoid_f32, x, [](double v) { return 1.0 / (1.0 + std::exp(-v)); },
        4.8e-7, 1.5e-45, "sigmoid");
  }
}

TEST(TranscendentalKernelsTest, NanStaysNanInEveryFunction) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& k = KernelsFor(level);
    for (MapKernel kernel : {k.exp_f32, k.log_f32, k.tanh_f32, k.sigmoid_f32}) {
      float v[3] = {kNan, -kNan, 1.0f};
      kernel(v, v, 3);
      EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
      EXPECT_FALSE(std::isnan(v[2]));
    }
  }
}

TEST(TranscendentalKernelsTest, EveryCountIncludingThePaddedTail) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& k = KernelsFor(level);
    const std::pair<MapKernel, double (*)(double)> cases[] = {
        {k.exp_f32, [](double v) { return std::exp(v); }},
        {k.log_f32, [](double v) { return std::log(v); }},
        {k.tanh_f32, [](double v) { return std::tanh(v); }},
        {k.sigmoid_f32, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }}};
    for (const auto& [kernel, reference] : cases)
      for (int64_t count = 0; count < 40; ++count) {
        // Positive inputs 0.125, 0.375, ... (every function's domain), then a sentinel.
        std::vector<float> x(static_cast<size_t>(count) + 1, 42.0f), y(x.size(), -7.0f);
        for (int64_t i = 0; i < count; ++i)
          x[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i) + 0.125f;
        kernel(x.data(), y.data(), count);
        for (int64_t i = 0; i < count; ++i) {
          const double expected = reference(0.25 * static_cast<double>(i) + 0.125);
          EXPECT_NEAR(y[static_cast<size_t>(i)], expected, 5e-7 * std::fabs(expected))
              << count << " " << i;
        }
        EXPECT_EQ(y[static_cast<size_t>(count)], -7.0f) << "nothing written past " << count;
        kernel(x.data(), x.data(), count);  // in place
        for (int64_t i = 0; i < count; ++i)
          EXPECT_EQ(x[static_cast<size_t>(i)], y[static_cast<size_t>(i)]);
      }
  }
}

TEST(TranscendentalKernelsTest, MaxIgnoresNanAndCoversEveryPosition) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& k = KernelsFor(level);
    EXPECT_EQ(k.max_f32(nullptr, 0), -kInf);
    for (int64_t count = 1; count < 40; ++count)
      for (int64_t at = 0; at < count; ++at) {
        // -5 before the largest, NaN after it (a NaN must not hide what its lane held).
        std::vector<float> x(static_cast<size_t>(count), kNan);
        std::fill_n(x.begin(), at, -5.0f);
        x[static_cast<size_t>(at)] = 3.0f;
        EXPECT_EQ(k.max_f32(x.data(), count), 3.0f) << count << " " << at;
      }
    float all_nan[3] = {kNan, kNan, kNan};
    EXPECT_EQ(k.max_f32(all_nan, 3), -kInf);
  }
}

TEST(TranscendentalKernelsTest, ExpShiftedSumGivesTheSoftmaxNumeratorsAndDenominator) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& k = KernelsFor(level);
    for (int64_t count = 0; count < 40; ++count) {
      std::vector<float> x(static_cast<size_t>(count) + 1, 42.0f), y(x.size(), -7.0f);
      for (int64_t i = 0; i < count; ++i)
        x[static_cast<size_t>(i)] = std::sin(static_cast<float>(i)) * 4.0f;
      const float shift = 4.0f;
      const float sum = k.exp_shifted_sum_f32(x.data(), y.data(), count, shift);
      double expected_sum = 0.0;
      for (int64_t i = 0; i < count; ++i) {
        // e^ of the float difference: its rounding is the caller's, not the kernel's.
        const double e = std::exp(static_cast<double>(x[static_cast<size_t>(i)] - shift));
        expected_sum += e;
        EXPECT_NEAR(y[static_cast<size_t>(i)], e, 3e-7 * e) << count << " " << i;
      }
      EXPECT_NEAR(sum, expected_sum, 1e-6 * expected_sum + 1e-30) << count;
      EXPECT_EQ(y[static_cast<size_t>(count)], -7.0f) << "nothing written past " << count;
    }
    // -inf logits give exactly 0 (masked keys), NaN carries into the sum.
    float masked[3] = {-kInf, 0.0f, -kInf};
    EXPECT_EQ(k.exp_shifted_sum_f32(masked, masked, 3, 0.0f), 1.0f);
    EXPECT_EQ(masked[0], 0.0f);
    EXPECT_EQ(masked[2], 0.0f);
    float with_nan[2] = {0.0f, kNan};
    EXPECT_TRUE(std::isnan(k.exp_shifted_sum_f32(with_nan, with_nan, 2, 0.0f)));
  }
}

// FastGelu 0.5 x (1 + tanh(u)) and QuickGelu x sigmoid(alpha x): within 6e-7 relative plus
// the sigmoid argument's own rounding (three roundings: 1.8e-7 |argument| relative, which e^
// amplifies in the negative tail); a sigmoid below the denormals is 0, so x times it is off by up
// to |x| of them.
TEST(TranscendentalKernelsTest, GeluTanhAndQuickGeluKeepRelativePrecisionOnBothSides) {
  std::vector<float> x = Sweep(-20.0f, 20.0f, 200000);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, -1e-40f}) x.push_back(v);
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    const IsaKernels& k = KernelsFor(level);
    std::vector<float> y(x.size());
    k.gelu_tanh_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = x[i];
      const double u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
      const double expected = v / (1.0 + std::exp(-2.0 * u));  // = 0.5 v (1 + tanh u)
      ASSERT_LE(std::fabs(y[i] - expected),
                (6e-7 + 1.8e-7 * std::fabs(2.0 * u)) * std::fabs(expected) +
                    1.5e-45 * std::max(1.0, std::fabs(v)))
          << "gelu_tanh(" << x[i] << ") = " << y[i] << ", expected " << expected;
    }
    for (float alpha : {1.702f, -0.5f}) {
      k.quick_gelu_f32(x.data(), y.data(), static_cast<int64_t>(x.size()), alpha);
      for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        const double a = static_cast<double>(static_cast<float>(alpha * x[i]));
        const double expected = v / (1.0 + std::exp(-a));
        ASSERT_LE(std::fabs(y[i] - expected),
                  6e-7 * std::fabs(expected) + 1.5e-45 * std::max(1.0, std::fabs(v)))
            << "quick_gelu(" << x[i] << ", " << alpha << ") = " << y[i] << ", expected "
            << expected;
      }
    }
    float special[3] = {kNan, kInf, -kInf};
    k.gelu_tanh_f32(special, special, 3);
    EXPECT_TRUE(std::isnan(special[0]));
    EXPECT_EQ(special[1], kInf);
    EXPECT_TRUE(std::isnan(special[2]));  // -inf * 0, as the formula gives
  }
}

TEST(TranscendentalKernelsTest, ScaleMultipliesEveryValueAndNothingElse) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (int64_t count = 0; count < 40; ++count) {
      std::vector<float> x(static_cast<size_t>(count) + 1, 42.0f), y(x.size(), -7.0f);
      for (int64_t i = 0; i < count; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i) - 3.5f;
      KernelsFor(level).scale_f32(y.data(), x.data(), count, 0.25f);
      for (int64_t i = 0; i < count; ++i)
        EXPECT_EQ(y[static_cast<size_t>(i)], (static_cast<float>(i) - 3.5f) * 0.25f);
      EXPECT_EQ(y[static_cast<size_t>(count)], -7.0f) << "nothing written past " << count;
      KernelsFor(level).scale_f32(x.data(), x.data(), count, 0.25f);  // in place
      for (int64_t i = 0; i < count; ++i)
        EXPECT_EQ(x[static_cast<size_t>(i)], y[static_cast<size_t>(i)]);
    }
  }
}

}  // namespace
}  // namespace prism::mlas
