// The AVX-512 SGEMM macro- and micro-kernels: part of isa_kernels_impl.h, which includes this
// inside its anonymous namespace in the AVX-512 unit only (no include guard, no includes: the
// includer's <immintrin.h>, kTileRows and kTileCols are used). The unit is x86-64 only.
//
// A tile of C is 12 rows x 32 columns: two 6-row panels of A (or 12 rows in place) times two
// adjacent 16-column panels of B (b_panel_stride apart, the format of every level), 24 zmm
// accumulators. At the right edge a single panel is left (12 x 16), at the bottom fewer rows;
// columns past n are masked off on loads and stores of C, so nothing outside the block is touched.

constexpr int kWideTileRows = 2 * kTileRows;  // 12
constexpr int kWideTileCols = 2 * kTileCols;  // 32

// A tile's rows of A: rows 0-5 from `top`, rows 6-11 from `bottom`, each row `row_stride` floats
// after the one before and each k step `top_step` (`bottom_step`) floats after the last. In place
// these are lda, 1 and 1; packed, two consecutive 6-row panels (the second one may be shorter).
struct WideTileA {
  const float* top;
  const float* bottom;
  int64_t row_stride, top_step, bottom_step;
};

// The full 12 x 32 tile, in assembly so that the loop is exactly this whatever the compiler: 24
// accumulators (zmm0-23), the two B vectors of a k step (zmm24-25) and one broadcast A value
// (zmm26); k unrolled by 4. A's rows are addressed from four bases (rows 0, 3, 6 and 9) plus 0,
// 1 or 2 row strides, so the same loop reads A packed or in place. B is prefetched 16 k steps
// ahead (two panels 512 deep are 64 KiB, more than the L1 cache). The sums go to `sums` (12 rows
// of 32 floats).
// clang-format off
#define PRISM_WIDE_ROW(address, sum0, sum1)                   \
  "vbroadcastss " address ", %%zmm26\n\t"                      \
  "vfmadd231ps %%zmm24, %%zmm26, %%zmm" #sum0 "\n\t"           \
  "vfmadd231ps %%zmm25, %%zmm26, %%zmm" #sum1 "\n\t"
#define PRISM_WIDE_STEP(u)                                     \
  "vmovups " #u "*64(%[b]), %%zmm24\n\t"                       \
  "vmovups " #u "*64(%[b],%[bs],1), %%zmm25\n\t"               \
  "prefetcht0 " #u "*64+1024(%[b])\n\t"                        \
  "prefetcht0 " #u "*64+1024(%[b],%[bs],1)\n\t"                \
  PRISM_WIDE_ROW("(%[a0])", 0, 1)                              \
  PRISM_WIDE_ROW("(%[a0],%[rs],1)", 2, 3)                      \
  PRISM_WIDE_ROW("(%[a0],%[rs],2)", 4, 5)                      \
  PRISM_WIDE_ROW("(%[a3])", 6, 7)                              \
  PRISM_WIDE_ROW("(%[a3],%[rs],1)", 8, 9)                      \
  PRISM_WIDE_ROW("(%[a3],%[rs],2)", 10, 11)                    \
  PRISM_WIDE_ROW("(%[a6])", 12, 13)                            \
  PRISM_WIDE_ROW("(%[a6],%[rs],1)", 14, 15)                    \
  PRISM_WIDE_ROW("(%[a6],%[rs],2)", 16, 17)                    \
  PRISM_WIDE_ROW("(%[a9])", 18, 19)                            \
  PRISM_WIDE_ROW("(%[a9],%[rs],1)", 20, 21)                    \
  PRISM_WIDE_ROW("(%[a9],%[rs],2)", 22, 23)                    \
  "add %[ks], %[a0]\n\t"                                       \
  "add %[ks], %[a3]\n\t"                                       \
  "add %[ks], %[a6]\n\t"                                       \
  "add %[ks], %[a9]\n\t"
#define PRISM_WIDE_SAVE(r) "vmovups %%zmm" #r ", " #r "*64(%[sums])\n\t"
// clang-format on

