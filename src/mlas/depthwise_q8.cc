#include "mlas/depthwise_q8.h"

#include <stdexcept>

namespace prism::mlas {

DepthwiseQ8Operands PackDepthwiseQ8(const int32_t* shifted, int64_t channels, int64_t taps,
                                    const int32_t* bias, int32_t x_zero, const float* multipliers) {
  if (channels <= 0 || channels % kDepthwiseQ8Block != 0 || taps <= 0 || taps > kDepthwiseQ8MaxTaps)
    throw std::invalid_argument(
        "PackDepthwiseQ8: channels must be a positive multiple of 16 and taps 1 to 64");
  DepthwiseQ8Operands packed;
  packed.channels = channels;
  packed.taps = taps;
  packed.pairs = (taps + 1) / 2;
  packed.weights.assign(static_cast<size_t>(channels * packed.pairs * 2), 0);
  packed.terms.resize(static_cast<size_t>(channels));
  packed.multipliers.resize(static_cast<size_t>(channels));
  for (int64_t b = 0; b < channels / kDepthwiseQ8Block; ++b)
    for (int64_t i = 0; i < kDepthwiseQ8Block; ++i) {
      const int64_t c = b * kDepthwiseQ8Block + DepthwiseQ8ChannelAt(i);
      const int32_t* w = shifted + c * taps;
      uint32_t weight_sum = 0;
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t p = t / 2;
        packed.weights[static_cast<size_t>(((b * packed.pairs + p) * kDepthwiseQ8Block + i) * 2 +
                                           t % 2)] = static_cast<int16_t>(w[t]);
        weight_sum += static_cast<uint32_t>(w[t]);
      }
      const size_t at = static_cast<size_t>(b * kDepthwiseQ8Block + i);
      packed.terms[at] =
          static_cast<int32_t>((bias != nullptr ? static_cast<uint32_t>(bias[c]) : 0u) -
                               static_cast<uint32_t>(x_zero) * weight_sum);
      packed.multipliers[at] = multipliers[c];
    }
  return packed;
}

bool DepthwiseQ8QuadsFit(const int32_t* shifted, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (shifted[i] < -128 || shifted[i] > 127) return false;
  return true;
}

DepthwiseQ8QuadOperands PackDepthwiseQ8Quads(const int32_t* shifted, int64_t channels, int64_t taps,
                                             const int32_t* bias, int32_t x_zero, bool x_signed,
                                             const float* multipliers) {
  if (channels <= 0 || taps <= 0 || taps > kDepthwiseQ8MaxTaps ||
      !DepthwiseQ8QuadsFit(shifted, channels * taps))
    throw std::invalid_argument(
        "PackDepthwiseQ8Quads: channels must be positive, taps 1 to 64, weights within int8");
  DepthwiseQ8QuadOperands packed;
  packed.channels = channels;
  packed.taps = taps;
  packed.quads = (taps + 3) / 4;
  const int64_t blocks = (channels + kDepthwiseQ8QuadBlock - 1) / kDepthwiseQ8QuadBlock;
  packed.weights.assign(static_cast<size_t>(blocks * packed.quads * 4 * kDepthwiseQ8QuadBlock), 0);
  packed.terms.assign(static_cast<size_t>(blocks * kDepthwiseQ8QuadBlock), 0);
  packed.multipliers.assign(static_cast<size_t>(blocks * kDepthwiseQ8QuadBlock), 0.0f);
  // The kernel reads an int8 input as x + 128 (its sign bit flipped): the zero point moves with it.
  const uint32_t zero = static_cast<uint32_t>(x_zero + (x_signed ? 128 : 0));
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t p = 0; p < 16; ++p) {
        const int64_t c = b * kDepthwiseQ8QuadBlock + DepthwiseQ8QuadChannelAt(j, p);
        if (c >= channels) continue;
        const int32_t* w = shifted + c * taps;
        uint32_t weight_sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t q = t / 4;
          packed.weights[static_cast<size_t>((((b * packed.quads + q) * 4 + j) * 16 + p) * 4 +
                                             t % 4)] = static_cast<int8_t>(w[t]);
          weight_sum += static_cast<uint32_t>(w[t]);
        }
        const size_t at = static_cast<size_t>((b * 4 + j) * 16 + p);
        packed.terms[at] = static_cast<int32_t>(
            (bias != nullptr ? static_cast<uint32_t>(bias[c]) : 0u) - zero * weight_sum);
        packed.multipliers[at] = multipliers[c];
      }
  return packed;
}

}  // namespace prism::mlas
