// The AVX-512 unit's int8 GEMM kernel (included by isa_kernels_impl.h there only): on CPUs with
// AVX-512 VNNI, vpdpbusd sums four u8 x s8 products into each int32 lane at once, with no
// intermediate saturation, so it is exact for every input (a wide B, mlas/qgemm.h, which this
// level never packs on such a CPU, runs the table's qgemm_block instead). The tile is 12
// rows x 32 columns (two panels of B): 24 accumulators, two vectors of B and one broadcast
// value of A in the 32 zmm registers. Without VNNI (AVX-512 F/BW/DQ/VL alone) the level runs the
// AVX2 vpmaddubsw kernel on the same 12-row panels of A (the table's qgemm_block), with its
// pair-bound contract and its vpmaddwd form for a wide B.
//
// Only the VNNI functions are compiled with VNNI (the pragma below), so that the rest of the
// unit runs on AVX-512 CPUs without it; they run only after a CPUID check (qgemm_vnni_usable).

constexpr int64_t kQgemmTileRowsAvx512 = 12;

// Row r's sums of the 16 columns from col (mask: those inside C) written as `store` says.
[[gnu::always_inline]] inline void StoreQgemmRow16(__m512i value, __mmask16 mask,
                                                   const QgemmStore& store, int64_t r, int64_t col,
                                                   int32_t* out) {
  if (store.accumulate) value = _mm512_add_epi32(value, _mm512_maskz_loadu_epi32(mask, out));
  if (store.column_term != nullptr) {
    value = _mm512_add_epi32(value, _mm512_maskz_loadu_epi32(mask, store.column_term + col));
    if (store.row_sums != nullptr)
      value = _mm512_sub_epi32(
          value, _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(mask, store.column_zero + col),
                                    _mm512_set1_epi32(store.row_sums[r])));
  }
  _mm512_mask_storeu_epi32(out, mask, value);
}

#if PRISM_QGEMM_VNNI
#pragma GCC push_options
#pragma GCC target("avx512vnni")

template <int kPanels>
[[gnu::always_inline]] inline void QgemmTileVnni(int64_t groups, const uint8_t* a, const int8_t* b,
                                                 int64_t b_panel_stride, int64_t rows, int64_t cols,
                                                 const QgemmStore& store, int32_t* c, int64_t ldc) {
  constexpr int kRows = static_cast<int>(kQgemmTileRowsAvx512);
  __m512i acc[kRows][kPanels];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) acc[r][p] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    __m512i column[kPanels];
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) column[p] = _mm512_loadu_si512(b + p * b_panel_stride);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, a + 4 * r, sizeof quad);
      const __m512i x = _mm512_set1_epi32(quad);
#pragma GCC unroll 2
      for (int p = 0; p < kPanels; ++p) acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], x, column[p]);
    }
    a += kRows * kQgemmGroup;
    b += kQgemmGroupBytes;
  }
  for (int r = 0; r < rows; ++r) {
#pragma GCC unroll 2
    for (int p = 0; p < kPanels; ++p) {
      const int64_t width = std::min<int64_t>(kQgemmCols, cols - p * kQgemmCols);
      if (width <= 0) continue;
      const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1u);
      StoreQgemmRow16(acc[r][p], mask, store, r, p * kQgemmCols, c + r * ldc + p * kQgemmCols);
    }
  }
}

// A few rows (kRows of 1, 2 or 4; the block's m at most 4, as a classifier's matrix-vector
// product) against kPanels (1 to 4) panels of B: the 12-row tile would multiply 12
// rows of A for one, 11 of them padding. The rows are read from A's 12-row panel (its group
// stride); with one or two rows, even and odd depth groups go to two sets of accumulators, so
// that the vpdpbusd chains overlap their latency.
template <int kRows, int kPanels>
[[gnu::always_inline]] inline void QgemmTileVnniFewRows(int64_t groups, const uint8_t* a,
                                                        const int8_t* b, int64_t b_panel_stride,
                                                        int64_t rows, int64_t cols,
                                                        const QgemmStore& store, int32_t* c,
                                                        int64_t ldc) {
  constexpr int kSets = kRows <= 2 ? 2 : 1;
  constexpr int64_t a_group_stride = kQgemmTileRowsAvx512 * kQgemmGroup;
  __m512i acc[kSets][kRows][kPanels];
#pragma GCC unroll 2
  for (int set = 0; set < kSets; ++set)
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
      for (int p = 0; p < kPanels; ++p) acc[set][r][p] = _mm512_setzero_si512();
  const auto step = [&](int set, const uint8_t* a_group, const int8_t* b_group) {
    __m512i column[kPanels];
#pragma GCC unroll 4
    for (int p = 0; p < kPanels; ++p) column[p] = _mm512_loadu_si512(b_group + p * b_panel_stride);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, a_group + 4 * r, sizeof quad);
      const __m512i x = _mm512_set1_epi32(quad);
#pragma GCC unroll 4
      for (int p = 0; p < kPanels; ++p)
        acc[set][r][p] = _mm512_dpbusd_epi32(acc[set][r][p], x, column[p]);
    }
  };
  int64_t g = 0;
  if constexpr (kSets == 2)
    for (; g + 2 <= groups; g += 2) {
      step(0, a + g * a_group_stride, b + g * kQgemmGroupBytes);
      step(1, a + (g + 1) * a_group_stride, b + (g + 1) * kQgemmGroupBytes);
    }
  for (; g < groups; ++g) step(0, a + g * a_group_stride, b + g * kQgemmGroupBytes);
  for (int r = 0; r < rows; ++r) {
#pragma GCC unroll 4
    for (int p = 0; p < kPanels; ++p) {
      const int64_t width = std::min<int64_t>(kQgemmCols, cols - p * kQgemmCols);
      if (width <= 0) continue;
      __m512i sum = acc[0][r][p];
      if constexpr (kSets == 2) sum = _mm512_add_epi32(sum, acc[1][r][p]);
      const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1u);
      StoreQgemmRow16(sum, mask, store, r, p * kQgemmCols, c + r * ldc + p * kQgemmCols);
    }
  }
}

