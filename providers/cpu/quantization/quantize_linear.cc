// QuantizeLinear and DequantizeLinear (opsets 10, 13, 19, 21, 23, 24, 25, 28) and
// DynamicQuantizeLinear (opset 11).
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point) for integer y;
//                     narrow float y encodes x / y_scale + y_zero_point (round to nearest even;
//                     `saturate` decides float8 overflow, float4/float6 always saturate).
//                     The division is carried out in `precision` (23+; else y_scale's type):
//                     x and y_scale are rounded to it, and so is the quotient.
//   DequantizeLinear: y = (x - x_zero_point) * x_scale, the product rounded to float and then to
//                     the output type (output_dtype from 23, else x_scale's type).
// Scales are per tensor (one element), per axis (1-D along `axis`, opset 13+) or blocked
// (opset 21+: x's shape with ceil(D_axis / block_size) along `axis`); the zero point has the
// scale's shape.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/quantize_common.h"
#include "providers/cpu/quantization/quantize_rows.h"

namespace prism::cpu {
namespace {

using E = ElementType;
using quantization::ElementAsDouble;
using quantization::ElementsAsDouble;

// How a scale (and its zero point) maps onto x, viewed as [outer, axis_dim, inner].
struct ScaleLayout {
  enum class Mode { kPerTensor, kPerAxis, kBlocked };
  Mode mode = Mode::kPerTensor;
  int64_t outer = 1;
  int64_t axis_dim = 1;
  int64_t inner = 1;
  int64_t block = 1;
  int64_t scale_axis_dim = 1;  // blocked: ceil(axis_dim / block)

