// The graph IR: nodes, values, initializers and subgraphs. Built once by the model loader and
// read-only afterwards, so sessions can share it across threads.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/node.h"

namespace prism {

class Model;

class Graph {
 public:
  const std::string& Name() const { return name_; }
  const Model& OwnerModel() const { return *model_; }
  const Graph* Parent() const { return parent_; }
  int Depth() const { return parent_ ? parent_->Depth() + 1 : 0; }

  size_t NodeCount() const { return nodes_.size(); }
  const Node& GetNode(NodeIndex index) const { return *nodes_.at(index); }
  const std::vector<std::unique_ptr<Node>>& Nodes() const { return nodes_; }
  // Every node, producers before consumers.
  const std::vector<NodeIndex>& TopologicalOrder() const { return topological_order_; }

  // Graph inputs a caller must or may feed. Initializers listed as inputs are "overridable".
  const std::vector<NodeArg*>& Inputs() const { return inputs_; }
  const std::vector<NodeArg*>& RequiredInputs() const { return required_inputs_; }
  const std::vector<NodeArg*>& OverridableInitializers() const { return overridable_; }
  const std::vector<NodeArg*>& Outputs() const { return outputs_; }

  const std::map<std::string, Tensor>& Initializers() const { return initializers_; }
  const Tensor* FindInitializer(const std::string& name) const;
  bool IsConstantInitializer(const std::string& name) const;  // an initializer no feed overrides
  const NodeArg* FindNodeArg(const std::string& name) const;
  const Node* Producer(const std::string& value) const;
  const std::vector<NodeIndex>& Consumers(const std::string& value) const;
  // Values this graph (or its own subgraphs) reads from enclosing graphs.
  const std::vector<std::string>& OuterScopeValues() const { return outer_scope_values_; }

 private:
  friend class GraphBuilder;
  std::string name_;
  const Model* model_ = nullptr;
  const Graph* parent_ = nullptr;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<NodeIndex> topological_order_;
  std::unordered_map<std::string, std::unique_ptr<NodeArg>> node_args_;
  std::vector<NodeArg*> inputs_;
  std::vector<NodeArg*> required_inputs_;
  std::vector<NodeArg*> overridable_;
  std::vector<NodeArg*> outputs_;
  std::map<std::string, Tensor> initializers_;
  std::unordered_map<std::string, NodeIndex> producers_;
  std::unordered_map<std::string, std::vector<NodeIndex>> consumers_;
  std::vector<std::string> outer_scope_values_;
};

// A read-only view of a subset of a graph's nodes, in topological order. EPs see the graph
// through it during partitioning (only the nodes not yet claimed).
class GraphViewer {
 public:
  explicit GraphViewer(const Graph& graph);  // every node
  GraphViewer(const Graph& graph, std::vector<NodeIndex> nodes);

  const Graph& GetGraph() const { return *graph_; }
  const std::vector<NodeIndex>& Nodes() const { return nodes_; }
  const Node& GetNode(NodeIndex index) const { return graph_->GetNode(index); }
  bool Contains(NodeIndex index) const;

 private:
  const Graph* graph_;
  std::vector<NodeIndex> nodes_;
  std::vector<bool> member_;
};

}  // namespace prism
