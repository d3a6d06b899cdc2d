// The body of every ISA unit: included once per level by src/mlas/isa/<level>_kernels.cc, with
// PRISM_ISA_NAMESPACE naming the level's namespace and PRISM_EIGEN_NAMESPACE a namespace of its
// own for Eigen. Eigen's inline templates would otherwise have the same symbols in every unit,
// and the linker would keep one copy, compiled for whichever level it saw first, for all callers;
// renamed, each level's copies stay its own (scripts/check_isa_leaks.py proves it on the binary).
// The AVX-512 unit adds its SGEMM macro- and micro-kernel and peak probe (sgemm_avx512.h) and
// puts them in its table in place of the 6 x 16 ones. No include guard: each unit includes this
// once.

#if !defined(PRISM_ISA_NAMESPACE) || !defined(PRISM_EIGEN_NAMESPACE)
#error "define PRISM_ISA_NAMESPACE and PRISM_EIGEN_NAMESPACE before including isa_kernels_impl.h"
#endif

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "common/aligned_vector.h"
#include "mlas/depthwise_q8.h"
#include "mlas/isa_kernels.h"
#include "mlas/nchwc.h"
#include "mlas/qgemm.h"
#include "mlas/sgemm.h"

// Header names in #include <...> are not macro-expanded; the namespace inside them is.
#define Eigen PRISM_EIGEN_NAMESPACE
#include <Eigen/Dense>

namespace prism::mlas::PRISM_ISA_NAMESPACE {
namespace {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMajorMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T>
void GemmAccumulate(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                    const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  // A stored transposed is a K x M row-major matrix; Eigen's transpose() is a free view.
  ConstMatrixMap<T> a_map(a, trans_a ? k : m, trans_a ? m : k, Eigen::OuterStride<>(lda));
  ConstMatrixMap<T> b_map(b, trans_b ? n : k, trans_b ? k : n, Eigen::OuterStride<>(ldb));
  MatrixMap<T> c_map(c, m, n, Eigen::OuterStride<>(ldc));
  if (trans_a && trans_b) {
    c_map.noalias() += alpha * (a_map.transpose() * b_map.transpose());
  } else if (trans_a) {
    c_map.noalias() += alpha * (a_map.transpose() * b_map);
  } else if (trans_b) {
    c_map.noalias() += alpha * (a_map * b_map.transpose());
  } else {
    c_map.noalias() += alpha * (a_map * b_map);
  }
}

// Eight floats as one value: one AVX register in the AVX2 unit, two SSE registers in the
// baseline one (GCC's vector extension lowers it to whatever the unit is compiled for).
// In the baseline unit GCC notes that passing such values differs from the AVX calling
// convention; these helpers are internal to the unit (anonymous namespace), so no call crosses
// that line. GCC reports it at the end of the unit, so the setting stays for the rest of it
// (each unit is only this file).
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float Float8 __attribute__((vector_size(32)));

// Lanes of two vectors picked by constant indices (GCC and clang spell it differently).
#if defined(__clang__)
#define PRISM_SHUFFLE2(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define PRISM_SHUFFLE2(a, b, ...) __builtin_shuffle(a, b, Int8{__VA_ARGS__})
#endif

// The VNNI int8 kernels need GCC's per-function target pragmas (and a CPUID feature name clang 14
// lacks): a clang build (the fuzz build) leaves them out, and its tables use the other kernels.
#if defined(__clang__)
#define PRISM_QGEMM_VNNI 0
#else
#define PRISM_QGEMM_VNNI 1
#endif
// The AMX int8 kernel likewise (GCC's amx-tile and amx-int8 targets), on Linux, where a process
// asks the kernel for the tiles' state first.
#if !defined(__clang__) && defined(__linux__) && defined(__x86_64__)
#define PRISM_QGEMM_AMX 1
#else
#define PRISM_QGEMM_AMX 0
#endif

// An unaligned load or store of a vector of floats of any width.
template <typename V>
inline V LoadLanes(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename V>
inline void StoreLanes(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

inline Float8 LoadFloat8(const float* p) {
  return LoadLanes<Float8>(p);
}

inline void StoreFloat8(float* p, Float8 v) {
  StoreLanes(p, v);
}

// *p in every lane: one broadcast load in the AVX2 unit (Float8{} + x would add 0.0 first, an
// instruction more, since that turns -0.0 into +0.0).
inline Float8 BroadcastFloat8(const float* p) {
  const float x = *p;
  return Float8{x, x, x, x, x, x, x, x};
}

inline Float8 MultiplyAdd(Float8 a, Float8 b, Float8 c) {
#if defined(__FMA__)
  return reinterpret_cast<Float8>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
#else
  return a * b + c;
#endif
}

// ---- SGEMM: packing, micro-kernels and the macro-kernel (driven by mlas/sgemm.cc) ----
// A tile of C is at most 6 rows x 16 columns. Its sums are formed in registers over the packed
// panels (A: 6 rows' values per k step, B: 16 columns' values per k step) and then written to a
// 6 x 16 array `sums` (row r at sums + 16 r), from which StoreTile applies alpha and beta.

constexpr int kTileRows = static_cast<int>(kSgemmPanelRows);
constexpr int kTileCols = static_cast<int>(kSgemmPanelCols);

#if defined(__AVX2__) && defined(__FMA__)
// 16 float columns are two registers per row.
constexpr int kVectorsPerRow = 2;
#else
// Baseline: 16 columns per row would take 24 of SSE's 16 registers for 6 rows, so a tile is
// done in two halves of 8 columns (12 registers of sums, 2 of B, 1 of A).
constexpr int kVectorsPerRow = 1;
#endif

// R rows of A (row r at a + r * row_stride, consecutive k steps k_stride apart: a packed panel
// or A in place) times 8 * kVectors columns of a packed B panel (rows 16 floats apart), over k,
// into sums (row stride 16). Few rows leave the adds of one sum waiting on each other's latency,
// so those keep kChains independent sums per register, added at the end.
template <int R, int kChains, int kVectors>
[[gnu::always_inline]] inline void TileSums(int64_t k, const float* a, int64_t row_stride,
                                            int64_t k_stride, const float* b, float* sums) {
  Float8 acc[kChains][R][kVectors] = {};
  int64_t p = 0;
  for (; p + kChains <= k; p += kChains) {
#pragma GCC unroll 4
    for (int chain = 0; chain < kChains; ++chain) {
      Float8 column[kVectors];
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) column[v] = LoadFloat8(b + 8 * v);
#pragma GCC unroll 6
      for (int r = 0; r < R; ++r) {
        const Float8 x = BroadcastFloat8(a + r * row_stride);
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v)
          acc[chain][r][v] = MultiplyAdd(x, column[v], acc[chain][r][v]);
      }
      a += k_stride;
      b += kTileCols;
    }
  }
  for (; p < k; ++p) {
    Float8 column[kVectors];
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) column[v] = LoadFloat8(b + 8 * v);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const Float8 x = BroadcastFloat8(a + r * row_stride);
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) acc[0][r][v] = MultiplyAdd(x, column[v], acc[0][r][v]);
    }
    a += k_stride;
    b += kTileCols;
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
      Float8 total = acc[0][r][v];
#pragma GCC unroll 4
      for (int chain = 1; chain < kChains; ++chain) total += acc[chain][r][v];
      StoreFloat8(sums + r * kTileCols + 8 * v, total);
    }
  }
}

#if defined(__AVX2__) && defined(__FMA__) && defined(__x86_64__)
// The full 6 x 16 tile on AVX2+FMA, in assembly so that the loop is exactly this whatever the
// compiler and its flags: 12 accumulators (ymm0-11), the two B vectors of a k step (ymm12-13) and
// one broadcast A value (ymm14); k unrolled by 4. Rows 0-2 of A are addressed from one base and
// rows 3-5 from another, each plus 0, 1 or 2 row strides (the scaled-index forms), so that A is
// read in place as well as packed. (GCC's own allocation of the same loop from intrinsics
// rotates registers and spills one accumulator, 3-4% slower.)
// clang-format off
#define PRISM_SGEMM_ROW(address, sum0, sum1)          \
  "vbroadcastss " address ", %%ymm14\n\t"              \
  "vfmadd231ps %%ymm12, %%ymm14, %%ymm" #sum0 "\n\t"   \
  "vfmadd231ps %%ymm13, %%ymm14, %%ymm" #sum1 "\n\t"
#define PRISM_SGEMM_STEP(u)                             \
  "vmovups " #u "*64(%[b]), %%ymm12\n\t"                \
  "vmovups " #u "*64+32(%[b]), %%ymm13\n\t"             \
  PRISM_SGEMM_ROW("(%[a])", 0, 1)                       \
  PRISM_SGEMM_ROW("(%[a],%[rs],1)", 2, 3)               \
  PRISM_SGEMM_ROW("(%[a],%[rs],2)", 4, 5)               \
  PRISM_SGEMM_ROW("(%[a3])", 6, 7)                      \
  PRISM_SGEMM_ROW("(%[a3],%[rs],1)", 8, 9)              \
  PRISM_SGEMM_ROW("(%[a3],%[rs],2)", 10, 11)            \
  "add %[ks], %[a]\n\t"                                 \
  "add %[ks], %[a3]\n\t"
// clang-format on

void TileSums6x16(int64_t k, const float* a, int64_t row_stride, int64_t k_stride, const float* b,
                  float* sums) {
  int64_t quads = k / 4, rest = k % 4;
  const float* a3 = a + 3 * row_stride;
  const int64_t rs = row_stride * static_cast<int64_t>(sizeof(float));
  const int64_t ks = k_stride * static_cast<int64_t>(sizeof(float));
  __asm__ volatile(
      "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"
      "vxorps %%ymm1, %%ymm1, %%ymm1\n\t"
      "vxorps %%ymm2, %%ymm2, %%ymm2\n\t"
      "vxorps %%ymm3, %%ymm3, %%ymm3\n\t"
      "vxorps %%ymm4, %%ymm4, %%ymm4\n\t"
      "vxorps %%ymm5, %%ymm5, %%ymm5\n\t"
      "vxorps %%ymm6, %%ymm6, %%ymm6\n\t"
      "vxorps %%ymm7, %%ymm7, %%ymm7\n\t"
      "vxorps %%ymm8, %%ymm8, %%ymm8\n\t"
      "vxorps %%ymm9, %%ymm9, %%ymm9\n\t"
      "vxorps %%ymm10, %%ymm10, %%ymm10\n\t"
      "vxorps %%ymm11, %%ymm11, %%ymm11\n\t"
      "test %[quads], %[quads]\n\t"
      "jz 2f\n\t"
      ".p2align 5\n\t"
      "1:\n\t" PRISM_SGEMM_STEP(0) PRISM_SGEMM_STEP(1) PRISM_SGEMM_STEP(2) PRISM_SGEMM_STEP(3)
      "add $256, %[b]\n\t"
      "dec %[quads]\n\t"
      "jnz 1b\n\t"
      "2:\n\t"
      "test %[rest], %[rest]\n\t"
      "jz 4f\n\t"
      "3:\n\t" PRISM_SGEMM_STEP(0)
      "add $64, %[b]\n\t"
      "dec %[rest]\n\t"
      "jnz 3b\n\t"
      "4:\n\t"
      "vmovups %%ymm0, 0(%[sums])\n\t"
      "vmovups %%ymm1, 32(%[sums])\n\t"
      "vmovups %%ymm2, 64(%[sums])\n\t"
      "vmovups %%ymm3, 96(%[sums])\n\t"
      "vmovups %%ymm4, 128(%[sums])\n\t"
      "vmovups %%ymm5, 160(%[sums])\n\t"
      "vmovups %%ymm6, 192(%[sums])\n\t"
      "vmovups %%ymm7, 224(%[sums])\n\t"
      "vmovups %%ymm8, 256(%[sums])\n\t"
      "vmovups %%ymm9, 288(%[sums])\n\t"
      "vmovups %%ymm10, 320(%[sums])\n\t"
      "vmovups %%ymm11, 352(%[sums])\n\t"
      : [a] "+r"(a), [a3] "+r"(a3), [b] "+r"(b), [quads] "+r"(quads), [rest] "+r"(rest)
      : [sums] "r"(sums), [rs] "r"(rs), [ks] "r"(ks)
      : "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
        "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14");
}
#undef PRISM_SGEMM_STEP
#undef PRISM_SGEMM_ROW
#define PRISM_SGEMM_ASM_TILE 1
#endif

// The sums of an R-row tile: one pass of 16 columns, or two of 8 on the baseline (the second
// skipped when the tile has 8 columns or fewer).
template <int R, int kChains>
[[gnu::always_inline]] inline void RowSums(int64_t cols, int64_t k, const float* a,
                                           int64_t row_stride, int64_t k_stride, const float* b,
                                           float* sums) {
  if constexpr (kVectorsPerRow == 2) {
    TileSums<R, kChains, 2>(k, a, row_stride, k_stride, b, sums);
  } else {
    TileSums<R, kChains, 1>(k, a, row_stride, k_stride, b, sums);
    if (cols > 8) TileSums<R, kChains, 1>(k, a, row_stride, k_stride, b + 8, sums + 8);
  }
}

// C's rows x cols tile = alpha * sums + beta * C (C not read when beta is 0).
inline void StoreTile(int rows, int64_t cols, const float* sums, float alpha, float beta, float* c,
                      int64_t ldc) {
  for (int r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    const float* sum = sums + r * kTileCols;
    if (cols == kTileCols) {
      Float8 low = LoadFloat8(sum) * alpha, high = LoadFloat8(sum + 8) * alpha;
      if (beta != 0.0f) {
        low += LoadFloat8(row) * beta;
        high += LoadFloat8(row + 8) * beta;
      }
      StoreFloat8(row, low);
      StoreFloat8(row + 8, high);
    } else if (beta == 0.0f) {
      for (int64_t j = 0; j < cols; ++j) row[j] = alpha * sum[j];
    } else {
      for (int64_t j = 0; j < cols; ++j) row[j] = alpha * sum[j] + beta * row[j];
    }
  }
}

// One tile: rows <= 6 rows of A (row r at a + r * row_stride, k steps k_stride apart) times a
// packed B panel.
inline void SgemmTile(int rows, int64_t cols, int64_t k, const float* a, int64_t row_stride,
                      int64_t k_stride, const float* b, float alpha, float beta, float* c,
                      int64_t ldc) {
  // C's lines are needed only after the k loop; asking for them now hides a miss.
  for (int r = 0; r < rows; ++r) {
    __builtin_prefetch(c + r * ldc);
    __builtin_prefetch(c + r * ldc + cols - 1);
  }
  alignas(32) float sums[kTileRows * kTileCols];
  switch (rows) {
    case 6:
#if defined(PRISM_SGEMM_ASM_TILE)
      TileSums6x16(k, a, row_stride, k_stride, b, sums);
#else
      RowSums<6, 1>(cols, k, a, row_stride, k_stride, b, sums);
#endif
      break;
    case 5:
      RowSums<5, 1>(cols, k, a, row_stride, k_stride, b, sums);
      break;
    case 4:
      RowSums<4, 1>(cols, k, a, row_stride, k_stride, b, sums);
      break;
    case 3:
      RowSums<3, 2>(cols, k, a, row_stride, k_stride, b, sums);
      break;
    case 2:
      RowSums<2, 3>(cols, k, a, row_stride, k_stride, b, sums);
      break;
    default:
      RowSums<1, 4>(cols, k, a, row_stride, k_stride, b, sums);
      break;
  }
  StoreTile(rows, cols, sums, alpha, beta, c, ldc);
}

// The macro-kernel: every tile of an m x n block of C. Column panels outside, rows inside, so
// that one panel of B (k x 16 floats, 16 KiB at k = 256) stays in the L1 cache while the rows of
// A stream past it from the L2 cache. (Unused on AVX-512, which has its own: sgemm_avx512.h.)
[[maybe_unused]] void SgemmBlock(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                 const float* packed_b, int64_t b_panel_stride, float alpha,
                                 float beta, float* c, int64_t ldc) {
  for (int64_t j = 0; j < n; j += kTileCols) {
    const int64_t cols = std::min<int64_t>(kTileCols, n - j);
    const float* panel = packed_b + (j / kTileCols) * b_panel_stride;
    for (int64_t i = 0; i < m; i += kTileRows) {
      const int rows = static_cast<int>(std::min<int64_t>(kTileRows, m - i));
      if (lda == 0) {
        // Packed panels: every panel before this one is full, so this one starts i * k floats
        // in; its rows are adjacent and its k steps `rows` apart.
        SgemmTile(rows, cols, k, a + i * k, 1, rows, panel, alpha, beta, c + i * ldc + j, ldc);
      } else {
        SgemmTile(rows, cols, k, a + i * lda, lda, 1, panel, alpha, beta, c + i * ldc + j, ldc);
      }
    }
  }
}

