// QGemm (com.microsoft, version 1; onnxruntime's contrib op, which QDQGemmFusion makes):
//   S[m, n] = sum_k (A'[m, k] - a_zero_point) * (B'[k, n] - b_zero_point[n]) + C[m, n]
// with A' = transA ? A^T : A (M x K) and B' = transB ? B^T : B (K x N), 2-D, uint8 or int8 each,
// in 32-bit wrapping arithmetic (onnxruntime's int32 accumulator), and C an optional int32 bias
// broadcast to [M, N] (one value, [N], [1, N], [M, 1] or [M, N]). With the per-column multiplier
//   multiplier[n] = (alpha * a_scale * b_scale[n]) [/ y_scale]
// rounded to float after each step (onnxruntime's order):
//   no y_zero_point: Y (float) = float(S) * multiplier[n], in float as onnxruntime computes it;
//   y_zero_point:    Y = saturate(round_half_even(S * multiplier[n]) + y_zero_point), the
//                    product in double (as QLinearConv and QLinearMatMul requantize; onnxruntime
//                    rounds it to float first and can differ by one step at a tie), Y of
//                    y_zero_point's type.
// a_scale and a_zero_point are one value; b_scale and b_zero_point one value or one per column
// (1-D of length N); y_scale and y_zero_point one value. The sums come from the int8 GEMM
// (mlas/qgemm.h), a constant B packed once (transposed first when transB). onnxruntime registers
// int8 A only with int8 B; the GEMM takes every pair.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "mlas/qgemm.h"
#include "mlas/transpose_bytes.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/packed_quant_b.h"

namespace prism::cpu::contrib {
namespace {

using E = ElementType;

enum Input : int {
  kA = 0,
  kAScale = 1,
  kAZero = 2,
  kB = 3,
  kBScale = 4,
  kBZero = 5,
  kC = 6,
  kYScale = 7,
  kYZero = 8,
};

bool IsEightBit(E type) {
  return type == E::kInt8 || type == E::kUint8;
}

int32_t EightBitValue(const Tensor& tensor, int64_t i) {
  return tensor.Type() == E::kInt8 ? tensor.Data<int8_t>()[i] : tensor.Data<uint8_t>()[i];
}

// A rows x cols byte matrix transposed (cols x rows).
std::vector<uint8_t> Transposed(const void* data, int64_t rows, int64_t cols) {
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols));
  mlas::TransposeBytes(static_cast<const uint8_t*>(data), cols, rows, cols, out.data(), rows);
  return out;
}

// Row of 8-bit outputs where the level has no vectorized requantization (baseline): the
// arithmetic of IsaKernels::requantize_row_s32.
void RequantizeRowPlain(const int32_t* sum, const int32_t* bias, const double* multiplier,
                        int64_t count, int32_t zero_point, bool to_int8, uint8_t* out) {
  const double low = (to_int8 ? -128.0 : 0.0) - zero_point;
  const double high = (to_int8 ? 127.0 : 255.0) - zero_point;
  for (int64_t n = 0; n < count; ++n) {
    const auto total = static_cast<int32_t>(static_cast<uint32_t>(sum[n]) +
                                            static_cast<uint32_t>(bias != nullptr ? bias[n] : 0));
    const double x = std::min(std::max(static_cast<double>(total) * multiplier[n], low), high);
    out[n] = static_cast<uint8_t>(static_cast<int32_t>(std::nearbyint(x)) + zero_point);
  }
}

class QGemm final : public OpKernel {
 public:
  explicit QGemm(const OpKernelInfo& info)
      : OpKernel(info),
        trans_a_(info.IntOr("transA", 0) != 0),
        trans_b_(info.IntOr("transB", 0) != 0),
        alpha_(info.FloatOr("alpha", 1.0f)) {}

