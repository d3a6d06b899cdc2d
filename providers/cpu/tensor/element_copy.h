// Type-agnostic element movement for the data-movement kernels (Concat, Gather, Transpose...):
// they never look at values, so they handle every element type by its storage: strings are
// assigned, byte-sized types are copied as bytes, and packed 6/4/2-bit types are moved one
// element at a time (or as bytes when both ends are byte aligned).
#pragma once

#include <cstdint>

#include "framework/packed_int.h"
#include "framework/tensor.h"

namespace prism::cpu {

// Copies count elements of src, starting at element src_offset, to dst starting at element
// dst_offset. Both tensors must have the same element type and be in CPU memory; the ranges
// are the caller's responsibility (kernels validate shapes before copying).
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset,
                  int64_t count);

// Writes element `value_offset` of `value` into count elements of dst starting at dst_offset
// (same type, CPU memory): Pad's constant, and any fill with one element.
void FillElements(Tensor& dst, int64_t dst_offset, int64_t count, const Tensor& value,
                  int64_t value_offset = 0);

// Packed sub-byte element access (the little-endian bit stream of framework/packed_int.h, as ONNX
// stores int4/int2, float4 and float6).
inline uint8_t GetPackedElement(const uint8_t* data, int64_t index, int bits) {
  return GetPackedBits(data, index, bits);
}

inline void SetPackedElement(uint8_t* data, int64_t index, int bits, uint8_t value) {
  SetPackedBits(data, index, bits, value);
}

// Zeroes a freshly allocated packed output so the padding bits of its last byte are
// deterministic (kernels then write elements one by one).
void ClearPackedStorage(Tensor& tensor);

}  // namespace prism::cpu
