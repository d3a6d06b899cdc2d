#include "framework/shape_computation.h"

#include <map>

#include "framework/kernel_def.h"

namespace prism {

std::set<NodeIndex> ShapeComputationNodes(
    const GraphViewer& viewer, const std::function<const KernelDef*(const Node&)>& device_def) {
  const Graph& graph = viewer.GetGraph();
  std::map<NodeIndex, const KernelDef*> claimed;  // nodes of the viewer the device EP would run
  for (NodeIndex index : viewer.Nodes())
    if (const KernelDef* def = device_def(viewer.GetNode(index))) claimed[index] = def;

  // Start from every claimed node without subgraphs and drop nodes that break a condition
  // until none does (the conditions only tighten as the set shrinks).
  std::set<NodeIndex> kept;
  for (const auto& [index, def] : claimed)
    if (viewer.GetNode(index).Subgraphs().empty()) kept.insert(index);

  auto on_cpu = [&](const NodeArg* arg) {
    if (graph.IsConstantInitializer(arg->name)) return true;
    const Node* producer = graph.Producer(arg->name);
    if (producer == nullptr || !viewer.Contains(producer->Index())) return false;
    auto it = claimed.find(producer->Index());
    if (it == claimed.end() || kept.count(producer->Index())) return true;
    for (size_t o = 0; o < producer->OutputCount(); ++o)
      if (producer->Outputs()[o] == arg)
        return it->second->cpu_outputs.count(static_cast<int>(o)) > 0;
    return false;
  };
  // Whether every read of arg is in CPU memory; *feeds_shape: one of them is a device kernel's
  // CPU input or a node of the set (what makes this a shape computation rather than, say, an
  // activation between two CPU-run nodes).
  auto read_on_cpu = [&](const NodeArg* arg, bool* feeds_shape) {
    for (NodeIndex index : graph.Consumers(arg->name)) {
      if (!viewer.Contains(index)) return false;
      auto it = claimed.find(index);
      if (it == claimed.end()) continue;
      if (kept.count(index)) {
        *feeds_shape = true;
        continue;
      }
      const Node& consumer = graph.GetNode(index);
      for (const NodeArg* implicit : consumer.ImplicitInputs())
        if (implicit == arg) return false;
      for (size_t i = 0; i < consumer.InputCount(); ++i) {
        if (consumer.Inputs()[i] != arg) continue;
        if (!it->second->cpu_inputs.count(static_cast<int>(i))) return false;
        *feeds_shape = true;
      }
    }
    return true;
  };
  auto qualifies = [&](NodeIndex index) {
    const Node& node = graph.GetNode(index);
    bool feeds_shape = false;
    for (const NodeArg* output : node.Outputs())
      if (output != nullptr && !read_on_cpu(output, &feeds_shape)) return false;
    if (!feeds_shape) return false;
    for (const NodeArg* input : node.Inputs())
      if (input != nullptr && !on_cpu(input)) return false;
    return true;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = kept.begin(); it != kept.end();) {
      if (qualifies(*it)) {
        ++it;
      } else {
        it = kept.erase(it);
        changed = true;
      }
    }
  }
  return kept;
}

}  // namespace prism