// The macro-kernel for a block of at most 4 rows: 64 columns (four panels) a
// tile, the last tile as many panels as remain.
template <int kRows>
void QgemmBlockVnniFewRows(int64_t m, int64_t n, int64_t groups, const uint8_t* a, const int8_t* b,
                           int64_t b_panel_stride, const QgemmStore& block_store, int32_t* c,
                           int64_t ldc) {
  for (int64_t j = 0; j < n; j += 4 * kQgemmCols) {
    const int8_t* panels = b + j / kQgemmCols * b_panel_stride;
    const int64_t cols = std::min(4 * kQgemmCols, n - j);
    const QgemmStore store = block_store.At(0, j);
    switch ((cols + kQgemmCols - 1) / kQgemmCols) {
      case 4:
        QgemmTileVnniFewRows<kRows, 4>(groups, a, panels, b_panel_stride, m, cols, store, c + j,
                                       ldc);
        break;
      case 3:
        QgemmTileVnniFewRows<kRows, 3>(groups, a, panels, b_panel_stride, m, cols, store, c + j,
                                       ldc);
        break;
      case 2:
        QgemmTileVnniFewRows<kRows, 2>(groups, a, panels, b_panel_stride, m, cols, store, c + j,
                                       ldc);
        break;
      default:
        QgemmTileVnniFewRows<kRows, 1>(groups, a, panels, b_panel_stride, m, cols, store, c + j,
                                       ldc);
        break;
    }
  }
}

#if defined(__x86_64__)
// The full 12 x 32 tile in assembly, as the SGEMM's micro-kernels are: GCC's
// allocation of the intrinsics above copies and spills accumulators every group (24 of them, two
// B vectors and the broadcast take 27 of the 32 registers). zmm0-23 hold the sums (row r in
// zmm 2r, 2r + 1), zmm24-25 the group's two B vectors, zmm26 row r's broadcast 4 bytes of A; the
// sums go to `sums` (12 rows of 32 int32).
// clang-format off
#define PRISM_QGEMM_ROW(r, sum0, sum1)                     \
  "vpbroadcastd " #r "*4(%[a]), %%zmm26\n\t"               \
  "vpdpbusd %%zmm24, %%zmm26, %%zmm" #sum0 "\n\t"          \
  "vpdpbusd %%zmm25, %%zmm26, %%zmm" #sum1 "\n\t"
#define PRISM_QGEMM_ROW_GUARD(r)                           \
  "cmp $" #r ", %[rows]\n\t"                                \
  "jle 4f\n\t"
#define PRISM_QGEMM_PUT(sum0, sum1)                        \
  "vpaddd %%zmm24, %%zmm" #sum0 ", %%zmm" #sum0 "\n\t"      \
  "vpaddd %%zmm25, %%zmm" #sum1 ", %%zmm" #sum1 "\n\t"      \
  "vmovdqu32 %%zmm" #sum0 ", (%[c])\n\t"                   \
  "vmovdqu32 %%zmm" #sum1 ", 64(%[c])\n\t"                 \
  "add %[ldc], %[c]\n\t"
#define PRISM_QGEMM_DIRECT(r, sum0, sum1)                  \
  PRISM_QGEMM_ROW_GUARD(r)                                 \
  PRISM_QGEMM_PUT(sum0, sum1)
#define PRISM_QGEMM_DIRECT_ROW(r, sum0, sum1)               \
  PRISM_QGEMM_ROW_GUARD(r)                                 \
  "vpbroadcastd " #r "*4(%[rs]), %%zmm26\n\t"              \
  "vpmulld %%zmm27, %%zmm26, %%zmm29\n\t"                  \
  "vpsubd %%zmm29, %%zmm" #sum0 ", %%zmm" #sum0 "\n\t"      \
  "vpmulld %%zmm28, %%zmm26, %%zmm29\n\t"                  \
  "vpsubd %%zmm29, %%zmm" #sum1 ", %%zmm" #sum1 "\n\t"      \
  PRISM_QGEMM_PUT(sum0, sum1)
#define PRISM_QGEMM_STORE(r, sum0, sum1)                   \
  "vmovdqu32 %%zmm" #sum0 ", " #r "*128(%[sums])\n\t"      \
  "vmovdqu32 %%zmm" #sum1 ", " #r "*128+64(%[sums])\n\t"
