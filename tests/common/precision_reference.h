// Expected values for precision tests, computed in a type wider than the kernel's:
//   - double kernels: the reference runs in long double and is rounded to double once. The
//     inputs must tell double from float: DoubleExpected also runs the reference in float (what
//     a double kernel computing in float would return) and fails the test unless the default
//     double tolerance rejects that.
//   - float16/bfloat16 kernels: the reference runs in float on the half inputs (widened exactly)
//     and each result is rounded to the half type once (RoundTo); the default tolerance
//     then allows 2 ULP.
// A reference is a lambda templated on its compute type C that returns std::vector<C>:
//   auto reference = [&]<typename C>() { ... return std::vector<C>{...}; };
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "op_tester.h"

namespace prism::testing {

// 1 + k * 2^-30: exact in double, but 1 in float (whose step above 1 is 2^-23 and which rounds
// the 2^-30 away), so a double kernel that computed in float sees only ones. Sums of a few of
// them are exact in double.
inline double NearOne(int k) {
  return 1.0 + k * 0x1p-30;
}

template <typename Reference>
std::vector<double> DoubleExpected(const Reference& reference) {
  const auto wide = reference.template operator()<long double>();
  const auto narrow = reference.template operator()<float>();
  const std::vector<double> expected(wide.begin(), wide.end());
  const std::vector<double> in_float(narrow.begin(), narrow.end());
  const int64_t count = static_cast<int64_t>(expected.size());
  EXPECT_NE(CompareTensors(MakeTensor<double>({count}, expected),
                           MakeTensor<double>({count}, in_float), Tolerance{}),
            "")
      << "these inputs cannot tell a double kernel from one that computes in float";
  return expected;
}

template <typename Half>
std::vector<float> Widen(const std::vector<Half>& values) {
  std::vector<float> out;
  out.reserve(values.size());
  for (Half v : values) out.push_back(v.ToFloat());
  return out;
}

// Float results rounded to the half type once.
template <typename Half>
std::vector<Half> RoundTo(const std::vector<float>& values) {
  std::vector<Half> out;
  out.reserve(values.size());
  for (float v : values) out.emplace_back(v);
  return out;
}

// `count` half values spread irregularly over [low, high] (a golden-ratio sequence), so that
// results land on many different roundings.
template <typename Half>
std::vector<Half> SpreadValues(int count, float low, float high) {
  std::vector<Half> out;
  out.reserve(static_cast<size_t>(count));
  double phase = 0.5;
  for (int i = 0; i < count; ++i) {
    phase += 0.6180339887498949;
    phase -= static_cast<int>(phase);
    out.emplace_back(static_cast<float>(low + (high - low) * phase));
  }
  return out;
}

}  // namespace prism::testing
