// EliminateDropout (onnxruntime's name): at inference Dropout is the identity on its data (opsets
// 1-11, and 12+ unless training_mode is a constant true or not a constant at all), so it goes when
// nothing reads its mask.
#include "optimizer/node_bypass.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

bool InInferenceMode(const Graph& graph, const Node& node) {
  if (node.OpsetVersion() < 12 || !node.HasInput(2)) return true;
  const Tensor* training = graph.IsConstantInitializer(node.Inputs()[2]->name)
                               ? graph.FindInitializer(node.Inputs()[2]->name)
                               : nullptr;
  return training != nullptr && training->Type() == ElementType::kBool &&
         training->NumElements() == 1 && !training->Data<bool>()[0];
}

class DropoutElimination final : public GraphTransformer {
 public:
  DropoutElimination() : GraphTransformer("EliminateDropout", TransformerLevel::kBasic) {}

  bool Apply(Graph& graph, const TransformContext&) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || node->OpType() != "Dropout" || !node->Domain().empty()) continue;
      if (!InInferenceMode(graph, *node)) continue;
      if (node->HasOutput(1)) {
        const NodeArg* mask = node->Outputs()[1];
        if (graph.IsOutput(mask) || !graph.Consumers(mask->name).empty()) continue;
      }
      if (BypassNode(graph, index)) {
        graph.Resolve();
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeDropoutElimination() {
  return std::make_unique<DropoutElimination>();
}

}  // namespace prism
