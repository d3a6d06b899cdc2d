// LayerNormFusion (onnxruntime's name, extended level, CPU EP): layer normalization as exporters
// decompose it,
//   mean = ReduceMean(X, axes)          d = Sub(X, mean)
//   var = ReduceMean(Pow(d, 2), axes)   std = Sqrt(Add(var, epsilon))
//   Y = Add(Mul(Div(d, std), gamma), beta)      (the Mul and Add take either operand order)
// becomes LayerNormalization(X, gamma, beta) with axis = the first reduced axis and that epsilon.
// Only when: X is float with a known rank; both ReduceMeans reduce the same trailing axes
// [axis, rank) and keep the dims; the exponent is 2 and epsilon a scalar constant; gamma (and
// beta) have exactly the normalized dims (so nothing broadcasts beyond them); every
// intermediate feeds nothing but the next node of the pattern (d feeds the Pow and the Div). The
// final Add is optional (LayerNormalization without B). The node gets the model's ONNX opset
// (the CPU EP registers LayerNormalization from opset 1, as onnxruntime does).
#include <algorithm>
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";
// The CUDA EP runs what this fusion makes (float32) too.
constexpr const char* kCuda = "CUDAExecutionProvider";

// The axes a ReduceMean reduces, normalized against rank and sorted, when it keeps the dims and
// names them (attribute before opset 18, constant input from it).
std::optional<std::vector<int64_t>> ReducedAxes(const Graph& graph, const Node& node,
                                                int64_t rank) {
  if (const Attribute* keep = node.FindAttribute("keepdims"); keep != nullptr && keep->i == 0)
    return std::nullopt;
  std::vector<int64_t> axes;
  if (node.OpsetVersion() < 18) {
    if (node.InputCount() != 1) return std::nullopt;
    const Attribute* attr = node.FindAttribute("axes");
    if (attr == nullptr) return std::nullopt;
    axes = attr->ints;
  } else {
    if (node.InputCount() != 2) return std::nullopt;
    std::optional<std::vector<int64_t>> values = ConstantInts(graph, node, 1);
    if (!values) return std::nullopt;
    axes = *values;
  }
  if (axes.empty()) return std::nullopt;
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
  return axes;
}

