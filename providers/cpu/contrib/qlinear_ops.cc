// The com.microsoft quantized element-wise, pooling and concat ops (version 1) on int8/uint8, as
// onnxruntime's CPU EP computes them: every step in float, results rounded half to even and
// saturated to the output type (QLinearAdd, QLinearMul and QLinearAveragePool add the output zero
// point before rounding, the others after, as onnxruntime does: the two differ on ties).
//   QLinearAdd:   C = (A - a_zp) * (a_scale / c_scale) + (B - b_zp) * (b_scale / c_scale) + c_zp
//                 (same shapes: 16 at a time, split over the intra-op pool: qlinear_add_rows.h)
//   QLinearMul:   C = (A - a_zp) * (B - b_zp) * (a_scale * b_scale / c_scale) + c_zp
//                 (numpy broadcasting of A and B)
//   QLinearSigmoid, QLinearLeakyRelu (alpha): a 256-entry table of
//                 quantize(f(dequantize(x))); Sigmoid uses std::exp where onnxruntime uses an
//                 approximation, so it may differ from onnxruntime by one quantization step.
//   QLinearAveragePool: AveragePool of the dequantized X (float sums), quantized; channels_last
//                 reads and writes NHWC.
//   QLinearGlobalAveragePool: the int32 sum of each channel, minus zp * size, times
//                 x_scale / (y_scale * size), rounded, + y_zp (onnxruntime's requantization).
//   QLinearConcat (axis): Y_scale, Y_zp, then (X, X_scale, X_zp) per input; an input whose
//                 scale and zero point equal Y's is copied, the others go through
//                 quantize(dequantize(x)) tables.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/contrib/qlinear_add_rows.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/nn/pool_attributes.h"

