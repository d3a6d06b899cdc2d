#include "graph/graph.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_set>

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

const Node& Graph::GetNode(NodeIndex index) const {
  const Node* node = FindNode(index);
  PRISM_ENFORCE(node != nullptr, kInvalidArgument, "graph '", name_, "' has no node ", index,
                " (removed or out of range)");
  return *node;
}

const Node* Graph::FindNode(NodeIndex index) const {
  return index < nodes_.size() ? nodes_[index].get() : nullptr;
}

NodeArg* Graph::MutableNodeArg(const std::string& name) {
  auto it = node_args_.find(name);
  return it == node_args_.end() ? nullptr : it->second.get();
}

bool Graph::IsLocal(const NodeArg* arg) const {
  if (arg == nullptr) return false;
  auto it = node_args_.find(arg->name);
  return it != node_args_.end() && it->second.get() == arg;
}

bool Graph::IsOutput(const NodeArg* arg) const {
  return std::find(outputs_.begin(), outputs_.end(), arg) != outputs_.end();
}

std::unique_ptr<Graph> Graph::MakeEmpty(const Model& model, const std::string& name) {
  auto graph = std::make_unique<Graph>();
  graph->model_ = &model;
  graph->name_ = name;
  return graph;
}

std::unique_ptr<Graph> Graph::Clone() const {
  PRISM_ENFORCE(parent_ == nullptr, kInvalidArgument, "Clone copies main graphs; '", name_,
                "' is a subgraph");
  std::unordered_map<const NodeArg*, NodeArg*> mapping;
  return CloneWithin(nullptr, mapping);
}

std::unique_ptr<Graph> Graph::CloneWithin(
    const Graph* new_parent, std::unordered_map<const NodeArg*, NodeArg*>& mapping) const {
  auto copy = std::make_unique<Graph>();
  copy->name_ = name_;
  copy->model_ = model_;
  copy->parent_ = new_parent;
  for (const auto& [name, arg] : node_args_) {
    auto cloned = std::make_unique<NodeArg>(*arg);
    mapping[arg.get()] = cloned.get();
    copy->node_args_.emplace(name, std::move(cloned));
  }
  // Outer-scope reads map through the enclosing graphs' entries, added before this one's.
  auto map = [&mapping](const NodeArg* arg) -> NodeArg* {
    return arg == nullptr ? nullptr : mapping.at(arg);
  };
  auto map_all = [&map](const std::vector<NodeArg*>& args) {
    std::vector<NodeArg*> mapped;
    mapped.reserve(args.size());
    for (const NodeArg* arg : args) mapped.push_back(map(arg));
    return mapped;
  };
  copy->inputs_ = map_all(inputs_);
  copy->required_inputs_ = map_all(required_inputs_);
  copy->overridable_ = map_all(overridable_);
  copy->outputs_ = map_all(outputs_);
  copy->initializers_ = initializers_;  // Tensor copies share their buffers
  copy->topological_order_ = topological_order_;
  copy->producers_ = producers_;
  copy->consumers_ = consumers_;
  copy->outer_scope_values_ = outer_scope_values_;
  for (const auto& node : nodes_) {
    if (!node) {
      copy->nodes_.emplace_back();
      continue;
    }
    auto cloned = std::make_unique<Node>();
    cloned->index_ = node->index_;
    cloned->name_ = node->name_;
    cloned->op_type_ = node->op_type_;
    cloned->domain_ = node->domain_;
    cloned->opset_version_ = node->opset_version_;
    cloned->graph_ = copy.get();
    cloned->inputs_ = map_all(node->inputs_);
    cloned->outputs_ = map_all(node->outputs_);
    cloned->implicit_inputs_ = map_all(node->implicit_inputs_);
    for (const auto& [name, attribute] : node->attributes_) {
      Attribute copied = attribute;
      for (auto& sub : copied.graphs) sub = sub->CloneWithin(copy.get(), mapping);
      cloned->attributes_.emplace(name, std::move(copied));
    }
    if (node->fused_body_) cloned->fused_body_ = node->fused_body_->CloneWithin(nullptr, mapping);
    copy->nodes_.push_back(std::move(cloned));
  }
  return copy;
}

