// Types and shapes of the sequence and optional ops. A sequence's NodeArg shape is the shape its
// tensors share (as ONNX's sequence type carries one tensor type): a dim where two elements
// differ is unknown, and there is none when their ranks differ. Its length, when known, is
// propagated as the sequence's one value, so SequenceLength and ConcatFromSequence (the summed
// or stacked axis) can be static. An empty sequence (length 0) constrains nothing: inserting
// into it gives the tensor's shape. Optionals carry their element's shape. Output types follow
// the spec: the element type travels from tensor to sequence and back, Optional wraps its input
// (or the type attribute's type), SequenceMap returns seq(tensor(T)) of each body output's T.
#include <algorithm>
#include <optional>

#include "graph/shape_inference.h"
#include "graph/shape_inference/inference_context.h"

namespace prism {

std::optional<ValueType> SequenceOpOutputType(const Node& node, size_t i);

namespace {

ValueType SequenceType(ElementType elem) {
  return ValueType{TypeKind::kSequence, elem, TypeKind::kUnknown};
}

ValueType OptionalOf(const ValueType& inner) {
  if (inner.kind != TypeKind::kTensor && inner.kind != TypeKind::kSequence) return {};
  return ValueType{TypeKind::kOptional, inner.elem, inner.kind};
}

}  // namespace

// The output type of a sequence or optional op (nullopt for other ops): used by element-type
// inference (type_inference.cc) and by the shape functions below. An unknown kind or element
// type means the node keeps what the model declares.
std::optional<ValueType> SequenceOpOutputType(const Node& node, size_t i) {
  if (!node.Domain().empty()) return std::nullopt;
  const std::string& op = node.OpType();
  auto input = [&](size_t k) { return node.HasInput(k) ? node.Inputs()[k]->type : ValueType{}; };
  if (op == "SequenceConstruct" || op == "SplitToSequence") return SequenceType(input(0).elem);
  if (op == "SequenceEmpty") {
    const Attribute* dtype = node.FindAttribute("dtype");
    const int64_t code = dtype ? dtype->i : static_cast<int64_t>(ElementType::kFloat);
    return IsKnownElementType(static_cast<int32_t>(code))
               ? SequenceType(static_cast<ElementType>(code))
               : ValueType{};
  }
  if (op == "SequenceInsert") {
    const ElementType elem =
        input(0).elem != ElementType::kUndefined ? input(0).elem : input(1).elem;
    return SequenceType(elem);
  }
  if (op == "SequenceErase") return SequenceType(input(0).elem);
  if (op == "SequenceAt" || op == "ConcatFromSequence") return ValueType::Tensor(input(0).elem);
  if (op == "SequenceLength") return ValueType::Tensor(ElementType::kInt64);
  if (op == "SequenceMap") {
    const Attribute* body = node.FindAttribute("body");
    if (!body || body->graphs.empty() || i >= body->graphs[0]->Outputs().size()) return ValueType{};
    return SequenceType(body->graphs[0]->Outputs()[i]->type.elem);
  }
  if (op == "Optional") {
    if (node.HasInput(0)) return OptionalOf(input(0));
    const Attribute* type = node.FindAttribute("type");
    return type && type->type == AttributeType::kTypeProto ? OptionalOf(type->type_proto)
                                                           : ValueType{};
  }
  if (op == "OptionalHasElement") return ValueType::Tensor(ElementType::kBool);
  if (op == "OptionalGetElement") {
    const ValueType in = input(0);
    if (in.kind == TypeKind::kOptional)
      return in.inner == TypeKind::kUnknown ? ValueType{} : ValueType{in.inner, in.elem, {}};
    return in;
  }
  return std::nullopt;
}

namespace {

void SetTypes(InferenceContext& context) {
  const Node& node = context.GetNode();
  for (size_t o = 0; o < node.OutputCount(); ++o)
    if (std::optional<ValueType> type = SequenceOpOutputType(node, o))
      context.SetOutputType(o, *type);
}

// The known length of sequence input i.
std::optional<int64_t> Length(const InferenceContext& context, size_t i) {
  const PropagatedValues* values = context.InputValues(i);
  if (values == nullptr || !values->is_scalar || values->values.size() != 1 ||
      !values->values[0].value)
    return std::nullopt;
  return *values->values[0].value;
}

void SetLength(InferenceContext& context, size_t o, std::optional<int64_t> length) {
  if (!length || *length < 0) return;
  PropagatedValues values;
  values.is_scalar = true;
  values.values.push_back(SymbolicInt{*length, ""});
  context.SetOutputValues(o, std::move(values));
}

std::optional<SymbolicShape> Shape(const InferenceContext& context, size_t i) {
  const SymbolicShape* shape = context.InputShape(i);
  return shape ? std::optional<SymbolicShape>(*shape) : std::nullopt;
}

// The shape two sets of tensors share.
std::optional<SymbolicShape> Merge(const std::optional<SymbolicShape>& a,
                                   const std::optional<SymbolicShape>& b) {
  if (!a || !b || a->dims.size() != b->dims.size()) return std::nullopt;
  SymbolicShape merged = *a;
  for (size_t d = 0; d < merged.dims.size(); ++d)
    if (!SameDim(merged.dims[d], b->dims[d])) merged.dims[d] = Dim{};
  return merged;
}

void SetShape(InferenceContext& context, size_t o, const std::optional<SymbolicShape>& shape) {
  if (shape) context.SetOutputShape(o, *shape);
}

void SequenceConstruct(InferenceContext& context) {
  SetTypes(context);
  std::optional<SymbolicShape> shape = Shape(context, 0);
  for (size_t i = 1; i < context.InputCount(); ++i) shape = Merge(shape, Shape(context, i));
  SetShape(context, 0, shape);
  SetLength(context, 0, static_cast<int64_t>(context.InputCount()));
}

void SequenceEmpty(InferenceContext& context) {
  SetTypes(context);
  SetLength(context, 0, 0);
}

void SequenceInsert(InferenceContext& context) {
  SetTypes(context);
  const std::optional<int64_t> length = Length(context, 0);
  SetShape(context, 0,
           length == 0 ? Shape(context, 1) : Merge(Shape(context, 0), Shape(context, 1)));
  SetLength(context, 0, length ? std::optional<int64_t>(*length + 1) : std::nullopt);
}

void SequenceErase(InferenceContext& context) {
  SetTypes(context);
  SetShape(context, 0, Shape(context, 0));  // the remaining tensors still share it
  const std::optional<int64_t> length = Length(context, 0);
  if (length && *length > 0) SetLength(context, 0, *length - 1);
}

void SequenceAt(InferenceContext& context) {
  SetTypes(context);
  SetShape(context, 0, Shape(context, 0));
}

void SequenceLength(InferenceContext& context) {
  SetTypes(context);
  context.SetOutputShape(0, SymbolicShape{});
  if (const std::optional<int64_t> length = Length(context, 0)) {
    PropagatedValues values;
    values.is_scalar = true;
    values.values.push_back(SymbolicInt{*length, ""});
    context.SetOutputValues(0, std::move(values));
  }
}

void SplitToSequence(InferenceContext& context) {
  SetTypes(context);
  const SymbolicShape* input = context.InputShape(0);
  if (input == nullptr || input->dims.empty()) return;
  const int64_t rank = static_cast<int64_t>(input->dims.size());
  int64_t axis = context.IntAttr("axis", 0);
  if (axis < -rank || axis >= rank) context.Fail(MakeString("axis ", axis, " is out of range"));
  if (axis < 0) axis += rank;
  const Dim dim = input->dims[static_cast<size_t>(axis)];
  SymbolicShape element = *input;
  Dim& chunk = element.dims[static_cast<size_t>(axis)];
  std::optional<int64_t> length;
  if (!context.HasInput(1)) {
    chunk = KnownDim(1);
    if (context.IntAttr("keepdims", 1) == 0)
      element.dims.erase(element.dims.begin() + static_cast<std::ptrdiff_t>(axis));
    if (dim.IsKnown()) length = dim.value;
  } else if (context.InputRank(1) == 0) {
    chunk = Dim{};
    const std::optional<std::vector<int64_t>> split = context.InputInts(1);
    if (split && split->size() == 1 && (*split)[0] > 0 && dim.IsKnown()) {
      const int64_t size = (*split)[0];
      length = dim.value / size + (dim.value % size != 0 ? 1 : 0);
      // Equal chunks, or a single one: every chunk has one length.
      if (dim.value % size == 0) chunk = KnownDim(size);
      if (*length == 1) chunk = dim;
    }
  } else {
    chunk = Dim{};
    if (const SymbolicShape* split = context.InputShape(1);
        split && split->dims.size() == 1 && split->dims[0].IsKnown())
      length = split->dims[0].value;
    if (const std::optional<std::vector<int64_t>> split = context.InputInts(1);
        split && !split->empty() &&
        std::all_of(split->begin(), split->end(), [&](int64_t v) { return v == (*split)[0]; }))
      chunk = KnownDim((*split)[0]);
  }
  context.SetOutputShape(0, element);
  SetLength(context, 0, length);
}

void ConcatFromSequence(InferenceContext& context) {
  SetTypes(context);
  const SymbolicShape* element = context.InputShape(0);
  if (element == nullptr) return;
  const bool new_axis = context.IntAttr("new_axis", 0) == 1;
  const int64_t out_rank = static_cast<int64_t>(element->dims.size()) + (new_axis ? 1 : 0);
  int64_t axis = context.IntAttr("axis", 0);
  if (axis < -out_rank || axis >= out_rank)
    context.Fail(MakeString("axis ", axis, " is out of range for rank ", out_rank));
  if (axis < 0) axis += out_rank;
  const std::optional<int64_t> length = Length(context, 0);
  SymbolicShape out = *element;
  if (new_axis) {
    out.dims.insert(out.dims.begin() + static_cast<std::ptrdiff_t>(axis),
                    length ? KnownDim(*length) : Dim{});
  } else {
    Dim& dim = out.dims[static_cast<size_t>(axis)];
    dim = length ? MulDim(dim, *length) : Dim{};
  }
  context.SetOutputShape(0, out);
}

// SequenceMap: the body's inputs start as one element of each sequence input (its shared shape)
// or the tensor input itself, where the body declares none; the body is then inferred again, and
// each output sequence's tensors share the shape of the body's output.
void SequenceMap(InferenceContext& context) {
  SetTypes(context);
  const Node& node = context.GetNode();
  const Attribute* attribute = context.Attr("body");
  if (attribute != nullptr && !attribute->graphs.empty()) {
    Graph& body = *attribute->graphs[0];
    bool seeded = false;
    for (size_t i = 0; i < body.Inputs().size() && i < node.InputCount(); ++i) {
      NodeArg* input = body.Inputs()[i];
      const NodeArg* outer = node.Inputs()[i];
      if (outer == nullptr) continue;
      if (input->type.kind == TypeKind::kUnknown &&
          (outer->type.kind == TypeKind::kTensor || outer->type.kind == TypeKind::kSequence)) {
        input->type = ValueType::Tensor(outer->type.elem);
        seeded = true;
      }
      if (!input->shape && outer->shape) {
        input->shape = outer->shape;
        seeded = true;
      }
    }
    if (seeded) InferShapes(body);
    for (size_t o = 0; o < body.Outputs().size() && o < node.OutputCount(); ++o) {
      const NodeArg* out = body.Outputs()[o];
      if (out->type.kind == TypeKind::kTensor && out->type.elem != ElementType::kUndefined)
        context.SetOutputType(o, SequenceType(out->type.elem));
      if (out->shape) context.SetOutputShape(o, *out->shape);
    }
  }
  const std::optional<int64_t> length = Length(context, 0);
  for (size_t o = 0; o < node.OutputCount(); ++o) SetLength(context, o, length);
}

// Optional and OptionalGetElement keep their input's shape (and a sequence's length).
void PassThrough(InferenceContext& context) {
  SetTypes(context);
  if (!context.HasInput(0)) return;
  SetShape(context, 0, Shape(context, 0));
  if (context.InputType(0).kind != TypeKind::kTensor) SetLength(context, 0, Length(context, 0));
}

void OptionalHasElement(InferenceContext& context) {
  SetTypes(context);
  context.SetOutputShape(0, SymbolicShape{});
}

}  // namespace

void RegisterSequenceShapes() {
  RegisterShapeInference("SequenceConstruct", SequenceConstruct);
  RegisterShapeInference("SequenceEmpty", SequenceEmpty);
  RegisterShapeInference("SequenceInsert", SequenceInsert);
  RegisterShapeInference("SequenceErase", SequenceErase);
  RegisterShapeInference("SequenceAt", SequenceAt);
  RegisterShapeInference("SequenceLength", SequenceLength);
  RegisterShapeInference("SplitToSequence", SplitToSequence);
  RegisterShapeInference("ConcatFromSequence", ConcatFromSequence);
  RegisterShapeInference("SequenceMap", SequenceMap);
  RegisterShapeInference("Optional", PassThrough);
  RegisterShapeInference("OptionalHasElement", OptionalHasElement);
  RegisterShapeInference("OptionalGetElement", PassThrough);
}

}  // namespace prism
