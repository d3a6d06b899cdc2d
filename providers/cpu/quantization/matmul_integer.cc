// MatMulInteger (opset 10) and QLinearMatMul (opsets 10 and 21): numpy matmul (batch dims
// broadcast, 1-D operands promoted and dropped) of (a - a_zero_point) and (b - b_zero_point).
// A's zero point (and scale) is a scalar or one per row: 1-D of length M, or [..., M, 1] whose
// batch dims broadcast; B's is a scalar or one per column: 1-D of length N, or [..., 1, N].
//   MatMulInteger: the exact sum as int32 (wrapping in 32 bits, as the spec allows).
//   QLinearMatMul: y = saturate(round_half_even(sum * (a_scale * b_scale / y_scale)) + y_zp),
//                  the multiplier rounded to the scales' type after each step (float before 21),
//                  the product in double; y_scale and y_zero_point are per tensor. float8
//                  operands (21+) are dequantized exactly and the sum is encoded as y's float8
//                  type (round to nearest even, saturating).
// The sums come from the int8 GEMM (mlas/qgemm.h) when both operands are 8-bit integers, A's
// zero point is one value, B's one value or one per column ([N]), and no sum can leave int32
// (k * 255 * 255 < 2^31); otherwise from the reference loops below. A constant 2-D B is packed
// once for it (PrePack). QLinearMatMul with 8-bit output, one A scale and one B scale or one per
// column then requantizes from the int32 sums with per-column multipliers (RequantizeRow).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "mlas/qgemm.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/packed_quant_b.h"
#include "providers/cpu/quantization/quantize_common.h"

namespace prism::cpu {
namespace {

using E = ElementType;
using quantization::ElementAsDouble;

// The product's geometry.
struct MatMulGeometry {
  int64_t m = 1;
  int64_t k = 1;
  int64_t n = 1;
  std::vector<int64_t> batch;  // broadcast batch dims of the output
  int64_t batch_count = 1;
  TensorShape output_shape;
};

MatMulGeometry Geometry(const Node& node, const TensorShape& a_shape, const TensorShape& b_shape) {
  const std::string where = node.Describe();
  std::vector<int64_t> a_dims = a_shape.Dims();
  std::vector<int64_t> b_dims = b_shape.Dims();
  PRISM_ENFORCE(!a_dims.empty() && !b_dims.empty(), kInvalidArgument, where,
                ": inputs must have rank 1 or more, got a ", a_shape.ToString(), " and b ",
                b_shape.ToString());
  const bool a_vector = a_dims.size() == 1;
  const bool b_vector = b_dims.size() == 1;
  if (a_vector) a_dims.insert(a_dims.begin(), 1);
  if (b_vector) b_dims.push_back(1);
  MatMulGeometry g;
  g.m = a_dims[a_dims.size() - 2];
  g.k = a_dims.back();
  g.n = b_dims.back();
  PRISM_ENFORCE(b_dims[b_dims.size() - 2] == g.k, kInvalidArgument, where,
                ": inner dims differ: a ", a_shape.ToString(), " and b ", b_shape.ToString());
  const size_t a_batch = a_dims.size() - 2;
  const size_t b_batch = b_dims.size() - 2;
  const size_t rank = std::max(a_batch, b_batch);
  g.batch.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a_batch >= rank ? a_dims[i + a_batch - rank] : 1;
    const int64_t db = i + b_batch >= rank ? b_dims[i + b_batch - rank] : 1;
    PRISM_ENFORCE(da == db || da == 1 || db == 1, kInvalidArgument, where, ": batch dims of a ",
                  a_shape.ToString(), " and b ", b_shape.ToString(), " do not broadcast");
    g.batch[i] = da == 1 ? db : da;
    g.batch_count *= g.batch[i];
  }
  std::vector<int64_t> out = g.batch;
  if (!a_vector) out.push_back(g.m);
  if (!b_vector) out.push_back(g.n);
  g.output_shape = TensorShape(out);
  return g;
}

// For each output batch index, the flat batch index into an operand whose batch dims are
// `dims` (right-aligned against the output's, size 1 broadcast).
std::vector<int64_t> BatchIndices(const std::vector<int64_t>& out_batch,
                                  const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : out_batch) count *= d;
  std::vector<int64_t> indices(static_cast<size_t>(count), 0);
  std::vector<int64_t> position(out_batch.size(), 0);
  const size_t offset = out_batch.size() - dims.size();
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t index = 0;
    for (size_t i = 0; i < dims.size(); ++i)
      index = index * dims[i] + (dims[i] == 1 ? 0 : position[i + offset]);
    indices[static_cast<size_t>(flat)] = index;
    for (size_t i = out_batch.size(); i-- > 0;) {
      if (++position[i] < out_batch[i]) break;
      position[i] = 0;
    }
  }
  return indices;
}

