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
  // Work units: a group of panels (times a share of the rows when there are fewer panels than
  // threads). Threads take whole groups, so B is read from memory once in all; sharing rows
  // instead would have every thread stream all of B. Within a unit k goes in blocks of 256, and
  // within each, rows in blocks of 240: the group's panel blocks (at most 16 x 256 x 16 floats,
  // 256 KiB, on one thread) come from memory once and stay in the L2 cache across the row
  // blocks, each panel block (16 KiB) in the L1 cache across a row block's tiles, and a row
  // block of A (240 x 256 floats, 240 KiB) in L2 across the group. C's tiles take the partial
  // sums, the first k block applying beta. (Copying A's block tile by tile first, as BLAS
  // libraries do, measured slower here: the rows are read in place.)
  constexpr int64_t kMaxPanelGroup = 16;
  constexpr int64_t kDepthBlock = 256;
  constexpr int64_t kRowBlock = 240;
  const int64_t panels = b.Panels();
  const int64_t threads = pool != nullptr ? pool->DegreeOfParallelism() : 1;
  int64_t groups = (panels + kMaxPanelGroup - 1) / kMaxPanelGroup;
  groups = std::min(panels, (groups + threads - 1) / threads * threads);  // whole rounds
  const int64_t group_size = (panels + groups - 1) / groups;
  groups = (panels + group_size - 1) / group_size;
  const int64_t tiles = (m + 5) / 6;
  const int64_t row_splits =
      groups >= threads ? 1 : std::min(tiles, (threads + groups - 1) / groups);
  const int64_t rows_per_split = (tiles + row_splits - 1) / row_splits * 6;
  const IsaKernels& kernels = ActiveKernels();
  const double flops_per_unit = 2.0 * static_cast<double>(std::min(m, rows_per_split)) *
                                static_cast<double>(std::min(n, group_size * 16)) * k;
  ThreadPool::TryParallelFor(
      pool, groups * row_splits, flops_per_unit, [&](int64_t first, int64_t last) {
        for (int64_t unit = first; unit < last; ++unit) {
          const int64_t first_panel = (unit / row_splits) * group_size;
          const int64_t last_panel = std::min(panels, first_panel + group_size);
          const int64_t split_begin = (unit % row_splits) * rows_per_split;
          const int64_t split_end = std::min(m, split_begin + rows_per_split);
          for (int64_t depth = 0; depth < k; depth += kDepthBlock) {
            const int64_t depth_count = std::min(kDepthBlock, k - depth);
            for (int64_t row = split_begin; row < split_end; row += kRowBlock) {
              const int64_t rows = std::min(kRowBlock, split_end - row);
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
        }
      });
}

}  // namespace prism::mlas
