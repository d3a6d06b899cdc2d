// The random ops' outputs. RandomNormal/RandomUniform: the shape attribute, of dtype (float by
// default). The *Like ops and Bernoulli: the input's shape, of dtype when given, else the input's
// type. Multinomial: [batch, sample_size] of dtype (int32 by default).
#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

ElementType DtypeOr(const InferenceContext& context, ElementType fallback) {
  const Attribute* dtype = context.Attr("dtype");
  if (dtype == nullptr) return fallback;
  if (!IsKnownElementType(static_cast<int32_t>(dtype->i)))
    context.Fail(MakeString("dtype ", dtype->i, " is not an ONNX element type"));
  return static_cast<ElementType>(dtype->i);
}

void RandomFromShape(InferenceContext& context) {
  const ElementType type = DtypeOr(context, ElementType::kFloat);
  context.SetOutputType(0, ValueType::Tensor(type));  // the kernel lookup needs it even if the
                                                      // shape below is refused
  const auto shape = context.IntsAttr("shape");
  if (!shape) context.Fail("the shape attribute is required");
  SymbolicShape out;
  for (int64_t dim : *shape) {
    if (dim < 0) context.Fail(MakeString("shape has a negative dim ", dim));
    out.dims.push_back(KnownDim(dim));
  }
  context.SetOutput(0, type, out);
}

void RandomLike(InferenceContext& context) {
  const ElementType type = DtypeOr(context, context.InputElem(0));
  const SymbolicShape* input = context.InputShape(0);
  context.SetOutput(0, type, input ? std::optional<SymbolicShape>(*input) : std::nullopt);
}

void Multinomial(InferenceContext& context) {
  const ElementType type = DtypeOr(context, ElementType::kInt32);
  context.SetOutputType(0, ValueType::Tensor(type));
  const SymbolicShape* input = context.InputShape(0);
  if (input == nullptr) return context.SetOutput(0, type, std::nullopt);
  if (input->dims.size() != 2)
    context.Fail(MakeString("input must be [batch_size, class_size], got ", input->ToString()));
  const int64_t sample_size = context.IntAttr("sample_size", 1);
  if (sample_size < 0) context.Fail(MakeString("sample_size must be >= 0, got ", sample_size));
  context.SetOutput(0, type, SymbolicShape{{input->dims[0], KnownDim(sample_size)}});
}

}  // namespace

void RegisterRandomShapes() {
  RegisterShapeInference("RandomNormal", RandomFromShape);
  RegisterShapeInference("RandomUniform", RandomFromShape);
  RegisterShapeInference("RandomNormalLike", RandomLike);
  RegisterShapeInference("RandomUniformLike", RandomLike);
  RegisterShapeInference("Bernoulli", RandomLike);
  RegisterShapeInference("Multinomial", Multinomial);
}

}  // namespace prism
