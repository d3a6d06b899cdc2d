// The com.microsoft.nchwc ops on the CPU EP (providers/cpu/nchwc/): one-node models against a
// naive double-precision convolution / pooling computed in NCHW and laid out in NCHWc here, for
// the three Conv kinds (constant W, prepacked, and W as a graph input; 3x3 stride-1 layers by
// Winograd's algorithm where W is constant), bias, Sum, the kernel's
// and the after-kernel activations, auto_pad, pools with ceil_mode and both average divisors,
// the reorders; and the refusals of what the ops do not support, naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mlas/nchwc.h"
#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr const char* kNchwc = "com.microsoft.nchwc";

int64_t Block() {
  return mlas::NchwcBlockSize();
}
int64_t RoundUp(int64_t c) {
  return (c + Block() - 1) / Block() * Block();
}

// OIHW [mp][cin_w][taps] -> the order the op takes W in (onnxruntime's): per block of b filters,
// the blocked kind [cin_w/b][taps][b_in][b_out], the others [cin_w][taps][b_out].
std::vector<float> OnnxruntimeFilterOrder(const std::vector<float>& oihw, int64_t mp, int64_t cin_w,
                                          int64_t taps, bool blocked_input) {
  const int64_t b = Block();
  std::vector<float> out;
  out.reserve(oihw.size());
  const auto at = [&](int64_t o, int64_t i, int64_t k) {
    return oihw[static_cast<size_t>((o * cin_w + i) * taps + k)];
  };
  for (int64_t ob = 0; ob < mp; ob += b) {
    if (blocked_input) {
      for (int64_t ib = 0; ib < cin_w; ib += b)
        for (int64_t k = 0; k < taps; ++k)
          for (int64_t i = ib; i < ib + b; ++i)
            for (int64_t o = ob; o < ob + b; ++o) out.push_back(at(o, i, k));
    } else {
      for (int64_t i = 0; i < cin_w; ++i)
        for (int64_t k = 0; k < taps; ++k)
          for (int64_t o = ob; o < ob + b; ++o) out.push_back(at(o, i, k));
    }
  }
  return out;
}

std::vector<float> Random(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = value(rng);
  return v;
}

// NCHW [n][c][spatial] -> NCHWc with cp channels, padded lanes `fill`.
std::vector<float> Blocked(const std::vector<float>& nchw, int64_t n, int64_t c, int64_t cp,
                           int64_t spatial, float fill) {
  const int64_t b = Block();
  std::vector<float> out(static_cast<size_t>(n * cp * spatial), fill);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t s = 0; s < spatial; ++s)
        out[static_cast<size_t>(((i * cp / b + ch / b) * spatial + s) * b + ch % b)] =
            nchw[static_cast<size_t>((i * c + ch) * spatial + s)];
  return out;
}

struct Conv2D {
  int64_t n, c, h, w, m, kh, kw, stride, pad_begin, pad_end, group;
};

int64_t OutSize(int64_t in, int64_t k, int64_t stride, int64_t p0, int64_t p1) {
  return (in + p0 + p1 - k) / stride + 1;
}

// Y[n][m][oh][ow] = sum over the window of X * W (+ bias + sum), in double; W [m][c/group][k][k].
std::vector<float> NaiveConv(const Conv2D& g, const std::vector<float>& x,
                             const std::vector<float>& w, const std::vector<float>& bias,
                             const std::vector<float>& sum, float (*activation)(double)) {
  const int64_t oh = OutSize(g.h, g.kh, g.stride, g.pad_begin, g.pad_end);
  const int64_t ow = OutSize(g.w, g.kw, g.stride, g.pad_begin, g.pad_end);
  const int64_t cin = g.c / g.group, mout = g.m / g.group;
  std::vector<float> y(static_cast<size_t>(g.n * g.m * oh * ow));
  for (int64_t i = 0; i < g.n; ++i)
    for (int64_t o = 0; o < g.m; ++o)
      for (int64_t yy = 0; yy < oh; ++yy)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = bias.empty() ? 0.0 : bias[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < cin; ++ci) {
            const int64_t channel = o / mout * cin + ci;
            for (int64_t a = 0; a < g.kh; ++a)
              for (int64_t bb = 0; bb < g.kw; ++bb) {
                const int64_t ih = yy * g.stride - g.pad_begin + a;
                const int64_t iw = xx * g.stride - g.pad_begin + bb;
                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                acc += double(x[static_cast<size_t>(((i * g.c + channel) * g.h + ih) * g.w + iw)]) *
                       w[static_cast<size_t>(((o * cin + ci) * g.kh + a) * g.kw + bb)];
              }
          }
          const size_t at = static_cast<size_t>(((i * g.m + o) * oh + yy) * ow + xx);
          if (!sum.empty()) acc += sum[at];
          y[at] = activation(acc);
        }
  return y;
}

