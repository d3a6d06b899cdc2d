// QDQGemmFusion (extended level, CPU EP): onnxruntime's QDQ rule for Gemm,
//   DequantizeLinear(a), DequantizeLinear(b)[, DequantizeLinear(int32 c)]
//     -> Gemm [-> QuantizeLinear]
// becomes com.microsoft QGemm(a, a_scale, a_zp, b, b_scale, b_zp[, c][, y_scale, y_zp]) with
// Gemm's transA, transB and alpha: quantized output with the QuantizeLinear, float output where
// nothing quantizes the Gemm's output (onnxruntime's rule too: when some reader of it is a
// QuantizeLinear but the quantized form does not apply, the Gemm stays). It runs on the int8
// GEMM (b prepacked when it is a constant). Conditions, onnxruntime's where it has them:
// every Gemm input comes from a DequantizeLinear (a float C does not); a per tensor; b per
// tensor or per column (one scale and zero point per output column: axis 1 of a [K, N] b, axis 0
// of an [N, K] b under transB); int8 a only with int8 b; y of a's type; with C, beta 1 and C int32
// with zero points 0, one value or 1-D [N], whose scale is alpha * a_scale * b_scale (per
// column), which makes C's dequantized value what QGemm adds (onnxruntime does not check the
// scale: Prism keeps such a Gemm in float). DequantizeLinear nodes left unread are removed.
#include <algorithm>
#include <cmath>

