// FusedConv (com.microsoft, version 1, float): Y = activation(Conv(X, W, B) + Z). The convolution
// is the Conv kernel's (providers/cpu/nn/conv.cc holds the FusedConv class, which reuses
// ConvBase::Plan and RunConv); this file holds the activation step:
//   Relu; Tanh; Sigmoid; LeakyRelu (activation_params = [alpha]);
//   Clip ([min, max]); HardSigmoid ([alpha, beta]: max(0, min(1, alpha * x + beta))).
// No activation attribute means none (the identity). Relu, LeakyRelu and Clip run in the ISA
// kernels with the bias and the sum (mlas bias_activation_row_f32); the others after them.
#include "providers/cpu/contrib/fused_conv_activation.h"

#include <algorithm>
#include <cmath>

#include "common/status.h"
#include "mlas/isa_kernels.h"

namespace prism::cpu {

ConvActivation ConvActivation::Parse(const Node& node, const std::string& activation,
                                     const std::vector<float>& params) {
  ConvActivation result;
  size_t needed = 0;
  if (activation.empty()) {
    result.kind_ = Kind::kNone;
  } else if (activation == "Relu") {
    result.kind_ = Kind::kRelu;
  } else if (activation == "Tanh") {
    result.kind_ = Kind::kTanh;
  } else if (activation == "Sigmoid") {
    result.kind_ = Kind::kSigmoid;
  } else if (activation == "LeakyRelu") {
    result.kind_ = Kind::kLeakyRelu;
    needed = 1;
  } else if (activation == "Clip") {
    result.kind_ = Kind::kClip;
    needed = 2;
  } else if (activation == "HardSigmoid") {
    result.kind_ = Kind::kHardSigmoid;
    needed = 2;
  } else {
    PRISM_THROW(kInvalidArgument, node.Describe(), ": FusedConv activation '", activation,
                "' is not one of Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid");
  }
  PRISM_ENFORCE(params.size() == needed || (needed == 0 && params.empty()), kInvalidArgument,
                node.Describe(), ": FusedConv activation ", activation, " takes ", needed,
                " activation_params, got ", params.size());
  if (needed >= 1) result.alpha_ = params[0];
  if (needed >= 2) result.beta_ = params[1];
  return result;
}

void ConvActivation::ApplyRow(float* out, const float* sum, float bias, int64_t count) const {
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  switch (kind_) {
    case Kind::kRelu:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationRelu, 0, 0);
      return;
    case Kind::kLeakyRelu:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationLeakyRelu, alpha_, 0);
      return;
    case Kind::kClip:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationClip, alpha_, beta_);
      return;
    default:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationNone, 0, 0);
      break;
  }
  const auto apply = [&](auto f) {
    for (int64_t i = 0; i < count; ++i) out[i] = f(out[i]);
  };
  if (kind_ == Kind::kTanh) {
    apply([](float v) { return std::tanh(v); });
  } else if (kind_ == Kind::kSigmoid) {
    apply([](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  } else if (kind_ == Kind::kHardSigmoid) {
    const float alpha = alpha_, beta = beta_;
    apply([alpha, beta](float v) { return std::max(0.0f, std::min(1.0f, alpha * v + beta)); });
  }
}

}  // namespace prism::cpu
