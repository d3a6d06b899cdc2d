#include "session/graph_partitioner.h"

#include <map>
#include <set>

namespace prism {
namespace {

std::string DescribeInputTypes(const Node& node) {
  std::string text;
  for (size_t i = 0; i < node.InputCount(); ++i) {
    text += i ? ", " : "";
    text += node.HasInput(i) ? node.Inputs()[i]->type.ToString() : "<omitted>";
  }
  return "(" + text + ")";
}

class Partitioner {
 public:
  Partitioner(const std::vector<std::unique_ptr<IExecutionProvider>>& providers,
              const PartitionSettings& settings, PartitionReport& report)
      : providers_(providers), settings_(settings), report_(report) {}

  void PartitionTree(const Graph& graph, const std::string& path) {
    Partition(graph, path);
    // Subgraphs after their graph, in node order, so the report reads top-down.
    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      for (const auto& [attribute_name, attribute] : node.Attributes())
        for (size_t g = 0; g < attribute.graphs.size(); ++g)
          PartitionTree(
              *attribute.graphs[g],
              MakeString(path, "/", node.Name(), ":", attribute_name,
                         attribute.type == AttributeType::kGraphs ? std::to_string(g) : ""));
    }
  }

  Assignment TakeResult() { return std::move(assignment_); }

 private:
  // For a node of a domain that no EP has kernels for and no custom op domain registers: how to
  // register one. "" otherwise.
  std::string UnknownDomainHint(const std::string& domain) const {
    if (domain.empty()) return "";
    if (settings_.custom_ops != nullptr && settings_.custom_ops->HasDomain(domain)) return "";
    for (const auto& provider : providers_) {
      auto registry = provider->GetKernelRegistry();
      if (registry != nullptr && registry->HasDomain(domain)) return "";
    }
    return MakeString("; domain '", domain,
                      "' is neither built in nor registered as a custom op domain with this "
                      "session (C: AddCustomOpDomain or RegisterCustomOpsLibrary; C++: "
                      "SessionOptions::Add or RegisterCustomOpsLibrary; Python: "
                      "SessionOptions.register_custom_ops_library)");
  }

  void Partition(const Graph& graph, const std::string& path) {
    GraphAssignment& result = assignment_[&graph];
    result.path = path;
    result.provider_of.assign(graph.NodeCount(), nullptr);
    std::vector<std::vector<std::pair<std::string, std::string>>> declined(graph.NodeCount());
    std::vector<NodeIndex> remaining = graph.TopologicalOrder();
    for (const auto& provider : providers_) {
      if (remaining.empty()) break;
      GraphViewer viewer(graph, remaining);
      auto registry = provider->GetKernelRegistry();
      KernelLookup lookup(registry.get(), settings_.custom_ops, provider->Type());
      std::vector<DeclinedNode> refusals;
      std::vector<ComputeCapability> claims;
      try {
        claims = provider->GetCapability(viewer, lookup, &refusals);
      } catch (const Exception& e) {
        PRISM_THROW(kEpFail, provider->Type(), " failed in GetCapability on graph ", path, ": ",
                    e.what());
      }
      std::set<NodeIndex> taken;
      for (ComputeCapability& claim : claims) {
        PRISM_ENFORCE(!claim.nodes.empty(), kEpFail, provider->Type(),
                      " returned a capability with no nodes");
        for (NodeIndex index : claim.nodes) {
          PRISM_ENFORCE(viewer.Contains(index) && result.provider_of[index] == nullptr, kEpFail,
                        provider->Type(), " claimed node ", index,
                        ", which was not offered to it or is already taken");
          result.provider_of[index] = provider.get();
          taken.insert(index);
        }
        if (claim.meta_def)
          result.fused_claims.push_back(
              FusedClaim{provider.get(), claim.nodes, std::move(*claim.meta_def)});
      }
      std::map<NodeIndex, std::string> reasons;
      for (const DeclinedNode& refusal : refusals) reasons[refusal.node] = refusal.reason;
      std::vector<NodeIndex> still;
      for (NodeIndex index : remaining) {
        if (taken.count(index)) continue;
        auto it = reasons.find(index);
        declined[index].emplace_back(provider->Type(), it != reasons.end()
                                                           ? it->second
                                                           : "not claimed by its GetCapability");
        still.push_back(index);
      }
      remaining = std::move(still);
    }
    if (!remaining.empty()) {
      const Node& node = graph.GetNode(remaining.front());
      std::string reasons;
      for (const auto& [provider, reason] : declined[node.Index()])
        reasons += MakeString("; ", provider, ": ", reason);
      PRISM_THROW(kNotImplemented, "no execution provider can run ", node.Describe(), " in graph ",
                  path, " (op ", node.Domain().empty() ? "" : node.Domain() + ".", node.OpType(),
                  ", opset ", node.OpsetVersion(), ", input types ", DescribeInputTypes(node), ")",
                  reasons, UnknownDomainHint(node.Domain()));
    }
    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      const IExecutionProvider* provider = result.provider_of[index];
      if (settings_.disable_cpu_fallback && provider->Type() == kCpuExecutionProvider) {
        std::string reasons;
        for (const auto& [name, reason] : declined[index])
          reasons += MakeString("; ", name, ": ", reason);
        PRISM_THROW(kEpFail, node.Describe(),
                    " would fall back to the CPU EP, and CPU fallback is "
                    "disabled (session.disable_cpu_ep_fallback)",
                    reasons);
      }
      NodePlacement placement;
      placement.graph = path;
      placement.node_name = node.Name();
      placement.op_type = node.OpType();
      placement.domain = node.Domain();
      placement.opset = node.OpsetVersion();
      placement.provider = provider->Type();
      placement.custom_op =
          KernelLookup(nullptr, settings_.custom_ops, provider->Type()).FindsCustomOp(node);
      placement.declined = declined[index];
      for (const NodeArg* arg : node.Inputs())
        if (arg) placement.inputs.push_back(arg->name);
      for (const NodeArg* arg : node.ImplicitInputs()) placement.inputs.push_back(arg->name);
      for (const NodeArg* arg : node.Outputs())
        if (arg) placement.outputs.push_back(arg->name);
      report_.nodes.push_back(std::move(placement));
    }
  }

  const std::vector<std::unique_ptr<IExecutionProvider>>& providers_;
  const PartitionSettings& settings_;
  PartitionReport& report_;
  Assignment assignment_;
};

}  // namespace

Assignment PartitionGraphs(const Graph& main,
                           const std::vector<std::unique_ptr<IExecutionProvider>>& providers,
                           const PartitionSettings& settings, PartitionReport& report) {
  Partitioner partitioner(providers, settings, report);
  partitioner.PartitionTree(main, "main");
  return partitioner.TakeResult();
}

}  // namespace prism
