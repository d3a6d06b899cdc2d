// MatMul (numpy matmul with batch broadcasting), Gemm, LayerNormalization, the Reduce* family,
// ArgMax/ArgMin, Det and Einsum.
#include <optional>
#include <set>

#include "framework/einsum_equation.h"
#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

void CheckInner(const InferenceContext& context, const Dim& k_a, const Dim& k_b) {
  if (k_a.IsKnown() && k_b.IsKnown() && k_a.value != k_b.value)
    context.Fail(MakeString("inner dimensions differ: input 0 has ", k_a.value, ", input 1 has ",
                            k_b.value));
}

void MatMul(InferenceContext& context) {
  const SymbolicShape* a = context.InputShape(0);
  const SymbolicShape* b = context.InputShape(1);
  if (!a || !b) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (a->dims.empty() || b->dims.empty())
    context.Fail("inputs must have rank 1 or more (scalars are not matrices)");
  SymbolicShape left = *a;
  SymbolicShape right = *b;
  const bool a_vector = left.dims.size() == 1;
  const bool b_vector = right.dims.size() == 1;
  if (a_vector) left.dims.insert(left.dims.begin(), KnownDim(1));
  if (b_vector) right.dims.push_back(KnownDim(1));
  CheckInner(context, left.dims.back(), right.dims[right.dims.size() - 2]);
  SymbolicShape batch_a{std::vector<Dim>(left.dims.begin(), left.dims.end() - 2)};
  SymbolicShape batch_b{std::vector<Dim>(right.dims.begin(), right.dims.end() - 2)};
  SymbolicShape out = Broadcast(context, batch_a, batch_b);
  if (!a_vector) out.dims.push_back(left.dims[left.dims.size() - 2]);
  if (!b_vector) out.dims.push_back(right.dims.back());
  context.SetOutput(0, context.InputElem(0), out);
}

void Gemm(InferenceContext& context) {
  const SymbolicShape* a = context.InputShape(0);
  const SymbolicShape* b = context.InputShape(1);
  if (!a || !b) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  if (a->dims.size() != 2 || b->dims.size() != 2)
    context.Fail(
        MakeString("A and B must be matrices, given ", a->ToString(), " and ", b->ToString()));
  const bool trans_a = context.IntAttr("transA", 0) != 0;
  const bool trans_b = context.IntAttr("transB", 0) != 0;
  CheckInner(context, a->dims[trans_a ? 0 : 1], b->dims[trans_b ? 1 : 0]);
  SymbolicShape out{{a->dims[trans_a ? 1 : 0], b->dims[trans_b ? 0 : 1]}};
  if (const SymbolicShape* c = context.InputShape(2)) Broadcast(context, out, *c);  // C must fit
  context.SetOutput(0, context.InputElem(0), out);
}

void LayerNormalization(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, context.InputElem(0), x ? std::optional<SymbolicShape>(*x) : std::nullopt);
  const ElementType stash = static_cast<ElementType>(context.IntAttr("stash_type", 1));
  if (!x) return;
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  int64_t axis = context.IntAttr("axis", -1);
  if (axis < -rank || axis >= rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
  if (axis < 0) axis += rank;
  SymbolicShape reduced = *x;
  for (int64_t d = axis; d < rank; ++d) reduced.dims[d] = KnownDim(1);
  for (size_t o = 1; o < 3; ++o) context.SetOutput(o, stash, reduced);
}

// ReduceSum takes its axes as an input from opset 13, the other Reduce* ops from 18.
void Reduce(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  const bool keep = context.IntAttr("keepdims", 1) != 0;
  const int axes_input_since = context.GetNode().OpType() == "ReduceSum" ? 13 : 18;
  std::optional<std::vector<int64_t>> axes;
  if (context.Opset() >= axes_input_since) {
    if (context.HasInput(1)) {
      axes = context.InputInts(1);
      if (!axes) return context.SetOutput(0, context.InputElem(0), std::nullopt);
    }
  } else {
    axes = context.IntsAttr("axes");
  }
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  std::set<int64_t> reduced;
  if (!axes || axes->empty()) {
    if (context.Opset() >= axes_input_since && context.IntAttr("noop_with_empty_axes", 0) != 0)
      return context.SetOutput(0, context.InputElem(0), *x);
    for (int64_t d = 0; d < rank; ++d) reduced.insert(d);
  } else {
    for (int64_t axis : *axes) {
      if (axis < -rank || axis >= rank)
        context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
      reduced.insert(axis < 0 ? axis + rank : axis);
    }
  }
  SymbolicShape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced.count(d))
      out.dims.push_back(x->dims[d]);
    else if (keep)
      out.dims.push_back(KnownDim(1));
  }
  context.SetOutput(0, context.InputElem(0), out);
}

// ArgMax/ArgMin: `axis` dropped (or kept as 1), int64 indices.
void ArgMinMax(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, ElementType::kInt64, std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  int64_t axis = context.IntAttr("axis", 0);
  if (axis < -rank || axis >= rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", rank));
  if (axis < 0) axis += rank;
  SymbolicShape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      out.dims.push_back(x->dims[d]);
    else if (context.IntAttr("keepdims", 1) != 0)
      out.dims.push_back(KnownDim(1));
  }
  context.SetOutput(0, ElementType::kInt64, out);
}

