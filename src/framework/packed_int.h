// Packed sub-byte elements (int4/uint4, int2/uint2, float4e2m1 and float6 bits), stored as ONNX
// does: a little-endian bit stream where element i occupies bits [i * bits, (i + 1) * bits), so
// element 0 is in the low bits of byte 0. 2- and 4-bit elements never cross a byte; a 6-bit
// element may straddle two (four float6 elements fill three bytes).
#pragma once

#include <cmath>
#include <cstdint>

namespace prism {

// The raw bits of element index (zero-extended).
inline uint8_t GetPackedBits(const void* data, int64_t index, int bits) {
  const uint64_t first_bit = static_cast<uint64_t>(index) * static_cast<uint64_t>(bits);
  const auto* bytes = static_cast<const uint8_t*>(data) + first_bit / 8;
  const int shift = static_cast<int>(first_bit % 8);
  unsigned value = static_cast<unsigned>(bytes[0]) >> shift;
  if (shift + bits > 8) value |= static_cast<unsigned>(bytes[1]) << (8 - shift);
  return static_cast<uint8_t>(value & ((1u << bits) - 1u));
}

// Stores the low bits of value as element index, leaving the other elements' bits alone.
inline void SetPackedBits(void* data, int64_t index, int bits, uint8_t value) {
  const uint64_t first_bit = static_cast<uint64_t>(index) * static_cast<uint64_t>(bits);
  auto* bytes = static_cast<uint8_t*>(data) + first_bit / 8;
  const int shift = static_cast<int>(first_bit % 8);
  const unsigned field_mask = (1u << bits) - 1u;
  const unsigned field = value & field_mask;
  const auto low_mask = static_cast<uint8_t>(field_mask << shift);  // the part in this byte
  bytes[0] = static_cast<uint8_t>((bytes[0] & ~low_mask) | ((field << shift) & low_mask));
  if (shift + bits > 8) {  // the high part spills into the next byte
    const int spilled = shift + bits - 8;
    const auto high_mask = static_cast<uint8_t>((1u << spilled) - 1u);
    bytes[1] = static_cast<uint8_t>((bytes[1] & ~high_mask) | ((field >> (8 - shift)) & high_mask));
  }
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
