// The NCHWc kernels (mlas/nchwc.h) of every instruction-set level this CPU runs against a naive
// double-precision reference computed in NCHW and reordered: random shapes with channels that
// are not a multiple of the block, odd planes, padding (also past the input, as ceil_mode
// windows), strides, dilations, every epilogue combination, the three convolution kinds, the
// pools and the reorders. Work is run in several ranges of items, as threads would.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "isa_levels.h"
#include "mlas/isa_kernels.h"
#include "mlas/nchwc.h"
#include "mlas/nchwc_winograd.h"

namespace prism::mlas {
namespace {

int64_t RoundUp(int64_t x, int64_t b) {
  return (x + b - 1) / b * b;
}

// Plain loops: channel c of pixel s of image n to its NCHWc place and back.
std::vector<float> ToNchwc(const std::vector<float>& nchw, int64_t n, int64_t c, int64_t spatial,
                           int64_t b, float fill) {
  const int64_t cp = RoundUp(c, b);
  std::vector<float> out(static_cast<size_t>(n * cp * spatial), fill);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t s = 0; s < spatial; ++s)
        out[static_cast<size_t>(((i * cp / b + ch / b) * spatial + s) * b + ch % b)] =
            nchw[static_cast<size_t>((i * c + ch) * spatial + s)];
  return out;
}

float FromNchwc(const std::vector<float>& nchwc, int64_t cp, int64_t spatial, int64_t b, int64_t i,
                int64_t ch, int64_t s) {
  return nchwc[static_cast<size_t>(((i * cp / b + ch / b) * spatial + s) * b + ch % b)];
}

std::vector<float> Random(std::mt19937& rng, int64_t count) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = value(rng);
  return v;
}

struct ConvCase {
  int64_t n, c, m, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  bool depthwise, nchw_input, bias, sum;
  int activation;
};

int64_t OutSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1) {
  return (in + p0 + p1 - (k - 1) * d - 1) / s + 1;
}

double Activate(double v, int activation, double a, double b) {
  switch (activation) {
    case kActivationRelu:
      return std::max(v, 0.0);
    case kActivationLeakyRelu:
      return v < 0 ? v * a : v;
    case kActivationClip:
      return std::min(std::max(v, a), b);
    default:
      return v;
  }
}

