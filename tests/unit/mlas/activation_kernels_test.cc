// The elementwise activations of the ONNX ops (IsaKernels::activation_f32: LeakyRelu, Elu, Selu,
// Celu, HardSigmoid, HardSwish, ThresholdedRelu, Mish, Softplus) on every instruction-set level
// against double-precision references: dense sweeps over each function's range, the edges of
// e^x - 1's Taylor branch and of the logarithm's argument, special values (NaN, infinities,
// signed zeros, denormals), and every count from 0 to 39 without writing past count; its floor,
// ceil, round-half-to-even and square root equal to the library's, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

struct Case {
  std::string name;
  int kind;
  float a, b;
  std::function<double(double)> reference;
  double relative, absolute;
};

std::vector<Case> Cases() {
  const double a = 1.3, selu_a = 1.67326319217681884765625, selu_b = 1.05070102214813232421875;
  const auto softplus = [](double x) {
    return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
  };
  return {
      {"LeakyRelu", kUnaryLeakyRelu, 0.1f, 0.0f,
       [](double x) { return x < 0 ? static_cast<double>(0.1f) * x : x; }, 6e-8, 1e-45},
      {"Elu", kUnaryElu, static_cast<float>(a), 0.0f,
       [a](double x) {
         return x < 0 ? static_cast<double>(static_cast<float>(a)) * std::expm1(x) : x;
       },
       7e-7, 1e-45},
      {"Selu", kUnarySelu, static_cast<float>(selu_a), static_cast<float>(selu_b),
       [=](double x) { return selu_b * (x > 0 ? x : selu_a * std::expm1(x)); }, 8e-7, 1e-45},
      {"Celu", kUnaryCelu, 0.7f, 0.0f,
       [](double x) {
         const double alpha = static_cast<double>(0.7f);
         return std::isnan(x) ? x : std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha));
       },
       1e-6, 1e-45},
      {"CeluNegativeAlpha", kUnaryCelu, -0.5f, 0.0f,
       [](double x) {
         return std::isnan(x) ? x : std::max(0.0, x) + std::min(0.0, -0.5 * std::expm1(x / -0.5));
       },
       1e-6, 1e-45},
      {"HardSigmoid", kUnaryHardSigmoid, 0.2f, 0.5f,
       [](double x) {
         const double y = static_cast<double>(0.2f) * x + 0.5;
         return std::isnan(y) ? y : std::clamp(y, 0.0, 1.0);
       },
       1e-7, 1e-7},
      {"HardSwish", kUnaryHardSwish, 0.0f, 0.0f,
       // x / 6 + 1/2 cancels near x = -3: its rounding (3e-8) times |x|, absolute.
       [](double x) { return std::isnan(x) ? x : x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }, 3e-7,
       2e-7},
      {"ThresholdedRelu", kUnaryThresholdedRelu, 1.0f, 0.0f,
       [](double x) { return x > 1.0 ? x : 0.0; }, 0, 0},
      {"Mish", kUnaryMish, 0.0f, 0.0f, [softplus](double x) { return x * std::tanh(softplus(x)); },
       1.2e-6, 1e-40},
      {"Softplus", kUnarySoftplus, 0.0f, 0.0f, softplus, 5e-7, 1e-45},
  };
}

std::vector<float> Inputs() {
  std::vector<float> x;
  for (int i = 0; i <= 200000; ++i) x.push_back(-30.0f + 60.0f * static_cast<float>(i) / 200000.0f);
  for (double v = 1e-40; v < 3e38; v *= 1.9) {
    x.push_back(static_cast<float>(v));
    x.push_back(static_cast<float>(-v));
  }
  for (float edge : {0.25f, 1e-4f, 1e-8f, 87.0f, 89.0f, 103.0f, 110.0f, 6.0f, 3.0f, 1.0f, 2.5f})
    for (float v : {edge, std::nextafter(edge, -kInf), std::nextafter(edge, kInf)}) {
      x.push_back(v);
      x.push_back(-v);
    }
  for (float v :
       {0.0f, -0.0f, kInf, -kInf, kNan, 3e38f, -3e38f, std::numeric_limits<float>::denorm_min()})
    x.push_back(v);
  return x;
}

TEST(ActivationKernelsTest, EveryKindWithinItsBoundOnEveryLevel) {
  const std::vector<float> x = Inputs();
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (const Case& c : Cases()) {
      SCOPED_TRACE(c.name);
      std::vector<float> y(x.size());
      KernelsFor(level).activation_f32(x.data(), y.data(), static_cast<int64_t>(x.size()), c.kind,
                                       c.a, c.b);
      for (size_t i = 0; i < x.size(); ++i) {
        const double expected = c.reference(static_cast<double>(x[i]));
        if (std::isnan(expected)) {
          ASSERT_TRUE(std::isnan(y[i])) << c.name << "(" << x[i] << ") = " << y[i];
          continue;
        }
        const auto rounded = static_cast<float>(expected);
        if (std::isinf(rounded)) {
          ASSERT_EQ(y[i], rounded) << c.name << "(" << x[i] << ")";
          continue;
        }
        const double error = std::fabs(static_cast<double>(y[i]) - expected);
        ASSERT_LE(error, std::max(c.relative * std::fabs(expected), c.absolute))
            << c.name << "(" << x[i] << ") = " << y[i] << ", expected " << expected;
      }
    }
  }
}