// The 24 sums of the tile over `groups` depth groups (a and b advanced past them).
#define PRISM_QGEMM_SUMS \
  "vpxord %%zmm0, %%zmm0, %%zmm0\n\t" \
  "vpxord %%zmm1, %%zmm1, %%zmm1\n\t" \
  "vpxord %%zmm2, %%zmm2, %%zmm2\n\t" \
  "vpxord %%zmm3, %%zmm3, %%zmm3\n\t" \
  "vpxord %%zmm4, %%zmm4, %%zmm4\n\t" \
  "vpxord %%zmm5, %%zmm5, %%zmm5\n\t" \
  "vpxord %%zmm6, %%zmm6, %%zmm6\n\t" \
  "vpxord %%zmm7, %%zmm7, %%zmm7\n\t" \
  "vpxord %%zmm8, %%zmm8, %%zmm8\n\t" \
  "vpxord %%zmm9, %%zmm9, %%zmm9\n\t" \
  "vpxord %%zmm10, %%zmm10, %%zmm10\n\t" \
  "vpxord %%zmm11, %%zmm11, %%zmm11\n\t" \
  "vpxord %%zmm12, %%zmm12, %%zmm12\n\t" \
  "vpxord %%zmm13, %%zmm13, %%zmm13\n\t" \
  "vpxord %%zmm14, %%zmm14, %%zmm14\n\t" \
  "vpxord %%zmm15, %%zmm15, %%zmm15\n\t" \
  "vpxord %%zmm16, %%zmm16, %%zmm16\n\t" \
  "vpxord %%zmm17, %%zmm17, %%zmm17\n\t" \
  "vpxord %%zmm18, %%zmm18, %%zmm18\n\t" \
  "vpxord %%zmm19, %%zmm19, %%zmm19\n\t" \
  "vpxord %%zmm20, %%zmm20, %%zmm20\n\t" \
  "vpxord %%zmm21, %%zmm21, %%zmm21\n\t" \
  "vpxord %%zmm22, %%zmm22, %%zmm22\n\t" \
  "vpxord %%zmm23, %%zmm23, %%zmm23\n\t" \
  "test %[groups], %[groups]\n\t" \
  "jz 2f\n\t" \
  "1:\n\t" \
  "vmovdqu32 (%[b]), %%zmm24\n\t" \
  "vmovdqu32 (%[b],%[bs],1), %%zmm25\n\t" \
  PRISM_QGEMM_ROW(0, 0, 1) \
  PRISM_QGEMM_ROW(1, 2, 3) \
  PRISM_QGEMM_ROW(2, 4, 5) \
  PRISM_QGEMM_ROW(3, 6, 7) \
  PRISM_QGEMM_ROW(4, 8, 9) \
  PRISM_QGEMM_ROW(5, 10, 11) \
  PRISM_QGEMM_ROW(6, 12, 13) \
  PRISM_QGEMM_ROW(7, 14, 15) \
  PRISM_QGEMM_ROW(8, 16, 17) \
  PRISM_QGEMM_ROW(9, 18, 19) \
  PRISM_QGEMM_ROW(10, 20, 21) \
  PRISM_QGEMM_ROW(11, 22, 23) \
  "add $48, %[a]\n\t" \
  "add $64, %[b]\n\t" \
  "dec %[groups]\n\t" \
  "jnz 1b\n\t" \
  "2:\n\t"
// clang-format on

