#include "providers/cpu/quantization/int8_conv.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/status.h"
#include "common/thread_pool.h"
#include "framework/scratch_buffer.h"
#include "mlas/depthwise_q8.h"
#include "mlas/isa_kernels.h"
#include "mlas/transpose_bytes.h"

namespace prism::cpu::quantization {

namespace {

int64_t Product(const std::vector<int64_t>& values) {
  int64_t product = 1;
  for (const int64_t v : values) product *= v;
  return product;
}

// Channels-first image [C, size] -> channels-last [size, C], bytes.
void ToChannelsLast(const uint8_t* x, int64_t channels, int64_t size, uint8_t* out,
                    ThreadPool* pool) {
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (size + kBlock - 1) / kBlock;
  ThreadPool::TryParallelFor(pool, blocks, static_cast<double>(channels * kBlock),
                             [&](int64_t begin, int64_t end) {
                               const int64_t first = begin * kBlock;
                               const int64_t last = std::min(size, end * kBlock);
                               mlas::TransposeBytes(x + first, size, channels, last - first,
                                                    out + first * channels, channels);
                             });
}

// Rows [begin, end) of one group's lowered A: row p holds, for each kernel offset, the group's
// channels of the input pixel that offset reaches from output position p (pad where it falls
// outside). x is channels-last with `stride` bytes per pixel, already at the group's channel.
void LowerRows(const Int8ConvGeometry& g, const uint8_t* x, int64_t stride, uint8_t pad,
               int64_t begin, int64_t end, uint8_t* a, int64_t row_stride) {
  const size_t rank = g.in_spatial.size();
  const int64_t channels = g.InPerGroup();
  const int64_t kernel_size = Product(g.kernel);
  std::vector<int64_t> out_coord(rank), origin(rank), offset(rank);
  for (int64_t p = begin; p < end; ++p) {
    int64_t rest = p;
    for (size_t d = rank; d-- > 0;) {
      out_coord[d] = rest % g.out_spatial[d];
      rest /= g.out_spatial[d];
      origin[d] = out_coord[d] * g.strides[d] - g.pads_begin[d];
    }
    uint8_t* row = a + (p - begin) * row_stride;
    std::fill(offset.begin(), offset.end(), 0);
    for (int64_t k = 0; k < kernel_size; ++k) {
      int64_t pixel = 0;
      bool inside = true;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t coord = origin[d] + offset[d] * g.dilations[d];
        inside = inside && coord >= 0 && coord < g.in_spatial[d];
        pixel = pixel * g.in_spatial[d] + coord;
      }
      uint8_t* dst = row + k * channels;
      if (!inside) {
        std::memset(dst, pad, static_cast<size_t>(channels));
      } else if (channels < 16) {
        const uint8_t* src = x + pixel * stride;
        for (int64_t c = 0; c < channels; ++c) dst[c] = src[c];
      } else {
        std::memcpy(dst, x + pixel * stride, static_cast<size_t>(channels));
      }
      for (size_t d = rank; d-- > 0;) {  // next kernel offset, last axis fastest
        if (++offset[d] < g.kernel[d]) break;
        offset[d] = 0;
      }
    }
  }
}

// A run of bytes; those of 8 to 32 (a kernel row over few channels: 9 bytes for a 3x3 kernel on
// RGB, 21 for 7x7) as two overlapping fixed-size moves instead of a call to memcpy (three calls
// for each output pixel of mobilenetv2's first convolution).
inline void CopyRun(uint8_t* dst, const uint8_t* src, int64_t bytes) {
  const auto ends = [&](auto size) {
    constexpr auto kSize = static_cast<int64_t>(decltype(size)::value);
    uint8_t head[kSize], tail[kSize];
    std::memcpy(head, src, kSize);
    std::memcpy(tail, src + bytes - kSize, kSize);
    std::memcpy(dst, head, kSize);
    std::memcpy(dst + bytes - kSize, tail, kSize);
  };
  if (bytes >= 8 && bytes <= 16)
    ends(std::integral_constant<int64_t, 8>{});
  else if (bytes > 16 && bytes <= 32)
    ends(std::integral_constant<int64_t, 16>{});
  else
    std::memcpy(dst, src, static_cast<size_t>(bytes));
}

// LowerRows for 2-D: per output position and kernel row, the kernel's columns are one run of
// kernel_w * channels bytes in the channels-last image when the dilation is 1 and the run lies
// inside the row, copied at once (the first 7x7 convolution of resnet copies 21 bytes where it
// would copy 3 bytes 7 times); the border taps one by one.
void LowerRows2d(const Int8ConvGeometry& g, const uint8_t* x, int64_t stride, uint8_t pad,
                 int64_t begin, int64_t end, uint8_t* a, int64_t row_stride) {
  const int64_t channels = g.InPerGroup();
  const int64_t in_h = g.in_spatial[0], in_w = g.in_spatial[1];
  const int64_t out_w = g.out_spatial[1];
  const int64_t kernel_h = g.kernel[0], kernel_w = g.kernel[1];
  const int64_t stride_h = g.strides[0], stride_w = g.strides[1];
  const int64_t dilation_h = g.dilations[0], dilation_w = g.dilations[1];
  const int64_t pad_top = g.pads_begin[0], pad_left = g.pads_begin[1];
  // A run of whole pixels can be copied in one piece only when the group's channels are the
  // pixel's (one group) and the columns are adjacent.
  const bool runs = dilation_w == 1 && stride == channels;
  const auto copy = [channels](uint8_t* dst, const uint8_t* src) {
    if (channels < 16) {
      for (int64_t c = 0; c < channels; ++c) dst[c] = src[c];
    } else {
      std::memcpy(dst, src, static_cast<size_t>(channels));
    }
  };
  for (int64_t p = begin; p < end; ++p) {
    const int64_t oh = p / out_w, ow = p % out_w;
    uint8_t* row = a + (p - begin) * row_stride;
    const int64_t first_col = ow * stride_w - pad_left;
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      uint8_t* dst = row + kh * kernel_w * channels;
      const int64_t ih = oh * stride_h - pad_top + kh * dilation_h;
      if (ih < 0 || ih >= in_h) {
        std::memset(dst, pad, static_cast<size_t>(kernel_w * channels));
        continue;
      }
      const uint8_t* src_row = x + ih * in_w * stride;
      if (runs && first_col >= 0 && first_col + kernel_w <= in_w) {
        CopyRun(dst, src_row + first_col * stride, kernel_w * channels);
        continue;
      }
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        const int64_t iw = first_col + kw * dilation_w;
        if (iw < 0 || iw >= in_w)
          std::memset(dst + kw * channels, pad, static_cast<size_t>(channels));
        else
          copy(dst + kw * channels, src_row + iw * stride);
      }
    }
  }
}

