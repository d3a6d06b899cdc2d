// The 8-bit channels-last depthwise convolution's packed operands for IsaKernels::
// depthwise_nhwc_q8 (isa_kernels.h): the zero-point-shifted weights as int16 pairs of taps in
// the kernel's register order, and the per-channel terms and multipliers in the same order.
#pragma once

#include <cstdint>
#include <vector>

#include "common/aligned_vector.h"

namespace prism::mlas {

// Channels a block of the kernel (its two int32 vectors); the packed form needs whole blocks.
constexpr int64_t kDepthwiseQ8Block = 16;
// The most kernel offsets (taps) the kernel takes.
constexpr int64_t kDepthwiseQ8MaxTaps = 64;

// Within a block of 16 channels the kernel's two vectors hold channels {0-3, 8-11} and
// {4-7, 12-15} (vpunpck{l,h}wd's lanes): position i of a block holds channel ChannelAt(i).
constexpr int64_t DepthwiseQ8ChannelAt(int64_t i) {
  return (i / 4 % 2) * 8 + (i / 8) * 4 + i % 4;
}

struct DepthwiseQ8Operands {
  int64_t channels = 0, taps = 0, pairs = 0;
  // weights[((b * pairs + p) * 16 + i) * 2 + t]: block b, pair p (taps 2p and 2p + 1; a last odd
  // tap pairs with a zero weight), position i (channel b * 16 + DepthwiseQ8ChannelAt(i)), tap
  // 2p + t of that channel's weights less its zero point.
  AlignedVector<int16_t> weights;
  // Per position as above: bias - x_zero * (the sum of the channel's shifted weights), wrapping
  // in 32 bits, and the channel's multiplier.
  AlignedVector<int32_t> terms;
  AlignedVector<float> multipliers;
};

// The same convolution's operands for IsaKernels::depthwise_nhwc_q8_quads (AVX-512 VNNI): taps
// in groups of four, one vpdpbusd multiplying a channel's four input bytes (interleaved from four
// taps' rows) by its four weights, which must then fit int8 (DepthwiseQ8QuadsFit). A block is 64
// channels in four int32 vectors: vector j, 128-bit lane k, dword i holds channel
// 64 * block + 16 * k + 4 * j + i (vpunpck{l,h}{bw,wd}'s order), which two saturating packs put
// back in channel order. The last block is padded with zero weights, terms and multipliers.
constexpr int64_t kDepthwiseQ8QuadBlock = 64;

constexpr int64_t DepthwiseQ8QuadChannelAt(int64_t vector, int64_t position) {
  return 16 * (position / 4) + 4 * vector + position % 4;
}

struct DepthwiseQ8QuadOperands {
  int64_t channels = 0, taps = 0, quads = 0;
  // weights[(((b * quads + q) * 4 + j) * 16 + p) * 4 + t]: block b, group q (taps 4q to 4q + 3;
  // zero past the last tap), vector j, position p (channel
  // b * 64 + DepthwiseQ8QuadChannelAt(j, p)), tap 4q + t's shifted weight.
  AlignedVector<int8_t> weights;
  // terms[(b * 4 + j) * 16 + p], multipliers likewise: as DepthwiseQ8Operands' for that channel,
  // with x_zero the unsigned input's (an int8 input is read with its sign bit flipped: x + 128).
  AlignedVector<int32_t> terms;
  AlignedVector<float> multipliers;
};

// Whether every shifted weight fits int8 (symmetric int8 weights do; so do uint8 ones with zero
// point 128).
bool DepthwiseQ8QuadsFit(const int32_t* shifted, int64_t count);

// Packs as PackDepthwiseQ8 does for the quad kernel; x_signed: the input is int8.
DepthwiseQ8QuadOperands PackDepthwiseQ8Quads(const int32_t* shifted, int64_t channels, int64_t taps,
                                             const int32_t* bias, int32_t x_zero, bool x_signed,
                                             const float* multipliers);

// Packs a depthwise filter of `channels` (a multiple of 16) x `taps` (<= kDepthwiseQ8MaxTaps)
// shifted weights (shifted[c * taps + t], |value| <= 255), the bias (nullptr: none), the input's
// zero point and the per-channel float multipliers.
DepthwiseQ8Operands PackDepthwiseQ8(const int32_t* shifted, int64_t channels, int64_t taps,
                                    const int32_t* bias, int32_t x_zero, const float* multipliers);

}  // namespace prism::mlas
