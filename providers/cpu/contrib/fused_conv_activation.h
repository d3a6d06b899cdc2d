// FusedConv's (com.microsoft) step after the convolution: Y = activation(Conv(X, W, B) + Z), Z an
// optional input of Y's shape (onnxruntime's "sum" input). The convolution applies it row by row
// while each row is still in cache (providers/cpu/nn/conv.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/node.h"
#include "providers/cpu/contrib/fused_activation.h"

namespace prism::cpu {

class ConvActivation {
 public:
  ConvActivation() = default;
  // FusedConv's activation and activation_params: "" (none), Relu, Tanh, Sigmoid, LeakyRelu
  // ([alpha]), Clip ([min, max]), HardSigmoid ([alpha, beta]); throws kInvalidArgument naming the
  // node for another activation or a wrong number of parameters.
  static ConvActivation Parse(const Node& node, const std::string& activation,
                              const std::vector<float>& params);

  // out[i] = f(out[i] + bias + sum[i]) for i < count (sum may be null).
  void ApplyRow(float* out, const float* sum, float bias, int64_t count) const;
  bool IsNone() const { return activation_.kind == FusedActivation::Kind::kNone; }

 private:
  FusedActivation activation_;
};

}  // namespace prism::cpu