bool IsPointwise(const Int8ConvGeometry& g) {
  for (size_t d = 0; d < g.kernel.size(); ++d)
    if (g.kernel[d] != 1 || g.strides[d] != 1 || g.pads_begin[d] != 0) return false;
  return g.out_spatial == g.in_spatial;
}

// One row of 8-bit outputs from its int32 sums (plus bias): clamp(round_half_even((sum + bias)
// * multiplier) + zero_point) in double, as QuantizedWriter::Store does for finite multipliers.
// The product is clamped to [low - zero_point, high - zero_point] (integers) before rounding,
// which gives the same result as clamping after it, and then rounds with cvtpd2dq (half to even
// in the default rounding mode, as nearbyint). A finite multiplier times an int32 stays finite.
void RequantizeRowEach(const int32_t* sum, const int32_t* bias, const double* multiplier,
                       int64_t count, int32_t zero_point, bool to_int8, uint8_t* out) {
  const double low = (to_int8 ? -128.0 : 0.0) - zero_point;
  const double high = (to_int8 ? 127.0 : 255.0) - zero_point;
  int64_t n = 0;
#if defined(__SSE2__)
  const __m128d lows = _mm_set1_pd(low), highs = _mm_set1_pd(high);
  const __m128i zeros = _mm_set1_epi32(zero_point);
  const auto two = [&](__m128i sums, const double* m) {
    const __m128d x = _mm_mul_pd(_mm_cvtepi32_pd(sums), _mm_loadu_pd(m));
    return _mm_cvtpd_epi32(_mm_min_pd(_mm_max_pd(x, lows), highs));
  };
  const auto four = [&](const int32_t* s, const int32_t* b, const double* m) {
    __m128i sums = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    if (b != nullptr)
      sums = _mm_add_epi32(sums, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
    const __m128i rounded =
        _mm_unpacklo_epi64(two(sums, m), two(_mm_shuffle_epi32(sums, 0xEE), m + 2));
    return _mm_add_epi32(rounded, zeros);
  };
  for (; n + 8 <= count; n += 8) {
    const __m128i words =
        _mm_packs_epi32(four(sum + n, bias ? bias + n : nullptr, multiplier + n),
                        four(sum + n + 4, bias ? bias + n + 4 : nullptr, multiplier + n + 4));
    const __m128i bytes = to_int8 ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + n), bytes);
  }
#endif
  for (; n < count; ++n) {
    // int32 wrapping addition, as the reference's int32 accumulation.
    const auto total = static_cast<int32_t>(static_cast<uint32_t>(sum[n]) +
                                            static_cast<uint32_t>(bias != nullptr ? bias[n] : 0));
    const double x = std::min(std::max(static_cast<double>(total) * multiplier[n], low), high);
    out[n] = static_cast<uint8_t>(
        static_cast<int8_t>(static_cast<int32_t>(std::nearbyint(x)) + zero_point));
  }
}

// RequantizeRowEach, on the level's vectorized kernel where it has one (AVX2, AVX-512: the same
// results); broadcast: bias[0] and multiplier[0] for every element (a depthwise plane).
void RequantizeRow(const int32_t* sum, const int32_t* bias, const double* multiplier,
                   bool broadcast, int64_t count, int32_t zero_point, bool to_int8, uint8_t* out) {
  if (const auto kernel = mlas::ActiveKernels().requantize_row_s32; kernel != nullptr)
    return kernel(sum, bias, multiplier, broadcast, count, zero_point, to_int8, out);
  if (!broadcast) return RequantizeRowEach(sum, bias, multiplier, count, zero_point, to_int8, out);
  constexpr int64_t kChunk = 256;
  std::array<double, kChunk> multipliers;
  std::array<int32_t, kChunk> biases;
  multipliers.fill(multiplier[0]);
  biases.fill(bias != nullptr ? bias[0] : 0);
  for (int64_t i = 0; i < count; i += kChunk)
    RequantizeRowEach(sum + i, bias != nullptr ? biases.data() : nullptr, multipliers.data(),
                      std::min(kChunk, count - i), zero_point, to_int8, out + i);
}

}  // namespace

