// QDQDropFusion (extended level, CPU EP): onnxruntime's "drop QDQ" rule for ops that only move
// or select values,
//   DequantizeLinear(x) -> op -> QuantizeLinear   (the same scale and zero point on both)
// becomes op on the quantized x, writing the QuantizeLinear's output, for op MaxPool (opset 12+,
// one output: uint8/int8 MaxPool), Flatten, Reshape, Transpose, Squeeze and Unsqueeze: each
// output element is one input element, and quantizing a dequantized value with the same
// parameters gives it back. Only per-tensor parameters of one type; the op's output read only by
// the QuantizeLinear. A DequantizeLinear left unread is removed.
#include <set>
#include <string>

#include "optimizer/fusion_util.h"
#include "optimizer/qdq_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

bool Droppable(const Node& node) {
  static const std::set<std::string> ops = {"Flatten", "Reshape", "Transpose", "Squeeze",
                                            "Unsqueeze"};
  if (!node.Domain().empty() || !node.HasOutput(0)) return false;
  if (node.OpType() == "MaxPool")
    return node.OpsetVersion() >= 12 && node.OutputCount() == 1 && node.InputCount() == 1;
  return ops.count(node.OpType()) > 0;
}

class QdqDropFusion final : public GraphTransformer {
 public:
  QdqDropFusion() : GraphTransformer("QDQDropFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || !Droppable(*node) || node->InputCount() == 0) continue;
      const auto x = DequantizeWriting(graph, node->Inputs()[0], /*per_tensor=*/true);
      if (!x) continue;
      const auto y = QuantizeReadingOnly(graph, node->Outputs()[0]);
      if (!y || !SameQuantization(*x, *y)) continue;
      if (!MayTouchNodes(*this, graph, {node, x->node, y->node}, context)) continue;
      std::vector<NodeArg*> inputs = node->Inputs();
      inputs[0] = x->quantized;
      const NodeIndex dequantize = x->node->Index();
      // Copies: the node goes before the new one is made.
      const std::string name = node->Name(), op_type = node->OpType();
      const int opset = node->OpsetVersion();
      std::map<std::string, Attribute> attributes = node->Attributes();
      FuseQdqChain(graph, context, {node->Index(), y->node->Index()}, name, op_type, "", opset,
                   std::move(inputs), std::move(attributes), {dequantize});
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeQdqDropFusion() {
  return std::make_unique<QdqDropFusion>();
}

}  // namespace prism