// A per-tensor, per-row (A) or per-column (B) parameter (zero point or scale).
class RowOrColumnParameter {
 public:
  // per_row: A's parameter ([..., M, 1] or [M]); else B's ([..., 1, N] or [N]).
  RowOrColumnParameter(const Node& node, const std::string& name, const Tensor* tensor,
                       bool per_row, const MatMulGeometry& g, bool a_or_b_vector)
      : tensor_(tensor) {
    if (tensor == nullptr || tensor->NumElements() == 1) return;
    const std::vector<int64_t>& dims = tensor->Shape().Dims();
    const int64_t length = per_row ? g.m : g.n;
    const char* what = per_row ? "rows of a" : "columns of b";
    bool ok = !a_or_b_vector;
    if (ok && dims.size() == 1) {
      ok = dims[0] == length;
      batch_.assign(g.batch_count, 0);
    } else if (ok && dims.size() >= 2 && dims.size() - 2 <= g.batch.size()) {
      ok = dims[dims.size() - (per_row ? 2 : 1)] == length &&
           dims[dims.size() - (per_row ? 1 : 2)] == 1;
      const std::vector<int64_t> batch_dims(dims.begin(), dims.end() - 2);
      for (size_t i = 0; ok && i < batch_dims.size(); ++i)
        ok = batch_dims[i] == 1 || batch_dims[i] == g.batch[i + g.batch.size() - batch_dims.size()];
      if (ok) batch_ = BatchIndices(g.batch, batch_dims);
    } else {
      ok = false;
    }
    PRISM_ENFORCE(ok, kInvalidArgument, node.Describe(), ": ", name,
                  " must be a scalar or one value per ", what, " (", length, ": shape [", length,
                  "] or [..., ", per_row ? MakeString(length, ", 1") : MakeString("1, ", length),
                  "]), got ", tensor->Shape().ToString());
    stride_ = length;
  }

  // The value for output batch `batch` and row or column `index`.
  double Get(int64_t batch, int64_t index) const {
    if (tensor_ == nullptr) return 0.0;
    if (batch_.empty()) return ElementAsDouble(*tensor_, 0);
    return ElementAsDouble(*tensor_, batch_[static_cast<size_t>(batch)] * stride_ + index);
  }

 private:
  const Tensor* tensor_;
  std::vector<int64_t> batch_;  // empty: one value
  int64_t stride_ = 0;
};

// sum_k (a[m, k] - a_zp[m]) * (b[k, n] - b_zp[n]) for every batch, row and column, passed to
// emit(flat_output_index, sum, batch, m, n). Acc is int64_t (integer operands) or double.
bool IsInt8(ElementType type) {
  return type == E::kInt8 || type == E::kUint8;
}

