// If: each output is the merge of the two branches' outputs (a dim both agree on, else unknown;
// the rank only when both have the same).
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

}  // namespace

void RegisterControlFlowShapes() {
  RegisterShapeInference("If", If);
}

}  // namespace prism