// winograd_tile 0: NchwcConv; 2 or 4: the Winograd algorithm (nchwc_winograd.h) with that output
// tile and winograd_batch tiles per work item (0: the plan's own choice).
void CheckConv(const ConvCase& t, std::mt19937& rng, int winograd_tile = 0,
               int64_t winograd_batch = 0) {
  const int64_t oh = OutSize(t.h, t.kh, t.sh, t.dh, t.pt, t.pb);
  const int64_t ow = OutSize(t.w, t.kw, t.sw, t.dw, t.pl, t.pr);
  ASSERT_GT(oh, 0);
  ASSERT_GT(ow, 0);
  const int64_t cin_w = t.depthwise ? 1 : t.c;
  const std::vector<float> x = Random(rng, t.n * t.c * t.h * t.w);
  const std::vector<float> filter = Random(rng, t.m * cin_w * t.kh * t.kw);
  const std::vector<float> bias = Random(rng, t.m);
  const std::vector<float> sum = Random(rng, t.n * t.m * oh * ow);
  const float alpha = t.activation == kActivationClip ? -0.3f : 0.1f;
  const float beta = 0.4f;
  // The reference in NCHW, with its sum of magnitudes for the tolerance.
  std::vector<double> expected(static_cast<size_t>(t.n * t.m * oh * ow));
  std::vector<double> magnitude(expected.size());
  for (int64_t i = 0; i < t.n; ++i)
    for (int64_t o = 0; o < t.m; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double acc = 0, mag = 0;
          for (int64_t ci = 0; ci < cin_w; ++ci) {
            const int64_t channel = t.depthwise ? o : ci;
            for (int64_t a = 0; a < t.kh; ++a)
              for (int64_t bb = 0; bb < t.kw; ++bb) {
                const int64_t ih = y * t.sh - t.pt + a * t.dh, iw = z * t.sw - t.pl + bb * t.dw;
                if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w) continue;
                const double p =
                    double(x[static_cast<size_t>(((i * t.c + channel) * t.h + ih) * t.w + iw)]) *
                    filter[static_cast<size_t>(((o * cin_w + ci) * t.kh + a) * t.kw + bb)];
                acc += p;
                mag += std::fabs(p);
              }
          }
          const size_t at = static_cast<size_t>(((i * t.m + o) * oh + y) * ow + z);
          if (t.bias) acc += bias[static_cast<size_t>(o)];
          if (t.sum) acc += sum[at];
          expected[at] = Activate(acc, t.activation, alpha, beta);
          magnitude[at] = mag + 2;
        }
  for (CpuIsa level : Levels()) {
    const IsaKernels& kernels = KernelsFor(level);
    const int64_t b = NchwcBlockSize(kernels);
    const int64_t cp = t.nchw_input ? t.c : RoundUp(t.c, b);
    const int64_t mp = RoundUp(t.m, b);
    SCOPED_TRACE(testing::Message()
                 << IsaName(level) << " n " << t.n << " c " << t.c << " m " << t.m << " in " << t.h
                 << "x" << t.w << " k " << t.kh << "x" << t.kw << " s " << t.sh << "," << t.sw
                 << " d " << t.dh << "," << t.dw << " pads " << t.pt << "," << t.pl << "," << t.pb
                 << "," << t.pr << (t.depthwise ? " depthwise" : "")
                 << (t.nchw_input ? " nchw-input" : "") << (t.bias ? " bias" : "")
                 << (t.sum ? " sum" : "") << " activation " << t.activation);
    NchwcConvShape shape;
    shape.batch = t.n;
    shape.input_channels = t.depthwise ? mp : cp;
    shape.output_channels = mp;
    shape.groups = t.depthwise ? mp : 1;
    shape.input_is_nchw = t.nchw_input;
    shape.input_h = t.h;
    shape.input_w = t.w;
    shape.output_h = oh;
    shape.output_w = ow;
    shape.kernel_h = t.kh;
    shape.kernel_w = t.kw;
    shape.stride_h = t.sh;
    shape.stride_w = t.sw;
    shape.dilation_h = t.dh;
    shape.dilation_w = t.dw;
    shape.pad_top = t.pt;
    shape.pad_left = t.pl;
    shape.pad_bottom = t.pb;
    shape.pad_right = t.pr;
    ASSERT_TRUE(NchwcConvShapeSupported(kernels, shape));
    // The filter padded as the graph pass pads it: zero filters and zero taps.
    const int64_t cin_p = t.depthwise ? 1 : cp;
    std::vector<float> padded(static_cast<size_t>(mp * cin_p * t.kh * t.kw), 0.0f);
    for (int64_t o = 0; o < t.m; ++o)
      for (int64_t ci = 0; ci < cin_w; ++ci)
        for (int64_t k = 0; k < t.kh * t.kw; ++k)
          padded[static_cast<size_t>((o * cin_p + ci) * t.kh * t.kw + k)] =
              filter[static_cast<size_t>((o * cin_w + ci) * t.kh * t.kw + k)];
    std::vector<float> packed(static_cast<size_t>(NchwcPackedFilterFloats(kernels, shape)), 7.0f);
    ASSERT_EQ(packed.size(), padded.size());
    NchwcPackFilter(kernels, shape, padded.data(), packed.data());
    const bool winograd = winograd_tile != 0;
    if (winograd) {
      ASSERT_TRUE(NchwcWinogradApplies(kernels, shape));
    }
    const NchwcWinogradFilter winograd_filter =
        winograd ? NchwcWinogradFilter::Pack(shape, padded.data(), winograd_tile)
                 : NchwcWinogradFilter();
    const NchwcWinogradPlan plan =
        NchwcWinogradPlanFor(shape, winograd ? winograd_tile : 2, 3, winograd_batch);
    std::vector<float> padded_bias(static_cast<size_t>(mp), 0.0f);
    std::copy(bias.begin(), bias.end(), padded_bias.begin());
    // Padded input lanes hold garbage (finite): the zero filter taps must cancel them.
    const std::vector<float> input = t.nchw_input ? x : ToNchwc(x, t.n, t.c, t.h * t.w, b, 3.0f);
    const std::vector<float> sum_blocked = ToNchwc(sum, t.n, t.m, oh * ow, b, 5.0f);
    NchwcConvEpilogue epilogue;
    epilogue.bias = t.bias ? padded_bias.data() : nullptr;
    epilogue.sum = t.sum ? sum_blocked.data() : nullptr;
    epilogue.activation = t.activation;
    epilogue.alpha = alpha;
    epilogue.beta = beta;
    std::vector<float> out(static_cast<size_t>(t.n * mp * oh * ow),
                           std::numeric_limits<float>::quiet_NaN());
    const int64_t items =
        winograd ? plan.WorkItems(shape.batch) : NchwcConvWorkItems(kernels, shape);
    // Three uneven ranges, as three threads would get them.
    const int64_t cuts[4] = {0, items / 3, items * 3 / 4, items};
    for (int r = 0; r < 3; ++r) {
      if (winograd)
        NchwcWinogradConv(kernels, shape, plan, input.data(), winograd_filter, epilogue, out.data(),
                          cuts[r], cuts[r + 1]);
      else
        NchwcConv(kernels, shape, input.data(), packed.data(), epilogue, out.data(), cuts[r],
                  cuts[r + 1]);
    }
    for (int64_t i = 0; i < t.n; ++i)
      for (int64_t o = 0; o < mp; ++o)
        for (int64_t s = 0; s < oh * ow; ++s) {
          const float got = FromNchwc(out, mp, oh * ow, b, i, o, s);
          if (o >= t.m) {
            ASSERT_TRUE(std::isfinite(got)) << "padded channel " << o << " at " << s;
            continue;
          }
          const size_t at = static_cast<size_t>((i * t.m + o) * oh * ow + s);
          ASSERT_NEAR(got, expected[at], 1e-5 * magnitude[at])
              << "image " << i << " channel " << o << " position " << s;
        }
  }
}

