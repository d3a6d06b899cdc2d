#include "optimizer/fusion_util.h"

#include <cmath>

namespace prism {

const Node* SoleConsumer(const Graph& graph, const NodeArg* value) {
  if (value == nullptr || graph.IsOutput(value)) return nullptr;
  const std::vector<NodeIndex>& consumers = graph.Consumers(value->name);
  if (consumers.size() != 1) return nullptr;
  const Node& consumer = graph.GetNode(consumers[0]);
  // A read from inside a subgraph of the consumer counts as another reader.
  for (const NodeArg* implicit : consumer.ImplicitInputs())
    if (implicit == value) return nullptr;
  size_t reads = 0;
  for (const NodeArg* input : consumer.Inputs()) reads += input == value;
  return reads == 1 ? &consumer : nullptr;
}

const Tensor* ConstantInput(const Graph& graph, const Node& node, size_t input) {
  if (!node.HasInput(input)) return nullptr;
  const std::string& name = node.Inputs()[input]->name;
  return graph.IsConstantInitializer(name) ? graph.FindInitializer(name) : nullptr;
}

bool OnlyFirstOutputsUsed(const Graph& graph, const Node& node, size_t count) {
  for (size_t o = count; o < node.OutputCount(); ++o) {
    const NodeArg* output = node.Outputs()[o];
    if (output == nullptr || output->name.empty()) continue;
    if (graph.IsOutput(output) || !graph.Consumers(output->name).empty()) return false;
  }
  return true;
}

Node& ReplaceChain(Graph& graph, const std::vector<NodeIndex>& chain, std::string node_name,
                   const std::string& op_type, const std::string& domain, int opset_version,
                   std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes,
                   const std::vector<NodeIndex>& also_remove) {
  const Node& last = graph.GetNode(chain.back());
  NodeArg* output = last.Outputs()[0];
  std::vector<NodeIndex> removed = chain;  // first: an output has one producer
  removed.insert(removed.end(), also_remove.begin(), also_remove.end());
  return graph.ReplaceNodes(removed, node_name, op_type, domain, opset_version, std::move(inputs),
                            {output}, std::move(attributes));
}

void RemoveUnreadInitializers(Graph& graph, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (graph.FindInitializer(name) == nullptr || !graph.IsConstantInitializer(name)) continue;
    const NodeArg* arg = graph.FindNodeArg(name);
    if (arg != nullptr && graph.IsOutput(arg)) continue;
    if (graph.Consumers(name).empty()) graph.RemoveInitializer(name);
  }
}

void DropDerivedSources(Graph& graph, const TransformContext& context, const std::string& derived,
                        const TransformContext::Sources& sources,
                        TransformContext::Rebuild rebuild) {
  if (context.drop_derived_sources) {
    context.drop_derived_sources(graph, derived, sources, std::move(rebuild));
    return;
  }
  std::vector<std::string> names;
  for (const auto& [name, value] : sources) names.push_back(name);
  RemoveUnreadInitializers(graph, names);
}

bool IsOnnxOp(const Node* node, const char* op, int inputs) {
  return node != nullptr && node->OpType() == op && node->Domain().empty() &&
         (inputs < 0 || node->InputCount() == static_cast<size_t>(inputs)) && node->HasOutput(0);
}

bool IsPlainMatMul(const Node* node) {
  if (IsOnnxOp(node, "MatMul", 2)) return true;
  if (node == nullptr || node->OpType() != "FusedMatMul" || node->Domain() != "com.microsoft" ||
      node->InputCount() != 2 || !node->HasOutput(0))
    return false;
  for (const char* name : {"transBatchA", "transBatchB"})
    if (const Attribute* attr = node->FindAttribute(name); attr != nullptr && attr->i != 0)
      return false;
  return true;
}

std::optional<float> ScalarFloatConstant(const Graph& graph, const Node& node, size_t input) {
  const Tensor* tensor = ConstantInput(graph, node, input);
  if (tensor == nullptr || tensor->Type() != ElementType::kFloat || tensor->NumElements() != 1)
    return std::nullopt;
  return tensor->Data<float>()[0];
}

bool Near(std::optional<float> value, double target, double tolerance) {
  return value && std::fabs(static_cast<double>(*value) - target) < tolerance;
}

std::optional<size_t> OtherInput(const Node& node, const NodeArg* value) {
  if (node.InputCount() != 2 || value == nullptr) return std::nullopt;
  if (node.Inputs()[0] == value && node.Inputs()[1] != value) return 1;
  if (node.Inputs()[1] == value && node.Inputs()[0] != value) return 0;
  return std::nullopt;
}