// Det: [*, M, M] -> [*].
void Det(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const size_t rank = x->dims.size();
  if (rank < 2) context.Fail(MakeString("input must have rank >= 2, got ", x->ToString()));
  const Dim& rows = x->dims[rank - 2];
  const Dim& cols = x->dims[rank - 1];
  if (rows.IsKnown() && cols.IsKnown() && rows.value != cols.value)
    context.Fail(MakeString("input must hold square matrices, got ", x->ToString()));
  context.SetOutput(0, context.InputElem(0),
                    SymbolicShape{std::vector<Dim>(x->dims.begin(), x->dims.end() - 2)});
}

// Einsum: each output label's dim from the inputs (a 1 gives way to any other size); needs every
// input's rank to place the ellipsis.
void Einsum(InferenceContext& context) {
  std::vector<int64_t> ranks;
  for (size_t i = 0; i < context.InputCount(); ++i) {
    const SymbolicShape* shape = context.InputShape(i);
    if (!shape) return context.SetOutput(0, context.InputElem(0), std::nullopt);
    ranks.push_back(static_cast<int64_t>(shape->dims.size()));
  }
  const Attribute* equation_attribute = context.Attr("equation");
  if (!equation_attribute) context.Fail("attribute 'equation' is required");
  EinsumEquation equation;
  try {
    equation = ParseEinsumEquation(equation_attribute->s, ranks, "Einsum");
  } catch (const Exception& e) {
    context.Fail(e.what());
  }
  std::vector<Dim> label_dims(static_cast<size_t>(equation.LabelCount()));
  std::vector<bool> seen(label_dims.size(), false);
  for (size_t i = 0; i < ranks.size(); ++i) {
    const SymbolicShape& shape = *context.InputShape(i);
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      const int label = equation.inputs[i][d];
      const Dim& dim = shape.dims[d];
      Dim& known = label_dims[label];
      if (!seen[label] || (known.IsKnown() && known.value == 1)) {
        known = dim;
      } else if (known.IsKnown() && dim.IsKnown() && dim.value != 1 && dim.value != known.value) {
        context.Fail(MakeString("dimension ", d, " of input ", i, " has size ", dim.value,
                                " but the same label has size ", known.value, " elsewhere"));
      } else if (!known.IsKnown() && dim.IsKnown() && dim.value != 1) {
        known = dim;
      }
      seen[label] = true;
    }
  }
  SymbolicShape out;
  for (int label : equation.output) out.dims.push_back(label_dims[label]);
  context.SetOutput(0, context.InputElem(0), out);
}

// DFT: the signal axis becomes dft_length (n / 2 + 1 bins one-sided forward) and the last dim
// 2 (1 for a one-sided inverse); unknown where dft_length or the axis is only known at run time.
void Dft(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  if (!x || x->dims.size() < 2) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t rank = static_cast<int64_t>(x->dims.size());
  const bool inverse = context.IntAttr("inverse", 0) != 0;
  const bool onesided = context.IntAttr("onesided", 0) != 0;
  std::optional<int64_t> axis = context.Opset() < 20 ? context.IntAttr("axis", 1) : -2;
  if (context.Opset() >= 20 && context.HasInput(2)) {
    const auto values = context.InputInts(2);
    axis = values && values->size() == 1 ? std::optional<int64_t>((*values)[0]) : std::nullopt;
  }
  SymbolicShape out = *x;
  out.dims[rank - 1] = KnownDim(inverse && onesided ? 1 : 2);
  if (!axis) {
    SymbolicShape unknown{std::vector<Dim>(x->dims.size())};
    unknown.dims[rank - 1] = out.dims[rank - 1];
    return context.SetOutput(0, context.InputElem(0), unknown);
  }
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank - 1) context.Fail(MakeString("axis ", *axis, " is not a signal axis"));
  std::optional<int64_t> n;
  if (context.HasInput(1)) {
    const auto values = context.InputInts(1);
    if (values && values->size() == 1) n = (*values)[0];
  } else if (x->dims[a].IsKnown()) {
    n = inverse && onesided ? WideValue(2 * (static_cast<WideInt>(x->dims[a].value) - 1))
                            : x->dims[a].value;
  }
  out.dims[a] = n ? KnownDim(!inverse && onesided ? *n / 2 + 1 : *n) : Dim{};
  context.SetOutput(0, context.InputElem(0), out);
}

}  // namespace

void RegisterMathShapes() {
  RegisterShapeInference("DFT", Dft);
  RegisterShapeInference("Det", Det);
  RegisterShapeInference("Einsum", Einsum);
  RegisterShapeInference("MatMul", MatMul);
  RegisterShapeInference("Gemm", Gemm);
  RegisterShapeInference("com.microsoft", "FusedGemm", Gemm);  // Gemm's shapes, then an activation
  RegisterShapeInference("LayerNormalization", LayerNormalization);
  for (const char* op :
       {"ReduceMean", "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    RegisterShapeInference(op, Reduce);
  RegisterShapeInference("ArgMax", ArgMinMax);
  RegisterShapeInference("ArgMin", ArgMinMax);
}

}  // namespace prism
