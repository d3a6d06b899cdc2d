// The float depthwise convolution kernel of every instruction-set level against a double
// reference on random geometries: kernels 1 to 5, strides 1 to 3, dilations 1 and 2, pads 0 to 2,
// planes from 1 x 1 to 40 x 40 (widths ragged against the eight-output groups), outputs that are
// all border. The output plane sits between guard values that must stay untouched, and each
// plane is the second one computed with its scratch (the first leaves the padding zero).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "isa_levels.h"
#include "mlas/cpu_isa.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {
namespace {

TEST(DepthwiseKernelsTest, FloatPlanesMatchADoubleReferenceOnEveryLevel) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  int64_t cases = 0;
  for (int trial = 0; trial < 400; ++trial) {
    DepthwiseGeometry g{};
    g.kernel_h = 1 + trial % 5;
    g.kernel_w = 1 + (trial / 5) % 5;
    g.stride_h = 1 + (trial / 3) % 3;
    g.stride_w = 1 + (trial / 7) % 3;
    g.dilation_h = 1 + (trial / 11) % 2;
    g.dilation_w = 1 + (trial / 13) % 2;
    g.pad_h = (trial / 17) % 3;
    g.pad_w = (trial / 19) % 3;
    g.in_h = 1 + (trial * 7) % 40;
    g.in_w = 1 + (trial * 13) % 40;
    const int64_t span_h = (g.kernel_h - 1) * g.dilation_h + 1;
    const int64_t span_w = (g.kernel_w - 1) * g.dilation_w + 1;
    if (g.in_h + 2 * g.pad_h < span_h || g.in_w + 2 * g.pad_w < span_w) continue;
    g.out_h = (g.in_h + 2 * g.pad_h - span_h) / g.stride_h + 1;
    g.out_w = (g.in_w + 2 * g.pad_w - span_w) / g.stride_w + 1;
    std::vector<float> x(static_cast<size_t>(g.in_h * g.in_w));
    std::vector<float> w(static_cast<size_t>(g.kernel_h * g.kernel_w));
    for (float& v : x) v = value(rng);
    for (float& v : w) v = value(rng);
    const float bias = value(rng);
    for (CpuIsa level : Levels()) {
      SCOPED_TRACE(testing::Message()
                   << IsaName(level) << " in " << g.in_h << "x" << g.in_w << " kernel "
                   << g.kernel_h << "x" << g.kernel_w << " stride " << g.stride_h << ","
                   << g.stride_w << " dilation " << g.dilation_h << "," << g.dilation_w << " pad "
                   << g.pad_h << "," << g.pad_w);
      const int64_t plane = g.out_h * g.out_w;
      std::vector<float> y(static_cast<size_t>(plane + 32), 777.0f);
      // One scratch for two channels, zeroed once as the convolution does: the first call (on
      // another plane) must leave the padding zero for the second.
      std::vector<float> scratch(static_cast<size_t>(DepthwiseLayoutOf(g).ScratchFloats()), 0.0f);
      std::vector<float> other(x.size()), other_y(static_cast<size_t>(plane));
      for (float& v : other) v = value(rng) + 5.0f;
      KernelsFor(level).depthwise2d_f32(g, other.data(), w.data(), bias, other_y.data(),
                                        scratch.data());
      KernelsFor(level).depthwise2d_f32(g, x.data(), w.data(), bias, y.data() + 16, scratch.data());
      for (int64_t i = 0; i < 16; ++i) {
        ASSERT_EQ(y[static_cast<size_t>(i)], 777.0f) << "written before the plane";
        ASSERT_EQ(y[static_cast<size_t>(16 + plane + i)], 777.0f) << "written past the plane";
      }
      for (int64_t oh = 0; oh < g.out_h; ++oh)
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          double expected = bias, magnitude = std::fabs(bias);
          for (int64_t kh = 0; kh < g.kernel_h; ++kh)
            for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const int64_t ih = oh * g.stride_h + kh * g.dilation_h - g.pad_h;
              const int64_t iw = ow * g.stride_w + kw * g.dilation_w - g.pad_w;
              if (ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) continue;
              const double term = static_cast<double>(x[static_cast<size_t>(ih * g.in_w + iw)]) *
                                  w[static_cast<size_t>(kh * g.kernel_w + kw)];
              expected += term;
              magnitude += std::fabs(term);
            }
          const float got = y[static_cast<size_t>(16 + oh * g.out_w + ow)];
          ASSERT_NEAR(got, expected, 1e-6 * magnitude + 1e-7) << "output " << oh << "," << ow;
        }
      ++cases;
    }
  }
  EXPECT_GE(cases, 300);
}

}  // namespace
}  // namespace prism::mlas
