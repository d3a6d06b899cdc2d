#include "mlas/sgemm.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "mlas/packed_gemm.h"

namespace prism::mlas {
namespace {

// Below this many multiply-adds per thread a product is not split further: waking a worker of
// the pool costs several microseconds (it sleeps on a condition variable).
constexpr double kMinMultiplyAddsPerThread = 1 << 20;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// A growable 64-byte-aligned buffer of floats, one per thread and role, kept between products so
// that the packing buffers are not faulted in anew on every call.
class Workspace {
 public:
  ~Workspace() { std::free(data_); }
  float* Get(int64_t floats) {
    if (floats > capacity_) {
      std::free(data_);
      data_ = nullptr;
      capacity_ = 0;
      const size_t bytes = RoundUp(floats * static_cast<int64_t>(sizeof(float)), 64);
      data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (data_ == nullptr) throw std::bad_alloc();
      capacity_ = floats;
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  int64_t capacity_ = 0;
};

thread_local Workspace packed_a_workspace;
thread_local Workspace packed_b_workspace;
thread_local Workspace vector_workspace;

// op(B): stored (packed per block by the product) or prepacked (panels of 16 columns over the
// whole depth, `depth` rows each).
struct OperandB {
  bool trans = false;
  const float* data = nullptr;
  int64_t ld = 0;
  const float* prepacked = nullptr;
  int64_t depth = 0;
};

void ScaleC(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    if (beta == 0.0f)
      std::fill(row, row + n, 0.0f);
    else if (beta != 1.0f)
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
  }
}

// The depth of B's blocks for an m-row product: kernels.sgemm_depth_block, or with B prepacked
// as deep as sgemm_prepacked_a_block_bytes of A's row block allows, k split evenly.
int64_t DepthBlock(const IsaKernels& kernels, const OperandB& b, int64_t m, int64_t k) {
  if (b.prepacked == nullptr || kernels.sgemm_prepacked_a_block_bytes == 0)
    return std::min(kernels.sgemm_depth_block, k);
  const int64_t rows = std::min(kSgemmRowBlock, m);
  const int64_t deepest =
      std::max(kernels.sgemm_depth_block, kernels.sgemm_prepacked_a_block_bytes /
                                              (rows * static_cast<int64_t>(sizeof(float))));
  const int64_t blocks = (k + deepest - 1) / deepest;
  return (k + blocks - 1) / blocks;
}

// The blocked product of rows [0, m) of op(A) and columns [col, col + n) of op(B) into the m x n
// block at c, on the calling thread.
// row: the block's first row in the whole of C (for the epilogue).
void SgemmBlocked(const IsaKernels& kernels, bool trans_a, int64_t m, int64_t n, int64_t k,
                  float alpha, const float* a, int64_t lda, const OperandB& b, int64_t row,
                  int64_t col, float beta, float* c, int64_t ldc, const SgemmEpilogue* epilogue) {
  const int64_t depth_block = DepthBlock(kernels, b, m, k);
  // A is packed when transposed, and when its rows share storage (lda 0, which sgemm_block reads
  // as "packed").
  const bool pack_a = trans_a || lda == 0;
  float* packed_a =
      pack_a ? packed_a_workspace.Get(std::min(kSgemmRowBlock, m) * depth_block) : nullptr;
  for (int64_t jc = 0; jc < n; jc += kSgemmColumnBlock) {
    const int64_t nc = std::min(kSgemmColumnBlock, n - jc);
    for (int64_t pc = 0; pc < k; pc += depth_block) {
      const int64_t kc = std::min(depth_block, k - pc);
      const float* panels;
      int64_t panel_stride;
      if (b.prepacked != nullptr) {
        // (col + jc) is a multiple of 16: the split and the column blocks keep whole panels.
        panel_stride = b.depth * kSgemmPanelCols;
        panels = b.prepacked + (col + jc) / kSgemmPanelCols * panel_stride + pc * kSgemmPanelCols;
      } else {
        panel_stride = kc * kSgemmPanelCols;
        float* packed_b = packed_b_workspace.Get(RoundUp(nc, kSgemmPanelCols) * kc);
        const float* source =
            b.trans ? b.data + (col + jc) * b.ld + pc : b.data + pc * b.ld + col + jc;
        kernels.sgemm_pack_b(b.trans, kc, nc, source, b.ld, packed_b, panel_stride);
        panels = packed_b;
      }
      const float block_beta = pc == 0 ? beta : 1.0f;
      for (int64_t ic = 0; ic < m; ic += kSgemmRowBlock) {
        const int64_t mc = std::min(kSgemmRowBlock, m - ic);
        if (pack_a) {
          // Rows of op(A) are columns of A: packed into row panels first.
          kernels.sgemm_pack_a(trans_a, mc, kc, trans_a ? a + pc * lda + ic : a + ic * lda + pc,
                               lda, packed_a);
          kernels.sgemm_block(mc, nc, kc, packed_a, 0, panels, panel_stride, alpha, block_beta,
                              c + ic * ldc + jc, ldc);
        } else {
          // Rows of A are read in place (as MLAS does): a block of them stays in the L2 cache
          // across the panels of B, and packing would only copy them.
          kernels.sgemm_block(mc, nc, kc, a + ic * lda + pc, lda, panels, panel_stride, alpha,
                              block_beta, c + ic * ldc + jc, ldc);
        }
        // The block is complete after the last depth block: finish it while it is in cache.
        if (epilogue != nullptr && pc + kc >= k)
          epilogue->apply(epilogue->context, row + ic, mc, col + jc, nc, c + ic * ldc + jc, ldc);
      }
    }
  }
}

// How C is cut over threads: row_blocks x column_blocks blocks of at most rows x cols.
struct Split {
  int64_t row_blocks = 1, column_blocks = 1, rows = 0, cols = 0;
};

// The cut with the least estimated time: C in up to kBlocksPerThread blocks per thread, taken by
// the threads as they come free (ParallelFor hands out units dynamically), so that a thread slowed
// by foreign load on its core (this project's machines are shared) leaves its blocks to the
// others. A block costs its multiply-adds (16 per cycle in the micro-kernel) plus what it copies
// (about a cycle per value): all of its B unless B is prepacked, and its rows of A once per
// column block when A is packed (transposed) or a quarter of that when A is read in place.
Split ChooseSplit(int64_t m, int64_t n, int64_t k, int threads, bool trans_a, bool prepacked,
                  int64_t tile_rows, int64_t tile_cols) {
  constexpr int64_t kBlocksPerThread = 4;
  // Fewer rows than a tile take about a tile's time: the micro-kernel's loads of B bound it, not
  // its multiply-adds. Counted as they come, resnet50's 1 x 2048 x 1000 Gemm stayed on one thread
  // (0.20 ms at 1 and 2 threads, onnxruntime 0.14 at 2).
  const double multiply_adds =
      static_cast<double>(std::max(m, tile_rows)) * static_cast<double>(n) * k;
  const int64_t wanted = std::clamp<int64_t>(
      static_cast<int64_t>(multiply_adds / kMinMultiplyAddsPerThread), 1, threads);
  Split best;
  best.rows = m;
  best.cols = n;
  if (wanted == 1) return best;
  // Blocks of at least a quarter of the per-thread minimum.
  const int64_t max_blocks =
      std::clamp<int64_t>(static_cast<int64_t>(4 * multiply_adds / kMinMultiplyAddsPerThread),
                          wanted, wanted * kBlocksPerThread);
  double best_time = -1;
  for (int64_t blocks = wanted; blocks <= max_blocks; blocks += wanted) {
    for (int64_t row_blocks = 1; row_blocks <= blocks; ++row_blocks) {
      if (blocks % row_blocks != 0) continue;
      const int64_t column_blocks = blocks / row_blocks;
      const int64_t rows = RoundUp((m + row_blocks - 1) / row_blocks, tile_rows);
      const int64_t cols = RoundUp((n + column_blocks - 1) / column_blocks, tile_cols);
      // Blocks past the edge would be empty: that cut does not have the blocks it counts.
      if ((row_blocks - 1) * rows >= m || (column_blocks - 1) * cols >= n) continue;
      const double column_passes =
          static_cast<double>((cols + kSgemmColumnBlock - 1) / kSgemmColumnBlock);
      const double block_cost =
          static_cast<double>(rows) * cols * k / 16.0 +
          static_cast<double>(rows) * k * column_passes * (trans_a ? 1 : 0.25) +
          (prepacked ? 0.0 : static_cast<double>(cols) * k);
      // The rounds of blocks, plus one block of imbalance at the end (a thread that finds no
      // block left waits on the others' last ones).
      const double time = static_cast<double>((blocks + wanted - 1) / wanted + 1) * block_cost;
      // Ties keep the earlier candidate: fewer blocks, and of those fewer row blocks (columns
      // are split first).
      if (best_time < 0 || time < best_time * 0.999) {
        best_time = time;
        best = {row_blocks, column_blocks, rows, cols};
      }
    }
  }
  return best;
}

void SgemmSplit(const IsaKernels& kernels, bool trans_a, int64_t m, int64_t n, int64_t k,
                float alpha, const float* a, int64_t lda, const OperandB& b, float beta, float* c,
                int64_t ldc, ThreadPool* pool, const SgemmEpilogue* epilogue) {
  const int threads = pool != nullptr ? pool->DegreeOfParallelism() : 1;
  const Split split = ChooseSplit(m, n, k, threads, trans_a || lda == 0, b.prepacked != nullptr,
                                  kernels.sgemm_tile_rows, kernels.sgemm_tile_cols);
  const int64_t blocks = split.row_blocks * split.column_blocks;
  if (blocks == 1) {
    SgemmBlocked(kernels, trans_a, m, n, k, alpha, a, lda, b, 0, 0, beta, c, ldc, epilogue);
    return;
  }
  // One unit of the ParallelFor per block (cost: large enough never to run inline or merge).
  pool->ParallelFor(blocks, 1e12, [&](int64_t first, int64_t last) {
    for (int64_t index = first; index < last; ++index) {
      const int64_t row = (index / split.column_blocks) * split.rows;
      const int64_t col = (index % split.column_blocks) * split.cols;
      const int64_t rows = std::min(split.rows, m - row);
      const int64_t cols = std::min(split.cols, n - col);
      if (rows <= 0 || cols <= 0) continue;
      SgemmBlocked(kernels, trans_a, rows, cols, k, alpha, trans_a ? a + row : a + row * lda, lda,
                   b, row, col, beta, c + row * ldc + col, ldc, epilogue);
    }
  });
}

// A contiguous copy of a strided vector (x itself when its elements are adjacent).
const float* Contiguous(const float* x, int64_t count, int64_t stride, Workspace& workspace) {
  if (stride == 1) return x;
  float* copy = workspace.Get(count);
  for (int64_t i = 0; i < count; ++i) copy[i] = x[i * stride];
  return copy;
}

// y (count values, stride incy) = alpha * op(matrix) x + beta * y: rows_form: y[i] is the sum over
// p of matrix[i * ld + p] x[p] (count x k matrix); otherwise y[j] is the sum over p of
// x[p] matrix[p * ld + j] (k x count). Split over the pool by ranges of y.
void Gemv(const IsaKernels& kernels, bool rows_form, int64_t count, int64_t k, float alpha,
          const float* matrix, int64_t ld, const float* x, int64_t incx, float beta, float* y,
          int64_t incy, ThreadPool* pool) {
  const float* xs = Contiguous(x, k, incx, vector_workspace);
  std::vector<float> y_copy;
  float* ys = y;
  if (incy != 1) {
    y_copy.resize(static_cast<size_t>(count));
    if (beta != 0.0f)
      for (int64_t i = 0; i < count; ++i) y_copy[i] = y[i * incy];
    ys = y_copy.data();
  }
  auto run = [&](int64_t begin, int64_t end) {
    if (rows_form)
      kernels.gemv_rows_f32(end - begin, k, alpha, matrix + begin * ld, ld, xs, beta, ys + begin);
    else
      kernels.gemv_cols_f32(k, end - begin, alpha, matrix + begin, ld, xs, beta, ys + begin);
  };
  const int threads = pool != nullptr ? pool->DegreeOfParallelism() : 1;
  const double multiply_adds = static_cast<double>(count) * k;
  const int64_t parts = std::clamp<int64_t>(
      static_cast<int64_t>(multiply_adds / kMinMultiplyAddsPerThread), 1, threads);
  // Ranges in multiples of 32 (the column kernel's widest step).
  const int64_t step = RoundUp((count + parts - 1) / parts, 32);
  const int64_t units = (count + step - 1) / step;
  if (units <= 1) {
    run(0, count);
  } else {
    pool->ParallelFor(units, 1e12, [&](int64_t first, int64_t last) {
      for (int64_t unit = first; unit < last; ++unit)
        run(unit * step, std::min(count, (unit + 1) * step));
    });
  }
  if (incy != 1)
    for (int64_t i = 0; i < count; ++i) y[i * incy] = ys[i];
}

// The products Sgemm does without blocks: k <= 0 (C scaled by beta), one row or one column of C
// (matrix-vector kernels).
void SgemmWithoutBlocks(const IsaKernels& kernels, bool trans_a, bool trans_b, int64_t m, int64_t n,
                        int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                        int64_t ldb, float beta, float* c, int64_t ldc, ThreadPool* pool) {
  if (k <= 0) {
    ScaleC(m, n, beta, c, ldc);
    return;
  }
  if (m == 1) {
    // C's row = op(A)'s row times op(B): op(A)(0, p) is a[p] (a[p * lda] when transposed).
    const int64_t incx = trans_a ? lda : 1;
    if (trans_b)  // B stored n x k: C[j] = sum_p B[j, p] x[p]
      Gemv(kernels, true, n, k, alpha, b, ldb, a, incx, beta, c, 1, pool);
    else  // B stored k x n: C[j] = sum_p x[p] B[p, j]
      Gemv(kernels, false, n, k, alpha, b, ldb, a, incx, beta, c, 1, pool);
    return;
  }
  if (n == 1) {
    // C's column = op(A) times op(B)'s column: op(B)(p, 0) is b[p * ldb] (b[p] when transposed).
    const int64_t incx = trans_b ? 1 : ldb;
    if (trans_a)  // A stored k x m: C[i] = sum_p x[p] A[p, i]
      Gemv(kernels, false, m, k, alpha, a, lda, b, incx, beta, c, ldc, pool);
    else  // A stored m x k: C[i] = sum_p A[i, p] x[p]
      Gemv(kernels, true, m, k, alpha, a, lda, b, incx, beta, c, ldc, pool);
  }
}

}  // namespace

void Sgemm(const IsaKernels& kernels, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
           float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
           float* c, int64_t ldc, ThreadPool* pool, const SgemmEpilogue* epilogue) {
  if (m <= 0 || n <= 0) return;
  // The matrix-vector and empty products run the epilogue once over the whole of C.
  if (k <= 0 || m == 1 || n == 1) {
    SgemmWithoutBlocks(kernels, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                       pool);
    if (epilogue != nullptr) epilogue->apply(epilogue->context, 0, m, 0, n, c, ldc);
    return;
  }
  OperandB operand;
  operand.trans = trans_b;
  operand.data = b;
  operand.ld = ldb;
  SgemmSplit(kernels, trans_a, m, n, k, alpha, a, lda, operand, beta, c, ldc, pool, epilogue);
}

void SgemmPackedB(const IsaKernels& kernels, bool trans_a, int64_t m, const float* a, int64_t lda,
                  float alpha, const PackedMatrixB& b, float beta, float* c, int64_t ldc,
                  ThreadPool* pool, const SgemmEpilogue* epilogue) {
  const int64_t n = b.N(), k = b.K();
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    ScaleC(m, n, beta, c, ldc);
    if (epilogue != nullptr) epilogue->apply(epilogue->context, 0, m, 0, n, c, ldc);
    return;
  }
  OperandB operand;
  operand.prepacked = b.Panel(0);
  operand.depth = k;
  SgemmSplit(kernels, trans_a, m, n, k, alpha, a, lda, operand, beta, c, ldc, pool, epilogue);
}

double ProbeFmaPeakGflops(const IsaKernels& kernels, double seconds) {
  using Clock = std::chrono::steady_clock;
  // Calibrate the iterations to a fifth of the time, then keep the best of five runs.
  int64_t iterations = 1 << 14;
  for (;;) {
    const auto start = Clock::now();
    kernels.fma_probe_f32(iterations);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed >= seconds / 50 || iterations > (int64_t{1} << 40)) {
      iterations = std::max<int64_t>(1, static_cast<int64_t>(iterations * (seconds / 5) / elapsed));
      break;
    }
    iterations *= 4;
  }
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    const auto start = Clock::now();
    const int64_t flops = kernels.fma_probe_f32(iterations);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed > 0) best = std::max(best, static_cast<double>(flops) / elapsed * 1e-9);
  }
  return best;
}

}  // namespace prism::mlas
