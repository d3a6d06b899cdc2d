// Prism's single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, row-major (the layouts of
// gemm.h), on the kernels of one instruction-set level (isa_kernels.h), split over a thread pool.
//
// The blocked product (as in BLIS and MLAS): op(B) is cut into blocks of kSgemmDepthBlock rows and
// kSgemmColumnBlock columns, packed into panels of 16 columns (each panel's k rows contiguous,
// zero-padded past n); op(A) into blocks of kSgemmRowBlock rows, read in place (a transposed A is
// packed into panels of 6 rows first); a register-blocked micro-kernel multiplies 6 rows of A by
// one 16-column panel into a 6 x 16 tile of C. A constant B can be packed once (packed_gemm.h: the
// same panels over the whole depth), which the product then reads in place. Products with one row
// or one column of C go to matrix-vector kernels instead (packing would cost more than it saves
// there).
//
// On AVX-512 the micro-kernel's tile is 12 x 32 (two panels of each: the same packing formats)
// and B's blocks are kSgemmDepthBlockAvx512 deep.
//
// Threads: C is cut into one block per thread (rows and columns in multiples of the micro-kernel's
// tile), along whichever side costs less repacking; each thread runs the blocked product on its
// block.
#pragma once

#include <cstdint>

namespace prism {
class ThreadPool;
}

namespace prism::mlas {

struct IsaKernels;
class PackedMatrixB;

// The cache blocks (AMD EPYC of this project: 32 KiB L1d, 512 KiB L2 per core, a 32 MiB L3
// shared with every other tenant): a 256 x 16 panel of B is 16 KiB (L1), a 144 x 256 block of A
// 144 KiB (L2, re-read once per panel).
constexpr int64_t kSgemmDepthBlock = 256;
constexpr int64_t kSgemmRowBlock = 144;
constexpr int64_t kSgemmColumnBlock = 512;
// With B prepacked (nothing to pack per block) the AVX2 level makes blocks as deep as a block of A
// of this size allows: 768 deep for 128 rows, the whole depth for 64 rows of 1024, split evenly.
// The A block still fits the L2 cache beside B's stream, and a tile sums over the whole depth
// before it touches C. Measured (2026-11-28, standalone, 1 thread, best of 9): 128 x 768 x 768
// 90 -> 94 GFLOP/s, 128 x 3072 x 768 85 -> 89, 64 x 1024 x 1024 88 -> 95 (peak probe 100).
constexpr int64_t kSgemmPrepackedABlockBytes = 384 * 1024;
// AVX-512 does a block's multiply-adds in half the time, so the work around each block (packing
// B, the passes over C) weighs twice as much: a deeper block halves it. Its two panels of B
// (64 KiB) then stream from L2, which keeps up (128 bytes per 12 cycles). Measured (2026-11-25,
// noisy shared machine): 1024^3 about 3% faster than 256 deep, 2048^3 about 1%.
constexpr int64_t kSgemmDepthBlockAvx512 = 512;

// Work on C done block by block as soon as a block's product is complete, while it is still in
// cache (a bias, a residual sum, an activation): apply(context, row, rows, column, columns, block,
// ldc) gets the block of C at (row, column), rows x columns, at `block` with C's ldc. Blocks are
// disjoint and cover C once; several threads may apply it at once (to different blocks).
struct SgemmEpilogue {
  void (*apply)(const void* context, int64_t row, int64_t rows, int64_t column, int64_t columns,
                float* block, int64_t ldc) = nullptr;
  const void* context = nullptr;
};

// C = alpha * op(A) * op(B) + beta * C with the given level's kernels (C is not read when beta is
// 0), then the epilogue when one is given. pool: C's blocks split over it (nullptr: the calling
// thread alone).
void Sgemm(const IsaKernels& kernels, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
           float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
           float* c, int64_t ldc, ThreadPool* pool, const SgemmEpilogue* epilogue = nullptr);

// The same with B packed ahead (packed_gemm.h).
void SgemmPackedB(const IsaKernels& kernels, bool trans_a, int64_t m, const float* a, int64_t lda,
                  float alpha, const PackedMatrixB& b, float beta, float* c, int64_t ldc,
                  ThreadPool* pool, const SgemmEpilogue* epilogue = nullptr);

// The machine's single-thread FP32 peak in GFLOP/s on a level's kernels: the best of a few runs
// of its multiply-add probe (independent chains in registers), each about seconds / 5 long.
double ProbeFmaPeakGflops(const IsaKernels& kernels, double seconds = 0.25);

}  // namespace prism::mlas