namespace {

bool NameTakenBelow(const Graph& graph, const std::string& name) {
  if (graph.FindNodeArg(name) != nullptr) return true;
  for (const auto& node : graph.Nodes()) {
    if (!node) continue;
    for (const Graph* sub : node->Subgraphs())
      if (NameTakenBelow(*sub, name)) return true;
    if (node->FusedBody() && NameTakenBelow(*node->FusedBody(), name)) return true;
  }
  return false;
}

}  // namespace

std::string Graph::UniqueValueName(const std::string& base) const {
  // ONNX forbids shadowing, so a new name must be free in enclosing graphs and subgraphs too.
  const Graph* root = this;
  while (root->parent_ != nullptr) root = root->parent_;
  if (!NameTakenBelow(*root, base)) return base;
  for (int suffix = 1;; ++suffix) {
    std::string candidate = MakeString(base, "_", suffix);
    if (!NameTakenBelow(*root, candidate)) return candidate;
  }
}

std::string Graph::UniqueNodeName(const std::string& base) const {
  // The common case (base free) without building the set (a QDQ fusion names one node each).
  if (std::none_of(nodes_.begin(), nodes_.end(),
                   [&](const std::unique_ptr<Node>& node) { return node && node->name_ == base; }))
    return base;
  std::set<std::string> taken;
  for (const auto& node : nodes_)
    if (node) taken.insert(node->name_);
  for (int suffix = 1;; ++suffix) {
    std::string candidate = MakeString(base, "_", suffix);
    if (!taken.count(candidate)) return candidate;
  }
}

NodeArg* Graph::GetOrCreateValue(const std::string& name) {
  PRISM_ENFORCE(!name.empty(), kInvalidArgument, "graph '", name_, "': a value needs a name");
  auto& slot = node_args_[name];
  if (!slot) {
    slot = std::make_unique<NodeArg>();
    slot->name = name;
  }
  return slot.get();
}

Node& Graph::AddNode(const std::string& name, const std::string& op_type, const std::string& domain,
                     int opset_version, std::vector<NodeArg*> inputs, std::vector<NodeArg*> outputs,
                     std::map<std::string, Attribute> attributes) {
  for (const NodeArg* output : outputs)
    PRISM_ENFORCE(output == nullptr || IsLocal(output), kInvalidArgument, "new ", op_type,
                  " node '", name, "': output '", output->name, "' is not a value of graph '",
                  name_, "'");
  auto node = std::make_unique<Node>();
  node->index_ = nodes_.size();
  node->name_ = name;
  node->op_type_ = op_type;
  node->domain_ = domain;
  node->opset_version_ = opset_version;
  node->graph_ = this;
  node->inputs_ = std::move(inputs);
  node->outputs_ = std::move(outputs);
  node->attributes_ = std::move(attributes);
  // Subgraphs handed over in attributes now belong to this graph.
  for (auto& [attribute_name, attribute] : node->attributes_)
    for (auto& sub : attribute.graphs) sub->parent_ = this;
  nodes_.push_back(std::move(node));
  return *nodes_.back();
}

void Graph::RemoveNode(NodeIndex index) {
  PRISM_ENFORCE(FindNode(index) != nullptr, kInvalidArgument, "graph '", name_,
                "': cannot remove node ", index, ", which does not exist");
  nodes_[index].reset();
}

void Graph::SetNodeInput(NodeIndex index, size_t input, NodeArg* value) {
  PRISM_ENFORCE(FindNode(index) != nullptr, kInvalidArgument, "graph '", name_,
                "': cannot rewire node ", index, ", which does not exist");
  Node& node = *nodes_[index];
  if (input >= node.inputs_.size()) node.inputs_.resize(input + 1, nullptr);
  node.inputs_[input] = value;
}

void Graph::SetNodeOutput(NodeIndex index, size_t output, NodeArg* value) {
  PRISM_ENFORCE(FindNode(index) != nullptr, kInvalidArgument, "graph '", name_,
                "': cannot rewire node ", index, ", which does not exist");
  PRISM_ENFORCE(value == nullptr || IsLocal(value), kInvalidArgument, "graph '", name_, "': '",
                value->name, "' is not a value of this graph");
  Node& node = *nodes_[index];
  if (output >= node.outputs_.size()) node.outputs_.resize(output + 1, nullptr);
  node.outputs_[output] = value;
}