void WideTileSums12x32(int64_t k, const WideTileA& a, const float* b, int64_t b_panel_stride,
                       float* sums) {
  int64_t quads = k / 4, rest = k % 4;
  const int64_t rs = a.row_stride * static_cast<int64_t>(sizeof(float));
  // Full tiles have equal steps for both halves (1 in place, 6 packed).
  const int64_t ks = a.top_step * static_cast<int64_t>(sizeof(float));
  const int64_t bs = b_panel_stride * static_cast<int64_t>(sizeof(float));
  const float* a0 = a.top;
  const float* a3 = a.top + 3 * a.row_stride;
  const float* a6 = a.bottom;
  const float* a9 = a.bottom + 3 * a.row_stride;
  __asm__ volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vmovaps %%zmm0, %%zmm1\n\t vmovaps %%zmm0, %%zmm2\n\t vmovaps %%zmm0, %%zmm3\n\t"
      "vmovaps %%zmm0, %%zmm4\n\t vmovaps %%zmm0, %%zmm5\n\t vmovaps %%zmm0, %%zmm6\n\t"
      "vmovaps %%zmm0, %%zmm7\n\t vmovaps %%zmm0, %%zmm8\n\t vmovaps %%zmm0, %%zmm9\n\t"
      "vmovaps %%zmm0, %%zmm10\n\t vmovaps %%zmm0, %%zmm11\n\t vmovaps %%zmm0, %%zmm12\n\t"
      "vmovaps %%zmm0, %%zmm13\n\t vmovaps %%zmm0, %%zmm14\n\t vmovaps %%zmm0, %%zmm15\n\t"
      "vmovaps %%zmm0, %%zmm16\n\t vmovaps %%zmm0, %%zmm17\n\t vmovaps %%zmm0, %%zmm18\n\t"
      "vmovaps %%zmm0, %%zmm19\n\t vmovaps %%zmm0, %%zmm20\n\t vmovaps %%zmm0, %%zmm21\n\t"
      "vmovaps %%zmm0, %%zmm22\n\t vmovaps %%zmm0, %%zmm23\n\t"
      "test %[quads], %[quads]\n\t"
      "jz 2f\n\t"
      ".p2align 5\n\t"
      "1:\n\t" PRISM_WIDE_STEP(0) PRISM_WIDE_STEP(1) PRISM_WIDE_STEP(2) PRISM_WIDE_STEP(3)
      "add $256, %[b]\n\t"
      "dec %[quads]\n\t"
      "jnz 1b\n\t"
      "2:\n\t"
      "test %[rest], %[rest]\n\t"
      "jz 4f\n\t"
      "3:\n\t" PRISM_WIDE_STEP(0)
      "add $64, %[b]\n\t"
      "dec %[rest]\n\t"
      "jnz 3b\n\t"
      "4:\n\t"
      PRISM_WIDE_SAVE(0) PRISM_WIDE_SAVE(1) PRISM_WIDE_SAVE(2) PRISM_WIDE_SAVE(3)
      PRISM_WIDE_SAVE(4) PRISM_WIDE_SAVE(5) PRISM_WIDE_SAVE(6) PRISM_WIDE_SAVE(7)
      PRISM_WIDE_SAVE(8) PRISM_WIDE_SAVE(9) PRISM_WIDE_SAVE(10) PRISM_WIDE_SAVE(11)
      PRISM_WIDE_SAVE(12) PRISM_WIDE_SAVE(13) PRISM_WIDE_SAVE(14) PRISM_WIDE_SAVE(15)
      PRISM_WIDE_SAVE(16) PRISM_WIDE_SAVE(17) PRISM_WIDE_SAVE(18) PRISM_WIDE_SAVE(19)
      PRISM_WIDE_SAVE(20) PRISM_WIDE_SAVE(21) PRISM_WIDE_SAVE(22) PRISM_WIDE_SAVE(23)
      : [a0] "+r"(a0), [a3] "+r"(a3), [a6] "+r"(a6), [a9] "+r"(a9), [b] "+r"(b),
        [quads] "+r"(quads), [rest] "+r"(rest)
      : [sums] "r"(sums), [rs] "r"(rs), [ks] "r"(ks), [bs] "r"(bs)
      : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26");
}
#undef PRISM_WIDE_SAVE
#undef PRISM_WIDE_STEP
#undef PRISM_WIDE_ROW