TEST(NchwcTest, ConvolutionsMatchTheReferenceOnEveryLevel) {
  std::mt19937 rng(11);
  auto pick = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 240; ++trial) {
    ConvCase t{};
    const int kind = trial % 3;  // blocked, depthwise, NCHW input
    t.depthwise = kind == 1;
    t.nchw_input = kind == 2;
    t.n = pick(1, 2);
    t.c = t.nchw_input ? pick(1, 4) : pick(1, 40);
    t.m = t.depthwise ? t.c : pick(1, 80);
    t.h = pick(1, 13);
    t.w = pick(1, 19);
    t.kh = pick(1, 4);
    t.kw = pick(1, trial % 7 == 0 ? 7 : 4);
    t.sh = pick(1, 2);
    t.sw = pick(1, 3);
    t.dh = trial % 5 == 0 ? 2 : 1;
    t.dw = trial % 6 == 0 ? 2 : 1;
    t.pt = pick(0, t.kh - 1);
    t.pl = pick(0, t.kw);
    t.pb = pick(0, t.kh);
    t.pr = pick(0, t.kw - 1 + t.sw);
    t.bias = trial % 2 == 0;
    t.sum = trial / 2 % 2 == 0;
    t.activation = trial / 4 % 4;
    // Windows must fit the padded input.
    if (t.h + t.pt + t.pb < (t.kh - 1) * t.dh + 1) t.pb = (t.kh - 1) * t.dh + 1 - t.h - t.pt;
    if (t.w + t.pl + t.pr < (t.kw - 1) * t.dw + 1) t.pr = (t.kw - 1) * t.dw + 1 - t.w - t.pl;
    CheckConv(t, rng);
    if (HasFatalFailure()) return;
  }
}

