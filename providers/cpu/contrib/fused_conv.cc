// FusedConv (com.microsoft, version 1, float): Y = activation(Conv(X, W, B) + Z). The convolution
// is the Conv kernel's (providers/cpu/nn/conv.cc holds the FusedConv class, which reuses
// ConvBase::Plan and RunConv); this file holds the activation step:
//   Relu; Tanh; Sigmoid; LeakyRelu (activation_params = [alpha]);
//   Clip ([min, max]); HardSigmoid ([alpha, beta]: max(0, min(1, alpha * x + beta))).
// No activation attribute means none (the identity). Relu, LeakyRelu and Clip run in the ISA
// kernels with the bias and the sum (mlas bias_activation_row_f32); the others after them, in
// fused_activation.cc (shared with FusedGemm).
#include "providers/cpu/contrib/fused_conv_activation.h"

#include "common/status.h"
#include "mlas/isa_kernels.h"

namespace prism::cpu {

ConvActivation ConvActivation::Parse(const Node& node, const std::string& activation,
                                     const std::vector<float>& params) {
  using Kind = FusedActivation::Kind;
  const std::optional<Kind> kind = FusedActivationKind(activation);
  size_t needed = 0;
  if (!kind || (*kind != Kind::kNone && *kind != Kind::kRelu && *kind != Kind::kTanh &&
                *kind != Kind::kSigmoid && *kind != Kind::kLeakyRelu && *kind != Kind::kClip &&
                *kind != Kind::kHardSigmoid))
    PRISM_THROW(kInvalidArgument, node.Describe(), ": FusedConv activation '", activation,
                "' is not one of Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid");
  if (*kind == Kind::kLeakyRelu) needed = 1;
  if (*kind == Kind::kClip || *kind == Kind::kHardSigmoid) needed = 2;
  PRISM_ENFORCE(params.size() == needed || (needed == 0 && params.empty()), kInvalidArgument,
                node.Describe(), ": FusedConv activation ", activation, " takes ", needed,
                " activation_params, got ", params.size());
  ConvActivation result;
  result.activation_.kind = *kind;
  if (needed >= 1) result.activation_.alpha = params[0];
  if (needed >= 2) result.activation_.beta = params[1];
  return result;
}

void ConvActivation::ApplyRow(float* out, const float* sum, float bias, int64_t count) const {
  using Kind = FusedActivation::Kind;
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  const float alpha = activation_.alpha, beta = activation_.beta;
  switch (activation_.kind) {
    case Kind::kRelu:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationRelu, 0, 0);
      return;
    case Kind::kLeakyRelu:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationLeakyRelu, alpha, 0);
      return;
    case Kind::kClip:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationClip, alpha, beta);
      return;
    default:
      kernels.bias_activation_row_f32(out, sum, count, bias, mlas::kActivationNone, 0, 0);
      if (activation_.kind != Kind::kNone) ApplyFusedActivation(activation_, out, count);
  }
}

}  // namespace prism::cpu
