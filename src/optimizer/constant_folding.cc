// ConstantFolding (onnxruntime's name), aimed at shape computations: Shape and Size of values
// whose shape is fully known become initializers, and then every deterministic node whose inputs
// are all constant initializers is computed once with the CPU EP's kernel and replaced by
// initializers. Reshape targets computed from Shape chains thus become constants. A
// DequantizeLinear that a Conv or MatMul reads is left for the QDQ fusions (as onnxruntime
// leaves it).
#include <set>

#include "common/logging.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

// Results larger than this stay computed at run time (a folded weight transform may be large;
// shape computations are tiny).
constexpr size_t kMaxFoldedBytes = size_t{16} << 20;

bool IsNondeterministic(const std::string& op) {
  static const std::set<std::string> ops = {"RandomNormal",  "RandomNormalLike",
                                            "RandomUniform", "RandomUniformLike",
                                            "Multinomial",   "Bernoulli"};
  return ops.count(op) > 0;
}

// The static dims of a value, or nothing when any is unknown or its rank is.
std::optional<std::vector<int64_t>> StaticDims(const NodeArg& arg) {
  if (!arg.shape || arg.type.kind != TypeKind::kTensor) return std::nullopt;
  std::vector<int64_t> dims;
  for (const Dim& dim : arg.shape->dims) {
    if (!dim.IsKnown()) return std::nullopt;
    dims.push_back(dim.value);
  }
  return dims;
}

Tensor Int64Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  Tensor tensor(ElementType::kInt64, TensorShape(std::move(shape)), GetCpuAllocator());
  for (size_t i = 0; i < values.size(); ++i) tensor.MutableData<int64_t>()[i] = values[i];
  return tensor;
}

// Shape (with opset 15's start/end) or Size of a statically shaped input.
std::optional<Tensor> FoldShapeOf(const Node& node) {
  if (!node.HasInput(0)) return std::nullopt;
  const auto dims = StaticDims(*node.Inputs()[0]);
  if (!dims) return std::nullopt;
  if (node.OpType() == "Size") {
    int64_t size = 1;
    for (int64_t d : *dims) size *= d;
    return Int64Tensor({size}, {});
  }
  const int64_t rank = static_cast<int64_t>(dims->size());
  auto clamp = [rank](int64_t axis) {
    if (axis < 0) axis += rank;
    return std::min(std::max<int64_t>(axis, 0), rank);
  };
  const Attribute* start_attribute = node.FindAttribute("start");
  const Attribute* end_attribute = node.FindAttribute("end");
  const int64_t start = clamp(start_attribute ? start_attribute->i : 0);
  const int64_t end = clamp(end_attribute ? end_attribute->i : rank);
  std::vector<int64_t> slice;
  for (int64_t i = start; i < end; ++i) slice.push_back((*dims)[i]);
  const int64_t count = static_cast<int64_t>(slice.size());
  return Int64Tensor(slice, {count});
}

class ConstantFolding final : public GraphTransformer {
 public:
  ConstantFolding() : GraphTransformer("ConstantFolding", TransformerLevel::kBasic) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || !node->Domain().empty() || !node->Subgraphs().empty() ||
          IsNondeterministic(node->OpType()))
        continue;
      bool feeds_graph_output = false;
      for (const NodeArg* output : node->Outputs())
        feeds_graph_output = feeds_graph_output || (output && graph.IsOutput(output));
      if (feeds_graph_output) continue;  // an output computed from nothing stays a node
      if (KeptForQdqFusion(graph, *node)) continue;

      std::vector<Tensor> results;
      if (node->OpType() == "Shape" || node->OpType() == "Size") {
        if (auto folded = FoldShapeOf(*node)) results.push_back(std::move(*folded));
      }
      if (results.empty() && AllInputsConstant(graph, *node) && context.evaluate_on_cpu)
        results = Evaluate(graph, *node, context);
      if (results.empty() || results.size() != node->OutputCount()) continue;
      size_t bytes = 0;
      for (const Tensor& tensor : results) bytes += tensor.IsValid() ? tensor.SizeInBytes() : 0;
      if (bytes > kMaxFoldedBytes) continue;

      std::vector<std::string> names;
      for (const NodeArg* output : node->Outputs()) names.push_back(output ? output->name : "");
      graph.RemoveNode(index);
      for (size_t o = 0; o < names.size(); ++o)
        if (!names[o].empty()) graph.AddInitializer(names[o], std::move(results[o]));
      changed = true;
    }
    return changed;
  }

 private:
  // A DequantizeLinear of a constant weight (or bias) that a Conv, MatMul or Gemm reads stays a
  // node, as in onnxruntime, for QDQConvFusion / QDQMatMulFusion / QDQGemmFusion (extended level)
  // to take the quantized weight itself.
  static bool KeptForQdqFusion(const Graph& graph, const Node& node) {
    if (node.OpType() != "DequantizeLinear" || !node.HasOutput(0)) return false;
    for (NodeIndex reader : graph.Consumers(node.Outputs()[0]->name)) {
      const Node& consumer = graph.GetNode(reader);
      if ((consumer.OpType() == "Conv" || consumer.OpType() == "MatMul" ||
           consumer.OpType() == "Gemm") &&
          consumer.Domain().empty())
        return true;
    }
    return false;
  }

  static bool AllInputsConstant(const Graph& graph, const Node& node) {
    for (const NodeArg* input : node.Inputs())
      if (input && !graph.IsConstantInitializer(input->name)) return false;
    return node.ImplicitInputs().empty();
  }

  static std::vector<Tensor> Evaluate(const Graph& graph, const Node& node,
                                      const TransformContext& context) {
    std::vector<const Tensor*> inputs;
    for (const NodeArg* input : node.Inputs())
      inputs.push_back(input ? graph.FindInitializer(input->name) : nullptr);
    try {
      return context.evaluate_on_cpu(node, inputs);
    } catch (const std::exception& e) {
      // Not foldable here (no CPU kernel, a kernel error): it stays a node and runs, or fails, at
      // run time with the usual message.
      PRISM_LOG(kVerbose, "ConstantFolding leaves ", node.Describe(), ": ", e.what());
      return {};
    }
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeConstantFolding() {
  return std::make_unique<ConstantFolding>();
}

}  // namespace prism
