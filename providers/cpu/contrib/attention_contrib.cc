// Attention (com.microsoft, version 1), as onnxruntime's CPU EP computes it:
//   QKV = input [B, S, Hin] x weights [Hin, Hq + Hk + Hv] + bias; Q, K, V split by num_heads
//   (qkv_hidden_sizes gives Hq, Hk, Hv; Hq must equal Hk; without it all three are a third);
//   past [2, B, N, P, H] is prepended to K and V, present [2, B, N, P + S, H] returns them;
//   scores = scale * Q K^T (scale defaults to 1 / sqrt(H)) + mask + attention_bias
//   [B or 1, N or 1, S, P + S], unidirectional hides keys j > i + P; output [B, S, Hv].
// mask_index (int32) formats: [B] right padding (keys at or past the length are masked),
// [2B] the ends then the starts (keys before the start are masked too), [B, P + S] and
// [B, S, P + S] raw masks (0 masks, > 0 attends); a masked key gets mask_filter_value
// (default -10000), added to its score, not a -inf. 4-D (Megatron) masks, [3B + 2] indexes,
// past_present_share_buffer and do_rotary are refused, as onnxruntime's CPU kernel does.
// float16 and bfloat16 compute in float and round once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/scratch_buffer.h"
#include "mlas/sgemm.h"
#include "providers/cpu/contrib/attention_after_projection.h"
#include "providers/cpu/contrib/attention_core.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/packed_b_weight.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu::contrib {

ContribAttentionAttributes ReadContribAttentionAttributes(const OpKernelInfo& info) {
  ContribAttentionAttributes attributes;
  attributes.num_heads = info.Int("num_heads");
  attributes.unidirectional = info.IntOr("unidirectional", 0) != 0;
  attributes.scale = info.FloatOr("scale", 0.0f);
  attributes.mask_filter_value = info.FloatOr("mask_filter_value", -10000.0f);
  attributes.qkv_hidden_sizes = info.IntsOr("qkv_hidden_sizes", {});
  const Node& node = info.GetNode();
  PRISM_ENFORCE(attributes.num_heads > 0, kInvalidArgument, node.Describe(),
                ": num_heads must be positive, got ", attributes.num_heads);
  PRISM_ENFORCE(info.IntOr("do_rotary", 0) == 0, kNotImplemented, node.Describe(),
                ": do_rotary is not supported (onnxruntime's CPU kernel refuses it too)");
  PRISM_ENFORCE(info.IntOr("past_present_share_buffer", 0) == 0, kNotImplemented, node.Describe(),
                ": past_present_share_buffer is not supported on the CPU EP");
  PRISM_ENFORCE(attributes.qkv_hidden_sizes.empty() || attributes.qkv_hidden_sizes.size() == 3,
                kInvalidArgument, node.Describe(), ": qkv_hidden_sizes must have 3 values, got ",
                attributes.qkv_hidden_sizes.size());
  return attributes;
}

QkvHiddenSizes ResolveQkvHiddenSizes(const Node& node, const ContribAttentionAttributes& attributes,
                                     int64_t projected, const char* weights_name) {
  QkvHiddenSizes sizes;
  if (attributes.qkv_hidden_sizes.empty()) {
    PRISM_ENFORCE(projected % 3 == 0, kInvalidArgument, node.Describe(), ": ", weights_name,
                  " must have a last dim divisible by 3 without qkv_hidden_sizes, got ", projected);
    sizes.q = sizes.k = sizes.v = projected / 3;
  } else {
    sizes.q = attributes.qkv_hidden_sizes[0];
    sizes.k = attributes.qkv_hidden_sizes[1];
    sizes.v = attributes.qkv_hidden_sizes[2];
    PRISM_ENFORCE(
        sizes.q > 0 && sizes.k > 0 && sizes.v > 0 && sizes.q + sizes.k + sizes.v == projected,
        kInvalidArgument, node.Describe(), ": qkv_hidden_sizes (", sizes.q, ", ", sizes.k, ", ",
        sizes.v, ") must be positive and sum to ", weights_name, "'s last dim ", projected);
  }
  PRISM_ENFORCE(sizes.q == sizes.k, kInvalidArgument, node.Describe(),
                ": Q and K hidden sizes must be equal, got ", sizes.q, " and ", sizes.k);
  PRISM_ENFORCE(sizes.q % attributes.num_heads == 0 && sizes.v % attributes.num_heads == 0,
                kInvalidArgument, node.Describe(), ": hidden sizes ", sizes.q, " and ", sizes.v,
                " must be divisible by num_heads ", attributes.num_heads);
  return sizes;
}

