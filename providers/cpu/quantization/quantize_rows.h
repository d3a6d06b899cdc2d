// QuantizeLinear's loop for float x, one float scale and a uint8/int8 output, 4 values at a time
// with SSE2 (every x86-64 has it), with the reference's results: the quotient x / scale rounded
// to float (a double quotient of two floats rounded to float is the float quotient), NaN as 0,
// clamped to [low - zero_point, high - zero_point] (integers, so clamping before rounding equals
// clamping after), rounded half to even (cvtps2dq in the default rounding mode, as nearbyint),
// plus the zero point.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace prism::cpu::quantization {

template <typename T>
void QuantizeFloatRows(const float* x, int64_t count, float scale, int32_t zero_point, T* out) {
  static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>);
  const auto low = static_cast<float>(std::numeric_limits<T>::min() - zero_point);
  const auto high = static_cast<float>(std::numeric_limits<T>::max() - zero_point);
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 scales = _mm_set1_ps(scale), lows = _mm_set1_ps(low), highs = _mm_set1_ps(high);
  const __m128i zeros = _mm_set1_epi32(zero_point);
  const auto four = [&](const float* p) {
    __m128 q = _mm_div_ps(_mm_loadu_ps(p), scales);
    q = _mm_and_ps(q, _mm_cmpord_ps(q, q));  // NaN -> 0
    q = _mm_min_ps(_mm_max_ps(q, lows), highs);
    return _mm_add_epi32(_mm_cvtps_epi32(q), zeros);
  };
  for (; i + 16 <= count; i += 16) {
    const __m128i first = _mm_packs_epi32(four(x + i), four(x + i + 4));
    const __m128i second = _mm_packs_epi32(four(x + i + 8), four(x + i + 12));
    const __m128i bytes = std::is_same_v<T, int8_t> ? _mm_packs_epi16(first, second)
                                                    : _mm_packus_epi16(first, second);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), bytes);
  }
#endif
  for (; i < count; ++i) {
    float q = x[i] / scale;
    if (std::isnan(q)) q = 0.0f;
    q = std::min(std::max(q, low), high);
    out[i] = static_cast<T>(static_cast<int32_t>(std::nearbyint(q)) + zero_point);
  }
}

}  // namespace prism::cpu::quantization