#if defined(__AVX2__)
// 8 x 8 transposition in registers: row[q] element e becomes out[e] element q, with the halves
// of the result spread as below (see the users).
inline void Interleave8x8(const __m256 row[8], __m256 s[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(row[0], row[1]), t1 = _mm256_unpackhi_ps(row[0], row[1]);
  const __m256 t2 = _mm256_unpacklo_ps(row[2], row[3]), t3 = _mm256_unpackhi_ps(row[2], row[3]);
  const __m256 t4 = _mm256_unpacklo_ps(row[4], row[5]), t5 = _mm256_unpackhi_ps(row[4], row[5]);
  const __m256 t6 = _mm256_unpacklo_ps(row[6], row[7]), t7 = _mm256_unpackhi_ps(row[6], row[7]);
  // s[q] (q < 4), low lane: element q of rows 0-3; s[q + 4], low lane: element q of rows 4-7;
  // the high lanes the same for elements q + 4.
  s[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  s[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
  s[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  s[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
  s[4] = _mm256_shuffle_ps(t4, t6, 0x44);
  s[5] = _mm256_shuffle_ps(t4, t6, 0xEE);
  s[6] = _mm256_shuffle_ps(t5, t7, 0x44);
  s[7] = _mm256_shuffle_ps(t5, t7, 0xEE);
}

// out[e] = column e of the 8 x 8 block rows: out[e] element q = row[q] element e.
inline void Transpose8x8(const __m256 row[8], __m256 out[8]) {
  __m256 s[8];
  Interleave8x8(row, s);
  for (int q = 0; q < 4; ++q) {
    out[q] = _mm256_permute2f128_ps(s[q], s[q + 4], 0x20);
    out[q + 4] = _mm256_permute2f128_ps(s[q], s[q + 4], 0x31);
  }
}
#endif

void SgemmPackA(bool trans_a, int64_t m, int64_t k, const float* a, int64_t lda, float* packed) {
  for (int64_t i = 0; i < m; i += kTileRows) {
    const int64_t rows = std::min<int64_t>(kTileRows, m - i);
    if (trans_a) {
      // A stored k x m: a k step's rows are contiguous.
      const float* src = a + i;
      for (int64_t p = 0; p < k; ++p, packed += rows)
        std::memcpy(packed, src + p * lda, static_cast<size_t>(rows) * sizeof(float));
      continue;
    }
    const float* src = a + i * lda;
    int64_t p = 0;
#if defined(__AVX2__)
    if (rows == kTileRows) {
      // 8 k steps of the 6 rows at a time, transposed in registers (rows 6 and 7 are dummies).
      for (; p + 8 <= k; p += 8, packed += 8 * kTileRows) {
        __m256 row[8], s[8];
        for (int r = 0; r < kTileRows; ++r) row[r] = _mm256_loadu_ps(src + r * lda + p);
        row[6] = row[7] = _mm256_setzero_ps();
        Interleave8x8(row, s);
        for (int q = 0; q < 4; ++q) {
          // Step q: rows 0-3 in s[q]'s low lane, rows 4-5 in the first two of s[q + 4]'s.
          _mm_storeu_ps(packed + q * 6, _mm256_castps256_ps128(s[q]));
          _mm_storel_pi(reinterpret_cast<__m64*>(packed + q * 6 + 4),
                        _mm256_castps256_ps128(s[q + 4]));
          // Step q + 4: the same in the high lanes.
          _mm_storeu_ps(packed + (q + 4) * 6, _mm256_extractf128_ps(s[q], 1));
          _mm_storel_pi(reinterpret_cast<__m64*>(packed + (q + 4) * 6 + 4),
                        _mm256_extractf128_ps(s[q + 4], 1));
        }
      }
    }
#endif
    for (; p < k; ++p, packed += rows)
      for (int64_t r = 0; r < rows; ++r) packed[r] = src[r * lda + p];
  }
}

void SgemmPackB(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb, float* packed,
                int64_t panel_stride) {
  for (int64_t j = 0; j < n; j += kTileCols, packed += panel_stride) {
    const int64_t cols = std::min<int64_t>(kTileCols, n - j);
    float* out = packed;
    if (!trans_b) {
      const float* src = b + j;
      if (cols == kTileCols) {
        for (int64_t p = 0; p < k; ++p, out += kTileCols) {
          StoreFloat8(out, LoadFloat8(src + p * ldb));
          StoreFloat8(out + 8, LoadFloat8(src + p * ldb + 8));
        }
      } else {
        for (int64_t p = 0; p < k; ++p, out += kTileCols) {
          std::memcpy(out, src + p * ldb, static_cast<size_t>(cols) * sizeof(float));
          std::fill(out + cols, out + kTileCols, 0.0f);
        }
      }
      continue;
    }
    // B stored n x k: column j + c of op(B) is row j + c of B.
    const float* src = b + j * ldb;
    int64_t p = 0;
#if defined(__AVX2__)
    for (; p + 8 <= k; p += 8, out += 8 * kTileCols) {
      for (int half = 0; half < 2; ++half) {
        __m256 row[8], column[8];
        for (int c = 0; c < 8; ++c) {
          const int64_t col = half * 8 + c;
          row[c] = col < cols ? _mm256_loadu_ps(src + col * ldb + p) : _mm256_setzero_ps();
        }
        Transpose8x8(row, column);
        for (int e = 0; e < 8; ++e) _mm256_storeu_ps(out + e * kTileCols + half * 8, column[e]);
      }
    }
#endif
    for (; p < k; ++p, out += kTileCols) {
      for (int64_t c = 0; c < cols; ++c) out[c] = src[c * ldb + p];
      std::fill(out + cols, out + kTileCols, 0.0f);
    }
  }
}

// ---- GEMV ----
inline float SumLanes(Float8 v) {
  float lanes[8];
  StoreFloat8(lanes, v);
  return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) +
         ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
}

void GemvRowsF32(int64_t rows, int64_t k, float alpha, const float* a, int64_t lda, const float* x,
                 float beta, float* y) {
  auto finish = [&](int64_t i, float sum) {
    y[i] = beta == 0.0f ? alpha * sum : alpha * sum + beta * y[i];
  };
  int64_t i = 0;
  // Four rows at a time, two sums each, so that x is loaded once per four rows.
  for (; i + 4 <= rows; i += 4) {
    const float* row = a + i * lda;
    Float8 acc[4][2] = {};
    int64_t p = 0;
    for (; p + 16 <= k; p += 16) {
      const Float8 x0 = LoadFloat8(x + p), x1 = LoadFloat8(x + p + 8);
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        acc[q][0] = MultiplyAdd(LoadFloat8(row + q * lda + p), x0, acc[q][0]);
        acc[q][1] = MultiplyAdd(LoadFloat8(row + q * lda + p + 8), x1, acc[q][1]);
      }
    }
    for (int q = 0; q < 4; ++q) {
      float sum = SumLanes(acc[q][0] + acc[q][1]);
      for (int64_t t = p; t < k; ++t) sum += row[q * lda + t] * x[t];
      finish(i + q, sum);
    }
  }
  for (; i < rows; ++i) {
    const float* row = a + i * lda;
    Float8 acc[4] = {};
    int64_t p = 0;
    for (; p + 32 <= k; p += 32)
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q)
        acc[q] = MultiplyAdd(LoadFloat8(row + p + 8 * q), LoadFloat8(x + p + 8 * q), acc[q]);
    for (; p + 8 <= k; p += 8) acc[0] = MultiplyAdd(LoadFloat8(row + p), LoadFloat8(x + p), acc[0]);
    float sum = SumLanes((acc[0] + acc[1]) + (acc[2] + acc[3]));
    for (; p < k; ++p) sum += row[p] * x[p];
    finish(i, sum);
  }
}

void GemvColsF32(int64_t k, int64_t n, float alpha, const float* a, int64_t lda, const float* x,
                 float beta, float* y) {
  // y = beta * y first (written, not read, when beta is 0), then four rows of A at a time added
  // along y: A streams row by row (contiguous, once), and y (n floats) stays in the L1 cache.
  // (Column blocks over all of k instead, with sums in registers, read A with a stride of lda:
  // 4x slower at n = 3072.)
  if (beta == 0.0f)
    std::fill(y, y + n, 0.0f);
  else if (beta != 1.0f)
    for (int64_t j = 0; j < n; ++j) y[j] *= beta;
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const float* r0 = a + p * lda;
    const float* r1 = r0 + lda;
    const float* r2 = r1 + lda;
    const float* r3 = r2 + lda;
    const float w0 = alpha * x[p], w1 = alpha * x[p + 1], w2 = alpha * x[p + 2],
                w3 = alpha * x[p + 3];
    const Float8 v0 = BroadcastFloat8(&w0), v1 = BroadcastFloat8(&w1), v2 = BroadcastFloat8(&w2),
                 v3 = BroadcastFloat8(&w3);
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
      Float8 sum = LoadFloat8(y + j);
      sum = MultiplyAdd(v0, LoadFloat8(r0 + j), sum);
      sum = MultiplyAdd(v1, LoadFloat8(r1 + j), sum);
      sum = MultiplyAdd(v2, LoadFloat8(r2 + j), sum);
      sum = MultiplyAdd(v3, LoadFloat8(r3 + j), sum);
      StoreFloat8(y + j, sum);
    }
    for (; j < n; ++j) y[j] += w0 * r0[j] + w1 * r1[j] + w2 * r2[j] + w3 * r3[j];
  }
  for (; p < k; ++p) {
    const float* row = a + p * lda;
    const float w = alpha * x[p];
    const Float8 v = BroadcastFloat8(&w);
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
      StoreFloat8(y + j, MultiplyAdd(v, LoadFloat8(row + j), LoadFloat8(y + j)));
    for (; j < n; ++j) y[j] += w * row[j];
  }
}

// ---- The peak probe (AVX-512 has its own, with zmm chains: sgemm_avx512.h) ----
[[maybe_unused]] int64_t FmaProbeF32(int64_t iterations) {
  if (iterations <= 0) return 0;
#if defined(__AVX2__) && defined(__FMA__) && defined(__x86_64__)
    // 12 independent chains of 8-lane multiply-adds, 24 per round: enough in flight for two FMA
    // pipes of 4 cycles' latency (8 needed) with margin. Zeros keep every value exact and normal.
    // clang-format off
#define PRISM_PROBE_FMA(r) "vfmadd231ps %%ymm12, %%ymm13, %%ymm" #r "\n\t"
#define PRISM_PROBE_ROUND                                                                   \
  PRISM_PROBE_FMA(0) PRISM_PROBE_FMA(1) PRISM_PROBE_FMA(2) PRISM_PROBE_FMA(3) PRISM_PROBE_FMA(4) \
  PRISM_PROBE_FMA(5) PRISM_PROBE_FMA(6) PRISM_PROBE_FMA(7) PRISM_PROBE_FMA(8) PRISM_PROBE_FMA(9) \
  PRISM_PROBE_FMA(10) PRISM_PROBE_FMA(11)
  // clang-format on
  int64_t count = iterations;
  __asm__ volatile(
      "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"
      "vxorps %%ymm1, %%ymm1, %%ymm1\n\t"
      "vxorps %%ymm2, %%ymm2, %%ymm2\n\t"
      "vxorps %%ymm3, %%ymm3, %%ymm3\n\t"
      "vxorps %%ymm4, %%ymm4, %%ymm4\n\t"
      "vxorps %%ymm5, %%ymm5, %%ymm5\n\t"
      "vxorps %%ymm6, %%ymm6, %%ymm6\n\t"
      "vxorps %%ymm7, %%ymm7, %%ymm7\n\t"
      "vxorps %%ymm8, %%ymm8, %%ymm8\n\t"
      "vxorps %%ymm9, %%ymm9, %%ymm9\n\t"
      "vxorps %%ymm10, %%ymm10, %%ymm10\n\t"
      "vxorps %%ymm11, %%ymm11, %%ymm11\n\t"
      "vxorps %%ymm12, %%ymm12, %%ymm12\n\t"
      "vxorps %%ymm13, %%ymm13, %%ymm13\n\t"
      ".p2align 5\n\t"
      "1:\n\t" PRISM_PROBE_ROUND PRISM_PROBE_ROUND
      "dec %[count]\n\t"
      "jnz 1b\n\t"
      : [count] "+r"(count)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13");
#undef PRISM_PROBE_ROUND
#undef PRISM_PROBE_FMA
  return iterations * 24 * 16;
#elif defined(__x86_64__)
    // SSE2 has no multiply-add: 6 chains of 4-lane multiplies and 6 of adds, which run on separate
    // pipes, 4 flops each per instruction.
    // clang-format off
#define PRISM_PROBE_OPS                                                                    \
  "mulps %%xmm12, %%xmm0\n\t addps %%xmm13, %%xmm6\n\t mulps %%xmm12, %%xmm1\n\t"           \
  "addps %%xmm13, %%xmm7\n\t mulps %%xmm12, %%xmm2\n\t addps %%xmm13, %%xmm8\n\t"           \
  "mulps %%xmm12, %%xmm3\n\t addps %%xmm13, %%xmm9\n\t mulps %%xmm12, %%xmm4\n\t"           \
  "addps %%xmm13, %%xmm10\n\t mulps %%xmm12, %%xmm5\n\t addps %%xmm13, %%xmm11\n\t"
  // clang-format on
  int64_t count = iterations;
  __asm__ volatile(
      "xorps %%xmm0, %%xmm0\n\t xorps %%xmm1, %%xmm1\n\t xorps %%xmm2, %%xmm2\n\t"
      "xorps %%xmm3, %%xmm3\n\t xorps %%xmm4, %%xmm4\n\t xorps %%xmm5, %%xmm5\n\t"
      "xorps %%xmm6, %%xmm6\n\t xorps %%xmm7, %%xmm7\n\t xorps %%xmm8, %%xmm8\n\t"
      "xorps %%xmm9, %%xmm9\n\t xorps %%xmm10, %%xmm10\n\t xorps %%xmm11, %%xmm11\n\t"
      "xorps %%xmm12, %%xmm12\n\t xorps %%xmm13, %%xmm13\n\t"
      ".p2align 5\n\t"
      "1:\n\t" PRISM_PROBE_OPS PRISM_PROBE_OPS
      "dec %[count]\n\t"
      "jnz 1b\n\t"
      : [count] "+r"(count)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13");
#undef PRISM_PROBE_OPS
  return iterations * 24 * 4;
#else
  // Elsewhere: independent chains the compiler keeps in registers (a lower bound on the peak).
  Float8 acc[8] = {};
  const float zero = 0.0f;
  const Float8 scale = BroadcastFloat8(&zero), offset = scale;
  for (int64_t i = 0; i < iterations; ++i) {
    for (int c = 0; c < 8; ++c) acc[c] = MultiplyAdd(acc[c], scale, offset);
    __asm__ volatile("" : : "g"(&acc) : "memory");
  }
  return iterations * 8 * 16;
#endif
}

// Always inlined into the depthwise loop: its rows are short, and a call per row costs more than
// the row (the table's entry below is an out-of-line copy).
template <typename T>
[[gnu::always_inline]] inline void ScaledAddRow(T* dst, const T* src, int64_t count,
                                                int64_t src_stride, T weight) {
  using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
  // Eigen's array expressions are explicitly vectorized (plain loops are not at -O2).
  Eigen::Map<Row> dst_row(dst, count);
  if (src_stride == 1) {
    dst_row += weight * Eigen::Map<const Row>(src, count);
  } else {
    dst_row += weight * Eigen::Map<const Row, Eigen::Unaligned, Eigen::InnerStride<>>(
                            src, count, Eigen::InnerStride<>(src_stride));
  }
}

template <typename T>
void ScaledAdd(T* dst, const T* src, int64_t count, int64_t src_stride, T weight) {
  ScaledAddRow(dst, src, count, src_stride, weight);
}

template <typename T>
void Depthwise2D(const DepthwiseGeometry& geometry, const T* x, const T* w, T bias, T* y) {
  const DepthwiseGeometry g = geometry;  // a local copy: loads the compiler can keep in registers
  std::fill(y, y + g.out_h * g.out_w, bias);
  for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
    for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
      const T weight = w[kh * g.kernel_w + kw];
      const int64_t offset_w = kw * g.dilation_w - g.pad_w;
      // The output columns whose window column kw falls inside the input row.
      int64_t ow_begin = offset_w >= 0 ? 0 : (-offset_w + g.stride_w - 1) / g.stride_w;
      int64_t ow_end = g.in_w - offset_w > 0 ? (g.in_w - offset_w - 1) / g.stride_w + 1 : 0;
      ow_begin = std::min(ow_begin, g.out_w);
      ow_end = std::clamp(ow_end, ow_begin, g.out_w);
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const int64_t ih = oh * g.stride_h + kh * g.dilation_h - g.pad_h;
        if (ih < 0 || ih >= g.in_h || ow_begin == ow_end) continue;
        ScaledAddRow(y + oh * g.out_w + ow_begin,
                     x + ih * g.in_w + (ow_begin * g.stride_w + offset_w), ow_end - ow_begin,
                     g.stride_w, weight);
      }
    }
  }
}

void NormalizeF32(float* dst, const float* src, int64_t count, double mean, double multiplier,
                  double bias) {
  for (int64_t i = 0; i < count; ++i)
    dst[i] = static_cast<float>((static_cast<double>(src[i]) - mean) * multiplier + bias);
}

void ClampF32(float* dst, const float* src, int64_t count, float lo, float hi) {
  for (int64_t i = 0; i < count; ++i) {
    float v = src[i];
    // Comparisons with NaN are false, so NaN passes through both.
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    dst[i] = v;
  }
}

// ---- erf and GELU, kErfLanes lanes at a time ----
// Both branches are computed for every lane and one is selected, so the loops have no
// per-element branches. The polynomials were fitted for Prism (least squares in double, checked
// in float against scipy.special.erf/erfc over the whole range):
//   |x| <= 1:   erf(x) = x P(x^2), relative error below 2.3e-7;
//   0.5 <= z <= 6: erfc(z) = exp(-z^2 + G(z - 3.25)), relative error below 5e-7, with z^2 split
//                exactly (z = z_hi + z_lo, z_hi with 12 significant bits) and the exponent kept
//                as two floats, because rounding -z^2 (up to -36) to one float alone costs 4e-6;
//   z > 6:      erfc(z) < 2.2e-17, taken as 0.

typedef int32_t Int8 __attribute__((vector_size(32)));

inline Float8 Splat8(float v) {
  return Float8{v, v, v, v, v, v, v, v};
}

inline Int8 SplatInt8(int32_t v) {
  return Int8{v, v, v, v, v, v, v, v};
}

// The erf and GELU kernels' vectors: one zmm on the AVX-512 level (twice the work per
// instruction of the ymm used elsewhere; the same operations lane by lane, so the same results).
#if defined(__AVX512F__)
constexpr int kErfLanes = 16;
#else
constexpr int kErfLanes = 8;
#endif
typedef float ErfF __attribute__((vector_size(kErfLanes * sizeof(float))));
typedef int32_t ErfI __attribute__((vector_size(kErfLanes * sizeof(int32_t))));

inline ErfF SplatErf(float v) {
  ErfF r;
  for (int i = 0; i < kErfLanes; ++i) r[i] = v;
  return r;
}

inline ErfI SplatErfI(int32_t v) {
  ErfI r;
  for (int i = 0; i < kErfLanes; ++i) r[i] = v;
  return r;
}

