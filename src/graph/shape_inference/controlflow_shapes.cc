// If: each output is the merge of the two branches' outputs (a dim both agree on, else unknown;
// the rank only when both have the same). Loop: the loop-carried outputs take the body's types
// (their shapes may change from one iteration to the next, so only a shape the initial value and
// the body agree on is kept); scan outputs gain a leading dim of unknown length.
#include <algorithm>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

const Graph* Branch(const InferenceContext& context, const char* name) {
  const Attribute* attribute = context.Attr(name);
  return attribute && !attribute->graphs.empty() ? attribute->graphs[0].get() : nullptr;
}

void If(InferenceContext& context) {
  const Graph* then_branch = Branch(context, "then_branch");
  const Graph* else_branch = Branch(context, "else_branch");
  if (!then_branch || !else_branch) return;
  const size_t count = context.GetNode().OutputCount();
  if (then_branch->Outputs().size() != count || else_branch->Outputs().size() != count)
    context.Fail(MakeString("the branches have ", then_branch->Outputs().size(), " and ",
                            else_branch->Outputs().size(), " outputs, the node ", count));
  for (size_t o = 0; o < count; ++o) {
    const NodeArg& a = *then_branch->Outputs()[o];
    const NodeArg& b = *else_branch->Outputs()[o];
    ValueType type = a.type.kind != TypeKind::kUnknown ? a.type : b.type;
    context.SetOutputType(o, type);
    if (!a.shape || !b.shape || a.shape->dims.size() != b.shape->dims.size()) continue;
    SymbolicShape merged = *a.shape;
    for (size_t d = 0; d < merged.dims.size(); ++d)
      if (!SameDim(merged.dims[d], b.shape->dims[d])) merged.dims[d] = Dim{};
    context.SetOutputShape(o, merged);
  }
}

void Loop(InferenceContext& context) {
  const Graph* body = Branch(context, "body");
  if (!body) return;
  const size_t count = context.GetNode().OutputCount();
  const size_t carried = context.InputCount() >= 2 ? context.InputCount() - 2 : 0;
  if (body->Outputs().size() != count + 1)
    context.Fail(MakeString("the body has ", body->Outputs().size(), " outputs, the node ", count,
                            " (plus the body's cond)"));
  for (size_t o = 0; o < count; ++o) {
    const NodeArg& out = *body->Outputs()[o + 1];
    ValueType type = out.type;
    if (type.kind == TypeKind::kUnknown && o < carried) type = context.InputType(2 + o);
    context.SetOutputType(o, type);
    if (o < carried) {
      const SymbolicShape* initial = context.InputShape(2 + o);
      if (!initial || !out.shape || initial->dims.size() != out.shape->dims.size()) continue;
      SymbolicShape merged = *initial;
      for (size_t d = 0; d < merged.dims.size(); ++d)
        if (!SameDim(merged.dims[d], out.shape->dims[d])) merged.dims[d] = Dim{};
      context.SetOutputShape(o, merged);
    } else if (out.shape && type.kind == TypeKind::kTensor) {
      // Without a cond input the loop runs exactly M times.
      Dim length;
      if (!context.HasInput(1))
        if (const auto trips = context.InputInts(0); trips && trips->size() == 1)
          length = KnownDim(std::max<int64_t>(0, (*trips)[0]));
      SymbolicShape stacked{{length}};
      stacked.dims.insert(stacked.dims.end(), out.shape->dims.begin(), out.shape->dims.end());
      context.SetOutputShape(o, stacked);
    }
  }
}

// Scan: the states keep their initial shapes where the body agrees (as for Loop); scan outputs
// are the body's slices with the scan length inserted at their output axis.
void Scan(InferenceContext& context) {
  const Graph* body = Branch(context, "body");
  if (!body) return;
  const bool legacy = context.Opset() < 9;
  const int64_t m = context.IntAttr("num_scan_inputs", 0);
  const size_t first = legacy ? 1 : 0;
  if (m <= 0 || context.InputCount() < first + static_cast<size_t>(m)) return;
  const size_t n = context.InputCount() - first - static_cast<size_t>(m);
  const size_t count = context.GetNode().OutputCount();
  if (body->Outputs().size() != count || count < n)
    context.Fail(MakeString("the body has ", body->Outputs().size(), " outputs, the node ", count));
  // The scan length: the first scan input's dim along its axis.
  Dim length;
  if (const SymbolicShape* scan0 = context.InputShape(first + n)) {
    int64_t axis = legacy ? 1 : 0;
    if (!legacy)
      if (const auto axes = context.IntsAttr("scan_input_axes"); axes && !axes->empty())
        axis = (*axes)[0] < 0 ? (*axes)[0] + static_cast<int64_t>(scan0->dims.size()) : (*axes)[0];
    if (axis >= 0 && axis < static_cast<int64_t>(scan0->dims.size())) length = scan0->dims[axis];
  }
  const auto output_axes = context.IntsAttr("scan_output_axes");
  for (size_t o = 0; o < count; ++o) {
    const NodeArg& out = *body->Outputs()[o];
    ValueType type = out.type;
    if (type.kind == TypeKind::kUnknown && o < n) type = context.InputType(first + o);
    context.SetOutputType(o, type);
    if (o < n) {
      const SymbolicShape* initial = context.InputShape(first + o);
      if (initial) context.SetOutputShape(o, *initial);
      continue;
    }
    if (!out.shape) continue;
    SymbolicShape stacked = *out.shape;
    if (legacy) {
      const SymbolicShape* scan0 = context.InputShape(first + n);
      stacked.dims.insert(stacked.dims.begin(), length);
      stacked.dims.insert(stacked.dims.begin(), scan0 ? scan0->dims[0] : Dim{});
    } else {
      int64_t axis = output_axes && o - n < output_axes->size() ? (*output_axes)[o - n] : 0;
      if (axis < 0) axis += static_cast<int64_t>(stacked.dims.size()) + 1;
      if (axis < 0 || axis > static_cast<int64_t>(stacked.dims.size())) continue;
      stacked.dims.insert(stacked.dims.begin() + axis, length);
    }
    context.SetOutputShape(o, stacked);
  }
}

}  // namespace

void RegisterControlFlowShapes() {
  RegisterShapeInference("Scan", Scan);
  RegisterShapeInference("If", If);
  RegisterShapeInference("Loop", Loop);
}

}  // namespace prism
