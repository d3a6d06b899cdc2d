// The kernels compiled once per instruction-set level (src/mlas/isa/), as a table of plain
// function pointers: callers take the table of the active level (ActiveKernels) and stay in
// baseline code themselves.
#pragma once

#include <cstdint>

#include "mlas/cpu_isa.h"

namespace prism::mlas {

// One channel of a 2-D depthwise convolution: geometry only, no framework types.
struct DepthwiseGeometry {
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
};

struct IsaKernels {
  // C += alpha * op(A) * op(B), row-major, op(A) m x k, op(B) k x n (see gemm.h for layouts).
  void (*gemm_accumulate_f32)(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                              float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                              float* c, int64_t ldc);
  void (*gemm_accumulate_f64)(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                              double alpha, const double* a, int64_t lda, const double* b,
                              int64_t ldb, double* c, int64_t ldc);
  // C[r, j] = alpha * sum_p A(r, p) * panel[p * 16 + j] + beta * C[r, j] for r < m, j < cols
  // (cols <= 16): one packed panel of B (packed_gemm.h) times m rows of A, taken in tiles of 6
  // rows: row 6t + i of A is at a + t * a_tile_stride + i * a_row_stride, and its element p
  // a_k_stride further (A as stored, or packed tile by tile). C is not read when beta is 0.
  void (*packed_panel_f32)(int64_t m, int64_t cols, int64_t k, const float* a,
                           int64_t a_tile_stride, int64_t a_row_stride, int64_t a_k_stride,
                           const float* panel, float alpha, float beta, float* c, int64_t ldc);
  // dst[i] += weight * src[i * src_stride] for i < count.
  void (*scaled_add_f32)(float* dst, const float* src, int64_t count, int64_t src_stride,
                         float weight);
  void (*scaled_add_f64)(double* dst, const double* src, int64_t count, int64_t src_stride,
                         double weight);
  // y[oh, ow] = bias + sum over the window of x * w, for one channel (y is written, not read).
  void (*depthwise2d_f32)(const DepthwiseGeometry& geometry, const float* x, const float* w,
                          float bias, float* y);
  void (*depthwise2d_f64)(const DepthwiseGeometry& geometry, const double* x, const double* w,
                          double bias, double* y);
  // dst[i] = float((double(src[i]) - mean) * multiplier + bias): batch normalization of one row,
  // computed in double as the portable kernel does.
  void (*normalize_f32)(float* dst, const float* src, int64_t count, double mean, double multiplier,
                        double bias);
  // dst[i] = src[i] raised to lo and lowered to hi; NaN passes through.
  void (*clamp_f32)(float* dst, const float* src, int64_t count, float lo, float hi);
  // dst[i] = erf(src[i]), within 2.3e-7 relative where |x| <= 1 and 3e-7 absolute elsewhere
  // (erf(x) = 1 - erfc(x), erfc within 4.2e-7 relative); NaN stays NaN. dst may be src.
  void (*erf_f32)(const float* src, float* dst, int64_t count);
  // dst[i] = 0.5 x (1 + erf(x / sqrt(2))), the tail x < -sqrt(2) through erfc (relative error
  // below 5e-7 there too). dst may be src.
  void (*gelu_erf_f32)(const float* src, float* dst, int64_t count);
};

// The table of a level; a level this build lacks gives the baseline table.
const IsaKernels& KernelsFor(CpuIsa isa);
// The table of ActiveIsa().
const IsaKernels& ActiveKernels();

namespace baseline {
extern const IsaKernels kKernels;
}
namespace avx2 {
extern const IsaKernels kKernels;
}

}  // namespace prism::mlas