std::shared_ptr<const PackedConvWeights> PackedConvWeights::Pack(const Tensor& w, int64_t group) {
  auto packed = std::make_shared<PackedConvWeights>();
  packed->type_ = w.Type();
  packed->shape_ = w.Shape();
  const int64_t out_channels = w.Shape()[0];
  const int64_t channels = w.Shape()[1];
  const int64_t kernel_size = w.NumElements() / std::max<int64_t>(out_channels * channels, 1);
  const int64_t out_per_group = out_channels / group;
  const int64_t depth = channels * kernel_size;
  const auto* weights = static_cast<const uint8_t*>(w.RawData());
  const bool widen = mlas::QgemmPairsSaturate(mlas::ActiveKernels());
  // Every byte of both buffers is written below: left uninitialized (zeroing them was 35 M of
  // the 448 M instructions of resnet50_qdq's session creation, callgrind).
  const auto b =
      std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(depth * out_per_group));
  // B[(k, c), m] = W[m, c, k]: the group's W [out_per_group, depth] transposed in 16 x 16 byte
  // blocks (TransposeBytes) gives rows in (c, k) order, which one row copy each puts in (k, c)
  // order (a 1 x 1 kernel needs none). Byte by byte in bands of 64 filters this took about a
  // tenth of resnet50_qdq's session creation.
  const auto by_channel = std::make_unique_for_overwrite<uint8_t[]>(
      kernel_size == 1 ? 0 : static_cast<size_t>(depth * out_per_group));
  for (int64_t g = 0; g < group; ++g) {
    const uint8_t* filters = weights + g * out_per_group * depth;
    uint8_t* transposed = kernel_size == 1 ? b.get() : by_channel.get();
    mlas::TransposeBytes(filters, depth, out_per_group, depth, transposed, out_per_group);
    if (kernel_size != 1)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t k = 0; k < kernel_size; ++k)
          std::memcpy(b.get() + (k * channels + c) * out_per_group,
                      transposed + (c * kernel_size + k) * out_per_group,
                      static_cast<size_t>(out_per_group));
    packed->groups_.push_back(mlas::PackedQuantB::Pack(depth, out_per_group, b.get(), out_per_group,
                                                       w.Type() == ElementType::kInt8, widen));
  }
  if (out_per_group == 1 && channels == 1)
    packed->depthwise_.assign(weights, weights + w.NumElements());
  return packed;
}

Tensor PackedConvWeights::Unpack() const {
  Tensor w(type_, shape_, GetCpuAllocator());
  const int64_t out_channels = shape_[0];
  const int64_t channels = shape_[1];
  const int64_t kernel_size = shape_.Size() / std::max<int64_t>(out_channels * channels, 1);
  const int64_t out_per_group = out_channels / GroupCount();
  const int64_t depth = channels * kernel_size;
  auto* weights = static_cast<uint8_t*>(w.MutableRawData());
  std::vector<uint8_t> b(static_cast<size_t>(depth * out_per_group));
  for (int64_t g = 0; g < GroupCount(); ++g) {
    Group(g).Unpack(b.data(), out_per_group);
    for (int64_t m = 0; m < out_per_group; ++m) {
      uint8_t* filter = weights + (g * out_per_group + m) * depth;
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t k = 0; k < kernel_size; ++k)
          filter[c * kernel_size + k] =
              b[static_cast<size_t>((k * channels + c) * out_per_group + m)];
    }
  }
  return w;
}

size_t PackedConvWeights::Bytes() const {
  size_t bytes = 0;
  for (const auto& g : groups_) bytes += g.Bytes();
  return bytes;
}

std::string PackedConvWeightsFormat(const Tensor& w, int64_t group) {
  const ElementType type = w.Type();
  if ((type != ElementType::kInt8 && type != ElementType::kUint8) || w.Shape().Rank() < 3 ||
      group < 1 || w.Shape()[0] % group != 0)
    return "";
  return MakeString("prism.Int8ConvWeights.", type == ElementType::kInt8 ? "s8" : "u8", ".group",
                    group, mlas::QgemmPairsSaturate(mlas::ActiveKernels()) ? "(wide)" : "");
}

PrePackedWeight PrePackConvWeights(const Tensor& w, int64_t group) {
  std::shared_ptr<const PackedConvWeights> packed = PackedConvWeights::Pack(w, group);
  PrePackedWeight result;
  result.data = packed;
  result.bytes = packed->Bytes();
  result.type = w.Type();
  result.shape = w.Shape();
  result.unpack = [packed] { return packed->Unpack(); };
  return result;
}

namespace {

bool IsDepthwise2d(const Int8ConvGeometry& g, const PackedConvWeights& w) {
  return g.in_spatial.size() == 2 && g.InPerGroup() == 1 && g.OutPerGroup() == 1 &&
         !w.Depthwise().empty();
}

// Sums of one output plane of a depthwise convolution: row by row, each kernel offset adding
// (x - x_zero) * (w - w_zero) over the output columns whose input column lies inside (padding is
// x_zero: it adds nothing).
template <typename X, typename W>
void DepthwisePlane(const Int8ConvGeometry& g, const X* x, const W* w, int32_t x_zero,
                    int32_t w_zero, int32_t* sums) {
  const int64_t in_h = g.in_spatial[0], in_w = g.in_spatial[1];
  const int64_t out_h = g.out_spatial[0], out_w = g.out_spatial[1];
  const int64_t kernel_h = g.kernel[0], kernel_w = g.kernel[1];
  const int64_t stride_h = g.strides[0], stride_w = g.strides[1];
  const int64_t dilation_h = g.dilations[0], dilation_w = g.dilations[1];
  const int64_t pad_top = g.pads_begin[0], pad_left = g.pads_begin[1];
  for (int64_t oh = 0; oh < out_h; ++oh) {
    int32_t* row_sums = sums + oh * out_w;
    std::fill_n(row_sums, out_w, 0);
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      const int64_t ih = oh * stride_h - pad_top + kh * dilation_h;
      if (ih < 0 || ih >= in_h) continue;
      const X* row = x + ih * in_w;
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        const int32_t weight = static_cast<int32_t>(w[kh * kernel_w + kw]) - w_zero;
        const int64_t offset = kw * dilation_w - pad_left;  // iw = ow * stride_w + offset
        const int64_t first = offset >= 0 ? 0 : (-offset + stride_w - 1) / stride_w;
        const int64_t last =
            in_w - 1 - offset < 0 ? 0 : std::min(out_w, (in_w - 1 - offset) / stride_w + 1);
        if (stride_w == 1) {
          const X* taps = row + offset;
          for (int64_t ow = first; ow < last; ++ow)
            row_sums[ow] += (static_cast<int32_t>(taps[ow]) - x_zero) * weight;
        } else {
          for (int64_t ow = first; ow < last; ++ow)
            row_sums[ow] += (static_cast<int32_t>(row[ow * stride_w + offset]) - x_zero) * weight;
        }
      }
    }
  }
}

