// QAttention (com.microsoft, version 1): Attention with an 8-bit input and weights, as
// onnxruntime's quantization tools write it (quantize_dynamic replaces Attention by
// DynamicQuantizeLinear -> QAttention):
//   qkv = (input - input_zero_point) x (weight - weight_zero_point) * input_scale * weight_scale
//         + bias,
// products accumulated exactly in int32, then Attention's split, cache, mask and softmax in
// float (attention_after_projection.h). weight_scale and weight_zero_point are one value or one
// per projected column. Inputs: 0 input, 1 weight, 2 bias, 3 input_scale, 4 weight_scale,
// 5 mask_index, 6 input_zero_point, 7 weight_zero_point, 8 past.
#include <cstdint>
#include <vector>

#include "mlas/gemm.h"
#include "providers/cpu/contrib/attention_after_projection.h"
#include "providers/cpu/contrib/attention_core.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu::contrib {
namespace {

using E = ElementType;

// An 8-bit tensor's element i widened (int8 or uint8).
int32_t EightBitAt(const Tensor& t, int64_t i) {
  return t.Type() == E::kInt8 ? t.Data<int8_t>()[i] : t.Data<uint8_t>()[i];
}

class QAttention final : public OpKernel {
 public:
  explicit QAttention(const OpKernelInfo& info)
      : OpKernel(info), attributes_(ReadContribAttentionAttributes(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& weight = context.RequiredInput(1);
    const Tensor& bias = context.RequiredInput(2);
    const Tensor& input_scale = context.RequiredInput(3);
    const Tensor& weight_scale = context.RequiredInput(4);
    const auto optional = [&](size_t index) {
      return context.InputCount() > index ? context.Input(index) : nullptr;
    };
    const Tensor* input_zero = optional(6);
    const Tensor* weight_zero = optional(7);
    AttentionExtraInputs extra;
    extra.mask = optional(5);
    extra.mask_name = "input 5 (mask_index)";
    extra.past = optional(8);
    extra.past_name = "input 8 (past)";

    const TensorShape& x_shape = input.Shape();
    PRISM_ENFORCE(x_shape.Rank() == 3, kInvalidArgument, node.Describe(),
                  ": input 0 (input) must be 3-D [batch, sequence, hidden], got ",
                  x_shape.ToString());
    const int64_t batch = x_shape[0], seq = x_shape[1], in_hidden = x_shape[2];
    const TensorShape& w_shape = weight.Shape();
    PRISM_ENFORCE(w_shape.Rank() == 2 && w_shape[0] == in_hidden, kInvalidArgument, node.Describe(),
                  ": input 1 (weight) must be 2-D [", in_hidden, ", q + k + v hidden], got ",
                  w_shape.ToString());
    const int64_t projected = w_shape[1];
    const QkvHiddenSizes sizes =
        ResolveQkvHiddenSizes(node, attributes_, projected, "input 1 (weight)");
    PRISM_ENFORCE(bias.Shape().Rank() == 1 && bias.Shape()[0] == projected, kInvalidArgument,
                  node.Describe(), ": input 2 (bias) must be 1-D [", projected, "], got ",
                  bias.Shape().ToString());
    PRISM_ENFORCE(input_scale.NumElements() == 1, kInvalidArgument, node.Describe(),
                  ": input 3 (input_scale) must hold one value, got ", input_scale.Describe());
    const auto per_tensor_or_column = [&](const Tensor* t, const char* name) {
      if (t == nullptr) return;
      PRISM_ENFORCE(t->NumElements() == 1 || (t->Shape().Rank() == 1 && t->Shape()[0] == projected),
                    kInvalidArgument, node.Describe(), ": ", name, " must hold one value or [",
                    projected, "], got ", t->Describe());
    };
    per_tensor_or_column(&weight_scale, "input 4 (weight_scale)");
    per_tensor_or_column(weight_zero, "input 7 (weight_zero_point)");
    PRISM_ENFORCE(input_zero == nullptr || input_zero->NumElements() == 1, kInvalidArgument,
                  node.Describe(), ": input 6 (input_zero_point) must hold one value, got ",
                  input_zero->Describe());
    PRISM_ENFORCE(input_zero == nullptr || input_zero->Type() == input.Type(), kInvalidArgument,
                  node.Describe(), ": input 6 (input_zero_point) must have input 0's type ",
                  ElementTypeName(input.Type()), ", got ", input_zero->Describe());
    PRISM_ENFORCE(weight_zero == nullptr || weight_zero->Type() == weight.Type(), kInvalidArgument,
                  node.Describe(), ": input 7 (weight_zero_point) must have input 1's type ",
                  ElementTypeName(weight.Type()), ", got ", weight_zero->Describe());
    const E out_type = bias.Type();
    for (const Tensor* t : {&input_scale, &weight_scale, extra.past})
      PRISM_ENFORCE(t == nullptr || t->Type() == out_type, kInvalidArgument, node.Describe(),
                    ": scales and past must have bias's type ", ElementTypeName(out_type), ", got ",
                    t->Describe());

    // Both operands shifted by their zero points, then an exact int32 GEMM.
    const int32_t x_zero = input_zero == nullptr ? 0 : EightBitAt(*input_zero, 0);
    std::vector<int32_t> x_shifted(static_cast<size_t>(input.NumElements()));
    for (int64_t i = 0; i < input.NumElements(); ++i)
      x_shifted[static_cast<size_t>(i)] = EightBitAt(input, i) - x_zero;
    std::vector<int32_t> w_shifted(static_cast<size_t>(weight.NumElements()));
    for (int64_t row = 0; row < in_hidden; ++row)
      for (int64_t col = 0; col < projected; ++col) {
        const int32_t zero =
            weight_zero == nullptr
                ? 0
                : EightBitAt(*weight_zero, weight_zero->NumElements() == 1 ? 0 : col);
        w_shifted[static_cast<size_t>(row * projected + col)] =
            EightBitAt(weight, row * projected + col) - zero;
      }
    const int64_t rows = batch * seq;
    std::vector<int32_t> accumulated(static_cast<size_t>(rows * projected), 0);
    if (rows > 0 && projected > 0 && in_hidden > 0)
      mlas::Gemm<int32_t>(false, false, rows, projected, in_hidden, 1, x_shifted.data(), in_hidden,
                          w_shifted.data(), projected, 0, accumulated.data(), projected,
                          context.IntraOpThreadPool());

    const FloatView x_scale_view(&input_scale), w_scale_view(&weight_scale), bias_view(&bias);
    const float x_scale = x_scale_view.data()[0];
    std::vector<float> qkv(accumulated.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < projected; ++c) {
        const float multiplier =
            x_scale * w_scale_view.data()[weight_scale.NumElements() == 1 ? 0 : c];
        const size_t i = static_cast<size_t>(r * projected + c);
        qkv[i] = static_cast<float>(accumulated[i]) * multiplier + bias_view.data()[c];
      }
    AttendAfterProjection(context, attributes_, qkv.data(), batch, seq, sizes, extra, out_type);
  }

 private:
  ContribAttentionAttributes attributes_;
};

void RegisterQAttentionKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("QAttention")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T1", {E::kInt8, E::kUint8}, {0, 6})
                        .Constraint("T2", {E::kInt8, E::kUint8}, {1, 7})
                        .Constraint("T3", {E::kFloat}, {2, 3, 4, 8}, {0, 1})
                        .Constraint("T4", {E::kInt32}, {5})
                        .Build(),
                    MakeKernelFactory<QAttention>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_qattention, RegisterQAttentionKernels);

}  // namespace prism::cpu::contrib
