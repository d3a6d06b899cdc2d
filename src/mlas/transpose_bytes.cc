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

}  // namespace prism::mlas
