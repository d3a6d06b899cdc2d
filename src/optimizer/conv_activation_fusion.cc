// ConvActivationFusion and ConvAddActivationFusion (onnxruntime's names, extended level, CPU and
// CUDA EPs; both EPs' FusedConv kernels run every activation below):
//   Conv -> act            becomes FusedConv(X, W, B) with activation = act
//   Conv -> Add(Z) -> act  becomes FusedConv(X, W, B, Z) (Z added before the activation)
// in com.microsoft, as onnxruntime writes them, so a saved optimized model stays loadable by
// onnxruntime. act is Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid or Clip with constant bounds
// (FusedConv's activation_params carry alpha, [alpha, beta] or [min, max]). Only float (the
// kernel's type), only when each intermediate feeds nothing else, and Z only when its shape is
// known and equal to the Conv's output shape (FusedConv does not broadcast Z).
#include <limits>
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";
constexpr const char* kCuda = "CUDAExecutionProvider";

struct Activation {
  std::string name;
  std::vector<float> params;
};

float FloatAttr(const Node& node, const char* name, float fallback) {
  const Attribute* attr = node.FindAttribute(name);
  return attr ? attr->f : fallback;
}

// The FusedConv form of an activation node, or nothing when it has none.
std::optional<Activation> AsActivation(const Graph& graph, const Node& node) {
  if (!node.Domain().empty() || node.InputCount() == 0 || !node.HasOutput(0)) return std::nullopt;
  const std::string& op = node.OpType();
  if (op == "Relu" || op == "Sigmoid" || op == "Tanh") return Activation{op, {}};
  if (op == "LeakyRelu") return Activation{op, {FloatAttr(node, "alpha", 0.01f)}};
  if (op == "HardSigmoid")
    return Activation{op, {FloatAttr(node, "alpha", 0.2f), FloatAttr(node, "beta", 0.5f)}};
  if (op == "Clip") {
    float low = std::numeric_limits<float>::lowest(), high = std::numeric_limits<float>::max();
    if (node.OpsetVersion() < 11) {
      low = FloatAttr(node, "min", low);
      high = FloatAttr(node, "max", high);
    } else {
      for (size_t i = 1; i <= 2; ++i) {
        if (!node.HasInput(i)) continue;
        const Tensor* bound = ConstantInput(graph, node, i);
        if (bound == nullptr || bound->Type() != ElementType::kFloat || bound->NumElements() != 1)
          return std::nullopt;
        (i == 1 ? low : high) = bound->Data<float>()[0];
      }
    }
    return Activation{op, {low, high}};
  }
  return std::nullopt;
}

bool SameStaticShape(const NodeArg* a, const NodeArg* b) {
  if (!a->shape || !b->shape || a->shape->dims.size() != b->shape->dims.size()) return false;
  for (size_t i = 0; i < a->shape->dims.size(); ++i)
    if (!a->shape->dims[i].IsKnown() || a->shape->dims[i].value != b->shape->dims[i].value)
      return false;
  return true;
}

class ConvActivationFusion final : public GraphTransformer {
 public:
  ConvActivationFusion()
      : GraphTransformer("ConvActivationFusion", TransformerLevel::kExtended, {kCpu, kCuda}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* conv = graph.FindNode(index);
      if (conv == nullptr || conv->OpType() != "Conv" || !conv->Domain().empty()) continue;
      if (!MayTouch(graph, index, context) || !conv->HasOutput(0)) continue;
      if (!IsFloatTensor(conv->Inputs()[0]) || !IsFloatTensor(conv->Outputs()[0])) continue;
      if (TryFuse(graph, *conv, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& conv, const TransformContext& context) const {
    std::vector<NodeIndex> chain = {conv.Index()};
    NodeArg* z = nullptr;
    const Node* next = SoleConsumer(graph, conv.Outputs()[0]);
    if (next == nullptr || !MayTouch(graph, next->Index(), context)) return false;
    if (next->OpType() == "Add" && next->Domain().empty() && next->InputCount() == 2) {
      const size_t other = next->Inputs()[0] == conv.Outputs()[0] ? 1 : 0;
      z = next->Inputs()[other];
      if (!IsFloatTensor(z) || !SameStaticShape(z, conv.Outputs()[0]) ||
          !SameStaticShape(next->Outputs()[0], conv.Outputs()[0]))
        return false;
      chain.push_back(next->Index());
      next = SoleConsumer(graph, next->Outputs()[0]);
      // onnxruntime's FusedConv takes Z only with an activation after the sum.
      if (next == nullptr || !MayTouch(graph, next->Index(), context)) return false;
    }
    const std::optional<Activation> activation = AsActivation(graph, *next);
    if (!activation || next->Inputs()[0] != graph.GetNode(chain.back()).Outputs()[0]) return false;
    chain.push_back(next->Index());
    // The fused node runs on the Conv's EP, also when the Add or the activation was placed on
    // the other target (a CUDA Conv before a CPU Clip): both EPs' FusedConv run every activation.
    const IExecutionProvider* provider =
        context.provider_of ? context.provider_of(graph, conv.Index()) : nullptr;

    std::map<std::string, Attribute> attributes = conv.Attributes();
    Attribute name_attr;
    name_attr.name = "activation";
    name_attr.type = AttributeType::kString;
    name_attr.s = activation->name;
    attributes["activation"] = name_attr;
    if (!activation->params.empty()) {
      Attribute params;
      params.name = "activation_params";
      params.type = AttributeType::kFloats;
      params.floats = activation->params;
      attributes["activation_params"] = params;
    }
    std::vector<NodeArg*> inputs = {conv.Inputs()[0], conv.Inputs()[1],
                                    conv.HasInput(2) ? conv.Inputs()[2] : nullptr};
    if (z != nullptr) inputs.push_back(z);
    while (!inputs.empty() && inputs.back() == nullptr) inputs.pop_back();
    std::vector<std::string> replaced;
    for (NodeIndex index : chain) replaced.push_back(graph.GetNode(index).Name());
    Node& fused = ReplaceChain(graph, chain, conv.Name() + "_fused", "FusedConv", "com.microsoft",
                               1, std::move(inputs), std::move(attributes));
    if (context.on_fused) context.on_fused(graph, replaced, fused.Index(), provider);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeConvActivationFusion() {
  return std::make_unique<ConvActivationFusion>();
}

}  // namespace prism