namespace prism::cpu::contrib {
namespace {

using E = ElementType;

// The scale at input `index`: a float scalar (one element).
float ScaleInput(const Node& node, const OpKernelContext& context, size_t index, const char* name) {
  const Tensor& scale = context.RequiredInput(index);
  PRISM_ENFORCE(scale.Type() == E::kFloat && scale.NumElements() == 1, kInvalidArgument,
                node.Describe(), ": ", name, " must be one float (per-tensor), got ",
                scale.Describe());
  return scale.Data<float>()[0];
}

// The zero point at input `index` (0 when omitted): one element of the quantized type.
int32_t ZeroPointInput(const Node& node, const OpKernelContext& context, size_t index,
                       const char* name, E type) {
  const Tensor* zero = context.Input(index);
  if (zero == nullptr) return 0;
  PRISM_ENFORCE(zero->Type() == type && zero->NumElements() == 1, kInvalidArgument, node.Describe(),
                ": ", name, " must be one ", ElementTypeName(type), " (per-tensor), got ",
                zero->Describe());
  return type == E::kInt8 ? zero->Data<int8_t>()[0] : zero->Data<uint8_t>()[0];
}

// round_half_even(value) + zero_point saturated to T; clamping before rounding as MLAS does
// keeps infinities and NaN (which gives the low end) out of the integer conversion.
template <typename T>
T Requantize(float value, int32_t zero_point) {
  const auto low = static_cast<float>(std::numeric_limits<T>::min() - zero_point);
  const auto high = static_cast<float>(std::numeric_limits<T>::max() - zero_point);
  value = std::fmin(std::fmax(value, low), high);
  return static_cast<T>(static_cast<int32_t>(std::nearbyint(value)) + zero_point);
}

// round_half_even(value + zero_point) saturated to T, the sum taken in float: onnxruntime's
// QLinearAdd, QLinearMul and QLinearAveragePool add the zero point before rounding, which differs
// from Requantize on ties when the zero point is odd (60.5 + 3 gives 64, not 60 + 3).
template <typename T>
T RequantizeZeroPointFirst(float value, int32_t zero_point) {
  value += static_cast<float>(zero_point);
  value = std::fmin(std::fmax(value, static_cast<float>(std::numeric_limits<T>::min())),
                    static_cast<float>(std::numeric_limits<T>::max()));
  return static_cast<T>(std::nearbyint(value));
}

template <typename Fn>
void DispatchQuantized(const Node& node, E type, const char* input, Fn&& fn) {
  if (type == E::kUint8) {
    fn(uint8_t{});
  } else if (type == E::kInt8) {
    fn(int8_t{});
  } else {
    PRISM_THROW(kInvalidArgument, node.Describe(), ": ", input, " must be int8 or uint8, got ",
                ElementTypeName(type));
  }
}

// quantize(f(dequantize(q))) for every value of T, all in float (onnxruntime's table).
template <typename T, typename F>
std::array<T, 256> BuildTable(float x_scale, int32_t x_zero, float y_scale, int32_t y_zero, F f) {
  std::array<T, 256> table{};
  for (int v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); ++v) {
    const float x = static_cast<float>(v - x_zero) * x_scale;
    table[static_cast<uint8_t>(static_cast<T>(v))] = Requantize<T>(f(x) / y_scale, y_zero);
  }
  return table;
}

// ---- QLinearAdd, QLinearMul ----

class QLinearBinary final : public OpKernel {
 public:
  QLinearBinary(const OpKernelInfo& info, bool is_mul) : OpKernel(info), is_mul_(is_mul) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(3);
    PRISM_ENFORCE(a.Type() == b.Type(), kInvalidArgument, node.Describe(),
                  ": A and B must share one type, got A ", ElementTypeName(a.Type()), " and B ",
                  ElementTypeName(b.Type()));
    const float a_scale = ScaleInput(node, context, 1, "A_scale");
    const float b_scale = ScaleInput(node, context, 4, "B_scale");
    const float c_scale = ScaleInput(node, context, 6, "C_scale");
    const TensorShape out_shape = BroadcastShape(a.Shape(), b.Shape());
    DispatchQuantized(node, a.Type(), "A", [&](auto tag) {
      using T = decltype(tag);
      const int32_t a_zero = ZeroPointInput(node, context, 2, "A_zero_point", a.Type());
      const int32_t b_zero = ZeroPointInput(node, context, 5, "B_zero_point", a.Type());
      const int32_t c_zero = ZeroPointInput(node, context, 7, "C_zero_point", a.Type());
      Tensor& c = context.Output(0, out_shape, a.Type());
      const T* pa = a.Data<T>();
      const T* pb = b.Data<T>();
      T* pc = c.MutableData<T>();
      const float ratio_a = a_scale / c_scale;
      const float ratio_b = b_scale / c_scale;
      const float ratio_mul = a_scale * b_scale / c_scale;
      if (!is_mul_ && a.Shape() == b.Shape()) {
        const mlas::IsaKernels& kernels = mlas::ActiveKernels();
        constexpr int64_t kChunk = 16384;
        const int64_t total = c.NumElements();
        ThreadPool::TryParallelFor(context.IntraOpThreadPool(), (total + kChunk - 1) / kChunk,
                                   static_cast<double>(kChunk), [&](int64_t begin, int64_t end) {
                                     const int64_t first = begin * kChunk;
                                     const int64_t last = std::min(total, end * kChunk);
                                     QLinearAddRows<T>(pa + first, pb + first, pc + first,
                                                       last - first, a_zero, b_zero, ratio_a,
                                                       ratio_b, c_zero, kernels);
                                   });
        return;
      }
      ForEachBroadcast(a.Shape(), b.Shape(), out_shape, [&](int64_t o, int64_t ia, int64_t ib) {
        const auto da = static_cast<float>(static_cast<int32_t>(pa[ia]) - a_zero);
        const auto db = static_cast<float>(static_cast<int32_t>(pb[ib]) - b_zero);
        const float value = is_mul_ ? da * db * ratio_mul : da * ratio_a + db * ratio_b;
        pc[o] = RequantizeZeroPointFirst<T>(value, c_zero);
      });
    });
  }

