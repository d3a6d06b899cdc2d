// ReshapeChainElimination (basic level, every EP; Prism's name: onnxruntime does this inside its
// ReshapeFusion, whose other rewrites Prism lacks): a Reshape, Squeeze or Unsqueeze N whose data
// input is written by another Reshape, Squeeze or Unsqueeze P that nothing else reads takes P's
// data input instead, and P goes. These ops keep the elements in order and only change the
// shape, so N's result depends on P only through its dims; N reads them when
//   - N is a Reshape with a constant target: -1 follows from the element count, which P keeps;
//     a 0 (copy the input's dim) only with allowzero = 1 (then 0 means an empty dim), or
//   - N's output shape is known in full (shape inference): N becomes Reshape(P's input, those
//     dims) with the dims as a new initializer (no dim 0: Reshape would copy it).
// Squeeze/Unsqueeze with constant axes read the input's rank and dims, so only the second case
// takes them. Nodes that computed only P's target (Shape/Gather/Concat chains) go with it when
// nothing else reads them.
#include <optional>
#include <set>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

bool IsShapeOnlyOp(const Node* node) {
  return node != nullptr && node->Domain().empty() && node->HasInput(0) && node->HasOutput(0) &&
         (node->OpType() == "Reshape" || node->OpType() == "Squeeze" ||
          node->OpType() == "Unsqueeze");
}

// Whether N (a Reshape) computes the same from any input with the same number of elements.
bool TargetIgnoresInputDims(const Graph& graph, const Node& node) {
  if (node.OpType() != "Reshape" || node.OpsetVersion() < 5) return false;
  const std::optional<std::vector<int64_t>> target = ConstantInts(graph, node, 1);
  if (!target) return false;
  const Attribute* allowzero = node.FindAttribute("allowzero");
  if (allowzero != nullptr && allowzero->i != 0) return true;
  for (int64_t d : *target)
    if (d == 0) return false;
  return true;
}

// Removes the producers of `values` that nothing reads any more (deterministic ONNX ops without
// subgraphs), and then theirs.
// (By name: Resolve drops the values nothing uses.)
void RemoveUnreadProducers(Graph& graph, std::vector<std::string> values) {
  std::set<std::string> seen;
  while (!values.empty()) {
    const std::string value = values.back();
    values.pop_back();
    if (value.empty() || !seen.insert(value).second) continue;
    const Node* producer = graph.Producer(value);
    if (producer == nullptr || !producer->Domain().empty() || !producer->Subgraphs().empty())
      continue;
    const std::string& op = producer->OpType();
    if (op.rfind("Random", 0) == 0 || op == "Bernoulli" || op == "Multinomial") continue;
    bool read = false;
    for (const NodeArg* output : producer->Outputs())
      read = read || (output != nullptr &&
                      (graph.IsOutput(output) || !graph.Consumers(output->name).empty()));
    if (read) continue;
    for (const NodeArg* input : producer->Inputs())
      if (input != nullptr) values.push_back(input->name);
    graph.RemoveNode(producer->Index());
    graph.Resolve();
  }
}

class ReshapeChainElimination final : public GraphTransformer {
 public:
  ReshapeChainElimination()
      : GraphTransformer("ReshapeChainElimination", TransformerLevel::kBasic) {}

  bool Apply(Graph& graph, const TransformContext&) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      // A chain collapses onto its last node, one producer at a time.
      NodeIndex last = index;
      while (Collapse(graph, last)) changed = true;
    }
    return changed;
  }

 private:
  // Takes the producer of node `index` into it; `index` follows the node when it is rebuilt.
  static bool Collapse(Graph& graph, NodeIndex& index) {
    const Node* node = graph.FindNode(index);
    if (!IsShapeOnlyOp(node)) return false;
    const Node* producer = graph.Producer(node->Inputs()[0]->name);
    if (!IsShapeOnlyOp(producer) || SoleConsumer(graph, producer->Outputs()[0]) != node)
      return false;
    NodeArg* source = producer->Inputs()[0];
    std::vector<std::string> dropped;
    for (size_t i = 1; i < producer->InputCount(); ++i)
      if (producer->HasInput(i)) dropped.push_back(producer->Inputs()[i]->name);
    const NodeIndex producer_index = producer->Index();
    if (TargetIgnoresInputDims(graph, *node)) {
      graph.SetNodeInput(index, 0, source);
    } else {
      const std::optional<std::vector<int64_t>> dims = StaticDims(node->Outputs()[0]);
      const int opset = node->OpsetVersion();
      if (!dims || opset < 5) return false;
      for (int64_t d : *dims)
        if (d == 0) return false;
      Tensor target(ElementType::kInt64, TensorShape({static_cast<int64_t>(dims->size())}),
                    GetCpuAllocator());
      for (size_t i = 0; i < dims->size(); ++i) target.MutableData<int64_t>()[i] = (*dims)[i];
      const std::string base = node->Name().empty() ? node->Outputs()[0]->name : node->Name();
      const std::string target_name = graph.UniqueValueName(base + "_target");
      graph.AddInitializer(target_name, std::move(target));
      for (size_t i = 1; i < node->InputCount(); ++i)
        if (node->HasInput(i)) dropped.push_back(node->Inputs()[i]->name);
      NodeArg* output = graph.MutableNodeArg(node->Outputs()[0]->name);
      const std::string name = graph.UniqueNodeName(base + "_reshape");
      graph.RemoveNode(index);  // first: an output has one producer
      index = graph
                  .AddNode(name, "Reshape", "", opset, {source, graph.MutableNodeArg(target_name)},
                           {output})
                  .Index();
    }
    graph.RemoveNode(producer_index);
    graph.Resolve();
    RemoveUnreadProducers(graph, dropped);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeReshapeChainElimination() {
  return std::make_unique<ReshapeChainElimination>();
}

}  // namespace prism
