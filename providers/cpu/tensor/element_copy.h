// Type-agnostic element movement for the data-movement kernels (Concat, Gather, Transpose...):
// they never look at values, so they handle every element type by its storage: strings are
// assigned, byte-sized types are copied as bytes, and packed 4-bit/2-bit types are moved one
// element at a time (or as bytes when both ends are byte aligned).
#pragma once

#include <cstdint>

#include "framework/tensor.h"

namespace prism::cpu {

// Copies count elements of src, starting at element src_offset, to dst starting at element
// dst_offset. Both tensors must have the same element type and be in CPU memory; the ranges
// are the caller's responsibility (kernels validate shapes before copying).
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset,
                  int64_t count);

// Packed sub-byte element access (low bits first, as ONNX stores int4/int2 and float4).
inline uint8_t GetPackedElement(const uint8_t* data, int64_t index, int bits) {
  const int per_byte = 8 / bits;
  const int shift = static_cast<int>(index % per_byte) * bits;
  return static_cast<uint8_t>((data[index / per_byte] >> shift) & ((1u << bits) - 1u));
}

inline void SetPackedElement(uint8_t* data, int64_t index, int bits, uint8_t value) {
  const int per_byte = 8 / bits;
  const int shift = static_cast<int>(index % per_byte) * bits;
  const uint8_t mask = static_cast<uint8_t>(((1u << bits) - 1u) << shift);
  uint8_t& byte = data[index / per_byte];
  byte = static_cast<uint8_t>((byte & ~mask) | ((value << shift) & mask));
}

// Zeroes a freshly allocated packed output so the padding bits of its last byte are
// deterministic (kernels then write elements one by one).
void ClearPackedStorage(Tensor& tensor);

}  // namespace prism::cpu