template <size_t N>
inline ErfF HornerErf(ErfF x, const float (&c)[N]) {
  ErfF r = SplatErf(c[N - 1]);
  for (size_t k = N - 1; k-- > 0;) r = r * x + c[k];
  return r;
}

constexpr float kErfSmall[] = {1.1283791065216064f,    -0.37612393498420715f,
                               0.11280768364667892f,   -0.0267292819917202f,
                               0.0049397703260183334f, -0.0005726845702156425f};
constexpr float kErfcExponent[] = {
    -1.7937493324279785f,     -0.28376060724258423f,   0.037518419325351715f,
    -0.006199214607477188f,   0.0010828118538483977f,  -0.00018995041318703443f,
    3.2461633963976055e-05f,  -5.071809937362559e-06f, 7.459127573383739e-07f,
    -1.4759176281131658e-07f, 2.0998278671413573e-08f, 3.3153153555787185e-09f,
    -1.0505309955277653e-09f};

// e^(hi + lo) for hi + lo in [-87, 0]: n = round((hi + lo) / ln2), r = hi + lo - n ln2 with ln2
// in two parts (n ln2_hi is exact), e^r by its degree-7 Taylor polynomial, 2^n in the exponent.
inline ErfF ExpOfSum(ErfF hi, ErfF lo) {
  const ErfF shifter = SplatErf(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const ErfF n = ((hi + lo) * 1.44269504088896341f + shifter) - shifter;
  const ErfF r = (hi - n * 0.693145751953125f) + (lo - n * 1.42860682030941723212e-6f);
  constexpr float kTaylor[] = {1.0f,         1.0f,          0.5f,          1.0f / 6.0f,
                               1.0f / 24.0f, 1.0f / 120.0f, 1.0f / 720.0f, 1.0f / 5040.0f};
  const ErfI scale = (__builtin_convertvector(n, ErfI) + 127) << 23;
  return HornerErf(r, kTaylor) * std::bit_cast<ErfF>(scale);
}

// v^2 as hi + lo: v with its low 12 mantissa bits cleared squares exactly into hi; lo is the
// rest, v_lo (v_hi + v), in float.
inline void SplitSquare(ErfF v, ErfF& hi, ErfF& lo) {
  const ErfF v_hi = std::bit_cast<ErfF>(std::bit_cast<ErfI>(v) & SplatErfI(-4096));
  hi = v_hi * v_hi;
  lo = (v - v_hi) * (v_hi + v);
}

// erfc(z) for z >= 0.5, given z^2 = square_hi + square_lo (0 past z = 6, infinity included).
inline ErfF ErfcTail(ErfF z, ErfF square_hi, ErfF square_lo) {
  const ErfF six = SplatErf(6.0f);
  const ErfF clamped = z < six ? z : six;
  const ErfF g = HornerErf(clamped - 3.25f, kErfcExponent);
  const ErfF tail = ExpOfSum(-square_hi, g - square_lo);
  return z < six ? tail : SplatErf(0.0f);
}

inline ErfF AbsErf(ErfF x) {
  return std::bit_cast<ErfF>(std::bit_cast<ErfI>(x) & SplatErfI(0x7FFFFFFF));
}

inline ErfF ErfLanes(ErfF x) {
  const ErfF magnitude = AbsErf(x);
  ErfF square_hi, square_lo;
  SplitSquare(magnitude, square_hi, square_lo);
  const ErfF small = x * HornerErf(x * x, kErfSmall);
  const ErfF large = 1.0f - ErfcTail(magnitude, square_hi, square_lo);
  const ErfI sign = std::bit_cast<ErfI>(x) & SplatErfI(static_cast<int32_t>(0x80000000u));
  const ErfF signed_large = std::bit_cast<ErfF>(std::bit_cast<ErfI>(large) | sign);
  const ErfF result = magnitude <= 1.0f ? small : signed_large;
  return x == x ? result : x;  // NaN stays NaN
}

// dst[i] = fn(src[i]) kErfLanes at a time; the tail through a zero-padded vector.
template <typename Fn>
inline void MapErfLanes(const float* src, float* dst, int64_t count, Fn fn) {
  int64_t i = 0;
  for (; i + kErfLanes <= count; i += kErfLanes) StoreLanes(dst + i, fn(LoadLanes<ErfF>(src + i)));
  if (i < count) {
    float block[kErfLanes] = {};
    std::memcpy(block, src + i, sizeof(float) * static_cast<size_t>(count - i));
    StoreLanes(block, fn(LoadLanes<ErfF>(block)));
    std::memcpy(dst + i, block, sizeof(float) * static_cast<size_t>(count - i));
  }
}

void ErfF32(const float* src, float* dst, int64_t count) {
  MapErfLanes(src, dst, count, [](ErfF x) { return ErfLanes(x); });
}

// 0.5 x (1 + erf(x / sqrt(2))) of `vectors` (at most kGeluBlock) whole vectors; for
// x / sqrt(2) < -0.5 as 0.5 x erfc(|x| / sqrt(2)), which keeps the relative precision that
// 1 + erf would cancel. z^2 = x^2 / 2 is split from x itself: the rounding of z = x / sqrt(2)
// alone would cost 12 z^2 6e-8 (4e-6 at z = 6) in erfc. Two passes: the erfc exponent's
// polynomial for all the vectors, then e^ and the selection. Each vector in one pass ran at about
// 2 ns a float (AVX2): its chain of dependent operations (the degree-12 polynomial, then e^'s) is
// longer than the out-of-order window could overlap across vectors; the passes' shorter bodies
// let the core run several vectors' chains at once (1.35 ns), with the same operations.
constexpr int64_t kGeluBlock = 8;

inline void GeluErfVectors(const float* src, const float* bias, float* dst, int64_t vectors) {
  ErfF xs[kGeluBlock], exponent_hi[kGeluBlock], exponent_lo[kGeluBlock];
  for (int64_t v = 0; v < vectors; ++v) {
    ErfF x = LoadLanes<ErfF>(src + v * kErfLanes);
    if (bias != nullptr) x += LoadLanes<ErfF>(bias + v * kErfLanes);
    xs[v] = x;
    const ErfF magnitude = AbsErf(x * 0.70710678118654752f);
    ErfF square_hi, square_lo;
    SplitSquare(AbsErf(x), square_hi, square_lo);
    const ErfF six = SplatErf(6.0f);
    const ErfF g = HornerErf((magnitude < six ? magnitude : six) - 3.25f, kErfcExponent);
    exponent_hi[v] = -(0.5f * square_hi);
    exponent_lo[v] = g - 0.5f * square_lo;
  }
  for (int64_t v = 0; v < vectors; ++v) {
    const ErfF x = xs[v];
    const ErfF z = x * 0.70710678118654752f;
    const ErfF small = 1.0f + z * HornerErf(z * z, kErfSmall);
    const ErfF tail =
        AbsErf(z) < SplatErf(6.0f) ? ExpOfSum(exponent_hi[v], exponent_lo[v]) : SplatErf(0.0f);
    const ErfF factor = z < -0.5f ? tail : (z <= 1.0f ? small : 2.0f - tail);
    const ErfF result = 0.5f * x * factor;
    StoreLanes(dst + v * kErfLanes, x == x ? result : x);
  }
}

void GeluErfF32(const float* src, const float* bias, float* dst, int64_t count) {
  constexpr int64_t kStep = kGeluBlock * kErfLanes;
  int64_t i = 0;
  for (; i + kStep <= count; i += kStep)
    GeluErfVectors(src + i, bias != nullptr ? bias + i : nullptr, dst + i, kGeluBlock);
  if (const int64_t vectors = (count - i) / kErfLanes; vectors > 0) {
    GeluErfVectors(src + i, bias != nullptr ? bias + i : nullptr, dst + i, vectors);
    i += vectors * kErfLanes;
  }
  if (i < count) {  // the tail through zero-padded vectors
    float block[kErfLanes] = {}, bias_block[kErfLanes] = {};
    const auto tail_bytes = sizeof(float) * static_cast<size_t>(count - i);
    std::memcpy(block, src + i, tail_bytes);
    if (bias != nullptr) std::memcpy(bias_block, bias + i, tail_bytes);
    GeluErfVectors(block, bias != nullptr ? bias_block : nullptr, block, 1);
    std::memcpy(dst + i, block, tail_bytes);
  }
}

#include "mlas/isa/transcendental_kernels.h"

// ---- pooling ----

// The pooling accumulators of kVectors groups of eight outputs. A maximum ignores NaN taps while
// it runs (v > acc is false for them) and remembers them in a mask that makes the output NaN at
// the end, as ONNX MaxPool propagates NaN: the running maximum's dependency chain is then one
// compare-and-select per tap, and several groups of outputs in flight hide its latency.
template <bool kMax, int kVectors>
struct PoolAccumulators {
  Float8 acc[kVectors];
  Int8 nan[kVectors];
  PoolAccumulators() {
    for (int v = 0; v < kVectors; ++v) {
      acc[v] = Splat8(kMax ? -std::numeric_limits<float>::infinity() : 0.0f);
      nan[v] = SplatInt8(0);
    }
  }
  void Add(int v, Float8 value) {
    if constexpr (kMax) {
      acc[v] = value > acc[v] ? value : acc[v];
      nan[v] |= value != value;
    } else {
      acc[v] += value;
    }
  }
  Float8 Result(int v) const {
    if constexpr (kMax)
      return nan[v] ? Splat8(std::numeric_limits<float>::quiet_NaN()) : acc[v];
    else
      return acc[v];
  }
};

// Eight values p[lane * kStride], stride 1 or 2. For stride 2 the sixteen values from p are read
// and the even ones kept.
template <int kStride>
inline Float8 LoadStrided8(const float* p) {
  if constexpr (kStride == 1) {
    return LoadFloat8(p);
  } else {
    return PRISM_SHUFFLE2(LoadFloat8(p), LoadFloat8(p + 8), 0, 2, 4, 6, 8, 10, 12, 14);
  }
}

// out[i .. i + 8 kVectors) from the window's rows and taps, in registers.
template <bool kMax, int kStride, int kVectors>
inline void PoolBlock(float* out, int64_t i, const float* const* rows, int64_t row_count,
                      int64_t taps, int64_t dilation) {
  PoolAccumulators<kMax, kVectors> block;
  for (int64_t r = 0; r < row_count; ++r) {
    const float* row = rows[r] + i * kStride;
    for (int64_t t = 0; t < taps; ++t) {
      const float* source = row + t * dilation;
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v)
        block.Add(v, LoadStrided8<kStride>(source + 8 * v * kStride));
    }
  }
  for (int v = 0; v < kVectors; ++v) StoreFloat8(out + i + 8 * v, block.Result(v));
}

// The outputs that whole groups of eight cover; returns how many that is.
template <bool kMax, int kStride>
int64_t PoolRowVector(float* out, int64_t count, const float* const* rows, int64_t row_count,
                      int64_t taps, int64_t dilation) {
  // Stride 2 reads one value past the last one used: stop while that is still inside the row.
  const int64_t limit = kStride == 1 ? count : count - 1;
  int64_t i = 0;
  for (; i + 32 <= limit; i += 32)
    PoolBlock<kMax, kStride, 4>(out, i, rows, row_count, taps, dilation);
  for (; i + 8 <= limit; i += 8)
    PoolBlock<kMax, kStride, 1>(out, i, rows, row_count, taps, dilation);
  return i;
}

template <bool kMax>
void PoolRowF32(float* out, int64_t count, const float* const* rows, int64_t row_count,
                int64_t taps, int64_t dilation, int64_t stride) {
  int64_t i = 0;
  // Strides 1 and 2: groups of eight, then one more group ending at the last output (stride 2:
  // at the one before it, so as not to read past the row) that recomputes a few outputs.
  if (stride == 1) {
    i = PoolRowVector<kMax, 1>(out, count, rows, row_count, taps, dilation);
    if (i < count && count >= 8) {
      PoolBlock<kMax, 1, 1>(out, count - 8, rows, row_count, taps, dilation);
      i = count;
    }
  } else if (stride == 2) {
    i = PoolRowVector<kMax, 2>(out, count, rows, row_count, taps, dilation);
    if (i < count - 1 && count >= 9) {
      PoolBlock<kMax, 2, 1>(out, count - 9, rows, row_count, taps, dilation);
      i = count - 1;
    }
  }
  if (stride <= 2) {
    for (; i < count; ++i) {
      float acc = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
      bool nan = false;
      for (int64_t r = 0; r < row_count; ++r)
        for (int64_t t = 0; t < taps; ++t) {
          const float v = rows[r][i * stride + t * dilation];
          acc = kMax ? (v > acc ? v : acc) : acc + v;
          nan = nan || v != v;
        }
      out[i] = kMax && nan ? std::numeric_limits<float>::quiet_NaN() : acc;
    }
    return;
  }
  // Other strides eight at a time, from values gathered one by one (nothing read outside the
  // positions named).
  for (; i < count; i += 8) {
    const int64_t lanes = std::min<int64_t>(8, count - i);
    PoolAccumulators<kMax, 1> block;
    alignas(32) float values[8] = {};
    for (int64_t r = 0; r < row_count; ++r) {
      for (int64_t t = 0; t < taps; ++t) {
        const float* source = rows[r] + i * stride + t * dilation;
        for (int64_t lane = 0; lane < lanes; ++lane) values[lane] = source[lane * stride];
        block.Add(0, LoadFloat8(values));
      }
    }
    alignas(32) float result[8];
    StoreFloat8(result, block.Result(0));
    std::memcpy(out + i, result, sizeof(float) * static_cast<size_t>(lanes));
  }
}

// ---- depthwise convolution (float) ----
// One channel: the input plane is first copied into a zero-padded buffer wide enough for whole
// groups of eight outputs, so that every output row is computed in registers without a bounds
// check, up to 32 outputs at a time: bias, then one multiply-add per window row and tap, one store.
// (Copying the plane costs a fraction of the multiply-adds; small planes such as 7 x 7 would
// otherwise be all border.)

// Outputs i .. i + 7 of kRowsOut consecutive output rows, row o stored at outs[o][0 .. 8):
// base is the padded buffer's first window row of the first of them, row_step the distance
// between consecutive output rows' windows, kh_step between window rows. The kRowsOut
// accumulators are independent multiply-add chains, so that their latency overlaps.
template <int kStride, int kRowsOut>
inline void DepthwiseTile(float* const* outs, int64_t i, const float* base, int64_t row_step,
                          int64_t kh_step, const float* w, int64_t kernel_h, int64_t kernel_w,
                          int64_t dilation, float bias) {
  Float8 acc[kRowsOut];
  for (int o = 0; o < kRowsOut; ++o) acc[o] = Splat8(bias);
  for (int64_t kh = 0; kh < kernel_h; ++kh) {
    const float* row = base + kh * kh_step + i * kStride;
    for (int64_t kw = 0; kw < kernel_w; ++kw) {
      const Float8 weight = BroadcastFloat8(w + kh * kernel_w + kw);
      const float* source = row + kw * dilation;
#pragma GCC unroll 4
      for (int o = 0; o < kRowsOut; ++o)
        acc[o] = MultiplyAdd(LoadStrided8<kStride>(source + o * row_step), weight, acc[o]);
    }
  }
  for (int o = 0; o < kRowsOut; ++o) StoreFloat8(outs[o], acc[o]);
}

// dst[i] = src[i] for i < count, eight at a time (the rows are short: a library call per row
// would cost more than the row).
inline void CopyShortRow(float* dst, const float* src, int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) StoreFloat8(dst + i, LoadFloat8(src + i));
  for (; i < count; ++i) dst[i] = src[i];
}

// kRowsOut output rows from oh on: whole groups of eight straight into y, the last partial group
// through the scratch's last block (kRowsOut x 8 floats).
template <int kStride, int kRowsOut>
void DepthwiseRows(const DepthwiseGeometry& g, int64_t cols, const float* buffer, float* last_block,
                   const float* w, float bias, float* y, int64_t oh) {
  const int64_t full = g.out_w / 8 * 8;
  const float* base = buffer + oh * g.stride_h * cols;
  const int64_t row_step = g.stride_h * cols;
  const int64_t kh_step = g.dilation_h * cols;
  float* outs[kRowsOut];
  for (int64_t i = 0; i < full; i += 8) {
    for (int o = 0; o < kRowsOut; ++o) outs[o] = y + (oh + o) * g.out_w + i;
    DepthwiseTile<kStride, kRowsOut>(outs, i, base, row_step, kh_step, w, g.kernel_h, g.kernel_w,
                                     g.dilation_w, bias);
  }
  if (full < g.out_w) {
    for (int o = 0; o < kRowsOut; ++o) outs[o] = last_block + 8 * o;
    DepthwiseTile<kStride, kRowsOut>(outs, full, base, row_step, kh_step, w, g.kernel_h, g.kernel_w,
                                     g.dilation_w, bias);
    for (int o = 0; o < kRowsOut; ++o)
      CopyShortRow(y + (oh + o) * g.out_w + full, last_block + 8 * o, g.out_w - full);
  }
}

