// MatMulTransposeFusion (onnxruntime's name, extended level, CPU EP): a Transpose that only
// swaps the last two axes of a MatMul input,
//   MatMul(Transpose(A, perm=[0, .., r-1, r-2]), B)   (or on B, or on both)
// becomes com.microsoft FusedMatMul(A, B) with transA (transB) = 1, as onnxruntime writes it;
// a FusedMatMul (alpha from MatMulScaleFusion, or one in the model) takes a Transpose the same
// way, its flag flipped. The FusedMatMul kernel reads the operand strided, so the transposed
// copy is never made. Only for float inputs of known rank >= 2, a perm that keeps every other
// axis in place (a rank-2 Transpose may omit perm), a Transpose read by nothing but this node
// (once), and FusedMatMul nodes without batch transposes.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

int64_t IntOr(const Node& node, const std::string& name, int64_t fallback) {
  const Attribute* attr = node.FindAttribute(name);
  return attr != nullptr ? attr->i : fallback;
}

// Whether transpose swaps exactly the last two axes of its input.
bool SwapsLastTwoAxes(const Node& transpose) {
  const std::optional<size_t> rank = RankOf(transpose.Inputs()[0]);
  if (!rank || *rank < 2) return false;
  const Attribute* perm = transpose.FindAttribute("perm");
  if (perm == nullptr) return *rank == 2;  // the default reverses the axes
  if (perm->ints.size() != *rank) return false;
  const int64_t r = static_cast<int64_t>(*rank);
  for (int64_t i = 0; i < r; ++i) {
    const int64_t expected = i == r - 2 ? r - 1 : i == r - 1 ? r - 2 : i;
    if (perm->ints[static_cast<size_t>(i)] != expected) return false;
  }
  return true;
}

class MatMulTransposeFusion final : public GraphTransformer {
 public:
  MatMulTransposeFusion()
      : GraphTransformer("MatMulTransposeFusion", TransformerLevel::kExtended, {kCpu}) {}

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
    if (!IsFloatTensor(matmul.Inputs()[0]) || !IsFloatTensor(matmul.Inputs()[1]) ||
        !IsFloatTensor(matmul.Outputs()[0]))
      return false;
    std::vector<NodeArg*> inputs = {matmul.Inputs()[0], matmul.Inputs()[1]};
    bool trans[2] = {IntOr(matmul, "transA", 0) != 0, IntOr(matmul, "transB", 0) != 0};
    std::vector<NodeIndex> chain;
    for (size_t i = 0; i < 2; ++i) {
      const Node* transpose = graph.Producer(inputs[i]->name);
      if (!IsOnnxOp(transpose, "Transpose", 1) || transpose->Outputs()[0] != inputs[i] ||
          SoleConsumer(graph, inputs[i]) != &matmul || !SwapsLastTwoAxes(*transpose))
        continue;
      chain.push_back(transpose->Index());
      inputs[i] = transpose->Inputs()[0];
      trans[i] = !trans[i];
    }
    if (chain.empty()) return false;
    chain.push_back(matmul.Index());
    if (!MayTouchAll(*this, graph, chain, context)) return false;
    std::map<std::string, Attribute> attributes = {
        {"transA", IntAttribute("transA", trans[0] ? 1 : 0)},
        {"transB", IntAttribute("transB", trans[1] ? 1 : 0)}};
    if (const Attribute* alpha = matmul.FindAttribute("alpha"))
      attributes["alpha"] = FloatAttribute("alpha", alpha->f);
    FuseChain(graph, context, chain, matmul.Name() + "_transposed", "FusedMatMul", "com.microsoft",
              1, std::move(inputs), std::move(attributes));
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeMatMulTransposeFusion() {
  return std::make_unique<MatMulTransposeFusion>();
}

}  // namespace prism