TEST(ActivationKernelsTest, RaggedCountsInPlaceWriteNothingPastTheEnd) {
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (const Case& c : Cases()) {
      for (int64_t count = 0; count < 40; ++count) {
        std::vector<float> data(static_cast<size_t>(count) + 3, 7.0f);
        for (int64_t i = 0; i < count; ++i) data[i] = -2.0f + 0.37f * static_cast<float>(i);
        std::vector<float> expected(data.begin(), data.begin() + count);
        KernelsFor(level).activation_f32(expected.data(), expected.data(), count, c.kind, c.a,
                                         c.b);  // in place
        std::vector<float> out(data.size(), 7.0f);
        KernelsFor(level).activation_f32(data.data(), out.data(), count, c.kind, c.a, c.b);
        for (int64_t i = 0; i < count; ++i) ASSERT_EQ(out[i], expected[i]) << c.name << " " << i;
        for (size_t i = static_cast<size_t>(count); i < out.size(); ++i)
          ASSERT_EQ(out[i], 7.0f) << c.name << ": wrote past count " << count;
      }
    }
  }
}

TEST(ActivationKernelsTest, LevelsAgreeWithTheBaseline) {
  const std::vector<float> x = Inputs();
  for (const Case& c : Cases()) {
    std::vector<float> base(x.size());
    KernelsFor(CpuIsa::kBaseline)
        .activation_f32(x.data(), base.data(), static_cast<int64_t>(x.size()), c.kind, c.a, c.b);
    for (CpuIsa level : Levels()) {
      std::vector<float> y(x.size());
      KernelsFor(level).activation_f32(x.data(), y.data(), static_cast<int64_t>(x.size()), c.kind,
                                       c.a, c.b);
      for (size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(base[i])) {
          ASSERT_TRUE(std::isnan(y[i])) << c.name << " " << IsaName(level) << " " << x[i];
          continue;
        }
        if (y[i] == base[i]) continue;  // infinities included
        // Lanes may fuse a multiply and an add where the baseline rounds twice (HardSigmoid's
        // a x + b cancelling near 0): twice the reference bound at most.
        ASSERT_LE(std::fabs(y[i] - base[i]),
                  2 * std::max(c.relative * std::fabs(base[i]), std::max(c.absolute, 1e-7)))
            << c.name << " " << IsaName(level) << "(" << x[i] << ")";
      }
    }
  }
}

}  // namespace
}  // namespace prism::mlas

namespace prism::mlas {
namespace {

TEST(ActivationKernelsTest, RoundingAndSquareRootEqualTheLibrary) {
  std::vector<float> x = {
      0.0f,        -0.0f,        0.5f,       -0.5f,       1.5f,       -1.5f,       2.5f,  -2.5f,
      0.49999997f, -0.49999997f, 8388607.5f, -8388607.5f, 8388608.0f, 16777215.0f, 3e38f, -3e38f,
      kInf,        -kInf,        kNan,       1e-40f,      -1e-40f,    -4.0f,       4.0f};
  for (int i = -4000; i <= 4000; ++i) x.push_back(static_cast<float>(i) * 0.37f);
  struct Expect {
    int kind;
    float (*reference)(float);
    const char* name;
  };
  const Expect expectations[] = {
      {kUnaryFloor, [](float v) { return std::floor(v); }, "floor"},
      {kUnaryCeil, [](float v) { return std::ceil(v); }, "ceil"},
      {kUnaryRound, [](float v) { return std::nearbyint(v); }, "round"},
      {kUnarySqrt, [](float v) { return std::sqrt(v); }, "sqrt"},
  };
  for (CpuIsa level : Levels()) {
    SCOPED_TRACE(IsaName(level));
    for (const Expect& e : expectations) {
      std::vector<float> y(x.size());
      KernelsFor(level).activation_f32(x.data(), y.data(), static_cast<int64_t>(x.size()), e.kind,
                                       0.0f, 0.0f);
      for (size_t i = 0; i < x.size(); ++i) {
        const float expected = e.reference(x[i]);
        if (std::isnan(expected)) {
          ASSERT_TRUE(std::isnan(y[i])) << e.name << "(" << x[i] << ")";
          continue;
        }
        ASSERT_EQ(y[i], expected) << e.name << "(" << x[i] << ")";
        ASSERT_EQ(std::signbit(y[i]), std::signbit(expected)) << e.name << "(" << x[i] << ")";
      }
    }
  }
}

}  // namespace
}  // namespace prism::mlas
