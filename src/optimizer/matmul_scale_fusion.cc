// MatMulScaleFusion (onnxruntime's name, extended level, CPU EP): a MatMul whose product is only
// scaled by a constant,
//   Mul(MatMul(A, B), s)  (either order)   or   Div(MatMul(A, B), s)
// becomes com.microsoft FusedMatMul(A, B) with alpha = s (1 / s), as onnxruntime writes it; the
// GEMM applies alpha as it writes the product, so the second pass over it goes. A FusedMatMul
// (from MatMulTransposeFusion, or one in the model) folds the factor into its alpha. Only for
// float, s a one-element float constant (finite, and non-zero for Div) that leaves the
// product's shape as it is (no broadcast to a higher rank), and a product read by nothing but
// the Mul or Div.
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class MatMulScaleFusion final : public GraphTransformer {
 public:
  MatMulScaleFusion()
      : GraphTransformer("MatMulScaleFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* matmul = graph.FindNode(index);
      if (!IsPlainMatMul(matmul)) continue;
      if (TryFuse(graph, *matmul, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& matmul, const TransformContext& context) const {
    const NodeArg* product = matmul.Outputs()[0];
    if (!IsFloatTensor(matmul.Inputs()[0]) || !IsFloatTensor(matmul.Inputs()[1]) ||
        !IsFloatTensor(product))
      return false;
    const Node* scale = SoleConsumer(graph, product);
    if (!IsOnnxOp(scale, "Mul", 2) && !IsOnnxOp(scale, "Div", 2)) return false;
    const std::optional<size_t> factor_input = OtherInput(*scale, product);
    if (!factor_input || (scale->OpType() == "Div" && *factor_input != 1)) return false;
    const std::optional<float> factor = ScalarFloatConstant(graph, *scale, *factor_input);
    if (!factor || !std::isfinite(*factor) || (scale->OpType() == "Div" && *factor == 0.0f))
      return false;
    if (!IsFloatTensor(scale->Outputs()[0]) || !SameShape(product, scale->Outputs()[0]))
      return false;
    const std::vector<NodeIndex> chain = {matmul.Index(), scale->Index()};
    if (!MayTouchAll(*this, graph, chain, context)) return false;

    const Attribute* old_alpha = matmul.FindAttribute("alpha");
    const float alpha = (old_alpha != nullptr ? old_alpha->f : 1.0f) *
                        (scale->OpType() == "Div" ? 1.0f / *factor : *factor);
    std::map<std::string, Attribute> attributes = {{"alpha", FloatAttribute("alpha", alpha)}};
    for (const char* name : {"transA", "transB"})
      if (const Attribute* trans = matmul.FindAttribute(name))
        attributes[name] = IntAttribute(name, trans->i);
    FuseChain(graph, context, chain, matmul.Name() + "_scaled", "FusedMatMul", "com.microsoft", 1,
              {matmul.Inputs()[0], matmul.Inputs()[1]}, std::move(attributes));
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeMatMulScaleFusion() {
  return std::make_unique<MatMulScaleFusion>();
}

}  // namespace prism
