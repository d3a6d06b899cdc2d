// AttentionFusion (onnxruntime's name, extended level, CPU EP): the self-attention block of a
// BERT-style encoder as the PyTorch/Hugging Face exporter writes it,
//   Q = Add(MatMul(X, Wq), bq) -> Reshape [0, 0, N, d] -> Transpose [0, 2, 1, 3]
//   K = Add(MatMul(X, Wk), bk) -> Reshape [0, 0, N, d] -> Transpose [0, 2, 3, 1]
//       (or Transpose [0, 2, 1, 3] -> Transpose [0, 1, 3, 2])
//   V = Add(MatMul(X, Wv), bv) -> Reshape [0, 0, N, d] -> Transpose [0, 2, 1, 3]
//   P = Softmax(Add(Div(MatMul(Q, K), sqrt(d)), mask))   (or Mul by 1 / sqrt(d); mask optional)
//   Y = Reshape(Transpose(MatMul(P, V), [0, 2, 1, 3]), [0, 0, N * d])
// with the mask computed from a 2-D attention mask M [B, S] as
//   mask = Mul(Sub(1, Cast<float>(Unsqueeze(M, [1, 2]))), filter)
// becomes com.microsoft Attention(X, [Wq | Wk | Wv], [bq | bk | bv], mask_index) with
// num_heads = N, mask_filter_value = filter and the default scale 1 / sqrt(d). The packed weight
// and bias are new initializers; mask_index is M as int32 (one Cast shared by every layer), the
// raw [B, S] form the kernel reads as 0 = masked, > 0 = attended. The mask chain goes once no
// unfused layer reads it.
//
// Only fused when everything matches exactly: X float [B, S, Hin] with Hin known; the weights
// constant float [Hin, H] and the biases constant float [H]; the three projections read the
// same X; the Reshapes' shapes constant with B and S given as 0 (or as X's own known dims) and
// N * d = H; the scale within 1e-4 (relative) of 1 / sqrt(d); the Softmax over the last axis;
// the mask's 1 exact, filter finite and negative, M integer or bool [B, S] with X's B and S;
// every intermediate read by nothing but the next node. Anything else leaves the graph as it
// is. As in onnxruntime, M is taken as 0/1: another value (e.g. 2) gives (1 - 2) * filter in
// the original graph but "attend" in the fused one.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

// The node producing value when it is an ONNX op of that name whose output value is read by
// nothing but `reader`.
const Node* SoleProducer(const Graph& graph, const NodeArg* value, const char* op,
                         const Node* reader) {
  if (value == nullptr) return nullptr;
  const Node* node = graph.Producer(value->name);
  if (!IsOnnxOp(node, op) || node->Outputs()[0] != value || SoleConsumer(graph, value) != reader)
    return nullptr;
  return node;
}

bool PermIs(const Node* transpose, const std::vector<int64_t>& perm) {
  if (transpose == nullptr || transpose->InputCount() != 1) return false;
  const Attribute* attr = transpose->FindAttribute("perm");
  return attr != nullptr && attr->ints == perm;
}

// What one projection path yields.
struct Projection {
  NodeArg* x = nullptr;
  const Tensor* weight = nullptr;
  const Tensor* bias = nullptr;
  std::string weight_name;
  std::string bias_name;
  int64_t heads = 0;
  int64_t head_size = 0;
  std::vector<NodeIndex> nodes;  // MatMul, Add, Reshape, the Transposes
};

