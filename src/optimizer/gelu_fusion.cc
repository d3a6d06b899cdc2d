// GeluFusion (onnxruntime's name, extended level, CPU EP): the exact GELU as exporters write it,
//   e = Erf(x / sqrt(2))  (Div by sqrt(2) or Mul by 1 / sqrt(2)),  a = e + 1,
//   y = (x * a) * 0.5     or     y = (x * 0.5) * a,
// becomes com.microsoft Gelu(x), as onnxruntime writes it. Float only (the fused kernel's fast
// path), constants are scalars within 1e-4 of their values, every intermediate feeds nothing
// but the next node of the pattern, and the multiplications may take their operands in either
// order.
#include <cmath>
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

bool IsOp(const Node* node, const char* op) {
  return IsOnnxOp(node, op, 2);
}

class GeluFusion final : public GraphTransformer {
 public:
  GeluFusion() : GraphTransformer("GeluFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* erf = graph.FindNode(index);
      if (erf == nullptr || erf->OpType() != "Erf" || !erf->Domain().empty()) continue;
      if (TryFuse(graph, *erf, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& erf, const TransformContext& context) const {
    const NodeArg* erf_in = erf.Inputs()[0];
    if (erf_in == nullptr || !erf_in->type.IsTensor() || erf_in->type.elem != ElementType::kFloat)
      return false;
    // x / sqrt(2) or x * (1 / sqrt(2)), with the constant second (Div) or either side (Mul).
    const Node* scale = graph.Producer(erf_in->name);
    if (!IsOp(scale, "Div") && !IsOp(scale, "Mul")) return false;
    NodeArg* x = nullptr;
    if (scale->OpType() == "Div") {
      if (!Near(ScalarFloatConstant(graph, *scale, 1), std::sqrt(2.0))) return false;
      x = scale->Inputs()[0];
    } else {
      for (size_t c = 0; c < 2 && x == nullptr; ++c)
        if (Near(ScalarFloatConstant(graph, *scale, c), 1.0 / std::sqrt(2.0)))
          x = scale->Inputs()[1 - c];
    }
    if (x == nullptr || SoleConsumer(graph, erf_in) != &erf) return false;

    const Node* add = SoleConsumer(graph, erf.Outputs()[0]);
    if (!IsOp(add, "Add")) return false;
    const std::optional<size_t> one = OtherInput(*add, erf.Outputs()[0]);
    if (!one || !Near(ScalarFloatConstant(graph, *add, *one), 1.0)) return false;

    const Node* mul = SoleConsumer(graph, add->Outputs()[0]);
    if (!IsOp(mul, "Mul")) return false;
    const std::optional<size_t> other = OtherInput(*mul, add->Outputs()[0]);
    if (!other) return false;
    std::vector<NodeIndex> chain = {scale->Index(), erf.Index(), add->Index()};
    const NodeArg* factor = mul->Inputs()[*other];
    if (factor == x) {  // (x * a) * 0.5
      const Node* half = SoleConsumer(graph, mul->Outputs()[0]);
      if (!IsOp(half, "Mul")) return false;
      const std::optional<size_t> c = OtherInput(*half, mul->Outputs()[0]);
      if (!c || !Near(ScalarFloatConstant(graph, *half, *c), 0.5)) return false;
      chain.push_back(mul->Index());
      chain.push_back(half->Index());
    } else {  // (x * 0.5) * a
      const Node* half = graph.Producer(factor->name);
      if (!IsOp(half, "Mul") || SoleConsumer(graph, factor) != mul) return false;
      const std::optional<size_t> c = OtherInput(*half, x);
      if (!c || !Near(ScalarFloatConstant(graph, *half, *c), 0.5)) return false;
      chain.insert(chain.begin(), half->Index());
      chain.push_back(mul->Index());
    }
    for (NodeIndex index : chain)
      if (!MayTouch(graph, index, context)) return false;
    // The result keeps x's shape only when nothing broadcast it (the constants are scalars).
    const Node& last = graph.GetNode(chain.back());
    if (!last.Outputs()[0]->type.IsTensor() || last.Outputs()[0]->type.elem != ElementType::kFloat)
      return false;

    std::vector<std::string> replaced;
    for (NodeIndex index : chain) replaced.push_back(graph.GetNode(index).Name());
    const IExecutionProvider* provider =
        context.provider_of ? context.provider_of(graph, erf.Index()) : nullptr;
    Node& fused =
        ReplaceChain(graph, chain, erf.Name() + "_gelu", "Gelu", "com.microsoft", 1, {x}, {});
    if (context.on_fused) context.on_fused(graph, replaced, fused.Index(), provider);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeGeluFusion() {
  return std::make_unique<GeluFusion>();
}

}  // namespace prism