void RunDepthwise(const Int8ConvGeometry& g, const Int8ConvArgs& args, ThreadPool* pool) {
  const int64_t in_size = Product(g.in_spatial);
  const int64_t out_size = Product(g.out_spatial);
  const int64_t kernel_size = Product(g.kernel);
  const int64_t channels = g.out_channels;
  const std::vector<uint8_t>& weights = args.w->Depthwise();
  const bool w_signed = args.w->Type() == ElementType::kInt8;
  // The level's float depthwise kernel is exact here: every product of the shifted values is an
  // integer below 2^16 and every partial sum of up to 256 of them one below 2^24.
  const bool in_float = kernel_size <= 256;
  mlas::DepthwiseGeometry geometry{};
  geometry.in_h = g.in_spatial[0];
  geometry.in_w = g.in_spatial[1];
  geometry.out_h = g.out_spatial[0];
  geometry.out_w = g.out_spatial[1];
  geometry.kernel_h = g.kernel[0];
  geometry.kernel_w = g.kernel[1];
  geometry.stride_h = g.strides[0];
  geometry.stride_w = g.strides[1];
  geometry.dilation_h = g.dilations[0];
  geometry.dilation_w = g.dilations[1];
  geometry.pad_h = g.pads_begin[0];
  geometry.pad_w = g.pads_begin[1];
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  ThreadPool::TryParallelFor(
      pool, g.batch * channels, static_cast<double>(out_size * kernel_size * 2),
      [&](int64_t begin, int64_t end) {
        std::vector<int32_t> sums(static_cast<size_t>(out_size));
        // Zeroed once: the kernel writes only the input's cells of it, the padding stays zero.
        std::vector<float> scratch(
            in_float ? static_cast<size_t>(mlas::DepthwiseLayoutOf(geometry).ScratchFloats()) : 0,
            0.0f);
        std::vector<float> x_float(in_float ? static_cast<size_t>(in_size) : 0);
        std::vector<float> y_float(in_float ? static_cast<size_t>(out_size) : 0);
        std::array<float, 256> w_float{};
        for (int64_t plane = begin; plane < end; ++plane) {
          const int64_t c = plane % channels;
          const int32_t w_zero =
              args.w_zero_per_channel != nullptr ? args.w_zero_per_channel[c] : args.w_zero;
          const void* x_plane = static_cast<const uint8_t*>(args.x) + plane * in_size;
          const uint8_t* w_plane = weights.data() + c * kernel_size;
          int32_t* out = args.y_int32 != nullptr ? args.y_int32 + plane * out_size : sums.data();
          const auto run = [&](auto x_tag, auto w_tag) {
            using X = decltype(x_tag);
            using W = decltype(w_tag);
            const auto* x_values = static_cast<const X*>(x_plane);
            const auto* w_values = reinterpret_cast<const W*>(w_plane);
            if (!in_float) {
              DepthwisePlane(g, x_values, w_values, args.x_zero, w_zero, out);
              return;
            }
            for (int64_t i = 0; i < in_size; ++i)
              x_float[static_cast<size_t>(i)] =
                  static_cast<float>(static_cast<int32_t>(x_values[i]) - args.x_zero);
            for (int64_t k = 0; k < kernel_size; ++k)
              w_float[static_cast<size_t>(k)] =
                  static_cast<float>(static_cast<int32_t>(w_values[k]) - w_zero);
            kernels.depthwise2d_f32(geometry, x_float.data(), w_float.data(), 0.0f, y_float.data(),
                                    scratch.data());
            for (int64_t i = 0; i < out_size; ++i)
              out[i] = static_cast<int32_t>(y_float[static_cast<size_t>(i)]);
          };
          if (args.x_signed)
            w_signed ? run(int8_t{}, int8_t{}) : run(int8_t{}, uint8_t{});
          else
            w_signed ? run(uint8_t{}, int8_t{}) : run(uint8_t{}, uint8_t{});
          if (args.y_int32 != nullptr) continue;
          RequantizeRow(sums.data(), args.bias != nullptr ? args.bias + c : nullptr,
                        args.multipliers + c, /*broadcast=*/true, out_size,
                        static_cast<int32_t>(args.y_zero), args.y_signed,
                        static_cast<uint8_t*>(args.y_8bit) + plane * out_size);
        }
      });
}

// The per-channel multipliers and biases of a channels-last QLinearConv repeated for `rows`
// positions, so that rows of Y that span every channel are requantized in one call: a depthwise
// output row, or a GEMM tile (mobilenet's layers of 16 to 96 channels spent about as long
// entering the row kernel, one position a call, as in it).
struct RepeatedChannels {
  std::vector<double> multipliers;
  std::vector<int32_t> bias;  // empty without a bias
  int64_t rows = 0;
};

RepeatedChannels RepeatChannels(const Int8ConvArgs& args, int64_t channels, int64_t rows) {
  RepeatedChannels repeated;
  repeated.rows = rows;
  const int64_t size = repeated.rows * channels;
  repeated.multipliers.resize(static_cast<size_t>(size));
  if (args.bias != nullptr) repeated.bias.resize(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    repeated.multipliers[static_cast<size_t>(i)] = args.multipliers[i % channels];
    if (args.bias != nullptr) repeated.bias[static_cast<size_t>(i)] = args.bias[i % channels];
  }
  return repeated;
}

