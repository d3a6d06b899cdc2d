// QLinearAdd's element loop for two inputs of one shape (no broadcasting): the level's
// qlinear_add row (IsaKernels) where it has one, else 16 values at a time with SSE2 (every x86-64
// has it), the same float steps as the general loop in qlinear_ops.cc:
//   c = round_half_even(clamp((a - a_zp) * ra + (b - b_zp) * rb + c_zp, type range))
// (two products and a sum, each rounded to float; cvtps2dq rounds half to even as nearbyint does
// in the default rounding mode).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mlas/isa_kernels.h"

namespace prism::cpu::contrib {

template <typename T>
void QLinearAddRows(const T* a, const T* b, T* c, int64_t count, int32_t a_zero, int32_t b_zero,
                    float ratio_a, float ratio_b, int32_t c_zero, const mlas::IsaKernels& kernels) {
  static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>);
  // The level's vectorized row where it has one (AVX2, AVX-512): the same steps.
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (kernels.qlinear_add_u8 != nullptr)
      return kernels.qlinear_add_u8(a, b, c, count, a_zero, b_zero, ratio_a, ratio_b, c_zero);
  } else {
    if (kernels.qlinear_add_s8 != nullptr)
      return kernels.qlinear_add_s8(a, b, c, count, a_zero, b_zero, ratio_a, ratio_b, c_zero);
  }
  const auto low = static_cast<float>(std::numeric_limits<T>::min());
  const auto high = static_cast<float>(std::numeric_limits<T>::max());
  int64_t i = 0;
#if defined(__SSE2__)
  constexpr bool kSigned = std::is_same_v<T, int8_t>;
  const __m128i zero = _mm_setzero_si128();
  const __m128i a_zeros = _mm_set1_epi32(a_zero), b_zeros = _mm_set1_epi32(b_zero);
  const __m128 ra = _mm_set1_ps(ratio_a), rb = _mm_set1_ps(ratio_b);
  const __m128 c_zeros = _mm_set1_ps(static_cast<float>(c_zero));
  const __m128 lows = _mm_set1_ps(low), highs = _mm_set1_ps(high);
  // Bytes -> two vectors of 8 int16 (sign- or zero-extended).
  const auto widen8 = [&](__m128i bytes, bool high_half) {
    if constexpr (kSigned) {
      const __m128i doubled =
          high_half ? _mm_unpackhi_epi8(bytes, bytes) : _mm_unpacklo_epi8(bytes, bytes);
      return _mm_srai_epi16(doubled, 8);
    } else {
      return high_half ? _mm_unpackhi_epi8(bytes, zero) : _mm_unpacklo_epi8(bytes, zero);
    }
  };
  // int16 -> int32, the low or high four.
  const auto widen16 = [](__m128i words, bool high_half) {
    const __m128i doubled =
        high_half ? _mm_unpackhi_epi16(words, words) : _mm_unpacklo_epi16(words, words);
    return _mm_srai_epi32(doubled, 16);
  };
  const auto four = [&](__m128i a32, __m128i b32) {
    const __m128 da = _mm_cvtepi32_ps(_mm_sub_epi32(a32, a_zeros));
    const __m128 db = _mm_cvtepi32_ps(_mm_sub_epi32(b32, b_zeros));
    __m128 value = _mm_add_ps(_mm_mul_ps(da, ra), _mm_mul_ps(db, rb));
    value = _mm_add_ps(value, c_zeros);
    value = _mm_min_ps(_mm_max_ps(value, lows), highs);
    return _mm_cvtps_epi32(value);
  };
  for (; i + 16 <= count; i += 16) {
    const __m128i va = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m128i vb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    __m128i words[2];
    for (int h = 0; h < 2; ++h) {
      const __m128i a16 = widen8(va, h == 1), b16 = widen8(vb, h == 1);
      const __m128i lo = four(widen16(a16, false), widen16(b16, false));
      const __m128i hi = four(widen16(a16, true), widen16(b16, true));
      words[h] = _mm_packs_epi32(lo, hi);
    }
    const __m128i bytes =
        kSigned ? _mm_packs_epi16(words[0], words[1]) : _mm_packus_epi16(words[0], words[1]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(c + i), bytes);
  }
#endif
  for (; i < count; ++i) {
    const auto da = static_cast<float>(static_cast<int32_t>(a[i]) - a_zero);
    const auto db = static_cast<float>(static_cast<int32_t>(b[i]) - b_zero);
    float value = da * ratio_a + db * ratio_b;
    value += static_cast<float>(c_zero);
    value = std::fmin(std::fmax(value, low), high);
    c[i] = static_cast<T>(std::nearbyint(value));
  }
}

}  // namespace prism::cpu::contrib
