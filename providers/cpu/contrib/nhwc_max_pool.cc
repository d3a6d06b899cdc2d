// NhwcMaxPool (com.microsoft, version 1; onnxruntime's contrib op): MaxPool of int8 / uint8 X
// laid out channels-last, [N, spatial..., C] -> [N, out spatial..., C], with MaxPool's
// attributes auto_pad, kernel_shape, dilations, pads, strides and ceil_mode (no storage_order,
// no Indices output). Each output pixel is the element-wise maximum of the rows of C channels of
// the input pixels its window reaches; padding takes no part. 2-D windows keep 64 channels at a
// time in registers over all their taps (SSE2, which every x86-64 has), one store each. The
// NhwcTransformer makes it from a MaxPool on quantized values inside a channels-last region.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/thread_pool.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/nn/pool_attributes.h"

namespace prism::cpu::contrib {
namespace {

template <typename T>
void MaxRow(const T* x, int64_t channels, T* y) {
  for (int64_t c = 0; c < channels; ++c) y[c] = std::max(y[c], x[c]);
}

// out[c] = the maximum of rows[t][c] over the `count` (>= 1) rows, c < channels. Accumulating in
// registers over every tap and storing once: the row-at-a-time form (load, max and store out for
// each tap) ran resnet50_qdq's 3x3 stride-2 pool of 64 channels at 1.9 times onnxruntime's time.
template <typename T>
void MaxOfRows(const T* const* rows, int64_t count, int64_t channels, T* out) {
  int64_t c = 0;
#if defined(__SSE2__)
  // SSE2 has the unsigned byte maximum only: int8 goes through it with the sign bit flipped
  // (x ^ 0x80 orders int8 as uint8), which two xors a vector undo.
  const __m128i flip = _mm_set1_epi8(std::is_same_v<T, int8_t> ? static_cast<char>(0x80) : 0);
  const auto load = [&](const T* p) {
    return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), flip);
  };
  const auto store = [&](T* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_xor_si128(v, flip));
  };
  for (; c + 64 <= channels; c += 64) {
    __m128i m0 = load(rows[0] + c), m1 = load(rows[0] + c + 16);
    __m128i m2 = load(rows[0] + c + 32), m3 = load(rows[0] + c + 48);
    for (int64_t t = 1; t < count; ++t) {
      const T* row = rows[t] + c;
      m0 = _mm_max_epu8(m0, load(row));
      m1 = _mm_max_epu8(m1, load(row + 16));
      m2 = _mm_max_epu8(m2, load(row + 32));
      m3 = _mm_max_epu8(m3, load(row + 48));
    }
    store(out + c, m0);
    store(out + c + 16, m1);
    store(out + c + 32, m2);
    store(out + c + 48, m3);
  }
  for (; c + 16 <= channels; c += 16) {
    __m128i m = load(rows[0] + c);
    for (int64_t t = 1; t < count; ++t) m = _mm_max_epu8(m, load(rows[t] + c));
    store(out + c, m);
  }
#endif
  for (; c < channels; ++c) {
    T m = rows[0][c];
    for (int64_t t = 1; t < count; ++t) m = std::max(m, rows[t][c]);
    out[c] = m;
  }
}