// The per-channel multipliers as floats where the level's single-precision requantization
// (requantize_channels_f32) gives the double-precision results with them: each one a float,
// finite, with |multiplier| >= 2^-14 (QLinearConv's are floats). Empty otherwise.
std::vector<float> SinglePrecisionMultipliers(const Int8ConvArgs& args, int64_t channels) {
  if (args.y_8bit == nullptr || mlas::ActiveKernels().requantize_channels_f32 == nullptr) return {};
  std::vector<float> multipliers(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const double given = args.multipliers[c];
    const auto single = static_cast<float>(given);
    if (!std::isfinite(given) || static_cast<double>(single) != given ||
        std::fabs(single) < 0x1p-14f)
      return {};
    multipliers[static_cast<size_t>(c)] = single;
  }
  return multipliers;
}

}  // namespace

struct Int8ConvCache::Depthwise {
  // taps[k * C + c] = w[c, k] - w_zero[c] (an integer, |value| <= 255, held exactly as a float):
  // one row of weights per offset.
  std::vector<float> taps;
  // The float multipliers (SinglePrecisionMultipliers; empty where they do not serve).
  std::vector<float> single;
  // Whether the level's depthwise_nhwc_q8 runs it, and its packed operands then.
  bool q8 = false;
  mlas::DepthwiseQ8Operands packed;
  // Whether the level's depthwise_nhwc_q8_quads runs it instead (AVX-512 VNNI, the shifted
  // weights within int8), and its packed operands then.
  bool quads = false;
  mlas::DepthwiseQ8QuadOperands quad_packed;
};

namespace {

// RunDepthwiseChannelsLast on the level's depthwise_nhwc_q8 (int16 pairs of taps, requantized in
// its registers) for the pixels whose taps lie inside the input row (a padding row reads a row of
// x_zero, which the packed terms take back out); the few others per row (columns in the padding)
// on the same kernel, one gathered pixel at a time. operands: PrepareDepthwise's (the int16 or
// the quad kernel's packed form); columns as RunDepthwiseChannelsLast's.
void RunDepthwiseQ8(const Int8ConvGeometry& g, const Int8ConvArgs& args,
                    const Int8ConvCache::Depthwise& operands, const std::vector<int64_t>& columns,
                    ThreadPool* pool) {
  const int64_t channels = g.out_channels;
  const int64_t in_h = g.in_spatial[0], in_w = g.in_spatial[1];
  const int64_t out_h = g.out_spatial[0], out_w = g.out_spatial[1];
  const int64_t kernel_h = g.kernel[0], kernel_w = g.kernel[1];
  const int64_t kernel_size = kernel_h * kernel_w;
  const std::vector<uint8_t> zero_row(static_cast<size_t>(in_w * channels),
                                      static_cast<uint8_t>(args.x_zero));
  // Output columns [inside_begin, inside_end) read only columns inside the input.
  const int64_t stride_w = g.strides[1], pad_w = g.pads_begin[1], dilation_w = g.dilations[1];
  int64_t inside_begin = 0;
  while (inside_begin < out_w && inside_begin * stride_w - pad_w < 0) ++inside_begin;
  int64_t inside_end = out_w;
  while (inside_end > inside_begin &&
         (inside_end - 1) * stride_w - pad_w + (kernel_w - 1) * dilation_w >= in_w)
    --inside_end;
  const auto* x = static_cast<const uint8_t*>(args.x);
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  const auto run = operands.quads ? kernels.depthwise_nhwc_q8_quads : kernels.depthwise_nhwc_q8;
  const int64_t row_size = out_w * channels;
  ThreadPool::TryParallelFor(
      pool, g.batch * out_h, static_cast<double>(out_w * kernel_size * channels),
      [&](int64_t begin, int64_t end) {
        std::vector<const void*> rows(static_cast<size_t>(kernel_h));
        std::vector<const uint8_t*> padded_rows(static_cast<size_t>(kernel_h));
        // An edge pixel's taps, row kh's at patch_rows[kh] (kernel_w pixels of C channels).
        std::vector<uint8_t> patch(static_cast<size_t>(kernel_size * channels));
        std::vector<const uint8_t*> patch_rows(static_cast<size_t>(kernel_h));
        for (int64_t kh = 0; kh < kernel_h; ++kh)
          patch_rows[static_cast<size_t>(kh)] = patch.data() + kh * kernel_w * channels;
        for (int64_t image_row = begin; image_row < end; ++image_row) {
          const int64_t n = image_row / out_h, oh = image_row % out_h;
          for (int64_t kh = 0; kh < kernel_h; ++kh) {
            const int64_t ih = oh * g.strides[0] - g.pads_begin[0] + kh * g.dilations[0];
            const uint8_t* row =
                ih >= 0 && ih < in_h ? x + (n * in_h + ih) * in_w * channels : nullptr;
            rows[static_cast<size_t>(kh)] = row;
            padded_rows[static_cast<size_t>(kh)] = row != nullptr ? row : zero_row.data();
          }
          uint8_t* y = static_cast<uint8_t*>(args.y_8bit) + image_row * row_size;
          mlas::DepthwiseQ8Row row;
          row.kernel_h = kernel_h;
          row.kernel_w = kernel_w;
          row.x_signed = args.x_signed;
          if (operands.quads) {
            row.quad_weights = operands.quad_packed.weights.data();
            row.terms = operands.quad_packed.terms.data();
            row.multipliers = operands.quad_packed.multipliers.data();
          } else {
            row.weights = operands.packed.weights.data();
            row.terms = operands.packed.terms.data();
            row.multipliers = operands.packed.multipliers.data();
          }
          row.channels = channels;
          row.y_zero = static_cast<int32_t>(args.y_zero);
          row.y_signed = args.y_signed;
          // A column reading padding: its taps gathered into the patch (x_zero where they fall
          // into the padding, which the packed terms take back out as for a padding row), then
          // the same kernel on that one pixel. (The 32-bit kernel and a separate requantization
          // made 7x7 layers' edge columns, two of seven, cost about as much as the rest.)
          const auto edge = [&](int64_t ow) {
            for (int64_t kh = 0; kh < kernel_h; ++kh)
              for (int64_t kw = 0; kw < kernel_w; ++kw) {
                const auto* from = static_cast<const uint8_t*>(rows[static_cast<size_t>(kh)]);
                const int64_t column = columns[static_cast<size_t>(ow * kernel_w + kw)];
                uint8_t* to = patch.data() + (kh * kernel_w + kw) * channels;
                if (from != nullptr && column >= 0)
                  std::memcpy(to, from + column, static_cast<size_t>(channels));
                else
                  std::memset(to, static_cast<uint8_t>(args.x_zero), static_cast<size_t>(channels));
              }
            row.rows = patch_rows.data();
            row.first = 0;
            row.step = 0;
            row.dilation = channels;
            row.pixels = 1;
            row.out = y + ow * channels;
            run(row);
          };
          for (int64_t ow = 0; ow < inside_begin; ++ow) edge(ow);
          if (inside_end > inside_begin) {
            row.rows = padded_rows.data();
            row.first = (inside_begin * stride_w - pad_w) * channels;
            row.step = stride_w * channels;
            row.dilation = dilation_w * channels;
            row.pixels = inside_end - inside_begin;
            row.out = y + inside_begin * channels;
            run(row);
          }
          for (int64_t ow = std::max(inside_begin, inside_end); ow < out_w; ++ow) edge(ow);
        }
      });
}

}  // namespace

