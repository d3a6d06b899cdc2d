// DynamicQuantizeMatMul (com.microsoft, version 1): Y = A @ dequantize(B) + bias, where float A
// is first quantized to uint8 as onnxruntime does (range widened to include 0,
// scale = (max - min) / 255 or 1 when max == min, zero point = round_half_even(clamp(-min /
// scale, 0, 255)), values round_half_even(a / scale) + zp saturated), the product is an exact
// int32 GEMM of (A_q - a_zp) and (B - b_zp) (mlas/qgemm.h; a constant B packed once), and
// each output is acc * (a_scale * b_scale[n]) (+ bias[n]) in float. B is int8 or uint8 [K, N];
// b_scale and b_zero_point are one value or one per column N.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "mlas/qgemm.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/quantization/packed_quant_b.h"

namespace prism::cpu::contrib {
namespace {

using E = ElementType;

// low = min(0, values), high = max(0, values) (a NaN is skipped), four at a time with SSE2
// (every x86-64 has it): minps/maxps keep the running bound when the value is NaN, as
// std::min(bound, value) does.
void RangeWithZero(const float* values, int64_t count, float& low, float& high) {
  int64_t i = 0;
#if defined(__SSE2__)
  __m128 lows = _mm_setzero_ps(), highs = _mm_setzero_ps();
  for (; i + 4 <= count; i += 4) {
    const __m128 x = _mm_loadu_ps(values + i);
    lows = _mm_min_ps(x, lows);
    highs = _mm_max_ps(x, highs);
  }
  alignas(16) float l[4], h[4];
  _mm_store_ps(l, lows);
  _mm_store_ps(h, highs);
  for (int lane = 0; lane < 4; ++lane) {
    low = std::min(low, l[lane]);
    high = std::max(high, h[lane]);
  }
#endif
  for (; i < count; ++i) {
    low = std::min(low, values[i]);
    high = std::max(high, values[i]);
  }
}

class DynamicQuantizeMatMul final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  // A constant B is packed once for the int8 GEMM (packed_quant_b.h).
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
    const std::string where = GetNode().Describe();
    const Tensor& a = context.RequiredInput(0);
    const Tensor* b_input = packed_b_.packed == nullptr ? &context.RequiredInput(1) : nullptr;
    const ElementType b_type = b_input != nullptr ? b_input->Type() : packed_b_.weight.type;
    const TensorShape& b_shape = b_input != nullptr ? b_input->Shape() : packed_b_.weight.shape;
    const Tensor& b_scale = context.RequiredInput(2);
    const Tensor* b_zero = context.Input(3);
    const Tensor* bias = context.Input(4);
    PRISM_ENFORCE(a.Shape().Rank() >= 1 && b_shape.Rank() == 2, kInvalidArgument, where,
                  ": A must have rank >= 1 and B must be 2-D [K, N], got A ", a.Shape().ToString(),
                  " and B ", b_shape.ToString());
    const int64_t k = b_shape[0], n = b_shape[1];
    const int64_t a_k = a.Shape()[a.Shape().Rank() - 1];
    PRISM_ENFORCE(a_k == k, kInvalidArgument, where, ": inner dimensions differ: A ",
                  a.Shape().ToString(), " has K = ", a_k, " but B ", b_shape.ToString(),
                  " has K = ", k);
    const auto per_column_ok = [n](const Tensor& t) {
      return t.NumElements() == 1 || (t.Shape().Rank() == 1 && t.Shape()[0] == n);
    };
    PRISM_ENFORCE(per_column_ok(b_scale), kInvalidArgument, where,
                  ": b_scale must be a scalar or 1-D of length N = ", n, ", got ",
                  b_scale.Shape().ToString());
    if (b_zero != nullptr)
      PRISM_ENFORCE(per_column_ok(*b_zero) && b_zero->Type() == b_type, kInvalidArgument, where,
                    ": b_zero_point must be one ", ElementTypeName(b_type),
                    " or one per column N = ", n, ", got ", b_zero->Describe());
    if (bias != nullptr)
      PRISM_ENFORCE(bias->Shape().Rank() == 1 && bias->Shape()[0] == n, kInvalidArgument, where,
                    ": bias must be 1-D of length N = ", n, ", got ", bias->Shape().ToString());

    std::vector<int64_t> out_dims = a.Shape().Dims();
    out_dims.back() = n;
    if (a.Shape().Rank() == 1) out_dims = {n};
    Tensor& y = context.Output(0, TensorShape(out_dims), E::kFloat);
    const int64_t m = k == 0 ? y.NumElements() / std::max<int64_t>(n, 1) : a.NumElements() / k;
    if (y.NumElements() == 0) return;

