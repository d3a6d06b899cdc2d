// The AVX-512 unit's int8 GEMM kernel (included by isa_kernels_impl.h there only): on CPUs with
// AVX-512 VNNI, vpdpbusd sums four u8 x s8 products into each int32 lane at once, with no
// intermediate saturation, so it is exact for every input (a split B, which this level never
// packs on such a CPU, is still read correctly: both halves against the same A). The tile is 12
// rows x 32 columns (two panels of B): 24 accumulators, two vectors of B and one broadcast
// value of A in the 32 zmm registers. Without VNNI (AVX-512 F/BW/DQ/VL alone) the level runs the
// AVX2 vpmaddubsw kernel on the same 12-row panels of A, with its pair-bound contract.
//
// Only the VNNI functions are compiled with VNNI (the pragma below), so that the rest of the
// unit runs on AVX-512 CPUs without it; they run only after a CPUID check.

constexpr int64_t kQgemmTileRowsAvx512 = 12;

#pragma GCC push_options
#pragma GCC target("avx512vnni")

template <int kPanels, bool kSplit>
[[gnu::always_inline]] inline void QgemmTileVnni(int64_t groups, const uint8_t* a, const int8_t* b,
                                                 int64_t b_panel_stride, int64_t rows, int64_t cols,
                                                 bool accumulate, int32_t* c, int64_t ldc) {
  constexpr int kRows = static_cast<int>(kQgemmTileRowsAvx512);
  constexpr int64_t group_bytes = kSplit ? 2 * kQgemmGroupBytes : kQgemmGroupBytes;
  __m512i acc[kRows][kPanels];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) acc[r][p] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
#pragma GCC unroll 2
    for (int half = 0; half < (kSplit ? 2 : 1); ++half) {
      __m512i column[kPanels];
#pragma GCC unroll 2
      for (int p = 0; p < kPanels; ++p)
        column[p] = _mm512_loadu_si512(b + p * b_panel_stride + half * kQgemmGroupBytes);
#pragma GCC unroll 12
      for (int r = 0; r < kRows; ++r) {
        int32_t quad;
        std::memcpy(&quad, a + 4 * r, sizeof quad);
        const __m512i x = _mm512_set1_epi32(quad);
#pragma GCC unroll 2
        for (int p = 0; p < kPanels; ++p) acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], x, column[p]);
      }
    }
    a += kRows * kQgemmGroup;
    b += group_bytes;
  }
  for (int r = 0; r < rows; ++r) {
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) {
      const int64_t width = std::min<int64_t>(kQgemmCols, cols - p * kQgemmCols);
      if (width <= 0) continue;
      const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1u);
      int32_t* out = c + r * ldc + p * kQgemmCols;
      __m512i value = acc[r][p];
      if (accumulate) value = _mm512_add_epi32(value, _mm512_maskz_loadu_epi32(mask, out));
      _mm512_mask_storeu_epi32(out, mask, value);
    }
  }
}

// The macro-kernel: pairs of B panels outside, the 12-row panels of A inside.
void QgemmBlockVnni(int64_t m, int64_t n, int64_t groups, const uint8_t* a, int64_t a_panel_stride,
                    const int8_t* b, int64_t b_panel_stride, bool split, bool accumulate,
                    int32_t* c, int64_t ldc) {
  for (int64_t j = 0; j < n; j += 2 * kQgemmCols) {
    const int8_t* panels = b + j / kQgemmCols * b_panel_stride;
    const int64_t cols = std::min(2 * kQgemmCols, n - j);
    for (int64_t i = 0; i < m; i += kQgemmTileRowsAvx512) {
      const uint8_t* rows = a + i / kQgemmTileRowsAvx512 * a_panel_stride;
      const int64_t count = std::min(kQgemmTileRowsAvx512, m - i);
      int32_t* tile = c + i * ldc + j;
      if (cols > kQgemmCols) {
        if (split)
          QgemmTileVnni<2, true>(groups, rows, panels, b_panel_stride, count, cols, accumulate,
                                 tile, ldc);
        else
          QgemmTileVnni<2, false>(groups, rows, panels, b_panel_stride, count, cols, accumulate,
                                  tile, ldc);
      } else {
        if (split)
          QgemmTileVnni<1, true>(groups, rows, panels, b_panel_stride, count, cols, accumulate,
                                 tile, ldc);
        else
          QgemmTileVnni<1, false>(groups, rows, panels, b_panel_stride, count, cols, accumulate,
                                  tile, ldc);
      }
    }
  }
}

#pragma GCC pop_options

bool CpuHasAvx512Vnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni");
  return has;
}

// Without VNNI the AVX2 kernel runs, with its contract.
bool QgemmPairsSaturateAvx512() {
  return !CpuHasAvx512Vnni() && QgemmPairsSaturate();
}

void QgemmBlockAvx512(int64_t m, int64_t n, int64_t groups, const uint8_t* a,
                      int64_t a_panel_stride, const int8_t* b, int64_t b_panel_stride, bool split,
                      bool accumulate, int32_t* c, int64_t ldc) {
  if (CpuHasAvx512Vnni())
    QgemmBlockVnni(m, n, groups, a, a_panel_stride, b, b_panel_stride, split, accumulate, c, ldc);
  else
    QgemmBlockAvx2<kQgemmTileRowsAvx512>(m, n, groups, a, a_panel_stride, b, b_panel_stride, split,
                                         accumulate, c, ldc);
}
