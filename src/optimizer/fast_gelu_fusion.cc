// FastGeluFusion (onnxruntime's name, extended level, CPU EP): the tanh approximation of GELU as
// exporters write it (PyTorch's gelu(approximate='tanh'), Hugging Face's gelu_new),
//   t = Tanh(sqrt(2 / pi) * inner),  a = t + 1,
//   y = (x * a) * 0.5     or     y = (x * 0.5) * a,
// with inner either x + 0.044715 * x^3 (the cube as Pow(x, 3) or x * x * x) or
// x * (0.044715 * x * x + 1), becomes com.microsoft FastGelu(x), as onnxruntime writes it. When x
// is Add(X, bias) with a float 1-D bias [H] over X's last dim and nothing else reads the sum,
// the bias goes in too: FastGelu(X, bias). Float only; the constants are scalars near their
// values (0.044715 within 1e-6, sqrt(2 / pi) within 1e-5, 1 and 0.5 within 1e-4); every
// intermediate feeds nothing but the next node of the pattern; commutative operands may come in
// either order.
#include <optional>
#include <set>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";
constexpr double kCubeFactor = 0.044715;
constexpr double kSqrtTwoOverPi = 0.7978845608028654;
constexpr double kCubeTolerance = 1e-6;
constexpr double kSqrtTwoOverPiTolerance = 1e-5;

bool IsBinary(const Node* node, const char* op) {
  return IsOnnxOp(node, op, 2);
}

// The node producing value when it is the binary op `op` and `reader` is its only reader.
const Node* FeedingOnly(const Graph& graph, const NodeArg* value, const char* op,
                        const Node* reader) {
  if (value == nullptr) return nullptr;
  const Node* node = graph.Producer(value->name);
  if (!IsBinary(node, op) || node->Outputs()[0] != value || SoleConsumer(graph, value) != reader)
    return nullptr;
  return node;
}

// For a binary node with one scalar float constant input near `target`: the other input.
NodeArg* OtherThanConstant(const Graph& graph, const Node& node, double target, double tolerance,
                           bool constant_second_only = false) {
  for (size_t c = constant_second_only ? 1 : 0; c < 2; ++c)
    if (Near(ScalarFloatConstant(graph, node, c), target, tolerance)) return node.Inputs()[1 - c];
  return nullptr;
}

// x^3 read by `reader` as Pow(x, 3) or Mul(Mul(x, x), x) (either order): the cube's nodes.
std::optional<std::vector<NodeIndex>> MatchCube(const Graph& graph, const NodeArg* cube,
                                                const NodeArg* x, const Node* reader) {
  if (const Node* pow = FeedingOnly(graph, cube, "Pow", reader)) {
    if (pow->Inputs()[0] == x && Near(ScalarFloatConstant(graph, *pow, 1), 3.0, 1e-6))
      return std::vector<NodeIndex>{pow->Index()};
    return std::nullopt;
  }
  const Node* outer = FeedingOnly(graph, cube, "Mul", reader);
  if (outer == nullptr) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    if (outer->Inputs()[1 - side] != x) continue;
    const Node* square = FeedingOnly(graph, outer->Inputs()[side], "Mul", outer);
    if (square != nullptr && square->Inputs()[0] == x && square->Inputs()[1] == x)
      return std::vector<NodeIndex>{square->Index(), outer->Index()};
  }
  return std::nullopt;
}

// The value x and the nodes computing inner(x) = x + 0.044715 x^3 or x (0.044715 x^2 + 1),
// where `inner` is read only by `reader`.
struct Inner {
  NodeArg* x = nullptr;
  std::vector<NodeIndex> nodes;
};

std::optional<Inner> MatchInner(const Graph& graph, const NodeArg* inner, const Node* reader) {
  // x + 0.044715 * x^3
  if (const Node* add = FeedingOnly(graph, inner, "Add", reader)) {
    for (size_t side = 0; side < 2; ++side) {
      NodeArg* x = add->Inputs()[1 - side];
      const Node* scaled = FeedingOnly(graph, add->Inputs()[side], "Mul", add);
      if (scaled == nullptr) continue;
      const NodeArg* cube = OtherThanConstant(graph, *scaled, kCubeFactor, kCubeTolerance);
      if (cube == nullptr) continue;
      const std::optional<std::vector<NodeIndex>> cube_nodes = MatchCube(graph, cube, x, scaled);
      if (!cube_nodes) continue;
      Inner result{x, *cube_nodes};
      result.nodes.insert(result.nodes.end(), {scaled->Index(), add->Index()});
      return result;
    }
    return std::nullopt;
  }
  // x * (0.044715 * (x * x) + 1)
  const Node* mul = FeedingOnly(graph, inner, "Mul", reader);
  if (mul == nullptr) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    NodeArg* x = mul->Inputs()[1 - side];
    const Node* plus_one = FeedingOnly(graph, mul->Inputs()[side], "Add", mul);
    if (plus_one == nullptr) continue;
    const NodeArg* scaled_square = OtherThanConstant(graph, *plus_one, 1.0, 1e-4);
    const Node* scaled =
        scaled_square ? FeedingOnly(graph, scaled_square, "Mul", plus_one) : nullptr;
    if (scaled == nullptr) continue;
    const NodeArg* square_value = OtherThanConstant(graph, *scaled, kCubeFactor, kCubeTolerance);
    const Node* square = square_value ? FeedingOnly(graph, square_value, "Mul", scaled) : nullptr;
    if (square == nullptr || square->Inputs()[0] != x || square->Inputs()[1] != x) continue;
    return Inner{x, {square->Index(), scaled->Index(), plus_one->Index(), mul->Index()}};
  }
  return std::nullopt;
}

