// The graph IR: nodes, values, initializers and subgraphs. The loader builds one per model and
// never changes it afterwards, so sessions can share it across threads; each session rewrites its
// own Clone() (optimizer passes, fusing claimed groups), whose initializer data stays shared.
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

  // Node indices are stable: a removed node leaves an empty slot, so NodeCount() is the number
  // of slots (the bound for index-keyed tables) and NumberOfNodes() the live nodes.
  size_t NodeCount() const { return nodes_.size(); }
  size_t NumberOfNodes() const { return topological_order_.size(); }
  const Node& GetNode(NodeIndex index) const;
  const Node* FindNode(NodeIndex index) const;  // nullptr for a removed node
  // Slots in index order; a removed node's slot is nullptr.
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
  NodeArg* MutableNodeArg(const std::string& name);  // local values only
  Node* MutableNode(NodeIndex index) {
    return index < nodes_.size() ? nodes_[index].get() : nullptr;
  }

  // ---- Rewriting (a session's own copy only) ----
  // A copy of the structure (nodes, values, subgraphs and fused bodies, recursively) of a main
  // graph; initializer tensors share their buffers with this graph's.
  std::unique_ptr<Graph> Clone() const;
  // A value name not used in this graph or any enclosing one, built from base.
  std::string UniqueValueName(const std::string& base) const;
  std::string UniqueNodeName(const std::string& base) const;
  // The local value of that name, created (type unknown, no shape) when absent.
  NodeArg* GetOrCreateValue(const std::string& name);
  // Appends a node; inputs/outputs may hold nullptr for omitted optional ones. Outputs must be
  // local values no other node produces. Call Resolve() after a batch of edits.
  Node& AddNode(const std::string& name, const std::string& op_type, const std::string& domain,
                int opset_version, std::vector<NodeArg*> inputs, std::vector<NodeArg*> outputs,
                std::map<std::string, Attribute> attributes = {});
  // Drops the node; whatever read its outputs must be rewired before Resolve().
  void RemoveNode(NodeIndex index);
  void SetNodeInput(NodeIndex index, size_t input, NodeArg* value);
  void SetNodeOutput(NodeIndex index, size_t output, NodeArg* value);
  // Every read of `from` (node inputs, graph outputs, reads from inside subgraphs) now reads `to`.
  void ReplaceAllUses(const NodeArg* from, NodeArg* to);
  bool IsOutput(const NodeArg* arg) const;
  void AddInitializer(const std::string& name, Tensor tensor);
  void RemoveInitializer(const std::string& name);
  // Makes a fused node: body holds the group's nodes, its inputs and outputs match the node's.
  void SetFusedBody(NodeIndex index, std::shared_ptr<Graph> body);
  // A fusion's rewrite: removes `removed` (their values read only among them, except what the
  // new node reads or writes) and appends the new node (named `name`, or UniqueNodeName's
  // variant of it when a remaining node has that name), then updates the producers, consumers
  // and topological order for just these nodes instead of a whole Resolve() (a quantized
  // resnet50's QDQ fusions resolved the graph once per fusion: a quarter of its session
  // creation). Values nothing uses any more stay until the next Resolve(). Falls back to
  // Resolve() for a subgraph or nodes with subgraphs. Throws kInvalidGraph, as Resolve() does,
  // when the new node reads a value nothing provides or writes one already produced.
  Node& ReplaceNodes(const std::vector<NodeIndex>& removed, const std::string& name,
                     const std::string& op_type, const std::string& domain, int opset_version,
                     std::vector<NodeArg*> inputs, std::vector<NodeArg*> outputs,
                     std::map<std::string, Attribute> attributes = {});
  // After edits: recomputes producers, consumers, implicit inputs, outer-scope reads and the
  // topological order; drops values nothing uses. Throws kInvalidGraph naming the value or nodes
  // when a read has no producer, a value has two producers, or the edits made a cycle.
  void Resolve();

  // An empty graph for a fused node's body (same model, no parent).
  static std::unique_ptr<Graph> MakeEmpty(const Model& model, const std::string& name);
  // Body construction: declares graph inputs and outputs (values must exist locally).
  void SetInputs(std::vector<NodeArg*> inputs);
  void SetOutputs(std::vector<NodeArg*> outputs);

 private:
  friend class GraphBuilder;
  std::unique_ptr<Graph> CloneWithin(const Graph* new_parent,
                                     std::unordered_map<const NodeArg*, NodeArg*>& mapping) const;
  bool IsLocal(const NodeArg* arg) const;
  void CollectOuterReads();
  void SortTopologically(const std::string& where);
  void ReplaceReads(const NodeArg* from, NodeArg* to);

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
