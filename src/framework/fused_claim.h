// The claim of a group of nodes an EP compiles into one fused node: the MetaDef's inputs (values
// the group reads from outside it, in first-use order, constant initializers marked), its outputs
// (values it produces that a node outside the group or the graph's outputs read). Every fusing EP
// builds its claims this way.
#pragma once

#include <string>
#include <vector>

#include "framework/execution_provider.h"

namespace prism {

// nodes: the group, in topological order; name: unique per session; domain: the EP's own.
ComputeCapability MakeFusedClaim(const Graph& graph, std::vector<NodeIndex> nodes, std::string name,
                                 std::string domain);

}  // namespace prism