// Whether the int8 GEMM computes these sums (see the top of the file).
bool QgemmApplies(ElementType a_type, ElementType b_type, const Tensor* a_zero,
                  const Tensor* b_zero, const MatMulGeometry& g) {
  if (!IsInt8(a_type) || !IsInt8(b_type)) return false;
  if (a_zero != nullptr && a_zero->NumElements() != 1) return false;
  if (b_zero != nullptr && b_zero->NumElements() != 1 &&
      !(b_zero->Shape().Rank() == 1 && b_zero->Shape()[0] == g.n))
    return false;
  return g.k < (int64_t{1} << 31) / (255 * 255);
}

// The sums by the int8 GEMM: into `direct` (int32, the output's layout) when given, else
// through emit as ForEachProduct below.
template <typename Acc, typename Emit>
void QgemmProducts(const Tensor& a, ElementType b_type, const Tensor* b,
                   const mlas::PackedQuantB* packed_b, const Tensor* a_zero, const Tensor* b_zero,
                   const MatMulGeometry& g, ThreadPool* pool, int32_t* direct, Emit&& emit) {
  const auto batch_dims = [](const TensorShape& shape) {
    return std::vector<int64_t>(shape.Dims().begin(),
                                shape.Dims().end() - std::min<size_t>(2, shape.Rank()));
  };
  const std::vector<int64_t> a_index = BatchIndices(g.batch, batch_dims(a.Shape()));
  const std::vector<int64_t> b_index =
      packed_b != nullptr ? std::vector<int64_t>(static_cast<size_t>(g.batch_count), 0)
                          : BatchIndices(g.batch, batch_dims(b->Shape()));
  const bool a_signed = a.Type() == E::kInt8;
  const bool b_signed = b_type == E::kInt8;
  mlas::QgemmZeroPoints zero;
  if (a_zero != nullptr) zero.a = static_cast<int32_t>(ElementAsDouble(*a_zero, 0));
  std::vector<int32_t> b_zeros;
  if (b_zero != nullptr) {
    if (b_zero->NumElements() == 1) {
      zero.b_scalar = static_cast<int32_t>(ElementAsDouble(*b_zero, 0));
    } else {
      for (int64_t j = 0; j < g.n; ++j)
        b_zeros.push_back(static_cast<int32_t>(ElementAsDouble(*b_zero, j)));
      zero.b_per_column = b_zeros.data();
    }
  }
  std::vector<int32_t> sums(direct != nullptr ? 0 : static_cast<size_t>(g.m * g.n));
  std::unique_ptr<mlas::PackedQuantB> packed_here;
  int64_t packed_index = -1;
  const auto* a_bytes = static_cast<const uint8_t*>(a.RawData());
  for (int64_t batch = 0; batch < g.batch_count; ++batch) {
    const mlas::PackedQuantB* operand = packed_b;
    if (operand == nullptr) {
      const int64_t index = b_index[static_cast<size_t>(batch)];
      if (index != packed_index) {
        packed_here = std::make_unique<mlas::PackedQuantB>(mlas::PackedQuantB::Pack(
            g.k, g.n, static_cast<const uint8_t*>(b->RawData()) + index * g.k * g.n, g.n, b_signed,
            mlas::QgemmPairsSaturate(mlas::ActiveKernels())));
        packed_index = index;
      }
      operand = packed_here.get();
    }
    int32_t* c = direct != nullptr ? direct + batch * g.m * g.n : sums.data();
    mlas::Qgemm(g.m, a_bytes + a_index[static_cast<size_t>(batch)] * g.m * g.k, g.k, a_signed,
                *operand, zero, c, g.n, pool);
    if (direct == nullptr)
      for (int64_t m = 0; m < g.m; ++m)
        for (int64_t n = 0; n < g.n; ++n)
          emit((batch * g.m + m) * g.n + n,
               static_cast<Acc>(sums[static_cast<size_t>(m * g.n + n)]), batch, m, n);
  }
}

