#include "framework/execution_provider.h"

#include "framework/custom_op.h"
#include "graph/graph.h"

namespace prism {

const KernelCreateInfo* KernelLookup::Find(const Node& node, std::string* reason) const {
  std::string custom_reason;
  if (custom_ops_ != nullptr) {
    if (const KernelCreateInfo* info = custom_ops_->Find(node, provider_, &custom_reason))
      return info;
  }
  const KernelCreateInfo* info = nullptr;
  std::string own_reason;
  if (registry_ == nullptr)
    own_reason = "the EP has no kernel registry";
  else
    info = registry_->Find(node, &own_reason);
  // A custom op of this type that does not fit the node says more than "no kernel".
  if (info == nullptr && reason != nullptr)
    *reason = custom_reason.empty() ? own_reason : custom_reason;
  return info;
}

bool KernelLookup::FindsCustomOp(const Node& node) const {
  return custom_ops_ != nullptr && custom_ops_->Find(node, provider_, nullptr) != nullptr;
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

void IExecutionProvider::BeginGraphCapture() const {
  PRISM_THROW(kNotImplemented, type_, " does not capture graphs");
}
void IExecutionProvider::EndGraphCapture(bool) const {
  PRISM_THROW(kNotImplemented, type_, " does not capture graphs");
}
void IExecutionProvider::ReplayGraph() const {
  PRISM_THROW(kNotImplemented, type_, " does not capture graphs");
}
void IExecutionProvider::ReserveCapturedMemory() const {
  PRISM_THROW(kNotImplemented, type_, " does not capture graphs");
}

}  // namespace prism