// One k step of an R-row, P-panel tile: acc[r][q] += A(r) * B panel q; then the pointers move on.
template <int R, int P>
[[gnu::always_inline]] inline void WideStep(__m512 (&acc)[R][P], const WideTileA& a,
                                            const float*& top, const float*& bottom,
                                            const float*& b, int64_t b_panel_stride) {
  __m512 column[P];
#pragma GCC unroll 2
  for (int q = 0; q < P; ++q) column[q] = _mm512_loadu_ps(b + q * b_panel_stride);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    const float* row =
        r < kTileRows ? top + r * a.row_stride : bottom + (r - kTileRows) * a.row_stride;
    const __m512 x = _mm512_set1_ps(*row);
#pragma GCC unroll 2
    for (int q = 0; q < P; ++q) acc[r][q] = _mm512_fmadd_ps(x, column[q], acc[r][q]);
  }
  top += a.top_step;
  bottom += a.bottom_step;
  b += kTileCols;
}

// The sums of an R-row, P-panel tile (the edges) into `sums` (row stride 32). Few accumulators
// would leave the multiply-adds waiting on each other's latency (4 cycles, 2 per cycle), so
// those keep kChains independent sums per accumulator, added at the end.
// The sums of an R-row, P-panel tile (the edges) into `sums` (row stride 32). Few accumulators
// would leave the multiply-adds waiting on each other's latency (4 cycles, 2 per cycle), so
// those keep kChains independent sums per accumulator, added at the end.
template <int R, int P>
[[gnu::always_inline]] inline void WideTileSums(int64_t k, const WideTileA& a, const float* b,
                                                int64_t b_panel_stride, float* sums) {
  constexpr int kChains = R * P >= 8 ? 1 : (8 + R * P - 1) / (R * P);
  __m512 acc[kChains][R][P];
#pragma GCC unroll 8
  for (int chain = 0; chain < kChains; ++chain)
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int q = 0; q < P; ++q) acc[chain][r][q] = _mm512_setzero_ps();
  const float* top = a.top;
  const float* bottom = a.bottom;
  int64_t p = 0;
  for (; p + kChains <= k; p += kChains)
#pragma GCC unroll 8
    for (int chain = 0; chain < kChains; ++chain)
      WideStep<R, P>(acc[chain], a, top, bottom, b, b_panel_stride);
  for (; p < k; ++p) WideStep<R, P>(acc[0], a, top, bottom, b, b_panel_stride);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int q = 0; q < P; ++q) {
      __m512 total = acc[0][r][q];
#pragma GCC unroll 8
      for (int chain = 1; chain < kChains; ++chain) total = _mm512_add_ps(total, acc[chain][r][q]);
      _mm512_store_ps(sums + r * kWideTileCols + q * kTileCols, total);
    }
}

// C's rows x cols tile (cols <= 32) = alpha * sums + beta * C, C not read when beta is 0;
// columns past cols neither read nor written.
inline void StoreWideTile(int rows, int64_t cols, const float* sums, float alpha, float beta,
                          float* c, int64_t ldc) {
  const __m512 alpha_v = _mm512_set1_ps(alpha), beta_v = _mm512_set1_ps(beta);
  if (cols == kWideTileCols) {
    // Whole panels: plain loads and stores (masked stores cost more on some CPUs).
    for (int r = 0; r < rows; ++r) {
      float* row = c + r * ldc;
      const float* sum = sums + r * kWideTileCols;
      __m512 low = _mm512_mul_ps(_mm512_load_ps(sum), alpha_v);
      __m512 high = _mm512_mul_ps(_mm512_load_ps(sum + kTileCols), alpha_v);
      if (beta != 0.0f) {
        low = _mm512_fmadd_ps(_mm512_loadu_ps(row), beta_v, low);
        high = _mm512_fmadd_ps(_mm512_loadu_ps(row + kTileCols), beta_v, high);
      }
      _mm512_storeu_ps(row, low);
      _mm512_storeu_ps(row + kTileCols, high);
    }
    return;
  }
  const int panels = cols > kTileCols ? 2 : 1;
  __mmask16 masks[2];
  for (int q = 0; q < panels; ++q) {
    const int64_t width = std::min<int64_t>(kTileCols, cols - q * kTileCols);
    masks[q] = static_cast<__mmask16>((uint32_t{1} << width) - 1);
  }
  for (int r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    for (int q = 0; q < panels; ++q) {
      __m512 value =
          _mm512_mul_ps(_mm512_load_ps(sums + r * kWideTileCols + q * kTileCols), alpha_v);
      if (beta != 0.0f)
        value =
            _mm512_fmadd_ps(_mm512_maskz_loadu_ps(masks[q], row + q * kTileCols), beta_v, value);
      _mm512_mask_storeu_ps(row + q * kTileCols, masks[q], value);
    }
  }
}