// With c given (a tile 32 columns wide whose store does not accumulate), the sums plus
// column_term[0..32) (minus column_zero[j] row_sums[r] when row_sums is given) go straight to
// C's first `rows` rows (ldc_bytes apart) from the registers; else all 12 go to sums.
void QgemmTileVnni12x32(int64_t groups, const uint8_t* a, const int8_t* b, int64_t b_panel_stride,
                        int32_t* sums, int32_t* c, int64_t ldc_bytes, const int32_t* column_term,
                        const int32_t* column_zero, const int32_t* row_sums, int64_t rows) {
  __asm__ volatile(
      PRISM_QGEMM_SUMS
      "test %[c], %[c]\n\t"
      "jz 3f\n\t"
      "vmovdqu32 (%[term]), %%zmm24\n\t"
      "vmovdqu32 64(%[term]), %%zmm25\n\t"
      "test %[rs], %[rs]\n\t"
      "jz 5f\n\t"
      "vmovdqu32 (%[zero]), %%zmm27\n\t"
      "vmovdqu32 64(%[zero]), %%zmm28\n\t"
      PRISM_QGEMM_DIRECT_ROW(0, 0, 1)
      PRISM_QGEMM_DIRECT_ROW(1, 2, 3)
      PRISM_QGEMM_DIRECT_ROW(2, 4, 5)
      PRISM_QGEMM_DIRECT_ROW(3, 6, 7)
      PRISM_QGEMM_DIRECT_ROW(4, 8, 9)
      PRISM_QGEMM_DIRECT_ROW(5, 10, 11)
      PRISM_QGEMM_DIRECT_ROW(6, 12, 13)
      PRISM_QGEMM_DIRECT_ROW(7, 14, 15)
      PRISM_QGEMM_DIRECT_ROW(8, 16, 17)
      PRISM_QGEMM_DIRECT_ROW(9, 18, 19)
      PRISM_QGEMM_DIRECT_ROW(10, 20, 21)
      PRISM_QGEMM_DIRECT_ROW(11, 22, 23)
      "jmp 4f\n\t"
      "5:\n\t"
      PRISM_QGEMM_DIRECT(0, 0, 1)
      PRISM_QGEMM_DIRECT(1, 2, 3)
      PRISM_QGEMM_DIRECT(2, 4, 5)
      PRISM_QGEMM_DIRECT(3, 6, 7)
      PRISM_QGEMM_DIRECT(4, 8, 9)
      PRISM_QGEMM_DIRECT(5, 10, 11)
      PRISM_QGEMM_DIRECT(6, 12, 13)
      PRISM_QGEMM_DIRECT(7, 14, 15)
      PRISM_QGEMM_DIRECT(8, 16, 17)
      PRISM_QGEMM_DIRECT(9, 18, 19)
      PRISM_QGEMM_DIRECT(10, 20, 21)
      PRISM_QGEMM_DIRECT(11, 22, 23)
      "jmp 4f\n\t"
      "3:\n\t"
      PRISM_QGEMM_STORE(0, 0, 1)
      PRISM_QGEMM_STORE(1, 2, 3)
      PRISM_QGEMM_STORE(2, 4, 5)
      PRISM_QGEMM_STORE(3, 6, 7)
      PRISM_QGEMM_STORE(4, 8, 9)
      PRISM_QGEMM_STORE(5, 10, 11)
      PRISM_QGEMM_STORE(6, 12, 13)
      PRISM_QGEMM_STORE(7, 14, 15)
      PRISM_QGEMM_STORE(8, 16, 17)
      PRISM_QGEMM_STORE(9, 18, 19)
      PRISM_QGEMM_STORE(10, 20, 21)
      PRISM_QGEMM_STORE(11, 22, 23)
      "4:\n\t"
      "vzeroupper\n\t"
      : [groups] "+r"(groups), [a] "+r"(a), [b] "+r"(b), [c] "+r"(c)
      : [bs] "r"(b_panel_stride), [sums] "r"(sums), [ldc] "r"(ldc_bytes), [term] "r"(column_term),
        [zero] "r"(column_zero), [rs] "r"(row_sums), [rows] "r"(rows)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",
        "xmm29");
}
// The requantizing store (QgemmStore::out8), exact to the double-precision one
// (RequantizeRowS32: round_half_even(double(sum) * multiplier), clamped) in single precision:
// the product s * m of the float sum s and the float multiplier m is rounded toward zero to t,
// its exact remainder e = s * m - t taken with a fused multiply-subtract, and t's last bit set
// when e is not 0 (round to odd). Rounding that to an integer (half to even) gives the exact
// product's rounding: t keeps 24 bits where at most 10 lie above the units, so a tie of the
// odd-rounded value is a tie of the exact one. s is exact while |sum| < 2^24; past it the product
// is at least 2^24 |m| >= 1024 when |m| >= 2^-14 (QgemmCanRequantize, qgemm.cc), clamped
// either way.
// clang-format off
// Where the epilogue finds its operands (defined before each function that expands it): the
// constants' base, the output row pointer, its stride, the row count, the row sums and the
// column zero points.
#define PRISM_QGEMM_REQUANTIZE_HALF(sum, term, scale, out)                     \
  "vpaddd %%zmm" #term ", %%zmm" #sum ", %%zmm" #sum "\n\t"                    \
  "vcvtdq2ps %%zmm" #sum ", %%zmm" #sum "\n\t"                                  \
  "vmulps %{rz-sae%}, %%zmm" #scale ", %%zmm" #sum ", %%zmm" #out "\n\t"        \
  "vfmsub213ps %%zmm" #out ", %%zmm" #scale ", %%zmm" #sum "\n\t"               \
  "vcmpps $4, 16(" PRISM_RQ_K ")%{1to16%}, %%zmm" #sum ", %%k1\n\t"             \
  "vpord 12(" PRISM_RQ_K ")%{1to16%}, %%zmm" #out ", %%zmm" #out "%{%%k1%}\n\t" \
  "vmaxps (" PRISM_RQ_K ")%{1to16%}, %%zmm" #out ", %%zmm" #out "\n\t"          \
  "vminps 4(" PRISM_RQ_K ")%{1to16%}, %%zmm" #out ", %%zmm" #out "\n\t"         \
  "vcvtps2dq %%zmm" #out ", %%zmm" #out "\n\t"                                  \
  "vpaddd 8(" PRISM_RQ_K ")%{1to16%}, %%zmm" #out ", %%zmm" #out "\n\t"         \
  "vpmovdb %%zmm" #out ", %%xmm" #out "\n\t"
#define PRISM_QGEMM_REQUANTIZE_PUT(sum0, sum1)                                 \
  PRISM_QGEMM_REQUANTIZE_HALF(sum0, 24, 30, 28)                                \
  PRISM_QGEMM_REQUANTIZE_HALF(sum1, 25, 31, 29)                                \
  "vinserti32x4 $1, %%xmm29, %%ymm28, %%ymm28\n\t"                             \
  "vmovdqu32 %%ymm28, (" PRISM_RQ_OUT ")\n\t"                                  \
  "add " PRISM_RQ_LDO ", " PRISM_RQ_OUT "\n\t"
#define PRISM_QGEMM_REQUANTIZE_GUARD(r)                                        \
  "cmpq $" #r ", " PRISM_RQ_ROWS "\n\t"                                        \
  "jle 4f\n\t"
#define PRISM_QGEMM_REQUANTIZE(r, sum0, sum1)                                  \
  PRISM_QGEMM_REQUANTIZE_GUARD(r)                                              \
  PRISM_QGEMM_REQUANTIZE_PUT(sum0, sum1)