  int64_t ScaleIndex(int64_t o, int64_t d, int64_t i) const {
    switch (mode) {
      case Mode::kPerTensor:
        return 0;
      case Mode::kPerAxis:
        return d;
      default:
        return (o * scale_axis_dim + d / block) * inner + i;
    }
  }
};

// Resolves and checks the scale's granularity. `scale_name` and `zero_name` name the inputs in
// messages; axis_allowed is false before opset 13 (per-tensor only), block_size 0 unless blocked.
ScaleLayout ResolveLayout(const Node& node, const Tensor& x, const Tensor& scale,
                          const Tensor* zero_point, const std::string& scale_name,
                          const std::string& zero_name, bool axis_allowed, int64_t axis,
                          int64_t block_size) {
  const std::string where = node.Describe();
  const TensorShape& x_shape = x.Shape();
  const TensorShape& s_shape = scale.Shape();
  if (zero_point != nullptr) {
    // One-element scale and zero point of different ranks ([] and [1]) are both per tensor.
    const bool both_single = zero_point->NumElements() == 1 && scale.NumElements() == 1;
    PRISM_ENFORCE(both_single || zero_point->Shape() == s_shape, kInvalidArgument, where, ": ",
                  zero_name, " must have the shape of ", scale_name, " ", s_shape.ToString(),
                  ", got ", zero_point->Shape().ToString());
  }
  PRISM_ENFORCE(block_size >= 0, kInvalidArgument, where, ": block_size must be >= 0, got ",
                block_size);
  ScaleLayout layout;
  layout.outer = x.NumElements();  // per tensor: one run
  if (scale.NumElements() == 1 && s_shape.Rank() <= std::max<size_t>(x_shape.Rank(), 1)) {
    return layout;
  }
  const auto rank = static_cast<int64_t>(x_shape.Rank());
  PRISM_ENFORCE(axis_allowed, kInvalidArgument, where, ": ", scale_name,
                " must be a scalar (per-tensor quantization only at opset ", node.OpsetVersion(),
                "), got ", s_shape.ToString());
  PRISM_ENFORCE(rank >= 1 && axis >= -rank && axis < rank, kInvalidArgument, where, ": axis ", axis,
                " is out of range for input x ", x_shape.ToString());
  const int64_t a = axis < 0 ? axis + rank : axis;
  layout.outer = 1;
  for (int64_t k = 0; k < a; ++k) layout.outer *= x_shape[static_cast<size_t>(k)];
  layout.axis_dim = x_shape[static_cast<size_t>(a)];
  layout.inner = 1;
  for (int64_t k = a + 1; k < rank; ++k) layout.inner *= x_shape[static_cast<size_t>(k)];
  if (block_size == 0) {
    PRISM_ENFORCE(
        s_shape.Rank() == 1 && s_shape[0] == layout.axis_dim, kInvalidArgument, where,
        ": per-axis ", scale_name, " must be 1-D of length ", layout.axis_dim, " (x ",
        x_shape.ToString(), " along axis ", a, "), got ", s_shape.ToString(),
        block_size == 0 && s_shape.Rank() > 1 ? " (blocked quantization needs block_size)" : "");
    layout.mode = ScaleLayout::Mode::kPerAxis;
    return layout;
  }
  // ceil(axis_dim / block_size) without forming axis_dim + block_size - 1 (any int64 attribute).
  const int64_t blocks = layout.axis_dim / block_size + (layout.axis_dim % block_size != 0 ? 1 : 0);
  bool shape_ok = static_cast<int64_t>(s_shape.Rank()) == rank;
  for (int64_t k = 0; shape_ok && k < rank; ++k) {
    const int64_t expected = k == a ? blocks : x_shape[static_cast<size_t>(k)];
    shape_ok = s_shape[static_cast<size_t>(k)] == expected;
  }
  PRISM_ENFORCE(shape_ok, kInvalidArgument, where, ": blocked ", scale_name, " for x ",
                x_shape.ToString(), ", axis ", a, " and block_size ", block_size,
                " must have x's shape with ", blocks, " along the axis, got ", s_shape.ToString());
  layout.mode = ScaleLayout::Mode::kBlocked;
  layout.block = block_size;
  layout.scale_axis_dim = blocks;
  return layout;
}

bool IsQuantizeOutputType(ElementType type) {
  return type != E::kFloat8E8M0 &&
         (quantization::IsQuantizedInteger(type) || IsNarrowFloat(type)) && type != E::kInt32 &&
         type != E::kUint32 && type != E::kInt64 && type != E::kUint64;
}

class QuantizeLinear final : public OpKernel {
 public:
  explicit QuantizeLinear(const OpKernelInfo& info)
      : OpKernel(info),
        opset_(info.GetNode().OpsetVersion()),
        axis_(opset_ >= 13 ? info.IntOr("axis", 1) : 1),
        saturate_(opset_ >= 19 ? info.IntOr("saturate", 1) != 0 : true),
        block_size_(opset_ >= 21 ? info.IntOr("block_size", 0) : 0),
        output_dtype_(opset_ >= 21 ? info.IntOr("output_dtype", 0) : 0),
        precision_(opset_ >= 23 ? info.IntOr("precision", 0) : 0) {
    const std::string where = GetNode().Describe();
    PRISM_ENFORCE(output_dtype_ == 0 || (IsKnownElementType(static_cast<int32_t>(output_dtype_)) &&
                                         IsQuantizeOutputType(static_cast<E>(output_dtype_))),
                  kInvalidArgument, where, ": output_dtype ", output_dtype_,
                  " is not a quantized type (int8, uint8, int16, uint16, int4, uint4, int2, "
                  "uint2, float8, float4e2m1, float6)");
    PRISM_ENFORCE(precision_ == 0 || precision_ == static_cast<int64_t>(E::kFloat) ||
                      precision_ == static_cast<int64_t>(E::kFloat16) ||
                      precision_ == static_cast<int64_t>(E::kBFloat16) ||
                      precision_ == static_cast<int64_t>(E::kDouble),
                  kInvalidArgument, where, ": precision ", precision_,
                  " is not float (1), float16 (10), double (11) or bfloat16 (16)");
  }