class LayerNormFusion final : public GraphTransformer {
 public:
  LayerNormFusion()
      : GraphTransformer("LayerNormFusion", TransformerLevel::kExtended, {kCpu, kCuda}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || node->OpType() != "ReduceMean" || !node->Domain().empty()) continue;
      if (TryFuse(graph, *node, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& mean, const TransformContext& context) const {
    NodeArg* x = mean.Inputs()[0];
    const std::optional<size_t> rank = RankOf(x);
    if (!IsFloatTensor(x) || !rank || *rank == 0 || !mean.HasOutput(0)) return false;
    const std::optional<std::vector<int64_t>> axes =
        ReducedAxes(graph, mean, static_cast<int64_t>(*rank));
    if (!axes) return false;
    // The trailing axes [axis, rank), each of a known size.
    const int64_t axis = axes->front();
    if (axes->back() != static_cast<int64_t>(*rank) - 1 ||
        static_cast<int64_t>(axes->size()) != static_cast<int64_t>(*rank) - axis)
      return false;
    std::vector<int64_t> normalized;
    for (int64_t a = axis; a < static_cast<int64_t>(*rank); ++a) {
      const Dim& dim = x->shape->dims[static_cast<size_t>(a)];
      if (!dim.IsKnown()) return false;
      normalized.push_back(dim.value);
    }

    // d = X - mean, read by the Pow and the Div only.
    const Node* sub = SoleConsumer(graph, mean.Outputs()[0]);
    if (!IsOnnxOp(sub, "Sub", 2) || sub->Inputs()[0] != x || sub->Inputs()[1] != mean.Outputs()[0])
      return false;
    const NodeArg* d = sub->Outputs()[0];
    if (graph.IsOutput(d)) return false;
    const std::vector<NodeIndex>& d_readers = graph.Consumers(d->name);
    if (d_readers.size() != 2) return false;
    const Node* pow = nullptr;
    const Node* div = nullptr;
    for (NodeIndex reader : d_readers) {
      const Node& node = graph.GetNode(reader);
      if (IsOnnxOp(&node, "Pow", 2) && node.Inputs()[0] == d && node.Inputs()[1] != d)
        pow = &node;
      else if (IsOnnxOp(&node, "Div", 2) && node.Inputs()[0] == d && node.Inputs()[1] != d)
        div = &node;
    }
    if (pow == nullptr || div == nullptr || !Near(ScalarFloatConstant(graph, *pow, 1), 2.0, 1e-6))
      return false;
    for (const Node* reader : {pow, div})
      for (const NodeArg* implicit : reader->ImplicitInputs())
        if (implicit == d) return false;

    // var = ReduceMean(d^2) over the same axes; std = sqrt(var + epsilon); d / std.
    const Node* var = SoleConsumer(graph, pow->Outputs()[0]);
    if (var == nullptr || var->OpType() != "ReduceMean" || !var->Domain().empty() ||
        !var->HasOutput(0) || var->Inputs()[0] != pow->Outputs()[0] ||
        ReducedAxes(graph, *var, static_cast<int64_t>(*rank)) != axes)
      return false;
    const Node* add_eps = SoleConsumer(graph, var->Outputs()[0]);
    if (!IsOnnxOp(add_eps, "Add", 2)) return false;
    const std::optional<size_t> eps_input = OtherInput(*add_eps, var->Outputs()[0]);
    if (!eps_input) return false;
    const std::optional<float> epsilon = ScalarFloatConstant(graph, *add_eps, *eps_input);
    if (!epsilon || !(*epsilon >= 0.0f)) return false;
    const Node* sqrt = SoleConsumer(graph, add_eps->Outputs()[0]);
    if (!IsOnnxOp(sqrt, "Sqrt", 1) || SoleConsumer(graph, sqrt->Outputs()[0]) != div ||
        div->Inputs()[1] != sqrt->Outputs()[0])
      return false;

    // * gamma [+ beta], each with exactly the normalized dims.
    const auto is_parameter = [&](const NodeArg* arg) {
      return IsFloatTensor(arg) && StaticDims(arg) == normalized;
    };
    const Node* mul = SoleConsumer(graph, div->Outputs()[0]);
    if (!IsOnnxOp(mul, "Mul", 2)) return false;
    const std::optional<size_t> gamma_input = OtherInput(*mul, div->Outputs()[0]);
    if (!gamma_input || !is_parameter(mul->Inputs()[*gamma_input])) return false;
    NodeArg* gamma = mul->Inputs()[*gamma_input];
    std::vector<NodeIndex> chain = {mean.Index(),     sub->Index(),  pow->Index(), var->Index(),
                                    add_eps->Index(), sqrt->Index(), div->Index(), mul->Index()};
    NodeArg* beta = nullptr;
    const Node* add_beta = SoleConsumer(graph, mul->Outputs()[0]);
    if (IsOnnxOp(add_beta, "Add", 2)) {
      const std::optional<size_t> beta_input = OtherInput(*add_beta, mul->Outputs()[0]);
      if (beta_input && is_parameter(add_beta->Inputs()[*beta_input])) {
        beta = add_beta->Inputs()[*beta_input];
        chain.push_back(add_beta->Index());
      }
    }
    const NodeArg* y = graph.GetNode(chain.back()).Outputs()[0];
    if (!IsFloatTensor(y) || !MayTouchAll(*this, graph, chain, context)) return false;

    std::map<std::string, Attribute> attributes = {
        {"axis", IntAttribute("axis", axis)}, {"epsilon", FloatAttribute("epsilon", *epsilon)}};
    std::vector<NodeArg*> inputs = {x, gamma};
    if (beta != nullptr) inputs.push_back(beta);
    FuseChain(graph, context, chain, mean.Name() + "_layer_norm", "LayerNormalization", "",
              sub->OpsetVersion(), std::move(inputs), std::move(attributes));
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeLayerNormFusion() {
  return std::make_unique<LayerNormFusion>();
}

}  // namespace prism