 private:
  TensorShape BroadcastShape(const TensorShape& a, const TensorShape& b) const {
    const size_t rank = std::max(a.Rank(), b.Rank());
    std::vector<int64_t> dims(rank);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t da = i < rank - a.Rank() ? 1 : a[i - (rank - a.Rank())];
      const int64_t db = i < rank - b.Rank() ? 1 : b[i - (rank - b.Rank())];
      PRISM_ENFORCE(da == db || da == 1 || db == 1, kInvalidArgument, GetNode().Describe(), ": A ",
                    a.ToString(), " and B ", b.ToString(), " cannot be broadcast");
      dims[i] = da == 1 ? db : da;
    }
    return TensorShape(dims);
  }

  // Calls fn(output index, a index, b index) for every output element.
  template <typename Fn>
  static void ForEachBroadcast(const TensorShape& a, const TensorShape& b, const TensorShape& out,
                               Fn&& fn) {
    const size_t rank = out.Rank();
    const int64_t total = out.Size();
    if (total == 0) return;
    if (rank == 0) return fn(0, 0, 0);
    std::vector<int64_t> a_strides(rank, 0), b_strides(rank, 0);
    int64_t sa = 1, sb = 1;
    for (size_t u = rank; u-- > 0;) {
      const int64_t da = u < rank - a.Rank() ? 1 : a[u - (rank - a.Rank())];
      const int64_t db = u < rank - b.Rank() ? 1 : b[u - (rank - b.Rank())];
      a_strides[u] = da == 1 ? 0 : sa;
      b_strides[u] = db == 1 ? 0 : sb;
      sa *= da;
      sb *= db;
    }
    std::vector<int64_t> index(rank, 0);
    int64_t ia = 0, ib = 0;
    for (int64_t o = 0; o < total; ++o) {
      fn(o, ia, ib);
      for (size_t d = rank; d-- > 0;) {
        ia += a_strides[d];
        ib += b_strides[d];
        if (++index[d] < out[d]) break;
        ia -= a_strides[d] * index[d];
        ib -= b_strides[d] * index[d];
        index[d] = 0;
      }
    }
  }

  bool is_mul_;
};

// ---- QLinearSigmoid, QLinearLeakyRelu ----

class QLinearLookup final : public OpKernel {
 public:
  QLinearLookup(const OpKernelInfo& info, bool is_sigmoid)
      : OpKernel(info), is_sigmoid_(is_sigmoid), alpha_(info.FloatOr("alpha", 0.01f)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const float x_scale = ScaleInput(node, context, 1, "X_scale");
    const float y_scale = ScaleInput(node, context, 3, "Y_scale");
    DispatchQuantized(node, x.Type(), "X", [&](auto tag) {
      using T = decltype(tag);
      const int32_t x_zero = ZeroPointInput(node, context, 2, "X_zero_point", x.Type());
      const int32_t y_zero = ZeroPointInput(node, context, 4, "Y_zero_point", x.Type());
      const float alpha = alpha_;
      const auto table = is_sigmoid_
                             ? BuildTable<T>(x_scale, x_zero, y_scale, y_zero,
                                             [](float v) { return 1.0f / (1.0f + std::exp(-v)); })
                             : BuildTable<T>(x_scale, x_zero, y_scale, y_zero,
                                             [alpha](float v) { return v >= 0 ? v : v * alpha; });
      Tensor& y = context.Output(0, x.Shape(), x.Type());
      const T* in = x.Data<T>();
      T* out = y.MutableData<T>();
      for (int64_t i = 0; i < x.NumElements(); ++i) out[i] = table[static_cast<uint8_t>(in[i])];
    });
  }

 private:
  bool is_sigmoid_;
  float alpha_;
};

// ---- QLinearAveragePool, QLinearGlobalAveragePool ----

// [N, C, spatial...] from NHWC [N, spatial..., C] data (or back, with to_channels_last).
template <typename T>
std::vector<T> SwapChannels(const T* data, int64_t batch, int64_t channels, int64_t spatial,
                            bool to_channels_last) {
  std::vector<T> out(static_cast<size_t>(batch * channels * spatial));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t s = 0; s < spatial; ++s) {
        const int64_t first = (n * channels + c) * spatial + s;  // NCHW
        const int64_t last = (n * spatial + s) * channels + c;   // NHWC
        out[static_cast<size_t>(to_channels_last ? last : first)] =
            data[to_channels_last ? first : last];
      }
  return out;
}

