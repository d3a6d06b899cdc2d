#include "framework/execution_provider.h"

#include "graph/graph.h"

namespace prism {

const KernelCreateInfo* KernelLookup::Find(const Node& node, std::string* reason) const {
  if (registry_ == nullptr) {
    if (reason) *reason = "the EP has no kernel registry";
    return nullptr;
  }
  return registry_->Find(node, reason);
}

std::vector<ComputeCapability> IExecutionProvider::GetCapability(
    const GraphViewer& graph, const KernelLookup& lookup,
    std::vector<DeclinedNode>* declined) const {
  std::vector<ComputeCapability> claims;
  for (NodeIndex index : graph.Nodes()) {
    std::string reason;
    if (lookup.Find(graph.GetNode(index), &reason) != nullptr) {
      ComputeCapability claim;
      claim.nodes.push_back(index);
      claims.push_back(std::move(claim));
    } else if (declined != nullptr) {
      declined->push_back(DeclinedNode{index, reason});
    }
  }
  return claims;
}

AllocatorPtr IExecutionProvider::GetAllocator(MemType) const {
  return GetCpuAllocator();
}

std::unique_ptr<OpKernel> IExecutionProvider::Compile(const MetaDef& meta_def, const Graph&,
                                                      const OpKernelInfo&) const {
  PRISM_THROW(kNotImplemented, type_, " claimed fused subgraph '", meta_def.name,
              "' but does not implement Compile");
}

}  // namespace prism
