// Groups the nodes an EP accepted into connected subgraphs it can compile, each as large as it can
// be without a cycle: contracting every group to one node must leave the graph acyclic (a group
// that both feeds and reads a node left to another EP could never run).
#pragma once

#include <vector>

#include "graph/graph.h"

namespace prism {

// accepted[i]: whether node i of graph (indexed by NodeIndex, NodeCount() slots) is taken.
// Returns the groups, each in topological order; every accepted node is in exactly one.
std::vector<std::vector<NodeIndex>> GroupAcceptedNodes(const Graph& graph,
                                                       const std::vector<bool>& accepted);

}  // namespace prism
