// The body of every ISA unit: included once per level by src/mlas/isa/<level>_kernels.cc, with
// PRISM_ISA_NAMESPACE naming the level's namespace and PRISM_EIGEN_NAMESPACE a namespace of its
// own for Eigen. Eigen's inline templates would otherwise have the same symbols in every unit,
// and the linker would keep one copy, compiled for whichever level it saw first, for all callers;
// renamed, each level's copies stay its own (scripts/check_isa_leaks.py proves it on the binary).
// No include guard: each unit includes this once.

#if !defined(PRISM_ISA_NAMESPACE) || !defined(PRISM_EIGEN_NAMESPACE)
#error "define PRISM_ISA_NAMESPACE and PRISM_EIGEN_NAMESPACE before including isa_kernels_impl.h"
#endif

#include <algorithm>
#include <cstdint>

#include "mlas/isa_kernels.h"

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

}  // namespace

extern const IsaKernels kKernels;
const IsaKernels kKernels = {
    &GemmAccumulate<float>, &GemmAccumulate<double>, &ScaledAdd<float>, &ScaledAdd<double>,
    &Depthwise2D<float>,    &Depthwise2D<double>,    &NormalizeF32,     &ClampF32};

}  // namespace prism::mlas::PRISM_ISA_NAMESPACE

#undef Eigen