  void Compute(OpKernelContext& context) const override {
    const std::string where = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const Tensor* zero_point = context.Input(2);
    E out_type = output_dtype_ != 0 ? static_cast<E>(output_dtype_) : E::kUint8;
    if (zero_point != nullptr) {
      PRISM_ENFORCE(output_dtype_ == 0 || zero_point->Type() == out_type, kInvalidArgument, where,
                    ": output_dtype ", ElementTypeName(out_type),
                    " differs from y_zero_point's type ", ElementTypeName(zero_point->Type()));
      out_type = zero_point->Type();
    }
    PRISM_ENFORCE(IsQuantizeOutputType(out_type), kInvalidArgument, where, ": output type ",
                  ElementTypeName(out_type), " is not a quantized type");
    const ScaleLayout layout = ResolveLayout(GetNode(), x, scale, zero_point, "y_scale",
                                             "y_zero_point", opset_ >= 13, axis_, block_size_);
    // The division's precision: the attribute, else y_scale's type (x's before opset 19).
    E precision = scale.Type();
    if (precision_ != 0) precision = static_cast<E>(precision_);
    if (opset_ < 19) precision = E::kFloat;

    Tensor& y = context.Output(0, x.Shape(), out_type);
    if (y.NumElements() == 0) return;
    if (x.Type() == E::kFloat && scale.Type() == E::kFloat && scale.NumElements() == 1 &&
        precision == E::kFloat && (out_type == E::kUint8 || out_type == E::kInt8)) {
      QuantizeFloatFast(context, x, scale.Data<float>()[0], zero_point, y);
      return;
    }
    std::fill_n(static_cast<uint8_t*>(y.MutableRawData()), StorageBytes(out_type, y.NumElements()),
                uint8_t{0});
    // A division in `precision` takes operands of that type: x and the scale are rounded to it.
    const auto in_precision = [precision](std::vector<double> values) {
      for (double& value : values) value = quantization::RoundToPrecision(precision, value);
      return values;
    };
    const std::vector<double> scales = in_precision(ElementsAsDouble(scale));
    const std::vector<double> zeros =
        zero_point != nullptr ? ElementsAsDouble(*zero_point) : std::vector<double>();
    const quantization::QuantizedWriter writer(y, saturate_);
    const std::vector<double> values = in_precision(ElementsAsDouble(x));
    int64_t index = 0;
    for (int64_t o = 0; o < layout.outer; ++o) {
      for (int64_t d = 0; d < layout.axis_dim; ++d) {
        for (int64_t i = 0; i < layout.inner; ++i, ++index) {
          const int64_t s = layout.ScaleIndex(o, d, i);
          const double scaled = quantization::RoundToPrecision(
              precision, values[static_cast<size_t>(index)] / scales[static_cast<size_t>(s)]);
          writer.Store(index, scaled, zeros.empty() ? 0.0 : zeros[static_cast<size_t>(s)]);
        }
      }
    }
  }

 private:
  // Float x, one float scale, 8-bit y: quantize_rows.h over the intra-op pool.
  static void QuantizeFloatFast(OpKernelContext& context, const Tensor& x, float scale,
                                const Tensor* zero_point, Tensor& y) {
    const bool to_int8 = y.Type() == E::kInt8;
    const int32_t zero = zero_point == nullptr ? 0
                         : to_int8             ? static_cast<int32_t>(zero_point->Data<int8_t>()[0])
                                   : static_cast<int32_t>(zero_point->Data<uint8_t>()[0]);
    constexpr int64_t kChunk = 16384;
    const int64_t total = x.NumElements();
    const float* in = x.Data<float>();
    ThreadPool::TryParallelFor(
        context.IntraOpThreadPool(), (total + kChunk - 1) / kChunk, static_cast<double>(kChunk),
        [&](int64_t begin, int64_t end) {
          const int64_t first = begin * kChunk, count = std::min(total, end * kChunk) - first;
          if (to_int8)
            quantization::QuantizeFloatRows(in + first, count, scale, zero,
                                            y.MutableData<int8_t>() + first);
          else
            quantization::QuantizeFloatRows(in + first, count, scale, zero,
                                            y.MutableData<uint8_t>() + first);
        });
  }