    // Quantize A (onnxruntime's uint8 parameters).
    const float* a_data = a.Data<float>();
    const int64_t count = a.NumElements();
    float low = 0.0f, high = 0.0f;
    RangeWithZero(a_data, count, low, high);
    const float a_scale = high == low ? 1.0f : (high - low) / 255.0f;
    const float a_zero = std::nearbyint(std::clamp(0.0f - low / a_scale, 0.0f, 255.0f));
    std::vector<uint8_t> a_quantized(static_cast<size_t>(count));
    // |a / a_scale| <= 255 (the range holds every value and 0), where adding and subtracting
    // 1.5 * 2^23 rounds half to even exactly as nearbyint does; plain float steps, so the loop
    // vectorizes (a NaN gives the zero point).
    constexpr float kRound = 12582912.0f;
    uint8_t* quantized = a_quantized.data();
    for (int64_t i = 0; i < count; ++i) {
      float v = (a_data[i] / a_scale + kRound) - kRound + a_zero;
      v = v < 0.0f ? 0.0f : v;
      v = v > 255.0f ? 255.0f : v;
      v = v == v ? v : a_zero;
      quantized[i] = static_cast<uint8_t>(static_cast<int32_t>(v));
    }
    // The exact int32 sums of (A_q - a_zp)(B - b_zp) by the int8 GEMM (mlas/qgemm.h).
    mlas::QgemmZeroPoints zero;
    zero.a = static_cast<int32_t>(a_zero);
    std::vector<int32_t> b_zeros;
    if (b_zero != nullptr) {
      for (int64_t col = 0; col < b_zero->NumElements(); ++col)
        b_zeros.push_back(b_type == E::kInt8 ? b_zero->Data<int8_t>()[col]
                                             : b_zero->Data<uint8_t>()[col]);
      if (b_zeros.size() == 1)
        zero.b_scalar = b_zeros[0];
      else
        zero.b_per_column = b_zeros.data();
    }
    // Kept between runs (a fresh buffer of this size would be mapped and faulted in anew); zeros
    // for k = 0, else the product writes every element.
    thread_local std::vector<int32_t> accumulated;
    if (accumulated.size() < static_cast<size_t>(m * n))
      accumulated.resize(static_cast<size_t>(m * n));
    if (k == 0) std::fill(accumulated.begin(), accumulated.begin() + m * n, 0);
    if (k > 0) {
      std::optional<mlas::PackedQuantB> packed_here;
      if (b_input != nullptr)
        packed_here.emplace(
            mlas::PackedQuantB::Pack(k, n, b_input->RawData(), n, b_type == E::kInt8,
                                     mlas::QgemmPairsSaturate(mlas::ActiveKernels())));
      mlas::Qgemm(m, a_quantized.data(), k, false,
                  packed_here.has_value() ? *packed_here : *packed_b_.packed, zero,
                  accumulated.data(), n, context.IntraOpThreadPool());
    }
    float* out = y.MutableData<float>();
    const float* scales = b_scale.Data<float>();
    std::vector<float> multipliers(static_cast<size_t>(n));
    for (int64_t col = 0; col < n; ++col)
      multipliers[static_cast<size_t>(col)] =
          a_scale * scales[b_scale.NumElements() == 1 ? 0 : col];
    const float* bias_data = bias != nullptr ? bias->Data<float>() : nullptr;
    const float* multiplier = multipliers.data();
    for (int64_t row = 0; row < m; ++row) {
      const int32_t* sums = accumulated.data() + row * n;
      float* y_row = out + row * n;
      if (bias_data != nullptr)
        for (int64_t col = 0; col < n; ++col)
          y_row[col] = static_cast<float>(sums[col]) * multiplier[col] + bias_data[col];
      else
        for (int64_t col = 0; col < n; ++col)
          y_row[col] = static_cast<float>(sums[col]) * multiplier[col];
    }
  }

 private:
  PackedQuantWeight packed_b_;
};

void RegisterDynamicQuantizeMatMulKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("DynamicQuantizeMatMul")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T1", {E::kFloat}, {0, 2, 4}, {0})
                        .Constraint("T2", {E::kInt8, E::kUint8}, {1, 3})
                        .Build(),
                    MakeKernelFactory<DynamicQuantizeMatMul>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_dynamic_quantize_matmul, RegisterDynamicQuantizeMatMulKernels);

}  // namespace prism::cpu::contrib