bool IsFloatTensor(const NodeArg* arg) {
  return arg != nullptr && arg->type.IsTensor() && arg->type.elem == ElementType::kFloat;
}

std::optional<size_t> RankOf(const NodeArg* arg) {
  if (arg == nullptr || !arg->shape) return std::nullopt;
  return arg->shape->dims.size();
}

std::optional<std::vector<int64_t>> StaticDims(const NodeArg* arg) {
  if (arg == nullptr || !arg->shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const Dim& dim : arg->shape->dims) {
    if (!dim.IsKnown()) return std::nullopt;
    dims.push_back(dim.value);
  }
  return dims;
}

bool DimIs(const NodeArg* arg, int64_t i, int64_t expected) {
  if (arg == nullptr || !arg->shape) return false;
  const int64_t rank = static_cast<int64_t>(arg->shape->dims.size());
  if (i < 0) i += rank;
  if (i < 0 || i >= rank) return false;
  const Dim& dim = arg->shape->dims[static_cast<size_t>(i)];
  return dim.IsKnown() && dim.value == expected;
}

bool SameShape(const NodeArg* a, const NodeArg* b) {
  if (a == nullptr || b == nullptr || !a->shape || !b->shape) return false;
  if (a->shape->dims.size() != b->shape->dims.size()) return false;
  for (size_t i = 0; i < a->shape->dims.size(); ++i) {
    const Dim& x = a->shape->dims[i];
    const Dim& y = b->shape->dims[i];
    if (x.IsKnown() != y.IsKnown()) return false;
    if (x.IsKnown() ? x.value != y.value : (x.param.empty() || x.param != y.param)) return false;
  }
  return true;
}

std::optional<std::vector<int64_t>> ConstantInts(const Graph& graph, const Node& node,
                                                 size_t input) {
  const Tensor* tensor = ConstantInput(graph, node, input);
  if (tensor == nullptr || tensor->Shape().Rank() > 1) return std::nullopt;
  std::vector<int64_t> values(static_cast<size_t>(tensor->NumElements()));
  if (tensor->Type() == ElementType::kInt64) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = tensor->Data<int64_t>()[i];
  } else if (tensor->Type() == ElementType::kInt32) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = tensor->Data<int32_t>()[i];
  } else {
    return std::nullopt;
  }
  return values;
}

bool MayTouchAll(const GraphTransformer& pass, const Graph& graph,
                 const std::vector<NodeIndex>& chain, const TransformContext& context) {
  for (NodeIndex index : chain)
    if (!pass.MayTouch(graph, index, context)) return false;
  // One EP runs the fused node: a chain split between EPs (a pass targeting several) stays.
  if (context.provider_of && !chain.empty())
    for (NodeIndex index : chain)
      if (context.provider_of(graph, index) != context.provider_of(graph, chain.front()))
        return false;
  return true;
}

Node& FuseChain(Graph& graph, const TransformContext& context, const std::vector<NodeIndex>& chain,
                std::string node_name, const std::string& op_type, const std::string& domain,
                int opset_version, std::vector<NodeArg*> inputs,
                std::map<std::string, Attribute> attributes,
                const std::vector<NodeIndex>& also_remove) {
  std::vector<std::string> replaced;
  for (NodeIndex index : chain) replaced.push_back(graph.GetNode(index).Name());
  const IExecutionProvider* provider =
      context.provider_of ? context.provider_of(graph, chain.front()) : nullptr;
  Node& fused = ReplaceChain(graph, chain, std::move(node_name), op_type, domain, opset_version,
                             std::move(inputs), std::move(attributes), also_remove);
  if (context.on_fused) context.on_fused(graph, replaced, fused.Index(), provider);
  return fused;
}

Attribute FloatAttribute(const std::string& name, float value) {
  Attribute attribute;
  attribute.name = name;
  attribute.type = AttributeType::kFloat;
  attribute.f = value;
  return attribute;
}

Attribute IntAttribute(const std::string& name, int64_t value) {
  Attribute attribute;
  attribute.name = name;
  attribute.type = AttributeType::kInt;
  attribute.i = value;
  return attribute;
}

Attribute IntsAttribute(const std::string& name, std::vector<int64_t> values) {
  Attribute attribute;
  attribute.name = name;
  attribute.type = AttributeType::kInts;
  attribute.ints = std::move(values);
  return attribute;
}

}  // namespace prism