  int opset_;
  int64_t axis_;
  bool saturate_;
  int64_t block_size_;
  int64_t output_dtype_;
  int64_t precision_;
};

class DequantizeLinear final : public OpKernel {
 public:
  explicit DequantizeLinear(const OpKernelInfo& info)
      : OpKernel(info),
        opset_(info.GetNode().OpsetVersion()),
        axis_(opset_ >= 13 ? info.IntOr("axis", 1) : 1),
        block_size_(opset_ >= 21 ? info.IntOr("block_size", 0) : 0),
        output_dtype_(opset_ >= 23 ? info.IntOr("output_dtype", 0) : 0) {
    PRISM_ENFORCE(output_dtype_ == 0 || output_dtype_ == static_cast<int64_t>(E::kFloat) ||
                      output_dtype_ == static_cast<int64_t>(E::kFloat16) ||
                      output_dtype_ == static_cast<int64_t>(E::kBFloat16),
                  kInvalidArgument, GetNode().Describe(), ": output_dtype ", output_dtype_,
                  " is not float (1), float16 (10) or bfloat16 (16)");
  }

  void Compute(OpKernelContext& context) const override {
    const std::string where = GetNode().Describe();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const Tensor* zero_point = context.Input(2);
    if (zero_point != nullptr) {
      PRISM_ENFORCE(zero_point->Type() == x.Type(), kInvalidArgument, where,
                    ": x_zero_point must have x's type ", ElementTypeName(x.Type()), ", got ",
                    ElementTypeName(zero_point->Type()));
    }
    E out_type = opset_ >= 19 ? scale.Type() : E::kFloat;
    if (output_dtype_ != 0) out_type = static_cast<E>(output_dtype_);
    PRISM_ENFORCE(out_type == E::kFloat || out_type == E::kFloat16 || out_type == E::kBFloat16,
                  kInvalidArgument, where, ": the output type follows x_scale's type ",
                  ElementTypeName(scale.Type()),
                  ", which is not float, float16 or bfloat16: set output_dtype");
    const ScaleLayout layout = ResolveLayout(GetNode(), x, scale, zero_point, "x_scale",
                                             "x_zero_point", opset_ >= 13, axis_, block_size_);
    Tensor& y = context.Output(0, x.Shape(), out_type);
    if (y.NumElements() == 0) return;
    if (out_type == E::kFloat && scale.Type() == E::kFloat &&
        layout.mode != ScaleLayout::Mode::kBlocked) {
      switch (x.Type()) {
        case E::kUint8:
          return DequantizeFast<uint8_t>(context, x, scale, zero_point, layout, y);
        case E::kInt8:
          return DequantizeFast<int8_t>(context, x, scale, zero_point, layout, y);
        case E::kUint16:
          return DequantizeFast<uint16_t>(context, x, scale, zero_point, layout, y);
        case E::kInt16:
          return DequantizeFast<int16_t>(context, x, scale, zero_point, layout, y);
        default:
          break;
      }
    }
    const std::vector<double> scales = ElementsAsDouble(scale);
    const std::vector<double> zeros =
        zero_point != nullptr ? ElementsAsDouble(*zero_point) : std::vector<double>();
    int64_t index = 0;
    for (int64_t o = 0; o < layout.outer; ++o) {
      for (int64_t d = 0; d < layout.axis_dim; ++d) {
        for (int64_t i = 0; i < layout.inner; ++i, ++index) {
          const auto s = static_cast<size_t>(layout.ScaleIndex(o, d, i));
          const double shifted = ElementAsDouble(x, index) - (zeros.empty() ? 0.0 : zeros[s]);
          // The product is rounded to float first (the reference's float32 arithmetic).
          quantization::StoreReal(y, index, static_cast<float>(shifted * scales[s]));
        }
      }
    }
  }

