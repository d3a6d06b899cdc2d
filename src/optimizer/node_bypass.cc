#include "optimizer/node_bypass.h"

namespace prism {

bool BypassNode(Graph& graph, NodeIndex index, size_t input, size_t output) {
  const Node& node = graph.GetNode(index);
  if (!node.HasInput(input) || !node.HasOutput(output)) return false;
  NodeArg* source = node.Inputs()[input];
  const NodeArg* result = node.Outputs()[output];
  if (!graph.IsOutput(result)) {
    graph.ReplaceAllUses(result, source);
    graph.RemoveNode(index);
    return true;
  }
  // The output's name is the model's interface: let the input's producer write it instead, when
  // nothing else reads the input and the input is no graph output itself.
  const Node* producer = graph.Producer(source->name);
  if (producer == nullptr || graph.MutableNodeArg(source->name) != source ||
      graph.IsOutput(source) || graph.Consumers(source->name).size() != 1)
    return false;
  NodeArg* named = graph.MutableNodeArg(result->name);
  const NodeIndex producer_index = producer->Index();
  for (size_t o = 0; o < producer->OutputCount(); ++o)
    if (producer->Outputs()[o] == source) {
      graph.RemoveNode(index);  // first: the output may have one producer only
      named->type = source->type.kind != TypeKind::kUnknown ? source->type : named->type;
      graph.SetNodeOutput(producer_index, o, named);
      return true;
    }
  return false;
}

}  // namespace prism
