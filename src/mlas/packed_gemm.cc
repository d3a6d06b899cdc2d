#include "mlas/packed_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "mlas/isa_kernels.h"
#include "mlas/sgemm.h"

namespace prism::mlas {

static_assert(PackedMatrixB::kPanelWidth == kSgemmPanelCols,
              "the prepacked panels are the SGEMM micro-kernel's");

void PackedMatrixB::Free::operator()(float* p) const {
  std::free(p);
}

PackedMatrixB PackedMatrixB::Pack(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb) {
  PackedMatrixB packed;
  packed.k_ = k;
  packed.n_ = n;
  const size_t bytes = std::max<size_t>(packed.Bytes(), 64);
  // 64-byte alignment: every panel row of 16 floats is one cache line.
  void* memory = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (memory == nullptr) throw std::bad_alloc();
  packed.data_.reset(static_cast<float*>(memory));
  // The panels of the SGEMM's micro-kernel over the whole depth (the same on every ISA level).
  ActiveKernels().sgemm_pack_b(trans_b, k, n, b, ldb, packed.data_.get(), k * kPanelWidth);
  return packed;
}

void PackedMatrixB::Unpack(bool trans_b, float* b, int64_t ldb) const {
  for (int64_t p = 0; p < Panels(); ++p) {
    const int64_t first = p * kPanelWidth;
    const int64_t cols = std::min(kPanelWidth, n_ - first);
    for (int64_t row = 0; row < k_; ++row) {
      const float* src = Panel(p) + row * kPanelWidth;
      for (int64_t j = 0; j < cols; ++j) {
        if (trans_b)
          b[(first + j) * ldb + row] = src[j];
        else
          b[row * ldb + first + j] = src[j];
      }
    }
  }
}

void GemmPackedB(bool trans_a, int64_t m, const float* a, int64_t lda, float alpha,
                 const PackedMatrixB& b, float beta, float* c, int64_t ldc, ThreadPool* pool,
                 const SgemmEpilogue* epilogue) {
  SgemmPackedB(ActiveKernels(), trans_a, m, a, lda, alpha, b, beta, c, ldc, pool, epilogue);
}

}  // namespace prism::mlas