TEST(NchwcTest, NetworkShapesMatchTheReference) {
  std::mt19937 rng(5);
  const ConvCase cases[] = {
      // n c m h w kh kw sh sw dh dw pt pl pb pr depthwise nchw bias sum activation
      {1, 3, 64, 30, 30, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, false, true, true, false, kActivationRelu},
      {1, 64, 64, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, false, true, true, kActivationRelu},
      {1, 64, 256, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, true, kActivationRelu},
      {1, 128, 128, 15, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, false, true, false, 0},
      {1, 96, 96, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false, true, false, kActivationClip},
      {1, 144, 144, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, true, false, kActivationClip},
      // Wide enough for the depthwise kernel that reads the input in place (edge columns apart).
      {1, 32, 32, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false, true, true, kActivationRelu},
      {1, 32, 32, 6, 41, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, true, false, false, true, 0},
      // 1x1, stride 1, no padding, few output blocks: the positions run on across rows, one
      // pointer for a whole tile (16 or 12 positions on AVX-512), planes not a multiple of it.
      {1, 128, 16, 13, 13, 1,     1,     1,    1,     1,
       1, 0,   0,  0,  0,  false, false, true, false, kActivationRelu},
      {2, 40, 24, 9, 11, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, true, 0},
      {1, 64, 32, 27, 27, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, false, false, true, kActivationClip},
      {1, 24, 8, 3, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, false, 0},
      // 1x1 with stride 2 down the rows only, and 1x1 with padding: not one run of pixels.
      {1, 32, 16, 9, 7, 1, 1, 2, 1, 1, 1, 0, 0, 0, 0, false, false, true, false, kActivationRelu},
      {1, 32, 16, 6, 7, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, false, false, true, true, 0},
      // Strips of output rows (several per range here), chunks of input channels (several),
      // every block group of a range over each chunk before the next: outputs big enough.
      {1, 256, 64, 40, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, true, kActivationRelu},
      {1, 16, 96, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, false, true, false, kActivationRelu},
      // 1x1 with stride 2 both ways (a compact copy of the pixels read), many channels.
      {1, 160, 40, 23, 23, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, false, false, true, true, 0},
      {2, 72, 24, 8, 9, 1, 1, 2, 3, 1, 1, 0, 0, 0, 0, false, false, false, true, kActivationRelu},
      // A plane of 16x16: its groups a multiple of 4 KiB apart, chunks of few groups.
      {1, 96, 32, 16, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false, false, true, false, 0},
  };
  for (const ConvCase& t : cases) {
    CheckConv(t, rng);
    if (HasFatalFailure()) return;
  }
}

// 1x1 layers under every epilogue (each activation, with and without bias and residual): the
// AVX2 level's pointwise tiles apply them in assembly. Few input groups (one chunk: sums start
// at zero and end activated) and many (chunks: partial sums stored and read back); 3 and 5
// output blocks; stride 1 and 2.
TEST(NchwcTest, PointwiseTilesApplyEveryEpilogue) {
  std::mt19937 rng(17);
  for (int activation = kActivationNone; activation <= kActivationClip; ++activation)
    for (int ends = 0; ends < 4; ++ends)
      for (const int64_t c : {16, 200})
        for (const int64_t m : {24, 40}) {
          const int64_t stride = (ends + c / 16) % 2 + 1;
          const ConvCase t{1, c, m, 7, 9, 1,     1,     stride,        stride,        1,
                           1, 0, 0, 0, 0, false, false, ends % 2 == 0, ends / 2 == 0, activation};
          SCOPED_TRACE(testing::Message()
                       << "activation " << activation << " c " << c << " m " << m << " stride "
                       << stride << " bias " << t.bias << " sum " << t.sum);
          CheckConv(t, rng);
          if (HasFatalFailure()) return;
        }
}