float Identity(double v) {
  return static_cast<float>(v);
}
float Relu(double v) {
  return static_cast<float>(std::max(v, 0.0));
}
float HardSigmoid(double v) {
  return static_cast<float>(std::clamp(0.2 * v + 0.5, 0.0, 1.0));
}

enum class Kind { kBlocked, kNchwInput, kDepthwise };

// One NCHWc Conv of `kind` on c real channels (m outputs) against the naive convolution of the
// zero-padded filter; W constant (prepacked) or a graph input.
void RunConv(Kind kind, const Conv2D& real, bool constant_w, bool with_sum,
             const std::string& activation, int threads = 0) {
  const int64_t cp = kind == Kind::kNchwInput ? real.c : RoundUp(real.c);
  const int64_t mp = kind == Kind::kDepthwise ? cp : RoundUp(real.m);
  // The padded problem: padded input channels (zero taps) and padded outputs (zero filters).
  Conv2D padded = real;
  padded.c = cp;
  padded.m = mp;
  padded.group = kind == Kind::kDepthwise ? cp : 1;
  const int64_t cin_w = kind == Kind::kDepthwise ? 1 : cp;
  const int64_t real_cin_w = kind == Kind::kDepthwise ? 1 : real.c;
  const std::vector<float> w_real = Random(real.m * real_cin_w * real.kh * real.kw, 2);
  std::vector<float> w(static_cast<size_t>(mp * cin_w * real.kh * real.kw), 0.0f);
  for (int64_t o = 0; o < real.m; ++o)
    for (int64_t ci = 0; ci < real_cin_w; ++ci)
      for (int64_t k = 0; k < real.kh * real.kw; ++k)
        w[static_cast<size_t>((o * cin_w + ci) * real.kh * real.kw + k)] =
            w_real[static_cast<size_t>((o * real_cin_w + ci) * real.kh * real.kw + k)];
  std::vector<float> bias = Random(mp, 3);
  std::fill(bias.begin() + real.m, bias.end(), 0.0f);
  const int64_t oh = OutSize(real.h, real.kh, real.stride, real.pad_begin, real.pad_end);
  const int64_t ow = OutSize(real.w, real.kw, real.stride, real.pad_begin, real.pad_end);
  // X: real values, padded lanes 0 (the naive convolution sees them; the zero taps cancel them).
  const std::vector<float> x_real = Random(real.n * real.c * real.h * real.w, 1);
  std::vector<float> x_padded(static_cast<size_t>(real.n * cp * real.h * real.w), 0.0f);
  for (int64_t i = 0; i < real.n; ++i)
    std::copy_n(x_real.begin() + i * real.c * real.h * real.w, real.c * real.h * real.w,
                x_padded.begin() + i * cp * real.h * real.w);
  const std::vector<float> sum = with_sum ? Random(real.n * mp * oh * ow, 4) : std::vector<float>{};
  const auto act = activation == "Relu"          ? &Relu
                   : activation == "HardSigmoid" ? &HardSigmoid
                                                 : &Identity;
  const std::vector<float> expected = NaiveConv(padded, x_padded, w, bias, sum, act);

  OpTester test("Conv", 1, kNchwc);
  test.Attr("kernel_shape", std::vector<int64_t>{real.kh, real.kw});
  test.Attr("strides", std::vector<int64_t>{real.stride, real.stride});
  test.Attr("pads",
            std::vector<int64_t>{real.pad_begin, real.pad_begin, real.pad_end, real.pad_end});
  test.Attr("group", padded.group);
  if (!activation.empty()) test.Attr("activation", activation);
  if (activation == "HardSigmoid") test.Attr("activation_params", std::vector<float>{0.2f, 0.5f});
  const int64_t spatial = real.h * real.w;
  test.Input<float>(
      "X", {real.n, cp, real.h, real.w},
      kind == Kind::kNchwInput ? x_real : Blocked(x_real, real.n, real.c, cp, spatial, 0.0f));
  test.Input<float>("W", {mp, cin_w, real.kh, real.kw},
                    OnnxruntimeFilterOrder(w, mp, cin_w, real.kh * real.kw, kind == Kind::kBlocked),
                    constant_w);
  test.Input<float>("B", {mp}, bias, true);
  if (with_sum)
    test.Input<float>("Sum", {real.n, mp, oh, ow}, Blocked(sum, real.n, mp, mp, oh * ow, 0.0f));
  test.Output<float>("Y", {real.n, mp, oh, ow}, Blocked(expected, real.n, mp, mp, oh * ow, 0.0f));
  test.SetTolerance(1e-4, 1e-4, "float sums in another order than the double reference");
  test.IntraOpThreads(threads);
  test.Run();
}

