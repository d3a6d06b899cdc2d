// The channels-last 8-bit ops the NhwcTransformer makes, against their channels-first originals
// on random data (bit-exact: the same integer arithmetic and the same requantization):
//   com.microsoft QLinearConv channels_last=1 on NHWC X  ==  NHWC of ONNX QLinearConv on NCHW X
//     (pointwise, strided, padded, dilated, grouped, depthwise and 7x7 first-layer convolutions,
//     1-D and 3-D ones, ragged channel counts, int8 and uint8 x and y, per-channel w scales and
//     zero points, with and without B, W prepacked and fed);
//   com.microsoft NhwcMaxPool on NHWC X  ==  NHWC of ONNX MaxPool on NCHW X
//     (uint8 and int8, strides, pads, dilations, ceil_mode, auto_pad; 2-D and 3-D).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

// Random bytes of an 8-bit tensor of `type`.
Tensor RandomBytes(E type, const std::vector<int64_t>& dims, std::mt19937& engine) {
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  std::uniform_int_distribution<int> byte(0, 255);
  auto* data = static_cast<uint8_t*>(tensor.MutableRawData());
  for (int64_t i = 0; i < tensor.NumElements(); ++i) data[i] = static_cast<uint8_t>(byte(engine));
  return tensor;
}

Tensor Scalar8(E type, int value) {
  Tensor tensor(type, TensorShape({}), GetCpuAllocator());
  *static_cast<uint8_t*>(tensor.MutableRawData()) = static_cast<uint8_t>(value);
  return tensor;
}

// [N, C, spatial...] <-> [N, spatial..., C] of an 8-bit tensor (to_last picks the direction;
// dims are the source's).
Tensor SwapLayout(const Tensor& x, bool to_last) {
  const std::vector<int64_t>& dims = x.Shape().Dims();
  const int64_t batch = dims[0];
  const int64_t channels = to_last ? dims[1] : dims.back();
  const int64_t size = Count(dims) / (batch * channels);
  std::vector<int64_t> out_dims = {batch};
  if (to_last) {
    out_dims.insert(out_dims.end(), dims.begin() + 2, dims.end());
    out_dims.push_back(channels);
  } else {
    out_dims.push_back(channels);
    out_dims.insert(out_dims.end(), dims.begin() + 1, dims.end() - 1);
  }
  Tensor out(x.Type(), TensorShape(out_dims), GetCpuAllocator());
  const auto* in = static_cast<const uint8_t*>(x.RawData());
  auto* result = static_cast<uint8_t*>(out.MutableRawData());
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t s = 0; s < size; ++s) {
        const int64_t first = (n * channels + c) * size + s, last = (n * size + s) * channels + c;
        result[to_last ? last : first] = in[to_last ? first : last];
      }
  return out;
}

std::string Bytes(const Tensor& t) {
  return std::string(static_cast<const char*>(t.RawData()), static_cast<size_t>(t.SizeInBytes()));
}

struct ConvCase {
  const char* name;
  std::vector<int64_t> x_dims;  // NCHW
  int64_t filters;
  std::vector<int64_t> kernel;
  int64_t group = 1;
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> pads = {0, 0, 0, 0};
  std::vector<int64_t> dilations = {1, 1};
};

// The 8-bit value of byte `b` of a tensor of `type`.
int Value8(E type, uint8_t b) {
  return type == E::kInt8 ? static_cast<int8_t>(b) : b;
}