// An NCHW input of 3 channels (an image) into 4-block items under every epilogue: the AVX2
// level runs its 3 x 4 tiles in assembly, a tap at a time. 3x3 and 7x7 windows, strides 1 and
// 2, padding, a dilated window, 32 and 40 outputs (one item, and one plus a 1-block rest).
TEST(NchwcTest, ImageInputTilesApplyEveryEpilogue) {
  std::mt19937 rng(19);
  for (int activation = kActivationNone; activation <= kActivationClip; ++activation)
    for (int ends = 0; ends < 4; ++ends)
      for (const int64_t k : {3, 7})
        for (const int64_t m : {32, 40}) {
          const int64_t stride = (ends + k / 7) % 2 + 1, dilation = ends == 3 && k == 3 ? 2 : 1;
          const int64_t pad = k / 2;
          const ConvCase t{
              1, 3,   m,   11,  13,  k,     k,    stride,        stride,        dilation,
              1, pad, pad, pad, pad, false, true, ends % 2 == 0, ends / 2 == 0, activation};
          SCOPED_TRACE(testing::Message() << "activation " << activation << " k " << k << " m " << m
                                          << " stride " << stride << " dilation " << dilation
                                          << " bias " << t.bias << " sum " << t.sum);
          CheckConv(t, rng);
          if (HasFatalFailure()) return;
        }
}

// The Winograd F(2x2, 3x3) and F(4x4, 3x3) algorithms against the same double-precision
// reference and tolerance: random 3x3 stride-1 shapes (output sizes not a multiple of the tile,
// so that tiles hang over the edges; padding on any side, up to 2), batches of tiles from one to
// the plan's own, every epilogue.
TEST(NchwcTest, WinogradMatchesTheReferenceOnEveryLevel) {
  std::mt19937 rng(23);
  auto pick = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t batches[] = {0, 1, 5, 6, 13};
  for (int trial = 0; trial < 120; ++trial) {
    ConvCase t{};
    t.n = pick(1, 2);
    t.c = pick(1, 70);
    t.m = pick(1, 70);
    t.h = pick(1, 17);
    t.w = pick(1, 21);
    t.kh = t.kw = 3;
    t.sh = t.sw = t.dh = t.dw = 1;
    t.pt = pick(0, 2);
    t.pl = pick(0, 2);
    t.pb = pick(0, 2);
    t.pr = pick(0, 2);
    if (t.h + t.pt + t.pb < 3) t.pb = 3 - t.h - t.pt;
    if (t.w + t.pl + t.pr < 3) t.pr = 3 - t.w - t.pl;
    t.bias = trial % 2 == 0;
    t.sum = trial / 2 % 2 == 0;
    t.activation = trial / 4 % 4;
    CheckConv(t, rng, trial % 2 == 0 ? 2 : 4, batches[trial / 2 % 5]);
    if (HasFatalFailure()) return;
  }
  // resnet50's channel counts (smaller planes), the plan's own batches, both tiles.
  const ConvCase network[] = {
      {1, 64, 64, 22, 22, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, false, true, true, kActivationRelu},
      {1, 128, 128, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, false, true, false, kActivationRelu},
      {2, 256, 256, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, false, false, true, 0},
  };
  for (const ConvCase& t : network) {
    for (int tile : {2, 4}) {
      CheckConv(t, rng, tile);
      if (HasFatalFailure()) return;
    }
  }
}