class NhwcMaxPool final : public OpKernel {
 public:
  explicit NhwcMaxPool(const OpKernelInfo& info)
      : OpKernel(info), attrs_(PoolAttributes::Parse(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const size_t rank = attrs_.SpatialRank();
    PRISM_ENFORCE(x.Shape().Rank() == rank + 2, kInvalidArgument, node.Describe(), ": X ",
                  x.Shape().ToString(), " must have rank ", rank + 2, " (N, spatial..., C) for ",
                  "kernel_shape of ", rank, " axes");
    // The NCHW view of X's shape, which the shared pooling geometry takes.
    std::vector<int64_t> nchw = x.Shape().Dims();
    nchw.insert(nchw.begin() + 1, nchw.back());
    nchw.pop_back();
    const PoolGeometry geometry = attrs_.Geometry(TensorShape(nchw), node);
    const int64_t batch = nchw[0], channels = nchw[1];
    std::vector<int64_t> out_dims = {batch};
    out_dims.insert(out_dims.end(), geometry.output.begin(), geometry.output.end());
    out_dims.push_back(channels);
    Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
    if (y.NumElements() == 0) return;
    if (x.Type() == ElementType::kUint8)
      Run(geometry, batch, channels, x.Data<uint8_t>(), y.MutableData<uint8_t>(),
          context.IntraOpThreadPool());
    else if (x.Type() == ElementType::kInt8)
      Run(geometry, batch, channels, x.Data<int8_t>(), y.MutableData<int8_t>(),
          context.IntraOpThreadPool());
    else
      PRISM_THROW(kInvalidArgument, node.Describe(), ": NhwcMaxPool takes int8 or uint8 X, got ",
                  ElementTypeName(x.Type()));
  }

 private:
  template <typename T>
  void Run(const PoolGeometry& geometry, int64_t batch, int64_t channels, const T* x, T* y,
           ThreadPool* pool) const {
    const size_t rank = attrs_.SpatialRank();
    const int64_t in_size = TensorShape(geometry.input).Size();
    const int64_t out_size = TensorShape(geometry.output).Size();
    const int64_t window = TensorShape(attrs_.kernel_shape).Size();
    if (rank == 2) return Run2d(geometry, batch, channels, x, y, pool);
    ThreadPool::TryParallelFor(
        pool, batch * out_size, static_cast<double>(window * channels),
        [&](int64_t begin, int64_t end) {
          std::vector<int64_t> origin(rank), offset(rank);
          for (int64_t index = begin; index < end; ++index) {
            const int64_t n = index / out_size;
            int64_t rest = index % out_size;
            for (size_t d = rank; d-- > 0;) {
              origin[d] = rest % geometry.output[d] * attrs_.strides[d] - geometry.pad_begin[d];
              rest /= geometry.output[d];
            }
            T* out = y + index * channels;
            // A window wholly in padding (possible only with ceil_mode) keeps the lowest value.
            std::fill(out, out + channels, std::numeric_limits<T>::lowest());
            std::fill(offset.begin(), offset.end(), 0);
            for (int64_t k = 0; k < window; ++k) {
              int64_t pixel = 0;
              bool inside = true;
              for (size_t d = 0; d < rank; ++d) {
                const int64_t coord = origin[d] + offset[d] * attrs_.dilations[d];
                inside = inside && coord >= 0 && coord < geometry.input[d];
                pixel = pixel * geometry.input[d] + coord;
              }
              if (inside) MaxRow(x + (n * in_size + pixel) * channels, channels, out);
              for (size_t d = rank; d-- > 0;) {  // next kernel offset, last axis fastest
                if (++offset[d] < attrs_.kernel_shape[d]) break;
                offset[d] = 0;
              }
            }
          }
        });
  }

  // 2-D: each output pixel's window as ranges of input rows and columns (the taps inside the
  // image), no per-tap bounds checks.
  template <typename T>
  void Run2d(const PoolGeometry& geometry, int64_t batch, int64_t channels, const T* x, T* y,
             ThreadPool* pool) const {
    const int64_t in_h = geometry.input[0], in_w = geometry.input[1];
    const int64_t out_h = geometry.output[0], out_w = geometry.output[1];
    const int64_t kernel_h = attrs_.kernel_shape[0], kernel_w = attrs_.kernel_shape[1];
    const int64_t stride_h = attrs_.strides[0], stride_w = attrs_.strides[1];
    const int64_t dilation_h = attrs_.dilations[0], dilation_w = attrs_.dilations[1];
    // The first kernel offset at or after which coordinate origin + k * dilation is >= 0, and the
    // first one past the input's end.
    const auto taps = [](int64_t origin, int64_t kernel, int64_t dilation, int64_t size) {
      const int64_t first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
      const int64_t last =
          origin >= size ? 0 : std::min(kernel, (size - 1 - origin) / dilation + 1);
      return std::pair<int64_t, int64_t>{first, std::max(first, last)};
    };
    ThreadPool::TryParallelFor(
        pool, batch * out_h, static_cast<double>(out_w * kernel_h * kernel_w * channels),
        [&](int64_t begin, int64_t end) {
          std::vector<const T*> rows(static_cast<size_t>(kernel_h * kernel_w));
          for (int64_t image_row = begin; image_row < end; ++image_row) {
            const int64_t n = image_row / out_h, oh = image_row % out_h;
            const int64_t top = oh * stride_h - geometry.pad_begin[0];
            const auto [kh0, kh1] = taps(top, kernel_h, dilation_h, in_h);
            for (int64_t ow = 0; ow < out_w; ++ow) {
              const int64_t left = ow * stride_w - geometry.pad_begin[1];
              const auto [kw0, kw1] = taps(left, kernel_w, dilation_w, in_w);
              T* out = y + (image_row * out_w + ow) * channels;
              int64_t count = 0;
              for (int64_t kh = kh0; kh < kh1; ++kh) {
                const T* row = x + ((n * in_h + top + kh * dilation_h) * in_w + left) * channels;
                for (int64_t kw = kw0; kw < kw1; ++kw)
                  rows[static_cast<size_t>(count++)] = row + kw * dilation_w * channels;
              }
              if (count > 0) {
                MaxOfRows(rows.data(), count, channels, out);
              } else {
                // A window wholly in padding (possible only with ceil_mode) keeps the lowest value.
                std::fill(out, out + channels, std::numeric_limits<T>::lowest());
              }
            }
          }
        });
  }

  PoolAttributes attrs_;
};

void RegisterNhwcMaxPoolKernel(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("NhwcMaxPool")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", {ElementType::kInt8, ElementType::kUint8}, {0}, {0})
                        .Build(),
                    MakeKernelFactory<NhwcMaxPool>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_nhwc_max_pool, RegisterNhwcMaxPoolKernel);

}  // namespace prism::cpu::contrib