// Whether a Reshape's target keeps X's first two dims (0, or the dim when X knows it) and
// splits or merges the rest as `tail`.
bool ReshapeTargetIs(const Graph& graph, const Node& reshape, const NodeArg* x,
                     const std::vector<int64_t>& tail) {
  if (reshape.InputCount() != 2 || reshape.OpsetVersion() < 5) return false;
  const std::optional<std::vector<int64_t>> shape = ConstantInts(graph, reshape, 1);
  if (!shape || shape->size() != 2 + tail.size()) return false;
  const Attribute* allow_zero = reshape.FindAttribute("allowzero");
  const bool zero_copies = allow_zero == nullptr || allow_zero->i == 0;
  for (size_t i = 0; i < 2; ++i) {
    const int64_t value = (*shape)[i];
    if (!(value == 0 && zero_copies) && !(value > 0 && DimIs(x, static_cast<int64_t>(i), value)))
      return false;
  }
  for (size_t i = 0; i < tail.size(); ++i)
    if ((*shape)[2 + i] != tail[i]) return false;
  return true;
}

// Walks back from the head-split value that feeds reader: the Transpose(s) over
// Reshape(Add(MatMul(X, W), b)). key: the transposes give [B, N, d, S].
std::optional<Projection> MatchProjection(const Graph& graph, const NodeArg* heads_value,
                                          const Node* reader, bool key) {
  Projection p;
  const Node* transpose = SoleProducer(graph, heads_value, "Transpose", reader);
  if (transpose == nullptr) return std::nullopt;
  std::vector<NodeIndex> transposes = {transpose->Index()};
  if (key && PermIs(transpose, {0, 1, 3, 2})) {  // K^T of the [B, N, S, d] form
    const Node* inner = SoleProducer(graph, transpose->Inputs()[0], "Transpose", transpose);
    if (!PermIs(inner, {0, 2, 1, 3})) return std::nullopt;
    transposes.insert(transposes.begin(), inner->Index());
    transpose = inner;
  } else if (!PermIs(transpose,
                     key ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3})) {
    return std::nullopt;
  }
  const Node* reshape = SoleProducer(graph, transpose->Inputs()[0], "Reshape", transpose);
  if (reshape == nullptr) return std::nullopt;
  const Node* add = SoleProducer(graph, reshape->Inputs()[0], "Add", reshape);
  if (add == nullptr || add->InputCount() != 2) return std::nullopt;
  for (size_t side = 0; side < 2 && p.x == nullptr; ++side) {
    const Node* matmul = SoleProducer(graph, add->Inputs()[side], "MatMul", add);
    if (matmul == nullptr || matmul->InputCount() != 2) continue;
    const Tensor* weight = ConstantInput(graph, *matmul, 1);
    const Tensor* bias = ConstantInput(graph, *add, 1 - side);
    if (weight == nullptr || bias == nullptr || weight->Type() != ElementType::kFloat ||
        bias->Type() != ElementType::kFloat || weight->Shape().Rank() != 2 ||
        bias->Shape() != TensorShape({weight->Shape()[1]}))
      continue;
    p.x = matmul->Inputs()[0];
    p.weight = weight;
    p.bias = bias;
    p.weight_name = matmul->Inputs()[1]->name;
    p.bias_name = add->Inputs()[1 - side]->name;
    p.nodes = {matmul->Index(), add->Index(), reshape->Index()};
  }
  if (p.x == nullptr) return std::nullopt;
  const std::optional<size_t> rank = RankOf(p.x);
  if (!IsFloatTensor(p.x) || rank != size_t{3} || !DimIs(p.x, 2, p.weight->Shape()[0]))
    return std::nullopt;
  // [0, 0, N, d] with N * d = H.
  const std::optional<std::vector<int64_t>> shape = ConstantInts(graph, *reshape, 1);
  if (!shape || shape->size() != 4) return std::nullopt;
  p.heads = (*shape)[2];
  p.head_size = (*shape)[3];
  if (p.heads <= 0 || p.head_size <= 0 || p.heads * p.head_size != p.weight->Shape()[1] ||
      !ReshapeTargetIs(graph, *reshape, p.x, {p.heads, p.head_size}))
    return std::nullopt;
  p.nodes.insert(p.nodes.end(), transposes.begin(), transposes.end());
  return p;
}

