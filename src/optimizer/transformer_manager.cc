#include "optimizer/transformer_manager.h"

#include <algorithm>
#include <map>
#include <string>

#include "common/logging.h"
#include "framework/execution_provider.h"

namespace prism {

const char* TransformerLevelName(TransformerLevel level) {
  switch (level) {
    case TransformerLevel::kBasic:
      return "basic";
    case TransformerLevel::kExtended:
      return "extended";
    case TransformerLevel::kLayout:
      return "layout";
  }
  return "unknown";
}

bool GraphTransformer::MayTouch(const Graph& graph, NodeIndex node,
                                const TransformContext& context) const {
  if (target_providers_.empty()) return true;
  const IExecutionProvider* provider =
      context.provider_of ? context.provider_of(graph, node) : nullptr;
  if (provider == nullptr) return false;
  return std::find(target_providers_.begin(), target_providers_.end(), provider->Type()) !=
         target_providers_.end();
}

TransformerManager::TransformerManager(std::set<std::string> disabled)
    : disabled_(std::move(disabled)) {}

void TransformerManager::Register(std::unique_ptr<GraphTransformer> transformer) {
  transformers_.push_back(std::move(transformer));
}

std::vector<std::string> TransformerManager::Names(TransformerLevel level) const {
  std::vector<std::string> names;
  for (const auto& transformer : transformers_)
    if (transformer->Level() == level) names.push_back(transformer->Name());
  return names;
}

int TransformerManager::RunOnce(Graph& graph, TransformerLevel level,
                                const TransformContext& context) const {
  int changes = 0;
  for (const auto& transformer : transformers_) {
    if (transformer->Level() != level || disabled_.count(transformer->Name())) continue;
    if (transformer->Apply(graph, context)) {
      graph.Resolve();
      ++changes;
    }
  }
  for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder()))
    for (Graph* sub : graph.MutableNode(index)->MutableSubgraphs())
      changes += RunOnce(*sub, level, context);
  return changes;
}

namespace {

// How many leading inputs each ai.onnx op the transformers match on cannot do without (in every
// opset). The transformers read those inputs of the nodes they look at; a mutated model's node
// may lack them (the fuzzer found LayerNormFusion reading a ReduceMean's missing input 0, as
// NchwcTransformer had read a MaxPool's), and such a node fails at run time anyway, naming
// itself and the input.
const std::map<std::string, size_t>& RequiredLeadingInputs() {
  static const std::map<std::string, size_t> required = {
      {"Abs", 1},
      {"Add", 2},
      {"AveragePool", 1},
      {"BatchNormalization", 5},
      {"Cast", 1},
      {"Clip", 1},
      {"Concat", 1},
      {"Conv", 2},
      {"ConvInteger", 2},
      {"ConvTranspose", 2},
      {"DequantizeLinear", 2},
      {"Div", 2},
      {"Dropout", 1},
      {"Erf", 1},
      {"Exp", 1},
      {"Expand", 2},
      {"Flatten", 1},
      {"Gather", 2},
      {"Gelu", 1},
      {"Gemm", 2},
      {"GlobalAveragePool", 1},
      {"GlobalMaxPool", 1},
      {"HardSigmoid", 1},
      {"HardSwish", 1},
      {"Identity", 1},
      {"LayerNormalization", 2},
      {"LeakyRelu", 1},
      {"MatMul", 2},
      {"MatMulInteger", 2},
      {"MaxPool", 1},
      {"Mul", 2},
      {"Neg", 1},
      {"Pad", 1},
      {"Pow", 2},
      {"QLinearConv", 8},
      {"QLinearMatMul", 8},
      {"QuantizeLinear", 2},
      {"Reciprocal", 1},
      {"ReduceMean", 1},
      {"Relu", 1},
      {"Reshape", 2},
      {"Resize", 1},
      {"Shape", 1},
      {"Sigmoid", 1},
      {"Slice", 1},
      {"Softmax", 1},
      {"Split", 1},
      {"Sqrt", 1},
      {"Squeeze", 1},
      {"Sub", 2},
      {"Tanh", 1},
      {"Transpose", 1},
      {"Unsqueeze", 1},
      {"Where", 3},
  };
  return required;
}

// The first node of the graph or its subgraphs missing a required input, or nullptr.
const Node* NodeMissingARequiredInput(const Graph& graph) {
  const auto& required = RequiredLeadingInputs();
  for (NodeIndex index : graph.TopologicalOrder()) {
    const Node& node = graph.GetNode(index);
    if (node.Domain().empty()) {
      const auto it = required.find(node.OpType());
      if (it != required.end())
        for (size_t i = 0; i < it->second; ++i)
          if (!node.HasInput(i)) return &node;
    }
    for (const Graph* sub : node.Subgraphs())
      if (const Node* found = NodeMissingARequiredInput(*sub)) return found;
  }
  return nullptr;
}

}  // namespace

