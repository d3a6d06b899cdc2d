// Helpers for the elementwise math kernel tests: typed value lists written as doubles.
#pragma once

#include <initializer_list>
#include <string>
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

template <typename T>
inline constexpr bool kIsFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

}  // namespace prism::testing
