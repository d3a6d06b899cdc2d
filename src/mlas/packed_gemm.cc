#include "mlas/packed_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"

namespace prism::mlas {

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
  float* out = packed.data_.get();
  for (int64_t p = 0; p < packed.Panels(); ++p) {
    const int64_t first = p * kPanelWidth;
    const int64_t cols = std::min(kPanelWidth, n - first);
    for (int64_t row = 0; row < k; ++row) {
      float* dst = out + (p * k + row) * kPanelWidth;
      if (trans_b) {
        for (int64_t j = 0; j < cols; ++j) dst[j] = b[(first + j) * ldb + row];
      } else {
        std::memcpy(dst, b + row * ldb + first, static_cast<size_t>(cols) * sizeof(float));
      }
      std::fill(dst + cols, dst + kPanelWidth, 0.0f);
    }
  }
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
                 const PackedMatrixB& b, float beta, float* c, int64_t ldc, ThreadPool* pool) {
  const int64_t n = b.N(), k = b.K();
  if (m <= 0 || n <= 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  const int64_t row_stride = trans_a ? 1 : lda;
  const int64_t k_stride = trans_a ? lda : 1;
  // Work units: a block of rows times a group of panels. Within a unit k goes in blocks: the
  // rows' block of A (96 x 256 floats, 96 KiB) stays in the L2 cache across the group's panels,
  // and each panel's block (256 x 16 floats, 16 KiB) in the L1 cache across the row tiles; C's
  // tiles take the partial sums, the first k block applying beta. (Copying A's block tile by
  // tile first, as BLAS libraries do, measured slower here: the rows are read in place.)
  constexpr int64_t kRowBlock = 96;
  constexpr int64_t kPanelGroup = 16;
  constexpr int64_t kDepthBlock = 256;
  const int64_t row_blocks = (m + kRowBlock - 1) / kRowBlock;
  const int64_t panels = b.Panels();
  const int64_t groups = (panels + kPanelGroup - 1) / kPanelGroup;
  const IsaKernels& kernels = ActiveKernels();
  const double flops_per_unit = 2.0 * static_cast<double>(std::min(m, kRowBlock)) *
                                static_cast<double>(std::min(n, kPanelGroup * 16)) * k;
  ThreadPool::TryParallelFor(
      pool, row_blocks * groups, flops_per_unit, [&](int64_t first, int64_t last) {
        for (int64_t unit = first; unit < last; ++unit) {
          const int64_t row = (unit / groups) * kRowBlock;
          const int64_t rows = std::min(kRowBlock, m - row);
          const int64_t first_panel = (unit % groups) * kPanelGroup;
          const int64_t last_panel = std::min(panels, first_panel + kPanelGroup);
          for (int64_t depth = 0; depth < k; depth += kDepthBlock) {
            const int64_t depth_count = std::min(kDepthBlock, k - depth);
            const float* a_start = a + row * row_stride + depth * k_stride;
            for (int64_t p = first_panel; p < last_panel; ++p) {
              const int64_t col = p * PackedMatrixB::kPanelWidth;
              kernels.packed_panel_f32(rows, std::min(PackedMatrixB::kPanelWidth, n - col),
                                       depth_count, a_start, 6 * row_stride, row_stride, k_stride,
                                       b.Panel(p) + depth * PackedMatrixB::kPanelWidth, alpha,
                                       depth == 0 ? beta : 1.0f, c + row * ldc + col, ldc);
            }
          }
        }
      });
}

}  // namespace prism::mlas