// QLinearConv of NCHW x computed directly (int64 sums over the window, requantized in double),
// sharing nothing with the runtime's lowering and GEMM: the outputs, NCHW, as ints.
std::vector<int> DirectQLinearConv(const ConvCase& c, const Tensor& x, const Tensor& w, int x_zero,
                                   const Tensor& w_zero, const std::vector<int32_t>* bias,
                                   double x_scale, const std::vector<float>& w_scales,
                                   double y_scale, int y_zero, E y_type) {
  const size_t rank = c.kernel.size();
  const int64_t batch = c.x_dims[0], channels = c.x_dims[1], m = c.filters;
  const int64_t in_per_group = channels / c.group, out_per_group = m / c.group;
  std::vector<int64_t> in(c.x_dims.begin() + 2, c.x_dims.end()), out(rank);
  for (size_t d = 0; d < rank; ++d)
    out[d] = (in[d] + c.pads[d] + c.pads[d + rank] - c.dilations[d] * (c.kernel[d] - 1) - 1) /
                 c.strides[d] +
             1;
  const int64_t in_size = Count(in), out_size = Count(out), kernel_size = Count(c.kernel);
  const auto* xb = static_cast<const uint8_t*>(x.RawData());
  const auto* wb = static_cast<const uint8_t*>(w.RawData());
  const auto* zb = static_cast<const uint8_t*>(w_zero.RawData());
  std::vector<int> y(static_cast<size_t>(batch * m * out_size));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t f = 0; f < m; ++f)
      for (int64_t o = 0; o < out_size; ++o) {
        std::vector<int64_t> oc(rank);
        for (int64_t rest = o, d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
          oc[static_cast<size_t>(d)] = rest % out[static_cast<size_t>(d)];
          rest /= out[static_cast<size_t>(d)];
        }
        const int wz = Value8(w.Type(), zb[w_zero.NumElements() > 1 ? f : 0]);
        int64_t sum = 0;
        for (int64_t ci = 0; ci < in_per_group; ++ci)
          for (int64_t k = 0; k < kernel_size; ++k) {
            int64_t pixel = 0;
            bool inside = true;
            for (int64_t rest = k, d = static_cast<int64_t>(rank) - 1, scale = 1; d >= 0; --d) {
              const auto du = static_cast<size_t>(d);
              const int64_t kd = rest % c.kernel[du];
              rest /= c.kernel[du];
              const int64_t coord = oc[du] * c.strides[du] - c.pads[du] + kd * c.dilations[du];
              inside = inside && coord >= 0 && coord < in[du];
              pixel += coord * scale;
              scale *= in[du];
            }
            if (!inside) continue;  // padding is the zero point: (x_zero - x_zero) * w
            const int64_t channel = f / out_per_group * in_per_group + ci;
            const int xv = Value8(x.Type(), xb[(n * channels + channel) * in_size + pixel]);
            const int wv = Value8(w.Type(), wb[(f * in_per_group + ci) * kernel_size + k]);
            sum += static_cast<int64_t>(xv - x_zero) * (wv - wz);
          }
        if (bias != nullptr) sum += (*bias)[static_cast<size_t>(f)];
        const double scale = x_scale * w_scales[w_scales.size() > 1 ? static_cast<size_t>(f) : 0];
        const double value = std::nearbyint(static_cast<double>(sum) * scale / y_scale) + y_zero;
        y[static_cast<size_t>((n * m + f) * out_size + o)] = static_cast<int>(std::clamp(
            value, y_type == E::kInt8 ? -128.0 : 0.0, y_type == E::kInt8 ? 127.0 : 255.0));
      }
  return y;
}

