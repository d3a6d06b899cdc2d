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

// Packs a depthwise filter of `channels` (a multiple of 16) x `taps` (<= kDepthwiseQ8MaxTaps)
// shifted weights (shifted[c * taps + t], |value| <= 255), the bias (nullptr: none), the input's
// zero point and the per-channel float multipliers.
DepthwiseQ8Operands PackDepthwiseQ8(const int32_t* shifted, int64_t channels, int64_t taps,
                                    const int32_t* bias, int32_t x_zero, const float* multipliers);

}  // namespace prism::mlas
