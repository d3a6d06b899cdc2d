// Types and shapes of the com.microsoft ops with CPU kernels in providers/cpu/contrib (the
// activations, the skip/simplified layer normalizations, FusedMatMul, EmbedLayerNormalization);
// SimplifiedLayerNormalization is also registered in the ONNX domain, where onnxruntime has it.
#include <algorithm>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

const char* const kMs = "com.microsoft";

std::optional<SymbolicShape> ShapeOf(const InferenceContext& context, size_t i) {
  const SymbolicShape* shape = context.HasInput(i) ? context.InputShape(i) : nullptr;
  return shape ? std::optional<SymbolicShape>(*shape) : std::nullopt;
}

// Gelu, BiasGelu, FastGelu, QuickGelu, BiasAdd: Y has X's type and shape.
void SameAsX(InferenceContext& context) {
  context.SetOutput(0, context.InputElem(0), ShapeOf(context, 0));
}

// X's shape with 1 on the axes [axis, rank).
std::optional<SymbolicShape> StatsShape(const std::optional<SymbolicShape>& x, size_t axis) {
  if (!x) return std::nullopt;
  SymbolicShape stats = *x;
  for (size_t i = axis; i < stats.dims.size(); ++i) stats.dims[i] = KnownDim(1);
  return stats;
}

// SkipLayerNormalization, SkipSimplifiedLayerNormalization: output and input_skip_bias_sum
// have input's type and shape; mean and inv_std_var are float with 1 on the last axis.
void SkipNorm(InferenceContext& context) {
  const ElementType elem = context.InputElem(0);
  const std::optional<SymbolicShape> x = ShapeOf(context, 0);
  context.SetOutputType(1, ValueType::Tensor(ElementType::kFloat));
  context.SetOutputType(2, ValueType::Tensor(ElementType::kFloat));
  context.SetOutput(0, elem, x);
  context.SetOutput(3, elem, x);
  if (x && (x->dims.size() < 2 || x->dims.size() > 3))
    context.Fail("input must be 2-D or 3-D, got " + x->ToString());
  const size_t last = x ? x->dims.size() - 1 : 0;
  context.SetOutput(1, ElementType::kFloat, StatsShape(x, last));
  context.SetOutput(2, ElementType::kFloat, StatsShape(x, last));
}

// SimplifiedLayerNormalization: Y has X's shape and the scale's type; inv_std_var is float with
// 1 on the normalized axes.
void SimplifiedLayerNorm(InferenceContext& context) {
  const std::optional<SymbolicShape> x = ShapeOf(context, 0);
  context.SetOutputType(1, ValueType::Tensor(ElementType::kFloat));
  context.SetOutput(0, context.InputElem(1), x);
  if (!x) return;
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  const int64_t axis = context.IntAttr("axis", -1);
  if (axis < -rank || axis >= rank)
    context.Fail("axis " + std::to_string(axis) + " is out of range for X " + x->ToString());
  context.SetOutput(1, ElementType::kFloat,
                    StatsShape(x, static_cast<size_t>(axis < 0 ? axis + rank : axis)));
}

