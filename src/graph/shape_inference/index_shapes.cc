// Ops that pick or place elements by index: GatherElements (the indices' shape), GatherND, and
// Scatter, ScatterElements and ScatterND (the data's shape).
#include <algorithm>
#include <optional>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

void ShapeOfInput(InferenceContext& context, size_t input) {
  const SymbolicShape* shape = context.InputShape(input);
  context.SetOutput(0, context.InputElem(0),
                    shape ? std::optional<SymbolicShape>(*shape) : std::nullopt);
}

void GatherElements(InferenceContext& context) {
  const SymbolicShape* data = context.InputShape(0);
  const SymbolicShape* indices = context.InputShape(1);
  if (data && indices && data->dims.size() != indices->dims.size())
    context.Fail(MakeString("'indices' has rank ", indices->dims.size(), " but 'data' has rank ",
                            data->dims.size()));
  ShapeOfInput(context, 1);
}

void Scatter(InferenceContext& context) {
  ShapeOfInput(context, 0);
}

void GatherND(InferenceContext& context) {
  const SymbolicShape* data = context.InputShape(0);
  const SymbolicShape* indices = context.InputShape(1);
  if (!data || !indices || indices->dims.empty() || !indices->dims.back().IsKnown())
    return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t r = static_cast<int64_t>(data->dims.size());
  const int64_t q = static_cast<int64_t>(indices->dims.size());
  const int64_t b = context.Opset() >= 12 ? context.IntAttr("batch_dims", 0) : 0;
  const int64_t k = indices->dims.back().value;
  if (b < 0 || b >= std::min(r, q))
    context.Fail(MakeString("batch_dims ", b, " is out of range for ranks ", r, " and ", q));
  if (k < 1 || k > r - b)
    context.Fail(MakeString("the last dim of 'indices' (", k, ") must be in [1, ", r - b, "]"));
  SymbolicShape out;
  out.dims.assign(indices->dims.begin(), indices->dims.end() - 1);
  out.dims.insert(out.dims.end(), data->dims.begin() + b + k, data->dims.end());
  context.SetOutput(0, context.InputElem(0), out);
}

}  // namespace

void RegisterIndexShapes() {
  RegisterShapeInference("GatherElements", GatherElements);
  RegisterShapeInference("GatherND", GatherND);
  for (const char* op : {"Scatter", "ScatterElements", "ScatterND"})
    RegisterShapeInference(op, Scatter);
}

}  // namespace prism
