// IEEE half and bfloat16 storage types with round-to-nearest-even conversion from float.
#pragma once

#include <cstdint>
#include <cstring>

namespace prism {

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

struct Float16 {
  uint16_t bits = 0;

  Float16() = default;
  explicit Float16(float value) : bits(FromFloat(value)) {}
  static Float16 FromBits(uint16_t raw) {
    Float16 h;
    h.bits = raw;
    return h;
  }
  explicit operator float() const { return ToFloat(bits); }
  float ToFloat() const { return ToFloat(bits); }

  static uint16_t FromFloat(float value) {
    const uint32_t f = FloatBits(value);
    const uint32_t sign = (f >> 16) & 0x8000u;
    const uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {                                               // subnormal half or zero
      // Adding 0.5 makes the FPU do the shift and the round-to-even for us.
      const float shifted = FloatFromBits(abs) + 0.5f;
      return static_cast<uint16_t>(sign | (FloatBits(shifted) - 0x3f000000u));
    }
    const uint32_t mantissa_odd = (abs >> 13) & 1u;
    uint32_t rounded = abs + 0xc8000fffu + mantissa_odd;  // rebias exponent (-112 << 23) and round
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }

  static float ToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return FloatFromBits(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
      // Subnormal: value = mantissa * 2^-24.
      const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;
      return sign ? -magnitude : magnitude;
    }
    return FloatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float value) : bits(FromFloat(value)) {}
  static BFloat16 FromBits(uint16_t raw) {
    BFloat16 b;
    b.bits = raw;
    return b;
  }
  explicit operator float() const { return ToFloat(bits); }
  float ToFloat() const { return ToFloat(bits); }

  static uint16_t FromFloat(float value) {
    const uint32_t f = FloatBits(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);  // nan
    const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
    return static_cast<uint16_t>((f + rounding) >> 16);
  }
  static float ToFloat(uint16_t b) { return FloatFromBits(static_cast<uint32_t>(b) << 16); }
};

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

}  // namespace prism