void AttendAfterProjection(OpKernelContext& context, const ContribAttentionAttributes& attributes,
                           const float* qkv, int64_t batch, int64_t seq, QkvHiddenSizes sizes,
                           const AttentionExtraInputs& extra, ElementType out_type) {
  const Node& node = context.GetNode();
  const int64_t num_heads = attributes.num_heads;
  const int64_t projected = sizes.q + sizes.k + sizes.v;
  const int64_t q_hidden = sizes.q, k_hidden = sizes.k, v_hidden = sizes.v;
  const int64_t head = q_hidden / num_heads, v_head = v_hidden / num_heads;
  const Tensor* past = extra.past;
  const Tensor* attention_bias = extra.attention_bias;

  int64_t past_len = 0;
  if (past != nullptr) {
    const TensorShape& ps = past->Shape();
    PRISM_ENFORCE(
        ps.Rank() == 5 && ps[0] == 2 && ps[1] == batch && ps[2] == num_heads && ps[4] == head,
        kInvalidArgument, node.Describe(), ": ", extra.past_name, " must be [2, ", batch, ", ",
        num_heads, ", past_sequence_length, ", head, "], got ", ps.ToString());
    PRISM_ENFORCE(v_hidden == q_hidden, kInvalidArgument, node.Describe(),
                  ": with past, Q, K and V must have one hidden size, got ", q_hidden, " and ",
                  v_hidden);
    past_len = ps[3];
  }
  const int64_t total = past_len + seq;

  AttentionProblem problem;
  problem.batch = batch;
  problem.heads = problem.kv_heads = num_heads;
  problem.q_len = seq;
  problem.total = total;
  problem.head_size = head;
  problem.v_head_size = v_head;
  problem.scale =
      attributes.scale != 0.0f ? attributes.scale : 1.0f / std::sqrt(static_cast<float>(head));
  problem.q = {qkv, seq * projected, head, projected};
  problem.k = {qkv + q_hidden, seq * projected, head, projected};
  problem.v = {qkv + q_hidden + k_hidden, seq * projected, v_head, projected};
  problem.causal = attributes.unidirectional;
  problem.causal_offset = past_len;
  problem.causal_spares_last_row = true;

  // present [2, B, N, total, H]: the past rows, then this step's keys and values. K and V
  // are read from it whenever there is a cache to extend or return.
  const bool want_present = context.OutputCount() > 1 && context.IsOutputRequested(1);
  std::vector<float> present;
  if (past != nullptr || want_present) {
    PRISM_ENFORCE(v_hidden == q_hidden, kInvalidArgument, node.Describe(),
                  ": present needs Q, K and V of one hidden size, got ", q_hidden, " and ",
                  v_hidden);
    const FloatView past_view(past);
    const int64_t cache = batch * num_heads * total * head;
    present.resize(static_cast<size_t>(2 * cache));
    for (int64_t kv = 0; kv < 2; ++kv)
      for (int64_t bi = 0; bi < batch; ++bi)
        for (int64_t h = 0; h < num_heads; ++h) {
          float* dst = present.data() + kv * cache + (bi * num_heads + h) * total * head;
          if (past_len > 0)
            std::copy_n(past_view.data() + ((kv * batch + bi) * num_heads + h) * past_len * head,
                        past_len * head, dst);
          const float* src = qkv + bi * seq * projected + (1 + kv) * q_hidden + h * head;
          for (int64_t s = 0; s < seq; ++s)
            std::copy_n(src + s * projected, head, dst + (past_len + s) * head);
        }
    problem.k = {present.data(), num_heads * total * head, total * head, head};
    problem.v = {present.data() + cache, num_heads * total * head, total * head, head};
  }

  std::vector<float> mask_values;
  if (extra.mask != nullptr)
    problem.mask = PrepareKeyMask(node, *extra.mask, extra.mask_name, true, batch, seq, total,
                                  attributes.mask_filter_value, mask_values);

  const FloatView bias_view(attention_bias);
  if (attention_bias != nullptr) {
    const TensorShape& bs = attention_bias->Shape();
    PRISM_ENFORCE(bs.Rank() == 4 && (bs[0] == batch || bs[0] == 1) &&
                      (bs[1] == num_heads || bs[1] == 1) && bs[2] == seq && bs[3] == total,
                  kInvalidArgument, node.Describe(), ": ", extra.attention_bias_name, " must be [",
                  batch, " or 1, ", num_heads, " or 1, ", seq, ", ", total, "], got ",
                  bs.ToString());
    problem.bias = {bias_view.data(), bs[0] == 1 ? 0 : bs[1] * seq * total,
                    bs[1] == 1 ? 0 : seq * total, total};
  }

  Tensor& y = context.Output(0, TensorShape({batch, seq, v_hidden}), out_type);
  std::vector<float> y_float;
  float* y_data = nullptr;
  if (out_type == ElementType::kFloat) {
    y_data = y.MutableData<float>();
  } else {
    y_float.resize(static_cast<size_t>(y.NumElements()));
    y_data = y_float.data();
  }
  problem.out = {y_data, seq * v_hidden, v_head, v_hidden};
  if (y.NumElements() > 0) RunAttention(problem, context.IntraOpThreadPool());
  if (out_type != ElementType::kFloat) StoreFloats(y_float.data(), y);
  if (want_present) {
    Tensor& out = context.Output(1, TensorShape({2, batch, num_heads, total, head}), out_type);
    StoreFloats(present.data(), out);
  }
}

