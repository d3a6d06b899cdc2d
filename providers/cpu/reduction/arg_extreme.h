// The running choice of ArgMax/ArgMin and Hardmax along one axis, with numpy's rules: the first
// extreme wins a tie (the last with select_last_index), and NaN counts as more extreme than any
// number, so the first NaN (the last with select_last_index) is chosen.
#pragma once

#include <cmath>
#include <cstdint>

#include "providers/cpu/common/compute_type.h"

namespace prism::cpu {

template <bool kMax, typename T>
struct ArgExtreme {
  using Value = ComputeTypeOf<T>;
  Value best{};
  int64_t index = -1;
  bool best_is_nan = false;

  void Offer(T element, int64_t position, bool select_last) {
    const Value value = ToCompute(element);
    if (index < 0) {
      Take(value, position);
      return;
    }
    if constexpr (std::is_floating_point_v<Value>) {
      if (std::isnan(value)) {
        if (!best_is_nan || select_last) Take(value, position);
        return;
      }
      if (best_is_nan) return;
    }
    const bool better = kMax ? value > best : value < best;
    if (better || (select_last && value == best)) Take(value, position);
  }

 private:
  void Take(Value value, int64_t position) {
    best = value;
    index = position;
    if constexpr (std::is_floating_point_v<Value>) best_is_nan = std::isnan(value);
  }
};

}  // namespace prism::cpu
