// The activation a fused CPU kernel applies to its float output in place: FusedConv
// (activation + activation_params) and FusedGemm (activation + activation_alpha/beta/gamma), as
// onnxruntime's com.microsoft ops define them. Each computes what the standalone ONNX op does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace prism::cpu {

struct FusedActivation {
  enum class Kind {
    kNone,
    kRelu,
    kTanh,
    kSigmoid,
    kLeakyRelu,    // alpha
    kClip,         // [alpha, beta] = [min, max]
    kHardSigmoid,  // max(0, min(1, alpha * x + beta))
    kElu,          // alpha
    kSelu,         // alpha, gamma
    kSoftplus,
    kSoftsign,
    kThresholdedRelu,  // alpha
  };
  Kind kind = Kind::kNone;
  float alpha = 0.0f;
  float beta = 0.0f;
  float gamma = 0.0f;
};

// The kind an activation name ("Relu", "LeakyRelu", ...; "" is kNone) stands for, or nothing.
std::optional<FusedActivation::Kind> FusedActivationKind(const std::string& name);

// data[i] = activation(data[i]) for i < count.
void ApplyFusedActivation(const FusedActivation& activation, float* data, int64_t count);

}  // namespace prism::cpu
