// Removes a node that passes one input through unchanged (Identity, inference Dropout): its
// readers read the input instead, or, when its output is a graph output, the input's producer
// writes that output directly.
#pragma once

#include "graph/graph.h"

namespace prism {

// Returns false (and changes nothing) when the node cannot go: its output is a graph output and
// its input is not the sole, local, non-output product of another node of this graph.
bool BypassNode(Graph& graph, NodeIndex index, size_t input = 0, size_t output = 0);

}  // namespace prism