// The kernels keep a padded copy of the input between the work items of one call; a later call
// on the same buffer with new values must read the new values. Doubling the input doubles every
// sum exactly (no bias).
TEST(NchwcTest, ANewCallReadsTheInputAfresh) {
  std::mt19937 rng(13);
  for (CpuIsa level : Levels()) {
    const IsaKernels& kernels = KernelsFor(level);
    const int64_t b = NchwcBlockSize(kernels);
    SCOPED_TRACE(IsaName(level));
    NchwcConvShape shape;
    shape.input_channels = 2 * b;
    shape.output_channels = 8 * b;  // two groups of blocks: the copy is shared by both
    shape.input_h = shape.input_w = shape.output_h = shape.output_w = 5;
    shape.kernel_h = shape.kernel_w = 3;
    shape.pad_top = shape.pad_left = shape.pad_bottom = shape.pad_right = 1;
    const std::vector<float> filter = Random(rng, 8 * b * 2 * b * 9);
    std::vector<float> packed(filter.size());
    NchwcPackFilter(kernels, shape, filter.data(), packed.data());
    std::vector<float> input = Random(rng, 2 * b * 25);
    std::vector<float> first(static_cast<size_t>(8 * b * 25)), second(first.size());
    const int64_t items = NchwcConvWorkItems(kernels, shape);
    NchwcConv(kernels, shape, input.data(), packed.data(), {}, first.data(), 0, items);
    for (float& v : input) v *= 2;
    NchwcConv(kernels, shape, input.data(), packed.data(), {}, second.data(), 0, items);
    for (size_t i = 0; i < first.size(); ++i) ASSERT_EQ(second[i], 2 * first[i]) << "at " << i;
  }
}

TEST(NchwcTest, PoolsMatchTheReferenceOnEveryLevel) {
  std::mt19937 rng(3);
  auto pick = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t n = pick(1, 2), c = pick(1, 40), h = pick(1, 12), w = pick(1, 15);
    const bool global = trial % 10 == 0;
    const int64_t kh = global ? h : pick(1, 4), kw = global ? w : pick(1, 4);
    const int64_t sh = global ? 1 : pick(1, 3), sw = global ? 1 : pick(1, 3);
    const int64_t dh = trial % 7 == 0 ? 2 : 1, dw = trial % 9 == 0 ? 2 : 1;
    const int64_t pt = global ? 0 : pick(0, kh - 1), pl = global ? 0 : pick(0, kw - 1);
    int64_t pb = global ? 0 : pick(0, kh - 1), pr = global ? 0 : pick(0, kw - 1);
    if (h + pt + pb < (kh - 1) * dh + 1) pb = (kh - 1) * dh + 1 - h - pt;
    if (w + pl + pr < (kw - 1) * dw + 1) pr = (kw - 1) * dw + 1 - w - pl;
    int64_t oh = OutSize(h, kh, sh, dh, pt, pb), ow = OutSize(w, kw, sw, dw, pl, pr);
    // ceil_mode: one more window, reaching past the padding, when a remainder is left.
    const bool ceil_mode = trial % 3 == 0;
    if (ceil_mode && (h + pt + pb - (kh - 1) * dh - 1) % sh != 0 && (oh * sh - pt) < h) ++oh;
    if (ceil_mode && (w + pl + pr - (kw - 1) * dw - 1) % sw != 0 && (ow * sw - pl) < w) ++ow;
    const NchwcPoolKind kind = static_cast<NchwcPoolKind>(trial % 3);
    const std::vector<float> x = Random(rng, n * c * h * w);
    for (CpuIsa level : Levels()) {
      const IsaKernels& kernels = KernelsFor(level);
      const int64_t b = NchwcBlockSize(kernels);
      const int64_t cp = RoundUp(c, b);
      SCOPED_TRACE(testing::Message()
                   << IsaName(level) << " kind " << static_cast<int>(kind) << " n " << n << " c "
                   << c << " in " << h << "x" << w << " k " << kh << "x" << kw << " s " << sh << ","
                   << sw << " d " << dh << "," << dw << " pads " << pt << "," << pl << "," << pb
                   << "," << pr << " out " << oh << "x" << ow);
      NchwcPoolShape shape{n, cp, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, kind};
      const std::vector<float> input = ToNchwc(x, n, c, h * w, b, 0.0f);
      std::vector<float> out(static_cast<size_t>(n * cp * oh * ow),
                             std::numeric_limits<float>::quiet_NaN());
      const int64_t items = NchwcPoolWorkItems(kernels, shape);
      NchwcPool(kernels, shape, input.data(), out.data(), 0, items / 2);
      NchwcPool(kernels, shape, input.data(), out.data(), items / 2, items);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t y = 0; y < oh; ++y)
            for (int64_t z = 0; z < ow; ++z) {
              double acc = kind == NchwcPoolKind::kMax ? -INFINITY : 0.0;
              int64_t inside = 0, padded_count = 0;
              for (int64_t a = 0; a < kh; ++a)
                for (int64_t bb = 0; bb < kw; ++bb) {
                  const int64_t ih = y * sh - pt + a * dh, iw = z * sw - pl + bb * dw;
                  if (ih >= -pt && ih < h + pb && iw >= -pl && iw < w + pr) ++padded_count;
                  if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                  ++inside;
                  const double v = x[static_cast<size_t>(((i * c + ch) * h + ih) * w + iw)];
                  acc = kind == NchwcPoolKind::kMax ? std::max(acc, v) : acc + v;
                }
              if (inside == 0) continue;  // a window wholly in the padding: no value defined
              if (kind == NchwcPoolKind::kAverageIncludePad) acc /= double(padded_count);
              if (kind == NchwcPoolKind::kAverageExcludePad) acc /= double(inside);
              const float got = FromNchwc(out, cp, oh * ow, b, i, ch, y * ow + z);
              ASSERT_NEAR(got, acc, 1e-5)
                  << "image " << i << " channel " << ch << " at " << y << "," << z;
            }
    }
  }
}

