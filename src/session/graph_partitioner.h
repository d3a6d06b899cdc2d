// Phase "partition": asks each EP, in the session's priority order, which of the still unclaimed
// nodes of every graph (subgraphs included) it takes, and records where each node goes and why
// earlier EPs declined it (the partition report). Claims of fused groups (MetaDef) are kept for
// the fuse phase.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/custom_op.h"
#include "framework/execution_provider.h"
#include "graph/graph.h"
#include "session/partition_report.h"

namespace prism {

// A group of nodes one EP claimed to compile as one fused node.
struct FusedClaim {
  const IExecutionProvider* provider = nullptr;
  std::vector<NodeIndex> nodes;
  MetaDef meta_def;
};

// Where the nodes of one graph run.
struct GraphAssignment {
  std::string path;                                    // "main", "main/if_0:then_branch"
  std::vector<const IExecutionProvider*> provider_of;  // by node index; null for removed slots
  std::vector<FusedClaim> fused_claims;
};

using Assignment = std::unordered_map<const Graph*, GraphAssignment>;

struct PartitionSettings {
  // Nodes no listed EP takes are an error instead of falling back to the CPU EP.
  bool disable_cpu_fallback = false;
  // The session's custom ops, offered to their EP before its own kernels (nullptr: none).
  const CustomOpRegistry* custom_ops = nullptr;
};

// Partitions main and, recursively, the subgraphs of its nodes. Throws naming the node, its op,
// opset, input types and every EP's reason when no EP takes a node.
Assignment PartitionGraphs(const Graph& main,
                           const std::vector<std::unique_ptr<IExecutionProvider>>& providers,
                           const PartitionSettings& settings, PartitionReport& report);

}  // namespace prism
