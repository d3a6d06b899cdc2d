// Element-type inference for node outputs. Kernels are chosen by type, so every output needs
// one; shapes are left to the kernels at run time.
#include <set>

#include <optional>

#include "graph/graph_builder.h"

namespace prism {

// The sequence and optional ops' rules (shape_inference/sequence_shapes.cc).
std::optional<ValueType> SequenceOpOutputType(const Node& node, size_t i);
// The quantization ops' rules (shape_inference/quantization_shapes.cc).
std::optional<ValueType> QuantizationOpOutputType(const Node& node, size_t i);

namespace {

const std::set<std::string>& BoolOutputOps() {
  static const std::set<std::string> ops = {
      "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And",
      "Or",    "Xor",  "Not",         "IsNaN",   "IsInf",          "RegexFullMatch"};
  return ops;
}

const std::set<std::string>& Int64OutputOps() {
  static const std::set<std::string> ops = {"Shape",  "Size",   "NonZero",
                                            "ArgMax", "ArgMin", "NonMaxSuppression"};
  return ops;
}

// The type of a Constant node's value attribute.
ValueType ConstantType(const Node& node) {
  for (const auto& [name, attribute] : node.Attributes()) {
    if (name == "value" && attribute.tensor) return ValueType::Tensor(attribute.tensor->Type());
    if (name == "value_float" || name == "value_floats")
      return ValueType::Tensor(ElementType::kFloat);
    if (name == "value_int" || name == "value_ints") return ValueType::Tensor(ElementType::kInt64);
    if (name == "value_string" || name == "value_strings")
      return ValueType::Tensor(ElementType::kString);
  }
  return {};
}

ValueType InputType(const Node& node, size_t i) {
  return node.HasInput(i) ? node.Inputs()[i]->type : ValueType{};
}

// Returns the inferred type of output i, or an unknown type when no rule applies.
ValueType InferOutput(const Node& node, size_t i) {
  const std::string& op = node.OpType();
  if (!node.Domain().empty()) return {};
  if (op == "Cast") {
    const Attribute* to = node.FindAttribute("to");
    if (to && to->type == AttributeType::kString) {  // Cast-1 to Cast-5: a DataType name
      const ElementType named = ElementTypeFromDataTypeName(to->s);
      return named != ElementType::kUndefined ? ValueType::Tensor(named) : ValueType{};
    }
    if (to && IsKnownElementType(static_cast<int32_t>(to->i)))
      return ValueType::Tensor(static_cast<ElementType>(to->i));
    return {};
  }
  if (op == "BitCast") {
    const Attribute* to = node.FindAttribute("to");
    if (to && to->type == AttributeType::kInt && IsKnownElementType(static_cast<int32_t>(to->i)))
      return ValueType::Tensor(static_cast<ElementType>(to->i));
    return {};
  }
  if (op == "CastLike") return ValueType::Tensor(InputType(node, 1).elem);
  if (op == "Constant") return ConstantType(node);
  if (op == "ConstantOfShape") {
    const Attribute* value = node.FindAttribute("value");
    return ValueType::Tensor(value && value->tensor ? value->tensor->Type() : ElementType::kFloat);
  }
  if (BoolOutputOps().count(op)) return ValueType::Tensor(ElementType::kBool);
  if (Int64OutputOps().count(op)) return ValueType::Tensor(ElementType::kInt64);
  if (op == "TfIdfVectorizer") return ValueType::Tensor(ElementType::kFloat);
  if (op == "ConvInteger") return ValueType::Tensor(ElementType::kInt32);
  if (op == "MaxPool" && i == 1) return ValueType::Tensor(ElementType::kInt64);
  if ((op == "TopK" && i == 1) || (op == "Unique" && i > 0))
    return ValueType::Tensor(ElementType::kInt64);
  if (op == "Dropout" && i == 1)
    return node.OpsetVersion() >= 10 ? ValueType::Tensor(ElementType::kBool) : InputType(node, 0);
  if (op == "BatchNormalization" && i > 0) {
    const ValueType mean = InputType(node, 3);
    return mean.kind != TypeKind::kUnknown ? mean : InputType(node, 0);
  }
  if (op == "RMSNormalization") return InputType(node, 1);         // Y has the scale's type (V)
  if (op == "SoftmaxCrossEntropyLoss") return InputType(node, 0);  // loss and log_prob
  if (op == "Attention") return InputType(node, i == 2 ? 2 : 0);   // present_value has V's type
  if (op == "NonMaxSuppression") return ValueType::Tensor(ElementType::kInt64);
  if (op == "CausalConvWithState") return InputType(node, 0);  // output and present_state
  if (op == "LinearAttention")  // present_state: past_state's type, or query's
    return InputType(node, i == 1 && node.HasInput(3) ? 3 : 0);
  if (op == "LayerNormalization" && i > 0) {
    const Attribute* stash = node.FindAttribute("stash_type");
    const int64_t stash_type = stash ? stash->i : 1;
    return ValueType::Tensor(static_cast<ElementType>(stash_type));
  }
  if (op == "If") {
    const Attribute* branch = node.FindAttribute("then_branch");
    if (branch && !branch->graphs.empty() && i < branch->graphs[0]->Outputs().size()) {
      ValueType then_type = branch->graphs[0]->Outputs()[i]->type;
      if (then_type.kind != TypeKind::kUnknown && then_type.elem != ElementType::kUndefined)
        return then_type;
    }
    const Attribute* other = node.FindAttribute("else_branch");
    if (other && !other->graphs.empty() && i < other->graphs[0]->Outputs().size())
      return other->graphs[0]->Outputs()[i]->type;
    return {};
  }
  if (op == "Identity") return InputType(node, 0);
  if (std::optional<ValueType> type = SequenceOpOutputType(node, i)) return *type;
  if (std::optional<ValueType> type = QuantizationOpOutputType(node, i)) return *type;
  if (op == "Split") return InputType(node, 0);  // every output
  if (op == "EyeLike") {
    const Attribute* dtype = node.FindAttribute("dtype");
    if (dtype && IsKnownElementType(static_cast<int32_t>(dtype->i)))
      return ValueType::Tensor(static_cast<ElementType>(dtype->i));
    return InputType(node, 0);
  }
  // Default: most ops produce their first input's type (Add, Relu, Conv, Reshape, ...).
  if (node.InputCount() > 0 && i == 0) {
    ValueType first = InputType(node, 0);
    if (first.kind == TypeKind::kTensor) return first;
  }
  return {};
}

}  // namespace

void GraphBuilder::InferTypes(Graph& graph) {
  for (NodeIndex index : graph.TopologicalOrder()) {
    Node& node = *graph.nodes_[index];
    for (const auto& [name, attribute] : node.attributes_)
      for (const auto& sub : attribute.graphs) InferTypes(*sub);
    for (size_t i = 0; i < node.outputs_.size(); ++i) {
      NodeArg* arg = node.outputs_[i];
      if (arg == nullptr) continue;
      ValueType inferred = InferOutput(node, i);
      if (inferred.kind != TypeKind::kUnknown && inferred.elem != ElementType::kUndefined)
        arg->type = inferred;  // the rule wins over a (possibly stale) value_info
    }
  }
}

}  // namespace prism
