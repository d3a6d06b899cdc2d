// BiasGeluFusion (onnxruntime's name, extended level, CPU EP): a projection's bias added right
// before the exact GELU,
//   com.microsoft Gelu(Add(X, bias))     (the Gelu GeluFusion writes, or one in the model)
// becomes com.microsoft BiasGelu(X, bias). It is registered after GeluFusion, so a decomposed
// GELU is fused into Gelu first in the same round. Only when X is float of rank >= 1 with a
// known last dim H, bias is a float 1-D [H] (the Add then keeps X's shape), the sum feeds
// nothing but the Gelu, and the Add takes its operands in either order.
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class BiasGeluFusion final : public GraphTransformer {
 public:
  BiasGeluFusion() : GraphTransformer("BiasGeluFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* gelu = graph.FindNode(index);
      if (gelu == nullptr || gelu->OpType() != "Gelu" || gelu->Domain() != "com.microsoft" ||
          gelu->InputCount() != 1 || !gelu->HasOutput(0))
        continue;
      if (TryFuse(graph, *gelu, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& gelu, const TransformContext& context) const {
    const NodeArg* sum = gelu.Inputs()[0];
    const Node* add = sum != nullptr ? graph.Producer(sum->name) : nullptr;
    if (!IsOnnxOp(add, "Add", 2) || SoleConsumer(graph, sum) != &gelu) return false;
    for (size_t b = 0; b < 2; ++b) {
      NodeArg* bias = add->Inputs()[b];
      NodeArg* x = add->Inputs()[1 - b];
      const std::optional<std::vector<int64_t>> bias_dims = StaticDims(bias);
      const std::optional<size_t> rank = RankOf(x);
      if (!IsFloatTensor(bias) || !IsFloatTensor(x) || !bias_dims || bias_dims->size() != 1 ||
          !rank || *rank == 0 || !DimIs(x, -1, (*bias_dims)[0]) || !SameShape(x, sum))
        continue;
      const std::vector<NodeIndex> chain = {add->Index(), gelu.Index()};
      if (!IsFloatTensor(gelu.Outputs()[0]) || !MayTouchAll(*this, graph, chain, context))
        return false;
      FuseChain(graph, context, chain, gelu.Name() + "_bias", "BiasGelu", "com.microsoft", 1,
                {x, bias}, {});
      return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeBiasGeluFusion() {
  return std::make_unique<BiasGeluFusion>();
}

}  // namespace prism
