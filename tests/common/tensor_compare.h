// Compares tensors the way the conformance rules say: floating types within
// |a - b| <= atol + rtol * |b| (NaN matches NaN, infinities match by sign), everything else
// exactly; element type and shape must match.
#pragma once

#include <string>

#include "framework/value.h"

namespace prism::testing {

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-3;
};

// "" when equal, else a description of the first mismatches.
std::string CompareTensors(const Tensor& expected, const Tensor& actual, Tolerance tolerance);
std::string CompareValues(const Value& expected, const Value& actual, Tolerance tolerance);
// Element i of a tensor of a standard numeric or bool type, as double (float8, 4-bit and 2-bit
// types give NaN: CompareTensors compares those bit-exactly).
double ElementAsDouble(const Tensor& tensor, int64_t i);

}  // namespace prism::testing