namespace {

// An SgemmEpilogue: the projection's bias (the context) added to a finished block of qkv.
void AddBiasToBlock(const void* context, int64_t /*row*/, int64_t rows, int64_t column,
                    int64_t columns, float* block, int64_t ldc) {
  const float* bias = static_cast<const float*>(context) + column;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < columns; ++j) block[r * ldc + j] += bias[j];
}

class Attention final : public OpKernel {
 public:
  explicit Attention(const OpKernelInfo& info)
      : OpKernel(info), attributes_(ReadContribAttentionAttributes(info)) {}

  // A constant float weights input (the packed QKV weight AttentionFusion writes) is packed once
  // for the packed-B GEMM, in the format MatMul uses (packed_b_weight.h).
  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    return input_index == 1 ? PackedBFormat(weight, false) : "";
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return PackB(weight, false);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_weights_ = PackedBOf(packed);
    packed_weights_shape_ = packed.shape;
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor* weights = packed_weights_ != nullptr ? nullptr : &context.RequiredInput(1);
    const Tensor* bias = context.Input(2);
    AttentionExtraInputs extra;
    extra.mask = context.InputCount() > 3 ? context.Input(3) : nullptr;
    extra.mask_name = "input 3 (mask_index)";
    extra.past = context.InputCount() > 4 ? context.Input(4) : nullptr;
    extra.past_name = "input 4 (past)";
    extra.attention_bias = context.InputCount() > 5 ? context.Input(5) : nullptr;
    extra.attention_bias_name = "input 5 (attention_bias)";
    PRISM_ENFORCE(context.InputCount() <= 6 || context.Input(6) == nullptr, kNotImplemented,
                  node.Describe(),
                  ": input 6 (past_sequence_length) is only used with past_present_share_buffer, "
                  "which is not supported");