#define PRISM_QGEMM_REQUANTIZE_ROW(r, sum0, sum1)                              \
  PRISM_QGEMM_REQUANTIZE_GUARD(r)                                              \
  "vpbroadcastd " #r "*4(" PRISM_RQ_RS "), %%zmm26\n\t"                        \
  "vpmulld (" PRISM_RQ_ZERO "), %%zmm26, %%zmm27\n\t"                          \
  "vpsubd %%zmm27, %%zmm" #sum0 ", %%zmm" #sum0 "\n\t"                          \
  "vpmulld 64(" PRISM_RQ_ZERO "), %%zmm26, %%zmm27\n\t"                        \
  "vpsubd %%zmm27, %%zmm" #sum1 ", %%zmm" #sum1 "\n\t"                          \
  PRISM_QGEMM_REQUANTIZE_PUT(sum0, sum1)
// The twelve rows' epilogue: with the row term when the row sums are given, else without.
#define PRISM_QGEMM_REQUANTIZE_ALL                                             \
  "test " PRISM_RQ_RS ", " PRISM_RQ_RS "\n\t"                                  \
  "jz 5f\n\t"                                                                  \
  PRISM_QGEMM_REQUANTIZE_ROW(0, 0, 1)                                          \
  PRISM_QGEMM_REQUANTIZE_ROW(1, 2, 3)                                          \
  PRISM_QGEMM_REQUANTIZE_ROW(2, 4, 5)                                          \
  PRISM_QGEMM_REQUANTIZE_ROW(3, 6, 7)                                          \
  PRISM_QGEMM_REQUANTIZE_ROW(4, 8, 9)                                          \
  PRISM_QGEMM_REQUANTIZE_ROW(5, 10, 11)                                        \
  PRISM_QGEMM_REQUANTIZE_ROW(6, 12, 13)                                        \
  PRISM_QGEMM_REQUANTIZE_ROW(7, 14, 15)                                        \
  PRISM_QGEMM_REQUANTIZE_ROW(8, 16, 17)                                        \
  PRISM_QGEMM_REQUANTIZE_ROW(9, 18, 19)                                        \
  PRISM_QGEMM_REQUANTIZE_ROW(10, 20, 21)                                       \
  PRISM_QGEMM_REQUANTIZE_ROW(11, 22, 23)                                       \
  "jmp 4f\n\t"                                                                 \
  "5:\n\t"                                                                     \
  PRISM_QGEMM_REQUANTIZE(0, 0, 1)                                              \
  PRISM_QGEMM_REQUANTIZE(1, 2, 3)                                              \
  PRISM_QGEMM_REQUANTIZE(2, 4, 5)                                              \
  PRISM_QGEMM_REQUANTIZE(3, 6, 7)                                              \
  PRISM_QGEMM_REQUANTIZE(4, 8, 9)                                              \
  PRISM_QGEMM_REQUANTIZE(5, 10, 11)                                            \
  PRISM_QGEMM_REQUANTIZE(6, 12, 13)                                            \
  PRISM_QGEMM_REQUANTIZE(7, 14, 15)                                            \
  PRISM_QGEMM_REQUANTIZE(8, 16, 17)                                            \
  PRISM_QGEMM_REQUANTIZE(9, 18, 19)                                            \
  PRISM_QGEMM_REQUANTIZE(10, 20, 21)                                           \
  PRISM_QGEMM_REQUANTIZE(11, 22, 23)                                           \
  "4:\n\t"
// A's rows read in place (QgemmStore::a_rows): row r of the tile at a0, a4 or a8 (rows 0, 4, 8)
// plus (r % 4) * lda (lda3 = 3 * lda), each pointer 4 bytes further a depth group.
#define PRISM_QGEMM_ROW_AT(address, sum0, sum1)            \
  "vpbroadcastd " address ", %%zmm26\n\t"                  \
  "vpdpbusd %%zmm24, %%zmm26, %%zmm" #sum0 "\n\t"          \
  "vpdpbusd %%zmm25, %%zmm26, %%zmm" #sum1 "\n\t"
// clang-format on

// The full 12 x 32 tile, requantized from the registers: row r's 32 bytes at
// out + r * ldo for r < rows, from its sums plus column_term (minus column_zero[j] row_sums[r]
// when row_sums is given), with the column multipliers scale[0..32) and the constants k.
void QgemmTileVnni12x32Requantize(int64_t groups, const uint8_t* a, const int8_t* b,
                                  int64_t b_panel_stride, const int32_t* column_term,
                                  const int32_t* column_zero, const int32_t* row_sums, int64_t rows,
                                  const float* scale, const QgemmRequantizeConstants* k,
                                  uint8_t* out, int64_t ldo) {
#define PRISM_RQ_K "%[k]"
#define PRISM_RQ_OUT "%[out]"
#define PRISM_RQ_LDO "%[ldo]"
#define PRISM_RQ_ROWS "%[rows]"
#define PRISM_RQ_RS "%[rs]"
#define PRISM_RQ_ZERO "%[zero]"
  __asm__ volatile(
      PRISM_QGEMM_SUMS
      "vmovdqu32 (%[term]), %%zmm24\n\t"
      "vmovdqu32 64(%[term]), %%zmm25\n\t"
      "vmovups (%[scale]), %%zmm30\n\t"
      "vmovups 64(%[scale]), %%zmm31\n\t" PRISM_QGEMM_REQUANTIZE_ALL "vzeroupper\n\t"
      : [groups] "+r"(groups), [a] "+r"(a), [b] "+r"(b), [out] "+r"(out)
      : [bs] "r"(b_panel_stride), [term] "r"(column_term), [zero] "r"(column_zero),
        [rs] "r"(row_sums), [rows] "r"(rows), [scale] "r"(scale), [k] "r"(k), [ldo] "r"(ldo)
      : "cc", "memory", "k1", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17",
        "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
        "xmm28", "xmm29", "xmm30", "xmm31");
#undef PRISM_RQ_K
#undef PRISM_RQ_OUT
#undef PRISM_RQ_LDO
#undef PRISM_RQ_ROWS
#undef PRISM_RQ_RS
#undef PRISM_RQ_ZERO
}