class QLinearAveragePool final : public OpKernel {
 public:
  explicit QLinearAveragePool(const OpKernelInfo& info)
      : OpKernel(info),
        attrs_(PoolAttributes::Parse(info)),
        channels_last_(info.IntOr("channels_last", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const float x_scale = ScaleInput(node, context, 1, "x_scale");
    const float y_scale = ScaleInput(node, context, 3, "y_scale");
    const size_t rank = x.Shape().Rank();
    PRISM_ENFORCE(rank == attrs_.SpatialRank() + 2, kInvalidArgument, node.Describe(), ": X ",
                  x.Shape().ToString(), " must have rank ", attrs_.SpatialRank() + 2,
                  " for kernel_shape of ", attrs_.SpatialRank(), " axes");
    // The NCHW view of x's shape.
    std::vector<int64_t> nchw = x.Shape().Dims();
    if (channels_last_) {
      nchw.insert(nchw.begin() + 1, nchw.back());
      nchw.pop_back();
    }
    const PoolGeometry geometry = attrs_.Geometry(TensorShape(nchw), node);
    const int64_t batch = nchw[0], channels = nchw[1];
    const int64_t in_size = TensorShape(geometry.input).Size();
    const int64_t out_size = TensorShape(geometry.output).Size();
    std::vector<int64_t> out_dims = {batch, channels};
    out_dims.insert(out_dims.end(), geometry.output.begin(), geometry.output.end());
    if (channels_last_) {
      out_dims.push_back(channels);
      out_dims.erase(out_dims.begin() + 1);
    }
    DispatchQuantized(node, x.Type(), "X", [&](auto tag) {
      using T = decltype(tag);
      const int32_t x_zero = ZeroPointInput(node, context, 2, "x_zero_point", x.Type());
      const int32_t y_zero = ZeroPointInput(node, context, 4, "y_zero_point", x.Type());
      Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
      if (y.NumElements() == 0) return;
      std::vector<T> planar;
      const T* in = x.Data<T>();
      if (channels_last_) {
        planar = SwapChannels(in, batch, channels, in_size, false);
        in = planar.data();
      }
      std::array<float, 256> dequantized{};
      for (int v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); ++v)
        dequantized[static_cast<uint8_t>(static_cast<T>(v))] =
            static_cast<float>(v - x_zero) * x_scale;
      std::vector<T> result(static_cast<size_t>(batch * channels * out_size));
      const size_t spatial = geometry.input.size();
      std::vector<int64_t> out_index(spatial), window(spatial), begin(spatial);
      for (int64_t plane = 0; plane < batch * channels; ++plane) {
        const T* image = in + plane * in_size;
        for (int64_t o = 0; o < out_size; ++o) {
          // Spatial output coordinates of o.
          for (size_t d = spatial, rest = static_cast<size_t>(o); d-- > 0;) {
            out_index[d] = static_cast<int64_t>(rest) % geometry.output[d];
            rest /= static_cast<size_t>(geometry.output[d]);
          }
          result[static_cast<size_t>(plane * out_size + o)] = RequantizeZeroPointFirst<T>(
              WindowAverage(geometry, out_index, window, begin, image, dequantized) / y_scale,
              y_zero);
        }
      }
      T* out = y.MutableData<T>();
      if (channels_last_) result = SwapChannels(result.data(), batch, channels, out_size, true);
      std::copy(result.begin(), result.end(), out);
    });
  }

 private:
  // The float average of one window (sum in window order, divided by the count of the window's
  // input elements, or of its padded extent with count_include_pad). window and begin are
  // scratch of the spatial rank, reused across windows.
  template <typename T>
  float WindowAverage(const PoolGeometry& g, const std::vector<int64_t>& out_index,
                      std::vector<int64_t>& window, std::vector<int64_t>& begin, const T* image,
                      const std::array<float, 256>& dequantized) const {
    const size_t spatial = out_index.size();
    int64_t padded_count = 1;
    for (size_t d = 0; d < spatial; ++d) {
      const int64_t start = out_index[d] * attrs_.strides[d] - g.pad_begin[d];
      const int64_t extent = (attrs_.kernel_shape[d] - 1) * attrs_.dilations[d] + 1;
      // The padded extent stops at the end padding (ceil_mode windows may run past it).
      const int64_t padded_end = std::min(start + extent, g.input[d] + g.pad_end[d]);
      padded_count *= (padded_end - start + attrs_.dilations[d] - 1) / attrs_.dilations[d];
      begin[d] = start;
    }
    float sum = 0.0f;
    int64_t count = 0;
    // Walk the window's taps in row-major order.
    std::fill(window.begin(), window.end(), 0);
    while (true) {
      bool inside = true;
      int64_t offset = 0;
      for (size_t d = 0; d < spatial; ++d) {
        const int64_t pos = begin[d] + window[d] * attrs_.dilations[d];
        inside = inside && pos >= 0 && pos < g.input[d];
        offset = offset * g.input[d] + pos;
      }
      if (inside) {
        sum += dequantized[static_cast<uint8_t>(image[offset])];
        ++count;
      }
      size_t d = spatial;
      while (d-- > 0) {
        if (++window[d] < attrs_.kernel_shape[d]) break;
        window[d] = 0;
      }
      if (d == static_cast<size_t>(-1)) break;
    }
    const int64_t divisor = attrs_.count_include_pad ? padded_count : count;
    return divisor == 0 ? 0.0f : sum / static_cast<float>(divisor);
  }

