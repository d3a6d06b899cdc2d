// QDQAddFusion (extended level, CPU EP): onnxruntime's QDQ rule for Add,
//   DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear
// becomes com.microsoft QLinearAdd(a, a_scale, a_zp, b, b_scale, b_zp, c_scale, c_zp), with a,
// b and c of one type (uint8 or int8), every scale and zero point one constant value, and the
// Add's output read only by the QuantizeLinear. DequantizeLinear nodes left unread are removed.
#include "optimizer/fusion_util.h"
#include "optimizer/qdq_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class QdqAddFusion final : public GraphTransformer {
 public:
  QdqAddFusion() : GraphTransformer("QDQAddFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* add = graph.FindNode(index);
      if (!IsOnnxOp(add, "Add", 2)) continue;
      const auto a = DequantizeWriting(graph, add->Inputs()[0], /*per_tensor=*/true);
      const auto b = DequantizeWriting(graph, add->Inputs()[1], /*per_tensor=*/true);
      if (!a || !b || a->type != b->type) continue;
      const auto c = QuantizeReadingOnly(graph, add->Outputs()[0]);
      if (!c || c->type != a->type) continue;
      if (!MayTouchNodes(*this, graph, {add, a->node, b->node, c->node}, context)) continue;
      std::vector<NodeArg*> inputs = {a->quantized, a->scale,      a->zero_point, b->quantized,
                                      b->scale,     b->zero_point, c->scale,      c->zero_point};
      const std::vector<NodeIndex> dequantize = {a->node->Index(), b->node->Index()};
      FuseQdqChain(graph, context, {add->Index(), c->node->Index()}, add->Name() + "_quant",
                   "QLinearAdd", "com.microsoft", 1, std::move(inputs), {}, dequantize);
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeQdqAddFusion() {
  return std::make_unique<QdqAddFusion>();
}

}  // namespace prism