// Runs case c both ways for one type combination; expects the same bytes.
void ExpectConvChannelsLastMatches(const ConvCase& c, E x_type, E w_type, E y_type,
                                   bool per_channel, bool with_bias, bool constant_w, unsigned seed,
                                   bool centered_w = false) {
  SCOPED_TRACE(::testing::Message()
               << c.name << ": x " << ElementTypeName(x_type) << " w " << ElementTypeName(w_type)
               << " y " << ElementTypeName(y_type) << (per_channel ? " per-channel" : "")
               << (with_bias ? " bias" : "") << (constant_w ? " constant W" : " fed W")
               << (centered_w ? " centered W" : ""));
  std::mt19937 engine(seed);
  const int64_t m = c.filters;
  const int64_t channels = c.x_dims[1];
  const Tensor x = RandomBytes(x_type, c.x_dims, engine);
  std::vector<int64_t> w_dims = {m, channels / c.group};
  w_dims.insert(w_dims.end(), c.kernel.begin(), c.kernel.end());
  const Tensor w = RandomBytes(w_type, w_dims, engine);
  std::uniform_real_distribution<float> unit(0.5f, 1.5f);
  std::uniform_int_distribution<int> zero_byte(0, 255);
  // Scales that keep the requantized values spread over the output range (sums of up to a few
  // thousand products of magnitude ~1e4).
  const float depth = static_cast<float>(channels / c.group * Count(c.kernel));
  const float x_scale = 0.05f * unit(engine);
  const float y_scale = 0.05f * 0.002f * 150.0f * std::sqrt(depth) * unit(engine);
  std::vector<float> w_scales(per_channel ? static_cast<size_t>(m) : 1);
  for (float& s : w_scales) s = 0.002f * unit(engine);
  Tensor w_zero(w_type, TensorShape(per_channel ? std::vector<int64_t>{m} : std::vector<int64_t>{}),
                GetCpuAllocator());
  for (int64_t i = 0; i < w_zero.NumElements(); ++i)
    static_cast<uint8_t*>(w_zero.MutableRawData())[i] =
        static_cast<uint8_t>(centered_w           ? (w_type == E::kInt8 ? 0 : 128)
                             : w_type == E::kInt8 ? zero_byte(engine) % 16 - 8
                                                  : 120 + i % 16);
  std::vector<int32_t> bias(static_cast<size_t>(m));
  std::uniform_int_distribution<int32_t> bias_value(-20000, 20000);
  for (int32_t& b : bias) b = bias_value(engine);
  const int x_zero = x_type == E::kUint8 ? 128 + zero_byte(engine) % 9 : zero_byte(engine) % 9 - 4;
  const int y_zero = y_type == E::kUint8 ? 120 + zero_byte(engine) % 17 : zero_byte(engine) % 9 - 4;

  const auto run = [&](bool channels_last) {
    OpTester test("QLinearConv", channels_last ? 1 : 10, channels_last ? "com.microsoft" : "");
    test.InputTensor("x", channels_last ? SwapLayout(x, true) : x);
    test.Input<float>("x_scale", {}, {x_scale});
    test.InputTensor("x_zero_point", Scalar8(x_type, x_zero));
    test.InputTensor("w", w, constant_w);
    if (per_channel)
      test.Input<float>("w_scale", {m}, w_scales);
    else
      test.Input<float>("w_scale", {}, w_scales);
    test.InputTensor("w_zero_point", w_zero);
    test.Input<float>("y_scale", {}, {y_scale});
    test.InputTensor("y_zero_point", Scalar8(y_type, y_zero));
    if (with_bias) test.Input<int32_t>("B", {m}, bias);
    test.OutputTensor("y", Tensor(y_type, TensorShape({}), GetCpuAllocator()));
    test.Attr("kernel_shape", c.kernel).Attr("strides", c.strides).Attr("pads", c.pads);
    test.Attr("dilations", c.dilations).Attr("group", c.group);
    if (channels_last) test.Attr("channels_last", int64_t{1});
    // The reference runs the ONNX op as it is (the pass would make it channels-last).
    if (!channels_last) test.DisableOptimizers({"NhwcTransformer"});
    std::vector<Value> outputs = test.RunAndGet();
    const Tensor& y = outputs.at(0).GetTensor();
    return channels_last ? SwapLayout(y, false) : y;
  };
  const Tensor expected = run(false);
  const Tensor actual = run(true);
  ASSERT_EQ(actual.Shape(), expected.Shape());
  ASSERT_EQ(actual.Type(), expected.Type());
  // Both ways share the lowering and the GEMM: the channels-first one is also checked against
  // the direct convolution, within a step (the runtime's multiplier is a float).
  const std::vector<int> direct =
      DirectQLinearConv(c, x, w, x_zero, w_zero, with_bias ? &bias : nullptr, x_scale, w_scales,
                        y_scale, y_zero, y_type);
  ASSERT_EQ(static_cast<int64_t>(direct.size()), expected.NumElements());
  int64_t off_by_more = 0;
  for (int64_t i = 0; i < expected.NumElements(); ++i) {
    const int value = Value8(y_type, static_cast<const uint8_t*>(expected.RawData())[i]);
    if (std::abs(value - direct[static_cast<size_t>(i)]) > 1 && off_by_more++ < 3)
      ADD_FAILURE() << "output " << i << ": " << value << ", direct convolution "
                    << direct[static_cast<size_t>(i)];
  }
  EXPECT_EQ(off_by_more, 0);
  // The outputs must not be mostly saturated, or the comparison would prove little.
  int64_t inside = 0;
  const auto* bytes = static_cast<const uint8_t*>(expected.RawData());
  for (int64_t i = 0; i < expected.NumElements(); ++i) {
    const int value = y_type == E::kInt8 ? static_cast<int8_t>(bytes[i]) : bytes[i];
    const int low = y_type == E::kInt8 ? -128 : 0;
    inside += value != low && value != low + 255;
  }
  EXPECT_GT(inside * 2, expected.NumElements()) << "most outputs saturated";
  EXPECT_TRUE(Bytes(actual) == Bytes(expected));
}

