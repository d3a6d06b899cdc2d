// GemmActivationFusion (onnxruntime's name, extended level, CPU EP): Gemm followed by an
// activation that is the sole reader of its output becomes com.microsoft FusedGemm, as
// onnxruntime writes it (so a saved optimized model stays loadable by onnxruntime): the Gemm's
// inputs and attributes, `activation` = the activation's op type, and its parameters as
// activation_alpha / activation_beta / activation_gamma, always written out (the ONNX defaults
// when the activation node leaves them out: onnxruntime's kernel requires them present).
// The activations are onnxruntime's for this fusion that Prism has kernels for: Relu,
// LeakyRelu, Tanh, Sigmoid, HardSigmoid, Elu, Selu, Softplus, Softsign, ThresholdedRelu (from
// opset 6, or 10 for ThresholdedRelu: the older versions carried other attributes). Only float
// (FusedGemm's kernel type), only Gemm from opset 7 (before it C broadcasts only on request).
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

struct ActivationParam {
  const char* name;  // the activation's attribute
  float fallback;    // its ONNX default
};

// The parameters FusedGemm carries for an activation (as activation_<name>), or nothing when
// the node is not an activation this fusion takes.
std::optional<std::vector<ActivationParam>> FusableActivation(const Node& node) {
  if (!node.Domain().empty() || node.InputCount() != 1 || !node.HasOutput(0)) return std::nullopt;
  const std::string& op = node.OpType();
  const int opset = node.OpsetVersion();
  if (op == "ThresholdedRelu")
    return opset >= 10 ? std::optional(std::vector<ActivationParam>{{"alpha", 1.0f}})
                       : std::nullopt;
  if (opset < 6) return std::nullopt;
  if (op == "Relu" || op == "Tanh" || op == "Sigmoid" || op == "Softplus" || op == "Softsign")
    return std::vector<ActivationParam>{};
  if (op == "LeakyRelu") return std::vector<ActivationParam>{{"alpha", 0.01f}};
  if (op == "Elu") return std::vector<ActivationParam>{{"alpha", 1.0f}};
  if (op == "HardSigmoid") return std::vector<ActivationParam>{{"alpha", 0.2f}, {"beta", 0.5f}};
  if (op == "Selu")
    return std::vector<ActivationParam>{{"alpha", 1.67326319217681884765625f},
                                        {"gamma", 1.05070102214813232421875f}};
  return std::nullopt;
}

class GemmActivationFusion final : public GraphTransformer {
 public:
  GemmActivationFusion()
      : GraphTransformer("GemmActivationFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* gemm = graph.FindNode(index);
      if (!IsOnnxOp(gemm, "Gemm") || gemm->OpsetVersion() < 7) continue;
      if (!MayTouch(graph, index, context) || gemm->InputCount() < 2) continue;
      if (!IsFloatTensor(gemm->Inputs()[0]) || !IsFloatTensor(gemm->Outputs()[0])) continue;
      const Node* activation = SoleConsumer(graph, gemm->Outputs()[0]);
      if (activation == nullptr || !MayTouch(graph, activation->Index(), context)) continue;
      const std::optional<std::vector<ActivationParam>> params = FusableActivation(*activation);
      if (!params || !IsFloatTensor(activation->Outputs()[0])) continue;

      std::map<std::string, Attribute> attributes = gemm->Attributes();
      Attribute name;
      name.name = "activation";
      name.type = AttributeType::kString;
      name.s = activation->OpType();
      attributes["activation"] = name;
      for (const ActivationParam& param : *params) {
        const Attribute* given = activation->FindAttribute(param.name);
        const std::string fused_name = std::string("activation_") + param.name;
        attributes[fused_name] = FloatAttribute(fused_name, given ? given->f : param.fallback);
      }
      std::vector<NodeArg*> inputs = gemm->Inputs();
      while (!inputs.empty() && inputs.back() == nullptr) inputs.pop_back();
      FuseChain(graph, context, {index, activation->Index()}, gemm->Name() + "_fused", "FusedGemm",
                "com.microsoft", 1, std::move(inputs), std::move(attributes));
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeGemmActivationFusion() {
  return std::make_unique<GemmActivationFusion>();
}

}  // namespace prism