// The mask chain Mul(Sub(1, Cast<float>(Unsqueeze(M, [1, 2]))), filter) producing mask.
struct MaskChain {
  NodeArg* mask_2d = nullptr;  // M
  float filter = 0.0f;
  std::vector<NodeIndex> nodes;  // Unsqueeze, Cast, Sub, Mul
};

std::optional<std::vector<int64_t>> UnsqueezeAxes(const Graph& graph, const Node& node) {
  if (node.OpsetVersion() < 13) {
    const Attribute* axes = node.FindAttribute("axes");
    if (node.InputCount() != 1 || axes == nullptr) return std::nullopt;
    return axes->ints;
  }
  if (node.InputCount() != 2) return std::nullopt;
  return ConstantInts(graph, node, 1);
}

std::optional<MaskChain> MatchMask(const Graph& graph, const NodeArg* mask, const NodeArg* x) {
  MaskChain chain;
  const Node* mul = graph.Producer(mask->name);
  if (!IsOnnxOp(mul, "Mul", 2)) return std::nullopt;
  const Node* sub = nullptr;
  for (size_t side = 0; side < 2 && sub == nullptr; ++side) {
    const Node* producer = graph.Producer(mul->Inputs()[side]->name);
    const std::optional<float> filter = ScalarFloatConstant(graph, *mul, 1 - side);
    if (IsOnnxOp(producer, "Sub", 2) && filter && std::isfinite(*filter) && *filter < 0.0f) {
      sub = producer;
      chain.filter = *filter;
    }
  }
  if (sub == nullptr || ScalarFloatConstant(graph, *sub, 0) != std::optional<float>(1.0f))
    return std::nullopt;
  const Node* cast = graph.Producer(sub->Inputs()[1]->name);
  if (!IsOnnxOp(cast, "Cast", 1)) return std::nullopt;
  const Attribute* to = cast->FindAttribute("to");
  if (to == nullptr || to->i != static_cast<int64_t>(ElementType::kFloat)) return std::nullopt;
  const Node* unsqueeze = graph.Producer(cast->Inputs()[0]->name);
  if (!IsOnnxOp(unsqueeze, "Unsqueeze") ||
      UnsqueezeAxes(graph, *unsqueeze) != std::vector<int64_t>{1, 2})
    return std::nullopt;
  NodeArg* m = unsqueeze->Inputs()[0];
  if (m == nullptr || !m->type.IsTensor() || RankOf(m) != size_t{2}) return std::nullopt;
  const ElementType type = m->type.elem;
  if (type != ElementType::kInt64 && type != ElementType::kInt32 && type != ElementType::kBool)
    return std::nullopt;
  // [B, S] of X's B and S.
  for (size_t i = 0; i < 2; ++i) {
    const Dim& md = m->shape->dims[i];
    const Dim& xd = x->shape->dims[i];
    const bool same = md.IsKnown() ? xd.IsKnown() && md.value == xd.value
                                   : !md.param.empty() && md.param == xd.param;
    if (!same) return std::nullopt;
  }
  chain.mask_2d = m;
  chain.nodes = {unsqueeze->Index(), cast->Index(), sub->Index(), mul->Index()};
  return chain;
}