// FusedMatMul: numpy.matmul of op(A) and op(B) (see providers/cpu/contrib/fused_matmul.cc).
void FusedMatMul(InferenceContext& context) {
  context.SetOutputType(0, ValueType::Tensor(context.InputElem(0)));
  const std::optional<SymbolicShape> a = ShapeOf(context, 0), b = ShapeOf(context, 1);
  if (!a || !b) return;
  const size_t ra = a->dims.size(), rb = b->dims.size();
  if (ra == 0 || rb == 0) context.Fail("A and B must have rank >= 1");
  const bool trans_batch_a = context.IntAttr("transBatchA", 0) != 0;
  const bool trans_batch_b = context.IntAttr("transBatchB", 0) != 0;
  if ((trans_batch_a || trans_batch_b) && (ra != rb || ra < 3))
    context.Fail("transBatchA/transBatchB need A and B of one rank >= 3, got " + a->ToString() +
                 " and " + b->ToString());
  // Logical (rows, cols, batch) of an operand before its last-two-axes transpose.
  struct Logical {
    Dim rows, cols;
    SymbolicShape batch;
  };
  const auto logical = [](const SymbolicShape& s, bool trans_batch, bool is_b) {
    const size_t r = s.dims.size();
    Logical l;
    if (r == 1) {
      l.rows = is_b ? s.dims[0] : KnownDim(1);
      l.cols = is_b ? KnownDim(1) : s.dims[0];
    } else if (trans_batch) {
      l.rows = s.dims[0];
      l.cols = s.dims[r - 1];
      l.batch.dims.assign(s.dims.begin() + 1, s.dims.end() - 1);
    } else {
      l.rows = s.dims[r - 2];
      l.cols = s.dims[r - 1];
      l.batch.dims.assign(s.dims.begin(), s.dims.end() - 2);
    }
    return l;
  };
  const Logical la = logical(*a, trans_batch_a, false), lb = logical(*b, trans_batch_b, true);
  const bool trans_a = ra > 1 && context.IntAttr("transA", 0) != 0;
  const bool trans_b = rb > 1 && context.IntAttr("transB", 0) != 0;
  const Dim m = trans_a ? la.cols : la.rows, k_a = trans_a ? la.rows : la.cols;
  const Dim k_b = trans_b ? lb.cols : lb.rows, n = trans_b ? lb.rows : lb.cols;
  if (k_a.IsKnown() && k_b.IsKnown() && k_a.value != k_b.value)
    context.Fail("inner dimensions differ: A " + a->ToString() + " and B " + b->ToString());
  SymbolicShape out = Broadcast(context, la.batch, lb.batch);
  if (ra > 1) out.dims.push_back(m);
  if (rb > 1) out.dims.push_back(n);
  context.SetOutputShape(0, std::move(out));
}

// EmbedLayerNormalization: output and embedding_sum [B, S, H] of the embeddings' type,
// mask_index [B] int32. QEmbedLayerNormalization: the same in float (its scales' type).
void EmbedLayerNormShapes(InferenceContext& context, ElementType elem) {
  context.SetOutputType(0, ValueType::Tensor(elem));
  context.SetOutputType(1, ValueType::Tensor(ElementType::kInt32));
  context.SetOutputType(2, ValueType::Tensor(elem));
  const std::optional<SymbolicShape> ids = ShapeOf(context, 0), word = ShapeOf(context, 2);
  if (ids && ids->dims.size() != 2)
    context.Fail("input_ids must be 2-D [batch, sequence], got " + ids->ToString());
  if (word && word->dims.size() != 2)
    context.Fail("word_embedding must be 2-D [vocabulary, hidden], got " + word->ToString());
  if (!ids) return;
  const Dim hidden = word ? word->dims[1] : Dim{};
  const SymbolicShape out{{ids->dims[0], ids->dims[1], hidden}};
  context.SetOutputShape(0, out);
  context.SetOutputShape(1, SymbolicShape{{ids->dims[0]}});
  context.SetOutputShape(2, out);
}

void EmbedLayerNorm(InferenceContext& context) {
  EmbedLayerNormShapes(context, context.InputElem(2));
}

void QEmbedLayerNorm(InferenceContext& context) {
  EmbedLayerNormShapes(context, context.InputElem(8));
}

}  // namespace

void RegisterContribShapes() {
  for (const char* op : {"Gelu", "BiasGelu", "FastGelu", "QuickGelu", "BiasAdd"})
    RegisterShapeInference(kMs, op, SameAsX);
  RegisterShapeInference(kMs, "SkipLayerNormalization", SkipNorm);
  RegisterShapeInference(kMs, "SkipSimplifiedLayerNormalization", SkipNorm);
  RegisterShapeInference(kMs, "SimplifiedLayerNormalization", SimplifiedLayerNorm);
  RegisterShapeInference("SimplifiedLayerNormalization", SimplifiedLayerNorm);
  RegisterShapeInference(kMs, "FusedMatMul", FusedMatMul);
  RegisterShapeInference(kMs, "EmbedLayerNormalization", EmbedLayerNorm);
  RegisterShapeInference(kMs, "QEmbedLayerNormalization", QEmbedLayerNorm);
}

}  // namespace prism