  PoolAttributes attrs_;
  bool channels_last_;
};

class QLinearGlobalAveragePool final : public OpKernel {
 public:
  explicit QLinearGlobalAveragePool(const OpKernelInfo& info)
      : OpKernel(info), channels_last_(info.IntOr("channels_last", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const float x_scale = ScaleInput(node, context, 1, "x_scale");
    const float y_scale = ScaleInput(node, context, 3, "y_scale");
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 3, kInvalidArgument, node.Describe(),
                  ": X must have rank >= 3 (N, C, spatial...), got ", shape.ToString());
    const int64_t batch = shape[0];
    const int64_t channels = channels_last_ ? shape[shape.Rank() - 1] : shape[1];
    const int64_t size = shape.Size() / std::max<int64_t>(batch * channels, 1);
    std::vector<int64_t> out_dims(shape.Rank(), 1);
    out_dims[0] = batch;
    out_dims[channels_last_ ? shape.Rank() - 1 : 1] = channels;
    DispatchQuantized(node, x.Type(), "X", [&](auto tag) {
      using T = decltype(tag);
      const int32_t x_zero = ZeroPointInput(node, context, 2, "x_zero_point", x.Type());
      const int32_t y_zero = ZeroPointInput(node, context, 4, "y_zero_point", x.Type());
      Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
      const T* in = x.Data<T>();
      T* out = y.MutableData<T>();
      const float multiplier = x_scale / (y_scale * static_cast<float>(size));
      std::vector<int64_t> sums(static_cast<size_t>(channels));
      std::vector<int32_t> partial;
      for (int64_t n = 0; n < batch; ++n) {
        std::fill(sums.begin(), sums.end(), 0);
        if (channels_last_) {
          // Pixel by pixel, a row of channels at a time (contiguous), into 32-bit partial sums
          // (vectorized four or eight channels a step; 64-bit sums were a 7x7x1280 pool's 36 us)
          // flushed to the 64-bit ones before they could overflow (2^31 / 255 pixels).
          constexpr int64_t kPixelsPerFlush = 8 << 20;
          partial.assign(static_cast<size_t>(channels), 0);
          for (int64_t s0 = 0; s0 < size; s0 += kPixelsPerFlush) {
            const int64_t s1 = std::min(size, s0 + kPixelsPerFlush);
            for (int64_t s = s0; s < s1; ++s) {
              // restrict: 8-bit elements may alias anything, which kept gcc from vectorizing.
              const T* __restrict pixel = in + (n * size + s) * channels;
              int32_t* __restrict into = partial.data();
              for (int64_t c = 0; c < channels; ++c) into[c] += pixel[c];
            }
            for (int64_t c = 0; c < channels; ++c) {
              sums[static_cast<size_t>(c)] += partial[static_cast<size_t>(c)];
              partial[static_cast<size_t>(c)] = 0;
            }
          }
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            const T* plane = in + (n * channels + c) * size;
            for (int64_t s = 0; s < size; ++s) sums[static_cast<size_t>(c)] += plane[s];
          }
        }
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t shifted =
              sums[static_cast<size_t>(c)] - static_cast<int64_t>(x_zero) * size;
          out[n * channels + c] = Requantize<T>(static_cast<float>(shifted) * multiplier, y_zero);
        }
      }
    });
  }

 private:
  bool channels_last_;
};

// ---- QLinearConcat ----

