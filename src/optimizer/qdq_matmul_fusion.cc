// QDQMatMulFusion (extended level, CPU EP): onnxruntime's QDQ rule for MatMul,
//   DequantizeLinear(a), DequantizeLinear(b) -> MatMul -> QuantizeLinear
// becomes QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) (ONNX), which runs on
// the int8 GEMM (b prepacked when it is a constant). Conditions: a and y per tensor and of one
// type (uint8 or int8; int8 a with int8 b, as onnxruntime's kernel takes them), b per tensor or,
// for a 2-D b, per column (axis 1), the MatMul's output read only by the QuantizeLinear.
// DequantizeLinear nodes left unread are removed.
#include "optimizer/fusion_util.h"
#include "optimizer/qdq_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class QdqMatMulFusion final : public GraphTransformer {
 public:
  QdqMatMulFusion() : GraphTransformer("QDQMatMulFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* matmul = graph.FindNode(index);
      if (!IsOnnxOp(matmul, "MatMul", 2)) continue;
      const auto a = DequantizeWriting(graph, matmul->Inputs()[0], /*per_tensor=*/true);
      const auto b = DequantizeWriting(graph, matmul->Inputs()[1], /*per_tensor=*/false);
      if (!a || !b || !PerTensorOrPerColumn(*b)) continue;
      // onnxruntime's QLinearMatMul takes int8 a with int8 b only.
      if (a->type == ElementType::kInt8 && b->type != ElementType::kInt8) continue;
      const auto y = QuantizeReadingOnly(graph, matmul->Outputs()[0]);
      if (!y || y->type != a->type) continue;
      if (!MayTouchNodes(*this, graph, {matmul, a->node, b->node, y->node}, context)) continue;
      std::vector<NodeArg*> inputs = {a->quantized, a->scale,      a->zero_point, b->quantized,
                                      b->scale,     b->zero_point, y->scale,      y->zero_point};
      const std::vector<NodeIndex> dequantize = {a->node->Index(), b->node->Index()};
      FuseQdqChain(graph, context, {matmul->Index(), y->node->Index()}, matmul->Name() + "_quant",
                   "QLinearMatMul", "", 10, std::move(inputs), {}, dequantize);
      changed = true;
    }
    return changed;
  }

 private:
  // One scale, or one per column of a 2-D b quantized along axis 1.
  static bool PerTensorOrPerColumn(const QdqNode& b) {
    if (b.scale_value->NumElements() == 1) return true;
    const auto rank = RankOf(b.quantized);
    const Attribute* axis = b.node->FindAttribute("axis");
    const int64_t value = axis != nullptr ? axis->i : 1;
    return rank && *rank == 2 && (value == 1 || value == -1) &&
           b.scale_value->Shape().Rank() == 1 &&
           DimIs(b.quantized, 1, b.scale_value->NumElements());
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeQdqMatMulFusion() {
  return std::make_unique<QdqMatMulFusion>();
}

}  // namespace prism