class FastGeluFusion final : public GraphTransformer {
 public:
  FastGeluFusion() : GraphTransformer("FastGeluFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* tanh = graph.FindNode(index);
      if (!IsOnnxOp(tanh, "Tanh", 1)) continue;
      if (TryFuse(graph, *tanh, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& tanh, const TransformContext& context) const {
    // sqrt(2 / pi) * inner
    const NodeArg* tanh_in = tanh.Inputs()[0];
    if (!IsFloatTensor(tanh_in)) return false;
    const Node* scale = FeedingOnly(graph, tanh_in, "Mul", &tanh);
    if (scale == nullptr) return false;
    const NodeArg* inner_value =
        OtherThanConstant(graph, *scale, kSqrtTwoOverPi, kSqrtTwoOverPiTolerance);
    if (inner_value == nullptr) return false;
    std::optional<Inner> inner = MatchInner(graph, inner_value, scale);
    if (!inner) return false;
    NodeArg* x = inner->x;
    std::vector<NodeIndex> chain = inner->nodes;
    chain.insert(chain.end(), {scale->Index(), tanh.Index()});

    // a = t + 1, then (x * a) * 0.5 or (x * 0.5) * a.
    const Node* add = SoleConsumer(graph, tanh.Outputs()[0]);
    if (!IsBinary(add, "Add")) return false;
    const std::optional<size_t> one = OtherInput(*add, tanh.Outputs()[0]);
    if (!one || !Near(ScalarFloatConstant(graph, *add, *one), 1.0)) return false;
    chain.push_back(add->Index());
    const Node* mul = SoleConsumer(graph, add->Outputs()[0]);
    if (!IsBinary(mul, "Mul")) return false;
    const std::optional<size_t> other = OtherInput(*mul, add->Outputs()[0]);
    if (!other) return false;
    const NodeArg* factor = mul->Inputs()[*other];
    if (factor == x) {  // (x * a) * 0.5
      const Node* half = SoleConsumer(graph, mul->Outputs()[0]);
      if (!IsBinary(half, "Mul")) return false;
      const std::optional<size_t> c = OtherInput(*half, mul->Outputs()[0]);
      if (!c || !Near(ScalarFloatConstant(graph, *half, *c), 0.5)) return false;
      chain.insert(chain.end(), {mul->Index(), half->Index()});
    } else {  // (x * 0.5) * a
      const Node* half = graph.Producer(factor->name);
      if (!IsBinary(half, "Mul") || SoleConsumer(graph, factor) != mul) return false;
      const std::optional<size_t> c = OtherInput(*half, x);
      if (!c || !Near(ScalarFloatConstant(graph, *half, *c), 0.5)) return false;
      chain.insert(chain.end() - 1, half->Index());  // before the Add: a topological order
      chain.push_back(mul->Index());
    }
    // The result keeps x's shape only when nothing broadcast it (the constants are scalars).
    const NodeArg* y = graph.GetNode(chain.back()).Outputs()[0];
    if (!IsFloatTensor(x) || !IsFloatTensor(y) || !SameShape(x, y)) return false;

    std::vector<NodeArg*> inputs = {x};
    if (const std::optional<BiasAdd> bias = MatchBias(graph, x, chain)) {
      chain.insert(chain.begin(), bias->add);
      inputs = {bias->x, bias->bias};
    }
    if (!MayTouchAll(*this, graph, chain, context)) return false;
    FuseChain(graph, context, chain, tanh.Name() + "_fast_gelu", "FastGelu", "com.microsoft", 1,
              std::move(inputs), {});
    return true;
  }

  struct BiasAdd {
    NodeIndex add;
    NodeArg* x;
    NodeArg* bias;
  };

  // x = Add(X, bias) with bias float [H] over X's last dim, read only by the GELU's nodes.
  static std::optional<BiasAdd> MatchBias(const Graph& graph, const NodeArg* x,
                                          const std::vector<NodeIndex>& chain) {
    const Node* add = graph.Producer(x->name);
    if (!IsBinary(add, "Add") || add->Outputs()[0] != x || graph.IsOutput(x)) return std::nullopt;
    const std::set<NodeIndex> in_chain(chain.begin(), chain.end());
    for (NodeIndex reader : graph.Consumers(x->name)) {
      if (!in_chain.count(reader)) return std::nullopt;
      for (const NodeArg* implicit : graph.GetNode(reader).ImplicitInputs())
        if (implicit == x) return std::nullopt;
    }
    for (size_t b = 0; b < 2; ++b) {
      NodeArg* bias = add->Inputs()[b];
      NodeArg* input = add->Inputs()[1 - b];
      const std::optional<std::vector<int64_t>> bias_dims = StaticDims(bias);
      const std::optional<size_t> rank = RankOf(input);
      if (IsFloatTensor(bias) && IsFloatTensor(input) && bias_dims && bias_dims->size() == 1 &&
          rank && *rank > 0 && DimIs(input, -1, (*bias_dims)[0]) && SameShape(input, x))
        return BiasAdd{add->Index(), input, bias};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeFastGeluFusion() {
  return std::make_unique<FastGeluFusion>();
}

}  // namespace prism
