// Conversions between a stored element type and the type CPU kernels compute
// in: float16 and bfloat16 are widened to float, float and double stay as they are, integers are
// used as they are.
#pragma once

#include <type_traits>

#include "framework/float16.h"

namespace prism::cpu {

template <typename T>
inline constexpr bool kIsHalfType = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// float for float16/bfloat16/float, T otherwise.
template <typename T>
using ComputeTypeOf = std::conditional_t<kIsHalfType<T>, float, T>;

// double for double, float for the other floating types (accumulators of sums).
template <typename T>
using FloatComputeTypeOf = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
inline ComputeTypeOf<T> ToCompute(T value) {
  if constexpr (kIsHalfType<T>) {
    return value.ToFloat();
  } else {
    return value;
  }
}

// From any arithmetic value to T (rounding to nearest even for the half types).
template <typename T, typename From>
inline T FromCompute(From value) {
  if constexpr (kIsHalfType<T>) {
    return T(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

// Any supported element as double (parameters read once per channel).
template <typename T>
inline double ToDouble(T value) {
  return static_cast<double>(ToCompute(value));
}

}  // namespace prism::cpu
