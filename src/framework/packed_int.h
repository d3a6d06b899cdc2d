// Packed sub-byte elements (int4/uint4, int2/uint2 and float4e2m1 bits): element i lives in
// bits [shift, shift + bits) of byte i / (8 / bits), shift = (i % (8 / bits)) * bits, so element 0
// is in the low bits of byte 0, as ONNX stores them.
#pragma once

#include <cmath>
#include <cstdint>

namespace prism {

// The raw bits of element index (zero-extended).
inline uint8_t GetPackedBits(const void* data, int64_t index, int bits) {
  const int per_byte = 8 / bits;
  const int shift = static_cast<int>(index % per_byte) * bits;
  const uint8_t byte = static_cast<const uint8_t*>(data)[index / per_byte];
  return static_cast<uint8_t>((byte >> shift) & ((1u << bits) - 1u));
}

// Stores the low bits of value as element index, leaving the byte's other elements alone.
inline void SetPackedBits(void* data, int64_t index, int bits, uint8_t value) {
  const int per_byte = 8 / bits;
  const int shift = static_cast<int>(index % per_byte) * bits;
  const uint8_t mask = static_cast<uint8_t>(((1u << bits) - 1u) << shift);
  uint8_t& byte = static_cast<uint8_t*>(data)[index / per_byte];
  byte = static_cast<uint8_t>((byte & ~mask) | ((value << shift) & mask));
}

// The value of raw element bits: two's complement (int4: 0x8..0xF are -8..-1) when is_signed.
inline int8_t PackedIntValue(uint8_t raw, int bits, bool is_signed) {
  const int mask = (1 << bits) - 1;
  int value = raw & mask;
  if (is_signed && (value >> (bits - 1)) != 0) value -= 1 << bits;
  return static_cast<int8_t>(value);
}

// Raw bits of an integer in a bits-wide type: the low bits (two's complement wrap, like every
// integer-to-integer Cast: 8 as int4 is -8, -1 as uint4 is 15).
inline uint8_t PackedIntBits(int64_t value, int bits) {
  return static_cast<uint8_t>(static_cast<uint64_t>(value) & ((1u << bits) - 1u));
}

// Raw bits of the quantization rule (QuantizeLinear): round half to even, then clamp to the
// type's range ([-8, 7] for int4, [0, 15] for uint4, [-2, 1] for int2, [0, 3] for uint2).
// NaN gives 0.
inline uint8_t SaturatePackedInt(double value, int bits, bool is_signed) {
  const double low = is_signed ? -static_cast<double>(1 << (bits - 1)) : 0.0;
  const double high =
      is_signed ? static_cast<double>((1 << (bits - 1)) - 1) : static_cast<double>((1 << bits) - 1);
  if (std::isnan(value)) return 0;
  if (value <= low) return PackedIntBits(static_cast<int64_t>(low), bits);
  if (value >= high) return PackedIntBits(static_cast<int64_t>(high), bits);
  const double floor = std::floor(value);
  const double fraction = value - floor;
  double rounded = floor;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(floor, 2.0) != 0.0)) rounded += 1.0;
  return PackedIntBits(static_cast<int64_t>(rounded), bits);
}

}  // namespace prism
