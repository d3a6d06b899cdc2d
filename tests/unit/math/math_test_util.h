// Helpers for the elementwise math kernel tests: typed value lists written as doubles.
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "op_tester.h"

namespace prism::testing {

// Converts each value to T (float16/bfloat16 rounding to nearest even).
template <typename T>
std::vector<T> Vals(std::initializer_list<double> values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (double v : values) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out.push_back(T(static_cast<float>(v)));
    } else {
      out.push_back(static_cast<T>(v));
    }
  }
  return out;
}

// A list of element types to run one check on: TypeSet<float, double>::ForEach(
//   [](auto* type) { using T = std::remove_pointer_t<decltype(type)>; ... });
template <typename... Ts>
struct TypeSet {
  template <typename Fn>
  static void ForEach(Fn&& fn) {
    (fn(static_cast<Ts*>(nullptr)), ...);
  }
};

// A value as double, and a double as T (float16/bfloat16 through float, rounding to nearest).
template <typename T>
double AsDouble(T value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return static_cast<double>(static_cast<float>(value));
  else
    return static_cast<double>(value);
}

template <typename T>
T FromDouble(double value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return T(static_cast<float>(value));
  else
    return static_cast<T>(value);
}

template <typename T>
inline constexpr bool kIsFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

}  // namespace prism::testing
