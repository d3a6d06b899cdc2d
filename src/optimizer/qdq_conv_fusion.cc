// QDQConvFusion (extended level, CPU EP): onnxruntime's QDQ rule for Conv,
//   DequantizeLinear(x), DequantizeLinear(constant w)[, DequantizeLinear(constant int32 bias)]
//     -> Conv [-> Relu] -> QuantizeLinear
// becomes QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, bias]) (ONNX), which
// runs on the int8 GEMM. Conditions: x and y one scale and zero point each (constant), x and y of
// one type (uint8 or int8, as onnxruntime's QLinearConv takes them; int8 x with int8 w), w constant
// with one scale and zero point or one per output channel (axis 0), the bias int32 with zero points
// 0 and the scale x_scale * w_scale (as quantize_static writes it); the Conv (and Relu) output read
// only by the next node. A Relu folds only when y's zero point is the type's lowest value, where
// the quantization's saturation already clamps at 0. DequantizeLinear nodes left unread are
// removed.
#include <cmath>

#include "optimizer/fusion_util.h"
#include "optimizer/qdq_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

int64_t DequantizeAxis(const Node& node, size_t rank) {
  const Attribute* axis = node.FindAttribute("axis");
  int64_t value = axis != nullptr ? axis->i : 1;
  if (value < 0) value += static_cast<int64_t>(rank);
  return value;
}

class QdqConvFusion final : public GraphTransformer {
 public:
  QdqConvFusion() : GraphTransformer("QDQConvFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* conv = graph.FindNode(index);
      if (!IsOnnxOp(conv, "Conv") || conv->InputCount() < 2) continue;
      if (TryFuse(graph, *conv, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& conv, const TransformContext& context) const {
    const auto x = DequantizeWriting(graph, conv.Inputs()[0], /*per_tensor=*/true);
    const auto w = DequantizeWriting(graph, conv.Inputs()[1], /*per_tensor=*/false);
    if (!x || !w) return false;
    const Tensor* weight = ConstantInput(graph, *w->node, 0);
    if (weight == nullptr || weight->Shape().Rank() < 3) return false;
    const int64_t out_channels = weight->Shape()[0];
    const int64_t w_scales = w->scale_value->NumElements();
    if (w_scales != 1 && (w_scales != out_channels || w->scale_value->Shape().Rank() != 1 ||
                          DequantizeAxis(*w->node, weight->Shape().Rank()) != 0))
      return false;

    std::vector<const Node*> chain = {&conv};
    const Node* next = SoleConsumer(graph, conv.Outputs()[0]);
    if (IsOnnxOp(next, "Relu", 1)) {
      chain.push_back(next);
      next = SoleConsumer(graph, next->Outputs()[0]);
    }
    const auto y = QuantizeReadingOnly(graph, chain.back()->Outputs()[0]);
    if (!y || y->type != x->type) return false;
    // onnxruntime's QLinearConv takes int8 activations with int8 weights only.
    if (x->type == ElementType::kInt8 && w->type != ElementType::kInt8) return false;
    if (chain.size() == 2) {
      const int32_t lowest = y->type == ElementType::kUint8 ? 0 : -128;
      if (ZeroPointOf(*y) != lowest) return false;
    }
    chain.push_back(y->node);

    NodeArg* bias = nullptr;
    std::optional<QdqNode> bias_dq;
    if (conv.HasInput(2)) {
      bias_dq = BiasDequantize(graph, conv.Inputs()[2], *x, *w, out_channels);
      if (!bias_dq) return false;
      bias = bias_dq->quantized;
    }
    std::vector<const Node*> touched = chain;
    touched.push_back(x->node);
    touched.push_back(w->node);
    if (bias_dq) touched.push_back(bias_dq->node);
    if (!MayTouchNodes(*this, graph, touched, context)) return false;

    std::vector<NodeArg*> inputs = {x->quantized, x->scale,      x->zero_point, w->quantized,
                                    w->scale,     w->zero_point, y->scale,      y->zero_point};
    if (bias != nullptr) inputs.push_back(bias);
    std::vector<NodeIndex> chain_indices, dequantize = {x->node->Index(), w->node->Index()};
    for (const Node* node : chain) chain_indices.push_back(node->Index());
    if (bias_dq) dequantize.push_back(bias_dq->node->Index());
    std::map<std::string, Attribute> attributes = conv.Attributes();
    FuseQdqChain(graph, context, chain_indices, conv.Name() + "_quant", "QLinearConv", "", 10,
                 std::move(inputs), std::move(attributes), dequantize);
    return true;
  }

  // The DequantizeLinear of a constant int32 bias whose zero points are 0 and whose scale is
  // x_scale * w_scale (per output channel), or nothing.
  static std::optional<QdqNode> BiasDequantize(const Graph& graph, const NodeArg* value,
                                               const QdqNode& x, const QdqNode& w,
                                               int64_t out_channels) {
    const Node* node = graph.Producer(value->name);
    if (!IsOnnxOp(node, "DequantizeLinear") || node->InputCount() < 2) return std::nullopt;
    const Tensor* bias = ConstantInput(graph, *node, 0);
    const Tensor* scale = ConstantInput(graph, *node, 1);
    if (bias == nullptr || bias->Type() != ElementType::kInt32 || bias->Shape().Rank() != 1 ||
        bias->NumElements() != out_channels || scale == nullptr ||
        scale->Type() != ElementType::kFloat ||
        (scale->NumElements() != 1 && scale->NumElements() != out_channels))
      return std::nullopt;
    if (node->HasInput(2)) {
      const Tensor* zero = ConstantInput(graph, *node, 2);
      if (zero == nullptr || zero->Type() != ElementType::kInt32) return std::nullopt;
      for (int64_t i = 0; i < zero->NumElements(); ++i)
        if (zero->Data<int32_t>()[i] != 0) return std::nullopt;
    }
    const float x_scale = ScaleOf(x);
    const auto* w_scale = w.scale_value->Data<float>();
    const int64_t w_scales = w.scale_value->NumElements();
    for (int64_t m = 0; m < out_channels; ++m) {
      const double expected =
          static_cast<double>(x_scale) * static_cast<double>(w_scale[w_scales == 1 ? 0 : m]);
      const double given = scale->Data<float>()[scale->NumElements() == 1 ? 0 : m];
      if (std::abs(given - expected) > 1e-6 * std::abs(expected)) return std::nullopt;
    }
    QdqNode out;
    out.node = node;
    out.quantized = node->Inputs()[0];
    return out;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeQdqConvFusion() {
  return std::make_unique<QdqConvFusion>();
}

}  // namespace prism