Int8ConvCache::Int8ConvCache() = default;
Int8ConvCache::~Int8ConvCache() = default;

const Int8ConvCache::Depthwise& Int8ConvCache::GetDepthwise(
    const std::function<std::unique_ptr<Depthwise>()>& build) const {
  std::call_once(depthwise_once_, [&] { depthwise_ = build(); });
  return *depthwise_;
}

namespace {

// The operands of a channels-last depthwise convolution that depend only on W and the
// quantization parameters (Int8ConvCache::Depthwise).
std::unique_ptr<Int8ConvCache::Depthwise> PrepareDepthwise(const Int8ConvGeometry& g,
                                                           const Int8ConvArgs& args) {
  auto operands = std::make_unique<Int8ConvCache::Depthwise>();
  const int64_t channels = g.out_channels;
  const int64_t kernel_size = g.kernel[0] * g.kernel[1];
  const std::vector<uint8_t>& weights = args.w->Depthwise();  // [C, kernel_h, kernel_w]
  const bool w_signed = args.w->Type() == ElementType::kInt8;
  operands->taps.resize(static_cast<size_t>(kernel_size * channels));
  for (int64_t c = 0; c < channels; ++c) {
    const int32_t w_zero =
        args.w_zero_per_channel != nullptr ? args.w_zero_per_channel[c] : args.w_zero;
    for (int64_t k = 0; k < kernel_size; ++k) {
      const uint8_t byte = weights[static_cast<size_t>(c * kernel_size + k)];
      const int32_t value =
          w_signed ? static_cast<int32_t>(static_cast<int8_t>(byte)) : static_cast<int32_t>(byte);
      operands->taps[static_cast<size_t>(k * channels + c)] = static_cast<float>(value - w_zero);
    }
  }
  operands->single = SinglePrecisionMultipliers(args, channels);
  operands->q8 = mlas::ActiveKernels().depthwise_nhwc_q8 != nullptr && !operands->single.empty() &&
                 channels % mlas::kDepthwiseQ8Block == 0 &&
                 kernel_size <= mlas::kDepthwiseQ8MaxTaps;
  if (operands->q8) {
    std::vector<int32_t> shifted(static_cast<size_t>(channels * kernel_size));
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t k = 0; k < kernel_size; ++k)
        shifted[static_cast<size_t>(c * kernel_size + k)] =
            static_cast<int32_t>(operands->taps[static_cast<size_t>(k * channels + c)]);
    const mlas::IsaKernels& kernels = mlas::ActiveKernels();
    operands->quads = kernels.depthwise_nhwc_q8_quads != nullptr &&
                      kernels.depthwise_q8_quads_usable != nullptr &&
                      kernels.depthwise_q8_quads_usable() &&
                      mlas::DepthwiseQ8QuadsFit(shifted.data(), channels * kernel_size);
    if (operands->quads)
      operands->quad_packed =
          mlas::PackDepthwiseQ8Quads(shifted.data(), channels, kernel_size, args.bias, args.x_zero,
                                     args.x_signed, operands->single.data());
    else
      operands->packed = mlas::PackDepthwiseQ8(shifted.data(), channels, kernel_size, args.bias,
                                               args.x_zero, operands->single.data());
  }
  return operands;
}

