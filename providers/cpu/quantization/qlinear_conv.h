// QLinearConv's quantization parameters (opset 10): the checks of the scales and zero points, and
// the per-output-channel multipliers of the requantization of the int32 convolution (with the
// int32 bias added):
//   y = saturate(round_half_even(acc * (x_scale * w_scale[m] / y_scale)) + y_zero_point),
// the multiplier in float (each step rounded), the product in double. The convolution and the
// requantization run in quantization/int8_conv.h.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "framework/op_kernel.h"
#include "providers/cpu/quantization/quantize_common.h"

namespace prism::cpu::quantization {

class QLinearConvQuantization {
 public:
  // Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
  // w_type: W's element type (W itself may have been prepacked).
  QLinearConvQuantization(const Node& node, const OpKernelContext& context, int64_t out_channels,
                          ElementType w_type) {
    // (node.Describe() only in the messages: it built a string on every run.)
    const Tensor& x = context.RequiredInput(0);
    const Tensor* x_zero = context.Input(2);
    const Tensor* w_zero = context.Input(5);
    const Tensor* y_zero = context.Input(7);
    const auto scalar = [&](const Tensor* tensor, const char* name) {
      PRISM_ENFORCE(tensor == nullptr || tensor->NumElements() == 1, kInvalidArgument,
                    node.Describe(), ": ", name, " must be a scalar (per-tensor), got ",
                    tensor->Shape().ToString());
    };
    const auto per_channel = [&](const Tensor* tensor, const char* name) {
      PRISM_ENFORCE(tensor == nullptr || tensor->NumElements() == 1 ||
                        (tensor->Shape().Rank() == 1 && tensor->NumElements() == out_channels),
                    kInvalidArgument, node.Describe(), ": ", name,
                    " must be a scalar or 1-D with one value per output channel (", out_channels,
                    "), got ", tensor->Shape().ToString());
    };
    const Tensor& x_scale = context.RequiredInput(1);
    const Tensor& w_scale = context.RequiredInput(4);
    const Tensor& y_scale = context.RequiredInput(6);
    scalar(&x_scale, "x_scale");
    scalar(x_zero, "x_zero_point");
    per_channel(&w_scale, "w_scale");
    per_channel(w_zero, "w_zero_point");
    scalar(&y_scale, "y_scale");
    scalar(y_zero, "y_zero_point");
    const auto same_type = [&](const Tensor* zero, ElementType values, const char* name,
                               const char* of) {
      PRISM_ENFORCE(zero == nullptr || zero->Type() == values, kInvalidArgument, node.Describe(),
                    ": ", name, " must have the type of ", of, " (", ElementTypeName(values),
                    "), got ", ElementTypeName(zero->Type()));
    };
    same_type(x_zero, x.Type(), "x_zero_point", "x");
    same_type(w_zero, w_type, "w_zero_point", "w");
    output_type_ = y_zero != nullptr ? y_zero->Type() : x.Type();
    y_zero_point_ = y_zero != nullptr ? ElementAsDouble(*y_zero, 0) : 0.0;
    x_zero_point_ = x_zero != nullptr ? static_cast<int32_t>(ElementAsDouble(*x_zero, 0)) : 0;
    const double x_scale_value = ElementAsDouble(x_scale, 0);
    const double y_scale_value = ElementAsDouble(y_scale, 0);
    multipliers_.resize(static_cast<size_t>(out_channels));
    for (int64_t m = 0; m < out_channels; ++m) {
      const double w_scale_value = ElementAsDouble(w_scale, w_scale.NumElements() == 1 ? 0 : m);
      const auto product = static_cast<float>(x_scale_value * w_scale_value);
      multipliers_[static_cast<size_t>(m)] = static_cast<float>(product / y_scale_value);
      PRISM_ENFORCE(
          std::isfinite(multipliers_[static_cast<size_t>(m)]), kInvalidArgument, node.Describe(),
          ": the requantization multiplier x_scale * w_scale / y_scale of output channel ", m,
          " is not finite (", multipliers_[static_cast<size_t>(m)], ")");
    }
    if (w_zero != nullptr) {
      w_zero_points_.resize(static_cast<size_t>(out_channels));
      for (int64_t m = 0; m < out_channels; ++m)
        w_zero_points_[static_cast<size_t>(m)] =
            static_cast<int32_t>(ElementAsDouble(*w_zero, w_zero->NumElements() == 1 ? 0 : m));
    }
  }

  ElementType OutputType() const { return output_type_; }
  int32_t XZeroPoint() const { return x_zero_point_; }
  // One per output channel, or nullptr when w_zero_point is absent (zero).
  const int32_t* WZeroPoints() const {
    return w_zero_points_.empty() ? nullptr : w_zero_points_.data();
  }
  double YZeroPoint() const { return y_zero_point_; }
  const double* Multipliers() const { return multipliers_.data(); }

 private:
  int32_t x_zero_point_ = 0;
  ElementType output_type_ = ElementType::kUint8;
  double y_zero_point_ = 0.0;
  std::vector<double> multipliers_;
  std::vector<int32_t> w_zero_points_;
};

}  // namespace prism::cpu::quantization
