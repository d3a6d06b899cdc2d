// Transposing a matrix of bytes (8-bit weights and activations): weight packing at session
// creation (QLinearConv, QGemm), channels-last layout changes, 8-bit Transpose nodes.
#pragma once

#include <cstdint>

namespace prism::mlas {

// dst[j * dst_stride + i] = src[i * src_stride + j] for i < rows, j < columns. 16 x 16 blocks
// in SSE2 registers, the edges a byte at a time (a byte-by-byte loop ran at about 3 GB/s).
void TransposeBytes(const uint8_t* src, int64_t src_stride, int64_t rows, int64_t columns,
                    uint8_t* dst, int64_t dst_stride);

// The transpose of three rows of `count` bytes (row r at src + r * src_stride) into `count`
// triples: dst[3 i + r] = src[r * src_stride + i] (an RGB image made channels-last, the input
// of a quantized CNN). Sixteen triples at a time in SSE2 (the byte loop took 63 us for a
// 224 x 224 image, on the run's critical path before the first convolution).
void InterleaveThreeRows(const uint8_t* src, int64_t src_stride, int64_t count, uint8_t* dst);

}  // namespace prism::mlas