// A 2-D depthwise convolution on channels-last X and Y: each output pixel's row of C sums adds,
// for every kernel offset whose input pixel lies inside (padding is x_zero: it adds nothing),
// that pixel's channels times the offset's zero-point-shifted weights (the level's
// depthwise_nhwc_s32); each output row is then requantized straight into Y.
void RunDepthwiseChannelsLast(const Int8ConvGeometry& g, const Int8ConvArgs& args,
                              ThreadPool* pool) {
  const int64_t channels = g.out_channels;
  const int64_t in_h = g.in_spatial[0], in_w = g.in_spatial[1];
  const int64_t out_h = g.out_spatial[0], out_w = g.out_spatial[1];
  const int64_t kernel_h = g.kernel[0], kernel_w = g.kernel[1];
  const int64_t kernel_size = kernel_h * kernel_w;
  std::unique_ptr<Int8ConvCache::Depthwise> derived;
  const Int8ConvCache::Depthwise& operands =
      args.cache != nullptr ? args.cache->GetDepthwise([&] { return PrepareDepthwise(g, args); })
                            : *(derived = PrepareDepthwise(g, args));
  const std::vector<float>& taps = operands.taps;
  const std::vector<float>& single = operands.single;
  // An output row is out_w pixels of C channels, contiguous in Y: requantized in one call, in
  // single precision with the per-channel operands where the level can, else with the
  // multipliers and biases repeated for each pixel.
  const int64_t row_size = out_w * channels;
  const RepeatedChannels row = args.y_8bit != nullptr && single.empty()
                                   ? RepeatChannels(args, channels, out_w)
                                   : RepeatedChannels{};
  const auto requantize_channels = mlas::ActiveKernels().requantize_channels_f32;
  // columns[ow * kernel_w + kw]: the offset of the input pixel of output column ow and kernel
  // column kw within its input row, -1 where it falls into the padding.
  std::vector<int64_t> columns(static_cast<size_t>(out_w * kernel_w));
  for (int64_t ow = 0; ow < out_w; ++ow)
    for (int64_t kw = 0; kw < kernel_w; ++kw) {
      const int64_t iw = ow * g.strides[1] - g.pads_begin[1] + kw * g.dilations[1];
      columns[static_cast<size_t>(ow * kernel_w + kw)] = iw >= 0 && iw < in_w ? iw * channels : -1;
    }
  const auto* x = static_cast<const uint8_t*>(args.x);
  const auto depthwise = mlas::ActiveKernels().depthwise_nhwc_s32;
  if (operands.q8) return RunDepthwiseQ8(g, args, operands, columns, pool);
  ThreadPool::TryParallelFor(
      pool, g.batch * out_h, static_cast<double>(out_w * kernel_size * channels),
      [&](int64_t begin, int64_t end) {
        std::vector<int32_t> sums(static_cast<size_t>(row_size));
        std::vector<const void*> rows(static_cast<size_t>(kernel_h));
        for (int64_t image_row = begin; image_row < end; ++image_row) {
          const int64_t n = image_row / out_h, oh = image_row % out_h;
          for (int64_t kh = 0; kh < kernel_h; ++kh) {
            const int64_t ih = oh * g.strides[0] - g.pads_begin[0] + kh * g.dilations[0];
            rows[static_cast<size_t>(kh)] =
                ih >= 0 && ih < in_h ? x + (n * in_h + ih) * in_w * channels : nullptr;
          }
          depthwise(rows.data(), columns.data(), kernel_h, kernel_w, out_w, taps.data(), channels,
                    args.x_zero, args.x_signed, sums.data());
          if (!single.empty()) {
            requantize_channels(sums.data(), args.bias, single.data(), channels, out_w,
                                static_cast<int32_t>(args.y_zero), args.y_signed,
                                static_cast<uint8_t*>(args.y_8bit) + image_row * row_size);
            continue;
          }
          RequantizeRow(sums.data(), row.bias.empty() ? nullptr : row.bias.data(),
                        row.multipliers.data(), /*broadcast=*/false, row_size,
                        static_cast<int32_t>(args.y_zero), args.y_signed,
                        static_cast<uint8_t*>(args.y_8bit) + image_row * row_size);
        }
      });
}

// Rows [row, row + rows) (output positions) and channels [channel, channel + channels) of image
// n's channels-last sums (m_total per position) stored to the NCHW output: as int32 for
// ConvInteger, requantized for QLinearConv, 16 positions at a time through a small
// channels-last byte block that is then transposed; or, for a channels-last Y, requantized
// straight into Y's rows (several rows a call with `repeated`, when the tile spans every
// channel).
void StoreTile(const Int8ConvArgs& args, int64_t n, int64_t m_total, int64_t out_size,
               const int32_t* sums, int64_t row, int64_t rows, int64_t channel, int64_t channels,
               const RepeatedChannels* repeated = nullptr, const float* single = nullptr) {
  if (args.channels_last) {  // Y's rows are the sums' rows: no transpose
    const int64_t first = n * out_size;
    if (single != nullptr && channel == 0 && channels == m_total) {
      mlas::ActiveKernels().requantize_channels_f32(
          sums + row * m_total, args.bias, single, m_total, rows, static_cast<int32_t>(args.y_zero),
          args.y_signed, static_cast<uint8_t*>(args.y_8bit) + (first + row) * m_total);
      return;
    }
    if (repeated != nullptr && channel == 0 && channels == m_total) {
      for (int64_t r = row; r < row + rows; r += repeated->rows) {
        const int64_t count = std::min(repeated->rows, row + rows - r);
        RequantizeRow(sums + r * m_total, repeated->bias.empty() ? nullptr : repeated->bias.data(),
                      repeated->multipliers.data(), /*broadcast=*/false, count * m_total,
                      static_cast<int32_t>(args.y_zero), args.y_signed,
                      static_cast<uint8_t*>(args.y_8bit) + (first + r) * m_total);
      }
      return;
    }
    for (int64_t r = row; r < row + rows; ++r) {
      const int32_t* sum = sums + r * m_total + channel;
      const int64_t at = (first + r) * m_total + channel;
      RequantizeRow(sum, args.bias != nullptr ? args.bias + channel : nullptr,
                    args.multipliers + channel, /*broadcast=*/false, channels,
                    static_cast<int32_t>(args.y_zero), args.y_signed,
                    static_cast<uint8_t*>(args.y_8bit) + at);
    }
    return;
  }
  if (args.y_int32 != nullptr) {
    int32_t* y = args.y_int32 + (n * m_total + channel) * out_size;
    for (int64_t r = row; r < row + rows; ++r)
      for (int64_t m = 0; m < channels; ++m) y[m * out_size + r] = sums[r * m_total + channel + m];
    return;
  }
  constexpr int64_t kRows = 16, kChannels = 512;
  std::array<uint8_t, kRows * kChannels> bytes;
  for (int64_t c = 0; c < channels; c += kChannels) {
    const int64_t width = std::min(kChannels, channels - c);
    for (int64_t first = row; first < row + rows; first += kRows) {
      const int64_t count = std::min(kRows, row + rows - first);
      for (int64_t r = 0; r < count; ++r)
        RequantizeRow(sums + (first + r) * m_total + channel + c,
                      args.bias != nullptr ? args.bias + channel + c : nullptr,
                      args.multipliers + channel + c, /*broadcast=*/false, width,
                      static_cast<int32_t>(args.y_zero), args.y_signed, bytes.data() + r * width);
      uint8_t* y =
          static_cast<uint8_t*>(args.y_8bit) + (n * m_total + channel + c) * out_size + first;
      mlas::TransposeBytes(bytes.data(), width, count, width, y, out_size);
    }
  }
}

}  // namespace