class AttentionFusion final : public GraphTransformer {
 public:
  AttentionFusion() : GraphTransformer("AttentionFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* softmax = graph.FindNode(index);
      if (!IsOnnxOp(softmax, "Softmax", 1)) continue;
      if (TryFuse(graph, *softmax, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& softmax, const TransformContext& context) const {
    // Softmax over the last axis of the [B, N, S, S] scores.
    const NodeArg* scores = softmax.Inputs()[0];
    if (!IsFloatTensor(scores) || RankOf(scores) != size_t{4}) return false;
    const Attribute* axis = softmax.FindAttribute("axis");
    if (axis != nullptr ? (axis->i != -1 && axis->i != 3) : softmax.OpsetVersion() < 13)
      return false;
    std::vector<NodeIndex> chain;

    // Div(QK, sqrt(d)) or Mul(QK, 1 / sqrt(d)) producing scaled, read only by reader: the scale
    // node, its factor and the QK MatMul.
    struct Scaling {
      const Node* scale = nullptr;
      float factor = 0.0f;
      const Node* qk_matmul = nullptr;
    };
    const auto match_scaling = [&graph](const NodeArg* scaled,
                                        const Node* reader) -> std::optional<Scaling> {
      const Node* scale = graph.Producer(scaled->name);
      if (scale == nullptr || (!IsOnnxOp(scale, "Div", 2) && !IsOnnxOp(scale, "Mul", 2)) ||
          SoleConsumer(graph, scaled) != reader)
        return std::nullopt;
      for (size_t c = 0; c < 2; ++c) {
        if (scale->OpType() == "Div" && c == 0) continue;  // QK / constant only
        const std::optional<float> value = ScalarFloatConstant(graph, *scale, c);
        if (!value || *value == 0.0f) continue;
        const Node* matmul = SoleProducer(graph, scale->Inputs()[1 - c], "MatMul", scale);
        if (matmul == nullptr || matmul->InputCount() != 2) continue;
        return Scaling{scale, scale->OpType() == "Div" ? 1.0f / *value : *value, matmul};
      }
      return std::nullopt;
    };

    // Softmax(Add(scaled, mask)) or Softmax(scaled).
    const NodeArg* mask = nullptr;
    std::optional<Scaling> scaling;
    const Node* add_mask = SoleProducer(graph, scores, "Add", &softmax);
    if (add_mask != nullptr && add_mask->InputCount() == 2) {
      for (size_t side = 0; side < 2 && !scaling; ++side)
        if ((scaling = match_scaling(add_mask->Inputs()[side], add_mask)))
          mask = add_mask->Inputs()[1 - side];
    } else {
      add_mask = nullptr;
      scaling = match_scaling(scores, &softmax);
    }
    if (!scaling) return false;
    const Node* scale = scaling->scale;
    const Node* qk_matmul = scaling->qk_matmul;
    const std::optional<float> factor = scaling->factor;

    // P V, then the heads merged back.
    const Node* pv = SoleConsumer(graph, softmax.Outputs()[0]);
    if (!IsOnnxOp(pv, "MatMul", 2) || pv->Inputs()[0] != softmax.Outputs()[0]) return false;
    const Node* merge_transpose = SoleConsumer(graph, pv->Outputs()[0]);
    if (!IsOnnxOp(merge_transpose, "Transpose", 1) || !PermIs(merge_transpose, {0, 2, 1, 3}))
      return false;
    const Node* merge = SoleConsumer(graph, merge_transpose->Outputs()[0]);
    if (!IsOnnxOp(merge, "Reshape", 2) || merge->Inputs()[0] != merge_transpose->Outputs()[0])
      return false;

    const std::optional<Projection> q =
        MatchProjection(graph, qk_matmul->Inputs()[0], qk_matmul, false);
    const std::optional<Projection> k =
        MatchProjection(graph, qk_matmul->Inputs()[1], qk_matmul, true);
    const std::optional<Projection> v = MatchProjection(graph, pv->Inputs()[1], pv, false);
    if (!q || !k || !v || q->x != k->x || q->x != v->x) return false;
    NodeArg* x = q->x;
    const TensorShape& w_shape = q->weight->Shape();
    for (const Projection* p : {&*k, &*v})
      if (p->weight->Shape() != w_shape || p->heads != q->heads || p->head_size != q->head_size)
        return false;
    const int64_t heads = q->heads, head_size = q->head_size, hidden = w_shape[1];
    const double expected = 1.0 / std::sqrt(static_cast<double>(head_size));
    if (std::fabs(static_cast<double>(*factor) - expected) > 1e-4 * expected) return false;
    if (!ReshapeTargetIs(graph, *merge, x, {hidden}) || !IsFloatTensor(merge->Outputs()[0]))
      return false;

    std::optional<MaskChain> mask_chain;
    if (mask != nullptr) {
      mask_chain = MatchMask(graph, mask, x);
      if (!mask_chain) return false;
    }

    for (const Projection* p : {&*q, &*k, &*v})
      chain.insert(chain.end(), p->nodes.begin(), p->nodes.end());
    chain.insert(chain.end(), {qk_matmul->Index(), scale->Index()});
    if (add_mask != nullptr) chain.push_back(add_mask->Index());
    chain.insert(chain.end(),
                 {softmax.Index(), pv->Index(), merge_transpose->Index(), merge->Index()});
    if (!MayTouchAll(*this, graph, chain, context)) return false;
    if (mask_chain && !MayTouchAll(*this, graph, mask_chain->nodes, context)) return false;

    // mask_index first: making its Cast resolves the graph, which drops unread initializers.
    const IExecutionProvider* provider =
        context.provider_of ? context.provider_of(graph, softmax.Index()) : nullptr;
    NodeArg* mask_index = mask_chain ? MaskIndex(graph, context, *mask_chain, provider) : nullptr;

    // The packed weight [Hin, 3H] and bias [3H].
    const int64_t in_hidden = w_shape[0];
    Tensor weight(ElementType::kFloat, TensorShape({in_hidden, 3 * hidden}), GetCpuAllocator());
    Tensor bias(ElementType::kFloat, TensorShape({3 * hidden}), GetCpuAllocator());
    const Projection* parts[3] = {&*q, &*k, &*v};
    for (int part = 0; part < 3; ++part) {
      const float* w = parts[part]->weight->Data<float>();
      float* out = weight.MutableData<float>() + part * hidden;
      for (int64_t r = 0; r < in_hidden; ++r)
        for (int64_t c = 0; c < hidden; ++c) out[r * 3 * hidden + c] = w[r * hidden + c];
      const float* b = parts[part]->bias->Data<float>();
      std::copy(b, b + hidden, bias.MutableData<float>() + part * hidden);
    }
    const std::string base = softmax.Name().empty() ? scores->name : softmax.Name();
    const std::string weight_name = graph.UniqueValueName(base + "_qkv_weight");
    graph.AddInitializer(weight_name, std::move(weight));
    const std::string bias_name = graph.UniqueValueName(base + "_qkv_bias");
    graph.AddInitializer(bias_name, std::move(bias));
    // The originals, held until the fusion is done (their buffers, not copies).
    TransformContext::Sources old_weights, old_biases;
    for (const Projection* p : parts) {
      old_weights.emplace_back(p->weight_name, *p->weight);
      old_biases.emplace_back(p->bias_name, *p->bias);
    }

    std::map<std::string, Attribute> attributes = {{"num_heads", IntAttribute("num_heads", heads)}};
    if (mask_chain)
      attributes["mask_filter_value"] = FloatAttribute("mask_filter_value", mask_chain->filter);
    std::vector<NodeArg*> inputs = {x, graph.MutableNodeArg(weight_name),
                                    graph.MutableNodeArg(bias_name)};
    if (mask_index != nullptr) inputs.push_back(mask_index);
    Node& fused = FuseChain(graph, context, chain, base + "_attention", "Attention",
                            "com.microsoft", 1, std::move(inputs), std::move(attributes));
    // Wq, Wk and Wv are column blocks of the packed weight, bq, bk and bv slices of the bias:
    // the session may free the model's copies (bert_base: 81 MiB) and rebuild them from those.
    DropDerivedSources(graph, context, weight_name, old_weights, ColumnBlock);
    DropDerivedSources(graph, context, bias_name, old_biases, ColumnBlock);
    if (mask_chain)
      RemoveDeadMaskChain(graph, context, *mask_chain, mask_index, fused.Index(), provider);
    return true;
  }

  // Part `part` of three equal column blocks of a float [rows, 3H] (or [3H]) tensor: [rows, H].
  static Tensor ColumnBlock(const Tensor& packed, size_t part) {
    const TensorShape& shape = packed.Shape();
    const int64_t rows = shape.Rank() == 2 ? shape[0] : 1;
    const int64_t width = shape[shape.Rank() - 1] / 3;
    Tensor block(ElementType::kFloat,
                 shape.Rank() == 2 ? TensorShape({rows, width}) : TensorShape({width}),
                 GetCpuAllocator());
    const float* in = packed.Data<float>() + static_cast<int64_t>(part) * width;
    float* out = block.MutableData<float>();
    for (int64_t r = 0; r < rows; ++r)
      std::copy(in + r * 3 * width, in + r * 3 * width + width, out + r * width);
    return block;
  }

  // M as int32: M itself, or the output of a Cast of M to int32 (made once and shared).
  static NodeArg* MaskIndex(Graph& graph, const TransformContext& context, const MaskChain& chain,
                            const IExecutionProvider* provider) {
    NodeArg* m = chain.mask_2d;
    if (m->type.elem == ElementType::kInt32) return m;
    for (NodeIndex reader : graph.Consumers(m->name)) {
      const Node& node = graph.GetNode(reader);
      const Attribute* to = node.FindAttribute("to");
      if (IsOnnxOp(&node, "Cast", 1) && to != nullptr &&
          to->i == static_cast<int64_t>(ElementType::kInt32) && node.Inputs()[0] == m)
        return node.Outputs()[0];
    }
    NodeArg* out = graph.GetOrCreateValue(graph.UniqueValueName(m->name + "_mask_index"));
    out->type = ValueType::Tensor(ElementType::kInt32);
    out->shape = m->shape;
    const int opset = graph.GetNode(chain.nodes[1]).OpsetVersion();  // the mask's Cast
    std::map<std::string, Attribute> attributes = {
        {"to", IntAttribute("to", static_cast<int64_t>(ElementType::kInt32))}};
    const NodeIndex cast = graph
                               .AddNode(graph.UniqueNodeName(m->name + "_mask_index"), "Cast", "",
                                        opset, {m}, {out}, std::move(attributes))
                               .Index();
    graph.Resolve();
    if (context.on_fused) context.on_fused(graph, {}, cast, provider);
    return out;
  }

  // Removes the nodes of the mask chain nothing reads any more (the last layer fused); the
  // report lists them as replaced by the node that makes mask_index (the attention node when M
  // is int32 already).
  static void RemoveDeadMaskChain(Graph& graph, const TransformContext& context,
                                  const MaskChain& chain, const NodeArg* mask_index,
                                  NodeIndex attention, const IExecutionProvider* provider) {
    std::vector<std::string> removed;
    for (auto it = chain.nodes.rbegin(); it != chain.nodes.rend(); ++it) {
      const Node* node = graph.FindNode(*it);
      if (node == nullptr) continue;
      bool read = false;
      for (const NodeArg* output : node->Outputs())
        if (output != nullptr && (graph.IsOutput(output) || !graph.Consumers(output->name).empty()))
          read = true;
      if (read) break;
      std::vector<std::string> inputs;
      for (const NodeArg* input : node->Inputs())
        if (input != nullptr) inputs.push_back(input->name);
      removed.push_back(node->Name());
      graph.RemoveNode(*it);
      graph.Resolve();
      RemoveUnreadInitializers(graph, inputs);
    }
    if (removed.empty() || !context.on_fused) return;
    const Node* maker = graph.Producer(mask_index->name);
    context.on_fused(graph, removed, maker != nullptr ? maker->Index() : attention, provider);
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeAttentionFusion() {
  return std::make_unique<AttentionFusion>();
}

}  // namespace prism