void DepthwiseConv2DF32(const DepthwiseGeometry& geometry, const float* x, const float* w,
                        float bias, float* y, float* scratch) {
  const DepthwiseGeometry g = geometry;  // a local copy: loads the compiler can keep in registers
  const DepthwiseLayout layout = DepthwiseLayoutOf(g);
  const int64_t cols = layout.cols;
  float* buffer = scratch;
  float* last_block = scratch + layout.padded_rows * cols;
  // The padding stays zero from one channel to the next (the caller zeroes the scratch once per
  // geometry); only the input's own cells are written here.
  const int64_t copy_begin = std::min(g.pad_w, cols);
  const int64_t copy_count = std::max<int64_t>(0, std::min(g.in_w, cols - copy_begin));
  for (int64_t r = 0; r < layout.padded_rows; ++r) {
    const int64_t ih = r - g.pad_h;
    if (ih < 0 || ih >= g.in_h) continue;
    CopyShortRow(buffer + r * cols + copy_begin, x + ih * g.in_w, copy_count);
  }
  if (g.stride_w == 1 || g.stride_w == 2) {
    auto run = [&](auto stride) {
      constexpr int kStride = decltype(stride)::value;
      int64_t oh = 0;
      for (; oh + 4 <= g.out_h; oh += 4)
        DepthwiseRows<kStride, 4>(g, cols, buffer, last_block, w, bias, y, oh);
      for (; oh < g.out_h; ++oh)
        DepthwiseRows<kStride, 1>(g, cols, buffer, last_block, w, bias, y, oh);
    };
    if (g.stride_w == 1)
      run(std::integral_constant<int, 1>{});
    else
      run(std::integral_constant<int, 2>{});
    return;
  }
  for (int64_t oh = 0; oh < g.out_h; ++oh)
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      float acc = bias;
      for (int64_t kh = 0; kh < g.kernel_h; ++kh)
        for (int64_t kw = 0; kw < g.kernel_w; ++kw)
          acc += buffer[(oh * g.stride_h + kh * g.dilation_h) * cols + ow * g.stride_w +
                        kw * g.dilation_w] *
                 w[kh * g.kernel_w + kw];
      y[oh * g.out_w + ow] = acc;
    }
}

// ---- bias, residual sum and activation over a row (convolution epilogues) ----

template <int kKind>
inline Float8 Activate8(Float8 v, Float8 a, Float8 b) {
  const Float8 zero = Splat8(0.0f);
  if constexpr (kKind == kActivationRelu) {
    return v < zero ? zero : v;  // NaN stays NaN
  } else if constexpr (kKind == kActivationLeakyRelu) {
    return v >= zero ? v : v * a;
  } else if constexpr (kKind == kActivationClip) {
    v = v < a ? a : v;
    return b < v ? b : v;
  } else {
    return v;
  }
}

template <int kKind>
void BiasActivationRow(float* out, const float* sum, int64_t count, float bias, float a, float b) {
  const Float8 bias8 = Splat8(bias), a8 = Splat8(a), b8 = Splat8(b);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    Float8 v = LoadFloat8(out + i) + bias8;
    if (sum != nullptr) v += LoadFloat8(sum + i);
    StoreFloat8(out + i, Activate8<kKind>(v, a8, b8));
  }
  if (i < count) {
    alignas(32) float block[8] = {};
    alignas(32) float extra[8] = {};
    const auto rest = static_cast<size_t>(count - i);
    std::memcpy(block, out + i, sizeof(float) * rest);
    if (sum != nullptr) std::memcpy(extra, sum + i, sizeof(float) * rest);
    Float8 v = LoadFloat8(block) + bias8;
    if (sum != nullptr) v += LoadFloat8(extra);
    StoreFloat8(block, Activate8<kKind>(v, a8, b8));
    std::memcpy(out + i, block, sizeof(float) * rest);
  }
}

#if defined(__AVX2__)  // the baseline table has neither (its callers' SSE2 loops run)
// Requantization in single precision, exact to the double-precision RequantizeRowS32 (the AVX2
// tiles' store, QgemmStore::out8, and RequantizeChannelsF32), in three steps: one fused
// multiply-add s * m + 1.5 * 2^23 of the float sum s and the float multiplier m rounds the exact
// product once, to an integer (floats in [2^23, 2^24) are the integers), half to even (the offset
// is even), and the bits of that float are 0x4B400000 plus the rounded product while |s * m| <
// 2^22; clamped as floats to the output range, the bits minus 0x4B400000 plus the zero point are
// the output. s is exact while |sum| < 2^24; past it (and past 2^22 for the product) |s * m| >=
// 2^24 |m| >= 1024 when |m| >= 2^-14 (QgemmCanRequantize, qgemm.cc): the rounding is monotonic, so
// it clamps as the exact product does.
constexpr float kRequantizeShift = 0x1.8p23f;
constexpr int32_t kRequantizeShiftBits = 0x4B400000;

// The output range of those steps: the shift plus the clamp bounds less the zero point, and the
// shift's bits less the zero point, as scalars (the tails) and vectors.
struct RequantizeRangeAvx2 {
  float low_bound, high_bound;
  int32_t offset_bits;
  __m256 low, high;
  __m256i offset;

  RequantizeRangeAvx2(float low_less_zero, float high_less_zero, int32_t zero_point)
      : low_bound(kRequantizeShift + low_less_zero),
        high_bound(kRequantizeShift + high_less_zero),
        offset_bits(kRequantizeShiftBits - zero_point),
        low(_mm256_set1_ps(low_bound)),
        high(_mm256_set1_ps(high_bound)),
        offset(_mm256_set1_epi32(offset_bits)) {}
  // uint8 or int8 (to_int8) output with this zero point.
  static RequantizeRangeAvx2 For(int32_t zero_point, bool to_int8) {
    return RequantizeRangeAvx2(static_cast<float>((to_int8 ? -128 : 0) - zero_point),
                               static_cast<float>((to_int8 ? 127 : 255) - zero_point), zero_point);
  }
};

// The output values (int32, within the output type) of eight sums.
[[gnu::always_inline]] inline __m256i RequantizeLanesAvx2(__m256i total, __m256 scale,
                                                          const RequantizeRangeAvx2& range) {
  const __m256 shifted =
      _mm256_fmadd_ps(_mm256_cvtepi32_ps(total), scale, _mm256_set1_ps(kRequantizeShift));
  return _mm256_sub_epi32(
      _mm256_castps_si256(_mm256_min_ps(_mm256_max_ps(shifted, range.low), range.high)),
      range.offset);
}

// The same for one sum (the tails).
inline uint8_t RequantizeOne(int32_t total, float scale, const RequantizeRangeAvx2& range) {
  const float shifted = std::min(
      std::max(std::fma(static_cast<float>(total), scale, kRequantizeShift), range.low_bound),
      range.high_bound);
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return static_cast<uint8_t>(bits - range.offset_bits);
}

// Sixteen output values (columns 0-7 in first, 8-15 in second; they fit the output type) to their
// low bytes in column order: int16 words (lanes: columns 0-3, 8-11 | 4-7, 12-15), their low bytes
// gathered into each lane's first eight, the lanes' dwords put in column order.
[[gnu::always_inline]] inline __m128i OutputBytes16Avx2(__m256i first, __m256i second) {
  const __m256i words = _mm256_packs_epi32(first, second);
  const __m256i low_bytes = _mm256_shuffle_epi8(
      words, _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1, 0, 2, 4, 6,
                              8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(low_bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 3, 6, 7)));
}

// Intrinsics on AVX-512 and AVX2 (the baseline table has none: its caller's SSE2 loop runs
// there): the product is clamped to the shifted integer range before rounding, which equals
// clamping after.
template <bool kToInt8, bool kBias, bool kBroadcast>
void RequantizeRowS32Impl(const int32_t* sum, const int32_t* bias, const double* multiplier,
                          int64_t count, int32_t zero_point, uint8_t* out) {
  const double low = (kToInt8 ? -128.0 : 0.0) - zero_point;
  const double high = (kToInt8 ? 127.0 : 255.0) - zero_point;
  const double one_multiplier = multiplier[0];
  const uint32_t one_bias = kBias ? static_cast<uint32_t>(bias[0]) : 0u;
#if defined(__AVX512F__)
  // Sixteen a step (one 16-byte store), the rest eight at a time with the last (count % 8) under a
  // mask: the compiler's own loop left a scalar tail of up to 15 elements, most of a row of 16 or
  // 24 channels (mobilenet's narrow convs). vcvtpd2dq rounds in the current mode (half to even,
  // as nearbyint); the clamped value plus the zero point lies in the output's range, so vpmovdb's
  // truncation keeps it whole.
  const __m512d lows = _mm512_set1_pd(low), highs = _mm512_set1_pd(high);
  const __m512d multipliers = _mm512_set1_pd(one_multiplier);
  const auto scaled = [&](__m256i total, __m512d scale) {
    return _mm512_cvtpd_epi32(
        _mm512_min_pd(_mm512_max_pd(_mm512_mul_pd(_mm512_cvtepi32_pd(total), scale), lows), highs));
  };
  const __m512i zeros = _mm512_set1_epi32(zero_point);
  const __m512i biases = _mm512_set1_epi32(static_cast<int32_t>(one_bias));
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m512i total = _mm512_loadu_si512(sum + i);
    if constexpr (kBias)
      total = _mm512_add_epi32(total, kBroadcast ? biases : _mm512_loadu_si512(bias + i));
    const __m512d low_scale = kBroadcast ? multipliers : _mm512_loadu_pd(multiplier + i);
    const __m512d high_scale = kBroadcast ? multipliers : _mm512_loadu_pd(multiplier + i + 8);
    const __m512i value =
        _mm512_inserti64x4(_mm512_castsi256_si512(scaled(_mm512_castsi512_si256(total), low_scale)),
                           scaled(_mm512_extracti64x4_epi64(total, 1), high_scale), 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm512_cvtepi32_epi8(_mm512_add_epi32(value, zeros)));
  }
  for (; i < count; i += 8) {
    const auto mask = static_cast<__mmask8>(count - i >= 8 ? 0xFF : (1u << (count - i)) - 1u);
    __m256i total = _mm256_maskz_loadu_epi32(mask, sum + i);
    if constexpr (kBias)
      total = _mm256_add_epi32(total, kBroadcast ? _mm512_castsi512_si256(biases)
                                                 : _mm256_maskz_loadu_epi32(mask, bias + i));
    const __m512d scale = kBroadcast ? multipliers : _mm512_maskz_loadu_pd(mask, multiplier + i);
    const __m256i value = _mm256_add_epi32(scaled(total, scale), _mm512_castsi512_si256(zeros));
    _mm_mask_storeu_epi8(out + i, mask, _mm256_cvtepi32_epi8(value));
  }
#else
  // AVX2: eight a step (two vectors of four doubles, packed to eight bytes; each clamped value
  // plus the zero point fits the output type, so the saturating packs keep it whole), the last
  // (count % 8) one at a time.
  const __m256d lows = _mm256_set1_pd(low), highs = _mm256_set1_pd(high);
  const __m256d multipliers = _mm256_set1_pd(one_multiplier);
  const __m128i zeros = _mm_set1_epi32(zero_point);
  const __m128i biases = _mm_set1_epi32(static_cast<int32_t>(one_bias));
  const auto four = [&](int64_t at) {  // elements [at, at + 4)
    __m128i total = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sum + at));
    if constexpr (kBias)
      total = _mm_add_epi32(
          total,
          kBroadcast ? biases : _mm_loadu_si128(reinterpret_cast<const __m128i*>(bias + at)));
    const __m256d scale = kBroadcast ? multipliers : _mm256_loadu_pd(multiplier + at);
    const __m256d x =
        _mm256_min_pd(_mm256_max_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(total), scale), lows), highs);
    return _mm_add_epi32(_mm256_cvtpd_epi32(x), zeros);
  };
  int64_t first = 0;
  for (; first + 8 <= count; first += 8) {
    const __m128i words = _mm_packs_epi32(four(first), four(first + 4));
    const __m128i bytes = kToInt8 ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + first), bytes);
  }
  for (int64_t i = first; i < count; ++i) {
    const uint32_t added = kBias ? (kBroadcast ? one_bias : static_cast<uint32_t>(bias[i])) : 0u;
    const uint32_t total = static_cast<uint32_t>(sum[i]) + added;
    double x = static_cast<double>(static_cast<int32_t>(total)) *
               (kBroadcast ? one_multiplier : multiplier[i]);
    x = x < low ? low : x;
    x = x > high ? high : x;
    const int32_t value = static_cast<int32_t>(__builtin_nearbyint(x)) + zero_point;
    out[i] = static_cast<uint8_t>(value);
  }
#endif
}

template <bool kBroadcast>
void RequantizeRowS32Of(const int32_t* sum, const int32_t* bias, const double* multiplier,
                        int64_t count, int32_t zero_point, bool to_int8, uint8_t* out) {
  if (to_int8) {
    bias != nullptr ? RequantizeRowS32Impl<true, true, kBroadcast>(sum, bias, multiplier, count,
                                                                   zero_point, out)
                    : RequantizeRowS32Impl<true, false, kBroadcast>(sum, bias, multiplier, count,
                                                                    zero_point, out);
  } else {
    bias != nullptr ? RequantizeRowS32Impl<false, true, kBroadcast>(sum, bias, multiplier, count,
                                                                    zero_point, out)
                    : RequantizeRowS32Impl<false, false, kBroadcast>(sum, bias, multiplier, count,
                                                                     zero_point, out);
  }
}

void RequantizeRowS32(const int32_t* sum, const int32_t* bias, const double* multiplier,
                      bool broadcast, int64_t count, int32_t zero_point, bool to_int8,
                      uint8_t* out) {
  broadcast ? RequantizeRowS32Of<true>(sum, bias, multiplier, count, zero_point, to_int8, out)
            : RequantizeRowS32Of<false>(sum, bias, multiplier, count, zero_point, to_int8, out);
}

// requantize_channels_f32 (isa_kernels.h): sixteen channels a step, then eight, then one at a
// time, each pixel's row from the same column operands.
void RequantizeChannelsF32(const int32_t* sum, const int32_t* bias, const float* multiplier,
                           int64_t channels, int64_t pixels, int32_t zero_point, bool to_int8,
                           uint8_t* out) {
  const RequantizeRangeAvx2 range = RequantizeRangeAvx2::For(zero_point, to_int8);
  const auto total_of = [&](const int32_t* s, int64_t c) {
    const __m256i sums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c));
    return bias != nullptr
               ? _mm256_add_epi32(sums,
                                  _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + c)))
               : sums;
  };
  // Eight int32 output values to their low bytes, in order, in the low 8 bytes (the tail of
  // eight; sixteen go through OutputBytes16Avx2).
  const auto bytes_of = [](__m256i value) {
    const __m128i words =
        _mm_packs_epi32(_mm256_castsi256_si128(value), _mm256_extracti128_si256(value, 1));
    return _mm_shuffle_epi8(
        words, _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1));
  };
  for (int64_t p = 0; p < pixels; ++p) {
    const int32_t* s = sum + p * channels;
    uint8_t* o = out + p * channels;
    int64_t c = 0;
    for (; c + 16 <= channels; c += 16)
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(o + c),
          OutputBytes16Avx2(
              RequantizeLanesAvx2(total_of(s, c), _mm256_loadu_ps(multiplier + c), range),
              RequantizeLanesAvx2(total_of(s, c + 8), _mm256_loadu_ps(multiplier + c + 8), range)));
    for (; c + 8 <= channels; c += 8)
      _mm_storel_epi64(
          reinterpret_cast<__m128i*>(o + c),
          bytes_of(RequantizeLanesAvx2(total_of(s, c), _mm256_loadu_ps(multiplier + c), range)));
    for (; c < channels; ++c) {
      const auto total = static_cast<int32_t>(static_cast<uint32_t>(s[c]) +
                                              static_cast<uint32_t>(bias != nullptr ? bias[c] : 0));
      o[c] = RequantizeOne(total, multiplier[c], range);
    }
  }
}

// QLinearAdd's row as a plain loop the level vectorizes, with contraction off: a fused
// multiply-add would round da * ra + db * rb once instead of three times.
#if defined(__clang__)
#define PRISM_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define PRISM_NO_CONTRACT
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
//
// The body runs on intrinsics: the compiler's own vectorization of the loop (kept for the tail)
// ran at about 6 elements per ns on AVX-512, half of onnxruntime's kernel, spending its
// instructions on mask juggling for the NaN test and on a separate round before the conversion.
// Here max(value, low) maps NaN to low (maxps returns its second operand when either is NaN),
// and cvtps2dq rounds in the current mode (half to even, as nearbyint) with the value already
// inside the type's range.
template <typename T>
void QLinearAddRow(const T* a, const T* b, T* c, int64_t count, int32_t a_zero, int32_t b_zero,
                   float ratio_a, float ratio_b, int32_t c_zero) {
  PRISM_NO_CONTRACT
  constexpr bool kSigned = std::is_same_v<T, int8_t>;
  const auto low = static_cast<float>(std::numeric_limits<T>::min());
  const auto high = static_cast<float>(std::numeric_limits<T>::max());
  const auto zero = static_cast<float>(c_zero);
  int64_t i = 0;
#if defined(__AVX512F__)
  {
    const __m512i a_zeros = _mm512_set1_epi32(a_zero), b_zeros = _mm512_set1_epi32(b_zero);
    const __m512 ra = _mm512_set1_ps(ratio_a), rb = _mm512_set1_ps(ratio_b);
    const __m512 zeros = _mm512_set1_ps(zero), lows = _mm512_set1_ps(low);
    const __m512 highs = _mm512_set1_ps(high);
    const auto widen = [](const T* bytes) {
      const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
      return kSigned ? _mm512_cvtepi8_epi32(raw) : _mm512_cvtepu8_epi32(raw);
    };
    for (; i + 16 <= count; i += 16) {
      const __m512 da = _mm512_cvtepi32_ps(_mm512_sub_epi32(widen(a + i), a_zeros));
      const __m512 db = _mm512_cvtepi32_ps(_mm512_sub_epi32(widen(b + i), b_zeros));
      __m512 value = _mm512_add_ps(_mm512_mul_ps(da, ra), _mm512_mul_ps(db, rb));
      value = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(value, zeros), lows), highs);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(c + i),
                       _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(value)));
    }
  }