template <int P>
inline void WideTileSumsOfRows(int rows, int64_t k, const WideTileA& a, const float* b,
                               int64_t b_panel_stride, float* sums) {
  switch (rows) {
    case 12:
      if constexpr (P == 2)
        WideTileSums12x32(k, a, b, b_panel_stride, sums);
      else
        WideTileSums<12, P>(k, a, b, b_panel_stride, sums);
      return;
    case 11:
      return WideTileSums<11, P>(k, a, b, b_panel_stride, sums);
    case 10:
      return WideTileSums<10, P>(k, a, b, b_panel_stride, sums);
    case 9:
      return WideTileSums<9, P>(k, a, b, b_panel_stride, sums);
    case 8:
      return WideTileSums<8, P>(k, a, b, b_panel_stride, sums);
    case 7:
      return WideTileSums<7, P>(k, a, b, b_panel_stride, sums);
    case 6:
      return WideTileSums<6, P>(k, a, b, b_panel_stride, sums);
    case 5:
      return WideTileSums<5, P>(k, a, b, b_panel_stride, sums);
    case 4:
      return WideTileSums<4, P>(k, a, b, b_panel_stride, sums);
    case 3:
      return WideTileSums<3, P>(k, a, b, b_panel_stride, sums);
    case 2:
      return WideTileSums<2, P>(k, a, b, b_panel_stride, sums);
    default:
      return WideTileSums<1, P>(k, a, b, b_panel_stride, sums);
  }
}

inline void PrefetchTileOfC(int rows, int64_t cols, const float* c, int64_t ldc) {
  for (int r = 0; r < rows; ++r) {
    __builtin_prefetch(c + r * ldc);
    __builtin_prefetch(c + r * ldc + cols - 1);
  }
}

// The macro-kernel: every tile of an m x n block of C. Column pairs of panels outside, rows
// inside, so that two panels of B (k x 32 floats, 32 KiB at k = 256) stay in the L1 cache while
// the rows of A stream past them from the L2 cache.
void SgemmBlockAvx512(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                      const float* packed_b, int64_t b_panel_stride, float alpha, float beta,
                      float* c, int64_t ldc) {
  alignas(64) float sums[kWideTileRows * kWideTileCols];
  for (int64_t j = 0; j < n; j += kWideTileCols) {
    const int64_t cols = std::min<int64_t>(kWideTileCols, n - j);
    const float* panels = packed_b + (j / kTileCols) * b_panel_stride;
    for (int64_t i = 0; i < m; i += kWideTileRows) {
      const int rows = static_cast<int>(std::min<int64_t>(kWideTileRows, m - i));
      WideTileA tile;
      // (A tile of 6 rows or fewer reads no bottom half: it points at the top one.)
      if (lda == 0) {
        // Packed 6-row panels: every one before these is full, so this pair starts i * k floats
        // in; a panel's rows are adjacent and its k steps as many floats apart as it has rows.
        const float* top = a + i * k;
        tile = rows > kTileRows
                   ? WideTileA{top, top + kTileRows * k, 1, kTileRows, rows - kTileRows}
                   : WideTileA{top, top, 1, rows, 0};
      } else {
        const float* top = a + i * lda;
        tile = {top, rows > kTileRows ? top + kTileRows * lda : top, lda, 1, 1};
      }
      float* c_tile = c + i * ldc + j;
      // C's lines are needed only after the k loop; asking for them now hides a miss.
      PrefetchTileOfC(rows, cols, c_tile, ldc);
      if (cols > kTileCols)
        WideTileSumsOfRows<2>(rows, k, tile, panels, b_panel_stride, sums);
      else
        WideTileSumsOfRows<1>(rows, k, tile, panels, b_panel_stride, sums);
      StoreWideTile(rows, cols, sums, alpha, beta, c_tile, ldc);
    }
  }
}

