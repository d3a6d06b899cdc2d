// ConvBNFusion (onnxruntime's name, basic level): Conv followed by an inference
// BatchNormalization becomes one Conv whose weights and bias absorb the normalization:
//   s[c] = scale[c] / sqrt(var[c] + epsilon)
//   W'[c, ...] = W[c, ...] * s[c]      b'[c] = (b[c] - mean[c]) * s[c] + B[c]
// computed in double, stored in the weights' type (float or double). Only when W, b and the four
// BatchNormalization inputs are constants, the Conv's output feeds nothing but the
// BatchNormalization, and only the BatchNormalization's first output is used (inference). New
// initializers get new names, so a weight shared with another node is left as it is.
#include <cmath>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

template <typename T>
void Fold(const Tensor& w, const Tensor* b, const Tensor& scale, const Tensor& shift,
          const Tensor& mean, const Tensor& var, double epsilon, Tensor& w_out, Tensor& b_out) {
  const int64_t channels = w.Shape()[0];
  const int64_t per_channel = channels == 0 ? 0 : w.NumElements() / channels;
  const T* w_in = w.Data<T>();
  T* w_new = w_out.MutableData<T>();
  T* b_new = b_out.MutableData<T>();
  for (int64_t c = 0; c < channels; ++c) {
    const double s = static_cast<double>(scale.Data<T>()[c]) /
                     std::sqrt(static_cast<double>(var.Data<T>()[c]) + epsilon);
    for (int64_t k = 0; k < per_channel; ++k)
      w_new[c * per_channel + k] =
          static_cast<T>(static_cast<double>(w_in[c * per_channel + k]) * s);
    const double bias = b != nullptr ? static_cast<double>(b->Data<T>()[c]) : 0.0;
    b_new[c] = static_cast<T>((bias - static_cast<double>(mean.Data<T>()[c])) * s +
                              static_cast<double>(shift.Data<T>()[c]));
  }
}

class ConvBatchNormFusion final : public GraphTransformer {
 public:
  ConvBatchNormFusion() : GraphTransformer("ConvBNFusion", TransformerLevel::kBasic) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* conv = graph.FindNode(index);
      if (conv == nullptr || conv->OpType() != "Conv" || !conv->Domain().empty()) continue;
      if (TryFuse(graph, context, *conv)) changed = true;
    }
    return changed;
  }

 private:
  static bool TryFuse(Graph& graph, const TransformContext& context, const Node& conv) {
    const Tensor* w = ConstantInput(graph, conv, 1);
    const Tensor* b = ConstantInput(graph, conv, 2);
    if (w == nullptr || (conv.HasInput(2) && b == nullptr) || !conv.HasOutput(0)) return false;
    if (w->Type() != ElementType::kFloat && w->Type() != ElementType::kDouble) return false;
    if (w->Shape().Rank() < 3) return false;
    const int64_t channels = w->Shape()[0];
    const Node* bn = SoleConsumer(graph, conv.Outputs()[0]);
    if (bn == nullptr || bn->OpType() != "BatchNormalization" || !bn->Domain().empty() ||
        bn->Inputs()[0] != conv.Outputs()[0] || bn->OpsetVersion() < 7)
      return false;
    if (const Attribute* training = bn->FindAttribute("training_mode"); training && training->i)
      return false;
    if (!OnlyFirstOutputsUsed(graph, *bn, 1)) return false;
    const Tensor* params[4];
    for (size_t i = 0; i < 4; ++i) {
      params[i] = ConstantInput(graph, *bn, i + 1);
      if (params[i] == nullptr || params[i]->Type() != w->Type() ||
          params[i]->Shape() != TensorShape({channels}))
        return false;
    }
    if (b != nullptr && (b->Type() != w->Type() || b->Shape() != TensorShape({channels})))
      return false;
    const Attribute* epsilon_attr = bn->FindAttribute("epsilon");
    const double epsilon = epsilon_attr ? epsilon_attr->f : 1e-5;

    Tensor w_new(w->Type(), w->Shape(), GetCpuAllocator());
    Tensor b_new(w->Type(), TensorShape({channels}), GetCpuAllocator());
    if (w->Type() == ElementType::kFloat)
      Fold<float>(*w, b, *params[0], *params[1], *params[2], *params[3], epsilon, w_new, b_new);
    else
      Fold<double>(*w, b, *params[0], *params[1], *params[2], *params[3], epsilon, w_new, b_new);

    // W, the large one, goes through DropDerivedSources: the session may free the model's copy
    // now rather than hold it beside the folded one for the session's life. There is no exact
    // way back from the folded W (no Rebuild): the session reads W back from the model file
    // when it needs it again. The small ones are only dropped from this graph.
    const TransformContext::Sources w_source = {{conv.Inputs()[1]->name, *w}};
    std::vector<std::string> old_constants;
    if (b != nullptr) old_constants.push_back(conv.Inputs()[2]->name);
    for (size_t i = 1; i <= 4; ++i) old_constants.push_back(bn->Inputs()[i]->name);
    const std::string w_name = graph.UniqueValueName(conv.Inputs()[1]->name + "_bn_folded");
    graph.AddInitializer(w_name, std::move(w_new));
    const std::string b_name = graph.UniqueValueName(conv.Name() + "_bias_bn_folded");
    graph.AddInitializer(b_name, std::move(b_new));
    std::vector<NodeArg*> inputs = {conv.Inputs()[0], graph.MutableNodeArg(w_name),
                                    graph.MutableNodeArg(b_name)};
    ReplaceChain(graph, {conv.Index(), bn->Index()}, conv.Name(), "Conv", "", conv.OpsetVersion(),
                 std::move(inputs), conv.Attributes());
    RemoveUnreadInitializers(graph, old_constants);
    DropDerivedSources(graph, context, w_name, w_source, {});
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeConvBatchNormFusion() {
  return std::make_unique<ConvBatchNormFusion>();
}

}  // namespace prism
