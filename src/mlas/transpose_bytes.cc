#include "mlas/transpose_bytes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace prism::mlas {

void TransposeBytes(const uint8_t* src, int64_t src_stride, int64_t rows, int64_t columns,
                    uint8_t* dst, int64_t dst_stride) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= rows; i += 16) {
    int64_t j = 0;
    for (; j + 16 <= columns; j += 16) {
      __m128i r[16];
      for (int k = 0; k < 16; ++k)
        r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + (i + k) * src_stride + j));
      // Interleaving register k with k + 8 rotates the 8-bit (register, byte) index left by
      // one bit; four rounds swap its halves: the transpose.
      for (int round = 0; round < 4; ++round) {
        __m128i t[16];
        for (int k = 0; k < 8; ++k) {
          t[2 * k] = _mm_unpacklo_epi8(r[k], r[k + 8]);
          t[2 * k + 1] = _mm_unpackhi_epi8(r[k], r[k + 8]);
        }
        for (int k = 0; k < 16; ++k) r[k] = t[k];
      }
      for (int k = 0; k < 16; ++k)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (j + k) * dst_stride + i), r[k]);
    }
    for (; j < columns; ++j)
      for (int64_t k = 0; k < 16; ++k) dst[j * dst_stride + i + k] = src[(i + k) * src_stride + j];
  }
#endif
  for (; i < rows; ++i)
    for (int64_t j = 0; j < columns; ++j) dst[j * dst_stride + i] = src[i * src_stride + j];
}

void InterleaveThreeRows(const uint8_t* src, int64_t src_stride, int64_t count, uint8_t* dst) {
  const uint8_t* const r0 = src;
  const uint8_t* const r1 = src + src_stride;
  const uint8_t* const r2 = src + 2 * src_stride;
  int64_t i = 0;
#if defined(__SSE2__)
  // Each 16 bytes of the rows become four vectors of four (b0, b1, b2, 0) words; in each 64-bit
  // lane the second word moves down a byte onto the first's zero, and the upper lane's six bytes
  // move down two onto the lower's: twelve bytes of triples, stored as 16 (the last four are
  // overwritten by the next store, so two triples past the block must remain).
  const __m128i zero = _mm_setzero_si128();
  const __m128i low_word = _mm_set1_epi64x(0x0000000000FFFFFF);
  const __m128i high_word = _mm_set1_epi64x(0x0000FFFFFF000000);
  const __m128i low_lane = _mm_set_epi64x(0, 0x0000FFFFFFFFFFFF);
  for (; i + 18 <= count; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + i));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r2 + i));
    const __m128i ab_low = _mm_unpacklo_epi8(a, b), ab_high = _mm_unpackhi_epi8(a, b);
    const __m128i c_low = _mm_unpacklo_epi8(c, zero), c_high = _mm_unpackhi_epi8(c, zero);
    const __m128i words[4] = {_mm_unpacklo_epi16(ab_low, c_low), _mm_unpackhi_epi16(ab_low, c_low),
                              _mm_unpacklo_epi16(ab_high, c_high),
                              _mm_unpackhi_epi16(ab_high, c_high)};
    for (int q = 0; q < 4; ++q) {
      const __m128i lanes = _mm_or_si128(_mm_and_si128(words[q], low_word),
                                         _mm_and_si128(_mm_srli_epi64(words[q], 8), high_word));
      const __m128i triples =
          _mm_or_si128(_mm_and_si128(lanes, low_lane), _mm_slli_si128(_mm_srli_si128(lanes, 8), 6));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * (i + 4 * q)), triples);
    }
  }
#endif
  for (; i < count; ++i) {
    dst[3 * i] = r0[i];
    dst[3 * i + 1] = r1[i];
    dst[3 * i + 2] = r2[i];
  }
}

}  // namespace prism::mlas