#include "optimizer/fusion_util.h"
#include "optimizer/qdq_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class QdqGemmFusion final : public GraphTransformer {
 public:
  QdqGemmFusion() : GraphTransformer("QDQGemmFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* gemm = graph.FindNode(index);
      if (!IsOnnxOp(gemm, "Gemm") || gemm->InputCount() < 2) continue;
      if (TryFuse(graph, *gemm, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& gemm, const TransformContext& context) const {
    const bool trans_b = IntOf(gemm, "transB", 0) != 0;
    const float alpha = FloatOf(gemm, "alpha", 1.0f);
    const auto a = DequantizeWriting(graph, gemm.Inputs()[0], /*per_tensor=*/true);
    const auto b = DequantizeWriting(graph, gemm.Inputs()[1], /*per_tensor=*/false);
    if (!a || !b || !OneValue(*a) || !PerTensorOrPerColumn(*b, trans_b)) return false;
    // onnxruntime's QGemm takes int8 a with int8 b only.
    if (a->type == ElementType::kInt8 && b->type != ElementType::kInt8) return false;
    const auto n = ColumnCount(*b, trans_b);
    if (!n) return false;

    std::optional<QdqNode> c;
    if (gemm.HasInput(2)) {
      if (FloatOf(gemm, "beta", 1.0f) != 1.0f) return false;
      c = BiasDequantize(graph, gemm.Inputs()[2], *a, *b, alpha, *n);
      if (!c) return false;
    }

    // A QuantizeLinear of a's type as the only reader: quantized output. No QuantizeLinear
    // reading the output at all: float output. Anything between: the Gemm stays.
    std::vector<const Node*> chain = {&gemm};
    const auto y = QuantizeReadingOnly(graph, gemm.Outputs()[0]);
    if (y) {
      if (y->type != a->type || !OneValue(*y)) return false;
      chain.push_back(y->node);
    } else if (QuantizeReads(graph, gemm.Outputs()[0])) {
      return false;
    }

    std::vector<const Node*> touched = chain;
    touched.push_back(a->node);
    touched.push_back(b->node);
    if (c) touched.push_back(c->node);
    if (!MayTouchNodes(*this, graph, touched, context)) return false;

    std::vector<NodeArg*> inputs = {a->quantized,
                                    a->scale,
                                    a->zero_point,
                                    b->quantized,
                                    b->scale,
                                    b->zero_point,
                                    c ? c->quantized : nullptr};
    if (y) {
      inputs.push_back(y->scale);
      inputs.push_back(y->zero_point);
    }
    while (inputs.back() == nullptr) inputs.pop_back();
    std::map<std::string, Attribute> attributes = {
        {"transA", IntAttribute("transA", IntOf(gemm, "transA", 0))},
        {"transB", IntAttribute("transB", trans_b ? 1 : 0)},
        {"alpha", FloatAttribute("alpha", alpha)}};
    std::vector<NodeIndex> chain_indices, dequantize = {a->node->Index(), b->node->Index()};
    for (const Node* node : chain) chain_indices.push_back(node->Index());
    if (c) dequantize.push_back(c->node->Index());
    FuseQdqChain(graph, context, chain_indices, gemm.Name() + "_quant", "QGemm", "com.microsoft", 1,
                 std::move(inputs), std::move(attributes), dequantize);
    return true;
  }

  static int64_t IntOf(const Node& node, const char* name, int64_t fallback) {
    const Attribute* attribute = node.FindAttribute(name);
    return attribute != nullptr ? attribute->i : fallback;
  }
  static float FloatOf(const Node& node, const char* name, float fallback) {
    const Attribute* attribute = node.FindAttribute(name);
    return attribute != nullptr ? attribute->f : fallback;
  }

  // A scale and zero point QGemm takes as one value: a scalar or [1].
  static bool OneValue(const QdqNode& q) {
    return q.scale_value->Shape().Rank() <= 1 && q.zero_point_value->Shape().Rank() <= 1;
  }

  // Whether some reader of value is a QuantizeLinear.
  static bool QuantizeReads(const Graph& graph, const NodeArg* value) {
    for (NodeIndex reader : graph.Consumers(value->name))
      if (IsOnnxOp(&graph.GetNode(reader), "QuantizeLinear")) return true;
    return false;
  }

  // N, the output's columns: b's dim 1 ([K, N]) or dim 0 under transB ([N, K]), when known.
  static std::optional<int64_t> ColumnCount(const QdqNode& b, bool trans_b) {
    const auto dims = StaticDims(b.quantized);
    if (!dims || dims->size() != 2) return std::nullopt;
    return (*dims)[trans_b ? 0 : 1];
  }

  // One scale and zero point (a scalar or [1]), or one per output column of a 2-D b: 1-D [N]
  // along axis 1 of [K, N] b, axis 0 of an [N, K] b under transB (QGemm's b_scale and
  // b_zero_point shapes).
  static bool PerTensorOrPerColumn(const QdqNode& b, bool trans_b) {
    const TensorShape& scale = b.scale_value->Shape();
    const TensorShape& zero = b.zero_point_value->Shape();
    if (scale.Rank() > 1 || zero.Rank() != scale.Rank()) return false;
    if (b.scale_value->NumElements() == 1) return true;
    const auto dims = StaticDims(b.quantized);
    if (!dims || dims->size() != 2) return false;
    const Attribute* axis_attribute = b.node->FindAttribute("axis");
    int64_t axis = axis_attribute != nullptr ? axis_attribute->i : 1;
    if (axis < 0) axis += 2;
    return axis == (trans_b ? 0 : 1) && scale[0] == (*dims)[trans_b ? 0 : 1];
  }

  // The DequantizeLinear of a constant int32 C (one value or 1-D [N]) whose zero points are 0
  // and whose scale is alpha * a_scale * b_scale (per column), or nothing.
  static std::optional<QdqNode> BiasDequantize(const Graph& graph, const NodeArg* value,
                                               const QdqNode& a, const QdqNode& b, float alpha,
                                               int64_t n) {
    const Node* node = graph.Producer(value->name);
    if (!IsOnnxOp(node, "DequantizeLinear") || node->InputCount() < 2 ||
        node->FindAttribute("block_size") != nullptr)
      return std::nullopt;
    const Tensor* bias = ConstantInput(graph, *node, 0);
    const Tensor* scale = ConstantInput(graph, *node, 1);
    if (bias == nullptr || bias->Type() != ElementType::kInt32 || scale == nullptr ||
        scale->Type() != ElementType::kFloat)
      return std::nullopt;
    const bool one_value = bias->NumElements() == 1 && bias->Shape().Rank() <= 1;
    if (!one_value && !(bias->Shape().Rank() == 1 && bias->Shape()[0] == n)) return std::nullopt;
    if (scale->NumElements() != 1) {
      // Per column: a 1-D [N] scale along the bias's only axis.
      const Attribute* axis = node->FindAttribute("axis");
      const int64_t value_of_axis = axis != nullptr ? axis->i : 1;
      if (one_value || scale->Shape().Rank() != 1 || scale->NumElements() != n ||
          (value_of_axis != 0 && value_of_axis != -1))
        return std::nullopt;
    }
    if (node->HasInput(2)) {
      const Tensor* zero = ConstantInput(graph, *node, 2);
      if (zero == nullptr || zero->Type() != ElementType::kInt32) return std::nullopt;
      for (int64_t i = 0; i < zero->NumElements(); ++i)
        if (zero->Data<int32_t>()[i] != 0) return std::nullopt;
    }
    const double a_scale = ScaleOf(a);
    const float* b_scales = b.scale_value->Data<float>();
    const int64_t b_count = b.scale_value->NumElements();
    const int64_t columns = std::max(b_count, scale->NumElements());
    for (int64_t col = 0; col < columns; ++col) {
      const double expected =
          alpha * a_scale * static_cast<double>(b_scales[b_count == 1 ? 0 : col]);
      const double given = scale->Data<float>()[scale->NumElements() == 1 ? 0 : col];
      if (!(std::abs(given - expected) <= 1e-6 * std::abs(expected))) return std::nullopt;
    }
    QdqNode out;
    out.node = node;
    out.quantized = node->Inputs()[0];
    return out;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeQdqGemmFusion() {
  return std::make_unique<QdqGemmFusion>();
}

}  // namespace prism
