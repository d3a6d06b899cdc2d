// Types and shapes of the quantization ops: QuantizeLinear and DequantizeLinear keep x's shape
// (the output type comes from the zero point, output_dtype or the scale), DynamicQuantizeLinear
// adds two scalars, MatMulInteger and QLinearMatMul follow numpy matmul, QLinearConv follows
// Conv. Output types are also given to element-type inference (QuantizationOpOutputType).
#include <optional>
#include <string>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {

std::optional<ValueType> QuantizationOpOutputType(const Node& node, size_t i);

namespace {

ElementType AttrType(const Node& node, const std::string& name) {
  const Attribute* attribute = node.FindAttribute(name);
  if (attribute == nullptr || attribute->i == 0 ||
      !IsKnownElementType(static_cast<int32_t>(attribute->i)))
    return ElementType::kUndefined;
  return static_cast<ElementType>(attribute->i);
}

ElementType InputElemOf(const Node& node, size_t i) {
  return node.HasInput(i) ? node.Inputs()[i]->type.elem : ElementType::kUndefined;
}

// The output element type of a quantization op (kUndefined when not known yet).
std::optional<ElementType> OutputElem(const Node& node, size_t i) {
  if (!node.Domain().empty()) return std::nullopt;
  const std::string& op = node.OpType();
  const int opset = node.OpsetVersion();
  if (op == "QuantizeLinear") {
    if (node.HasInput(2)) return InputElemOf(node, 2);
    const ElementType named =
        opset >= 21 ? AttrType(node, "output_dtype") : ElementType::kUndefined;
    return named != ElementType::kUndefined ? named : ElementType::kUint8;
  }
  if (op == "DequantizeLinear") {
    const ElementType named =
        opset >= 23 ? AttrType(node, "output_dtype") : ElementType::kUndefined;
    if (named != ElementType::kUndefined) return named;
    return opset >= 19 ? InputElemOf(node, 1) : ElementType::kFloat;
  }
  if (op == "DynamicQuantizeLinear") return i == 1 ? ElementType::kFloat : ElementType::kUint8;
  if (op == "MatMulInteger") return ElementType::kInt32;
  if (op == "QLinearMatMul" || op == "QLinearConv") return InputElemOf(node, 7);
  return std::nullopt;
}

void SameShape(InferenceContext& context) {
  const std::optional<ElementType> elem = OutputElem(context.GetNode(), 0);
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, *elem, x ? std::optional<SymbolicShape>(*x) : std::nullopt);
}

void DynamicQuantize(InferenceContext& context) {
  const SymbolicShape* x = context.InputShape(0);
  context.SetOutput(0, ElementType::kUint8, x ? std::optional<SymbolicShape>(*x) : std::nullopt);
  context.SetOutput(1, ElementType::kFloat, SymbolicShape{});
  context.SetOutput(2, ElementType::kUint8, SymbolicShape{});
}

// numpy matmul of inputs a and b.
void MatMulLike(InferenceContext& context, size_t a_index, size_t b_index) {
  const ElementType elem = *OutputElem(context.GetNode(), 0);
  const SymbolicShape* a = context.InputShape(a_index);
  const SymbolicShape* b = context.InputShape(b_index);
  if (!a || !b) return context.SetOutput(0, elem, std::nullopt);
  if (a->dims.empty() || b->dims.empty())
    context.Fail("inputs must have rank 1 or more (scalars are not matrices)");
  SymbolicShape left = *a;
  SymbolicShape right = *b;
  const bool a_vector = left.dims.size() == 1;
  const bool b_vector = right.dims.size() == 1;
  if (a_vector) left.dims.insert(left.dims.begin(), KnownDim(1));
  if (b_vector) right.dims.push_back(KnownDim(1));
  const Dim& inner_a = left.dims.back();
  const Dim& inner_b = right.dims[right.dims.size() - 2];
  if (inner_a.IsKnown() && inner_b.IsKnown() && inner_a.value != inner_b.value)
    context.Fail(MakeString("inner dims differ: ", a->ToString(), " x ", b->ToString()));
  SymbolicShape batch_a{std::vector<Dim>(left.dims.begin(), left.dims.end() - 2)};
  SymbolicShape batch_b{std::vector<Dim>(right.dims.begin(), right.dims.end() - 2)};
  SymbolicShape out = Broadcast(context, batch_a, batch_b);
  if (!a_vector) out.dims.push_back(left.dims[left.dims.size() - 2]);
  if (!b_vector) out.dims.push_back(right.dims.back());
  context.SetOutput(0, elem, out);
}

