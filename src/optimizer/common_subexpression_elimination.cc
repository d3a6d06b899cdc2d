// CommonSubexpressionElimination (onnxruntime's name, basic level, every EP): two nodes with the
// same op (type, domain, opset), the same attributes (compared by value, tensors by bytes) and
// the same inputs in order compute the same outputs, so the later one goes and its readers read
// the earlier one's outputs. Exported transformers repeat Shape/Gather/Unsqueeze/Concat and
// Transpose/Reshape chains per layer; this leaves one of each.
//
// Inputs are the same when they are the same value, or constant initializers of this graph with
// the same type, shape and bytes (exporters give each Reshape its own copy of a shape constant).
// Never merged: nondeterministic ops (the Random* family, Bernoulli, Multinomial, Dropout with a
// training_mode input, com.microsoft's Dropout variants), nodes with subgraphs or a fused body, ops
// outside the ONNX and com.microsoft domains (a custom op may have side effects), and nodes without
// inputs other than Constant. When a removed node's output is a graph output, an Identity from the
// kept node's output writes it, so the model's output names stay; an Identity itself is never
// replaced by another Identity.
#include <bit>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include "graph/model.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

// Constant initializers up to this size compare by value; larger ones only by name (hashing and
// comparing them would cost more than an exporter's duplicated weight is likely to save).
constexpr size_t kMaxComparedConstantBytes = 4096;

bool IsNondeterministic(const Node& node) {
  static const std::set<std::string> kRandom = {"RandomNormal",     "RandomUniform",
                                                "RandomNormalLike", "RandomUniformLike",
                                                "Bernoulli",        "Multinomial"};
  if (kRandom.count(node.OpType())) return true;
  // Dropout draws its mask when training_mode is given (whatever its value at run time);
  // onnxruntime's training Dropouts (BiasDropout, BitmaskDropout, ...) always may.
  if (node.Domain() == "com.microsoft") return node.OpType().find("Dropout") != std::string::npos;
  return node.OpType() == "Dropout" && node.HasInput(2);
}

bool Eligible(const Node& node) {
  if (!node.Domain().empty() && node.Domain() != "com.microsoft") return false;
  if (node.FusedBody() != nullptr || !node.Subgraphs().empty()) return false;
  if (IsNondeterministic(node)) return false;
  for (const auto& [name, attribute] : node.Attributes())
    if (attribute.type == AttributeType::kGraph || attribute.type == AttributeType::kGraphs)
      return false;
  bool any_input = false;
  for (const NodeArg* input : node.Inputs()) any_input = any_input || input != nullptr;
  if (!any_input && !(node.OpType() == "Constant" && node.Domain().empty())) return false;
  bool any_output = false;
  for (const NodeArg* output : node.Outputs()) any_output = any_output || output != nullptr;
  return any_output;
}

size_t Mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
}

size_t HashBytes(const void* data, size_t size) {
  return std::hash<std::string_view>()(std::string_view(static_cast<const char*>(data), size));
}

bool SameBits(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.Type() != b.Type() || a.Shape() != b.Shape()) return false;
  if (a.Type() == ElementType::kString) {
    const std::string* x = a.Data<std::string>();
    const std::string* y = b.Data<std::string>();
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (x[i] != y[i]) return false;
    return true;
  }
  return a.SizeInBytes() == b.SizeInBytes() &&
         std::memcmp(a.RawData(), b.RawData(), a.SizeInBytes()) == 0;
}

// Whether two attributes hold the same value (floats by their bits: 0.0 and -0.0 differ, a NaN
// equals the same NaN).
bool SameAttribute(const Attribute& a, const Attribute& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case AttributeType::kFloat:
      return SameBits(a.f, b.f);
    case AttributeType::kInt:
      return a.i == b.i;
    case AttributeType::kString:
      return a.s == b.s;
    case AttributeType::kFloats:
      return a.floats.size() == b.floats.size() &&
             std::equal(a.floats.begin(), a.floats.end(), b.floats.begin(), SameBits);
    case AttributeType::kInts:
      return a.ints == b.ints;
    case AttributeType::kStrings:
      return a.strings == b.strings;
    case AttributeType::kTensor:
      return a.tensor && b.tensor && SameTensor(*a.tensor, *b.tensor);
    default:
      // Sparse tensors, type protos, lists of tensors: not compared, so never equal.
      return false;
  }
}

class CommonSubexpressionElimination final : public GraphTransformer {
 public:
  CommonSubexpressionElimination()
      : GraphTransformer("CommonSubexpressionElimination", TransformerLevel::kBasic) {}