 private:
  // 8- and 16-bit x, float scales (per tensor or per axis), float y, over the intra-op pool: x -
  // zero_point is exact in float and its product with the scale rounds once, as the double
  // product rounded to float of the general path does.
  template <typename T>
  static void DequantizeFast(OpKernelContext& context, const Tensor& x, const Tensor& scale,
                             const Tensor* zero_point, const ScaleLayout& layout, Tensor& y) {
    const T* in = x.Data<T>();
    const float* scales = scale.Data<float>();
    const T* zeros = zero_point != nullptr ? zero_point->Data<T>() : nullptr;
    float* out = y.MutableData<float>();
    // Rows of elements sharing one scale: per axis, row r is (o, d) = (r / axis_dim, r %
    // axis_dim) of `inner` elements; per tensor, chunks of the whole.
    const bool per_axis = layout.mode == ScaleLayout::Mode::kPerAxis;
    const int64_t total = x.NumElements();
    const int64_t row_size = per_axis ? layout.inner : int64_t{16384};
    const int64_t rows =
        per_axis ? layout.outer * layout.axis_dim : (total + row_size - 1) / row_size;
    ThreadPool::TryParallelFor(
        context.IntraOpThreadPool(), rows, static_cast<double>(row_size),
        [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t s = per_axis ? r % layout.axis_dim : 0;
            const float factor = scales[s];
            const float zero = zeros != nullptr ? static_cast<float>(zeros[s]) : 0.0f;
            const int64_t first = r * row_size, count = std::min(row_size, total - first);
            const T* from = in + first;
            float* to = out + first;
            for (int64_t i = 0; i < count; ++i)
              to[i] = (static_cast<float>(from[i]) - zero) * factor;
          }
        });
  }

  int opset_;
  int64_t axis_;
  int64_t block_size_;
  int64_t output_dtype_;
};

// DynamicQuantizeLinear (opset 11): uint8 quantization with a scale and zero point computed from
// x's range widened to include 0: scale = (max - min) / 255 (1 / 255 when max == min),
// zero_point = round_half_even(clamp(-min / scale, 0, 255)), y as QuantizeLinear; all in float.
class DynamicQuantizeLinear final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const float* data = x.Data<float>();
    const int64_t count = x.NumElements();
    float low = 0.0f;
    float high = 0.0f;
    for (int64_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(std::isfinite(data[i]), kInvalidArgument, GetNode().Describe(),
                    ": x must be finite to compute a scale, got ", data[i], " at element ", i);
      low = std::min(low, data[i]);
      high = std::max(high, data[i]);
    }
    const float scale = (high == low ? 1.0f : high - low) / 255.0f;
    const float zero = std::nearbyint(std::clamp(0.0f - low / scale, 0.0f, 255.0f));
    Tensor& y = context.Output(0, x.Shape(), E::kUint8);
    uint8_t* out = y.MutableData<uint8_t>();
    for (int64_t i = 0; i < count; ++i) {
      const float q = std::nearbyint(data[i] / scale) + zero;
      out[i] = static_cast<uint8_t>(std::clamp(q, 0.0f, 255.0f));
    }
    context.Output(1, TensorShape({}), E::kFloat).MutableData<float>()[0] = scale;
    context.Output(2, TensorShape({}), E::kUint8).MutableData<uint8_t>()[0] =
        static_cast<uint8_t>(zero);
  }
};