// MaxPool's unclipped interior runs (the 3-wide stride-2 column-maxima path, the general path
// with several outputs in flight) and its clipped edges: a NaN tap makes exactly its windows'
// outputs NaN, infinities are ordinary values. Wide rows, so that the interior runs are long and
// ragged (not a multiple of the outputs in flight), and every level; the maximum is exact.
TEST(NchwcTest, MaxPoolPropagatesNanAndKeepsInfinitiesOnEveryLevel) {
  std::mt19937 rng(17);
  auto pick = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = pick(1, 2), c = pick(1, 20), h = pick(1, 9), w = pick(1, 41);
    // Half the trials the 3x3 stride-2 window of the CNNs' pools.
    const bool cnn = trial % 2 == 0;
    const int64_t kh = cnn ? 3 : pick(1, 4), kw = cnn ? 3 : pick(1, 4);
    const int64_t sh = cnn ? 2 : pick(1, 3), sw = cnn ? 2 : pick(1, 3);
    const int64_t dh = !cnn && trial % 5 == 1 ? 2 : 1, dw = !cnn && trial % 7 == 1 ? 2 : 1;
    const int64_t pt = pick(0, kh - 1), pl = pick(0, kw - 1);
    int64_t pb = pick(0, kh - 1), pr = pick(0, kw - 1 + sw);
    if (h + pt + pb < (kh - 1) * dh + 1) pb = (kh - 1) * dh + 1 - h - pt;
    if (w + pl + pr < (kw - 1) * dw + 1) pr = (kw - 1) * dw + 1 - w - pl;
    const int64_t oh = OutSize(h, kh, sh, dh, pt, pb), ow = OutSize(w, kw, sw, dw, pl, pr);
    std::vector<float> x = Random(rng, n * c * h * w);
    // No NaN in a quarter of the trials (the unclipped runs keep their results), else 1 to 3;
    // a few infinities of either sign.
    const int64_t nans = trial % 4 == 0 ? 0 : pick(1, 3);
    for (int64_t i = 0; i < nans; ++i) x[static_cast<size_t>(pick(0, n * c * h * w - 1))] = nan;
    for (int64_t i = 0; i < 3; ++i)
      x[static_cast<size_t>(pick(0, n * c * h * w - 1))] = i == 0 ? -inf : inf;
    for (CpuIsa level : Levels()) {
      const IsaKernels& kernels = KernelsFor(level);
      const int64_t b = NchwcBlockSize(kernels);
      const int64_t cp = RoundUp(c, b);
      SCOPED_TRACE(testing::Message()
                   << IsaName(level) << " n " << n << " c " << c << " in " << h << "x" << w << " k "
                   << kh << "x" << kw << " s " << sh << "," << sw << " d " << dh << "," << dw
                   << " pads " << pt << "," << pl << "," << pb << "," << pr << " out " << oh << "x"
                   << ow << " NaNs " << nans);
      NchwcPoolShape shape{
          n, cp, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, NchwcPoolKind::kMax};
      const std::vector<float> input = ToNchwc(x, n, c, h * w, b, 0.0f);
      std::vector<float> out(static_cast<size_t>(n * cp * oh * ow), 7.0f);
      const int64_t items = NchwcPoolWorkItems(kernels, shape);
      const int64_t split = pick(0, items);
      NchwcPool(kernels, shape, input.data(), out.data(), 0, split);
      NchwcPool(kernels, shape, input.data(), out.data(), split, items);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t y = 0; y < oh; ++y)
            for (int64_t z = 0; z < ow; ++z) {
              float expected = -inf;
              bool any_nan = false, inside = false;
              for (int64_t a = 0; a < kh; ++a)
                for (int64_t bb = 0; bb < kw; ++bb) {
                  const int64_t ih = y * sh - pt + a * dh, iw = z * sw - pl + bb * dw;
                  if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                  inside = true;
                  const float v = x[static_cast<size_t>(((i * c + ch) * h + ih) * w + iw)];
                  any_nan = any_nan || std::isnan(v);
                  if (v > expected) expected = v;
                }
              if (!inside) continue;
              const float got = FromNchwc(out, cp, oh * ow, b, i, ch, y * ow + z);
              if (any_nan)
                ASSERT_TRUE(std::isnan(got)) << "image " << i << " channel " << ch << " at " << y
                                             << "," << z << ": " << got << ", expected NaN";
              else
                ASSERT_EQ(got, expected)
                    << "image " << i << " channel " << ch << " at " << y << "," << z;
            }
    }
  }
}

