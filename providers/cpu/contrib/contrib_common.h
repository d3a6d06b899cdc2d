// Helpers shared by the com.microsoft CPU kernels (providers/cpu/contrib).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/op_kernel.h"
#include "providers/cpu/common/compute_type.h"

namespace prism::cpu::contrib {

inline constexpr const char* kMsDomain = "com.microsoft";

// Checks that a per-channel parameter is 1-D with the given length (onnxruntime's rule for
// gamma, beta and bias of the fused ops): names the node, the input, and both shapes.
inline void EnforceChannelVector(const Node& node, const Tensor& param, const char* name,
                                 int64_t channels, const TensorShape& x_shape) {
  PRISM_ENFORCE(param.Shape().Rank() == 1 && param.Shape()[0] == channels, kInvalidArgument,
                node.Describe(), ": ", name, " must be 1-D of length ", channels,
                " (the last dim of input ", x_shape.ToString(), "), got ",
                param.Shape().ToString());
}

// A parameter widened to the compute type C (float for the half types, double for double).
template <typename T, typename C = FloatComputeTypeOf<T>>
std::vector<C> Widen(const Tensor& tensor) {
  const T* data = tensor.Data<T>();
  std::vector<C> out(static_cast<size_t>(tensor.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<C>(ToCompute(data[i]));
  return out;
}

}  // namespace prism::cpu::contrib