// The epilogue's operands of QgemmTileVnni12x32RequantizeRows, read through one pointer (the
// loop over A's rows in place needs the general registers): offsets fixed for the assembly.
struct RequantizeTileOperands {
  QgemmRequantizeConstants k;  // 0: low, 4: high, 8: zero point, 12: one, 16: float zero
  int32_t unused = 0;          // 20
  const int32_t* term;         // 24
  const float* scale;          // 32
  const int32_t* zero;         // 40
  const int32_t* row_sums;     // 48
  uint8_t* out;                // 56
  int64_t ldo;                 // 64
  int64_t rows;                // 72
};
static_assert(offsetof(RequantizeTileOperands, term) == 24 &&
              offsetof(RequantizeTileOperands, scale) == 32 &&
              offsetof(RequantizeTileOperands, zero) == 40 &&
              offsetof(RequantizeTileOperands, row_sums) == 48 &&
              offsetof(RequantizeTileOperands, out) == 56 &&
              offsetof(RequantizeTileOperands, ldo) == 64 &&
              offsetof(RequantizeTileOperands, rows) == 72);

// QgemmTileVnni12x32Requantize with A's 12 rows read where they are (row r at a + r * lda,
// uint8, groups * 4 bytes each) instead of from a packed panel: a pointwise convolution's image
// rows, which then need no packing.
void QgemmTileVnni12x32RequantizeRows(int64_t groups, const uint8_t* a, int64_t lda,
                                      const int8_t* b, int64_t b_panel_stride,
                                      const RequantizeTileOperands* p) {
  const uint8_t* a4 = a + 4 * lda;
  const uint8_t* a8 = a + 8 * lda;
  const int64_t lda3 = 3 * lda;
#define PRISM_RQ_K "%[p]"
#define PRISM_RQ_OUT "%[a0]"
#define PRISM_RQ_LDO "64(%[p])"
#define PRISM_RQ_ROWS "72(%[p])"
#define PRISM_RQ_RS "%[a8]"
#define PRISM_RQ_ZERO "%[a4]"
  __asm__ volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
      "vpxord %%zmm2, %%zmm2, %%zmm2\n\t"
      "vpxord %%zmm3, %%zmm3, %%zmm3\n\t"
      "vpxord %%zmm4, %%zmm4, %%zmm4\n\t"
      "vpxord %%zmm5, %%zmm5, %%zmm5\n\t"
      "vpxord %%zmm6, %%zmm6, %%zmm6\n\t"
      "vpxord %%zmm7, %%zmm7, %%zmm7\n\t"
      "vpxord %%zmm8, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
      "vpxord %%zmm10, %%zmm10, %%zmm10\n\t"
      "vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
      "vpxord %%zmm12, %%zmm12, %%zmm12\n\t"
      "vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
      "vpxord %%zmm14, %%zmm14, %%zmm14\n\t"
      "vpxord %%zmm15, %%zmm15, %%zmm15\n\t"
      "vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
      "vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
      "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
      "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
      "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
      "vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
      "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
      "test %[groups], %[groups]\n\t"
      "jz 2f\n\t"
      "1:\n\t"
      "vmovdqu32 (%[b]), %%zmm24\n\t"
      "vmovdqu32 (%[b],%[bs],1), %%zmm25\n\t"
      PRISM_QGEMM_ROW_AT("(%[a0])", 0, 1)
      PRISM_QGEMM_ROW_AT("(%[a0],%[lda],1)", 2, 3)
      PRISM_QGEMM_ROW_AT("(%[a0],%[lda],2)", 4, 5)
      PRISM_QGEMM_ROW_AT("(%[a0],%[lda3],1)", 6, 7)
      PRISM_QGEMM_ROW_AT("(%[a4])", 8, 9)
      PRISM_QGEMM_ROW_AT("(%[a4],%[lda],1)", 10, 11)
      PRISM_QGEMM_ROW_AT("(%[a4],%[lda],2)", 12, 13)
      PRISM_QGEMM_ROW_AT("(%[a4],%[lda3],1)", 14, 15)
      PRISM_QGEMM_ROW_AT("(%[a8])", 16, 17)
      PRISM_QGEMM_ROW_AT("(%[a8],%[lda],1)", 18, 19)
      PRISM_QGEMM_ROW_AT("(%[a8],%[lda],2)", 20, 21)
      PRISM_QGEMM_ROW_AT("(%[a8],%[lda3],1)", 22, 23)
      "add $4, %[a0]\n\t"
      "add $4, %[a4]\n\t"
      "add $4, %[a8]\n\t"
      "add $64, %[b]\n\t"
      "dec %[groups]\n\t"
      "jnz 1b\n\t"
      "2:\n\t"
      "mov 24(%[p]), %[a0]\n\t"
      "vmovdqu32 (%[a0]), %%zmm24\n\t"
      "vmovdqu32 64(%[a0]), %%zmm25\n\t"
      "mov 32(%[p]), %[a0]\n\t"
      "vmovups (%[a0]), %%zmm30\n\t"
      "vmovups 64(%[a0]), %%zmm31\n\t"
      "mov 56(%[p]), %[a0]\n\t"
      "mov 40(%[p]), %[a4]\n\t"
      "mov 48(%[p]), %[a8]\n\t"
      PRISM_QGEMM_REQUANTIZE_ALL
      "vzeroupper\n\t"
      : [groups] "+r"(groups), [a0] "+r"(a), [a4] "+r"(a4), [a8] "+r"(a8), [b] "+r"(b)
      : [bs] "r"(b_panel_stride), [lda] "r"(lda), [lda3] "r"(lda3), [p] "r"(p)
      : "cc", "memory", "k1", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17",
        "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
        "xmm28", "xmm29", "xmm30", "xmm31");