void Graph::ReplaceReads(const NodeArg* from, NodeArg* to) {
  for (auto& node : nodes_) {
    if (!node) continue;
    for (NodeArg*& arg : node->inputs_)
      if (arg == from) arg = to;
    for (NodeArg*& arg : node->implicit_inputs_)
      if (arg == from) arg = to;
    for (auto& [name, attribute] : node->attributes_)
      for (auto& sub : attribute.graphs) sub->ReplaceReads(from, to);
  }
}

void Graph::ReplaceAllUses(const NodeArg* from, NodeArg* to) {
  PRISM_ENFORCE(!IsOutput(from), kInvalidArgument, "graph '", name_, "': '", from->name,
                "' is a graph output; its name is part of the model's interface");
  ReplaceReads(from, to);
  // A subgraph's outputs may be values of enclosing graphs.
  for (auto& node : nodes_) {
    if (!node) continue;
    for (auto& [name, attribute] : node->attributes_)
      for (auto& sub : attribute.graphs)
        for (NodeArg*& arg : sub->outputs_)
          if (arg == from) arg = to;
  }
}

void Graph::AddInitializer(const std::string& name, Tensor tensor) {
  PRISM_ENFORCE(initializers_.count(name) == 0, kInvalidArgument, "graph '", name_,
                "' already has an initializer named '", name, "'");
  NodeArg* arg = GetOrCreateValue(name);
  arg->type = ValueType::Tensor(tensor.Type());
  SymbolicShape shape;
  for (int64_t d : tensor.Shape().Dims()) shape.dims.push_back(Dim{d, ""});
  arg->shape = shape;
  initializers_.emplace(name, std::move(tensor));
}

void Graph::RemoveInitializer(const std::string& name) {
  for (const NodeArg* arg : overridable_)
    PRISM_ENFORCE(arg->name != name, kInvalidArgument, "graph '", name_, "': initializer '", name,
                  "' is also a graph input and cannot be removed");
  initializers_.erase(name);
}

void Graph::SetFusedBody(NodeIndex index, std::shared_ptr<Graph> body) {
  nodes_.at(index)->fused_body_ = std::move(body);
}

void Graph::SetInputs(std::vector<NodeArg*> inputs) {
  inputs_ = inputs;
  required_inputs_.clear();
  overridable_.clear();
  for (NodeArg* arg : inputs_)
    (initializers_.count(arg->name) ? overridable_ : required_inputs_).push_back(arg);
}

void Graph::SetOutputs(std::vector<NodeArg*> outputs) {
  outputs_ = std::move(outputs);
}

// Records, in first-read order, the values this graph's nodes (and their subgraphs) read from
// enclosing graphs, and the implicit inputs each node gets from its subgraphs.
void Graph::CollectOuterReads() {
  outer_scope_values_.clear();
  std::unordered_set<const NodeArg*> seen;
  auto note_read = [&](const NodeArg* arg) {
    if (arg != nullptr && !IsLocal(arg) && seen.insert(arg).second)
      outer_scope_values_.push_back(arg->name);
  };
  for (NodeIndex index = 0; index < nodes_.size(); ++index) {
    Node* node = nodes_[index].get();
    if (!node) continue;
    node->implicit_inputs_.clear();
    for (auto& [name, attribute] : node->attributes_) {
      for (auto& sub : attribute.graphs) {
        sub->parent_ = this;
        sub->Resolve();
        for (const std::string& outer : sub->outer_scope_values_) {
          NodeArg* arg = nullptr;
          for (Graph* g = this; g != nullptr && arg == nullptr; g = const_cast<Graph*>(g->parent_))
            arg = g->MutableNodeArg(outer);
          PRISM_ENFORCE(arg != nullptr, kInvalidGraph, node->Describe(), ": subgraph reads '",
                        outer, "', which no enclosing graph defines");
          if (std::find(node->implicit_inputs_.begin(), node->implicit_inputs_.end(), arg) ==
              node->implicit_inputs_.end())
            node->implicit_inputs_.push_back(arg);
        }
      }
    }
    for (const NodeArg* arg : node->inputs_) note_read(arg);
    for (const NodeArg* arg : node->implicit_inputs_) note_read(arg);
  }
  for (const NodeArg* arg : outputs_) note_read(arg);
}

