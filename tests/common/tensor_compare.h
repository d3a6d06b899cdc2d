// Compares values: tensors of a floating type element by element within a tolerance for that
// type (NaN matches NaN, infinities match by sign), every other element type exactly; element
// type and shape must match. Sequences must match in element type, length and every tensor.
#pragma once

#include <cstdint>
#include <string>

#include "framework/value.h"

namespace prism::testing {

// How close an element must be to the expected e: |a - e| <= atol + rtol * |e|, or at most `ulp`
// representable values of the element type apart (0: no ULP allowance).
struct Bounds {
  double atol = 0;
  double rtol = 0;
  int64_t ulp = 0;
};

// Bounds for each floating element type (float, double, float16, bfloat16). Default-constructed:
// the unit-test defaults, each near the precision of its type, so that a kernel computing in a
// narrower type than its output (double in float, float in half) fails:
//   double    atol 1e-15, rtol 1e-12
//   float     atol 1e-7,  rtol 1e-5
//   float16   2 ULP of the expected value (the ULP steps are even through subnormals and zero)
//   bfloat16  2 ULP of the expected value
// Every other element type is compared bit-exactly whatever the tolerance.
class Tolerance {
 public:
  constexpr Tolerance() = default;
  // The same |a - e| <= atol + rtol * |e| for every floating type (Tolerance{0, 0}: exact).
  constexpr Tolerance(double atol, double rtol)
      : float_{atol, rtol, 0},
        double_{atol, rtol, 0},
        float16_{atol, rtol, 0},
        bfloat16_{atol, rtol, 0} {}
  // For the ONNX node-suite data, which numpy computed: ONNX's own checker
  // (onnx.backend.test.runner: rtol 1e-3, atol 1e-7, bfloat16 rtol 2^-6) for float, float16 and
  // bfloat16; double stays at the tight default, since numpy computed it in double.
  static Tolerance OnnxSpecData();

  Bounds For(ElementType type) const;
  Tolerance& Set(ElementType type, Bounds bounds);  // type: a floating type
  std::string Describe(ElementType type) const;     // "atol 1e-07 rtol 1e-05", "2 ulp"

 private:
  // The table above.
  Bounds float_{1e-7, 1e-5, 0};
  Bounds double_{1e-15, 1e-12, 0};
  Bounds float16_{0, 0, 2};
  Bounds bfloat16_{0, 0, 2};
};

// "" when equal, else a description of the first mismatches.
std::string CompareTensors(const Tensor& expected, const Tensor& actual, Tolerance tolerance);
std::string CompareValues(const Value& expected, const Value& actual, Tolerance tolerance);
// Element i of a tensor of a standard numeric or bool type, as double (float8, 4-bit and 2-bit
// types give NaN: CompareTensors compares those bit-exactly).
double ElementAsDouble(const Tensor& tensor, int64_t i);
// How many representable values of `type` (float, double, float16 or bfloat16) lie between the
// elements i of two tensors of that type, counting -0 and +0 as one; the largest value for NaN.
uint64_t UlpDistance(const Tensor& a, const Tensor& b, int64_t i);

}  // namespace prism::testing
