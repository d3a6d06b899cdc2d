// Small queries and edits the fusion passes share: who reads a value, whether an input is a
// constant, and replacing a chain of nodes by one node that writes the chain's last output.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace prism {

// The only node reading value, when exactly one node reads it (no graph output, no subgraph
// read); nullptr otherwise.
const Node* SoleConsumer(const Graph& graph, const NodeArg* value);

// The constant initializer a node input reads (not overridable by a feed), or nullptr.
const Tensor* ConstantInput(const Graph& graph, const Node& node, size_t input);

// Whether only outputs [0, count) of node are used (the rest absent or read by nothing).
bool OnlyFirstOutputsUsed(const Graph& graph, const Node& node, size_t count);

// Adds a node named node_name that replaces `chain` (in order; the last node's output 0 becomes
// the new node's output 0, keeping its name), removes the chain and resolves the graph. Returns
// the new node.
Node& ReplaceChain(Graph& graph, const std::vector<NodeIndex>& chain, std::string node_name,
                   const std::string& op_type, const std::string& domain, int opset_version,
                   std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes);

// Drops initializers nothing reads any more (after a fusion replaced their readers).
void RemoveUnreadInitializers(Graph& graph, const std::vector<std::string>& names);

}  // namespace prism
