#include "framework/fused_claim.h"

#include <set>

#include "graph/graph.h"

namespace prism {

ComputeCapability MakeFusedClaim(const Graph& graph, std::vector<NodeIndex> nodes, std::string name,
                                 std::string domain) {
  auto meta = std::make_unique<MetaDef>();
  meta->name = std::move(name);
  meta->domain = std::move(domain);
  std::set<NodeIndex> members(nodes.begin(), nodes.end());
  std::set<std::string> produced;
  for (NodeIndex index : nodes)
    for (const NodeArg* arg : graph.GetNode(index).Outputs())
      if (arg) produced.insert(arg->name);
  std::set<std::string> listed;
  for (NodeIndex index : nodes) {
    for (const NodeArg* arg : graph.GetNode(index).Inputs()) {
      if (!arg || produced.count(arg->name) || !listed.insert(arg->name).second) continue;
      meta->inputs.push_back(arg->name);
      if (graph.IsConstantInitializer(arg->name)) meta->constant_initializers.push_back(arg->name);
    }
  }
  for (NodeIndex index : nodes) {
    for (const NodeArg* arg : graph.GetNode(index).Outputs()) {
      if (!arg) continue;
      bool read_outside = graph.IsOutput(arg);
      for (NodeIndex consumer : graph.Consumers(arg->name))
        read_outside = read_outside || !members.count(consumer);
      if (read_outside) meta->outputs.push_back(arg->name);
    }
  }
  return ComputeCapability{std::move(nodes), std::move(meta)};
}

}  // namespace prism