  bool Apply(Graph& graph, const TransformContext&) const override {
    std::unordered_multimap<size_t, NodeIndex> seen;
    bool changed = false;
    // In topological order: a node's inputs were already rewired to their kept producers, so
    // duplicated chains collapse in one pass.
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* node = graph.FindNode(index);
      if (node == nullptr || !Eligible(*node)) continue;
      const size_t hash = Hash(graph, *node);
      const Node* kept = nullptr;
      auto [begin, end] = seen.equal_range(hash);
      for (auto it = begin; it != end && kept == nullptr; ++it) {
        const Node* candidate = graph.FindNode(it->second);
        if (candidate != nullptr && Same(graph, *candidate, *node)) kept = candidate;
      }
      if (kept == nullptr) {
        seen.emplace(hash, index);
        continue;
      }
      if (Merge(graph, *kept, index)) changed = true;
    }
    return changed;
  }

 private:
  // A constant initializer of this graph small enough to compare by value, or nullptr.
  static const Tensor* ComparedConstant(const Graph& graph, const NodeArg* value) {
    if (value == nullptr || !graph.IsConstantInitializer(value->name)) return nullptr;
    // A local initializer only: the name may be shadowed by a value of an enclosing graph.
    if (graph.FindNodeArg(value->name) != value) return nullptr;
    const Tensor* tensor = graph.FindInitializer(value->name);
    if (tensor == nullptr || tensor->Type() == ElementType::kString ||
        tensor->SizeInBytes() > kMaxComparedConstantBytes)
      return nullptr;
    return tensor;
  }

  static bool SameInput(const Graph& graph, const NodeArg* a, const NodeArg* b) {
    if (a == b) return true;
    const Tensor* x = ComparedConstant(graph, a);
    const Tensor* y = ComparedConstant(graph, b);
    return x != nullptr && y != nullptr && SameTensor(*x, *y);
  }

  static size_t Hash(const Graph& graph, const Node& node) {
    size_t hash = std::hash<std::string>()(node.OpType());
    hash = Mix(hash, std::hash<std::string>()(node.Domain()));
    hash = Mix(hash, static_cast<size_t>(node.OpsetVersion()));
    hash = Mix(hash, node.InputCount());
    for (const NodeArg* input : node.Inputs()) {
      const Tensor* constant = ComparedConstant(graph, input);
      hash = Mix(hash, constant != nullptr ? HashBytes(constant->RawData(), constant->SizeInBytes())
                                           : std::hash<const void*>()(input));
    }
    for (const auto& [name, attribute] : node.Attributes())
      hash = Mix(hash, std::hash<std::string>()(name));
    return hash;
  }

  static bool Same(const Graph& graph, const Node& a, const Node& b) {
    if (a.OpType() != b.OpType() || a.Domain() != b.Domain() ||
        a.OpsetVersion() != b.OpsetVersion() || a.InputCount() != b.InputCount() ||
        a.Attributes().size() != b.Attributes().size())
      return false;
    for (size_t i = 0; i < a.InputCount(); ++i)
      if (!SameInput(graph, a.Inputs()[i], b.Inputs()[i])) return false;
    for (const auto& [name, attribute] : a.Attributes()) {
      const Attribute* other = b.FindAttribute(name);
      if (other == nullptr || !SameAttribute(attribute, *other)) return false;
    }
    // Every output the later node writes must exist on the kept one.
    for (size_t o = 0; o < b.OutputCount(); ++o)
      if (b.HasOutput(o) && !a.HasOutput(o)) return false;
    return true;
  }

  // Rewires the readers of node `index` to `kept` and removes it; false when it must stay.
  static bool Merge(Graph& graph, const Node& kept, NodeIndex index) {
    const Node& node = graph.GetNode(index);
    std::vector<std::pair<NodeArg*, NodeArg*>> exposed;  // (graph output, kept value)
    std::vector<std::pair<NodeArg*, NodeArg*>> rewired;  // (removed value, kept value)
    for (size_t o = 0; o < node.OutputCount(); ++o) {
      if (!node.HasOutput(o)) continue;
      NodeArg* output = graph.MutableNodeArg(node.Outputs()[o]->name);
      NodeArg* replacement = kept.Outputs()[o];
      (graph.IsOutput(output) ? exposed : rewired).emplace_back(output, replacement);
    }
    std::optional<int> identity_opset;
    if (!exposed.empty()) {
      // An Identity in place of an Identity gains nothing (and would never reach a fixpoint).
      if (node.OpType() == "Identity" && node.Domain().empty()) return false;
      const auto& opsets = graph.OwnerModel().OpsetImports();
      const auto onnx = opsets.find("");
      if (onnx == opsets.end()) return false;
      identity_opset = onnx->second;
    }
    const std::string name = node.Name();
    for (const auto& [from, to] : rewired) graph.ReplaceAllUses(from, to);
    graph.RemoveNode(index);  // first: a graph output may have one producer only
    for (const auto& [output, source] : exposed)
      graph.AddNode(graph.UniqueNodeName(name + "_cse"), "Identity", "", *identity_opset, {source},
                    {output});
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace prism
