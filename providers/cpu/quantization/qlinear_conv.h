// QLinearConv's quantization parameters (opset 10): the checks of the scales and zero points,
// the int32 shift of x and w by their zero points, and the requantization of the int32
// convolution (with the int32 bias added) per output channel m:
//   y = saturate(round_half_even(acc * (x_scale * w_scale[m] / y_scale)) + y_zero_point),
// the multiplier in float (each step rounded), the product in double. The convolution itself is
// ConvInteger's (providers/cpu/nn/conv.cc).
#pragma once

#include <string>
#include <vector>

#include "framework/op_kernel.h"
#include "providers/cpu/quantization/quantize_common.h"

namespace prism::cpu::quantization {

class QLinearConvQuantization {
 public:
  // Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
  QLinearConvQuantization(const Node& node, const OpKernelContext& context, int64_t out_channels)
      : out_channels_(out_channels) {
    const std::string where = node.Describe();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& w = context.RequiredInput(3);
    x_zero_ = context.Input(2);
    w_zero_ = context.Input(5);
    const Tensor* y_zero = context.Input(7);
    const auto scalar = [&](const Tensor* tensor, const char* name) {
      PRISM_ENFORCE(tensor == nullptr || tensor->NumElements() == 1, kInvalidArgument, where, ": ",
                    name, " must be a scalar (per-tensor), got ", tensor->Shape().ToString());
    };
    const auto per_channel = [&](const Tensor* tensor, const char* name) {
      PRISM_ENFORCE(tensor == nullptr || tensor->NumElements() == 1 ||
                        (tensor->Shape().Rank() == 1 && tensor->NumElements() == out_channels),
                    kInvalidArgument, where, ": ", name,
                    " must be a scalar or 1-D with one value per output channel (", out_channels,
                    "), got ", tensor->Shape().ToString());
    };
    const Tensor& x_scale = context.RequiredInput(1);
    const Tensor& w_scale = context.RequiredInput(4);
    const Tensor& y_scale = context.RequiredInput(6);
    scalar(&x_scale, "x_scale");
    scalar(x_zero_, "x_zero_point");
    per_channel(&w_scale, "w_scale");
    per_channel(w_zero_, "w_zero_point");
    scalar(&y_scale, "y_scale");
    scalar(y_zero, "y_zero_point");
    const auto same_type = [&](const Tensor* zero, const Tensor& values, const char* name,
                               const char* of) {
      PRISM_ENFORCE(zero == nullptr || zero->Type() == values.Type(), kInvalidArgument, where, ": ",
                    name, " must have the type of ", of, " (", ElementTypeName(values.Type()),
                    "), got ", ElementTypeName(zero->Type()));
    };
    same_type(x_zero_, x, "x_zero_point", "x");
    same_type(w_zero_, w, "w_zero_point", "w");
    output_type_ = y_zero != nullptr ? y_zero->Type() : x.Type();
    y_zero_point_ = y_zero != nullptr ? ElementAsDouble(*y_zero, 0) : 0.0;
    const double x_scale_value = ElementAsDouble(x_scale, 0);
    const double y_scale_value = ElementAsDouble(y_scale, 0);
    multipliers_.resize(static_cast<size_t>(out_channels));
    for (int64_t m = 0; m < out_channels; ++m) {
      const double w_scale_value = ElementAsDouble(w_scale, w_scale.NumElements() == 1 ? 0 : m);
      const auto product = static_cast<float>(x_scale_value * w_scale_value);
      multipliers_[static_cast<size_t>(m)] = static_cast<float>(product / y_scale_value);
    }
  }

  ElementType OutputType() const { return output_type_; }

  std::vector<int32_t> ShiftedX(const Tensor& x) const { return Shifted(x, x_zero_, 1); }
  std::vector<int32_t> ShiftedW(const Tensor& w) const {
    return Shifted(w, w_zero_, w.NumElements() / std::max<int64_t>(out_channels_, 1));
  }

  // acc is [N, M, out_size] in int32.
  void Requantize(const std::vector<int32_t>& acc, int64_t out_size, Tensor& y) const {
    const QuantizedWriter writer(y, /*saturate=*/true);
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t m = (static_cast<int64_t>(i) / std::max<int64_t>(out_size, 1)) % out_channels_;
      writer.Store(static_cast<int64_t>(i),
                   static_cast<double>(acc[i]) * multipliers_[static_cast<size_t>(m)],
                   y_zero_point_);
    }
  }

 private:
  // values - zero_point as int32; the zero point is one value or one per run of `run` elements.
  static std::vector<int32_t> Shifted(const Tensor& values, const Tensor* zero_point, int64_t run) {
    std::vector<int32_t> out(static_cast<size_t>(values.NumElements()));
    const int64_t zeros = zero_point != nullptr ? zero_point->NumElements() : 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const auto index = static_cast<int64_t>(i);
      const double zero =
          zeros == 0 ? 0.0 : ElementAsDouble(*zero_point, zeros == 1 ? 0 : index / run);
      out[i] = static_cast<int32_t>(ElementAsDouble(values, index) - zero);
    }
    return out;
  }

  int64_t out_channels_;
  const Tensor* x_zero_ = nullptr;
  const Tensor* w_zero_ = nullptr;
  ElementType output_type_ = ElementType::kUint8;
  double y_zero_point_ = 0.0;
  std::vector<double> multipliers_;
};

}  // namespace prism::cpu::quantization