void RunInt8Conv(const Int8ConvGeometry& g, const Int8ConvArgs& args, ThreadPool* pool,
                 const AllocatorPtr& scratch) {
  const int64_t in_size = Product(g.in_spatial);
  const int64_t out_size = Product(g.out_spatial);
  const int64_t kernel_size = Product(g.kernel);
  const int64_t in_per_group = g.InPerGroup();
  const int64_t out_per_group = g.OutPerGroup();
  const int64_t depth = in_per_group * kernel_size;
  const bool pointwise = IsPointwise(g);
  const auto pad = static_cast<uint8_t>(args.x_zero);
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  // Only QLinearConv has a channels-last form (com.microsoft); ConvInteger's int32 output is
  // always NCHW.
  PRISM_ENFORCE(!args.channels_last || args.y_8bit != nullptr, kInvalidArgument,
                "RunInt8Conv: channels-last operands need the 8-bit (QLinearConv) output");
  if (IsDepthwise2d(g, *args.w))
    return args.channels_last ? RunDepthwiseChannelsLast(g, args, pool)
                              : RunDepthwise(g, args, pool);

  // A channels-last QLinearConv whose groups the kernel can requantize in its store (mlas's
  // QgemmCanRequantize: the multipliers in float, exactly) writes Y from the GEMM's registers:
  // no int32 sums.
  std::vector<float> multipliers;
  bool in_kernel = args.channels_last && args.y_8bit != nullptr;
  if (in_kernel) {
    multipliers.assign(args.multipliers, args.multipliers + g.out_channels);  // floats, exactly
    for (int64_t group = 0; group < g.group && in_kernel; ++group)
      in_kernel = mlas::QgemmCanRequantize(kernels, args.w->Group(group),
                                           multipliers.data() + group * out_per_group);
  }
  // Otherwise each tile's rows are requantized in single precision where the level can, else
  // in double with the per-channel operands repeated.
  const std::vector<float> single = args.channels_last && !in_kernel && g.group == 1
                                        ? SinglePrecisionMultipliers(args, g.out_channels)
                                        : std::vector<float>{};
  RepeatedChannels repeated;
  if (args.channels_last && !in_kernel && g.group == 1 && single.empty())
    repeated = RepeatChannels(args, g.out_channels, std::max<int64_t>(1, 1024 / g.out_channels));
  ScratchBuffer<uint8_t> channels_last(
      scratch, args.channels_last ? 0 : static_cast<size_t>(in_size * g.in_channels));
  ScratchBuffer<int32_t> sums(scratch,
                              in_kernel ? 0 : static_cast<size_t>(out_size * g.out_channels));
  const auto* x = static_cast<const uint8_t*>(args.x);
  for (int64_t n = 0; n < g.batch; ++n) {
    const uint8_t* image = x + n * g.in_channels * in_size;
    if (!args.channels_last) {
      ToChannelsLast(image, g.in_channels, in_size, channels_last.data(), pool);
      image = channels_last.data();
    }
    for (int64_t group = 0; group < g.group; ++group) {
      const uint8_t* group_x = image + group * in_per_group;
      // A pointwise convolution's A is the image itself; any other is lowered by the GEMM's
      // tasks a row block at a time, right before each block is packed (no lowered matrix).
      const uint8_t* a = pointwise ? group_x : nullptr;
      const int64_t lda = pointwise ? g.in_channels : depth;
      mlas::QgemmRowSource lower;
      if (!pointwise)
        lower = [&g, group_x, pad](int64_t begin, int64_t end, uint8_t* rows, int64_t row_stride) {
          if (g.in_spatial.size() == 2)
            LowerRows2d(g, group_x, g.in_channels, pad, begin, end, rows, row_stride);
          else
            LowerRows(g, group_x, g.in_channels, pad, begin, end, rows, row_stride);
        };
      mlas::QgemmZeroPoints zero_points;
      zero_points.a = args.x_zero;
      zero_points.b_scalar = args.w_zero;
      if (args.w_zero_per_channel != nullptr)
        zero_points.b_per_column = args.w_zero_per_channel + group * out_per_group;
      const int64_t first_channel = group * out_per_group;
      if (in_kernel) {
        mlas::QgemmRequantize output;
        output.multipliers = multipliers.data() + first_channel;
        output.bias = args.bias != nullptr ? args.bias + first_channel : nullptr;
        output.zero_point = static_cast<int32_t>(args.y_zero);
        output.to_int8 = args.y_signed;
        output.out =
            static_cast<uint8_t*>(args.y_8bit) + n * out_size * g.out_channels + first_channel;
        output.out_stride = g.out_channels;
        mlas::QgemmPackedBRequantize(kernels, out_size, a, lda, args.x_signed, args.w->Group(group),
                                     zero_points, output, pool, &lower);
        continue;
      }
      // Each finished tile of sums goes to the output while it is still in cache (requantized
      // for QLinearConv), instead of in a pass over all the sums after the product.
      const auto store_tile = [&](int64_t row, int64_t rows, int64_t col, int64_t cols) {
        StoreTile(args, n, g.out_channels, out_size, sums.data(), row, rows, first_channel + col,
                  cols, repeated.rows > 0 ? &repeated : nullptr,
                  single.empty() ? nullptr : single.data());
      };
      mlas::QgemmPackedB(kernels, out_size, a, lda, args.x_signed, args.w->Group(group),
                         zero_points, sums.data() + first_channel, g.out_channels, pool, store_tile,
                         &lower);
    }
  }
}

}  // namespace prism::cpu::quantization