void QLinearConvShape(InferenceContext& context) {
  const ElementType elem = *OutputElem(context.GetNode(), 0);
  const SymbolicShape* x = context.InputShape(0);
  const SymbolicShape* w = context.InputShape(3);
  if (!x || !w) return context.SetOutput(0, elem, std::nullopt);
  if (x->dims.size() < 3 || w->dims.size() != x->dims.size())
    context.Fail(MakeString("x ", x->ToString(), " and w ", w->ToString(),
                            " must have one rank of 3 or more"));
  const size_t spatial = x->dims.size() - 2;
  std::vector<int64_t> kernel;
  if (auto attribute = context.IntsAttr("kernel_shape")) {
    kernel = *attribute;
  } else {
    for (size_t d = 2; d < w->dims.size(); ++d)
      kernel.push_back(w->dims[d].IsKnown() ? w->dims[d].value : -1);
  }
  if (kernel.size() != spatial)
    context.Fail(MakeString("kernel_shape has ", kernel.size(), " dims, x ", x->ToString(), " has ",
                            spatial, " spatial dims"));
  const std::vector<int64_t> strides =
      context.IntsAttr("strides").value_or(std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations =
      context.IntsAttr("dilations").value_or(std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads =
      context.IntsAttr("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
    context.Fail(MakeString("strides, dilations and pads must have ", spatial, ", ", spatial,
                            " and ", 2 * spatial, " values"));
  const Attribute* auto_pad_attribute = context.Attr("auto_pad");
  const std::string auto_pad = auto_pad_attribute ? auto_pad_attribute->s : "NOTSET";
  SymbolicShape out{{x->dims[0], w->dims[0]}};
  for (size_t d = 0; d < spatial; ++d) {
    const Dim& in = x->dims[d + 2];
    if (strides[d] <= 0 || dilations[d] <= 0)
      context.Fail(MakeString("strides and dilations must be positive"));
    if (!in.IsKnown() || kernel[d] < 0) {
      out.dims.emplace_back();
      continue;
    }
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.dims.push_back(KnownDim(in.value / strides[d] + (in.value % strides[d] != 0 ? 1 : 0)));
      continue;
    }
    const bool valid = auto_pad == "VALID";
    const WideInt window = (static_cast<WideInt>(kernel[d]) - 1) * dilations[d] + 1;
    const WideInt span = static_cast<WideInt>(in.value) +
                         (valid ? 0 : static_cast<WideInt>(pads[d]) + pads[d + spatial]) - window;
    if (span < 0)
      context.Fail(MakeString("the window (kernel ", kernel[d], ", dilation ", dilations[d],
                              ") is larger than the padded input on axis ", d));
    out.dims.push_back(WideDim(span / strides[d] + 1));
  }
  context.SetOutput(0, elem, out);
}

}  // namespace

std::optional<ValueType> QuantizationOpOutputType(const Node& node, size_t i) {
  const std::optional<ElementType> elem = OutputElem(node, i);
  if (!elem) return std::nullopt;
  return *elem == ElementType::kUndefined ? ValueType{} : ValueType::Tensor(*elem);
}

void RegisterQuantizationShapes() {
  RegisterShapeInference("QuantizeLinear", SameShape);
  RegisterShapeInference("DequantizeLinear", SameShape);
  RegisterShapeInference("DynamicQuantizeLinear", DynamicQuantize);
  RegisterShapeInference("MatMulInteger", [](InferenceContext& c) { MatMulLike(c, 0, 1); });
  RegisterShapeInference("QLinearMatMul", [](InferenceContext& c) { MatMulLike(c, 0, 3); });
  RegisterShapeInference("QLinearConv", QLinearConvShape);
}

}  // namespace prism