#undef PRISM_RQ_K
#undef PRISM_RQ_OUT
#undef PRISM_RQ_LDO
#undef PRISM_RQ_ROWS
#undef PRISM_RQ_RS
#undef PRISM_RQ_ZERO
}
#undef PRISM_QGEMM_ROW_AT
#undef PRISM_QGEMM_REQUANTIZE_ALL
#undef PRISM_QGEMM_REQUANTIZE_ROW
#undef PRISM_QGEMM_REQUANTIZE
#undef PRISM_QGEMM_REQUANTIZE_GUARD
#undef PRISM_QGEMM_REQUANTIZE_PUT
#undef PRISM_QGEMM_REQUANTIZE_HALF
#undef PRISM_QGEMM_SUMS
#undef PRISM_QGEMM_STORE
#undef PRISM_QGEMM_DIRECT_ROW
#undef PRISM_QGEMM_DIRECT
#undef PRISM_QGEMM_PUT
#undef PRISM_QGEMM_ROW_GUARD
#undef PRISM_QGEMM_ROW

alignas(64) constexpr int32_t kZeroTerms[2 * kQgemmCols] = {};

// The requantizing store of `cols` (<= 32) sums of one row (already with the zero-point terms)
// at store.out8, the round-to-odd steps of QgemmTileVnni12x32Requantize in intrinsics.
inline void RequantizeSumsRow(const int32_t* sums, int64_t cols, const QgemmStore& store,
                              uint8_t* out) {
  const QgemmRequantizeConstants& k = *store.out_constants;
  for (int64_t p = 0; p < cols; p += kQgemmCols) {
    const int64_t width = std::min<int64_t>(kQgemmCols, cols - p);
    const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1u);
    const __m512 s = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(mask, sums + p));
    const __m512 m = _mm512_maskz_loadu_ps(mask, store.out_scale + p);
    __m512 t = _mm512_mul_round_ps(s, m, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512 e = _mm512_fmsub_ps(s, m, t);
    const __mmask16 inexact = _mm512_cmp_ps_mask(e, _mm512_setzero_ps(), _CMP_NEQ_UQ);
    t = _mm512_castsi512_ps(_mm512_mask_or_epi32(_mm512_castps_si512(t), inexact,
                                                 _mm512_castps_si512(t), _mm512_set1_epi32(1)));
    t = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(k.low)), _mm512_set1_ps(k.high));
    const __m512i value = _mm512_add_epi32(_mm512_cvtps_epi32(t), _mm512_set1_epi32(k.zero_point));
    _mm_mask_storeu_epi8(out + p, mask, _mm512_cvtepi32_epi8(value));
  }
}

// C's rows x cols (cols <= 32) tile from the 12 x 32 sums.
inline void StoreVnniSums(const int32_t* sums, int64_t rows, int64_t cols, const QgemmStore& store,
                          int32_t* c, int64_t ldc) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = 0; p < 2; ++p) {
      const int64_t width = std::min<int64_t>(kQgemmCols, cols - p * kQgemmCols);
      if (width <= 0) break;
      const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1u);
      StoreQgemmRow16(_mm512_loadu_si512(sums + r * 2 * kQgemmCols + p * kQgemmCols), mask, store,
                      r, p * kQgemmCols, c + r * ldc + p * kQgemmCols);
    }
  }
}
#endif

