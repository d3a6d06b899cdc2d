// com.microsoft QuantizeLinear and DequantizeLinear (version 1), as onnxruntime's CPU EP has them:
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point), the division in
//                     float (float16 x and scale are widened first);
//   DequantizeLinear: y = (x - x_zero_point) * x_scale, the product in float, then rounded once
//                     to the output type (x_scale's type).
// Scales are per tensor (one element) or per axis (1-D along `axis`, default 1); the zero point
// has the scale's shape and y's (QuantizeLinear) or x's (DequantizeLinear) type, uint8 when absent.
#include <cmath>
#include <string>
#include <vector>

#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/quantize_common.h"

namespace prism::cpu::contrib {
namespace {

using E = ElementType;

// x viewed as [outer, axis_dim, inner]; per tensor when the scale has one element.
struct AxisLayout {
  bool per_axis = false;
  int64_t axis_dim = 1;
  int64_t inner = 1;

  int64_t ScaleIndex(int64_t element) const { return per_axis ? (element / inner) % axis_dim : 0; }
};

AxisLayout ResolveAxis(const Node& node, const Tensor& x, const Tensor& scale,
                       const Tensor* zero_point, const char* scale_name, const char* zero_name,
                       int64_t axis) {
  const std::string where = node.Describe();
  if (zero_point != nullptr) {
    const bool both_single = zero_point->NumElements() == 1 && scale.NumElements() == 1;
    PRISM_ENFORCE(both_single || zero_point->Shape() == scale.Shape(), kInvalidArgument, where,
                  ": ", zero_name, " must have the shape of ", scale_name, " ",
                  scale.Shape().ToString(), ", got ", zero_point->Shape().ToString());
  }
  AxisLayout layout;
  if (scale.NumElements() == 1 && scale.Shape().Rank() <= 1) return layout;
  const auto rank = static_cast<int64_t>(x.Shape().Rank());
  PRISM_ENFORCE(rank >= 1 && axis >= -rank && axis < rank, kInvalidArgument, where, ": axis ", axis,
                " is out of range for input x ", x.Shape().ToString());
  const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  layout.per_axis = true;
  layout.axis_dim = x.Shape()[a];
  for (size_t k = a + 1; k < x.Shape().Rank(); ++k) layout.inner *= x.Shape()[k];
  PRISM_ENFORCE(scale.Shape().Rank() == 1 && scale.Shape()[0] == layout.axis_dim, kInvalidArgument,
                where, ": per-axis ", scale_name, " must be a scalar or 1-D of length ",
                layout.axis_dim, " (x ", x.Shape().ToString(), " along axis ", a, "), got ",
                scale.Shape().ToString());
  return layout;
}

// A float or float16 element as float.
float FloatAt(const Tensor& tensor, int64_t i) {
  return tensor.Type() == E::kFloat16 ? tensor.Data<Float16>()[i].ToFloat()
                                      : tensor.Data<float>()[i];
}

class QuantizeLinearMs final : public OpKernel {
 public:
  explicit QuantizeLinearMs(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", 1)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const Tensor* zero_point = context.Input(2);
    PRISM_ENFORCE(scale.Type() == x.Type(), kInvalidArgument, GetNode().Describe(),
                  ": y_scale must have x's type ", ElementTypeName(x.Type()), ", got ",
                  ElementTypeName(scale.Type()));
    const AxisLayout layout =
        ResolveAxis(GetNode(), x, scale, zero_point, "y_scale", "y_zero_point", axis_);
    const E out_type = zero_point != nullptr ? zero_point->Type() : E::kUint8;
    Tensor& y = context.Output(0, x.Shape(), out_type);
    const int64_t count = y.NumElements();
    if (count == 0) return;
    const quantization::QuantizedWriter writer(y, true);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t s = layout.ScaleIndex(i);
      const float scaled = FloatAt(x, i) / FloatAt(scale, s);  // float division, as MLAS
      const double zero = zero_point ? quantization::ElementAsDouble(*zero_point, s) : 0.0;
      writer.Store(i, scaled, zero);
    }
  }

 private:
  int64_t axis_;
};

class DequantizeLinearMs final : public OpKernel {
 public:
  explicit DequantizeLinearMs(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", 1)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const Tensor& scale = context.RequiredInput(1);
    const Tensor* zero_point = context.Input(2);
    if (zero_point != nullptr)
      PRISM_ENFORCE(zero_point->Type() == x.Type(), kInvalidArgument, GetNode().Describe(),
                    ": x_zero_point must have x's type ", ElementTypeName(x.Type()), ", got ",
                    ElementTypeName(zero_point->Type()));
    const AxisLayout layout =
        ResolveAxis(GetNode(), x, scale, zero_point, "x_scale", "x_zero_point", axis_);
    Tensor& y = context.Output(0, x.Shape(), scale.Type());
    const int64_t count = y.NumElements();
    for (int64_t i = 0; i < count; ++i) {
      const int64_t s = layout.ScaleIndex(i);
      const double zero = zero_point ? quantization::ElementAsDouble(*zero_point, s) : 0.0;
      // int32 x may exceed float's exact range: the difference is taken exactly, then in float.
      const auto shifted = static_cast<float>(quantization::ElementAsDouble(x, i) - zero);
      quantization::StoreReal(y, i, shifted * FloatAt(scale, s));
    }
  }

 private:
  int64_t axis_;
};

void RegisterQuantizeContribKernels(KernelRegistry& registry) {
  const std::vector<E> floats = {E::kFloat, E::kFloat16};
  const std::vector<E> quantized = {E::kInt8,   E::kUint8, E::kInt16,
                                    E::kUint16, E::kInt4,  E::kUint4};
  registry.Register(KernelDefBuilder("QuantizeLinear")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T1", floats, {0, 1})
                        .Constraint("T2", quantized, {2}, {0})
                        .Build(),
                    MakeKernelFactory<QuantizeLinearMs>());
  std::vector<E> dequantized = quantized;
  dequantized.push_back(E::kInt32);
  registry.Register(KernelDefBuilder("DequantizeLinear")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T1", dequantized, {0, 2})
                        .Constraint("T2", floats, {1}, {0})
                        .Build(),
                    MakeKernelFactory<DequantizeLinearMs>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_quantize_linear, RegisterQuantizeContribKernels);

}  // namespace prism::cpu::contrib
