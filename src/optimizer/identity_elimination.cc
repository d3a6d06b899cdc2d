// EliminateIdentity (onnxruntime's name): Identity nodes disappear; their readers read the input.
#include "optimizer/node_bypass.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

class IdentityElimination final : public GraphTransformer {
 public:
  IdentityElimination() : GraphTransformer("EliminateIdentity", TransformerLevel::kBasic) {}

  bool Apply(Graph& graph, const TransformContext&) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || node->OpType() != "Identity" || !node->Domain().empty()) continue;
      if (BypassNode(graph, index)) {
        graph.Resolve();  // the next bypass reads producers and consumers
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeIdentityElimination() {
  return std::make_unique<IdentityElimination>();
}

}  // namespace prism
