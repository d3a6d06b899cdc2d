// FusedConv (com.microsoft, version 1, float): Y = activation(Conv(X, W, B) + Z), with Z an
// optional input of Y's shape added before the activation (onnxruntime's "sum" input). The
// convolution is the Conv kernel's (providers/cpu/nn/conv.cc holds the FusedConv class, which
// reuses ConvBase::Plan and RunConv); this file holds the activation step (computed by
// fused_activation.cc, which FusedGemm shares):
//   Relu; Tanh; Sigmoid; LeakyRelu (activation_params = [alpha]);
//   Clip ([min, max]); HardSigmoid ([alpha, beta]: max(0, min(1, alpha * x + beta))).
// No activation attribute means none (the identity).
#include <string>
#include <vector>

#include "framework/op_kernel.h"
#include "providers/cpu/contrib/fused_activation.h"

namespace prism::cpu {

namespace {

size_t ParamsNeeded(const Node& node, const std::string& activation) {
  if (activation.empty() || activation == "Relu" || activation == "Tanh" || activation == "Sigmoid")
    return 0;
  if (activation == "LeakyRelu") return 1;
  if (activation == "Clip" || activation == "HardSigmoid") return 2;
  PRISM_THROW(kInvalidArgument, node.Describe(), ": FusedConv activation '", activation,
              "' is not one of Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid");
}

}  // namespace

void CheckFusedConvActivation(const Node& node, const std::string& activation,
                              const std::vector<float>& params) {
  const size_t needed = ParamsNeeded(node, activation);
  PRISM_ENFORCE(params.size() == needed || (needed == 0 && params.empty()), kInvalidArgument,
                node.Describe(), ": FusedConv activation ", activation, " takes ", needed,
                " activation_params, got ", params.size());
}

void ApplyFusedConvActivation(const Node& node, const std::string& activation,
                              const std::vector<float>& params, const Tensor* z, Tensor& y) {
  float* out = y.MutableData<float>();
  const int64_t count = y.NumElements();
  if (z != nullptr) {
    PRISM_ENFORCE(z->Type() == ElementType::kFloat && z->Shape() == y.Shape(), kInvalidArgument,
                  node.Describe(), ": FusedConv input Z must be float with Y's shape ",
                  y.Shape().ToString(), ", got ", z->Describe());
    const float* sum = z->Data<float>();
    for (int64_t i = 0; i < count; ++i) out[i] += sum[i];
  }
  // CheckFusedConvActivation accepted the name and the parameter count.
  FusedActivation fused;
  fused.kind = *FusedActivationKind(activation);
  if (!params.empty()) fused.alpha = params[0];
  if (params.size() > 1) fused.beta = params[1];
  ApplyFusedActivation(fused, out, count);
}

}  // namespace prism::cpu