template <typename Acc, typename Emit>
void ForEachProduct(const Node& node, const Tensor& a, const Tensor& b, const Tensor* a_zero,
                    const Tensor* b_zero, const MatMulGeometry& g, Emit&& emit) {
  const std::vector<int64_t> a_batch_dims(
      a.Shape().Dims().begin(), a.Shape().Dims().end() - std::min<size_t>(2, a.Shape().Rank()));
  const std::vector<int64_t> b_batch_dims(
      b.Shape().Dims().begin(), b.Shape().Dims().end() - std::min<size_t>(2, b.Shape().Rank()));
  const std::vector<int64_t> a_index = BatchIndices(g.batch, a_batch_dims);
  const std::vector<int64_t> b_index = BatchIndices(g.batch, b_batch_dims);
  const RowOrColumnParameter a_zp(node, "a_zero_point", a_zero, true, g, a.Shape().Rank() == 1);
  const RowOrColumnParameter b_zp(node, "b_zero_point", b_zero, false, g, b.Shape().Rank() == 1);
  std::vector<Acc> a_shifted(static_cast<size_t>(g.m * g.k));
  std::vector<Acc> b_shifted(static_cast<size_t>(g.k * g.n));
  std::vector<Acc> row(static_cast<size_t>(g.n));
  for (int64_t batch = 0; batch < g.batch_count; ++batch) {
    const int64_t a_base = a_index[static_cast<size_t>(batch)] * g.m * g.k;
    const int64_t b_base = b_index[static_cast<size_t>(batch)] * g.k * g.n;
    for (int64_t m = 0; m < g.m; ++m) {
      const double zero = a_zp.Get(batch, m);
      for (int64_t k = 0; k < g.k; ++k)
        a_shifted[static_cast<size_t>(m * g.k + k)] =
            static_cast<Acc>(ElementAsDouble(a, a_base + m * g.k + k) - zero);
    }
    for (int64_t k = 0; k < g.k; ++k)
      for (int64_t n = 0; n < g.n; ++n)
        b_shifted[static_cast<size_t>(k * g.n + n)] =
            static_cast<Acc>(ElementAsDouble(b, b_base + k * g.n + n) - b_zp.Get(batch, n));
    for (int64_t m = 0; m < g.m; ++m) {
      std::fill(row.begin(), row.end(), Acc(0));
      for (int64_t k = 0; k < g.k; ++k) {
        const Acc left = a_shifted[static_cast<size_t>(m * g.k + k)];
        const Acc* right = b_shifted.data() + k * g.n;
        for (int64_t n = 0; n < g.n; ++n) row[static_cast<size_t>(n)] += left * right[n];
      }
      for (int64_t n = 0; n < g.n; ++n)
        emit((batch * g.m + m) * g.n + n, row[static_cast<size_t>(n)], batch, m, n);
    }
  }
}

void CheckZeroType(const Node& node, const Tensor* zero, ElementType values, const char* name,
                   const char* of) {
  if (zero == nullptr) return;
  PRISM_ENFORCE(zero->Type() == values, kInvalidArgument, node.Describe(), ": ", name,
                " must have the type of ", of, " (", ElementTypeName(values), "), got ",
                ElementTypeName(zero->Type()));
}

