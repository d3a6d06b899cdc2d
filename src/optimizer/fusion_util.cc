#include "optimizer/fusion_util.h"

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
                   std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes) {
  const Node& last = graph.GetNode(chain.back());
  NodeArg* output = last.Outputs()[0];
  for (NodeIndex index : chain) graph.RemoveNode(index);  // first: an output has one producer
  const std::string name = graph.UniqueNodeName(node_name);
  Node& fused = graph.AddNode(name, op_type, domain, opset_version, std::move(inputs), {output},
                              std::move(attributes));
  const NodeIndex fused_index = fused.Index();
  graph.Resolve();
  return *graph.MutableNode(fused_index);
}

void RemoveUnreadInitializers(Graph& graph, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (graph.FindInitializer(name) == nullptr || !graph.IsConstantInitializer(name)) continue;
    const NodeArg* arg = graph.FindNodeArg(name);
    if (arg != nullptr && graph.IsOutput(arg)) continue;
    if (graph.Consumers(name).empty()) graph.RemoveInitializer(name);
  }
}

}  // namespace prism