#elif defined(__AVX2__)
  {
    const __m256i a_zeros = _mm256_set1_epi32(a_zero), b_zeros = _mm256_set1_epi32(b_zero);
    const __m256 ra = _mm256_set1_ps(ratio_a), rb = _mm256_set1_ps(ratio_b);
    const __m256 zeros = _mm256_set1_ps(zero), lows = _mm256_set1_ps(low);
    const __m256 highs = _mm256_set1_ps(high);
    const auto widen = [](const T* bytes) {
      const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
      return kSigned ? _mm256_cvtepi8_epi32(raw) : _mm256_cvtepu8_epi32(raw);
    };
    const auto eight = [&](int64_t at) {  // elements [at, at + 8) as rounded int32
      const __m256 da = _mm256_cvtepi32_ps(_mm256_sub_epi32(widen(a + at), a_zeros));
      const __m256 db = _mm256_cvtepi32_ps(_mm256_sub_epi32(widen(b + at), b_zeros));
      __m256 value = _mm256_add_ps(_mm256_mul_ps(da, ra), _mm256_mul_ps(db, rb));
      value = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(value, zeros), lows), highs);
      return _mm256_cvtps_epi32(value);
    };
    // The packs work within 128-bit lanes: the permute restores the order (each value is in
    // the type's range, so their saturation keeps it whole).
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= count; i += 32) {
      const __m256i words0 = _mm256_packs_epi32(eight(i), eight(i + 8));
      const __m256i words1 = _mm256_packs_epi32(eight(i + 16), eight(i + 24));
      const __m256i bytes =
          kSigned ? _mm256_packs_epi16(words0, words1) : _mm256_packus_epi16(words0, words1);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + i),
                          _mm256_permutevar8x32_epi32(bytes, order));
    }
  }
#endif
  for (; i < count; ++i) {
    const auto da = static_cast<float>(static_cast<int32_t>(a[i]) - a_zero);
    const auto db = static_cast<float>(static_cast<int32_t>(b[i]) - b_zero);
    const float pa = da * ratio_a;
    const float pb = db * ratio_b;
    float value = pa + pb;
    value += zero;
    value = !(value >= low) ? low : value;  // NaN -> low, as fmax(NaN, low)
    value = value > high ? high : value;
    c[i] = static_cast<T>(static_cast<int32_t>(__builtin_nearbyintf(value)));
  }
}
#if !defined(__clang__)
#pragma GCC pop_options
#endif
#undef PRISM_NO_CONTRACT

void QLinearAddU8(const uint8_t* a, const uint8_t* b, uint8_t* c, int64_t count, int32_t a_zero,
                  int32_t b_zero, float ratio_a, float ratio_b, int32_t c_zero) {
  QLinearAddRow(a, b, c, count, a_zero, b_zero, ratio_a, ratio_b, c_zero);
}
void QLinearAddS8(const int8_t* a, const int8_t* b, int8_t* c, int64_t count, int32_t a_zero,
                  int32_t b_zero, float ratio_a, float ratio_b, int32_t c_zero) {
  QLinearAddRow(a, b, c, count, a_zero, b_zero, ratio_a, ratio_b, c_zero);
}
#endif

void BiasActivationRowF32(float* out, const float* sum, int64_t count, float bias, int kind,
                          float a, float b) {
  switch (kind) {
    case kActivationRelu:
      return BiasActivationRow<kActivationRelu>(out, sum, count, bias, a, b);
    case kActivationLeakyRelu:
      return BiasActivationRow<kActivationLeakyRelu>(out, sum, count, bias, a, b);
    case kActivationClip:
      return BiasActivationRow<kActivationClip>(out, sum, count, bias, a, b);
    default:
      return BiasActivationRow<kActivationNone>(out, sum, count, bias, a, b);
  }
}
// ---- int8 GEMM: the kernels behind mlas/qgemm.cc (formats and contract in mlas/qgemm.h) ----
constexpr int64_t kQgemmGroup = kQgemmDepthGroup;
constexpr int64_t kQgemmCols = kQgemmPanelCols;

// C's rows x cols tile (row stride 16 in sums) written as `store` says, in wrapping (unsigned)
// arithmetic.
inline void StoreQgemmTile(int64_t rows, int64_t cols, const int32_t* sums, const QgemmStore& store,
                           int32_t* c, int64_t ldc) {
  for (int64_t r = 0; r < rows; ++r) {
    int32_t* row = c + r * ldc;
    const int32_t* from = sums + r * kQgemmCols;
    const uint32_t row_sum =
        store.row_sums != nullptr ? static_cast<uint32_t>(store.row_sums[r]) : 0;
    for (int64_t j = 0; j < cols; ++j) {
      uint32_t value = static_cast<uint32_t>(from[j]);
      if (store.accumulate) value += static_cast<uint32_t>(row[j]);
      if (store.column_term != nullptr)
        value += static_cast<uint32_t>(store.column_term[j]) -
                 static_cast<uint32_t>(store.column_zero[j]) * row_sum;
      row[j] = static_cast<int32_t>(value);
    }
  }
}

#if defined(__AVX2__)

// The AVX2 tiles' requantizing store (QgemmStore::out8), by RequantizeLanesAvx2.
// Row r's sixteen sums with their terms (+ term - zero * row_sums[r], the row term only when
// row_sums is given) requantized as above, packed to the 16 output bytes in column order.
struct RequantizeTileAvx2 {
  RequantizeRangeAvx2 range;
  __m256 scale[2];
  __m256i term[2], zero[2];

  RequantizeTileAvx2(const float* scales, const int32_t* terms, const int32_t* zeros,
                     const QgemmRequantizeConstants& k)
      : range(k.low, k.high, k.zero_point) {
    for (int h = 0; h < 2; ++h) {
      scale[h] = _mm256_loadu_ps(scales + 8 * h);
      term[h] = terms != nullptr
                    ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(terms + 8 * h))
                    : _mm256_setzero_si256();
      zero[h] = zeros != nullptr
                    ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(zeros + 8 * h))
                    : _mm256_setzero_si256();
    }
  }

  [[gnu::always_inline]] __m128i Row(const __m256i (&sums)[2], const int32_t* row_sum) const {
    __m256i value[2];
    for (int h = 0; h < 2; ++h) {
      __m256i total = _mm256_add_epi32(sums[h], term[h]);
      if (row_sum != nullptr)
        total = _mm256_sub_epi32(total, _mm256_mullo_epi32(zero[h], _mm256_set1_epi32(*row_sum)));
      value[h] = RequantizeLanesAvx2(total, scale[h], range);
    }
    return OutputBytes16Avx2(value[0], value[1]);
  }
};

// The requantizing store of one 16-column panel (cols of it used; `store` the panel's) for any
// number of tiles: its multipliers and terms in registers once (a ragged panel's through
// zero-padded copies), then row by row.
class PanelRequantizeAvx2 {
 public:
  PanelRequantizeAvx2(const QgemmStore& store, int64_t cols)
      : requantize_(Make(store, cols)), cols_(cols), stride_(store.out8_stride) {}

  // Row r's sums with its row term (row_sum, when given) to the cols bytes at out.
  [[gnu::always_inline]] void Row(const __m256i (&sums)[2], const int32_t* row_sum,
                                  uint8_t* out) const {
    const __m128i bytes = requantize_.Row(sums, row_sum);
    if (cols_ == kQgemmCols) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
    } else {
      alignas(16) uint8_t buffer[kQgemmCols];
      _mm_store_si128(reinterpret_cast<__m128i*>(buffer), bytes);
      std::memcpy(out, buffer, static_cast<size_t>(cols_));
    }
  }
  // A tile's kRows rows (row r's term from row_sums[r] when given) to out, out + stride, ...
  template <int kRows>
  [[gnu::always_inline]] void Rows(const __m256i (&sums)[kRows][2], const int32_t* row_sums,
                                   uint8_t* out) const {
    for (int r = 0; r < kRows; ++r)
      Row(sums[r], row_sums != nullptr ? row_sums + r : nullptr, out + r * stride_);
  }
  int64_t Stride() const { return stride_; }

 private:
  static RequantizeTileAvx2 Make(const QgemmStore& store, int64_t cols) {
    if (cols == kQgemmCols)
      return RequantizeTileAvx2(store.out_scale, store.column_term, store.column_zero,
                                *store.out_constants);
    alignas(32) int32_t terms[kQgemmCols], zeros[kQgemmCols];
    alignas(32) float scales[kQgemmCols];
    for (int64_t j = 0; j < kQgemmCols; ++j) {
      terms[j] = store.column_term != nullptr && j < cols ? store.column_term[j] : 0;
      zeros[j] = store.column_zero != nullptr && j < cols ? store.column_zero[j] : 0;
      scales[j] = j < cols ? store.out_scale[j] : 0.0f;
    }
    return RequantizeTileAvx2(scales, store.column_term != nullptr ? terms : nullptr,
                              store.column_zero != nullptr ? zeros : nullptr, *store.out_constants);
  }

  RequantizeTileAvx2 requantize_;
  int64_t cols_, stride_;
};

// The tile's rows [0, rows) requantized to store.out8.
template <int kUsedRows>
[[gnu::always_inline]] inline void RequantizeQgemmTileAvx2(const __m256i (&acc)[kUsedRows][2],
                                                           int64_t rows, int64_t cols,
                                                           const QgemmStore& store) {
  const PanelRequantizeAvx2 requantize(store, cols);
  for (int r = 0; r < kUsedRows && r < rows; ++r)
    requantize.Row(acc[r], store.row_sums != nullptr ? store.row_sums + r : nullptr,
                   store.out8 + r * store.out8_stride);
}

// A tile's sums (kUsedRows x 16, acc[r][half]) written to C as `store` says, rows [0, rows):
// straight from the registers for a whole panel (8 lanes at a time, the same wrapping sums as
// StoreQgemmTile; for a product of small depth, as a 1x1 convolution's 64 channels, the scalar
// store took about as long as the tile's multiplies), through a buffer and StoreQgemmTile for a
// ragged last panel (cols < 16).
template <int kUsedRows>
[[gnu::always_inline]] inline void StoreQgemmTileAvx2(const __m256i (&acc)[kUsedRows][2],
                                                      int64_t rows, int64_t cols,
                                                      const QgemmStore& store, int32_t* c,
                                                      int64_t ldc) {
  if (store.out8 != nullptr) return RequantizeQgemmTileAvx2(acc, rows, cols, store);
  if (cols < kQgemmCols) {
    alignas(32) int32_t sums[kUsedRows * kQgemmCols];
    for (int r = 0; r < kUsedRows; ++r) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums + r * kQgemmCols), acc[r][0]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums + r * kQgemmCols + 8), acc[r][1]);
    }
    StoreQgemmTile(rows, cols, sums, store, c, ldc);
    return;
  }
  const bool with_terms = store.column_term != nullptr;
  __m256i term[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  __m256i zero[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  if (with_terms)
    for (int h = 0; h < 2; ++h) {
      term[h] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(store.column_term + 8 * h));
      zero[h] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(store.column_zero + 8 * h));
    }
  for (int r = 0; r < kUsedRows && r < rows; ++r) {
    int32_t* row = c + r * ldc;
    for (int h = 0; h < 2; ++h) {
      auto* at = reinterpret_cast<__m256i*>(row + 8 * h);
      __m256i value = acc[r][h];
      if (store.accumulate) value = _mm256_add_epi32(value, _mm256_loadu_si256(at));
      if (with_terms) {
        value = _mm256_add_epi32(value, term[h]);
        if (store.row_sums != nullptr)
          value = _mm256_sub_epi32(
              value, _mm256_mullo_epi32(zero[h], _mm256_set1_epi32(store.row_sums[r])));
      }
      _mm256_storeu_si256(at, value);
    }
  }
}

// A mixed B's fix-ups for this tile's panel (store.fixup_*, mlas/qgemm.h) added to the first
// kUsedRows rows' sums: each a narrow group (the rest of a split block) multiplied with A's
// group it belongs to (row r at a + g * a_group_stride + r * a_row_stride) as the depth loop
// does. Few blocks have one, so this is not the tile's loop.
template <int kUsedRows>
inline void AddQgemmFixupsAvx2(__m256i (&acc)[kUsedRows][2], const uint8_t* a,
                               int64_t a_group_stride, int64_t a_row_stride, int64_t groups,
                               const QgemmStore& store) {
  const __m256i ones = _mm256_set1_epi16(1);
  for (int32_t f = store.fixup_begin[0]; f < store.fixup_begin[1]; ++f) {
    const int64_t g = store.fixup_group[f] - store.fixup_group0;
    if (g < 0 || g >= groups) continue;
    const int8_t* w = store.fixup_data + int64_t{f} * kQgemmGroupBytes;
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
    const uint8_t* ag = a + g * a_group_stride;
    for (int r = 0; r < kUsedRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, ag + r * a_row_stride, sizeof quad);
      const __m256i x = _mm256_set1_epi32(quad);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(x, b0), ones));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(x, b1), ones));
    }
  }
}

#if defined(__x86_64__)
// The 4-row depth loop of the narrow tile (below) in assembly: gcc's kept an accumulator on the
// stack (a store and a load on every depth group), as it did in the wide tile.
[[gnu::always_inline]] inline void NarrowDepthLoop4x16(__m256i (&acc)[4][2], int64_t groups,
                                                       const uint8_t* a, int64_t a_group_stride,
                                                       int64_t a_row_stride, const int8_t* b,
                                                       __m256i ones) {
  if (groups <= 0) return;
  __m256i b0, b1, x, product0, product1;
#define PRISM_NARROW_ROW(a_address, acc0, acc1)    \
  "vpbroadcastd " a_address                        \
  ", %[x]\n\t"                                     \
  "vpmaddubsw %[b0], %[x], %[product0]\n\t"        \
  "vpmaddubsw %[b1], %[x], %[product1]\n\t"        \
  "vpmaddwd %[ones], %[product0], %[product0]\n\t" \
  "vpmaddwd %[ones], %[product1], %[product1]\n\t" \
  "vpaddd %[product0], %[" #acc0 "], %[" #acc0     \
  "]\n\t"                                          \
  "vpaddd %[product1], %[" #acc1 "], %[" #acc1 "]\n\t"
  const int8_t* const b_end = b + groups * kQgemmGroupBytes;
  asm volatile(
      "1:\n\t"
      "vmovdqu (%[b]), %[b0]\n\t"
      "vmovdqu 32(%[b]), %[b1]\n\t"
      PRISM_NARROW_ROW("(%[a])", acc00, acc01)
      PRISM_NARROW_ROW("(%[a],%[row_stride],1)", acc10, acc11)
      PRISM_NARROW_ROW("(%[a],%[row_stride],2)", acc20, acc21)
      PRISM_NARROW_ROW("(%[a],%[row_stride3],1)", acc30, acc31)
      "add %[a_step], %[a]\n\t"
      "add $64, %[b]\n\t"
      "cmp %[b_end], %[b]\n\t"
      "jne 1b\n\t"
      : [acc00] "+x"(acc[0][0]), [acc01] "+x"(acc[0][1]), [acc10] "+x"(acc[1][0]),
        [acc11] "+x"(acc[1][1]), [acc20] "+x"(acc[2][0]), [acc21] "+x"(acc[2][1]),
        [acc30] "+x"(acc[3][0]), [acc31] "+x"(acc[3][1]), [b0] "=&x"(b0), [b1] "=&x"(b1),
        [x] "=&x"(x), [product0] "=&x"(product0), [product1] "=&x"(product1), [a] "+r"(a),
        [b] "+r"(b)
      : [a_step] "r"(a_group_stride), [row_stride] "r"(a_row_stride),
        [row_stride3] "r"(3 * a_row_stride), [b_end] "r"(b_end), [ones] "x"(ones)
      : "cc", "memory");
#undef PRISM_NARROW_ROW
}
#endif

// A B with paired groups (mlas/qgemm.h, QgemmStore::group_order): the byte offsets in A of the
// panel's stored groups, for A's groups group_stride apart (a buffer per thread, valid until the
// next call).
inline const int64_t* QgemmGroupOffsets(const int32_t* order, int64_t groups,
                                        int64_t group_stride) {
  thread_local std::vector<int64_t> offsets;
  if (static_cast<int64_t>(offsets.size()) < groups) offsets.resize(static_cast<size_t>(groups));
  for (int64_t s = 0; s < groups; ++s) offsets[static_cast<size_t>(s)] = order[s] * group_stride;
  return offsets.data();
}