TEST(NchwcOpsTest, BlockedConvMatchesTheNaiveConvolution) {
  // Ragged channels (padded to the block), odd plane, padding, bias + Sum + Relu in the kernel.
  RunConv(Kind::kBlocked, {2, 20, 9, 11, 37, 3, 3, 1, 1, 1, 1}, true, true, "Relu");
  // Stride 2, uneven pads, W as a graph input (packed at run time), no Sum.
  RunConv(Kind::kBlocked, {1, 16, 10, 7, 16, 3, 3, 2, 1, 0, 1}, false, false, "");
  // 1x1 and an activation after the kernel.
  RunConv(Kind::kBlocked, {1, 40, 5, 5, 24, 1, 1, 1, 0, 0, 1}, true, true, "HardSigmoid");
}

// Layers whose filters outweigh the input (many channels on a small plane) go to threads a
// group of output blocks' whole plane at a time (mlas::NchwcConvItemGrain), 3 threads sharing
// 9 or more groups unevenly; each group's next-filter prefetch points elsewhere.
TEST(NchwcOpsTest, ConvsOfBigFiltersOnSmallPlanesSplitOverThreadsByWholeGroups) {
  RunConv(Kind::kBlocked, {1, 64, 5, 5, 9 * 64, 3, 3, 1, 1, 1, 1}, true, true, "Relu", 3);
  RunConv(Kind::kBlocked, {2, 96, 3, 4, 10 * 64 + 16, 1, 1, 1, 0, 0, 1}, true, false, "", 3);
}

// A 3x3, stride 1 convolution of at least 16 channels on a plane of at least 32 output tiles of
// 2 x 2 runs by the Winograd algorithm (mlas/nchwc_winograd.h) when W is constant, F(4x4) from 36
// tiles of 4 x 4, directly when W is a graph input: all against the naive convolution.
TEST(NchwcOpsTest, WinogradConvMatchesTheNaiveConvolution) {
  RunConv(Kind::kBlocked, {2, 20, 13, 12, 37, 3, 3, 1, 1, 1, 1}, true, true, "Relu");
  RunConv(Kind::kBlocked, {1, 24, 24, 23, 20, 3, 3, 1, 1, 1, 1}, true, true, "Relu");
  RunConv(Kind::kBlocked, {1, 33, 15, 14, 16, 3, 3, 1, 0, 2, 1}, true, false, "HardSigmoid");
  RunConv(Kind::kBlocked, {1, 20, 13, 12, 37, 3, 3, 1, 1, 1, 1}, false, true, "");
}

TEST(NchwcOpsTest, NchwInputConvMatchesTheNaiveConvolution) {
  RunConv(Kind::kNchwInput, {1, 3, 23, 21, 20, 7, 7, 2, 3, 3, 1}, true, false, "Relu");
  RunConv(Kind::kNchwInput, {2, 1, 6, 6, 8, 3, 3, 1, 1, 1, 1}, false, true, "");
}

TEST(NchwcOpsTest, DepthwiseConvMatchesTheNaiveConvolution) {
  RunConv(Kind::kDepthwise, {1, 24, 9, 9, 24, 3, 3, 1, 1, 1, 1}, true, true, "Relu");
  RunConv(Kind::kDepthwise, {2, 16, 14, 13, 16, 3, 3, 2, 1, 1, 1}, false, false, "HardSigmoid");
}

