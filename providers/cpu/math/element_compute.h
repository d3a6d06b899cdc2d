// Helpers shared by the elementwise math kernels: the type an element is computed in (float16
// and bfloat16 widen to float), and integer arithmetic that wraps instead of invoking
// undefined behaviour on overflow.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "framework/float16.h"

namespace prism::cpu::math {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

template <typename T>
using Wide = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
inline Wide<T> Widen(T value) {
  if constexpr (kIsHalf<T>) {
    return value.ToFloat();
  } else {
    return value;
  }
}

// Rounds to nearest even for the half types; a plain conversion otherwise.
template <typename T, typename From>
inline T Narrow(From value) {
  if constexpr (kIsHalf<T>) {
    return T(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

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