// One row of QLinearMatMul's 8-bit output from its int32 sums: y = clamp(round_half_even(sum *
// multiplier[n]) + zero_point, low, high), in double as QuantizedWriter::Store does, for finite
// multipliers. The rounding adds and subtracts 1.5 * 2^52 (exact below 2^51, so the product is
// first limited to +-2^40, far past where it saturates anyway). Four values at a time with SSE2
// (every x86-64 has it).
void RequantizeRow(const int32_t* sum, const double* multiplier, int64_t count, double zero_point,
                   double low, double high, bool to_int8, uint8_t* out) {
  constexpr double kRound = 6755399441055744.0, kLimit = 0x1p40;
  int64_t n = 0;
#if defined(__SSE2__)
  const __m128d round = _mm_set1_pd(kRound), limit = _mm_set1_pd(kLimit);
  const __m128d negative_limit = _mm_set1_pd(-kLimit), zero = _mm_set1_pd(zero_point);
  const __m128d lows = _mm_set1_pd(low), highs = _mm_set1_pd(high);
  const auto requantize = [&](__m128d x) {
    x = _mm_min_pd(_mm_max_pd(x, negative_limit), limit);
    x = _mm_add_pd(_mm_sub_pd(_mm_add_pd(x, round), round), zero);
    return _mm_cvttpd_epi32(_mm_min_pd(_mm_max_pd(x, lows), highs));
  };
  for (; n + 4 <= count; n += 4) {
    const __m128i sums = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sum + n));
    const __m128i first =
        requantize(_mm_mul_pd(_mm_cvtepi32_pd(sums), _mm_loadu_pd(multiplier + n)));
    const __m128i second = requantize(_mm_mul_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(sums, 0xEE)),
                                                 _mm_loadu_pd(multiplier + n + 2)));
    const __m128i words = _mm_packs_epi32(_mm_unpacklo_epi64(first, second), _mm_setzero_si128());
    const __m128i bytes = to_int8 ? _mm_packs_epi16(words, words) : _mm_packus_epi16(words, words);
    const int32_t four = _mm_cvtsi128_si32(bytes);
    std::memcpy(out + n, &four, sizeof four);
  }
#endif
  for (; n < count; ++n) {
    double x = static_cast<double>(sum[n]) * multiplier[n];
    x = std::min(std::max(x, -kLimit), kLimit);
    const double value = std::min(std::max((x + kRound) - kRound + zero_point, low), high);
    out[n] = static_cast<uint8_t>(static_cast<int32_t>(value));
  }
}

class MatMulInteger final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    return input_index == 1 ? PackedQuantBFormat(weight) : "";
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return PackQuantB(weight);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_b_.Use(std::move(packed));
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& a = context.RequiredInput(0);
    std::optional<Tensor> unpacked;
    const Tensor* b = context.Input(1);
    if (packed_b_.packed == nullptr) b = &context.RequiredInput(1);
    const ElementType b_type = b != nullptr ? b->Type() : packed_b_.weight.type;
    const TensorShape& b_shape = b != nullptr ? b->Shape() : packed_b_.weight.shape;
    const Tensor* a_zero = context.Input(2);
    const Tensor* b_zero = context.Input(3);
    CheckZeroType(GetNode(), a_zero, a.Type(), "a_zero_point", "A");
    CheckZeroType(GetNode(), b_zero, b_type, "b_zero_point", "B");
    const MatMulGeometry g = Geometry(GetNode(), a.Shape(), b_shape);
    Tensor& y = context.Output(0, g.output_shape, E::kInt32);
    if (y.NumElements() == 0) return;
    int32_t* out = y.MutableData<int32_t>();
    if (QgemmApplies(a.Type(), b_type, a_zero, b_zero, g)) {
      QgemmProducts<int64_t>(a, b_type, b, b == nullptr ? packed_b_.packed.get() : nullptr, a_zero,
                             b_zero, g, context.IntraOpThreadPool(), out,
                             [](int64_t, int64_t, int64_t, int64_t, int64_t) {});
      return;
    }
    if (b == nullptr) b = &unpacked.emplace(packed_b_.weight.unpack());
    ForEachProduct<int64_t>(GetNode(), a, *b, a_zero, b_zero, g,
                            [&](int64_t index, int64_t sum, int64_t, int64_t, int64_t) {
                              // Wraps in 32 bits (C++20 conversions are modular).
                              out[index] = static_cast<int32_t>(sum);
                            });
  }

 private:
  PackedQuantWeight packed_b_;
};