#if defined(__x86_64__)
// The 4-row depth loop over paired groups (mlas/qgemm.h): each pair's two stored groups (128
// bytes of B) against A's groups at a + offsets[2 i] and a + offsets[2 i + 1] (row r a_row_stride
// further); the two vpmaddubsw int16 sums of a column vector are added before one vpmaddwd. In
// assembly for the reason NarrowDepthLoop4x16 is; the temporaries in fixed registers (clobbered)
// to stay within the asm operand limit.
[[gnu::always_inline]] inline void PairedDepthLoop4x16(__m256i (&acc)[4][2], int64_t pairs,
                                                       const uint8_t* a, const int64_t* offsets,
                                                       int64_t a_row_stride, const int8_t* b,
                                                       __m256i ones) {
  if (pairs <= 0) return;
  const int8_t* const b_end = b + pairs * 2 * kQgemmGroupBytes;
#define PRISM_PAIRED_ROW(first, second, acc0, acc1) \
  "vpbroadcastd " first                             \
  ", %%ymm12\n\t"                                   \
  "vpmaddubsw %%ymm10, %%ymm12, %%ymm13\n\t"        \
  "vpmaddubsw %%ymm11, %%ymm12, %%ymm14\n\t"        \
  "vpbroadcastd " second                            \
  ", %%ymm12\n\t"                                   \
  "vpmaddubsw 64(%[b]), %%ymm12, %%ymm15\n\t"       \
  "vpaddw %%ymm15, %%ymm13, %%ymm13\n\t"            \
  "vpmaddubsw 96(%[b]), %%ymm12, %%ymm15\n\t"       \
  "vpaddw %%ymm15, %%ymm14, %%ymm14\n\t"            \
  "vpmaddwd %[ones], %%ymm13, %%ymm13\n\t"          \
  "vpmaddwd %[ones], %%ymm14, %%ymm14\n\t"          \
  "vpaddd %%ymm13, %[" #acc0 "], %[" #acc0          \
  "]\n\t"                                           \
  "vpaddd %%ymm14, %[" #acc1 "], %[" #acc1 "]\n\t"
  asm volatile(
      "1:\n\t"
      "mov (%[offsets]), %%r10\n\t"
      "mov 8(%[offsets]), %%r11\n\t"
      "add %[a], %%r10\n\t"
      "add %[a], %%r11\n\t"
      "vmovdqu (%[b]), %%ymm10\n\t"
      "vmovdqu 32(%[b]), %%ymm11\n\t"
      PRISM_PAIRED_ROW("(%%r10)", "(%%r11)", acc00, acc01)
      PRISM_PAIRED_ROW("(%%r10,%[row_stride],1)", "(%%r11,%[row_stride],1)", acc10, acc11)
      PRISM_PAIRED_ROW("(%%r10,%[row_stride],2)", "(%%r11,%[row_stride],2)", acc20, acc21)
      PRISM_PAIRED_ROW("(%%r10,%[row_stride3],1)", "(%%r11,%[row_stride3],1)", acc30, acc31)
      "add $16, %[offsets]\n\t"
      "add $128, %[b]\n\t"
      "cmp %[b_end], %[b]\n\t"
      "jne 1b\n\t"
      : [acc00] "+x"(acc[0][0]), [acc01] "+x"(acc[0][1]), [acc10] "+x"(acc[1][0]),
        [acc11] "+x"(acc[1][1]), [acc20] "+x"(acc[2][0]), [acc21] "+x"(acc[2][1]),
        [acc30] "+x"(acc[3][0]), [acc31] "+x"(acc[3][1]), [b] "+r"(b), [offsets] "+r"(offsets)
      : [a] "r"(a), [row_stride] "r"(a_row_stride), [row_stride3] "r"(3 * a_row_stride),
        [b_end] "r"(b_end), [ones] "x"(ones)
      : "cc", "memory", "r10", "r11", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#undef PRISM_PAIRED_ROW
}

// The same over single groups read through their offsets (a B with paired groups' rest).
[[gnu::always_inline]] inline void IndexedDepthLoop4x16(__m256i (&acc)[4][2], int64_t groups,
                                                        const uint8_t* a, const int64_t* offsets,
                                                        int64_t a_row_stride, const int8_t* b,
                                                        __m256i ones) {
  if (groups <= 0) return;
  const int8_t* const b_end = b + groups * kQgemmGroupBytes;
#define PRISM_INDEXED_ROW(address, acc0, acc1) \
  "vpbroadcastd " address                      \
  ", %%ymm12\n\t"                              \
  "vpmaddubsw %%ymm10, %%ymm12, %%ymm13\n\t"   \
  "vpmaddubsw %%ymm11, %%ymm12, %%ymm14\n\t"   \
  "vpmaddwd %[ones], %%ymm13, %%ymm13\n\t"     \
  "vpmaddwd %[ones], %%ymm14, %%ymm14\n\t"     \
  "vpaddd %%ymm13, %[" #acc0 "], %[" #acc0     \
  "]\n\t"                                      \
  "vpaddd %%ymm14, %[" #acc1 "], %[" #acc1 "]\n\t"
  asm volatile(
      "1:\n\t"
      "mov (%[offsets]), %%r10\n\t"
      "add %[a], %%r10\n\t"
      "vmovdqu (%[b]), %%ymm10\n\t"
      "vmovdqu 32(%[b]), %%ymm11\n\t"
      PRISM_INDEXED_ROW("(%%r10)", acc00, acc01)
      PRISM_INDEXED_ROW("(%%r10,%[row_stride],1)", acc10, acc11)
      PRISM_INDEXED_ROW("(%%r10,%[row_stride],2)", acc20, acc21)
      PRISM_INDEXED_ROW("(%%r10,%[row_stride3],1)", acc30, acc31)
      "add $8, %[offsets]\n\t"
      "add $64, %[b]\n\t"
      "cmp %[b_end], %[b]\n\t"
      "jne 1b\n\t"
      : [acc00] "+x"(acc[0][0]), [acc01] "+x"(acc[0][1]), [acc10] "+x"(acc[1][0]),
        [acc11] "+x"(acc[1][1]), [acc20] "+x"(acc[2][0]), [acc21] "+x"(acc[2][1]),
        [acc30] "+x"(acc[3][0]), [acc31] "+x"(acc[3][1]), [b] "+r"(b), [offsets] "+r"(offsets)
      : [a] "r"(a), [row_stride] "r"(a_row_stride), [row_stride3] "r"(3 * a_row_stride),
        [b_end] "r"(b_end), [ones] "x"(ones)
      : "cc", "memory", "r10", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#undef PRISM_INDEXED_ROW
}

// A 4-row tile's depth loop over a B with paired groups: the `paired` first stored groups in
// pairs, the rest single, A's groups at a + offsets[s].
[[gnu::always_inline]] inline void OrderedDepthLoop4x16(__m256i (&acc)[4][2], int64_t groups,
                                                        int64_t paired, const uint8_t* a,
                                                        const int64_t* offsets,
                                                        int64_t a_row_stride, const int8_t* b,
                                                        __m256i ones) {
  PairedDepthLoop4x16(acc, paired / 2, a, offsets, a_row_stride, b, ones);
  IndexedDepthLoop4x16(acc, groups - paired, a, offsets + paired, a_row_stride,
                       b + paired * kQgemmGroupBytes, ones);
}
#endif

// Four rows of a packed A panel (their group g at a + g * a_group_stride, row r 4 bytes further
// each) times one 16-column panel of B: vpmaddubsw (u8 x s8 pairs into int16, exact within the
// pair bound) then vpmaddwd with ones (pairs of int16 into int32), added to int32 sums. Only the
// first kUsedRows rows are multiplied (1 or 2 for the last rows of a block, as a matrix-vector
// product's single row), and the first `rows` of them stored to C. Never inlined: the six forms
// inlined into QgemmBlockAvx2 made gcc keep some accumulators on the stack (an add from memory
// and a store on every depth group; resnet50_qdq spent 84% of a run in that loop on the AVX2
// machine).
template <int kUsedRows = 4>
[[gnu::noinline]] void QgemmTile4x16(int64_t groups, const uint8_t* a, int64_t a_group_stride,
                                     int64_t a_row_stride, const int8_t* b, int64_t rows,
                                     int64_t cols, const QgemmStore& store, int32_t* c,
                                     int64_t ldc) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[kUsedRows][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
  const uint8_t* const a_tile = a;
#if defined(__x86_64__)
  if constexpr (kUsedRows == 4) {
    if (store.group_order != nullptr)
      OrderedDepthLoop4x16(acc, groups, *store.paired_groups, a,
                           QgemmGroupOffsets(store.group_order, groups, a_group_stride),
                           a_row_stride, b, ones);
    else
      NarrowDepthLoop4x16(acc, groups, a, a_group_stride, a_row_stride, b, ones);
    if (store.fixup_begin != nullptr)
      AddQgemmFixupsAvx2(acc, a_tile, a_group_stride, a_row_stride, groups, store);
    StoreQgemmTileAvx2(acc, rows, cols, store, c, ldc);
    return;
  }
#endif
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
    // A's group for this stored group (a B with paired groups stores them reordered; the pairs'
    // sums are exact added in int32 as well).
    const uint8_t* ag =
        store.group_order != nullptr ? a_tile + store.group_order[g] * a_group_stride : a;
#pragma GCC unroll 4
    for (int r = 0; r < kUsedRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, ag + r * a_row_stride, sizeof quad);
      const __m256i x = _mm256_set1_epi32(quad);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(x, b0), ones));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(x, b1), ones));
    }
    a += a_group_stride;
    b += kQgemmGroupBytes;
  }
  if (store.fixup_begin != nullptr)
    AddQgemmFixupsAvx2(acc, a_tile, a_group_stride, a_row_stride, groups, store);
  StoreQgemmTileAvx2(acc, rows, cols, store, c, ldc);
}

#if defined(__x86_64__)
// Where a run of row tiles of A is (QgemmRequantizeTiles*): the first at `a`, each next tile_step
// further, except that after tiles_per_panel of them the next starts a panel_step after the
// panel's first; within a tile, row r's group g at + g * group_stride + r * row_stride.
struct QgemmTileRows {
  const uint8_t* a;
  int64_t tiles_per_panel, tile_step, panel_step;
  int64_t group_stride, row_stride;

  // From the tile at `tile` (its first row read) to the next.
  const uint8_t* Next(const uint8_t* tile, int64_t& in_panel) const {
    tile += tile_step;
    if (++in_panel == tiles_per_panel) {
      in_panel = 0;
      tile += panel_step - tiles_per_panel * tile_step;
    }
    return tile;
  }
};

// A mixed B's fix-ups of one panel inside the block's `groups` (QgemmStore::fixup_*; ascending,
// so those inside are one run): their first (`data`), how many, and each one's byte offset in A
// for A's groups group_stride apart (a buffer per thread, valid until the next call).
struct QgemmPanelFixups {
  const int8_t* data = nullptr;
  int64_t count = 0;
  const int64_t* offsets = nullptr;
};

inline QgemmPanelFixups PanelFixups(const QgemmStore& store, int64_t groups, int64_t group_stride) {
  QgemmPanelFixups fixups;
  if (store.fixup_begin == nullptr) return fixups;
  thread_local std::vector<int64_t> offsets;
  int32_t first = store.fixup_begin[0];
  while (first < store.fixup_begin[1] && store.fixup_group[first] < store.fixup_group0) ++first;
  int32_t last = first;
  while (last < store.fixup_begin[1] && store.fixup_group[last] < store.fixup_group0 + groups)
    ++last;
  fixups.count = last - first;
  if (fixups.count == 0) return fixups;
  if (static_cast<int64_t>(offsets.size()) < fixups.count)
    offsets.resize(static_cast<size_t>(fixups.count));
  for (int64_t f = 0; f < fixups.count; ++f)
    offsets[static_cast<size_t>(f)] =
        (store.fixup_group[first + f] - store.fixup_group0) * group_stride;
  fixups.data = store.fixup_data + int64_t{first} * kQgemmGroupBytes;
  fixups.offsets = offsets.data();
  return fixups;
}

// `tiles` 4-row tiles of a narrow or mixed B's product times one 16-column panel (cols of it
// used), requantized to store.out8 (`store`: the panel's, its rows from the first tile's). The
// panel's multipliers, terms and fix-up range are read once for all the tiles: for a product of
// small depth (1x1 convolutions of 16 to 32 channels) the per-tile call, QgemmStore::At and that
// set-up took about as long as the tile's multiplies (mobilenetv2_qdq's 16 -> 96 one, K = 16).
[[gnu::noinline]] void QgemmRequantizeTiles4x16(int64_t tiles, int64_t groups,
                                                const QgemmTileRows& rows, const int8_t* b,
                                                int64_t cols, const QgemmStore& store) {
  const __m256i ones = _mm256_set1_epi16(1);
  const PanelRequantizeAvx2 requantize(store, cols);
  const QgemmPanelFixups fixups = PanelFixups(store, groups, rows.group_stride);
  const uint8_t* a = rows.a;
  int64_t in_panel = 0;
  uint8_t* out = store.out8;
  const int32_t* row_sums = store.row_sums;
  const int64_t* offsets = store.group_order != nullptr
                               ? QgemmGroupOffsets(store.group_order, groups, rows.group_stride)
                               : nullptr;
  const int64_t paired = offsets != nullptr ? *store.paired_groups : 0;
  for (int64_t t = 0; t < tiles; ++t) {
    __m256i acc[4][2];
    for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
    if (offsets != nullptr)
      OrderedDepthLoop4x16(acc, groups, paired, a, offsets, rows.row_stride, b, ones);
    else
      NarrowDepthLoop4x16(acc, groups, a, rows.group_stride, rows.row_stride, b, ones);
    // The fix-ups as more single groups (narrow, mlas/qgemm.h), read through their offsets.
    IndexedDepthLoop4x16(acc, fixups.count, a, fixups.offsets, rows.row_stride, fixups.data, ones);
    requantize.Rows(acc, row_sums, out);
    out += 4 * requantize.Stride();
    if (row_sums != nullptr) row_sums += 4;
    a = rows.Next(a, in_panel);
  }
}
#endif

// The same tile of a wide product (mlas/qgemm.h): A's rows as int16 (row r's group at a + 8 r),
// B's weights as int16 pairs; vpmaddwd sums each pair of products into an int32 lane, exact for
// every input. The first depth pair of a group for all rows, then the second. The 4-row form's
// loop is written in assembly: gcc reassociated the adds of the two pairs (integer adds are
// associative), held eight products at once, spilled two accumulators and copied four between
// registers on every group (about 75 instructions a group where 46 do).
template <int kUsedRows = 4>
[[gnu::noinline]] void QgemmTileWide4x16(int64_t groups, const uint8_t* a, int64_t a_group_stride,
                                         const int8_t* b, int64_t rows, int64_t cols,
                                         const QgemmStore& store, int32_t* c, int64_t ldc) {
  __m256i acc[kUsedRows][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
  if constexpr (kUsedRows == 4) {
#if defined(__x86_64__)
    if (groups > 0) {
      __m256i b0, b1, x, product0, product1;
      // One row's step: broadcast its two int16 of the pair at A_OFFSET, multiply-add with both
      // B vectors into its two accumulators.
#define PRISM_WIDE_ROW(a_offset, acc0, acc1)   \
  "vpbroadcastd " #a_offset                    \
  "(%[a]), %[x]\n\t"                           \
  "vpmaddwd %[b0], %[x], %[product0]\n\t"      \
  "vpmaddwd %[b1], %[x], %[product1]\n\t"      \
  "vpaddd %[product0], %[" #acc0 "], %[" #acc0 \
  "]\n\t"                                      \
  "vpaddd %[product1], %[" #acc1 "], %[" #acc1 "]\n\t"
      asm volatile(
          "1:\n\t"
          "vmovdqu (%[b]), %[b0]\n\t"
          "vmovdqu 32(%[b]), %[b1]\n\t"
          PRISM_WIDE_ROW(0, acc00, acc01)
          PRISM_WIDE_ROW(8, acc10, acc11)
          PRISM_WIDE_ROW(16, acc20, acc21)
          PRISM_WIDE_ROW(24, acc30, acc31)
          "vmovdqu 64(%[b]), %[b0]\n\t"
          "vmovdqu 96(%[b]), %[b1]\n\t"
          PRISM_WIDE_ROW(4, acc00, acc01)
          PRISM_WIDE_ROW(12, acc10, acc11)
          PRISM_WIDE_ROW(20, acc20, acc21)
          PRISM_WIDE_ROW(28, acc30, acc31)
          "add %[a_step], %[a]\n\t"
          "sub $-128, %[b]\n\t"
          "dec %[groups]\n\t"
          "jnz 1b\n\t"
          : [acc00] "+x"(acc[0][0]), [acc01] "+x"(acc[0][1]), [acc10] "+x"(acc[1][0]),
            [acc11] "+x"(acc[1][1]), [acc20] "+x"(acc[2][0]), [acc21] "+x"(acc[2][1]),
            [acc30] "+x"(acc[3][0]), [acc31] "+x"(acc[3][1]), [b0] "=&x"(b0), [b1] "=&x"(b1),
            [x] "=&x"(x), [product0] "=&x"(product0), [product1] "=&x"(product1), [a] "+r"(a),
            [b] "+r"(b), [groups] "+r"(groups)
          : [a_step] "r"(a_group_stride)
          : "cc", "memory");
#undef PRISM_WIDE_ROW
    }
    StoreQgemmTileAvx2(acc, rows, cols, store, c, ldc);
    return;
#endif
  }
  for (int64_t g = 0; g < groups; ++g) {
#pragma GCC unroll 2
    for (int pair = 0; pair < 2; ++pair) {
      const int8_t* bp = b + pair * kQgemmGroupBytes;
      const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp));
      const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp + 32));
#pragma GCC unroll 4
      for (int r = 0; r < kUsedRows; ++r) {
        int32_t two;
        std::memcpy(&two, a + 8 * r + 4 * pair, sizeof two);
        const __m256i x = _mm256_set1_epi32(two);
        acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, b0));
        acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, b1));
      }
    }
    a += a_group_stride;
    b += 2 * kQgemmGroupBytes;
  }
  StoreQgemmTileAvx2(acc, rows, cols, store, c, ldc);
}