    const TensorShape& x_shape = input.Shape();
    PRISM_ENFORCE(x_shape.Rank() == 3, kInvalidArgument, node.Describe(),
                  ": input 0 (input) must be 3-D [batch, sequence, hidden], got ",
                  x_shape.ToString());
    const int64_t batch = x_shape[0], seq = x_shape[1], in_hidden = x_shape[2];
    const TensorShape& w_shape = weights != nullptr ? weights->Shape() : packed_weights_shape_;
    PRISM_ENFORCE(w_shape.Rank() == 2 && w_shape[0] == in_hidden, kInvalidArgument, node.Describe(),
                  ": input 1 (weights) must be 2-D [", in_hidden, ", q + k + v hidden], got ",
                  w_shape.ToString());
    const int64_t projected = w_shape[1];
    const QkvHiddenSizes sizes =
        ResolveQkvHiddenSizes(node, attributes_, projected, "input 1 (weights)");
    if (bias != nullptr)
      PRISM_ENFORCE(bias->Shape().Rank() == 1 && bias->Shape()[0] == projected, kInvalidArgument,
                    node.Describe(), ": input 2 (bias) must be 1-D [", projected, "], got ",
                    bias->Shape().ToString());
    const ElementType weights_type = weights != nullptr ? weights->Type() : ElementType::kFloat;
    PRISM_ENFORCE(weights_type == input.Type(), kInvalidArgument, node.Describe(),
                  ": input 1 (weights) must have input's type ", input.Describe(), ", got ",
                  ElementTypeName(weights_type));
    for (const Tensor* t : {bias, extra.past, extra.attention_bias})
      PRISM_ENFORCE(t == nullptr || t->Type() == input.Type(), kInvalidArgument, node.Describe(),
                    ": every float input must have input's type ", input.Describe(), ", got ",
                    t->Describe());

    // The projection: qkv [B * S, projected] = input x weights + bias, in the session's scratch
    // arena (a fresh vector was zero-filled, and its pages faulted in, on every run). With packed
    // weights the bias is added to each block of the product while it is in cache; otherwise it
    // is written first and accumulated by the GEMM (beta 1).
    const FloatView x(&input), b(bias);
    const int64_t rows = batch * seq;
    ScratchBuffer<float> qkv(context.TempAllocator(), static_cast<size_t>(rows * projected));
    if (qkv.size() > 0) {
      if (in_hidden == 0) {
        for (int64_t r = 0; r < rows; ++r)
          if (b.data() != nullptr)
            std::copy_n(b.data(), projected, qkv.data() + r * projected);
          else
            std::fill_n(qkv.data() + r * projected, projected, 0.0f);
      } else if (packed_weights_ != nullptr) {
        const mlas::SgemmEpilogue add_bias{&AddBiasToBlock, b.data()};
        mlas::GemmPackedB(false, rows, x.data(), in_hidden, 1.0f, *packed_weights_, 0.0f,
                          qkv.data(), projected, context.IntraOpThreadPool(),
                          b.data() != nullptr ? &add_bias : nullptr);
      } else {
        if (b.data() != nullptr)
          for (int64_t r = 0; r < rows; ++r)
            std::copy_n(b.data(), projected, qkv.data() + r * projected);
        const FloatView w(weights);
        mlas::Gemm<float>(false, false, rows, projected, in_hidden, 1.0f, x.data(), in_hidden,
                          w.data(), projected, b.data() != nullptr ? 1.0f : 0.0f, qkv.data(),
                          projected, context.IntraOpThreadPool());
      }
    }
    AttendAfterProjection(context, attributes_, qkv.data(), batch, seq, sizes, extra, input.Type());
  }

 private:
  ContribAttentionAttributes attributes_;
  std::shared_ptr<const mlas::PackedMatrixB> packed_weights_;
  TensorShape packed_weights_shape_;
};

void RegisterContribAttentionKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("Attention")
          .Domain(kMsDomain)
          .Versions(1)
          .Constraint("T", {E::kFloat, E::kFloat16, E::kBFloat16}, {0, 1, 2, 4, 5}, {0, 1})
          .Constraint("M", {E::kInt32}, {3, 6})
          .Build(),
      MakeKernelFactory<Attention>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_attention, RegisterContribAttentionKernels);

}  // namespace prism::cpu::contrib