  // A constant 2-D B is packed once (transposed first when transB: another format name).
  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    if (input_index != kB) return "";
    const std::string format = PackedQuantBFormat(weight);
    return format.empty() || !trans_b_ ? format : format + ".transposed";
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return trans_b_ ? PackQuantBTransposed(weight) : PackQuantB(weight);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_b_.Use(std::move(packed));
  }

  void Compute(OpKernelContext& context) const override {
    const std::string where = GetNode().Describe();
    const Tensor& a = context.RequiredInput(kA);
    const Tensor* b = packed_b_.packed == nullptr ? &context.RequiredInput(kB) : nullptr;
    const E b_type = b != nullptr ? b->Type() : packed_b_.weight.type;
    const TensorShape& b_shape = b != nullptr ? b->Shape() : packed_b_.weight.shape;
    const Tensor& a_scale = context.RequiredInput(kAScale);
    const Tensor* a_zero = context.Input(kAZero);
    const Tensor& b_scale = context.RequiredInput(kBScale);
    const Tensor* b_zero = context.Input(kBZero);
    const Tensor* c = context.Input(kC);
    const Tensor* y_scale = context.Input(kYScale);
    const Tensor* y_zero = context.Input(kYZero);

    PRISM_ENFORCE(a.Shape().Rank() == 2 && b_shape.Rank() == 2, kInvalidArgument, where,
                  ": A and B must be 2-D, got A ", a.Shape().ToString(), " and B ",
                  b_shape.ToString());
    const int64_t m = trans_a_ ? a.Shape()[1] : a.Shape()[0];
    const int64_t k = trans_a_ ? a.Shape()[0] : a.Shape()[1];
    const int64_t b_k = trans_b_ ? b_shape[1] : b_shape[0];
    const int64_t n = trans_b_ ? b_shape[0] : b_shape[1];
    PRISM_ENFORCE(k == b_k, kInvalidArgument, where, ": inner dimensions differ: A ",
                  a.Shape().ToString(), trans_a_ ? " (transA)" : "", " has K = ", k, " but B ",
                  b_shape.ToString(), trans_b_ ? " (transB)" : "", " has K = ", b_k);
    CheckParameters(where, a, b_type, a_scale, a_zero, b_scale, b_zero, y_scale, y_zero, n);
    if (c != nullptr) CheckBias(where, *c, m, n);

    const E out_type = y_zero != nullptr ? y_zero->Type() : E::kFloat;
    Tensor& y = context.Output(0, TensorShape({m, n}), out_type);
    if (m == 0 || n == 0) return;

    // The per-column multipliers in onnxruntime's float steps.
    const float a_scale_value = a_scale.Data<float>()[0];
    const float* b_scales = b_scale.Data<float>();
    const bool per_column_scale = b_scale.NumElements() != 1;
    std::vector<float> multipliers(static_cast<size_t>(n));
    for (int64_t col = 0; col < n; ++col) {
      float value = alpha_ * a_scale_value * b_scales[per_column_scale ? col : 0];
      if (y_scale != nullptr) value /= y_scale->Data<float>()[0];
      multipliers[static_cast<size_t>(col)] = value;
    }

    // The exact int32 sums (without C) from the int8 GEMM; kept between runs (a fresh buffer of
    // this size would be mapped and faulted in anew).
    thread_local std::vector<int32_t> sums;
    if (sums.size() < static_cast<size_t>(m * n)) sums.resize(static_cast<size_t>(m * n));
    if (k == 0) {
      std::fill(sums.begin(), sums.begin() + m * n, 0);
    } else {
      std::vector<uint8_t> a_rows;
      const void* a_data = a.RawData();
      if (trans_a_) {
        a_rows = Transposed(a.RawData(), k, m);
        a_data = a_rows.data();
      }
      std::optional<mlas::PackedQuantB> packed_here;
      if (b != nullptr) {
        const bool saturate = mlas::QgemmPairsSaturate(mlas::ActiveKernels());
        if (trans_b_) {
          const std::vector<uint8_t> b_rows = Transposed(b->RawData(), n, k);
          packed_here.emplace(
              mlas::PackedQuantB::Pack(k, n, b_rows.data(), n, b_type == E::kInt8, saturate));
        } else {
          packed_here.emplace(
              mlas::PackedQuantB::Pack(k, n, b->RawData(), n, b_type == E::kInt8, saturate));
        }
      }
      mlas::QgemmZeroPoints zero_points;
      zero_points.a = a_zero != nullptr ? EightBitValue(*a_zero, 0) : 0;
      std::vector<int32_t> b_zeros;
      if (b_zero != nullptr && b_zero->NumElements() != 1) {
        for (int64_t col = 0; col < n; ++col) b_zeros.push_back(EightBitValue(*b_zero, col));
        zero_points.b_per_column = b_zeros.data();
      } else if (b_zero != nullptr) {
        zero_points.b_scalar = EightBitValue(*b_zero, 0);
      }
      mlas::Qgemm(m, a_data, k, a.Type() == E::kInt8,
                  packed_here.has_value() ? *packed_here : *packed_b_.packed, zero_points,
                  sums.data(), n, context.IntraOpThreadPool());
    }

    // C's row m as n values (nullptr: no C).
    std::vector<int32_t> bias_row;
    const auto bias_of_row = [&](int64_t row) -> const int32_t* {
      if (c == nullptr) return nullptr;
      const int32_t* data = c->Data<int32_t>();
      const int64_t rank = c->Shape().Rank();
      const int64_t last = rank == 0 ? 1 : c->Shape()[rank - 1];
      const int64_t rows = rank == 2 ? c->Shape()[0] : 1;
      if (last == n && n != 1) return data + (rows == 1 ? 0 : row * n);
      const int32_t value = data[rows == 1 ? 0 : row];
      if (bias_row.size() != static_cast<size_t>(n) || bias_row[0] != value)
        bias_row.assign(static_cast<size_t>(n), value);
      return bias_row.data();
    };

    if (y_zero == nullptr) {
      float* out = y.MutableData<float>();
      for (int64_t row = 0; row < m; ++row) {
        const int32_t* sum = sums.data() + row * n;
        const int32_t* bias = bias_of_row(row);
        float* out_row = out + row * n;
        for (int64_t col = 0; col < n; ++col) {
          const auto total =
              static_cast<int32_t>(static_cast<uint32_t>(sum[col]) +
                                   static_cast<uint32_t>(bias != nullptr ? bias[col] : 0));
          out_row[col] = static_cast<float>(total) * multipliers[static_cast<size_t>(col)];
        }
      }
      return;
    }

    std::vector<double> wide(multipliers.begin(), multipliers.end());
    for (size_t col = 0; col < wide.size(); ++col)
      PRISM_ENFORCE(std::isfinite(wide[col]), kInvalidArgument, where,
                    ": the output multiplier alpha * a_scale * b_scale / y_scale of column ", col,
                    " is ", wide[col], "; it must be finite (a zero y_scale or an infinite scale)");
    const bool to_int8 = out_type == E::kInt8;
    const int32_t zero_point = EightBitValue(*y_zero, 0);
    auto* out = static_cast<uint8_t*>(y.MutableRawData());
    const auto kernel = mlas::ActiveKernels().requantize_row_s32;
    for (int64_t row = 0; row < m; ++row) {
      const int32_t* bias = bias_of_row(row);
      if (kernel != nullptr)
        kernel(sums.data() + row * n, bias, wide.data(), false, n, zero_point, to_int8,
               out + row * n);
      else
        RequantizeRowPlain(sums.data() + row * n, bias, wide.data(), n, zero_point, to_int8,
                           out + row * n);
    }
  }

 private:
  static void CheckParameters(const std::string& where, const Tensor& a, E b_type,
                              const Tensor& a_scale, const Tensor* a_zero, const Tensor& b_scale,
                              const Tensor* b_zero, const Tensor* y_scale, const Tensor* y_zero,
                              int64_t n) {
    PRISM_ENFORCE(IsEightBit(a.Type()) && IsEightBit(b_type), kInvalidArgument, where,
                  ": A and B must be uint8 or int8, got ", ElementTypeName(a.Type()), " and ",
                  ElementTypeName(b_type));
    const auto one_value = [](const Tensor& t) {
      return t.NumElements() == 1 && t.Shape().Rank() <= 1;
    };
    const auto one_or_per_column = [&](const Tensor& t) {
      return one_value(t) || (t.Shape().Rank() == 1 && t.Shape()[0] == n);
    };
    PRISM_ENFORCE(one_value(a_scale), kInvalidArgument, where,
                  ": a_scale must be one value (a scalar or [1]), got ", a_scale.Describe());
    PRISM_ENFORCE(a_zero == nullptr || (one_value(*a_zero) && a_zero->Type() == a.Type()),
                  kInvalidArgument, where, ": a_zero_point must be one ", ElementTypeName(a.Type()),
                  " (a scalar or [1]), got ", a_zero->Describe());
    PRISM_ENFORCE(one_or_per_column(b_scale), kInvalidArgument, where,
                  ": b_scale must be one value or 1-D of length N = ", n, ", got ",
                  b_scale.Describe());
    PRISM_ENFORCE(b_zero == nullptr || (one_or_per_column(*b_zero) && b_zero->Type() == b_type),
                  kInvalidArgument, where, ": b_zero_point must be one ", ElementTypeName(b_type),
                  " or 1-D of length N = ", n, ", got ", b_zero->Describe());
    PRISM_ENFORCE(y_scale == nullptr || one_value(*y_scale), kInvalidArgument, where,
                  ": y_scale must be one value (a scalar or [1]), got ", y_scale->Describe());
    PRISM_ENFORCE(y_zero == nullptr || (one_value(*y_zero) && IsEightBit(y_zero->Type())),
                  kInvalidArgument, where,
                  ": y_zero_point must be one uint8 or int8 (a scalar or [1]), got ",
                  y_zero->Describe());
    PRISM_ENFORCE(y_zero == nullptr || y_scale != nullptr, kInvalidArgument, where,
                  ": y_zero_point (quantized output) needs y_scale");
  }

  // C must broadcast to [M, N] on its own: one value, [N], [1, N], [M, 1] or [M, N].
  static void CheckBias(const std::string& where, const Tensor& c, int64_t m, int64_t n) {
    const std::vector<int64_t>& dims = c.Shape().Dims();
    bool ok = c.NumElements() == 1 && dims.size() <= 2;
    if (dims.size() == 1) ok = ok || dims[0] == n;
    if (dims.size() == 2)
      ok = ok || ((dims[0] == 1 || dims[0] == m) && (dims[1] == 1 || dims[1] == n));
    PRISM_ENFORCE(c.Type() == E::kInt32 && ok, kInvalidArgument, where,
                  ": C must be int32 and broadcast to [M, N] = [", m, ", ", n,
                  "] (one value, [N], [1, N], [M, 1] or [M, N]), got ", c.Describe());
  }

  bool trans_a_;
  bool trans_b_;
  float alpha_;
  PackedQuantWeight packed_b_;
};

void RegisterQGemmKernels(KernelRegistry& registry) {
  const std::vector<E> eight_bit = {E::kUint8, E::kInt8};
  registry.Register(KernelDefBuilder("QGemm")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", {E::kFloat}, {kAScale, kBScale, kYScale})
                        .Constraint("TA", eight_bit, {kA, kAZero})
                        .Constraint("TB", eight_bit, {kB, kBZero})
                        .Constraint("TC", {E::kInt32}, {kC})
                        .Constraint("TYZ", eight_bit, {kYZero})
                        .Constraint("TY", {E::kFloat, E::kUint8, E::kInt8}, {}, {0})
                        .Build(),
                    MakeKernelFactory<QGemm>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_qgemm, RegisterQGemmKernels);

}  // namespace prism::cpu::contrib
