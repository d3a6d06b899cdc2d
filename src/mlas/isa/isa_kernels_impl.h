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
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

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

// Eight floats as one value: one AVX register in the AVX2 unit, two SSE registers in the
// baseline one (GCC's vector extension lowers it to whatever the unit is compiled for).
// In the baseline unit GCC notes that passing such values differs from the AVX calling
// convention; these helpers are internal to the unit (anonymous namespace), so no call crosses
// that line. GCC reports it at the end of the unit, so the setting stays for the rest of it
// (each unit is only this file).
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float Float8 __attribute__((vector_size(32)));

inline Float8 LoadFloat8(const float* p) {
  Float8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void StoreFloat8(float* p, Float8 v) {
  std::memcpy(p, &v, sizeof v);
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

// kRows rows of C times one 16-wide panel over k: the accumulators stay in registers for the
// whole loop (12 of the 16 AVX registers at 6 rows, with 2 for the panel row and 1 for A). With
// few rows the k loop keeps kChains independent sums per accumulator, so that the adds do not
// wait on each other's latency; they are added together at the end.
template <int kRows, int kChains>
[[gnu::always_inline]] inline void PanelTile(int64_t cols, int64_t k, const float* a,
                                             int64_t row_stride, int64_t k_stride,
                                             const float* panel, float alpha, float beta, float* c,
                                             int64_t ldc) {
  Float8 acc[kChains][kRows][2] = {};
  // One pointer per row, advanced by k_stride: the loop then needs no index arithmetic.
  const float* rows[kRows];
  for (int r = 0; r < kRows; ++r) rows[r] = a + r * row_stride;
  int64_t p = 0;
  for (; p + kChains <= k; p += kChains) {
#pragma GCC unroll 4
    for (int chain = 0; chain < kChains; ++chain) {
      const Float8 b0 = LoadFloat8(panel);
      const Float8 b1 = LoadFloat8(panel + 8);
      panel += 16;
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const Float8 broadcast = BroadcastFloat8(rows[r]);
        rows[r] += k_stride;
        acc[chain][r][0] = MultiplyAdd(broadcast, b0, acc[chain][r][0]);
        acc[chain][r][1] = MultiplyAdd(broadcast, b1, acc[chain][r][1]);
      }
    }
  }
  for (; p < k; ++p) {
    const Float8 b0 = LoadFloat8(panel);
    const Float8 b1 = LoadFloat8(panel + 8);
    panel += 16;
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const Float8 broadcast = BroadcastFloat8(rows[r]);
      rows[r] += k_stride;
      acc[0][r][0] = MultiplyAdd(broadcast, b0, acc[0][r][0]);
      acc[0][r][1] = MultiplyAdd(broadcast, b1, acc[0][r][1]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int chain = 1; chain < kChains; ++chain) {
      acc[0][r][0] += acc[chain][r][0];
      acc[0][r][1] += acc[chain][r][1];
    }
    float* row = c + r * ldc;
    if (cols == 16) {  // a whole panel: straight vector stores
      Float8 low = acc[0][r][0] * alpha, high = acc[0][r][1] * alpha;
      if (beta != 0.0f) {
        low += LoadFloat8(row) * beta;
        high += LoadFloat8(row + 8) * beta;
      }
      StoreFloat8(row, low);
      StoreFloat8(row + 8, high);
      continue;
    }
    float result[16];
    StoreFloat8(result, acc[0][r][0] * alpha);
    StoreFloat8(result + 8, acc[0][r][1] * alpha);
    if (beta == 0.0f) {
      std::memcpy(row, result, static_cast<size_t>(cols) * sizeof(float));
    } else {
      for (int64_t j = 0; j < cols; ++j) row[j] = result[j] + beta * row[j];
    }
  }
}

// The rows in tiles of 6 (fewer for the last). The caller blocks k (see GemmPackedB).
void PackedPanelF32(int64_t m, int64_t cols, int64_t k, const float* a, int64_t tile_stride,
                    int64_t row_stride, int64_t k_stride, const float* panel, float alpha,
                    float beta, float* c, int64_t ldc) {
  int64_t r = 0;
  for (; r + 6 <= m; r += 6)
    PanelTile<6, 1>(cols, k, a + (r / 6) * tile_stride, row_stride, k_stride, panel, alpha, beta,
                    c + r * ldc, ldc);
  const float* a_rest = a + (r / 6) * tile_stride;
  float* c_rest = c + r * ldc;
  switch (m - r) {
    case 5:
      return PanelTile<5, 1>(cols, k, a_rest, row_stride, k_stride, panel, alpha, beta, c_rest,
                             ldc);
    case 4:
      return PanelTile<4, 1>(cols, k, a_rest, row_stride, k_stride, panel, alpha, beta, c_rest,
                             ldc);
    case 3:
      return PanelTile<3, 2>(cols, k, a_rest, row_stride, k_stride, panel, alpha, beta, c_rest,
                             ldc);
    case 2:
      return PanelTile<2, 3>(cols, k, a_rest, row_stride, k_stride, panel, alpha, beta, c_rest,
                             ldc);
    case 1:
      return PanelTile<1, 4>(cols, k, a_rest, row_stride, k_stride, panel, alpha, beta, c_rest,
                             ldc);
    default:
      return;
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

// ---- erf and GELU, eight lanes at a time ----
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

template <size_t N>
inline Float8 Horner(Float8 x, const float (&c)[N]) {
  Float8 r = Splat8(c[N - 1]);
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
inline Float8 ExpOfSum(Float8 hi, Float8 lo) {
  const Float8 shifter = Splat8(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const Float8 n = ((hi + lo) * 1.44269504088896341f + shifter) - shifter;
  const Float8 r = (hi - n * 0.693145751953125f) + (lo - n * 1.42860682030941723212e-6f);
  constexpr float kTaylor[] = {1.0f,         1.0f,          0.5f,          1.0f / 6.0f,
                               1.0f / 24.0f, 1.0f / 120.0f, 1.0f / 720.0f, 1.0f / 5040.0f};
  const Int8 scale = (__builtin_convertvector(n, Int8) + 127) << 23;
  return Horner(r, kTaylor) * std::bit_cast<Float8>(scale);
}

// v^2 as hi + lo: v with its low 12 mantissa bits cleared squares exactly into hi; lo is the
// rest, v_lo (v_hi + v), in float.
inline void SplitSquare(Float8 v, Float8& hi, Float8& lo) {
  const Float8 v_hi = std::bit_cast<Float8>(std::bit_cast<Int8>(v) & SplatInt8(-4096));
  hi = v_hi * v_hi;
  lo = (v - v_hi) * (v_hi + v);
}

// erfc(z) for z >= 0.5, given z^2 = square_hi + square_lo (0 past z = 6, infinity included).
inline Float8 ErfcTail(Float8 z, Float8 square_hi, Float8 square_lo) {
  const Float8 six = Splat8(6.0f);
  const Float8 clamped = z < six ? z : six;
  const Float8 g = Horner(clamped - 3.25f, kErfcExponent);
  const Float8 tail = ExpOfSum(-square_hi, g - square_lo);
  return z < six ? tail : Splat8(0.0f);
}

inline Float8 Abs8(Float8 x) {
  return std::bit_cast<Float8>(std::bit_cast<Int8>(x) & SplatInt8(0x7FFFFFFF));
}

inline Float8 Erf8(Float8 x) {
  const Float8 magnitude = Abs8(x);
  Float8 square_hi, square_lo;
  SplitSquare(magnitude, square_hi, square_lo);
  const Float8 small = x * Horner(x * x, kErfSmall);
  const Float8 large = 1.0f - ErfcTail(magnitude, square_hi, square_lo);
  const Int8 sign = std::bit_cast<Int8>(x) & SplatInt8(static_cast<int32_t>(0x80000000u));
  const Float8 signed_large = std::bit_cast<Float8>(std::bit_cast<Int8>(large) | sign);
  const Float8 result = magnitude <= 1.0f ? small : signed_large;
  return x == x ? result : x;  // NaN stays NaN
}

// 0.5 x (1 + erf(x / sqrt(2))); for x / sqrt(2) < -0.5 as 0.5 x erfc(|x| / sqrt(2)), which
// keeps the relative precision that 1 + erf would cancel. z^2 = x^2 / 2 is split from x itself: the
// rounding of z = x / sqrt(2) alone would cost 12 z^2 6e-8 (4e-6 at z = 6) in erfc.
inline Float8 GeluErf8(Float8 x) {
  const Float8 z = x * 0.70710678118654752f;
  const Float8 magnitude = Abs8(z);
  Float8 square_hi, square_lo;
  SplitSquare(Abs8(x), square_hi, square_lo);
  const Float8 small = 1.0f + z * Horner(z * z, kErfSmall);
  const Float8 tail = ErfcTail(magnitude, 0.5f * square_hi, 0.5f * square_lo);
  const Float8 factor = z < -0.5f ? tail : (z <= 1.0f ? small : 2.0f - tail);
  const Float8 result = 0.5f * x * factor;
  return x == x ? result : x;
}

// dst[i] = fn(src[i]) eight at a time; the tail through a zero-padded vector.
template <typename Fn>
inline void MapFloat8(const float* src, float* dst, int64_t count, Fn fn) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) StoreFloat8(dst + i, fn(LoadFloat8(src + i)));
  if (i < count) {
    float block[8] = {};
    std::memcpy(block, src + i, sizeof(float) * static_cast<size_t>(count - i));
    StoreFloat8(block, fn(LoadFloat8(block)));
    std::memcpy(dst + i, block, sizeof(float) * static_cast<size_t>(count - i));
  }
}

void ErfF32(const float* src, float* dst, int64_t count) {
  MapFloat8(src, dst, count, [](Float8 x) { return Erf8(x); });
}

void GeluErfF32(const float* src, float* dst, int64_t count) {
  MapFloat8(src, dst, count, [](Float8 x) { return GeluErf8(x); });
}

}  // namespace

extern const IsaKernels kKernels;
const IsaKernels kKernels = {&GemmAccumulate<float>,
                             &GemmAccumulate<double>,
                             &PackedPanelF32,
                             &ScaledAdd<float>,
                             &ScaledAdd<double>,
                             &Depthwise2D<float>,
                             &Depthwise2D<double>,
                             &NormalizeF32,
                             &ClampF32,
                             &ErfF32,
                             &GeluErfF32};

}  // namespace prism::mlas::PRISM_ISA_NAMESPACE

#undef Eigen
