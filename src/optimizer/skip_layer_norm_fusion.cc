// SkipLayerNormFusion (onnxruntime's name, extended level, CPU EP): the residual sum before a
// layer normalization,
//   LayerNormalization(Add(input, skip), gamma, beta)
//   LayerNormalization(Add(Add(input, bias), skip), gamma, beta)   (a projection's bias first)
// becomes com.microsoft SkipLayerNormalization(input, skip, gamma, beta[, bias]) with the
// LayerNormalization's epsilon (SkipLayerNormalization's own default differs). Only when the
// normalization is over the last axis of a 2-D or 3-D float input of known hidden size H, only
// its output 0 is used, gamma and beta are [H]; bias is a 1-D [H]; input has the sum's shape and
// skip the same shape or, for a 3-D input, [1, S, H] / [S, H] (the forms the kernel broadcasts
// over the batch); every sum feeds nothing but the next node. The Adds take their operands in
// either order.
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";
// The CUDA EP runs what this fusion makes (float32) too.
constexpr const char* kCuda = "CUDAExecutionProvider";

// Whether skip may be SkipLayerNormalization's skip for an input of input's shape: the same
// shape, or one [S, H] block ([1, S, H] or [S, H]) shared by a 3-D input's batch.
bool FitsAsSkip(const NodeArg* skip, const NodeArg* input) {
  if (!IsFloatTensor(skip)) return false;
  if (SameShape(skip, input)) return true;
  const std::optional<size_t> rank = RankOf(skip);
  if (RankOf(input) != size_t{3} || !rank || (*rank != 2 && *rank != 3)) return false;
  const std::optional<std::vector<int64_t>> dims = StaticDims(skip);
  if (!dims) return false;
  const size_t offset = *rank == 3 ? 1 : 0;
  if (*rank == 3 && (*dims)[0] != 1) return false;
  return DimIs(input, 1, (*dims)[offset]) && DimIs(input, 2, (*dims)[offset + 1]);
}

class SkipLayerNormFusion final : public GraphTransformer {
 public:
  SkipLayerNormFusion()
      : GraphTransformer("SkipLayerNormFusion", TransformerLevel::kExtended, {kCpu, kCuda}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || node->OpType() != "LayerNormalization" || !node->Domain().empty())
        continue;
      if (TryFuse(graph, *node, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& ln, const TransformContext& context) const {
    if (ln.InputCount() < 2 || !ln.HasOutput(0) || !OnlyFirstOutputsUsed(graph, ln, 1))
      return false;
    NodeArg* sum = ln.Inputs()[0];
    const std::optional<size_t> rank = RankOf(sum);
    if (!IsFloatTensor(sum) || !rank || (*rank != 2 && *rank != 3)) return false;
    const Dim& hidden_dim = sum->shape->dims.back();
    if (!hidden_dim.IsKnown()) return false;
    const int64_t hidden = hidden_dim.value;
    const Attribute* axis = ln.FindAttribute("axis");
    if (axis != nullptr && axis->i != -1 && axis->i != static_cast<int64_t>(*rank) - 1)
      return false;
    if (const Attribute* stash = ln.FindAttribute("stash_type"); stash != nullptr && stash->i != 1)
      return false;
    const auto is_vector = [hidden](const NodeArg* arg) {
      return IsFloatTensor(arg) && StaticDims(arg) == std::vector<int64_t>{hidden};
    };
    NodeArg* gamma = ln.Inputs()[1];
    NodeArg* beta = ln.HasInput(2) ? ln.Inputs()[2] : nullptr;
    if (!is_vector(gamma) || (beta != nullptr && !is_vector(beta))) return false;

    const Node* add = graph.Producer(sum->name);
    if (!IsOnnxOp(add, "Add", 2) || SoleConsumer(graph, sum) != &ln) return false;
    std::vector<NodeIndex> chain = {add->Index(), ln.Index()};
    NodeArg* input = nullptr;
    NodeArg* skip = nullptr;
    NodeArg* bias = nullptr;
    // Add(Add(input, bias), skip), the inner sum on either side.
    for (size_t side = 0; side < 2 && input == nullptr; ++side) {
      const NodeArg* inner_sum = add->Inputs()[side];
      const Node* inner = graph.Producer(inner_sum->name);
      if (!IsOnnxOp(inner, "Add", 2) || SoleConsumer(graph, inner_sum) != add) continue;
      for (size_t b = 0; b < 2; ++b) {
        NodeArg* candidate = inner->Inputs()[1 - b];
        if (is_vector(inner->Inputs()[b]) && IsFloatTensor(candidate) &&
            SameShape(candidate, sum) && FitsAsSkip(add->Inputs()[1 - side], sum) &&
            MayTouch(graph, inner->Index(), context)) {
          input = candidate;
          bias = inner->Inputs()[b];
          skip = add->Inputs()[1 - side];
          chain.insert(chain.begin(), inner->Index());
          break;
        }
      }
    }
    // Add(input, skip).
    for (size_t side = 0; side < 2 && input == nullptr; ++side) {
      if (IsFloatTensor(add->Inputs()[side]) && SameShape(add->Inputs()[side], sum) &&
          FitsAsSkip(add->Inputs()[1 - side], sum)) {
        input = add->Inputs()[side];
        skip = add->Inputs()[1 - side];
      }
    }
    if (input == nullptr || !IsFloatTensor(ln.Outputs()[0]) ||
        !MayTouchAll(*this, graph, chain, context))
      return false;

    const Attribute* epsilon = ln.FindAttribute("epsilon");
    std::map<std::string, Attribute> attributes = {
        {"epsilon", FloatAttribute("epsilon", epsilon != nullptr ? epsilon->f : 1e-5f)}};
    std::vector<NodeArg*> inputs = {input, skip, gamma, beta, bias};
    while (inputs.back() == nullptr) inputs.pop_back();
    FuseChain(graph, context, chain, ln.Name() + "_skip", "SkipLayerNormalization", "com.microsoft",
              1, std::move(inputs), std::move(attributes));
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeSkipLayerNormFusion() {
  return std::make_unique<SkipLayerNormFusion>();
}

}  // namespace prism
