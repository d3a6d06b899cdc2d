// Types and shapes of the com.microsoft attention ops with CPU kernels in
// providers/cpu/contrib/attention_*.cc.
#include <algorithm>
#include <optional>
#include <string>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

const char* const kMs = "com.microsoft";

// Attention and QAttention: output [B, S, v_hidden] of the float type (input's for
// Attention, bias's for QAttention); present [2, B, N, past + S, H].
void AttentionShapes(InferenceContext& context, ElementType elem, int past_index) {
  context.SetOutputType(0, ValueType::Tensor(elem));
  context.SetOutputType(1, ValueType::Tensor(elem));
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* w = context.HasInput(1) ? context.InputShape(1) : nullptr;
  const SymbolicShape* past =
      context.HasInput(past_index) ? context.InputShape(past_index) : nullptr;
  if (x && x->dims.size() != 3)
    context.Fail("input must be 3-D [batch, sequence, hidden], got " + x->ToString());
  if (w && w->dims.size() != 2) context.Fail("weights must be 2-D, got " + w->ToString());
  const int64_t heads = context.IntAttr("num_heads", 0);
  if (heads <= 0) context.Fail("num_heads must be positive");
  Dim q_hidden, v_hidden;
  if (const auto sizes = context.IntsAttr("qkv_hidden_sizes"); sizes && !sizes->empty()) {
    if (sizes->size() != 3) context.Fail("qkv_hidden_sizes must have 3 values");
    q_hidden = KnownDim((*sizes)[0]);
    v_hidden = KnownDim((*sizes)[2]);
  } else if (w && w->dims[1].IsKnown()) {
    q_hidden = v_hidden = KnownDim(w->dims[1].value / 3);
  }
  if (!x) return;
  context.SetOutputShape(0, SymbolicShape{{x->dims[0], x->dims[1], v_hidden}});
  if (!context.GetNode().HasOutput(1)) return;
  Dim total;
  if (!past) {
    total = x->dims[1];
  } else if (past->dims.size() == 5 && past->dims[3].IsKnown() && x->dims[1].IsKnown()) {
    total = AddDims(past->dims[3], x->dims[1]);
  }
  const Dim head = q_hidden.IsKnown() ? KnownDim(q_hidden.value / heads) : Dim{};
  context.SetOutputShape(1, SymbolicShape{{KnownDim(2), x->dims[0], KnownDim(heads), total, head}});
}

void MsAttention(InferenceContext& context) {
  AttentionShapes(context, context.InputElem(0), 4);
}

void MsQAttention(InferenceContext& context) {
  AttentionShapes(context, context.InputElem(2), 8);
}

Dim Times(const Dim& a, int64_t factor) {
  return MulDim(a, factor);
}

Dim Plus(const Dim& a, const Dim& b) {
  return AddDims(a, b);
}