#if defined(__x86_64__)
// Six rows of a wide product against one 16-column panel, in assembly (the loop of the 4-row
// form above with two more rows): twelve accumulators, B's two vectors, the broadcast and one
// product in the sixteen ymm registers. Per depth group 16 loads for 24 vpmaddwd, where the
// 4-row tile does 12 for 16.
// The 6-row wide depth loop (groups > 0), its sums stored to acc.
[[gnu::always_inline]] inline void WideDepthLoop6x16(__m256i (&acc)[6][2], int64_t groups,
                                                     const uint8_t* a, int64_t a_group_stride,
                                                     const int8_t* b) {
#define PRISM_WIDE_ROW(a_offset, acc0, acc1)    \
  "vpbroadcastd " #a_offset                     \
  "(%[a]), %%ymm14\n\t"                         \
  "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"      \
  "vpaddd %%ymm15, %%ymm" #acc0 ", %%ymm" #acc0 \
  "\n\t"                                        \
  "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"      \
  "vpaddd %%ymm15, %%ymm" #acc1 ", %%ymm" #acc1 "\n\t"
#define PRISM_ZERO(r) "vpxor %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define PRISM_PUT(r) "vmovdqa %%ymm" #r ", " #r "*32(%[acc])\n\t"
  asm volatile(
        PRISM_ZERO(0) PRISM_ZERO(1) PRISM_ZERO(2) PRISM_ZERO(3) PRISM_ZERO(4) PRISM_ZERO(5)
        PRISM_ZERO(6) PRISM_ZERO(7) PRISM_ZERO(8) PRISM_ZERO(9) PRISM_ZERO(10) PRISM_ZERO(11)
        "1:\n\t"
        "vmovdqu (%[b]), %%ymm12\n\t"
        "vmovdqu 32(%[b]), %%ymm13\n\t"
        PRISM_WIDE_ROW(0, 0, 1)
        PRISM_WIDE_ROW(8, 2, 3)
        PRISM_WIDE_ROW(16, 4, 5)
        PRISM_WIDE_ROW(24, 6, 7)
        PRISM_WIDE_ROW(32, 8, 9)
        PRISM_WIDE_ROW(40, 10, 11)
        "vmovdqu 64(%[b]), %%ymm12\n\t"
        "vmovdqu 96(%[b]), %%ymm13\n\t"
        PRISM_WIDE_ROW(4, 0, 1)
        PRISM_WIDE_ROW(12, 2, 3)
        PRISM_WIDE_ROW(20, 4, 5)
        PRISM_WIDE_ROW(28, 6, 7)
        PRISM_WIDE_ROW(36, 8, 9)
        PRISM_WIDE_ROW(44, 10, 11)
        "add %[a_step], %[a]\n\t"
        "sub $-128, %[b]\n\t"
        "dec %[groups]\n\t"
        "jnz 1b\n\t"
        PRISM_PUT(0) PRISM_PUT(1) PRISM_PUT(2) PRISM_PUT(3) PRISM_PUT(4) PRISM_PUT(5)
        PRISM_PUT(6) PRISM_PUT(7) PRISM_PUT(8) PRISM_PUT(9) PRISM_PUT(10) PRISM_PUT(11)
        : [a] "+r"(a), [b] "+r"(b), [groups] "+r"(groups)
        : [a_step] "r"(a_group_stride), [acc] "r"(&acc[0][0])
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
          "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#undef PRISM_PUT
#undef PRISM_ZERO
#undef PRISM_WIDE_ROW
}

[[gnu::noinline]] void QgemmTileWide6x16(int64_t groups, const uint8_t* a, int64_t a_group_stride,
                                         const int8_t* b, int64_t rows, int64_t cols,
                                         const QgemmStore& store, int32_t* c, int64_t ldc) {
  // The accumulators live in ymm0-11 (b0, b1: ymm12-13, the broadcast ymm14, the product ymm15)
  // and are stored to acc at the end: as operands, twelve read-write vectors exceed asm's 30.
  alignas(32) __m256i acc[6][2];
  if (groups <= 0) {
    for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
  } else {
    WideDepthLoop6x16(acc, groups, a, a_group_stride, b);
  }
  StoreQgemmTileAvx2(acc, rows, cols, store, c, ldc);
}
#endif

#if defined(__x86_64__)
// `tiles` 6-row tiles of a wide product times one 16-column panel, requantized as
// QgemmRequantizeTiles4x16 does (the same per-tile costs it saves).
[[gnu::noinline]] void QgemmRequantizeTilesWide6x16(int64_t tiles, int64_t groups,
                                                    const QgemmTileRows& rows, const int8_t* b,
                                                    int64_t cols, const QgemmStore& store) {
  const PanelRequantizeAvx2 requantize(store, cols);
  const uint8_t* a = rows.a;
  int64_t in_panel = 0;
  uint8_t* out = store.out8;
  const int32_t* row_sums = store.row_sums;
  for (int64_t t = 0; t < tiles; ++t) {
    alignas(32) __m256i acc[6][2];
    WideDepthLoop6x16(acc, groups, a, rows.group_stride, b);
    requantize.Rows(acc, row_sums, out);
    out += 6 * requantize.Stride();
    if (row_sums != nullptr) row_sums += 6;
    a = rows.Next(a, in_panel);
  }
}
#endif

// The macro-kernel on panels of kRows rows (a multiple of 4): panels of B outside, so that one
// panel (its depth block's 64 bytes a group, 128 wide) is read from L1 or L2 by every row tile of
// A's block in turn.
template <int64_t kRows>
void QgemmBlockAvx2(int64_t m, int64_t n, int64_t groups, const uint8_t* a, int64_t a_panel_stride,
                    const int8_t* b, int64_t b_panel_stride, bool wide, const QgemmStore& store,
                    int32_t* c, int64_t ldc) {
  const int64_t value_bytes = wide ? 2 : 1;
  for (int64_t j = 0; j < n; j += kQgemmCols) {
    const int8_t* panel = b + j / kQgemmCols * b_panel_stride;
    const int64_t cols = std::min(kQgemmCols, n - j);
    // A wide product on 12-row panels goes 6 rows a tile (the 6-row tile for 5 or 6 rows).
    const int64_t step = wide && kRows % 6 == 0 ? 6 : 4;
    int64_t i = 0;
#if defined(__x86_64__)
    if (!wide && store.out8 != nullptr) {
      // A requantizing narrow or mixed product: the whole 4-row tiles in two calls, those of A's
      // rows read in place (whole panels) and those of the packed panels.
      const int64_t in_place = store.a_rows != nullptr ? m / kRows * kRows : 0;
      if (in_place > 0)
        QgemmRequantizeTiles4x16(in_place / 4, groups,
                                 QgemmTileRows{store.a_rows, in_place / 4, 4 * store.a_stride, 0,
                                               kQgemmGroup, store.a_stride},
                                 panel, cols, store.At(0, j));
      const int64_t packed_tiles = (m - in_place) / 4;
      if (packed_tiles > 0)
        QgemmRequantizeTiles4x16(packed_tiles, groups,
                                 QgemmTileRows{a + in_place / kRows * a_panel_stride, kRows / 4, 16,
                                               a_panel_stride, kRows * 4, 4},
                                 panel, cols, store.At(in_place, j));
      i = in_place + 4 * packed_tiles;
    } else if (wide && kRows % 6 == 0 && store.out8 != nullptr && groups > 0) {
      // A requantizing wide product: its whole 6-row tiles in one call.
      const int64_t tiles = m / 6;
      if (tiles > 0)
        QgemmRequantizeTilesWide6x16(
            tiles, groups, QgemmTileRows{a, kRows / 6, 6 * 8, a_panel_stride, kRows * 8, 8}, panel,
            cols, store.At(0, j));
      i = 6 * tiles;
    }
#endif
    for (; i < m; i += step) {
      const uint8_t* rows = a + i / kRows * a_panel_stride + i % kRows * 4 * value_bytes;
      const int64_t stride = kRows * 4 * value_bytes;
      const int64_t count = std::min<int64_t>(step, m - i);
      const QgemmStore tile_store = store.At(i, j);
      int32_t* tile = c + i * ldc + j;
#if defined(__x86_64__)
      if (count > 4) {
        QgemmTileWide6x16(groups, rows, stride, panel, count, cols, tile_store, tile, ldc);
        continue;
      }
#endif
      if (wide)
        count == 1
            ? QgemmTileWide4x16<1>(groups, rows, stride, panel, 1, cols, tile_store, tile, ldc)
        : count == 2
            ? QgemmTileWide4x16<2>(groups, rows, stride, panel, 2, cols, tile_store, tile, ldc)
            : QgemmTileWide4x16(groups, rows, stride, panel, count, cols, tile_store, tile, ldc);
      else if (store.a_rows != nullptr && (i / kRows + 1) * kRows <= m)
        // A's rows where they are (QgemmStore::a_rows) for a whole panel's tiles: 4 bytes a
        // group, rows a_stride apart.
        QgemmTile4x16(groups, store.a_rows + i * store.a_stride, kQgemmGroup, store.a_stride, panel,
                      count, cols, tile_store, tile, ldc);
      else
        count == 1
            ? QgemmTile4x16<1>(groups, rows, stride, 4, panel, 1, cols, tile_store, tile, ldc)
        : count == 2
            ? QgemmTile4x16<2>(groups, rows, stride, 4, panel, 2, cols, tile_store, tile, ldc)
            : QgemmTile4x16(groups, rows, stride, 4, panel, count, cols, tile_store, tile, ldc);
    }
  }
}

#if !defined(__AVX512F__) && PRISM_QGEMM_VNNI
// AVX-VNNI (Intel since Alder Lake, AMD Zen 5): vpdpbusd on ymm, VEX-encoded, four u8 x s8
// products summed into each int32 lane with no intermediate saturation, so exact for every
// input; the same 4 x 16 tiles. Only these functions are compiled with AVX-VNNI (the pragma), and
// they run only after a CPUID check (qgemm_vnni_usable). The AVX-512 unit has its own (zmm).
#pragma GCC push_options
#pragma GCC target("avxvnni")

template <int kUsedRows = 4>  // kUsedRows and noinline as in QgemmTile4x16
[[gnu::noinline]] void QgemmTileAvxVnni4x16(int64_t groups, const uint8_t* a,
                                            int64_t a_group_stride, const int8_t* b,
                                            int32_t* sums) {
  __m256i acc[kUsedRows][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
#pragma GCC unroll 4
    for (int r = 0; r < kUsedRows; ++r) {
      int32_t quad;
      std::memcpy(&quad, a + 4 * r, sizeof quad);
      const __m256i x = _mm256_set1_epi32(quad);
      acc[r][0] = _mm256_dpbusd_avx_epi32(acc[r][0], x, b0);
      acc[r][1] = _mm256_dpbusd_avx_epi32(acc[r][1], x, b1);
    }
    a += a_group_stride;
    b += kQgemmGroupBytes;
  }
  for (int r = 0; r < kUsedRows; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r * kQgemmCols), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r * kQgemmCols + 8), acc[r][1]);
  }
}

// Never given a wide B (the product runs qgemm_block for one; mlas/qgemm.h): `wide` is false.
template <int64_t kRows>
void QgemmBlockAvxVnni(int64_t m, int64_t n, int64_t groups, const uint8_t* a,
                       int64_t a_panel_stride, const int8_t* b, int64_t b_panel_stride,
                       [[maybe_unused]] bool wide, const QgemmStore& store, int32_t* c,
                       int64_t ldc) {
  alignas(32) int32_t sums[4 * kQgemmCols];
  for (int64_t j = 0; j < n; j += kQgemmCols) {
    const int8_t* panel = b + j / kQgemmCols * b_panel_stride;
    const int64_t cols = std::min(kQgemmCols, n - j);
    for (int64_t i = 0; i < m; i += 4) {
      const uint8_t* rows = a + i / kRows * a_panel_stride + i % kRows * 4;
      const int64_t count = std::min<int64_t>(4, m - i);
      count == 1   ? QgemmTileAvxVnni4x16<1>(groups, rows, kRows * 4, panel, sums)
      : count == 2 ? QgemmTileAvxVnni4x16<2>(groups, rows, kRows * 4, panel, sums)
                   : QgemmTileAvxVnni4x16(groups, rows, kRows * 4, panel, sums);
      StoreQgemmTile(count, cols, sums, store.At(i, j), c + i * ldc + j, ldc);
    }
  }
}

#pragma GCC pop_options

bool CpuHasAvxVnni() {
  static const bool has = __builtin_cpu_supports("avxvnni");
  return has;
}
#endif
#else
// Portable: the same sums in plain integers (products fit in int32; the sums wrap as uint32); a
// wide product's A and B as int16 (mlas/qgemm.h).
template <int64_t kRows>
void QgemmBlockPortable(int64_t m, int64_t n, int64_t groups, const uint8_t* a,
                        int64_t a_panel_stride, const int8_t* b, int64_t b_panel_stride, bool wide,
                        const QgemmStore& store, int32_t* c, int64_t ldc) {
  const int64_t group_bytes = wide ? 2 * kQgemmGroupBytes : kQgemmGroupBytes;
  // Value t of row r in group g of A's panel, and weight t of column col in a group of B.
  const auto a_value = [wide](const uint8_t* panel, int64_t g, int64_t r, int64_t t) -> int32_t {
    const int64_t at = (g * kRows + r) * kQgemmGroup + t;
    if (!wide) return panel[at];
    int16_t value;
    std::memcpy(&value, panel + 2 * at, sizeof value);
    return value;
  };
  const auto b_value = [](const int8_t* group, int64_t col, int64_t t, bool wide) -> int32_t {
    if (!wide) return group[col * kQgemmGroup + t];
    int16_t value;
    std::memcpy(&value, group + 2 * (t / 2 * 2 * kQgemmCols + col * 2 + t % 2), sizeof value);
    return value;
  };
  int32_t sums[kRows * kQgemmCols];
  for (int64_t j = 0; j < n; j += kQgemmCols) {
    const int8_t* panel = b + j / kQgemmCols * b_panel_stride;
    for (int64_t i = 0; i < m; i += kRows) {
      const uint8_t* rows = a + i / kRows * a_panel_stride;
      uint32_t acc[kRows * kQgemmCols] = {};
      const QgemmStore tile_store = store.At(i, j);
      for (int64_t g = 0; g < groups; ++g) {
        const int8_t* bg = panel + g * group_bytes;
        // A's group for stored group g (a B with paired groups stores them reordered).
        const int64_t ga = tile_store.group_order != nullptr ? tile_store.group_order[g] : g;
        for (int64_t r = 0; r < kRows; ++r)
          for (int64_t col = 0; col < kQgemmCols; ++col) {
            int32_t dot = 0;
            for (int64_t t = 0; t < kQgemmGroup; ++t)
              dot += a_value(rows, ga, r, t) * b_value(bg, col, t, wide);
            acc[r * kQgemmCols + col] += static_cast<uint32_t>(dot);
          }
      }
      // A mixed B's fix-ups (mlas/qgemm.h): the split blocks' rest, narrow.
      if (tile_store.fixup_begin != nullptr)
        for (int32_t f = tile_store.fixup_begin[0]; f < tile_store.fixup_begin[1]; ++f) {
          const int64_t g = tile_store.fixup_group[f] - tile_store.fixup_group0;
          if (g < 0 || g >= groups) continue;
          const int8_t* w = tile_store.fixup_data + int64_t{f} * kQgemmGroupBytes;
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t col = 0; col < kQgemmCols; ++col) {
              int32_t dot = 0;
              for (int64_t t = 0; t < kQgemmGroup; ++t)
                dot += a_value(rows, g, r, t) * b_value(w, col, t, false);
              acc[r * kQgemmCols + col] += static_cast<uint32_t>(dot);
            }
        }
      for (int64_t v = 0; v < kRows * kQgemmCols; ++v) sums[v] = static_cast<int32_t>(acc[v]);
      StoreQgemmTile(std::min(kRows, m - i), std::min(kQgemmCols, n - j), sums, tile_store,
                     c + i * ldc + j, ldc);
    }
  }
}

#endif

// isa_kernels.h's depthwise_nhwc_s32, one output pixel at a time: the pixel's taps inside the
// image first (input and weight pointers), then on AVX-512 and AVX2 the channels four, two and
// then one vector at a time, each held in a register over the taps (independent chains of
// multiply-adds), then (and on the baseline level) the rest one channel at a time. Two
// neighbouring pixels whose taps all lie inside run together (their chains share the weight
// loads: narrow layers have few channels to spread chains over). Each shifted value x - x_zero
// and weight is an integer of magnitude <= 255, so each product is an integer below 2^16: up to
// 256 taps every partial sum stays below 2^24 and the vectors sum in float (fused multiply-adds:
// exact), beyond that in int32.
template <typename X>
void DepthwiseNhwcRow(const void* const* rows, const int64_t* columns, int64_t kernel_h,
                      int64_t kernel_w, int64_t out_w, const float* weights, int64_t channels,
                      int32_t x_zero, int32_t* sums) {
  const int64_t kernel_size = kernel_h * kernel_w;
  [[maybe_unused]] const bool in_float = kernel_size <= 256;
  // Taps of pixels a and b: input pointers (weights: tap_w, the same for two whole windows).
  std::vector<const X*> a_x(static_cast<size_t>(kernel_size)), b_x(a_x.size());
  std::vector<const float*> tap_w(a_x.size()), b_w(a_x.size());
  const auto list_taps = [&](int64_t ow, const X** xs, const float** ws) {
    const int64_t* pixel_columns = columns + ow * kernel_w;
    size_t taps = 0;
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      if (rows[kh] == nullptr) continue;
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        if (pixel_columns[kw] < 0) continue;
        xs[taps] = static_cast<const X*>(rows[kh]) + pixel_columns[kw];
        ws[taps] = weights + (kh * kernel_w + kw) * channels;
        ++taps;
      }
    }
    return taps;
  };
  // The rest of a pixel's channels from c0 on, one at a time.
  const auto scalar = [&](int64_t c0, const X* const* xs, const float* const* ws, size_t taps,
                          int32_t* out) {
    for (int64_t c = c0; c < channels; ++c) {
      uint32_t acc = 0;
      for (size_t t = 0; t < taps; ++t)
        acc += static_cast<uint32_t>((static_cast<int32_t>(xs[t][c]) - x_zero) *
                                     static_cast<int32_t>(ws[t][c]));
      out[c] = static_cast<int32_t>(acc);
    }
  };
#if defined(__AVX512F__) || defined(__AVX2__)
#if defined(__AVX512F__)
  using FloatVector = __m512;
  using IntVector = __m512i;
  constexpr int64_t kLanes = 16;
  const auto widen = [](const X* x) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
    return std::is_signed_v<X> ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
  };
  const auto load_float = [](const float* w) { return _mm512_loadu_ps(w); };
  const auto to_float = [](IntVector v) { return _mm512_cvtepi32_ps(v); };
  const auto fma = [](FloatVector a, FloatVector b, FloatVector c) {
    return _mm512_fmadd_ps(a, b, c);
  };
  const auto sub_float = [](FloatVector a, FloatVector b) { return _mm512_sub_ps(a, b); };
  const auto store_rounded = [](int32_t* out, FloatVector v) {
    _mm512_storeu_si512(out, _mm512_cvtps_epi32(v));
  };
  const FloatVector float_zeros = _mm512_set1_ps(static_cast<float>(x_zero));
  const FloatVector float_none = _mm512_setzero_ps();
  const IntVector zeros = _mm512_set1_epi32(x_zero);
  const auto int_tap = [&](IntVector acc, const X* x, const float* w) {
    const IntVector weight = _mm512_cvtps_epi32(_mm512_loadu_ps(w));
    return _mm512_add_epi32(acc, _mm512_mullo_epi32(_mm512_sub_epi32(widen(x), zeros), weight));
  };
  const auto store_int = [](int32_t* out, IntVector v) { _mm512_storeu_si512(out, v); };
  const IntVector int_none = _mm512_setzero_si512();
