#include "graph/graph.h"

#include <algorithm>

namespace prism {

const Tensor* Graph::FindInitializer(const std::string& name) const {
  auto it = initializers_.find(name);
  return it == initializers_.end() ? nullptr : &it->second;
}

bool Graph::IsConstantInitializer(const std::string& name) const {
  if (initializers_.count(name) == 0) return false;
  for (const NodeArg* arg : overridable_)
    if (arg->name == name) return false;
  return true;
}

const NodeArg* Graph::FindNodeArg(const std::string& name) const {
  auto it = node_args_.find(name);
  return it == node_args_.end() ? nullptr : it->second.get();
}

const Node* Graph::Producer(const std::string& value) const {
  auto it = producers_.find(value);
  return it == producers_.end() ? nullptr : nodes_[it->second].get();
}

const std::vector<NodeIndex>& Graph::Consumers(const std::string& value) const {
  static const std::vector<NodeIndex> kNone;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNone : it->second;
}

GraphViewer::GraphViewer(const Graph& graph) : GraphViewer(graph, graph.TopologicalOrder()) {}

GraphViewer::GraphViewer(const Graph& graph, std::vector<NodeIndex> nodes)
    : graph_(&graph), member_(graph.NodeCount(), false) {
  for (NodeIndex index : nodes) member_.at(index) = true;
  // Keep the graph's topological order whatever order the caller gave.
  for (NodeIndex index : graph.TopologicalOrder())
    if (member_[index]) nodes_.push_back(index);
}

bool GraphViewer::Contains(NodeIndex index) const {
  return index < member_.size() && member_[index];
}

}  // namespace prism