// MultiHeadAttention: output [B, S, Dv]; present_key/value [B, N, P + L, H|Hv]; qk
// [B, N, S, P + L]. query [B, S, D] or packed [B, S, N, 3, H]; key [B, L, D], [B, N, L, H] or
// packed [B, L, N, 2, H]; value [B, L, Dv] or [B, N, L, Hv].
void MsMultiHeadAttention(InferenceContext& context) {
  const ElementType elem = context.InputElem(0);
  for (size_t o = 0; o < 3; ++o) context.SetOutputType(o, ValueType::Tensor(elem));
  if (context.GetNode().HasOutput(3) &&
      context.GetNode().Outputs()[3]->type.elem == ElementType::kUndefined)
    context.SetOutputType(3, ValueType::Tensor(elem));
  const int64_t heads = context.IntAttr("num_heads", 0);
  if (heads <= 0) context.Fail("num_heads must be positive");
  const SymbolicShape* q = context.InputShape(0);
  const SymbolicShape* k = context.HasInput(1) ? context.InputShape(1) : nullptr;
  const SymbolicShape* v = context.HasInput(2) ? context.InputShape(2) : nullptr;
  const SymbolicShape* past = context.HasInput(6) ? context.InputShape(6) : nullptr;
  if (!q) return;
  if (q->dims.size() != 3 && q->dims.size() != 5)
    context.Fail("query must be 3-D or packed 5-D, got " + q->ToString());
  Dim head, v_head, kv_len, v_hidden;
  if (q->dims.size() == 5) {
    head = v_head = q->dims[4];
    kv_len = q->dims[1];
  } else {
    if (q->dims[2].IsKnown()) head = KnownDim(q->dims[2].value / heads);
    if (k && k->dims.size() == 5) {
      kv_len = k->dims[1];
      v_head = head;
    } else if (k && k->dims.size() == 4) {
      kv_len = k->dims[2];
      if (v && v->dims.size() == 4) v_head = v->dims[3];
    } else if (k && k->dims.size() == 3) {
      kv_len = k->dims[1];
      if (v && v->dims.size() == 3 && v->dims[2].IsKnown())
        v_head = KnownDim(v->dims[2].value / heads);
    }
  }
  v_hidden = Times(v_head, heads);
  context.SetOutputShape(0, SymbolicShape{{q->dims[0], q->dims[1], v_hidden}});
  const Dim total = !past ? kv_len : (past->dims.size() == 4 ? Plus(past->dims[2], kv_len) : Dim{});
  const Dim n = KnownDim(heads);
  context.SetOutputShape(1, SymbolicShape{{q->dims[0], n, total, head}});
  context.SetOutputShape(2, SymbolicShape{{q->dims[0], n, total, v_head}});
  context.SetOutputShape(3, SymbolicShape{{q->dims[0], n, q->dims[1], total}});
}

// GroupQueryAttention: output [B, S, N * H]; present_key/value [B, Nkv, max(P, total), H]
// (total: the total_sequence_length value, when known); output_qk [B, N, S, that length].
void MsGroupQueryAttention(InferenceContext& context) {
  const ElementType elem = context.InputElem(0);
  for (size_t o = 0; o < 4; ++o) context.SetOutputType(o, ValueType::Tensor(elem));
  const int64_t heads = context.IntAttr("num_heads", 0);
  const int64_t kv_heads = context.IntAttr("kv_num_heads", 0);
  if (heads <= 0 || kv_heads <= 0) context.Fail("num_heads and kv_num_heads must be positive");
  const SymbolicShape* q = context.InputShape(0);
  if (!q) return;
  if (q->dims.size() != 3) context.Fail("query must be 3-D, got " + q->ToString());
  const bool packed = !context.HasInput(1);
  Dim head;
  if (q->dims[2].IsKnown())
    head = KnownDim(q->dims[2].value / (packed ? heads + 2 * kv_heads : heads));
  context.SetOutputShape(0, SymbolicShape{{q->dims[0], q->dims[1], Times(head, heads)}});
  Dim present;
  const auto total = context.InputInts(6);
  const SymbolicShape* past = context.HasInput(3) ? context.InputShape(3) : nullptr;
  if (total && total->size() == 1) {
    if (!past) {
      present = KnownDim((*total)[0]);
    } else if (past->dims.size() == 4 && past->dims[2].IsKnown()) {
      present = KnownDim(std::max((*total)[0], past->dims[2].value));
    }
  }
  context.SetOutputShape(1, SymbolicShape{{q->dims[0], KnownDim(kv_heads), present, head}});
  context.SetOutputShape(2, SymbolicShape{{q->dims[0], KnownDim(kv_heads), present, head}});
  context.SetOutputShape(3, SymbolicShape{{q->dims[0], KnownDim(heads), q->dims[1], present}});
}

// RotaryEmbedding: output has input's type and shape.
void MsRotaryEmbedding(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, context.InputElem(0),
                    x ? std::optional<SymbolicShape>(*x) : std::optional<SymbolicShape>());
}

}  // namespace

void RegisterContribAttentionShapes() {
  RegisterShapeInference(kMs, "RotaryEmbedding", MsRotaryEmbedding);
  RegisterShapeInference(kMs, "GroupQueryAttention", MsGroupQueryAttention);
  RegisterShapeInference(kMs, "MultiHeadAttention", MsMultiHeadAttention);
  RegisterShapeInference(kMs, "Attention", MsAttention);
  RegisterShapeInference(kMs, "QAttention", MsQAttention);
}

}  // namespace prism
