// Float GEMM through Prism's SGEMM (sgemm.h) on the active ISA level; double through the level's
// Eigen product; integer GEMM as plain exact loops.
#include "mlas/gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"

namespace prism::mlas {
namespace {

// Below this many floating-point operations a product runs on the calling thread alone.
constexpr double kMinParallelFlops = 200000.0;

// Scales C by beta, treating beta == 0 as "overwrite" so uninitialized C never leaks NaNs.
template <typename T>
void ScaleC(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      for (int64_t j = 0; j < n; ++j) row[j] = T(0);
    } else if (beta != T(1)) {
      for (int64_t j = 0; j < n; ++j) row[j] = beta * row[j];
    }
  }
}

// Double blocks go to the active ISA level's kernels (Eigen's blocked product compiled for that
// level).
void DoubleGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                int64_t ldc) {
  ScaleC(m, n, beta, c, ldc);
  ActiveKernels().gemm_accumulate_f64(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
}

template <typename T>
void IntegerGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                 int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  // Unsigned arithmetic wraps modulo 2^bits, which gives two's-complement results for signed
  // types too, without the undefined behaviour of signed overflow.
  using U = std::make_unsigned_t<T>;
  std::vector<U> acc(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), U(0));
    for (int64_t p = 0; p < k; ++p) {
      const U a_value = static_cast<U>(trans_a ? a[p * lda + i] : a[i * lda + p]);
      if (a_value == 0) continue;
      if (trans_b) {
        for (int64_t j = 0; j < n; ++j) acc[j] += a_value * static_cast<U>(b[j * ldb + p]);
      } else {
        const T* b_row = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) acc[j] += a_value * static_cast<U>(b_row[j]);
      }
    }
    T* c_row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) {
      U value = static_cast<U>(alpha) * acc[j];
      if (beta != T(0)) value += static_cast<U>(beta) * static_cast<U>(c_row[j]);
      c_row[j] = static_cast<T>(value);
    }
  }
}

// One block of C: rows [r0, r1) or columns [c0, c1) of the product.
template <typename T>
void GemmBlock(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
               int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, double>) {
    DoubleGemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    IntegerGemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

}  // namespace

template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc, ThreadPool* pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    ScaleC(m, n, beta, c, ldc);
    return;
  }
  // One block of C per thread. A block re-packs the whole operand it shares with the others (B
  // for a block of rows, A for a block of columns), so split along the longer side of C: rows
  // when m >= n (repacking B, k x n, per block), columns otherwise (repacking A, m x k). Fine
  // chunks would repack more and starve the product's micro-kernel of rows or columns.
  const bool by_rows = m >= n;
  const int64_t units = by_rows ? m : n;
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  constexpr int64_t kMultiple = 16;  // block edges on whole SIMD registers and micro-tiles
  int64_t blocks = pool != nullptr && flops >= kMinParallelFlops ? pool->DegreeOfParallelism() : 1;
  blocks = std::max<int64_t>(1, std::min(blocks, units / kMultiple));
  if (blocks == 1) {
    GemmBlock(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  const int64_t block = (units + blocks - 1) / blocks;
  const int64_t edge = (block + kMultiple - 1) / kMultiple * kMultiple;
  const int64_t count = (units + edge - 1) / edge;
  // Each unit of the ParallelFor is one whole block (cost: large enough never to run inline).
  pool->ParallelFor(count, 1e12, [&](int64_t first, int64_t last) {
    for (int64_t index = first; index < last; ++index) {
      const int64_t begin = index * edge;
      const int64_t end = std::min(units, begin + edge);
      if (by_rows) {
        const T* a_block = trans_a ? a + begin : a + begin * lda;
        GemmBlock(trans_a, trans_b, end - begin, n, k, alpha, a_block, lda, b, ldb, beta,
                  c + begin * ldc, ldc);
      } else {
        const T* b_block = trans_b ? b + begin * ldb : b + begin;
        GemmBlock(trans_a, trans_b, m, end - begin, k, alpha, a, lda, b_block, ldb, beta, c + begin,
                  ldc);
      }
    }
  });
}

template <>
void Gemm<float>(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc, ThreadPool* pool) {
  Sgemm(ActiveKernels(), trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, pool);
}

template void Gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t,
                           const double*, int64_t, double, double*, int64_t, ThreadPool*);
template void Gemm<int32_t>(bool, bool, int64_t, int64_t, int64_t, int32_t, const int32_t*, int64_t,
                            const int32_t*, int64_t, int32_t, int32_t*, int64_t, ThreadPool*);
template void Gemm<int64_t>(bool, bool, int64_t, int64_t, int64_t, int64_t, const int64_t*, int64_t,
                            const int64_t*, int64_t, int64_t, int64_t*, int64_t, ThreadPool*);
template void Gemm<uint32_t>(bool, bool, int64_t, int64_t, int64_t, uint32_t, const uint32_t*,
                             int64_t, const uint32_t*, int64_t, uint32_t, uint32_t*, int64_t,
                             ThreadPool*);
template void Gemm<uint64_t>(bool, bool, int64_t, int64_t, int64_t, uint64_t, const uint64_t*,
                             int64_t, const uint64_t*, int64_t, uint64_t, uint64_t*, int64_t,
                             ThreadPool*);

}  // namespace prism::mlas