TEST(NchwcOpsTest, ConvSamePaddingGivesTheCeilOutput) {
  // SAME_UPPER, stride 2 on 8x8: 4x4 outputs, pads 0 + 1 (total (4 - 1) * 2 + 3 - 8 = 1, the odd
  // one at the end).
  const int64_t b = Block();
  const std::vector<float> x(static_cast<size_t>(b * 64), 1.0f);
  std::vector<float> w(static_cast<size_t>(b * b * 9), 0.0f);
  // Output channel 0 sums input channel 0 over the window: the count of taps inside. In the
  // blocked order [1][1][taps][b_in][b_out] its taps are b * b apart.
  for (int64_t k = 0; k < 9; ++k) w[static_cast<size_t>(k * b * b)] = 1.0f;
  OpTester test("Conv", 1, kNchwc);
  test.Attr("auto_pad", std::string("SAME_UPPER"));
  test.Attr("strides", std::vector<int64_t>{2, 2});
  test.Input<float>("X", {1, b, 8, 8}, x);
  test.Input<float>("W", {b, b, 3, 3}, w, true);
  std::vector<float> expected(static_cast<size_t>(b * 16), 0.0f);
  // Windows start at rows 0, 2, 4, 6 of 0..7: 3, 3, 3 and 2 taps inside per axis.
  const float inside[4] = {3, 3, 3, 2};
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 4; ++c)
      expected[static_cast<size_t>((r * 4 + c) * b)] = inside[r] * inside[c];
  test.Output<float>("Y", {1, b, 4, 4}, expected);
  test.Run();
}

TEST(NchwcOpsTest, UnsupportedConvsAreRefusedNamingTheNode) {
  const int64_t b = Block();
  {
    // group 2 on blocked channels: none of the three kinds.
    OpTester test("Conv", 1, kNchwc);
    test.Attr("group", int64_t{2});
    test.Input<float>("X", {1, 2 * b, 3, 3}, std::vector<float>(static_cast<size_t>(18 * b)));
    test.Input<float>("W", {2 * b, b, 1, 1}, std::vector<float>(static_cast<size_t>(2 * b * b)),
                      true);
    test.Output<float>("Y", {1, 2 * b, 3, 3}, std::vector<float>(static_cast<size_t>(18 * b)));
    test.ExpectFailure("is none of the supported kinds");
  }
  {
    // X's channels do not match W's.
    OpTester test("Conv", 1, kNchwc);
    test.Input<float>("X", {1, 2 * b, 3, 3}, std::vector<float>(static_cast<size_t>(18 * b)));
    test.Input<float>("W", {b, b, 1, 1}, std::vector<float>(static_cast<size_t>(b * b)), true);
    test.Output<float>("Y", {1, b, 3, 3}, std::vector<float>(static_cast<size_t>(9 * b)));
    test.ExpectFailure("expected X channels");
  }
  {
    OpTester test("Conv", 1, kNchwc);
    test.Attr("activation", std::string("Elu"));
    test.Input<float>("X", {1, b, 1, 1}, std::vector<float>(static_cast<size_t>(b)));
    test.Input<float>("W", {b, b, 1, 1}, std::vector<float>(static_cast<size_t>(b * b)), true);
    test.Output<float>("Y", {1, b, 1, 1}, std::vector<float>(static_cast<size_t>(b)));
    test.ExpectFailure("activation 'Elu' is not one of");
  }
}

// Pools: NCHW reference on c real channels, compared in the blocked layout (padded lanes of X
// are 0, so the padded lanes of Y are 0 too).
enum class PoolOp { kMax, kAverage, kGlobalMax, kGlobalAverage };

void RunPool(PoolOp op, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t stride,
             int64_t pad, bool ceil_mode, bool include_pad) {
  const bool global = op == PoolOp::kGlobalMax || op == PoolOp::kGlobalAverage;
  const bool is_max = op == PoolOp::kMax || op == PoolOp::kGlobalMax;
  const int64_t kh = global ? h : k, kw = global ? w : k;
  const int64_t s = global ? 1 : stride, p = global ? 0 : pad;
  auto out_size = [&](int64_t in, int64_t kk) {
    const int64_t span = in + 2 * p - kk;
    int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (out - 1) * s >= in + p) --out;
    return out;
  };
  const int64_t oh = out_size(h, kh), ow = out_size(w, kw);
  const int64_t cp = RoundUp(c);
  const std::vector<float> x = Random(n * c * h * w, 7);
  std::vector<float> expected(static_cast<size_t>(n * c * oh * ow));
  for (int64_t i = 0; i < n * c; ++i)
    for (int64_t yy = 0; yy < oh; ++yy)
      for (int64_t xx = 0; xx < ow; ++xx) {
        double acc = is_max ? -INFINITY : 0.0;
        int64_t inside = 0, counted = 0;
        for (int64_t a = 0; a < kh; ++a)
          for (int64_t bb = 0; bb < kw; ++bb) {
            const int64_t ih = yy * s - p + a, iw = xx * s - p + bb;
            if (ih < h + p && iw < w + p) ++counted;
            if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
            ++inside;
            const double v = x[static_cast<size_t>((i * h + ih) * w + iw)];
            acc = is_max ? std::max(acc, v) : acc + v;
          }
        if (!is_max) acc /= static_cast<double>(include_pad ? counted : inside);
        expected[static_cast<size_t>((i * oh + yy) * ow + xx)] = static_cast<float>(acc);
      }
  const char* names[] = {"MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool"};
  OpTester test(names[static_cast<int>(op)], 1, kNchwc);
  if (!global) {
    test.Attr("kernel_shape", std::vector<int64_t>{k, k});
    test.Attr("strides", std::vector<int64_t>{stride, stride});
    test.Attr("pads", std::vector<int64_t>{pad, pad, pad, pad});
    test.Attr("ceil_mode", int64_t{ceil_mode ? 1 : 0});
    if (op == PoolOp::kAverage) test.Attr("count_include_pad", int64_t{include_pad ? 1 : 0});
  }
  test.Input<float>("X", {n, cp, h, w}, Blocked(x, n, c, cp, h * w, 0.0f));
  test.Output<float>("Y", {n, cp, oh, ow}, Blocked(expected, n, c, cp, oh * ow, 0.0f));
  test.SetTolerance(1e-5, 1e-5, "float sums against a double reference");
  test.Run();
}