#else
  using FloatVector = __m256;
  using IntVector = __m256i;
  constexpr int64_t kLanes = 8;
  const auto widen = [](const X* x) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x));
    return std::is_signed_v<X> ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
  };
  const auto load_float = [](const float* w) { return _mm256_loadu_ps(w); };
  const auto to_float = [](IntVector v) { return _mm256_cvtepi32_ps(v); };
  const auto fma = [](FloatVector a, FloatVector b, FloatVector c) {
    return _mm256_fmadd_ps(a, b, c);
  };
  const auto sub_float = [](FloatVector a, FloatVector b) { return _mm256_sub_ps(a, b); };
  const auto store_rounded = [](int32_t* out, FloatVector v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_cvtps_epi32(v));
  };
  const FloatVector float_zeros = _mm256_set1_ps(static_cast<float>(x_zero));
  const FloatVector float_none = _mm256_setzero_ps();
  const IntVector zeros = _mm256_set1_epi32(x_zero);
  const auto int_tap = [&](IntVector acc, const X* x, const float* w) {
    const IntVector weight = _mm256_cvtps_epi32(_mm256_loadu_ps(w));
    return _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_sub_epi32(widen(x), zeros), weight));
  };
  const auto store_int = [](int32_t* out, IntVector v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
  };
  const IntVector int_none = _mm256_setzero_si256();
#endif
  const auto shifted = [&](const X* x) { return sub_float(to_float(widen(x)), float_zeros); };
#endif
  for (int64_t ow = 0; ow < out_w;) {
    int32_t* pixel_sums = sums + ow * channels;
    const size_t taps = list_taps(ow, a_x.data(), tap_w.data());
    int64_t c0 = 0;
#if defined(__AVX512F__) || defined(__AVX2__)
    if (in_float && taps == static_cast<size_t>(kernel_size) && ow + 1 < out_w &&
        list_taps(ow + 1, b_x.data(), b_w.data()) == taps) {
      // Pixels ow and ow + 1, whole windows: the same weights, four chains two vectors wide.
      int32_t* next_sums = pixel_sums + channels;
      for (; c0 + 2 * kLanes <= channels; c0 += 2 * kLanes) {
        FloatVector a0 = float_none, a1 = float_none, b0 = float_none, b1 = float_none;
        for (size_t t = 0; t < taps; ++t) {
          const X* xa = a_x[t] + c0;
          const X* xb = b_x[t] + c0;
          const FloatVector w0 = load_float(tap_w[t] + c0);
          const FloatVector w1 = load_float(tap_w[t] + c0 + kLanes);
          a0 = fma(shifted(xa), w0, a0);
          a1 = fma(shifted(xa + kLanes), w1, a1);
          b0 = fma(shifted(xb), w0, b0);
          b1 = fma(shifted(xb + kLanes), w1, b1);
        }
        store_rounded(pixel_sums + c0, a0);
        store_rounded(pixel_sums + c0 + kLanes, a1);
        store_rounded(next_sums + c0, b0);
        store_rounded(next_sums + c0 + kLanes, b1);
      }
      for (; c0 + kLanes <= channels; c0 += kLanes) {
        FloatVector a0 = float_none, b0 = float_none;
        for (size_t t = 0; t < taps; ++t) {
          const FloatVector w0 = load_float(tap_w[t] + c0);
          a0 = fma(shifted(a_x[t] + c0), w0, a0);
          b0 = fma(shifted(b_x[t] + c0), w0, b0);
        }
        store_rounded(pixel_sums + c0, a0);
        store_rounded(next_sums + c0, b0);
      }
      scalar(c0, a_x.data(), tap_w.data(), taps, pixel_sums);
      scalar(c0, b_x.data(), b_w.data(), taps, next_sums);
      ow += 2;
      continue;
    }
    if (in_float) {
      for (; c0 + 4 * kLanes <= channels; c0 += 4 * kLanes) {
        FloatVector acc0 = float_none, acc1 = float_none, acc2 = float_none, acc3 = float_none;
        for (size_t t = 0; t < taps; ++t) {
          const X* x = a_x[t] + c0;
          const float* w = tap_w[t] + c0;
          acc0 = fma(shifted(x), load_float(w), acc0);
          acc1 = fma(shifted(x + kLanes), load_float(w + kLanes), acc1);
          acc2 = fma(shifted(x + 2 * kLanes), load_float(w + 2 * kLanes), acc2);
          acc3 = fma(shifted(x + 3 * kLanes), load_float(w + 3 * kLanes), acc3);
        }
        store_rounded(pixel_sums + c0, acc0);
        store_rounded(pixel_sums + c0 + kLanes, acc1);
        store_rounded(pixel_sums + c0 + 2 * kLanes, acc2);
        store_rounded(pixel_sums + c0 + 3 * kLanes, acc3);
      }
      for (; c0 + 2 * kLanes <= channels; c0 += 2 * kLanes) {
        FloatVector acc0 = float_none, acc1 = float_none;
        for (size_t t = 0; t < taps; ++t) {
          const X* x = a_x[t] + c0;
          const float* w = tap_w[t] + c0;
          acc0 = fma(shifted(x), load_float(w), acc0);
          acc1 = fma(shifted(x + kLanes), load_float(w + kLanes), acc1);
        }
        store_rounded(pixel_sums + c0, acc0);
        store_rounded(pixel_sums + c0 + kLanes, acc1);
      }
      for (; c0 + kLanes <= channels; c0 += kLanes) {
        FloatVector acc = float_none;
        for (size_t t = 0; t < taps; ++t)
          acc = fma(shifted(a_x[t] + c0), load_float(tap_w[t] + c0), acc);
        store_rounded(pixel_sums + c0, acc);
      }
    } else {
      for (; c0 + kLanes <= channels; c0 += kLanes) {
        IntVector acc = int_none;
        for (size_t t = 0; t < taps; ++t) acc = int_tap(acc, a_x[t] + c0, tap_w[t] + c0);
        store_int(pixel_sums + c0, acc);
      }
    }
#endif
    scalar(c0, a_x.data(), tap_w.data(), taps, pixel_sums);
    ++ow;
  }
}

#if defined(__AVX2__)
// depthwise_nhwc_q8 (isa_kernels.h): a pixel's taps as pointers advanced by `step` a pixel; per
// block of 16 channels, each pair of taps' bytes widened to int16 and interleaved (vpunpck{l,h}wd:
// channels {0-3, 8-11} and {4-7, 12-15}, the packed weights' order), multiplied with vpmaddwd
// (exact: |x| <= 255, |w| <= 255), then requantized as RequantizeLanesAvx2 and packed back to
// channel order.
template <bool kSigned>
void DepthwiseNhwcQ8Of(const DepthwiseQ8Row& r) {
  const int64_t taps = r.kernel_h * r.kernel_w, pairs = (taps + 1) / 2;
  const int64_t blocks = r.channels / kDepthwiseQ8Block;
  const uint8_t* at[kDepthwiseQ8MaxTaps + 1];
  for (int64_t t = 0; t < taps; ++t)
    at[t] = r.rows[t / r.kernel_w] + r.first + (t % r.kernel_w) * r.dilation;
  at[taps] = at[taps - 1];  // an odd last tap's partner (zero weights)
  const RequantizeRangeAvx2 range = RequantizeRangeAvx2::For(r.y_zero, r.y_signed);
  const __m256i low_bytes =
      _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1, 0, 2, 4, 6, 8, 10,
                       12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
  const auto widen = [](const uint8_t* x) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
    return kSigned ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
  };
  // Requantizes a block's two sum vectors (channels {0-3, 8-11}, {4-7, 12-15}) to its 16 bytes
  // in channel order: words ({0-3, 4-7} | {8-11, 12-15}), their low bytes gathered.
  const auto store_block = [&](__m256i acc_low, __m256i acc_high, __m256 scale_low,
                               __m256 scale_high, uint8_t* out) {
    const __m256i value_low = RequantizeLanesAvx2(acc_low, scale_low, range);
    const __m256i value_high = RequantizeLanesAvx2(acc_high, scale_high, range);
    const __m256i bytes = _mm256_shuffle_epi8(_mm256_packs_epi32(value_low, value_high), low_bytes);
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(out),
        _mm_unpacklo_epi64(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1)));
  };
  // Two pixels at a time: each pair of taps' pointers and weights serve both (a 3x3 kernel's
  // loop spent about half its instructions on them one pixel at a time).
  int64_t i = 0;
  for (; i + 2 <= r.pixels; i += 2) {
    const int64_t pixel = i * r.step, next = pixel + r.step;
    uint8_t* out = r.out + i * r.channels;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c = b * kDepthwiseQ8Block;
      const __m256i term_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.terms + c));
      const __m256i term_high =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.terms + c + 8));
      __m256i low0 = term_low, high0 = term_high, low1 = term_low, high1 = term_high;
      const int16_t* w = r.weights + b * pairs * 2 * kDepthwiseQ8Block;
      for (int64_t p = 0; p < pairs; ++p, w += 2 * kDepthwiseQ8Block) {
        const __m256i w_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
        const __m256i w_high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16));
        const uint8_t* first = at[2 * p] + c;
        const uint8_t* second = at[2 * p + 1] + c;
        const __m256i xa0 = widen(first + pixel), xb0 = widen(second + pixel);
        const __m256i xa1 = widen(first + next), xb1 = widen(second + next);
        low0 = _mm256_add_epi32(low0, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa0, xb0), w_low));
        high0 = _mm256_add_epi32(high0, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa0, xb0), w_high));
        low1 = _mm256_add_epi32(low1, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa1, xb1), w_low));
        high1 = _mm256_add_epi32(high1, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa1, xb1), w_high));
      }
      const __m256 scale_low = _mm256_loadu_ps(r.multipliers + c);
      const __m256 scale_high = _mm256_loadu_ps(r.multipliers + c + 8);
      store_block(low0, high0, scale_low, scale_high, out + c);
      store_block(low1, high1, scale_low, scale_high, out + r.channels + c);
    }
  }
  for (; i < r.pixels; ++i) {
    const int64_t pixel = i * r.step;
    uint8_t* out = r.out + i * r.channels;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c = b * kDepthwiseQ8Block;
      __m256i acc_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.terms + c));
      __m256i acc_high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.terms + c + 8));
      const int16_t* w = r.weights + b * pairs * 2 * kDepthwiseQ8Block;
      for (int64_t p = 0; p < pairs; ++p, w += 2 * kDepthwiseQ8Block) {
        const __m256i xa = widen(at[2 * p] + pixel + c);
        const __m256i xb = widen(at[2 * p + 1] + pixel + c);
        acc_low = _mm256_add_epi32(
            acc_low, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))));
        acc_high = _mm256_add_epi32(
            acc_high,
            _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb),
                              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16))));
      }
      store_block(acc_low, acc_high, _mm256_loadu_ps(r.multipliers + c),
                  _mm256_loadu_ps(r.multipliers + c + 8), out + c);
    }
  }
}

void DepthwiseNhwcQ8(const DepthwiseQ8Row& row) {
  row.x_signed ? DepthwiseNhwcQ8Of<true>(row) : DepthwiseNhwcQ8Of<false>(row);
}
#endif

void DepthwiseNhwcS32(const void* const* rows, const int64_t* columns, int64_t kernel_h,
                      int64_t kernel_w, int64_t out_w, const float* weights, int64_t channels,
                      int32_t x_zero, bool x_signed, int32_t* sums) {
  x_signed ? DepthwiseNhwcRow<int8_t>(rows, columns, kernel_h, kernel_w, out_w, weights, channels,
                                      x_zero, sums)
           : DepthwiseNhwcRow<uint8_t>(rows, columns, kernel_h, kernel_w, out_w, weights, channels,
                                       x_zero, sums);
}

#include "mlas/isa/nchwc_kernels.h"
#include "mlas/isa/nchwc_winograd_kernels.h"

#if defined(__AVX512F__)
#include "mlas/isa/sgemm_avx512.h"
#endif
#if defined(__AVX512F__)
#include "mlas/isa/depthwise_q8_avx512.h"
#include "mlas/isa/qgemm_amx.h"
#include "mlas/isa/qgemm_avx512.h"
#endif

}  // namespace

extern const IsaKernels kKernels;
#if defined(__AVX512F__)
const IsaKernels kKernels = {.sgemm_tile_rows = kWideTileRows,
                             .sgemm_tile_cols = kWideTileCols,
                             .sgemm_depth_block = kSgemmDepthBlockAvx512,
                             .sgemm_prepacked_a_block_bytes = 0,
                             .sgemm_pack_a = &SgemmPackA,
                             .sgemm_pack_b = &SgemmPackB,
                             .sgemm_block = &SgemmBlockAvx512,
                             .gemv_rows_f32 = &GemvRowsF32,
                             .gemv_cols_f32 = &GemvColsF32,
                             .fma_probe_f32 = &FmaProbeF32Avx512,
                             .qgemm_tile_rows = kQgemmTileRowsAvx512,
                             .qgemm_block_saturates = true,
                             .qgemm_block = &QgemmBlockAvx2<kQgemmTileRowsAvx512>,
#if PRISM_QGEMM_VNNI
                             .qgemm_vnni_usable = &CpuHasAvx512Vnni,
                             .qgemm_block_vnni = &QgemmBlockVnni,
#else
                             .qgemm_vnni_usable = nullptr,
                             .qgemm_block_vnni = nullptr,
#endif
#else
const IsaKernels kKernels = {.sgemm_tile_rows = kTileRows,
                             .sgemm_tile_cols = kTileCols,
                             .sgemm_depth_block = kSgemmDepthBlock,
#if defined(__AVX2__)
                             .sgemm_prepacked_a_block_bytes = kSgemmPrepackedABlockBytes,
#else
                             .sgemm_prepacked_a_block_bytes = 0,
#endif
                             .sgemm_pack_a = &SgemmPackA,
                             .sgemm_pack_b = &SgemmPackB,
                             .sgemm_block = &SgemmBlock,
                             .gemv_rows_f32 = &GemvRowsF32,
                             .gemv_cols_f32 = &GemvColsF32,
                             .fma_probe_f32 = &FmaProbeF32,
#if defined(__AVX2__)
                             .qgemm_tile_rows = 12,
                             .qgemm_block_saturates = true,
                             .qgemm_block = &QgemmBlockAvx2<12>,
#if PRISM_QGEMM_VNNI
                             .qgemm_vnni_usable = &CpuHasAvxVnni,
                             .qgemm_block_vnni = &QgemmBlockAvxVnni<12>,
#else
                             .qgemm_vnni_usable = nullptr,
                             .qgemm_block_vnni = nullptr,
#endif
#else
                             .qgemm_tile_rows = 4,
                             .qgemm_block_saturates = false,
                             .qgemm_block = &QgemmBlockPortable<4>,
                             .qgemm_vnni_usable = nullptr,
                             .qgemm_block_vnni = nullptr,
#endif
#endif
#if defined(__AVX512F__) && PRISM_QGEMM_VNNI
                             .qgemm_vnni_requantizes = true,
#else
                             .qgemm_vnni_requantizes = false,
#endif
#if defined(__AVX2__)
                             .qgemm_block_requantizes = true,
                             .qgemm_block_reads_a_rows = true,
#else
                             .qgemm_block_requantizes = false,
                             .qgemm_block_reads_a_rows = false,
#endif
#if defined(__AVX512F__) && PRISM_QGEMM_AMX
                             .qgemm_amx_usable = &CpuHasAmxInt8,
                             .qgemm_amx = &QgemmBlockAmx,
#else
                             .qgemm_amx_usable = nullptr,
                             .qgemm_amx = nullptr,
#endif
#if defined(__AVX2__)
                             .requantize_row_s32 = &RequantizeRowS32,
                             .requantize_channels_f32 = &RequantizeChannelsF32,
                             .qlinear_add_u8 = &QLinearAddU8,
                             .qlinear_add_s8 = &QLinearAddS8,
#else
                             .requantize_row_s32 = nullptr,
                             .requantize_channels_f32 = nullptr,
                             .qlinear_add_u8 = nullptr,
                             .qlinear_add_s8 = nullptr,
#endif
                             .gemm_accumulate_f64 = &GemmAccumulate<double>,
                             .scaled_add_f32 = &ScaledAdd<float>,
                             .scaled_add_f64 = &ScaledAdd<double>,
                             .depthwise2d_f32 = &DepthwiseConv2DF32,
                             .depthwise2d_f64 = &Depthwise2D<double>,
                             .depthwise_nhwc_s32 = &DepthwiseNhwcS32,
#if defined(__AVX2__)
                             .depthwise_nhwc_q8 = &DepthwiseNhwcQ8,
#else
                             .depthwise_nhwc_q8 = nullptr,
#endif
#if defined(__AVX512F__) && PRISM_QGEMM_VNNI
                             .depthwise_q8_quads_usable = &CpuHasAvx512Vnni,
                             .depthwise_nhwc_q8_quads = &DepthwiseNhwcQ8Quads,
#else
                             .depthwise_q8_quads_usable = nullptr,
                             .depthwise_nhwc_q8_quads = nullptr,
#endif
                             .normalize_f32 = &NormalizeF32,
                             .clamp_f32 = &ClampF32,
                             .erf_f32 = &ErfF32,
                             .gelu_erf_f32 = &GeluErfF32,
                             .exp_f32 = &ExpF32,
                             .log_f32 = &LogF32,
                             .tanh_f32 = &TanhF32,
                             .sigmoid_f32 = &SigmoidF32,
                             .max_f32 = &MaxF32,
                             .exp_shifted_sum_f32 = &ExpShiftedSumF32,
                             .scale_f32 = &ScaleF32,
                             .gelu_tanh_f32 = &GeluTanhF32,
                             .quick_gelu_f32 = &QuickGeluF32,
                             .activation_f32 = &ActivationF32,
                             .pool_max_row_f32 = &PoolRowF32<true>,
                             .pool_sum_row_f32 = &PoolRowF32<false>,
                             .bias_activation_row_f32 = &BiasActivationRowF32,
                             .nchwc_block = kNchwcBlock,
                             .nchwc_reorder_input_f32 = &NchwcReorderInputF32,
                             .nchwc_reorder_output_f32 = &NchwcReorderOutputF32,
                             .nchwc_conv_f32 = &NchwcConvF32,
                             .nchwc_pool_f32 = &NchwcPoolF32,
                             .nchwc_winograd_input_f32 = &NchwcWinogradInputF32,
                             .nchwc_winograd_output_f32 = &NchwcWinogradOutputF32};

}  // namespace prism::mlas::PRISM_ISA_NAMESPACE

#undef Eigen