class QLinearConcat final : public OpKernel {
 public:
  explicit QLinearConcat(const OpKernelInfo& info) : OpKernel(info), axis_(info.Int("axis")) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const std::string where = node.Describe();
    const size_t inputs = context.InputCount();
    PRISM_ENFORCE(inputs >= 5 && (inputs - 2) % 3 == 0, kInvalidArgument, where,
                  ": QLinearConcat takes Y_scale, Y_zero_point and (X, X_scale, X_zero_point) "
                  "triples, got ",
                  inputs, " inputs");
    const size_t count = (inputs - 2) / 3;
    const Tensor& first = context.RequiredInput(2);
    const E type = first.Type();
    const float y_scale = ScaleInput(node, context, 0, "Y_scale");
    const TensorShape& first_shape = first.Shape();
    const auto rank = static_cast<int64_t>(first_shape.Rank());
    PRISM_ENFORCE(rank >= 1 && axis_ >= -rank && axis_ < rank, kInvalidArgument, where, ": axis ",
                  axis_, " is out of range for input ", first_shape.ToString());
    const auto axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    std::vector<int64_t> out_dims = first_shape.Dims();
    out_dims[axis] = 0;
    for (size_t k = 0; k < count; ++k) {
      const Tensor& xk = context.RequiredInput(2 + 3 * k);
      PRISM_ENFORCE(xk.Type() == type, kInvalidArgument, where, ": input ", 2 + 3 * k,
                    " must have the first input's type ", ElementTypeName(type), ", got ",
                    ElementTypeName(xk.Type()));
      bool same = xk.Shape().Rank() == first_shape.Rank();
      for (size_t d = 0; same && d < first_shape.Rank(); ++d)
        same = d == axis || xk.Shape()[d] == first_shape[d];
      PRISM_ENFORCE(same, kInvalidArgument, where, ": input ", 2 + 3 * k, " ",
                    xk.Shape().ToString(), " must match ", first_shape.ToString(),
                    " on every axis but ", axis);
      out_dims[axis] += xk.Shape()[axis];
    }
    int64_t outer = 1;
    for (size_t d = 0; d < axis; ++d) outer *= first_shape[d];
    DispatchQuantized(node, type, "X", [&](auto tag) {
      using T = decltype(tag);
      const int32_t y_zero = ZeroPointInput(node, context, 1, "Y_zero_point", type);
      Tensor& y = context.Output(0, TensorShape(out_dims), type);
      T* out = y.MutableData<T>();
      const int64_t out_row = TensorShape(out_dims).Size() / std::max<int64_t>(outer, 1);
      int64_t column = 0;
      for (size_t k = 0; k < count; ++k) {
        const Tensor& xk = context.RequiredInput(2 + 3 * k);
        const float x_scale = ScaleInput(node, context, 3 + 3 * k, "X_scale");
        const int32_t x_zero = ZeroPointInput(node, context, 4 + 3 * k, "X_zero_point", type);
        const bool copy = x_scale == y_scale && x_zero == y_zero;
        const auto table =
            BuildTable<T>(x_scale, x_zero, y_scale, y_zero, [](float v) { return v; });
        const int64_t row = xk.NumElements() / std::max<int64_t>(outer, 1);
        const T* in = xk.Data<T>();
        for (int64_t o = 0; o < outer && row > 0; ++o) {
          T* dst = out + o * out_row + column;
          const T* src = in + o * row;
          if (copy) {
            std::copy(src, src + row, dst);
          } else {
            for (int64_t i = 0; i < row; ++i) dst[i] = table[static_cast<uint8_t>(src[i])];
          }
        }
        column += row;
      }
    });
  }

 private:
  int64_t axis_;
};

void RegisterQLinearKernels(KernelRegistry& registry) {
  const std::vector<E> q8 = {E::kInt8, E::kUint8};
  for (const char* op : {"QLinearAdd", "QLinearMul"}) {
    const bool is_mul = std::string(op) == "QLinearMul";
    registry.Register(KernelDefBuilder(op)
                          .Domain(kMsDomain)
                          .Versions(1)
                          .Constraint("T", q8, {0, 2, 3, 5, 7}, {0})
                          .Build(),
                      [is_mul](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
                        return std::make_unique<QLinearBinary>(info, is_mul);
                      });
  }
  for (const char* op : {"QLinearSigmoid", "QLinearLeakyRelu"}) {
    const bool is_sigmoid = std::string(op) == "QLinearSigmoid";
    registry.Register(KernelDefBuilder(op)
                          .Domain(kMsDomain)
                          .Versions(1)
                          .Constraint("T", q8, {0, 2, 4}, {0})
                          .Build(),
                      [is_sigmoid](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
                        return std::make_unique<QLinearLookup>(info, is_sigmoid);
                      });
  }
  registry.Register(KernelDefBuilder("QLinearAveragePool")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", q8, {0, 2, 4}, {0})
                        .Build(),
                    MakeKernelFactory<QLinearAveragePool>());
  registry.Register(KernelDefBuilder("QLinearGlobalAveragePool")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", q8, {0, 2, 4}, {0})
                        .Build(),
                    MakeKernelFactory<QLinearGlobalAveragePool>());
  registry.Register(KernelDefBuilder("QLinearConcat")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("TF", {E::kFloat}, {0})
                        .Constraint("T8", q8, {1}, {0})
                        .Build(),
                    MakeKernelFactory<QLinearConcat>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_qlinear, RegisterQLinearKernels);

}  // namespace prism::cpu::contrib
