// Element-type conversion shared by Cast and CastLike: every (from, to) pair of the element
// types Prism supports, strings included. The rules, where ONNX leaves room:
// - float -> integer (all widths, packed int4/int2 too): NaN gives 0; otherwise truncate toward
//   zero. A truncated value that fits int64 (uint64 for a uint64 target) then wraps into the
//   target like an integer cast (keeps the low bits: 200.0 -> int8 is -56, -1.0 -> uint8 is 255,
//   -9.0 -> int4 is 7), which is what onnxruntime gives on x86 and what the ONNX int4/int2
//   conformance data expects. +-inf and values beyond that range saturate to the target's
//   min/max. Never undefined behaviour.
// - integer -> integer: keep the low bits (two's complement), as the spec says.
// - anything -> bool: nonzero (NaN included) is true. bool -> numbers: 1 / 0.
// - to float8: round to nearest even with the `saturate` table of the spec; to float4e2m1 and
//   float6e2m3 / float6e3m2 (opset 28): round to nearest even, always saturating (NaN becomes a
//   zero, as ml_dtypes does); to float8e8m0: `round_mode` and `saturate`; see
//   framework/float8.h. int64/uint64 <-> double and int64 -> float convert directly; float16,
//   bfloat16 targets go through float.
// - to string: integers in decimal, bool as "1"/"0", NaN as "NaN", infinities as "INF"/"-INF",
//   float and double as their shortest round-trip decimal ("0.47892547", "1e-07", "100"); the
//   narrower float types print their exact value the same way (float16 0.1 -> "0.099975586",
//   like onnxruntime), so every value reads back unchanged.
// - from string: surrounding ASCII whitespace is ignored; "NaN", "INF", "+INF", "-INF" and
//   "Infinity" in any case, plain and scientific decimals ("3.14", "1E8", "+2") are accepted.
//   Integer targets take integer text exactly (wrapping like integer casts when too wide for
//   the target) and otherwise parse a decimal and apply the float rule ("100.5" -> 100). bool
//   also accepts "true"/"false". Decimals beyond the range of double become +-inf or 0. Text
//   that is not a number throws kInvalidArgument naming the string.
#pragma once

#include "framework/float8.h"
#include "framework/tensor.h"

namespace prism::cpu {

struct CastOptions {
  bool saturate = true;                         // float8 out-of-range handling (Cast 19+)
  E8M0Rounding round_mode = E8M0Rounding::kUp;  // rounding to float8e8m0 (Cast 24+)
};

// Converts every element of input into output. Both must be in CPU memory with the same element
// count; output's element type is the target. Throws kInvalidArgument for unparsable strings and
// kNotImplemented for element types Prism cannot convert (complex).
void CastElements(const Tensor& input, Tensor& output, const CastOptions& options);

}  // namespace prism::cpu