void RegisterQuantizeLinearKernels(KernelRegistry& registry) {
  const std::vector<E> int8 = {E::kInt8, E::kUint8};
  const std::vector<E> float8 = {E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2,
                                 E::kFloat8E5M2FNUZ};
  const std::vector<E> halves = {E::kFloat, E::kFloat16, E::kBFloat16};
  auto join = [](std::vector<E> a, const std::vector<E>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  // The quantized types by generation (opsets 19, 21, 23, 25, 28).
  const std::vector<E> q19 = join(int8, float8);
  const std::vector<E> q21 =
      join(join(int8, {E::kInt16, E::kUint16}), join(float8, {E::kUint4, E::kInt4}));
  const std::vector<E> q23 = join(q21, {E::kFloat4E2M1});
  const std::vector<E> q25 = join(q23, {E::kUint2, E::kInt2});
  const std::vector<E> q28 = join(q25, {E::kFloat6E2M3, E::kFloat6E3M2});

  // QuantizeLinear.
  const auto quantize = MakeKernelFactory<QuantizeLinear>();
  const std::vector<E> x10 = {E::kFloat, E::kInt32};
  const std::vector<E> x19 = join(halves, {E::kInt32});
  for (auto [since, end] : {std::pair{10, 12}, std::pair{13, 18}}) {
    registry.Register(KernelDefBuilder("QuantizeLinear")
                          .Versions(since, end)
                          .Constraint("T1", x10, {0})
                          .Constraint("T2", int8, {2}, {0})
                          .Build(),
                      quantize);
  }
  registry.Register(KernelDefBuilder("QuantizeLinear")
                        .Versions(19, 20)
                        .Constraint("T1", x19, {0, 1})
                        .Constraint("T2", q19, {2}, {0})
                        .Build(),
                    quantize);
  registry.Register(KernelDefBuilder("QuantizeLinear")
                        .Versions(21, 22)
                        .Constraint("T1", x19, {0, 1})
                        .Constraint("T2", q21, {2}, {0})
                        .Build(),
                    quantize);
  const std::vector<E> scale24 = join(x19, {E::kFloat8E8M0});
  for (auto [since, end, scales, outputs] :
       {std::tuple{23, 23, x19, q23}, std::tuple{24, 24, scale24, q23},
        std::tuple{25, 27, scale24, q25}, std::tuple{28, INT_MAX, scale24, q28}}) {
    registry.Register(KernelDefBuilder("QuantizeLinear")
                          .Versions(since, end)
                          .Constraint("T1", x19, {0})
                          .Constraint("T2", scales, {1})
                          .Constraint("T3", outputs, {2}, {0})
                          .Build(),
                      quantize);
  }

  // DequantizeLinear.
  const auto dequantize = MakeKernelFactory<DequantizeLinear>();
  const std::vector<E> d10 = {E::kInt8, E::kUint8, E::kInt32};
  for (auto [since, end] : {std::pair{10, 12}, std::pair{13, 18}}) {
    registry.Register(KernelDefBuilder("DequantizeLinear")
                          .Versions(since, end)
                          .Constraint("T", d10, {0, 2})
                          .Build(),
                      dequantize);
  }
  auto with_int32 = [&](std::vector<E> types) {
    types.push_back(E::kInt32);
    return types;
  };
  for (auto [since, end, inputs] :
       {std::tuple{19, 20, with_int32(q19)}, std::tuple{21, 22, with_int32(q21)}}) {
    registry.Register(KernelDefBuilder("DequantizeLinear")
                          .Versions(since, end)
                          .Constraint("T1", inputs, {0, 2})
                          .Constraint("T2", halves, {1}, {0})
                          .Build(),
                      dequantize);
  }
  const std::vector<E> dscale24 = join(halves, {E::kFloat8E8M0});
  for (auto [since, end, inputs, scales] :
       {std::tuple{23, 23, with_int32(q23), halves}, std::tuple{24, 24, with_int32(q23), dscale24},
        std::tuple{25, 27, with_int32(q25), dscale24},
        std::tuple{28, INT_MAX, with_int32(q28), dscale24}}) {
    registry.Register(KernelDefBuilder("DequantizeLinear")
                          .Versions(since, end)
                          .Constraint("T1", inputs, {0, 2})
                          .Constraint("T2", scales, {1})
                          .Constraint("T3", halves, {}, {0})
                          .Build(),
                      dequantize);
  }

  registry.Register(KernelDefBuilder("DynamicQuantizeLinear")
                        .Versions(11)
                        .Constraint("T1", {E::kFloat}, {0})
                        .Constraint("T2", {E::kUint8}, {}, {0, 2})
                        .Build(),
                    MakeKernelFactory<DynamicQuantizeLinear>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(quantization_linear, RegisterQuantizeLinearKernels);

}  // namespace prism::cpu