TEST(NchwcOpsTest, PoolsMatchTheNaivePooling) {
  RunPool(PoolOp::kMax, 2, 20, 9, 9, 3, 2, 1, false, false);
  RunPool(PoolOp::kMax, 1, 8, 8, 8, 3, 2, 0, true, false);  // ceil_mode: a window past the end
  RunPool(PoolOp::kAverage, 1, 20, 7, 7, 3, 2, 1, true, true);
  RunPool(PoolOp::kAverage, 1, 20, 7, 7, 3, 2, 1, true, false);
  RunPool(PoolOp::kGlobalMax, 2, 40, 7, 7, 0, 0, 0, false, false);
  RunPool(PoolOp::kGlobalAverage, 1, 17, 5, 6, 0, 0, 0, false, false);
}

TEST(NchwcOpsTest, PoolsRefuseIndicesAndUnblockedInput) {
  OpTester test("MaxPool", 1, kNchwc);
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.Input<float>("X", {1, 3, 4, 4}, std::vector<float>(48));
  test.Output<float>("Y", {1, 3, 3, 3}, std::vector<float>(27));
  test.ExpectFailure("channels a multiple of the block");
}

TEST(NchwcOpsTest, ReordersRoundTripAndZeroThePaddedLanes) {
  const int64_t c = 5, h = 3, w = 2;
  const int64_t cp = RoundUp(c);
  const std::vector<float> x = Random(2 * c * h * w, 9);
  const std::vector<float> blocked = Blocked(x, 2, c, cp, h * w, 0.0f);
  {
    OpTester test("ReorderInput", 1, kNchwc);
    test.Input<float>("X", {2, c, h, w}, x);
    test.Output<float>("Y", {2, cp, h, w}, blocked);
    test.Run();
  }
  {
    OpTester test("ReorderOutput", 1, kNchwc);
    test.Attr("channels", c);
    test.Input<float>("X", {2, cp, h, w}, Blocked(x, 2, c, cp, h * w, 42.0f));
    test.Output<float>("Y", {2, c, h, w}, x);
    test.Run();
  }
}

TEST(NchwcOpsTest, ReordersRefuseChannelsLastAndBadChannelCounts) {
  {
    OpTester test("ReorderInput", 1, kNchwc);
    test.Attr("channels_last", int64_t{1});
    test.Input<float>("X", {1, 2, 2, 2}, std::vector<float>(8));
    test.Output<float>("Y", {1, Block(), 2, 2},
                       std::vector<float>(static_cast<size_t>(4 * Block())));
    test.ExpectFailure("supports channels_last 0 (NCHW) only, got 1");
  }
  {
    OpTester test("ReorderOutput", 1, kNchwc);
    test.Attr("channels", Block() + 1);
    test.Input<float>("X", {1, Block(), 1, 1}, std::vector<float>(static_cast<size_t>(Block())));
    test.Output<float>("Y", {1, Block() + 1, 1, 1},
                       std::vector<float>(static_cast<size_t>(Block() + 1)));
    test.ExpectFailure("ReorderOutput");
  }
}

}  // namespace
}  // namespace prism::testing