TEST(NchwcTest, ReordersPlaceEveryChannelAndZeroThePaddedLanes) {
  std::mt19937 rng(9);
  for (int64_t channels : {1, 5, 8, 16, 17, 33}) {
    for (int64_t spatial : {1, 7, 16, 49, 50}) {
      const std::vector<float> x = Random(rng, channels * spatial);
      for (CpuIsa level : Levels()) {
        const IsaKernels& kernels = KernelsFor(level);
        const int64_t b = NchwcBlockSize(kernels);
        const int64_t blocks = RoundUp(channels, b) / b;
        SCOPED_TRACE(testing::Message()
                     << IsaName(level) << " channels " << channels << " spatial " << spatial);
        std::vector<float> blocked(static_cast<size_t>(blocks * b * spatial), 9.0f);
        NchwcReorderInput(kernels, x.data(), channels, spatial, blocked.data(), 0, 1);
        NchwcReorderInput(kernels, x.data(), channels, spatial, blocked.data(), 1, blocks);
        ASSERT_EQ(blocked, ToNchwc(x, 1, channels, spatial, b, 0.0f));
        std::vector<float> back(static_cast<size_t>(channels * spatial + 8), 4.0f);
        NchwcReorderOutput(kernels, blocked.data(), channels, spatial, back.data(), 0, blocks);
        for (int64_t i = 0; i < channels * spatial; ++i)
          ASSERT_EQ(back[static_cast<size_t>(i)], x[static_cast<size_t>(i)]) << "at " << i;
        for (int64_t i = channels * spatial; i < channels * spatial + 8; ++i)
          ASSERT_EQ(back[static_cast<size_t>(i)], 4.0f) << "written past the output at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace prism::mlas
