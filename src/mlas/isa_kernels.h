// The kernels compiled once per instruction-set level (src/mlas/isa/), as a table of plain
// function pointers: callers take the table of the active level (ActiveKernels) and stay in
// baseline code themselves.
#pragma once

#include <cstdint>

#include "mlas/cpu_isa.h"
#include "mlas/nchwc.h"

namespace prism::mlas {

// One channel of a 2-D depthwise convolution: geometry only, no framework types.
struct DepthwiseGeometry {
  int64_t in_h, in_w, out_h, out_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
};

// The float depthwise kernel's scratch: the input plane zero-padded, `cols` floats per row (every
// column the output row, rounded up to whole groups of eight, reads, plus one: stride 2 loads
// sixteen values and keeps the even ones), `padded_rows` rows, then 4 x 8 floats for the last
// partial groups of four rows.
struct DepthwiseLayout {
  int64_t cols, padded_rows;
  int64_t ScratchFloats() const { return padded_rows * cols + 32; }
};
inline DepthwiseLayout DepthwiseLayoutOf(const DepthwiseGeometry& g) {
  const int64_t out_w8 = (g.out_w + 7) / 8 * 8;
  return DepthwiseLayout{(out_w8 - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 2,
                         (g.out_h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1};
}

// The SGEMM's packing formats: panels of A are 6 rows tall, panels of B 16 columns wide (the
// prepacked weights of packed_gemm.h have this panel width on every level). A level's register
// tile covers one or two panels of each (IsaKernels::sgemm_tile_rows).
constexpr int64_t kSgemmPanelRows = 6;
constexpr int64_t kSgemmPanelCols = 16;

// The activations bias_activation_row_f32 applies.
constexpr int kActivationNone = 0;
constexpr int kActivationRelu = 1;
constexpr int kActivationLeakyRelu = 2;  // a: the slope below 0
constexpr int kActivationClip = 3;       // a, b: the bounds
// The elementwise activations activation_f32 applies (a, b: the ONNX op's attributes).
constexpr int kUnaryLeakyRelu = 0;        // x < 0 ? a x : x
constexpr int kUnaryElu = 1;              // x < 0 ? a (e^x - 1) : x
constexpr int kUnarySelu = 2;             // b (x > 0 ? x : a (e^x - 1))
constexpr int kUnaryCelu = 3;             // max(0, x) + min(0, a (e^(x / a) - 1))
constexpr int kUnaryHardSigmoid = 4;      // min(1, max(0, a x + b))
constexpr int kUnaryHardSwish = 5;        // x min(1, max(0, x / 6 + 1 / 2))
constexpr int kUnaryThresholdedRelu = 6;  // x > a ? x : 0
constexpr int kUnaryMish = 7;             // x tanh(ln(1 + e^x))
constexpr int kUnarySoftplus = 8;         // ln(1 + e^x)
constexpr int kUnaryFloor = 9;            // rounded down, exactly as std::floor
constexpr int kUnaryCeil = 10;            // rounded up, as std::ceil
constexpr int kUnaryRound = 11;           // to the nearest, halves to even, as std::nearbyint
constexpr int kUnarySqrt = 12;            // correctly rounded, NaN below 0, as std::sqrt
// The constants of an int8 GEMM's requantizing store (QgemmStore::out8), read by the AVX-512
// kernel's assembly at these offsets: the clamp bounds shifted by the zero point (low -
// zero_point, high - zero_point, integers), the zero point, and the integer 1 and float 0 its
// round-to-odd step uses.
struct QgemmRequantizeConstants {
  float low = 0.0f;
  float high = 0.0f;
  int32_t zero_point = 0;
  int32_t one = 1;
  float zero = 0.0f;
};

// How an int8 GEMM kernel writes its sums to C: added to C (accumulate) or stored, and, when
// column_term is given (the last depth block), with the zero points' terms (mlas/qgemm.h):
// + column_term[j] - column_zero[j] * row_sums[i], the row term only when row_sums is given.
// The pointers index the block's own rows and columns; all arithmetic wraps in 32 bits.
struct QgemmStore {
  bool accumulate = false;
  const int32_t* row_sums = nullptr;
  const int32_t* column_zero = nullptr;
  const int32_t* column_term = nullptr;
  // When set (only for a kernel with IsaKernels::qgemm_vnni_requantizes or
  // qgemm_block_requantizes, on the last depth block, never with accumulate): each sum, with the
  // terms above, is requantized as mlas::QgemmRequantize (qgemm.h) says and the byte lands at
  // out8[i * out8_stride + j]; C is not written. out_scale: one float multiplier per column;
  // out_constants: the bounds and zero point.
  uint8_t* out8 = nullptr;
  int64_t out8_stride = 0;
  const float* out_scale = nullptr;
  const QgemmRequantizeConstants* out_constants = nullptr;
  // With out8: A's rows in place (uint8, row i at a_rows + i * a_stride, readable to whole depth
  // groups: zeros past the depth), which the kernel reads for its whole 12-row tiles instead of the
  // packed panels (then only a last partial panel is packed); nullptr: the packed panels.
  const uint8_t* a_rows = nullptr;
  int64_t a_stride = 0;
  // A mixed B's fix-ups (mlas/qgemm.h; only for qgemm_block): the block's panel p has entries
  // [fixup_begin[p], fixup_begin[p + 1]) of fixup_group (depth groups counted from B's first,
  // ascending) and fixup_data (64 bytes each, narrow); the block's A starts at depth group
  // fixup_group0 and has `groups` of them (entries outside are skipped). nullptr: none.
  const int32_t* fixup_begin = nullptr;
  const int32_t* fixup_group = nullptr;
  const int8_t* fixup_data = nullptr;
  int64_t fixup_group0 = 0;
  // A B with paired groups (mlas/qgemm.h; only for qgemm_block): the block's panel p stores its
  // groups in the order group_order[p * group_order_stride + s] (A's group, counted from the
  // block's first), its first paired_groups[p * paired_groups_stride] of them in pairs. nullptr:
  // depth order, no pairs.
  const int32_t* group_order = nullptr;
  int64_t group_order_stride = 0;
  const int32_t* paired_groups = nullptr;
  int64_t paired_groups_stride = 0;

  // The same for the tile at (row, col) of the block.
  QgemmStore At(int64_t row, int64_t col) const {
    QgemmStore tile = *this;
    if (row_sums != nullptr) tile.row_sums += row;
    if (column_zero != nullptr) tile.column_zero += col;
    if (column_term != nullptr) tile.column_term += col;
    if (out8 != nullptr) {
      tile.out8 += row * out8_stride + col;
      tile.out_scale += col;
    }
    if (a_rows != nullptr) tile.a_rows += row * a_stride;
    if (fixup_begin != nullptr) tile.fixup_begin += col / 16;  // col: a whole number of panels
    if (group_order != nullptr) {
      tile.group_order += col / 16 * group_order_stride;
      tile.paired_groups += col / 16 * paired_groups_stride;
    }
    return tile;
  }
};

// One output row of an 8-bit channels-last depthwise convolution for depthwise_nhwc_q8: pixels
// [0, pixels) whose taps all lie inside the input row (the caller does the others). Tap t (row
// kh = t / kernel_w, column kw = t % kernel_w) of pixel i reads `channels` values at rows[kh] +
// first + i * step + kw * dilation (offsets in elements; a padding row is a row of x_zero).
struct DepthwiseQ8Row {
  const uint8_t* const* rows = nullptr;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t first = 0, step = 0, dilation = 0;
  int64_t pixels = 0;
  bool x_signed = false;
  // depthwise_q8.h's packed weights, terms and multipliers (channels a multiple of 16); for
  // depthwise_nhwc_q8_quads the DepthwiseQ8QuadOperands' weights (quad_weights), terms and
  // multipliers instead.
  const int16_t* weights = nullptr;
  const int8_t* quad_weights = nullptr;
  const int32_t* terms = nullptr;
  const float* multipliers = nullptr;
  int64_t channels = 0;
  int32_t y_zero = 0;
  bool y_signed = false;
  uint8_t* out = nullptr;  // pixel i's channels at out + i * channels
};

struct IsaKernels {
  // ---- SGEMM (driven by mlas/sgemm.cc; formats in mlas/sgemm.h) ----
  // The micro-kernel's tile: rows a multiple of kSgemmPanelRows that divides kSgemmRowBlock,
  // columns a multiple of kSgemmPanelCols that divides kSgemmColumnBlock. The thread split cuts C
  // in multiples of them.
  int64_t sgemm_tile_rows;
  int64_t sgemm_tile_cols;
  // The depth of a block of B packed at once (sgemm.h's kSgemmDepthBlock, or deeper).
  int64_t sgemm_depth_block;
  // With B prepacked, blocks as deep as a block of A of this many bytes allows (at least
  // sgemm_depth_block; 0: sgemm_depth_block). There is no packing to bound, and fewer, deeper
  // blocks mean fewer passes over C and fewer tile starts and stores.
  int64_t sgemm_prepacked_a_block_bytes;
  // Packs op(A)'s m x k block (A stored m x k with leading dimension lda, k x m with trans_a)
  // into panels of kSgemmPanelRows rows: panel t holds rows 6t.. and, for each p, those rows'
  // values contiguously; the last panel holds only its rows (rows * k floats). Writes m * k floats.
  void (*sgemm_pack_a)(bool trans_a, int64_t m, int64_t k, const float* a, int64_t lda,
                       float* packed);
  // Packs op(B)'s k x n block (B stored k x n with ldb, n x k with trans_b) into panels of
  // kSgemmPanelCols columns: panel j starts at packed + j * panel_stride (panel_stride >= 16 k)
  // and holds, for each p, 16 values, zeros past column n.
  void (*sgemm_pack_b)(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb,
                       float* packed, int64_t panel_stride);
  // C = alpha * A * B + beta * C for an m x n block of C from an m x k block of A and a packed
  // k x n block of B (panels b_panel_stride floats apart, each panel's rows 16 floats apart). A is
  // packed (sgemm_pack_a) when lda is 0, else read in place: row i at a + i * lda. C is not read
  // when beta is 0; nothing outside the m x n block is touched.
  void (*sgemm_block)(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                      const float* packed_b, int64_t b_panel_stride, float alpha, float beta,
                      float* c, int64_t ldc);
  // y[i] = alpha * sum_p A[i * lda + p] * x[p] + beta * y[i] for i < rows (y not read when beta
  // is 0): a matrix times a vector with the matrix's rows along the sum.
  void (*gemv_rows_f32)(int64_t rows, int64_t k, float alpha, const float* a, int64_t lda,
                        const float* x, float beta, float* y);
  // y[j] = alpha * sum_p x[p] * A[p * lda + j] + beta * y[j] for j < n (y not read when beta
  // is 0): a vector times a matrix, the matrix's rows along the output.
  void (*gemv_cols_f32)(int64_t k, int64_t n, float alpha, const float* a, int64_t lda,
                        const float* x, float beta, float* y);
  // Runs independent multiply-add chains in registers for `iterations` rounds and returns the
  // number of floating-point operations done (a multiply-add counts two): the peak probe.
  int64_t (*fma_probe_f32)(int64_t iterations);
  // ---- int8 GEMM (driven by mlas/qgemm.cc; formats and the input-range contract in
  // mlas/qgemm.h) ----
  // Rows of a packed A panel, a multiple of 4 that divides kQgemmRowBlock (qgemm.cc).
  int64_t qgemm_tile_rows;
  // Whether qgemm_block adds pairs of u8 x s8 products in saturating int16 (vpmaddubsw): then a
  // B outside the pair bound must be packed wide (mlas::QgemmPairsSaturate, qgemm.h).
  bool qgemm_block_saturates;
  // C's m x n block (int32, ldc) = (store.accumulate ? C : 0) + A B over `groups` depth groups
  // (+ store's zero-point terms), in wrapping 32-bit sums: A packed in panels of qgemm_tile_rows
  // rows (panel i at a + i * a_panel_stride; in it, group g holds each row's 4 bytes at g * rows *
  // 4), padded with zero rows; B packed (panel j at b + j * b_panel_stride, group g at g * 64).
  // wide (qgemm.h): B's groups 128 bytes of int16 pairs and A's values int16 (group g at g * rows
  // * 8). Nothing outside the m x n block of C is touched.
  void (*qgemm_block)(int64_t m, int64_t n, int64_t groups, const uint8_t* a,
                      int64_t a_panel_stride, const int8_t* b, int64_t b_panel_stride, bool wide,
                      const QgemmStore& store, int32_t* c, int64_t ldc);
  // The level's VNNI kernel (vpdpbusd: four products summed in 32 bits, exact for every input;
  // same arguments, never a wide B), which the product runs instead of qgemm_block when
  // qgemm_vnni_usable says this CPU has the extension (AVX-512 VNNI on the AVX-512 level,
  // AVX-VNNI on the AVX2 one) and B is not wide.
  // nullptr where the level has none; a copy of a table with qgemm_vnni_usable set to nullptr
  // runs qgemm_block (the tests do, to reach the vpmaddubsw kernels on a VNNI CPU).
  bool (*qgemm_vnni_usable)();
  void (*qgemm_block_vnni)(int64_t m, int64_t n, int64_t groups, const uint8_t* a,
                           int64_t a_panel_stride, const int8_t* b, int64_t b_panel_stride,
                           bool wide, const QgemmStore& store, int32_t* c, int64_t ldc);
  // Whether qgemm_block_vnni takes QgemmStore::out8 (requantizes in its store; the AVX-512
  // level's does).
  bool qgemm_vnni_requantizes;
  // Whether qgemm_block takes QgemmStore::out8 (the AVX2 tiles requantize from their registers;
  // wide and mixed B included).
  bool qgemm_block_requantizes;
  // Whether qgemm_block reads QgemmStore::a_rows for a narrow or mixed B (the AVX2 4-row tiles:
  // rows a_stride apart, 4 bytes a group).
  bool qgemm_block_reads_a_rows;
  // The level's AMX kernel (tdpbusd on 16 x 64-byte tiles: 16 x 16 x 64 products at once, summed
  // in 32 bits, exact for every input), which the product runs instead of the others when
  // qgemm_amx_usable says this CPU has AMX-INT8 and the OS lets this process use its tiles, and
  // B is narrow in depth order (never wide, mixed or paired: B is packed for kernels that do not
  // saturate there). Unlike the others it reads A as rows (row i at a + i * lda, uint8, readable
  // to groups * 4 bytes; the bytes past the depth meet B's zero padding) and takes the whole
  // depth in one call: m rows (any count) times n columns of B's panels (b, b_panel_stride),
  // stored as `store` says (with out8 requantized; never accumulate). nullptr where the level
  // has none; a copy of a table with qgemm_amx_usable set to nullptr runs the VNNI kernel (the
  // tests do).
  bool (*qgemm_amx_usable)();
  void (*qgemm_amx)(int64_t m, int64_t n, int64_t groups, const uint8_t* a, int64_t lda,
                    const int8_t* b, int64_t b_panel_stride, const QgemmStore& store, int32_t* c,
                    int64_t ldc);
  // One row of 8-bit outputs from int32 sums (the int8 convolution's requantization):
  // out[i] = clamp(round_half_even(double(sum[i] + bias[i]) * multiplier[i]), low - zero_point,
  // high - zero_point) + zero_point, low/high the ends of int8 (to_int8) or uint8, the sum
  // wrapping in 32 bits; bias may be null (nothing added); broadcast: bias[0] and multiplier[0]
  // for every i. Multipliers must be finite. nullptr on the baseline level (the caller's SSE2
  // loop runs there).
  void (*requantize_row_s32)(const int32_t* sum, const int32_t* bias, const double* multiplier,
                             bool broadcast, int64_t count, int32_t zero_point, bool to_int8,
                             uint8_t* out);
  // Rows of 8-bit outputs, `channels` a pixel for `pixels` pixels, with per-channel operands:
  // out[p * channels + c] = requantize_row_s32's value of sum[p * channels + c] + bias[c] with
  // multiplier[c] (bias may be null), computed in single precision with the same results where
  // every multiplier is a finite float with |multiplier| >= 2^-14 (the caller's check). nullptr on
  // the baseline level.
  void (*requantize_channels_f32)(const int32_t* sum, const int32_t* bias, const float* multiplier,
                                  int64_t channels, int64_t pixels, int32_t zero_point,
                                  bool to_int8, uint8_t* out);
  // com.microsoft QLinearAdd of two same-shape rows (uint8, int8): c[i] =
  // round_half_even(clamp(float(a[i] - a_zero) * ratio_a + float(b[i] - b_zero) * ratio_b +
  // c_zero, type range)), each product and sum rounded to float (never fused: the units compile
  // it without contraction), NaN as the type's lowest value; onnxruntime's steps. nullptr on the
  // baseline level (qlinear_add_rows.h's SSE2 loop runs there).
  void (*qlinear_add_u8)(const uint8_t* a, const uint8_t* b, uint8_t* c, int64_t count,
                         int32_t a_zero, int32_t b_zero, float ratio_a, float ratio_b,
                         int32_t c_zero);
  void (*qlinear_add_s8)(const int8_t* a, const int8_t* b, int8_t* c, int64_t count, int32_t a_zero,
                         int32_t b_zero, float ratio_a, float ratio_b, int32_t c_zero);
  // C += alpha * op(A) * op(B) in double, row-major (see gemm.h for layouts).
  void (*gemm_accumulate_f64)(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                              double alpha, const double* a, int64_t lda, const double* b,
                              int64_t ldb, double* c, int64_t ldc);
  // dst[i] += weight * src[i * src_stride] for i < count.
  void (*scaled_add_f32)(float* dst, const float* src, int64_t count, int64_t src_stride,
                         float weight);
  void (*scaled_add_f64)(double* dst, const double* src, int64_t count, int64_t src_stride,
                         double weight);
  // y[oh, ow] = bias + sum over the window of x * w, for one channel (y is written, not read).
  // float: scratch holds DepthwiseLayoutOf(geometry).ScratchFloats() floats, all zero before the
  // first call for a geometry (the kernel writes only the input's cells and the last block, so
  // the padding stays zero for the next channels).
  void (*depthwise2d_f32)(const DepthwiseGeometry& geometry, const float* x, const float* w,
                          float bias, float* y, float* scratch);
  void (*depthwise2d_f64)(const DepthwiseGeometry& geometry, const double* x, const double* w,
                          double bias, double* y);
  // One output row of a channels-last 8-bit depthwise convolution: for each output column ow,
  // sums[ow * channels + c] = the sum over the kernel offsets (kh, kw) whose input row rows[kh]
  // is not null and whose column offset columns[ow * kernel_w + kw] (iw * channels) is not
  // negative (the others are padding, which adds nothing) of
  // (x[c] - x_zero) * weights[(kh * kernel_w + kw) * channels + c], x the `channels` uint8 (or
  // int8 with x_signed) values at rows[kh] + that offset, the weights already
  // zero-point-shifted (integers of magnitude <= 255, as floats). Exact (32-bit wrapping).
  void (*depthwise_nhwc_s32)(const void* const* rows, const int64_t* columns, int64_t kernel_h,
                             int64_t kernel_w, int64_t out_w, const float* weights,
                             int64_t channels, int32_t x_zero, bool x_signed, int32_t* sums);
  // The same sums, computed from DepthwiseQ8Row's packed operands (x times the shifted weights
  // plus the terms, which hold the bias less x_zero times the weights' sum: wrapping, the same
  // value) and requantized as requantize_channels_f32 does into the row's 8-bit Y. The caller
  // checks the multipliers as for requantize_channels_f32. nullptr on the baseline level.
  void (*depthwise_nhwc_q8)(const DepthwiseQ8Row& row);
  // The same on DepthwiseQ8QuadOperands (four taps a vpdpbusd), where
  // depthwise_q8_quads_usable() says this CPU has AVX-512 VNNI; nullptr on other levels.
  bool (*depthwise_q8_quads_usable)();
  void (*depthwise_nhwc_q8_quads)(const DepthwiseQ8Row& row);
  // dst[i] = float((double(src[i]) - mean) * multiplier + bias): batch normalization of one row,
  // computed in double as the portable kernel does.
  void (*normalize_f32)(float* dst, const float* src, int64_t count, double mean, double multiplier,
                        double bias);
  // dst[i] = src[i] raised to lo and lowered to hi; NaN passes through.
  void (*clamp_f32)(float* dst, const float* src, int64_t count, float lo, float hi);
  // dst[i] = erf(src[i]), within 2.3e-7 relative where |x| <= 1 and 3e-7 absolute elsewhere
  // (erf(x) = 1 - erfc(x), erfc within 4.2e-7 relative); NaN stays NaN. dst may be src.
  void (*erf_f32)(const float* src, float* dst, int64_t count);
  // dst[i] = 0.5 x (1 + erf(x / sqrt(2))) of x = src[i] (+ bias[i] when bias is given), the tail
  // x < -sqrt(2) through erfc (relative error below 5e-7 there too). dst may be src.
  void (*gelu_erf_f32)(const float* src, const float* bias, float* dst, int64_t count);
  // dst[i] = e^x (within 2 ulp, denormal results gradual, 0 below them, infinity above), ln x
  // (within 2 ulp or 1e-45 absolute; -inf at 0, NaN below), tanh x (3e-7 relative) and
  // 1 / (1 + e^-x) (4 ulp); NaN stays NaN. dst may be src. (src/mlas/isa/transcendental_kernels.h)
  void (*exp_f32)(const float* src, float* dst, int64_t count);
  void (*log_f32)(const float* src, float* dst, int64_t count);
  void (*tanh_f32)(const float* src, float* dst, int64_t count);
  void (*sigmoid_f32)(const float* src, float* dst, int64_t count);
  // The largest of src[0 .. count) that is not NaN; -inf when there is none.
  float (*max_f32)(const float* src, int64_t count);
  // dst[i] = e^(src[i] - shift), returning the sum of them (a softmax's numerators and
  // denominator; NaN and infinity carry into the sum). dst may be src.
  float (*exp_shifted_sum_f32)(const float* src, float* dst, int64_t count, float shift);
  // dst[i] = src[i] * factor. dst may be src.
  void (*scale_f32)(float* dst, const float* src, int64_t count, float factor);
  // dst[i] = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (FastGelu, computed as x
  // sigmoid(2u)) and x sigmoid(alpha x) (QuickGelu). dst may be src.
  void (*gelu_tanh_f32)(const float* src, float* dst, int64_t count);
  void (*quick_gelu_f32)(const float* src, float* dst, int64_t count, float alpha);
  // dst[i] = f(src[i]), f one of the kUnary* activations with attributes a and b: e^x - 1 within
  // 6e-7 relative (a Taylor polynomial near 0, no cancellation), ln(1 + e^x) within 4e-7, NaN
  // kept where the ONNX formulas keep it (ThresholdedRelu gives 0 for NaN, as its comparison
  // does). dst may be src. (src/mlas/isa/transcendental_kernels.h)
  void (*activation_f32)(const float* src, float* dst, int64_t count, int kind, float a, float b);
  // One output row of a 2-D pooling window, whose every tap lies inside the input:
  // out[i] = max (NaN wins) or sum over r < row_count, t < taps of
  // rows[r][i * stride + t * dilation], for i < count. out is written, not read; rows are read
  // only at the positions named.
  void (*pool_max_row_f32)(float* out, int64_t count, const float* const* rows, int64_t row_count,
                           int64_t taps, int64_t dilation, int64_t stride);
  void (*pool_sum_row_f32)(float* out, int64_t count, const float* const* rows, int64_t row_count,
                           int64_t taps, int64_t dilation, int64_t stride);
  // out[i] = f(out[i] + bias + sum[i]) for i < count (sum may be null: nothing added), f one of
  // the kActivation kinds (NaN passes through Relu and Clip, as std::max/std::min do): a
  // convolution's bias, residual sum and activation in one pass.
  void (*bias_activation_row_f32)(float* out, const float* sum, int64_t count, float bias, int kind,
                                  float a, float b);
  // ---- NCHWc (driven by mlas/nchwc.cc; formats and work items in mlas/nchwc.h) ----
  // The channel block b: one vector of floats.
  int64_t nchwc_block;
  void (*nchwc_reorder_input_f32)(const float* nchw, int64_t channels, int64_t spatial,
                                  float* nchwc, int64_t block_begin, int64_t block_end);
  void (*nchwc_reorder_output_f32)(const float* nchwc, int64_t channels, int64_t spatial,
                                   float* nchw, int64_t block_begin, int64_t block_end);
  // Work items [begin, end) of a convolution (filter packed by NchwcPackFilter) and a pooling.
  void (*nchwc_conv_f32)(const NchwcConvShape& shape, const float* input, const float* packed,
                         const NchwcConvEpilogue& epilogue, float* output, int64_t begin,
                         int64_t end);
  void (*nchwc_pool_f32)(const NchwcPoolShape& shape, const float* input, float* output,
                         int64_t begin, int64_t end);
  // The Winograd F(2x2, 3x3) and F(4x4, 3x3) transforms (output_tile 2 or 4) of tiles
  // [tile_begin, tile_end) of one image (mlas/nchwc_winograd.h: tiles row-major over a grid
  // tiles_w wide; point p of a tile's channel c at p * point_stride + (tile - tile_begin) *
  // channels + c).
  void (*nchwc_winograd_input_f32)(const NchwcConvShape& shape, int output_tile, const float* image,
                                   int64_t tiles_w, int64_t tile_begin, int64_t tile_end,
                                   float* transformed, int64_t point_stride);
  void (*nchwc_winograd_output_f32)(const NchwcConvShape& shape, int output_tile,
                                    const float* products, int64_t point_stride, int64_t tiles_w,
                                    int64_t tile_begin, int64_t tile_end,
                                    const NchwcConvEpilogue& epilogue, float* output_image,
                                    const float* sum_image);
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
namespace avx512 {
extern const IsaKernels kKernels;
}

}  // namespace prism::mlas
