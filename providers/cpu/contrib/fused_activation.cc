#include "providers/cpu/contrib/fused_activation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "mlas/isa_kernels.h"

namespace prism::cpu {

std::optional<FusedActivation::Kind> FusedActivationKind(const std::string& name) {
  using Kind = FusedActivation::Kind;
  static const std::map<std::string, Kind> kKinds = {
      {"", Kind::kNone},
      {"Relu", Kind::kRelu},
      {"Tanh", Kind::kTanh},
      {"Sigmoid", Kind::kSigmoid},
      {"LeakyRelu", Kind::kLeakyRelu},
      {"Clip", Kind::kClip},
      {"HardSigmoid", Kind::kHardSigmoid},
      {"Elu", Kind::kElu},
      {"Selu", Kind::kSelu},
      {"Softplus", Kind::kSoftplus},
      {"Softsign", Kind::kSoftsign},
      {"ThresholdedRelu", Kind::kThresholdedRelu},
  };
  const auto it = kKinds.find(name);
  if (it == kKinds.end()) return std::nullopt;
  return it->second;
}

namespace {

template <typename F>
void Transform(float* data, int64_t count, F f) {
  for (int64_t i = 0; i < count; ++i) data[i] = f(data[i]);
}

}  // namespace

void ApplyFusedActivation(const FusedActivation& activation, float* data, int64_t count) {
  using Kind = FusedActivation::Kind;
  const float alpha = activation.alpha, beta = activation.beta, gamma = activation.gamma;
  switch (activation.kind) {
    case Kind::kNone:
      return;
    case Kind::kRelu:  // NaN compares false: kept, as Relu keeps it
      return Transform(data, count, [](float v) { return v < 0.0f ? 0.0f : v; });
    case Kind::kTanh:  // the dispatched vector kernels (mlas/isa_kernels.h)
      return mlas::ActiveKernels().tanh_f32(data, data, count);
    case Kind::kSigmoid:
      return mlas::ActiveKernels().sigmoid_f32(data, data, count);
    case Kind::kLeakyRelu:
      return Transform(data, count, [alpha](float v) { return v < 0.0f ? alpha * v : v; });
    case Kind::kClip:
      return Transform(data, count,
                       [alpha, beta](float v) { return std::min(std::max(v, alpha), beta); });
    case Kind::kHardSigmoid:
      return Transform(data, count, [alpha, beta](float v) {
        const float y = alpha * v + beta;
        return y != y ? y : std::max(0.0f, std::min(1.0f, y));  // NaN stays NaN
      });
    case Kind::kElu:
      return Transform(data, count,
                       [alpha](float v) { return v < 0.0f ? alpha * (std::exp(v) - 1.0f) : v; });
    case Kind::kSelu:
      return Transform(data, count, [alpha, gamma](float v) {
        return v > 0.0f ? gamma * v : gamma * (alpha * std::exp(v) - alpha);
      });
    case Kind::kSoftplus:
      return Transform(data, count, [](float v) {
        return v > 0.0f ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
      });
    case Kind::kSoftsign:
      return Transform(data, count, [](float v) { return v / (1.0f + std::fabs(v)); });
    case Kind::kThresholdedRelu:
      return Transform(data, count, [alpha](float v) { return v > alpha ? v : 0.0f; });
  }
}

}  // namespace prism::cpu