// The macro-kernel: pairs of B panels outside, the 12-row panels of A inside. Never given a wide
// B (the product runs qgemm_block for one; mlas/qgemm.h): `wide` is false.
void QgemmBlockVnni(int64_t m, int64_t n, int64_t groups, const uint8_t* a, int64_t a_panel_stride,
                    const int8_t* b, int64_t b_panel_stride, [[maybe_unused]] bool wide,
                    const QgemmStore& block_store, int32_t* c, int64_t ldc) {
#if defined(__x86_64__)
  if (block_store.out8 != nullptr) {
    // Requantized in the store: the full tiles from the registers, the others (fewer than 32
    // columns or 5 rows) through 12 x 32 sums in memory.
    alignas(64) int32_t sums[kQgemmTileRowsAvx512 * 2 * kQgemmCols];
    for (int64_t j = 0; j < n; j += 2 * kQgemmCols) {
      const int8_t* panels = b + j / kQgemmCols * b_panel_stride;
      const int64_t cols = std::min(2 * kQgemmCols, n - j);
      for (int64_t i = 0; i < m; i += kQgemmTileRowsAvx512) {
        const uint8_t* rows = a + i / kQgemmTileRowsAvx512 * a_panel_stride;
        const int64_t count = std::min(kQgemmTileRowsAvx512, m - i);
        const QgemmStore store = block_store.At(i, j);
        const int32_t* term = store.column_term != nullptr ? store.column_term : kZeroTerms;
        if (cols == 2 * kQgemmCols && count == kQgemmTileRowsAvx512 && store.a_rows != nullptr) {
          const RequantizeTileOperands operands{*store.out_constants,
                                                0,
                                                term,
                                                store.out_scale,
                                                store.column_zero,
                                                store.row_sums,
                                                store.out8,
                                                store.out8_stride,
                                                count};
          QgemmTileVnni12x32RequantizeRows(groups, store.a_rows, store.a_stride, panels,
                                           b_panel_stride, &operands);
          continue;
        }
        if (cols == 2 * kQgemmCols && count > 4) {
          QgemmTileVnni12x32Requantize(groups, rows, panels, b_panel_stride, term,
                                       store.column_zero, store.row_sums, count, store.out_scale,
                                       store.out_constants, store.out8, store.out8_stride);
          continue;
        }
        QgemmStore to_sums = store;
        to_sums.out8 = nullptr;
        constexpr int64_t ld = 2 * kQgemmCols;
        if (count <= 4) {
          // A tail of at most 4 rows (resnet's 49, 196, 784 and 3136 positions leave 1 or 4) on
          // the few-row tiles: the 12-row tile would multiply 8 to 11 rows of padding.
          const auto few = [&]<int kRows>() {
            if (cols > kQgemmCols)
              QgemmTileVnniFewRows<kRows, 2>(groups, rows, panels, b_panel_stride, count, cols,
                                             to_sums, sums, ld);
            else
              QgemmTileVnniFewRows<kRows, 1>(groups, rows, panels, b_panel_stride, count, cols,
                                             to_sums, sums, ld);
          };
          if (count == 1)
            few.template operator()<1>();
          else if (count == 2)
            few.template operator()<2>();
          else
            few.template operator()<4>();
        } else if (cols > kQgemmCols)
          QgemmTileVnni<2>(groups, rows, panels, b_panel_stride, count, cols, to_sums, sums, ld);
        else
          QgemmTileVnni<1>(groups, rows, panels, b_panel_stride, count, cols, to_sums, sums, ld);
        for (int64_t r = 0; r < count; ++r)
          RequantizeSumsRow(sums + r * 2 * kQgemmCols, cols, store,
                            store.out8 + r * store.out8_stride);
      }
    }
    return;
  }
#endif
  if (m <= 4) {
    if (m == 1)
      return QgemmBlockVnniFewRows<1>(m, n, groups, a, b, b_panel_stride, block_store, c, ldc);
    if (m == 2)
      return QgemmBlockVnniFewRows<2>(m, n, groups, a, b, b_panel_stride, block_store, c, ldc);
    return QgemmBlockVnniFewRows<4>(m, n, groups, a, b, b_panel_stride, block_store, c, ldc);
  }
  for (int64_t j = 0; j < n; j += 2 * kQgemmCols) {
    const int8_t* panels = b + j / kQgemmCols * b_panel_stride;
    const int64_t cols = std::min(2 * kQgemmCols, n - j);
    for (int64_t i = 0; i < m; i += kQgemmTileRowsAvx512) {
      const uint8_t* rows = a + i / kQgemmTileRowsAvx512 * a_panel_stride;
      const int64_t count = std::min(kQgemmTileRowsAvx512, m - i);
      int32_t* tile = c + i * ldc + j;
      const QgemmStore store = block_store.At(i, j);
#if defined(__x86_64__)
      if (cols > kQgemmCols) {
        alignas(64) int32_t sums[kQgemmTileRowsAvx512 * 2 * kQgemmCols];
        // Straight to C from the registers when the tile is 32 columns wide and is not added to
        // C (the rows past m not stored); else through sums.
        if (cols == 2 * kQgemmCols && !store.accumulate) {
          QgemmTileVnni12x32(groups, rows, panels, b_panel_stride, nullptr, tile,
                             ldc * static_cast<int64_t>(sizeof(int32_t)),
                             store.column_term != nullptr ? store.column_term : kZeroTerms,
                             store.column_zero, store.row_sums, count);
        } else {
          QgemmTileVnni12x32(groups, rows, panels, b_panel_stride, sums, nullptr, 0, kZeroTerms,
                             nullptr, nullptr, kQgemmTileRowsAvx512);
          StoreVnniSums(sums, count, cols, store, tile, ldc);
        }
        continue;
      }
#endif
      if (cols > kQgemmCols)
        QgemmTileVnni<2>(groups, rows, panels, b_panel_stride, count, cols, store, tile, ldc);
      else
        QgemmTileVnni<1>(groups, rows, panels, b_panel_stride, count, cols, store, tile, ldc);
    }
  }
}

#pragma GCC pop_options

bool CpuHasAvx512Vnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni");
  return has;
}
#endif  // PRISM_QGEMM_VNNI