const std::vector<ConvCase>& ConvCases() {
  static const std::vector<ConvCase> cases = {
      {"pointwise, ragged channels", {1, 19, 5, 7}, 37, {1, 1}},
      {"pointwise, batch 2, many filters", {2, 64, 4, 4}, 80, {1, 1}},
      {"pointwise strided", {1, 24, 9, 9}, 40, {1, 1}, 1, {2, 2}},
      {"3x3 padded", {1, 21, 8, 10}, 33, {3, 3}, 1, {1, 1}, {1, 1, 1, 1}},
      {"3x3 stride 2, asymmetric pads", {2, 16, 9, 8}, 24, {3, 3}, 1, {2, 2}, {0, 1, 1, 0}},
      {"3x3 dilated", {1, 8, 11, 11}, 12, {3, 3}, 1, {1, 1}, {2, 2, 2, 2}, {2, 2}},
      {"7x7 stride 2, three channels", {1, 3, 20, 20}, 16, {7, 7}, 1, {2, 2}, {3, 3, 3, 3}},
      {"grouped", {1, 12, 6, 6}, 18, {3, 3}, 3, {1, 1}, {1, 1, 1, 1}},
      {"depthwise 3x3", {1, 35, 9, 9}, 35, {3, 3}, 35, {1, 1}, {1, 1, 1, 1}},
      {"depthwise 3x3 stride 2, batch 2", {2, 24, 10, 9}, 24, {3, 3}, 24, {2, 2}, {1, 1, 1, 1}},
      {"depthwise 5x5 dilated", {1, 17, 12, 12}, 17, {5, 5}, 17, {1, 1}, {4, 4, 4, 4}, {2, 2}},
      {"depthwise 3x3, 70 channels (four vectors a block)",
       {1, 70, 7, 6},
       70,
       {3, 3},
       70,
       {1, 1},
       {1, 1, 1, 1}},
      {"depthwise 17x17 (289 taps: int32 sums)",
       {1, 20, 18, 18},
       20,
       {17, 17},
       20,
       {1, 1},
       {8, 8, 8, 8}},
      // Whole blocks of 16 channels: the int16 kernel (depthwise_nhwc_q8) inside, the edges
      // beside it.
      {"depthwise 3x3, 32 channels", {1, 32, 9, 10}, 32, {3, 3}, 32, {1, 1}, {1, 1, 1, 1}},
      {"depthwise 3x3 stride 2, asymmetric pads, 48 channels, batch 2",
       {2, 48, 11, 10},
       48,
       {3, 3},
       48,
       {2, 2},
       {0, 1, 1, 0}},
      {"depthwise 5x5 dilated, 16 channels",
       {1, 16, 13, 12},
       16,
       {5, 5},
       16,
       {1, 1},
       {4, 4, 4, 4},
       {2, 2}},
      {"depthwise 2x2 (even taps), 32 channels", {1, 32, 6, 7}, 32, {2, 2}, 32},
      {"depthwise 3x3, 16 channels, no column inside",
       {1, 16, 3, 2},
       16,
       {3, 3},
       16,
       {1, 1},
       {1, 1, 1, 1}},
      {"1-D, padded", {2, 12, 15}, 20, {3}, 1, {1}, {1, 1}, {1}},
      {"1-D depthwise (grouped GEMM)", {1, 10, 13}, 10, {5}, 10, {2}, {2, 2}, {1}},
      {"3-D", {1, 6, 5, 6, 7}, 10, {3, 2, 3}, 2, {1, 2, 1}, {1, 0, 1, 1, 1, 1}, {1, 1, 2}},
      {"depthwise multiplier 2 (grouped GEMM)", {1, 8, 7, 7}, 16, {3, 3}, 8, {1, 1}, {1, 1, 1, 1}},
  };
  return cases;
}

