// FusedConv (com.microsoft, version 1, float): Y = activation(Conv(X, W, B) + Z), with Z an
// optional input of Y's shape added before the activation (onnxruntime's "sum" input). The
// convolution is the Conv kernel's (providers/cpu/nn/conv.cc holds the FusedConv class, which
// reuses ConvBase::Plan and RunConv); this file holds the activation step:
//   Relu; Tanh; Sigmoid; LeakyRelu (activation_params = [alpha]);
//   Clip ([min, max]); HardSigmoid ([alpha, beta]: max(0, min(1, alpha * x + beta))).
// No activation attribute means none (the identity).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/op_kernel.h"

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
  const auto apply = [&](auto f) {
    for (int64_t i = 0; i < count; ++i) out[i] = f(out[i]);
  };
  if (activation == "Relu") {
    apply([](float v) { return std::max(v, 0.0f); });
  } else if (activation == "Tanh") {
    apply([](float v) { return std::tanh(v); });
  } else if (activation == "Sigmoid") {
    apply([](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  } else if (activation == "LeakyRelu") {
    const float alpha = params[0];
    apply([alpha](float v) { return v >= 0.0f ? v : v * alpha; });
  } else if (activation == "Clip") {
    const float low = params[0], high = params[1];
    apply([low, high](float v) { return std::min(std::max(v, low), high); });
  } else if (activation == "HardSigmoid") {
    const float alpha = params[0], beta = params[1];
    apply([alpha, beta](float v) { return std::max(0.0f, std::min(1.0f, alpha * v + beta)); });
  }
}

}  // namespace prism::cpu