class QLinearMatMul final : public OpKernel {
 public:
  explicit QLinearMatMul(const OpKernelInfo& info)
      : OpKernel(info), opset_(info.GetNode().OpsetVersion()) {}

  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    return input_index == 3 ? PackedQuantBFormat(weight) : "";
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return PackQuantB(weight);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_b_.Use(std::move(packed));
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const std::string where = node.Describe();
    const Tensor& a = context.RequiredInput(0);
    const Tensor& a_scale = context.RequiredInput(1);
    const Tensor* a_zero = context.Input(2);
    std::optional<Tensor> unpacked;
    const Tensor* b_input = context.Input(3);
    if (packed_b_.packed == nullptr) b_input = &context.RequiredInput(3);
    // B prepacked: its original for the reference loops only when they run (below).
    const ElementType b_type = b_input != nullptr ? b_input->Type() : packed_b_.weight.type;
    const TensorShape& b_shape = b_input != nullptr ? b_input->Shape() : packed_b_.weight.shape;
    const Tensor& b_scale = context.RequiredInput(4);
    const Tensor* b_zero = context.Input(5);
    const Tensor& y_scale = context.RequiredInput(6);
    const Tensor* y_zero = context.Input(7);
    CheckZeroType(node, a_zero, a.Type(), "a_zero_point", "a");
    CheckZeroType(node, b_zero, b_type, "b_zero_point", "b");
    PRISM_ENFORCE(a_scale.Type() == b_scale.Type() && a_scale.Type() == y_scale.Type(),
                  kInvalidArgument, where,
                  ": a_scale, b_scale and y_scale must share one type, got ",
                  ElementTypeName(a_scale.Type()), ", ", ElementTypeName(b_scale.Type()), " and ",
                  ElementTypeName(y_scale.Type()));
    PRISM_ENFORCE(
        y_scale.NumElements() == 1 && (y_zero == nullptr || y_zero->NumElements() == 1),
        kInvalidArgument, where,
        ": y_scale and y_zero_point must be scalars (per-tensor output quantization), got ",
        y_scale.Shape().ToString(),
        y_zero != nullptr ? MakeString(" and ", y_zero->Shape().ToString()) : "");
    const E out_type = y_zero != nullptr ? y_zero->Type() : a.Type();
    const MatMulGeometry g = Geometry(node, a.Shape(), b_shape);
    const RowOrColumnParameter a_scales(node, "a_scale", &a_scale, true, g, a.Shape().Rank() == 1);
    const RowOrColumnParameter b_scales(node, "b_scale", &b_scale, false, g, b_shape.Rank() == 1);
    Tensor& y = context.Output(0, g.output_shape, out_type);
    if (y.NumElements() == 0) return;
    const E precision = opset_ >= 21 ? y_scale.Type() : E::kFloat;
    const double out_scale = ElementAsDouble(y_scale, 0);
    const double out_zero = y_zero != nullptr ? ElementAsDouble(*y_zero, 0) : 0.0;
    const quantization::QuantizedWriter writer(y, /*saturate=*/true);
    const auto multiplier = [&](int64_t batch, int64_t m, int64_t n) {
      const double scales = quantization::RoundToPrecision(
          precision, a_scales.Get(batch, m) * b_scales.Get(batch, n));
      return quantization::RoundToPrecision(precision, scales / out_scale);
    };
    const auto store = [&](int64_t index, double sum, int64_t batch, int64_t m, int64_t n) {
      writer.Store(index, sum * multiplier(batch, m, n), out_zero);
    };
    if (QgemmApplies(a.Type(), b_type, a_zero, b_zero, g)) {
      const mlas::PackedQuantB* packed = b_input == nullptr ? packed_b_.packed.get() : nullptr;
      // 8-bit output with one A scale and one B scale or one per column: the multipliers once
      // per column, the int32 sums into a buffer, then a plain loop (the same arithmetic as the
      // writer's: round half to even in double, the zero point, saturation).
      const bool per_column_scales =
          a_scale.NumElements() == 1 &&
          (b_scale.NumElements() == 1 || (b_scale.Shape().Rank() == 1 && b_shape.Rank() != 1));
      if (IsInt8(out_type) && per_column_scales) {
        std::vector<double> multipliers(static_cast<size_t>(g.n));
        bool finite = true;
        for (int64_t n = 0; n < g.n; ++n) {
          multipliers[static_cast<size_t>(n)] = multiplier(0, 0, n);
          finite = finite && std::isfinite(multipliers[static_cast<size_t>(n)]);
        }
        if (!finite) {  // a zero or infinite scale: NaN products, the writer's rules
          QgemmProducts<double>(a, b_type, b_input, packed, a_zero, b_zero, g,
                                context.IntraOpThreadPool(), nullptr, store);
          return;
        }
        // Reused between runs: a fresh buffer of this size would be mapped and faulted in anew.
        thread_local std::vector<int32_t> sums;
        if (sums.size() < static_cast<size_t>(y.NumElements()))
          sums.resize(static_cast<size_t>(y.NumElements()));
        QgemmProducts<double>(a, b_type, b_input, packed, a_zero, b_zero, g,
                              context.IntraOpThreadPool(), sums.data(),
                              [](int64_t, double, int64_t, int64_t, int64_t) {});
        const double low = out_type == E::kInt8 ? -128.0 : 0.0;
        const double high = out_type == E::kInt8 ? 127.0 : 255.0;
        // Locals, not members, in the loop: the byte stores may alias anything in memory.
        uint8_t* out = static_cast<uint8_t*>(y.MutableRawData());
        const int64_t rows = g.batch_count * g.m, cols = g.n;
        const int32_t* sum = sums.data();
        const double* column_multiplier = multipliers.data();
        const double zero_point = out_zero;
        for (int64_t row = 0; row < rows; ++row, sum += cols, out += cols)
          RequantizeRow(sum, column_multiplier, cols, zero_point, low, high, out_type == E::kInt8,
                        out);
        return;
      }
      QgemmProducts<double>(a, b_type, b_input, packed, a_zero, b_zero, g,
                            context.IntraOpThreadPool(), nullptr, store);
      return;
    }
    const Tensor& b = b_input != nullptr ? *b_input : unpacked.emplace(packed_b_.weight.unpack());
    ForEachProduct<double>(node, a, b, a_zero, b_zero, g, store);
  }

 private:
  int opset_;
  PackedQuantWeight packed_b_;
};

