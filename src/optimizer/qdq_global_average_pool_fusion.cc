// QDQGlobalAveragePoolFusion (extended level, CPU EP): onnxruntime's QDQ rule for
// GlobalAveragePool,
//   DequantizeLinear(x) -> GlobalAveragePool -> QuantizeLinear
// becomes com.microsoft QLinearGlobalAveragePool(x, x_scale, x_zp, y_scale, y_zp) with
// channels_last 0, x and y of one type (uint8 or int8), each scale and zero point one constant
// value, and the pool's output read only by the QuantizeLinear. A DequantizeLinear left unread
// is removed.
#include "optimizer/fusion_util.h"
#include "optimizer/qdq_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class QdqGlobalAveragePoolFusion final : public GraphTransformer {
 public:
  QdqGlobalAveragePoolFusion()
      : GraphTransformer("QDQGlobalAveragePoolFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* pool = graph.FindNode(index);
      if (!IsOnnxOp(pool, "GlobalAveragePool", 1)) continue;
      const auto x = DequantizeWriting(graph, pool->Inputs()[0], /*per_tensor=*/true);
      if (!x) continue;
      const auto y = QuantizeReadingOnly(graph, pool->Outputs()[0]);
      if (!y || y->type != x->type) continue;
      if (!MayTouchNodes(*this, graph, {pool, x->node, y->node}, context)) continue;
      std::vector<NodeArg*> inputs = {x->quantized, x->scale, x->zero_point, y->scale,
                                      y->zero_point};
      const NodeIndex dequantize = x->node->Index();
      FuseQdqChain(graph, context, {pool->Index(), y->node->Index()}, pool->Name() + "_quant",
                   "QLinearGlobalAveragePool", "com.microsoft", 1, std::move(inputs),
                   {{"channels_last", IntAttribute("channels_last", 0)}}, {dequantize});
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeQdqGlobalAveragePoolFusion() {
  return std::make_unique<QdqGlobalAveragePoolFusion>();
}

}  // namespace prism
