// Phase "fuse": every group of nodes an EP claimed with a MetaDef becomes one node of op type
// meta_def.name whose FusedBody() holds the group, assigned to that EP. Runs on the session's own
// copy of the graph, after partitioning and the EP-specific transforms.
#pragma once

#include "graph/graph.h"
#include "session/graph_partitioner.h"
#include "session/partition_report.h"

namespace prism {

// The fused nodes made, with the MetaDef each was made from.
struct FusedNode {
  const Graph* graph = nullptr;
  NodeIndex node = 0;
  const IExecutionProvider* provider = nullptr;
  MetaDef meta_def;
};

// Throws kEpFail naming the EP and group when a claim cannot be fused as stated: values the group
// reads or feeds outward that its MetaDef does not list, names that are not values of the graph,
// nodes with subgraphs, or a group whose fusing would make a cycle (it is not convex).
std::vector<FusedNode> FuseClaimedGroups(Graph& main, Assignment& assignment,
                                         PartitionReport& report);

}  // namespace prism