TEST(QLinearConvChannelsLast, MatchesChannelsFirstOnRandomShapes) {
  unsigned seed = 1;
  for (const ConvCase& c : ConvCases()) {
    ExpectConvChannelsLastMatches(c, E::kUint8, E::kInt8, E::kUint8, true, true, true, seed++);
    ExpectConvChannelsLastMatches(c, E::kInt8, E::kInt8, E::kInt8, false, true, true, seed++);
    ExpectConvChannelsLastMatches(c, E::kUint8, E::kUint8, E::kUint8, true, false, false, seed++);
    ExpectConvChannelsLastMatches(c, E::kInt8, E::kUint8, E::kUint8, false, false, true, seed++);
  }
}

// Depthwise convolutions whose zero-point-shifted weights fit int8 (symmetric int8 weights, uint8
// ones with zero point 128): on AVX-512 VNNI the quad kernel (depthwise_nhwc_q8_quads) runs them,
// four taps a vpdpbusd, 64 channels a block (a partial last block under masks), a last group of
// one tap spread by vpshufb; elsewhere the int16 kernel. Both against the channels-first op.
TEST(QLinearConvChannelsLast, DepthwiseWithInt8RangeWeightsMatchesChannelsFirst) {
  static const std::vector<ConvCase> cases = {
      {"3x3 (a last group of one tap), 64 channels",
       {1, 64, 7, 9},
       64,
       {3, 3},
       64,
       {1, 1},
       {1, 1, 1, 1}},
      {"3x3 stride 2, 144 channels (a block of 16 last), batch 2",
       {2, 144, 9, 8},
       144,
       {3, 3},
       144,
       {2, 2},
       {1, 1, 1, 1}},
      {"2x2 (one whole group), 96 channels", {1, 96, 5, 6}, 96, {2, 2}, 96},
      {"3x2 (a last group of two taps), 48 channels",
       {1, 48, 6, 7},
       48,
       {3, 2},
       48,
       {1, 1},
       {1, 0, 1, 1}},
      {"5x5 dilated, 32 channels", {1, 32, 12, 11}, 32, {5, 5}, 32, {1, 1}, {4, 4, 4, 4}, {2, 2}},
      {"1x1, 16 channels", {1, 16, 3, 4}, 16, {1, 1}, 16},
  };
  unsigned seed = 100;
  for (const ConvCase& c : cases) {
    ExpectConvChannelsLastMatches(c, E::kUint8, E::kInt8, E::kUint8, true, true, true, seed++,
                                  true);
    ExpectConvChannelsLastMatches(c, E::kInt8, E::kInt8, E::kInt8, false, true, true, seed++, true);
    ExpectConvChannelsLastMatches(c, E::kUint8, E::kUint8, E::kInt8, true, false, true, seed++,
                                  true);
    ExpectConvChannelsLastMatches(c, E::kInt8, E::kUint8, E::kUint8, true, true, false, seed++,
                                  true);
  }
}

