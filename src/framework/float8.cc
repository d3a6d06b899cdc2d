#include "framework/float8.h"

#include <cmath>
#include <limits>

#include "common/status.h"

namespace prism {
namespace {

// How a format spends its top codes.
enum class SpecialValues {
  kIeee,    // E5M2: exponent all ones is inf (mantissa 0) or NaN
  kFn,      // E4M3FN: no inf, S.1111.111 is NaN
  kFnuz,    // E4M3FNUZ / E5M2FNUZ: no inf, no -0, 0x80 is the only NaN
  kFinite,  // E2M1, float6 E2M3 / E3M2: no inf, no NaN
};

struct Format {
  int mantissa_bits;
  int bias;
  uint8_t sign_bit;
  uint8_t max_code;  // magnitude code of the largest finite value
  SpecialValues specials;
};

const Format& FormatOf(ElementType type) {
  static const Format kE4M3FN{3, 7, 0x80, 0x7e, SpecialValues::kFn};
  static const Format kE4M3FNUZ{3, 8, 0x80, 0x7f, SpecialValues::kFnuz};
  static const Format kE5M2{2, 15, 0x80, 0x7b, SpecialValues::kIeee};
  static const Format kE5M2FNUZ{2, 16, 0x80, 0x7f, SpecialValues::kFnuz};
  static const Format kE2M1{1, 1, 0x08, 0x07, SpecialValues::kFinite};
  static const Format kE2M3{3, 1, 0x20, 0x1f, SpecialValues::kFinite};
  static const Format kE3M2{2, 3, 0x20, 0x1f, SpecialValues::kFinite};
  switch (type) {
    case ElementType::kFloat8E4M3FN:
      return kE4M3FN;
    case ElementType::kFloat8E4M3FNUZ:
      return kE4M3FNUZ;
    case ElementType::kFloat8E5M2:
      return kE5M2;
    case ElementType::kFloat8E5M2FNUZ:
      return kE5M2FNUZ;
    case ElementType::kFloat4E2M1:
      return kE2M1;
    case ElementType::kFloat6E2M3:
      return kE2M3;
    case ElementType::kFloat6E3M2:
      return kE3M2;
    default:
      PRISM_THROW(kInvalidArgument, "element type ", ElementTypeName(type),
                  " is not a float8/float6/float4 format with a sign and a mantissa");
  }
}

uint8_t NaNCode(const Format& format, bool negative) {
  switch (format.specials) {
    case SpecialValues::kIeee:
      return static_cast<uint8_t>((negative ? 0x80 : 0) | 0x7e);
    case SpecialValues::kFn:
      return static_cast<uint8_t>((negative ? 0x80 : 0) | 0x7f);
    case SpecialValues::kFnuz:
      return 0x80;
    case SpecialValues::kFinite:
      return negative ? 0x0 : format.sign_bit;  // -0 for NaN, +0 for -NaN: see the header
  }
  return 0;
}

// What a value beyond the largest finite one becomes when not saturating.
uint8_t OverflowCode(const Format& format, bool negative) {
  const uint8_t sign = negative ? format.sign_bit : 0;
  switch (format.specials) {
    case SpecialValues::kIeee:
      return static_cast<uint8_t>(sign | 0x7c);  // inf
    case SpecialValues::kFn:
      return static_cast<uint8_t>(sign | 0x7f);  // NaN
    case SpecialValues::kFnuz:
      return 0x80;  // NaN
    case SpecialValues::kFinite:
      return static_cast<uint8_t>(sign | format.max_code);
  }
  return 0;
}

// Round half to even of a non-negative value (independent of the FPU rounding mode).
double RoundHalfEven(double value) {
  const double floor = std::floor(value);
  const double fraction = value - floor;  // exact: both are within one binade
  if (fraction > 0.5) return floor + 1.0;
  if (fraction < 0.5) return floor;
  return std::fmod(floor, 2.0) == 0.0 ? floor : floor + 1.0;
}

float DecodeWithFormat(const Format& format, uint8_t bits) {
  const bool negative = (bits & format.sign_bit) != 0;
  const int code = bits & (format.sign_bit - 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  switch (format.specials) {
    case SpecialValues::kIeee:
      if (code >= 0x7c) {
        if (code > 0x7c) return negative ? -nan : nan;
        return negative ? -std::numeric_limits<float>::infinity()
                        : std::numeric_limits<float>::infinity();
      }
      break;
    case SpecialValues::kFn:
      if (code == 0x7f) return negative ? -nan : nan;
      break;
    case SpecialValues::kFnuz:
      if (bits == 0x80) return nan;
      break;
    case SpecialValues::kFinite:
      break;
  }
  const int exponent = code >> format.mantissa_bits;
  const int mantissa = code & ((1 << format.mantissa_bits) - 1);
  // Subnormals (exponent 0) share the quantum of the smallest normal binade.
  const int significand = exponent == 0 ? mantissa : mantissa + (1 << format.mantissa_bits);
  const int scale = (exponent == 0 ? 1 : exponent) - format.bias - format.mantissa_bits;
  const float magnitude = std::ldexp(static_cast<float>(significand), scale);
  return negative ? -magnitude : magnitude;
}

uint8_t EncodeWithFormat(const Format& format, double value, bool saturate) {
  const bool negative = std::signbit(value);
  const uint8_t sign = negative ? format.sign_bit : 0;
  if (std::isnan(value)) return NaNCode(format, negative);
  // float4e2m1 and float6 have nothing to overflow to: they always saturate.
  const bool clamp = saturate || format.specials == SpecialValues::kFinite;
  if (std::isinf(value)) {
    return clamp ? static_cast<uint8_t>(sign | format.max_code) : OverflowCode(format, negative);
  }
  const double magnitude = std::fabs(value);
  int64_t code = 0;
  if (magnitude != 0.0) {
    int binary_exponent = 0;
    std::frexp(magnitude, &binary_exponent);  // magnitude in [2^(e-1), 2^e)
    const int min_normal_exponent = 1 - format.bias;
    int exponent = binary_exponent - 1;
    if (exponent > 64) {
      code = int64_t{1} << 20;  // far beyond every format's range
    } else {
      if (exponent < min_normal_exponent) exponent = min_normal_exponent;  // subnormal
      // The significand in units of the binade's quantum, rounded: codes are contiguous across
      // binades, so a significand that rounds up to the next power of two lands on the next
      // binade's first code by itself.
      const double significand =
          RoundHalfEven(std::ldexp(magnitude, format.mantissa_bits - exponent));
      code = (static_cast<int64_t>(exponent - min_normal_exponent) << format.mantissa_bits) +
             static_cast<int64_t>(significand);
    }
  }
  if (code > format.max_code) {
    return clamp ? static_cast<uint8_t>(sign | format.max_code) : OverflowCode(format, negative);
  }
  if (code == 0 && format.specials == SpecialValues::kFnuz) return 0;  // no negative zero
  return static_cast<uint8_t>(sign | code);
}

}  // namespace

bool IsNarrowFloat(ElementType type) {
  switch (type) {
    case ElementType::kFloat8E4M3FN:
    case ElementType::kFloat8E4M3FNUZ:
    case ElementType::kFloat8E5M2:
    case ElementType::kFloat8E5M2FNUZ:
    case ElementType::kFloat8E8M0:
    case ElementType::kFloat4E2M1:
    case ElementType::kFloat6E2M3:
    case ElementType::kFloat6E3M2:
      return true;
    default:
      return false;
  }
}

float NarrowFloatToFloat(ElementType type, uint8_t bits) {
  if (type == ElementType::kFloat8E8M0) {
    if (bits == 0xff) return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(1.0f, static_cast<int>(bits) - 127);  // 2^-127 is a float subnormal
  }
  return DecodeWithFormat(FormatOf(type), bits);
}

uint8_t FloatToNarrowFloat(ElementType type, double value, bool saturate) {
  return EncodeWithFormat(FormatOf(type), value, saturate);
}

double NarrowFloatMax(ElementType type) {
  if (type == ElementType::kFloat8E8M0) return std::ldexp(1.0, 127);
  const Format& format = FormatOf(type);
  return DecodeWithFormat(format, format.max_code);
}

E8M0Rounding ParseE8M0Rounding(const std::string& mode) {
  if (mode == "up") return E8M0Rounding::kUp;
  if (mode == "down") return E8M0Rounding::kDown;
  if (mode == "nearest") return E8M0Rounding::kNearest;
  PRISM_THROW(kInvalidArgument, "round_mode must be \"up\", \"down\" or \"nearest\", got \"", mode,
              "\"");
}

uint8_t FloatToFloat8E8M0(double value, bool saturate, E8M0Rounding rounding) {
  constexpr uint8_t kNaN = 0xff;
  constexpr int kMaxCode = 0xfe;  // 2^127
  if (std::isnan(value)) return kNaN;
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return saturate ? kMaxCode : kNaN;
  if (magnitude == 0.0) return saturate ? 0 : kNaN;  // below the smallest value, 2^-127
  int binary_exponent = 0;
  const double fraction = std::frexp(magnitude, &binary_exponent);  // in [0.5, 1)
  int code = binary_exponent - 1 + 127;                             // floor(log2(magnitude)) + bias
  switch (rounding) {
    case E8M0Rounding::kUp:
      if (fraction > 0.5) ++code;
      break;
    case E8M0Rounding::kDown:
      break;
    case E8M0Rounding::kNearest:
      // The midpoint between 2^k and 2^(k+1) is 1.5 * 2^k; ties go up.
      if (fraction >= 0.75) ++code;
      break;
  }
  if (code > kMaxCode) return saturate ? kMaxCode : kNaN;
  if (code < 0) return saturate ? 0 : kNaN;
  return static_cast<uint8_t>(code);
}

}  // namespace prism
