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

}  // namespace prism::mlas