// X [1, 1, 2, 2] channels-last: pixels (1, 2) and (3, 4). A 1x1 convolution with filters (1, 1)
// and (2, -1), bias (10, 0), scales 1, zero points 0: pixel 0 gives (1 + 2 + 10, 2 - 2) = (13, 0),
// pixel 1 (3 + 4 + 10, 6 - 4) = (17, 2), channels-last.
TEST(QLinearConvChannelsLast, HandCheckedPointwise) {
  OpTester test("QLinearConv", 1, "com.microsoft");
  test.Input<uint8_t>("x", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("x_scale", {}, {1.0f});
  test.Input<uint8_t>("x_zero_point", {}, {0});
  test.Input<int8_t>("w", {2, 2, 1, 1}, {1, 1, 2, -1}, true);
  test.Input<float>("w_scale", {}, {1.0f});
  test.Input<int8_t>("w_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {0});
  test.Input<int32_t>("B", {2}, {10, 0});
  test.Attr("channels_last", int64_t{1});
  test.Output<uint8_t>("y", {1, 1, 2, 2}, {13, 0, 17, 2});
  test.Run();
}

// Depthwise (group 2) on int8 X [1, 1, 2, 2] channels-last, pixels (1, 2) and (3, 4), x zero point
// 1, weights 2 and 3, y zero point 5: ((1 - 1) * 2, (2 - 1) * 3) + 5 = (5, 8), then
// ((3 - 1) * 2, (4 - 1) * 3) + 5 = (9, 14).
TEST(QLinearConvChannelsLast, HandCheckedDepthwise) {
  OpTester test("QLinearConv", 1, "com.microsoft");
  test.Input<int8_t>("x", {1, 1, 2, 2}, {1, 2, 3, 4});
  test.Input<float>("x_scale", {}, {1.0f});
  test.Input<int8_t>("x_zero_point", {}, {1});
  test.Input<int8_t>("w", {2, 1, 1, 1}, {2, 3}, true);
  test.Input<float>("w_scale", {}, {1.0f});
  test.Input<int8_t>("w_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<int8_t>("y_zero_point", {}, {5});
  test.Attr("channels_last", int64_t{1}).Attr("group", int64_t{2});
  test.Output<int8_t>("y", {1, 1, 2, 2}, {5, 8, 9, 14});
  test.Run();
}

TEST(QLinearConvChannelsLast, ShapeErrorsNameTheNode) {
  OpTester test("QLinearConv", 1, "com.microsoft");
  test.Input<uint8_t>("x", {4, 4}, std::vector<uint8_t>(16, 1));
  test.Input<float>("x_scale", {}, {1.0f});
  test.Input<uint8_t>("x_zero_point", {}, {0});
  test.Input<int8_t>("w", {1, 4, 1, 1}, {1, 1, 1, 1});
  test.Input<float>("w_scale", {}, {1.0f});
  test.Input<int8_t>("w_zero_point", {}, {0});
  test.Input<float>("y_scale", {}, {1.0f});
  test.Input<uint8_t>("y_zero_point", {}, {0});
  test.OutputTensor("y", Tensor(E::kUint8, TensorShape({}), GetCpuAllocator()));
  test.Attr("channels_last", int64_t{1});
  test.ExpectFailure("channels-last QLinearConv input X must have rank >= 3");

  OpTester channels("QLinearConv", 1, "com.microsoft");
  channels.Input<uint8_t>("x", {1, 2, 2, 3}, std::vector<uint8_t>(12, 1));  // 3 channels
  channels.Input<float>("x_scale", {}, {1.0f});
  channels.Input<uint8_t>("x_zero_point", {}, {0});
  channels.Input<int8_t>("w", {1, 4, 1, 1}, {1, 1, 1, 1});  // wants 4
  channels.Input<float>("w_scale", {}, {1.0f});
  channels.Input<int8_t>("w_zero_point", {}, {0});
  channels.Input<float>("y_scale", {}, {1.0f});
  channels.Input<uint8_t>("y_zero_point", {}, {0});
  channels.OutputTensor("y", Tensor(E::kUint8, TensorShape({}), GetCpuAllocator()));
  channels.Attr("channels_last", int64_t{1});
  channels.ExpectFailure("channels-last X [1,2,2,3] has 3 channels (its last axis)");
}

struct PoolCase {
  const char* name;
  std::vector<int64_t> x_dims;  // NCHW
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> pads = {0, 0, 0, 0};
  std::vector<int64_t> dilations = {1, 1};
  int64_t ceil_mode = 0;
  std::string auto_pad = "NOTSET";
};

TEST(NhwcMaxPool, MatchesMaxPoolOnRandomShapes) {
  const std::vector<PoolCase> cases = {
      {"3x3 stride 2 pad 1 (resnet)", {1, 64, 16, 16}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"2x2 stride 2, ragged channels", {2, 37, 8, 9}, {2, 2}, {2, 2}},
      {"3x3 pad 1, 64 + 2 x 16 + 4 channels", {1, 100, 9, 7}, {3, 3}, {1, 1}, {1, 1, 1, 1}},
      {"ceil_mode", {1, 5, 7, 7}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},
      {"dilated, asymmetric pads", {1, 19, 10, 11}, {3, 2}, {1, 2}, {2, 0, 1, 1}, {2, 3}},
      {"SAME_UPPER", {1, 33, 9, 6}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 0, "SAME_UPPER"},
      {"3-D (the N-D loop)", {1, 5, 4, 5, 6}, {2, 2, 2}, {1, 2, 1}, {0, 1, 0, 1, 0, 1}, {1, 1, 2}},
  };
  unsigned seed = 100;
  for (const PoolCase& c : cases)
    for (E type : {E::kUint8, E::kInt8}) {
      SCOPED_TRACE(::testing::Message() << c.name << ", " << ElementTypeName(type));
      std::mt19937 engine(seed++);
      const Tensor x = RandomBytes(type, c.x_dims, engine);
      const auto run = [&](bool nhwc) {
        OpTester test(nhwc ? "NhwcMaxPool" : "MaxPool", nhwc ? 1 : 12, nhwc ? "com.microsoft" : "");
        test.InputTensor("x", nhwc ? SwapLayout(x, true) : x);
        test.OutputTensor("y", Tensor(type, TensorShape({}), GetCpuAllocator()));
        test.Attr("kernel_shape", c.kernel).Attr("strides", c.strides);
        test.Attr("dilations", c.dilations).Attr("ceil_mode", c.ceil_mode);
        if (c.auto_pad == "NOTSET")
          test.Attr("pads", c.pads);
        else
          test.Attr("auto_pad", c.auto_pad);
        std::vector<Value> outputs = test.RunAndGet();
        const Tensor& y = outputs.at(0).GetTensor();
        return nhwc ? SwapLayout(y, false) : y;
      };
      const Tensor expected = run(false);
      const Tensor actual = run(true);
      ASSERT_EQ(actual.Shape(), expected.Shape());
      EXPECT_TRUE(Bytes(actual) == Bytes(expected));
    }
}

// A 2x2 window over X [1, 2, 2, 2] channels-last: the maximum of each channel over the four
// pixels.
TEST(NhwcMaxPool, HandChecked) {
  OpTester u8("NhwcMaxPool", 1, "com.microsoft");
  u8.Input<uint8_t>("x", {1, 2, 2, 2}, {1, 8, 5, 2, 3, 4, 7, 6});
  u8.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  u8.Output<uint8_t>("y", {1, 1, 1, 2}, {7, 8});
  u8.Run();
  OpTester s8("NhwcMaxPool", 1, "com.microsoft");
  s8.Input<int8_t>("x", {1, 2, 2, 2}, {-1, -8, -5, 2, -3, -4, -7, 6});
  s8.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  s8.Output<int8_t>("y", {1, 1, 1, 2}, {-1, 6});
  s8.Run();
}

TEST(NhwcMaxPool, RankMismatchNamesTheNode) {
  OpTester test("NhwcMaxPool", 1, "com.microsoft");
  test.Input<uint8_t>("x", {1, 4, 4}, std::vector<uint8_t>(16, 1));
  test.OutputTensor("y", Tensor(E::kUint8, TensorShape({}), GetCpuAllocator()));
  test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
  test.ExpectFailure("must have rank 4 (N, spatial..., C)");
}

}  // namespace
}  // namespace prism::testing
