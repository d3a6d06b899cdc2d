// Helpers shared by the com.microsoft CPU kernels (providers/cpu/contrib).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
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

// Float approximations on 4-lane vectors (GCC/Clang vector extensions; compiled to whatever
// the target has): std::exp and std::tanh are library calls per element (FastGelu with std::tanh
// ran 9x slower; Gelu and Erf use the eight-lane kernels of mlas/isa_kernels.h), and plain loops
// over selects do not auto-vectorize under the default -ftrapping-math.
using FloatVec = float __attribute__((vector_size(16)));
using IntVec = int32_t __attribute__((vector_size(16)));
inline constexpr int64_t kFloatVecLanes = 4;

inline FloatVec Splat(float value) {
  return FloatVec{} + value;
}

// e^x within 2 ulp for x in [-87, 88] (clamped outside; NaN gives e^-87, callers multiply by
// x): x = n ln2 + r, |r| <= ln2 / 2, e^r by its degree-7 Taylor polynomial (remainder < 6e-9),
// 2^n built in the exponent bits.
inline FloatVec ExpFast(FloatVec x) {
  x = x > Splat(-87.0f) ? x : Splat(-87.0f);
  x = x < Splat(88.0f) ? x : Splat(88.0f);
  const FloatVec round = Splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const FloatVec n = (x * 1.44269504088896341f + round) - round;
  const FloatVec r = (x - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;  // ln2 hi, lo
  FloatVec p = Splat(1.0f / 5040.0f);
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const IntVec exponent_bits = (__builtin_convertvector(n, IntVec) + 127) << 23;
  return p * std::bit_cast<FloatVec>(exponent_bits);
}

// 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)), u = sqrt(2 / pi) (x + 0.044715 x^3).
inline FloatVec GeluTanhFast(FloatVec x) {
  const FloatVec u = x * (0.7978845608028654f + 0.035677408136300125f * x * x);
  return x / (1.0f + ExpFast(-2.0f * u));
}

// x sigmoid(alpha x).
inline FloatVec QuickGeluFast(FloatVec x, float alpha) {
  return x / (1.0f + ExpFast(-alpha * x));
}

// out[i] = fn(in[i]), 4 lanes at a time (the tail through a padded vector); in may be out.
template <typename VecFn>
void MapFloats(const float* in, float* out, int64_t count, const VecFn& fn) {
  int64_t i = 0;
  for (; i + kFloatVecLanes <= count; i += kFloatVecLanes) {
    FloatVec v;
    std::memcpy(&v, in + i, sizeof(v));
    v = fn(v);
    std::memcpy(out + i, &v, sizeof(v));
  }
  if (i < count) {
    const size_t tail_bytes = sizeof(float) * static_cast<size_t>(count - i);
    FloatVec v{};
    std::memcpy(&v, in + i, tail_bytes);
    v = fn(v);
    std::memcpy(out + i, &v, tail_bytes);
  }
}

}  // namespace prism::cpu::contrib