// ---- The peak probe on AVX-512 ----
// 24 independent chains of 16-lane multiply-adds, 48 per round: more than the 8 that two FMA
// pipes of 4 cycles' latency need. Zeros keep every value exact and normal.
int64_t FmaProbeF32Avx512(int64_t iterations) {
  if (iterations <= 0) return 0;
    // clang-format off
#define PRISM_PROBE_FMA(r) "vfmadd231ps %%zmm30, %%zmm31, %%zmm" #r "\n\t"
#define PRISM_PROBE_ROUND                                                                   \
  PRISM_PROBE_FMA(0) PRISM_PROBE_FMA(1) PRISM_PROBE_FMA(2) PRISM_PROBE_FMA(3) PRISM_PROBE_FMA(4) \
  PRISM_PROBE_FMA(5) PRISM_PROBE_FMA(6) PRISM_PROBE_FMA(7) PRISM_PROBE_FMA(8) PRISM_PROBE_FMA(9) \
  PRISM_PROBE_FMA(10) PRISM_PROBE_FMA(11) PRISM_PROBE_FMA(12) PRISM_PROBE_FMA(13)                \
  PRISM_PROBE_FMA(14) PRISM_PROBE_FMA(15) PRISM_PROBE_FMA(16) PRISM_PROBE_FMA(17)                \
  PRISM_PROBE_FMA(18) PRISM_PROBE_FMA(19) PRISM_PROBE_FMA(20) PRISM_PROBE_FMA(21)                \
  PRISM_PROBE_FMA(22) PRISM_PROBE_FMA(23)
  // clang-format on
  int64_t count = iterations;
  __asm__ volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vmovaps %%zmm0, %%zmm1\n\t vmovaps %%zmm0, %%zmm2\n\t vmovaps %%zmm0, %%zmm3\n\t"
      "vmovaps %%zmm0, %%zmm4\n\t vmovaps %%zmm0, %%zmm5\n\t vmovaps %%zmm0, %%zmm6\n\t"
      "vmovaps %%zmm0, %%zmm7\n\t vmovaps %%zmm0, %%zmm8\n\t vmovaps %%zmm0, %%zmm9\n\t"
      "vmovaps %%zmm0, %%zmm10\n\t vmovaps %%zmm0, %%zmm11\n\t vmovaps %%zmm0, %%zmm12\n\t"
      "vmovaps %%zmm0, %%zmm13\n\t vmovaps %%zmm0, %%zmm14\n\t vmovaps %%zmm0, %%zmm15\n\t"
      "vmovaps %%zmm0, %%zmm16\n\t vmovaps %%zmm0, %%zmm17\n\t vmovaps %%zmm0, %%zmm18\n\t"
      "vmovaps %%zmm0, %%zmm19\n\t vmovaps %%zmm0, %%zmm20\n\t vmovaps %%zmm0, %%zmm21\n\t"
      "vmovaps %%zmm0, %%zmm22\n\t vmovaps %%zmm0, %%zmm23\n\t vmovaps %%zmm0, %%zmm30\n\t"
      "vmovaps %%zmm0, %%zmm31\n\t"
      ".p2align 5\n\t"
      "1:\n\t" PRISM_PROBE_ROUND PRISM_PROBE_ROUND
      "dec %[count]\n\t"
      "jnz 1b\n\t"
      // The caller may be baseline (SSE) code: leave no dirty upper halves behind.
      "vzeroupper\n\t"
      : [count] "+r"(count)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
        "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31");
#undef PRISM_PROBE_ROUND
#undef PRISM_PROBE_FMA
  return iterations * 48 * 32;
}
