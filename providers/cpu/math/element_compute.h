// Helpers shared by the elementwise math kernels (the compute type of half types lives in
// providers/cpu/common/compute_type.h): integer arithmetic that wraps instead of invoking
// undefined behaviour on overflow.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "framework/float16.h"
#include "providers/cpu/common/compute_type.h"

namespace prism::cpu::math {

// The unsigned type integer arithmetic of T is done in: at least 32 bits so that promotions
// never produce a signed int that could overflow (uint16 * uint16 would).
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;

template <typename T>
inline T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}

// A floating value converted to the integer type I: truncated toward zero, saturated at I's
// limits, NaN giving 0 (a plain cast would be undefined behaviour for those).
template <typename I>
inline I SaturatingFloatToInt(double value) {
  if (std::isnan(value)) return I{0};
  if (value <= static_cast<double>(std::numeric_limits<I>::lowest()))
    return std::numeric_limits<I>::lowest();
  // The max of 64-bit types is not exactly representable: compare against 2^bits instead.
  constexpr double kLimit = static_cast<double>(std::numeric_limits<I>::max()) + 1.0;
  if (value >= kLimit) return std::numeric_limits<I>::max();
  return static_cast<I>(value);
}

}  // namespace prism::cpu::math
