// A node of the graph IR and the values (NodeArgs) that connect nodes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/value.h"
#include "graph/attribute.h"

namespace prism {

class Graph;
using NodeIndex = size_t;

// One dim of a graph-level shape: a value, a symbolic name, or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when known
  std::string param;   // symbolic name when value < 0 (may be empty: unknown)
  bool IsKnown() const { return value >= 0; }
};

struct SymbolicShape {
  std::vector<Dim> dims;
  std::string ToString() const;  // "[batch,3,224,224]", unknown dims as "?"
};

// A named value of a graph: a graph input, an initializer, or a node output.
struct NodeArg {
  std::string name;
  ValueType type;
  std::optional<SymbolicShape> shape;  // absent when the rank is unknown
};

class Node {
 public:
  NodeIndex Index() const { return index_; }
  const std::string& Name() const { return name_; }
  const std::string& OpType() const { return op_type_; }
  const std::string& Domain() const { return domain_; }  // "" for ai.onnx
  // The opset version of this node's domain imported by the model.
  int OpsetVersion() const { return opset_version_; }
  const Graph& OwnerGraph() const { return *graph_; }

  // Inputs and outputs; nullptr marks an omitted optional one ("" in the model).
  const std::vector<NodeArg*>& Inputs() const { return inputs_; }
  const std::vector<NodeArg*>& Outputs() const { return outputs_; }
  size_t InputCount() const { return inputs_.size(); }
  size_t OutputCount() const { return outputs_.size(); }
  bool HasInput(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  bool HasOutput(size_t i) const { return i < outputs_.size() && outputs_[i] != nullptr; }
  // Outer-scope values its subgraphs read: they order the node after their producers and keep
  // the values alive until the node has run.
  const std::vector<NodeArg*>& ImplicitInputs() const { return implicit_inputs_; }

  const std::map<std::string, Attribute>& Attributes() const { return attributes_; }
  const Attribute* FindAttribute(const std::string& name) const;
  // Subgraphs (If branches, Loop/Scan bodies), in attribute-name order.
  std::vector<const Graph*> Subgraphs() const;
  std::vector<Graph*> MutableSubgraphs();  // for rewriting a session's own copy
  // A fused node's body: the nodes of the group an EP claimed (nullptr for ordinary nodes). Its
  // inputs and outputs are this node's, in order. It is not a subgraph: nothing plans or runs
  // it except the EP that compiled it.
  const Graph* FusedBody() const { return fused_body_.get(); }
  // "Add node 'add_0'" style description for error messages.
  std::string Describe() const;

 private:
  friend class Graph;
  friend class GraphBuilder;
  NodeIndex index_ = 0;
  std::string name_;
  std::string op_type_;
  std::string domain_;
  int opset_version_ = 0;
  const Graph* graph_ = nullptr;
  std::vector<NodeArg*> inputs_;
  std::vector<NodeArg*> outputs_;
  std::vector<NodeArg*> implicit_inputs_;
  std::map<std::string, Attribute> attributes_;
  std::shared_ptr<Graph> fused_body_;
};

}  // namespace prism
