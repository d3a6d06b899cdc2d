// Row-major general matrix multiply with no framework types:
//   C = alpha * op(A) * op(B) + beta * C
// where op(A) is M x K, op(B) is K x N and C is M x N. A is stored M x K (K x M when trans_a)
// with leading dimension lda; likewise B (K x N, or N x K when trans_b) with ldb, C with ldc.
// When beta is zero C is only written, never read, so it may hold uninitialized memory.
#pragma once

#include <cstdint>

namespace prism {
class ThreadPool;
}

namespace prism::mlas {

// Instantiated for float (Prism's SGEMM, sgemm.h), double (Eigen) and int32_t, int64_t, uint32_t,
// uint64_t (plain loops; unsigned arithmetic wraps, signed arithmetic is done in the unsigned
// domain so that overflow wraps instead of being undefined). pool: splits C into blocks computed in
// parallel (nullptr: the calling thread alone).
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc,
          ThreadPool* pool = nullptr);

// float: Prism's SGEMM (sgemm.h) with the active ISA level's kernels.
template <>
void Gemm<float>(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc, ThreadPool* pool);

}  // namespace prism::mlas
