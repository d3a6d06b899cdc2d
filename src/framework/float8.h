// Conversions for the narrow floating-point formats that have no C++ arithmetic type: the four
// float8 formats of opset 19 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ), float4e2m1 (opset 23) and
// float8e8m0 (opset 24), and float6e2m3 / float6e3m2 (opset 28). Encoded values travel as raw
// bits: one byte per float8 element, float4e2m1 in the low nibble and float6 in the low six bits
// (packing is the caller's business, see framework/packed_int.h).
//
// Encoding follows ONNX Cast: round to nearest, ties to even, and the `saturate` attribute
// decides what out-of-range values become (the tables in Cast's documentation):
//   saturate = true:  +-inf and finite values that round beyond the largest finite value clamp
//                     to +-max; NaN stays NaN.
//   saturate = false: they become +-inf for E5M2 and NaN for the FN / FNUZ formats.
// FNUZ formats have no negative zero (-0 encodes as +0) and a single NaN, 0x80.
// float4e2m1 has neither infinities nor NaN and always saturates (Cast's `saturate` only covers
// float8). A NaN input becomes a zero whose sign is the inverse of the NaN's sign, which is what
// the ONNX reference implementation (ml_dtypes) produces and the conformance data expects; the
// float4 technical note says "6" instead, but the data is what runtimes are checked against.
//
// float8e8m0 is an unsigned power of two 2^(bits - 127), 0xFF being NaN; see FloatToFloat8E8M0.
#pragma once

#include <cstdint>
#include <string>

#include "framework/element_type.h"

namespace prism {

// float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float8e8m0, float4e2m1,
// float6e2m3 or float6e3m2.
bool IsNarrowFloat(ElementType type);

// The value of bits in one of the narrow float types (exact: every value fits a float).
// Throws kInvalidArgument for other types.
float NarrowFloatToFloat(ElementType type, uint8_t bits);

// Encodes value as float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1,
// float6e2m3 or float6e3m2
// (rounding to nearest even, see above). For float8e8m0 use FloatToFloat8E8M0.
uint8_t FloatToNarrowFloat(ElementType type, double value, bool saturate);

// Largest finite value of a narrow float type: 448, 240, 57344, 57344, 6, 2^127, 7.5, 28.
double NarrowFloatMax(ElementType type);

// Cast's round_mode for float8e8m0: "up" (away from zero, the default), "down" (toward zero),
// "nearest" (ties away from zero, i.e. up).
enum class E8M0Rounding { kUp, kDown, kNearest };
// Parses round_mode; throws kInvalidArgument naming the accepted spellings.
E8M0Rounding ParseE8M0Rounding(const std::string& mode);

// Encodes value as float8e8m0. Only the magnitude is used (negative inputs are unspecified in the
// spec). NaN -> 0xFF. With saturate, +-inf and values above 2^127 give 0xFE (2^127) and values
// below 2^-127 (zero included) give 0x00 (2^-127); without saturate they give NaN.
uint8_t FloatToFloat8E8M0(double value, bool saturate, E8M0Rounding rounding);

}  // namespace prism
