// What com.microsoft Attention and QAttention share once Q, K and V are projected: the
// attributes, the split of the projection into Q, K and V, the past/present cache, the mask and
// the attention itself (attention_core.h). The two kernels differ only in how they project
// (float GEMM, or integer products scaled back to float).
#pragma once

#include <cstdint>
#include <vector>

#include "framework/op_kernel.h"

namespace prism::cpu::contrib {

struct ContribAttentionAttributes {
  int64_t num_heads = 0;
  bool unidirectional = false;
  float scale = 0.0f;  // 0: 1 / sqrt(head size)
  float mask_filter_value = -10000.0f;
  std::vector<int64_t> qkv_hidden_sizes;
};

// Reads and checks the attributes; do_rotary and past_present_share_buffer are refused by name.
ContribAttentionAttributes ReadContribAttentionAttributes(const OpKernelInfo& info);

struct QkvHiddenSizes {
  int64_t q = 0, k = 0, v = 0;
};

// The Q, K and V widths of a projection of `projected` columns (a third each without
// qkv_hidden_sizes); weights_name names the input in errors.
QkvHiddenSizes ResolveQkvHiddenSizes(const Node& node, const ContribAttentionAttributes& attributes,
                                     int64_t projected, const char* weights_name);

// The optional inputs after the projection, with their names for errors (they sit at
// different input indices in Attention and QAttention).
struct AttentionExtraInputs {
  const Tensor* mask = nullptr;
  const char* mask_name = "mask_index";
  const Tensor* past = nullptr;  // [2, B, N, P, H] in the output's type
  const char* past_name = "past";
  const Tensor* attention_bias = nullptr;
  const char* attention_bias_name = "attention_bias";
};

// qkv: [batch * seq, q + k + v] rows of the projection (bias added). Writes output 0
// [batch, seq, v] and, when requested, output 1 (present) in out_type.
void AttendAfterProjection(OpKernelContext& context, const ContribAttentionAttributes& attributes,
                           const float* qkv, int64_t batch, int64_t seq, QkvHiddenSizes sizes,
                           const AttentionExtraInputs& extra, ElementType out_type);

}  // namespace prism::cpu::contrib