int TransformerManager::Run(Graph& graph, TransformerLevel level,
                            const TransformContext& context) const {
  if (const Node* malformed = NodeMissingARequiredInput(graph)) {
    PRISM_LOG(kWarning, "graph '", graph.Name(), "' is not optimized (level ",
              TransformerLevelName(level), "): ", malformed->Describe(), " lacks a required input");
    return 0;
  }
  int total = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    const int changes = RunOnce(graph, level, context);
    total += changes;
    if (changes == 0) return total;
  }
  PRISM_LOG(kWarning, "graph transformers of level ", TransformerLevelName(level),
            " still changed graph '", graph.Name(), "' after ", kMaxRounds,
            " rounds; stopping there");
  return total;
}

std::unique_ptr<TransformerManager> MakeDefaultTransformers(
    int optimization_level, const std::vector<std::string>& disabled) {
  auto manager =
      std::make_unique<TransformerManager>(std::set<std::string>(disabled.begin(), disabled.end()));
  if (optimization_level >= 1) {
    manager->Register(MakeIdentityElimination());
    manager->Register(MakeDropoutElimination());
    manager->Register(MakeCommonSubexpressionElimination());
    manager->Register(MakeConstantFolding());
    manager->Register(MakeReshapeChainElimination());
    manager->Register(MakeConvBatchNormFusion());
  }
  if (optimization_level >= 2) {
    // In this order within a round: LayerNormalization before SkipLayerNormalization is formed
    // from it; GeluFusion before BiasGeluFusion takes the bias into its Gelu; MatMulAddFusion
    // after them, so that Attention, SkipLayerNormalization, BiasGelu and FastGelu take their
    // projections' biases first; GemmActivationFusion right after it, so that a MatMul + Add +
    // activation becomes one FusedGemm in a round; the FusedMatMul fusions last, so that Attention
    // keeps its scaled Q K^T MatMul and MatMulAddFusion its MatMuls with a bias (Gemm).
    // The QDQ fusions first: they read Conv, Add and pooling nodes between DequantizeLinear
    // and QuantizeLinear, which the float fusions below would otherwise take.
    manager->Register(MakeQdqConvFusion());
    manager->Register(MakeQdqAddFusion());
    manager->Register(MakeQdqMatMulFusion());
    manager->Register(MakeQdqGemmFusion());
    manager->Register(MakeQdqGlobalAveragePoolFusion());
    manager->Register(MakeQdqDropFusion());
    manager->Register(MakeLayerNormFusion());
    manager->Register(MakeSkipLayerNormFusion());
    manager->Register(MakeAttentionFusion());
    manager->Register(MakeConvActivationFusion());
    manager->Register(MakeGeluFusion());
    manager->Register(MakeFastGeluFusion());
    manager->Register(MakeBiasGeluFusion());
    manager->Register(MakeMatMulAddFusion());
    manager->Register(MakeGemmActivationFusion());
    manager->Register(MakeMatMulTransposeFusion());
    manager->Register(MakeMatMulScaleFusion());
  }
  // After the extended fusions (FusedConv with its Sum and activation) have run to a fixpoint.
  // The NhwcTransformer (8-bit values) after the QDQ fusions made QLinearConv and the ops around
  // it; it and the NchwcTransformer (float values) never claim the same node.
  if (optimization_level >= 3) {
    manager->Register(MakeNchwcTransformer());
    manager->Register(MakeNhwcTransformer());
  }
  std::set<std::string> known;
  for (TransformerLevel level :
       {TransformerLevel::kBasic, TransformerLevel::kExtended, TransformerLevel::kLayout})
    for (const std::string& name : manager->Names(level)) known.insert(name);
  for (const std::string& name : disabled)
    if (!known.count(name) && optimization_level >= 1)
      PRISM_LOG(kWarning, "disabled_optimizers names '", name,
                "', which is not a graph transformer of this session; ignored");
  return manager;
}

}  // namespace prism