Node& Graph::ReplaceNodes(const std::vector<NodeIndex>& removed, const std::string& name,
                          const std::string& op_type, const std::string& domain, int opset_version,
                          std::vector<NodeArg*> inputs, std::vector<NodeArg*> outputs,
                          std::map<std::string, Attribute> attributes) {
  // Implicit inputs and outer reads change only with subgraphs: those take the whole Resolve().
  bool incremental = parent_ == nullptr && !topological_order_.empty();
  for (const auto& [attribute_name, attribute] : attributes)
    incremental = incremental && attribute.graphs.empty();
  for (NodeIndex index : removed) {
    const Node* node = FindNode(index);
    PRISM_ENFORCE(node != nullptr, kInvalidArgument, "graph '", name_, "': cannot remove node ",
                  index, ", which does not exist");
    incremental = incremental && node->implicit_inputs_.empty();
    for (const auto& [attribute_name, attribute] : node->attributes_)
      incremental = incremental && attribute.graphs.empty();
  }
  if (!incremental) {
    for (NodeIndex index : removed) RemoveNode(index);
    const NodeIndex added = AddNode(UniqueNodeName(name), op_type, domain, opset_version,
                                    std::move(inputs), std::move(outputs), std::move(attributes))
                                .Index();
    Resolve();
    return *nodes_[added];
  }
  for (NodeIndex index : removed) {
    const Node& node = *nodes_[index];
    for (const NodeArg* arg : node.inputs_) {
      if (arg == nullptr) continue;
      auto it = consumers_.find(arg->name);
      if (it == consumers_.end()) continue;
      std::erase(it->second, index);
      if (it->second.empty()) consumers_.erase(it);
    }
    for (const NodeArg* arg : node.outputs_) {
      if (arg == nullptr) continue;
      auto it = producers_.find(arg->name);
      if (it != producers_.end() && it->second == index) producers_.erase(it);
    }
    nodes_[index].reset();
  }
  Node& node = AddNode(UniqueNodeName(name), op_type, domain, opset_version, std::move(inputs),
                       std::move(outputs), std::move(attributes));
  for (const NodeArg* arg : node.outputs_) {
    if (arg == nullptr) continue;
    PRISM_ENFORCE(initializers_.count(arg->name) == 0 &&
                      std::find(inputs_.begin(), inputs_.end(), arg) == inputs_.end(),
                  kInvalidGraph, node.Describe(), " writes '", arg->name,
                  "', which is a graph input or initializer");
    const auto [it, fresh] = producers_.emplace(arg->name, node.index_);
    PRISM_ENFORCE(fresh, kInvalidGraph, "value '", arg->name, "' of graph '", name_,
                  "' is produced by both ", nodes_[it->second]->Describe(), " and ",
                  node.Describe());
  }
  for (const NodeArg* arg : node.inputs_) {
    if (arg == nullptr) continue;
    PRISM_ENFORCE(!IsLocal(arg) || producers_.count(arg->name) || initializers_.count(arg->name) ||
                      std::find(inputs_.begin(), inputs_.end(), arg) != inputs_.end(),
                  kInvalidGraph, node.Describe(), " in graph '", name_, "' reads '", arg->name,
                  "', which no node, graph input or initializer provides");
    // The new node has the largest index: appending keeps each list in node order, as Resolve()
    // builds it.
    consumers_[arg->name].push_back(node.index_);
  }
  // Whatever read the removed nodes' values must read the new node's (or a removed node's,
  // which is gone): a read of a value no one produces any more is the caller's error.
  SortTopologically(MakeString("'", name_, "'"));
  return node;
}