void RegisterMatMulIntegerKernels(KernelRegistry& registry) {
  const std::vector<E> int8 = {E::kInt8, E::kUint8};
  registry.Register(KernelDefBuilder("MatMulInteger")
                        .Versions(10)
                        .Constraint("T1", int8, {0, 2})
                        .Constraint("T2", int8, {1, 3})
                        .Constraint("T3", {E::kInt32}, {}, {0})
                        .Build(),
                    MakeKernelFactory<MatMulInteger>());
  const auto qlinear = MakeKernelFactory<QLinearMatMul>();
  registry.Register(KernelDefBuilder("QLinearMatMul")
                        .Versions(10, 20)
                        .Constraint("T1", int8, {0, 2})
                        .Constraint("T2", int8, {3, 5})
                        .Constraint("T3", int8, {7}, {0})
                        .Build(),
                    qlinear);
  const std::vector<E> types21 = {E::kInt8,           E::kUint8,      E::kFloat8E4M3FN,
                                  E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ};
  registry.Register(KernelDefBuilder("QLinearMatMul")
                        .Versions(21)
                        .Constraint("TS", {E::kFloat, E::kFloat16, E::kBFloat16}, {1, 4, 6})
                        .Constraint("T1", types21, {0, 2})
                        .Constraint("T2", types21, {3, 5})
                        .Constraint("T3", types21, {7}, {0})
                        .Build(),
                    qlinear);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(quantization_matmul, RegisterMatMulIntegerKernels);

}  // namespace prism::cpu