void Graph::Resolve() {
  CollectOuterReads();
  producers_.clear();
  consumers_.clear();
  for (const auto& node : nodes_) {
    if (!node) continue;
    for (const NodeArg* arg : node->outputs_) {
      if (arg == nullptr) continue;
      PRISM_ENFORCE(IsLocal(arg), kInvalidGraph, node->Describe(), " writes '", arg->name,
                    "', which is not a value of graph '", name_, "'");
      PRISM_ENFORCE(initializers_.count(arg->name) == 0 &&
                        std::find(inputs_.begin(), inputs_.end(), arg) == inputs_.end(),
                    kInvalidGraph, node->Describe(), " writes '", arg->name,
                    "', which is a graph input or initializer");
      const auto [it, fresh] = producers_.emplace(arg->name, node->index_);
      PRISM_ENFORCE(fresh, kInvalidGraph, "value '", arg->name, "' of graph '", name_,
                    "' is produced by both ", nodes_[it->second]->Describe(), " and ",
                    node->Describe());
    }
  }
  // reader: nullptr for a graph output. Described only on failure: building every reader's
  // description up front was an eighth of a quantized resnet50's session creation (the QDQ
  // fusions resolve the graph after each rewrite).
  auto check_defined = [&](const NodeArg* arg, const Node* reader) {
    if (arg == nullptr || !IsLocal(arg)) return;  // outer reads were checked above
    PRISM_ENFORCE(producers_.count(arg->name) || initializers_.count(arg->name) ||
                      std::find(inputs_.begin(), inputs_.end(), arg) != inputs_.end(),
                  kInvalidGraph, reader != nullptr ? reader->Describe() : "graph output",
                  " in graph '", name_, "' reads '", arg->name,
                  "', which no node, graph input or initializer provides");
  };
  std::unordered_set<const NodeArg*> used(inputs_.begin(), inputs_.end());
  used.insert(outputs_.begin(), outputs_.end());
  for (const auto& node : nodes_) {
    if (!node) continue;
    for (const NodeArg* arg : node->inputs_) {
      check_defined(arg, node.get());
      if (arg) consumers_[arg->name].push_back(node->index_);
      used.insert(arg);
    }
    for (const NodeArg* arg : node->implicit_inputs_) {
      consumers_[arg->name].push_back(node->index_);
      used.insert(arg);
    }
    used.insert(node->outputs_.begin(), node->outputs_.end());
  }
  for (const NodeArg* arg : outputs_) check_defined(arg, nullptr);
  // Values and initializers nothing reads or writes any more (removed nodes' outputs, folded
  // intermediates) go, as onnxruntime's Resolve drops unused initializers.
  for (auto it = node_args_.begin(); it != node_args_.end();) {
    if (!used.count(it->second.get())) {
      initializers_.erase(it->first);
      it = node_args_.erase(it);
    } else {
      ++it;
    }
  }
  SortTopologically(MakeString("'", name_, "'"));
}

void Graph::SortTopologically(const std::string& where) {
  const size_t count = nodes_.size();
  std::vector<size_t> pending(count, 0);
  std::vector<std::vector<NodeIndex>> dependents(count);
  for (const auto& node : nodes_) {
    if (!node) continue;
    auto add_edge = [&](const NodeArg* arg) {
      // Only edges within this graph order it; outer values are ready before it runs.
      if (!IsLocal(arg)) return;
      auto it = producers_.find(arg->name);
      if (it == producers_.end()) return;
      dependents[it->second].push_back(node->index_);
      ++pending[node->index_];
    };
    for (const NodeArg* arg : node->inputs_) add_edge(arg);
    for (const NodeArg* arg : node->implicit_inputs_) add_edge(arg);
  }
  std::deque<NodeIndex> ready;
  size_t live = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!nodes_[i]) continue;
    ++live;
    if (pending[i] == 0) ready.push_back(i);
  }
  topological_order_.clear();
  while (!ready.empty()) {
    const NodeIndex index = ready.front();
    ready.pop_front();
    topological_order_.push_back(index);
    for (NodeIndex next : dependents[index])
      if (--pending[next] == 0) ready.push_back(next);
  }
  if (topological_order_.size() != live) {
    std::string stuck;
    for (size_t i = 0; i < count && stuck.size() < 200; ++i)
      if (nodes_[i] && pending[i] > 0)
        stuck += MakeString(stuck.empty() ? "" : ", ", "'", nodes_[i]->name_, "'");
    PRISM_THROW(kInvalidGraph, "graph ", where, " has a cycle through nodes ", stuck);
  }
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
