#include "graph/graph_builder.h"

#include <algorithm>
#include <limits>

#include <onnx/onnx_pb.h>

#include "graph/model.h"
#include "graph/model_adjustments.h"
#include "graph/sparse_tensor.h"

namespace prism {
namespace {

ElementType CheckedElementType(int32_t value, const std::string& what) {
  PRISM_ENFORCE(IsKnownElementType(value), kInvalidGraph, what, " has unknown element type ",
                value);
  return static_cast<ElementType>(value);
}

// A declared shape. Absurd ones are refused here, so that inference and the kernels never see
// them: a rank over kMaxTensorRank, or known dims whose element count overflows int64.
std::optional<SymbolicShape> ShapeFromProto(const onnx::TypeProto& proto, const std::string& what) {
  if (!proto.has_tensor_type() || !proto.tensor_type().has_shape()) return std::nullopt;
  const auto& declared = proto.tensor_type().shape();
  PRISM_ENFORCE(static_cast<size_t>(declared.dim_size()) <= kMaxTensorRank, kInvalidGraph, what,
                " declares rank ", declared.dim_size(), ", more than the maximum rank ",
                kMaxTensorRank);
  SymbolicShape shape;
  int64_t count = 1;
  bool overflows = false;
  for (const auto& d : declared.dim()) {
    Dim dim;
    if (d.has_dim_value() && d.dim_value() >= 0) {
      dim.value = d.dim_value();
      if (dim.value == 0) count = 0;
      if (count != 0 && dim.value > std::numeric_limits<int64_t>::max() / count) overflows = true;
      if (count != 0 && !overflows) count *= dim.value;
    } else if (d.has_dim_param()) {
      dim.param = d.dim_param();
    }
    shape.dims.push_back(dim);
  }
  PRISM_ENFORCE(count == 0 || !overflows, kInvalidGraph, what, " declares shape ", shape.ToString(),
                ", whose element count overflows int64");
  return shape;
}

}  // namespace

ValueType ValueTypeFromProto(const onnx::TypeProto& proto, const std::string& what) {
  ValueType type;
  if (proto.has_tensor_type()) {
    type.kind = TypeKind::kTensor;
    if (proto.tensor_type().elem_type() != 0)
      type.elem = CheckedElementType(proto.tensor_type().elem_type(), what);
  } else if (proto.has_sparse_tensor_type()) {
    type.kind = TypeKind::kSparseTensor;
    if (proto.sparse_tensor_type().elem_type() != 0)
      type.elem = CheckedElementType(proto.sparse_tensor_type().elem_type(), what);
  } else if (proto.has_sequence_type()) {
    type.kind = TypeKind::kSequence;
    if (proto.sequence_type().has_elem_type()) {
      const ValueType inner = ValueTypeFromProto(proto.sequence_type().elem_type(), what);
      type.elem = inner.elem;
      if (inner.IsMap()) {  // seq(map(K, V))
        type.inner = TypeKind::kMap;
        type.key = inner.key;
      }
    }
  } else if (proto.has_optional_type()) {
    type.kind = TypeKind::kOptional;
    if (proto.optional_type().has_elem_type()) {
      const ValueType inner = ValueTypeFromProto(proto.optional_type().elem_type(), what);
      type.inner = inner.kind;
      type.elem = inner.elem;
      type.key = inner.key;  // optional(map(K, V)) or optional(seq(map(K, V))): no op takes them
    }
  } else if (proto.has_map_type()) {
    // map(K, tensor(V)); a value of another kind leaves V unknown (no kernel takes such maps).
    type.kind = TypeKind::kMap;
    if (proto.map_type().key_type() != 0)
      type.key = CheckedElementType(proto.map_type().key_type(), what);
    if (proto.map_type().has_value_type() && proto.map_type().value_type().has_tensor_type()) {
      const ValueType value = ValueTypeFromProto(proto.map_type().value_type(), what);
      type.elem = value.elem;
    }
  } else if (proto.has_opaque_type()) {
    // No kernel or feed can carry one: refused here rather than left an untyped value that
    // any feed would match.
    PRISM_THROW(kNotImplemented, what, " has the opaque type ", proto.opaque_type().domain(),
                proto.opaque_type().domain().empty() ? "" : ".", proto.opaque_type().name(),
                ", which Prism does not support");
  }
  return type;
}

NodeArg* GraphBuilder::GetOrCreateArg(Graph& graph, const std::string& name) {
  auto& slot = graph.node_args_[name];
  if (!slot) {
    slot = std::make_unique<NodeArg>();
    slot->name = name;
  }
  return slot.get();
}

// A local value, or one from an enclosing graph (recorded as outer scope).
NodeArg* GraphBuilder::Resolve(Graph& graph, const std::string& name, bool* outer) {
  *outer = false;
  auto it = graph.node_args_.find(name);
  if (it != graph.node_args_.end()) return it->second.get();
  for (const Graph* g = graph.parent_; g != nullptr; g = g->parent_) {
    auto found = g->node_args_.find(name);
    if (found != g->node_args_.end()) {
      *outer = true;
      return found->second.get();
    }
  }
  return nullptr;
}

std::unique_ptr<Graph> GraphBuilder::Build(const onnx::GraphProto& proto, const Graph* parent,
                                           const std::string& path) {
  auto graph = std::make_unique<Graph>();
  graph->name_ = proto.name();
  graph->model_ = &model_;
  graph->parent_ = parent;
  PRISM_ENFORCE(graph->Depth() <= kMaxSubgraphDepth, kInvalidGraph, "graph ", path,
                " is nested deeper than ", kMaxSubgraphDepth, " levels");

  // Initializers first: a graph input of the same name makes it overridable.
  for (const auto& init : proto.initializer()) {
    const std::string what = MakeString("initializer '", init.name(), "' of graph ", path);
    PRISM_ENFORCE(!init.name().empty(), kInvalidGraph, "graph ", path,
                  " has an unnamed initializer");
    PRISM_ENFORCE(graph->initializers_.count(init.name()) == 0, kInvalidGraph, "graph ", path,
                  " has two initializers named '", init.name(), "'");
    // The application's own tensor, when it supplies one (its memory, used as is).
    const Tensor* supplied = parent == nullptr && adjustments_ != nullptr
                                 ? FindSuppliedInitializer(*adjustments_, init.name())
                                 : nullptr;
    // The loader's proto is its own, parsed for this build and discarded after it: taking the
    // bytes over (the one const_cast of the loader) keeps a model's weights in memory once.
    std::string* raw = take_initializer_bytes_ && init.has_raw_data()
                           ? const_cast<onnx::TensorProto&>(init).mutable_raw_data()
                           : nullptr;
    Tensor tensor = supplied != nullptr ? *supplied : TensorFromProto(init, policy_, what, raw);
    NodeArg* arg = GetOrCreateArg(*graph, init.name());
    arg->type = ValueType::Tensor(tensor.Type());
    SymbolicShape shape;
    for (int64_t d : tensor.Shape().Dims()) shape.dims.push_back(Dim{d, ""});
    arg->shape = shape;
    graph->initializers_.emplace(init.name(), std::move(tensor));
  }
  for (const auto& sparse : proto.sparse_initializer()) {  // densified once, at load
    const std::string& name = sparse.values().name();
    const std::string what = MakeString("sparse initializer '", name, "' of graph ", path);
    PRISM_ENFORCE(!name.empty(), kInvalidGraph, "graph ", path,
                  " has an unnamed sparse initializer");
    PRISM_ENFORCE(graph->initializers_.count(name) == 0, kInvalidGraph, "graph ", path,
                  " has two initializers named '", name, "'");
    Tensor tensor = DensifySparseTensor(sparse, policy_, what);
    NodeArg* arg = GetOrCreateArg(*graph, name);
    arg->type = ValueType::Tensor(tensor.Type());
    SymbolicShape shape;
    for (int64_t d : tensor.Shape().Dims()) shape.dims.push_back(Dim{d, ""});
    arg->shape = shape;
    graph->initializers_.emplace(name, std::move(tensor));
  }

  std::unordered_set<std::string> input_names;
  for (const auto& input : proto.input()) {
    PRISM_ENFORCE(!input.name().empty(), kInvalidGraph, "graph ", path, " has an unnamed input");
    PRISM_ENFORCE(input_names.insert(input.name()).second, kInvalidGraph, "graph ", path,
                  " declares input '", input.name(), "' twice");
    NodeArg* arg = GetOrCreateArg(*graph, input.name());
    const ValueType declared =
        ValueTypeFromProto(input.type(), MakeString("input '", input.name(), "' of graph ", path));
    const bool is_initializer = graph->initializers_.count(input.name()) > 0;
    if (is_initializer) {
      PRISM_ENFORCE(declared.kind == TypeKind::kUnknown ||
                        declared.elem == ElementType::kUndefined || declared == arg->type,
                    kInvalidGraph, "graph ", path, " input '", input.name(), "' is declared ",
                    declared.ToString(), " but its initializer is ", arg->type.ToString());
      graph->overridable_.push_back(arg);
    } else {
      arg->type = declared;
      arg->shape =
          ShapeFromProto(input.type(), MakeString("input '", input.name(), "' of graph ", path));
      graph->required_inputs_.push_back(arg);
    }
    graph->inputs_.push_back(arg);
  }

  // Register every node output before resolving inputs: models need not be sorted, and
  // subgraphs may read any value of this graph.
  for (int n = 0; n < proto.node_size(); ++n) {
    for (const std::string& name : proto.node(n).output()) {
      if (name.empty()) continue;
      PRISM_ENFORCE(graph->node_args_.count(name) == 0, kInvalidGraph, "graph ", path, ": value '",
                    name, "' is produced by node '", proto.node(n).name(),
                    "' but is already a graph input, initializer or another node's output");
      GetOrCreateArg(*graph, name);
      graph->producers_[name] = static_cast<NodeIndex>(n);
    }
  }
  for (int n = 0; n < proto.node_size(); ++n)
    AddNode(*graph, proto.node(n), static_cast<size_t>(n), path);

  for (const auto& info : proto.value_info()) {
    auto it = graph->node_args_.find(info.name());
    if (it == graph->node_args_.end()) continue;
    NodeArg* arg = it->second.get();
    if (arg->type.kind == TypeKind::kUnknown)
      arg->type = ValueTypeFromProto(info.type(), MakeString("value_info '", info.name(), "'"));
    if (!arg->shape)
      arg->shape =
          ShapeFromProto(info.type(), MakeString("value_info '", info.name(), "' of graph ", path));
  }

  for (const auto& output : proto.output()) {
    bool outer = false;
    NodeArg* arg = Resolve(*graph, output.name(), &outer);
    PRISM_ENFORCE(arg != nullptr, kInvalidGraph, "graph ", path, " output '", output.name(),
                  "' is not produced by any node, graph input or initializer");
    if (outer && std::find(graph->outer_scope_values_.begin(), graph->outer_scope_values_.end(),
                           output.name()) == graph->outer_scope_values_.end())
      graph->outer_scope_values_.push_back(output.name());
    const ValueType declared = ValueTypeFromProto(
        output.type(), MakeString("output '", output.name(), "' of graph ", path));
    if (arg->type.kind == TypeKind::kUnknown) arg->type = declared;
    if (!outer && !arg->shape)
      arg->shape =
          ShapeFromProto(output.type(), MakeString("output '", output.name(), "' of graph ", path));
    graph->outputs_.push_back(arg);
  }

  graph->SortTopologically(path);
  return graph;
}

void GraphBuilder::AddNode(Graph& graph, const onnx::NodeProto& proto, size_t index,
                           const std::string& path) {
  auto node = std::make_unique<Node>();
  node->index_ = index;
  node->name_ = proto.name();
  node->op_type_ = proto.op_type();
  node->domain_ = CanonicalDomain(proto.domain());
  node->graph_ = &graph;
  PRISM_ENFORCE(!proto.op_type().empty(), kInvalidGraph, "graph ", path, ": node ", index, " ('",
                proto.name(), "') has no op_type");
  if (node->name_.empty()) node->name_ = MakeString(proto.op_type(), "_", index);
  auto opset = model_.OpsetImports().find(node->domain_);
  PRISM_ENFORCE(opset != model_.OpsetImports().end(), kInvalidGraph, node->Describe(), " in graph ",
                path, " uses domain '", proto.domain(),
                "', which the model does not import (no opset_import entry)");
  node->opset_version_ = opset->second;

  for (const std::string& name : proto.input()) {
    if (name.empty()) {
      node->inputs_.push_back(nullptr);
      continue;
    }
    bool outer = false;
    NodeArg* arg = Resolve(graph, name, &outer);
    PRISM_ENFORCE(arg != nullptr, kInvalidGraph, node->Describe(), " in graph ", path, ": input '",
                  name, "' is not produced by any node, graph input, initializer or outer scope");
    if (outer && std::find(graph.outer_scope_values_.begin(), graph.outer_scope_values_.end(),
                           name) == graph.outer_scope_values_.end())
      graph.outer_scope_values_.push_back(name);
    node->inputs_.push_back(arg);
    graph.consumers_[name].push_back(index);
  }
  for (const std::string& name : proto.output())
    node->outputs_.push_back(name.empty() ? nullptr : graph.node_args_.at(name).get());

  for (const auto& attribute : proto.attribute()) ConvertAttribute(graph, *node, attribute, path);

  // Values the subgraphs read from this graph or above become implicit inputs.
  for (const Graph* sub : node->Subgraphs()) {
    for (const std::string& name : sub->OuterScopeValues()) {
      bool outer = false;
      NodeArg* arg = Resolve(graph, name, &outer);
      PRISM_ENFORCE(arg != nullptr, kInvalidGraph, node->Describe(), ": subgraph reads '", name,
                    "', which no enclosing graph defines");
      if (std::find(node->implicit_inputs_.begin(), node->implicit_inputs_.end(), arg) ==
          node->implicit_inputs_.end()) {
        node->implicit_inputs_.push_back(arg);
        graph.consumers_[name].push_back(index);
      }
      if (outer && std::find(graph.outer_scope_values_.begin(), graph.outer_scope_values_.end(),
                             name) == graph.outer_scope_values_.end())
        graph.outer_scope_values_.push_back(name);
    }
  }
  graph.nodes_.push_back(std::move(node));
}

void GraphBuilder::ConvertAttribute(Graph& graph, Node& node, const onnx::AttributeProto& proto,
                                    const std::string& path) {
  Attribute attribute;
  attribute.name = proto.name();
  const std::string what = MakeString(node.Describe(), " attribute '", proto.name(), "'");
  PRISM_ENFORCE(!proto.name().empty(), kInvalidGraph, node.Describe(), " has an unnamed attribute");
  PRISM_ENFORCE(node.attributes_.count(proto.name()) == 0, kInvalidGraph, node.Describe(),
                " has attribute '", proto.name(), "' twice");
  PRISM_ENFORCE(proto.ref_attr_name().empty(), kInvalidGraph, what,
                " refers to a function attribute outside a function");
  attribute.type = static_cast<AttributeType>(proto.type());
  switch (proto.type()) {
    case onnx::AttributeProto::FLOAT:
      attribute.f = proto.f();
      break;
    case onnx::AttributeProto::INT:
      attribute.i = proto.i();
      break;
    case onnx::AttributeProto::STRING:
      attribute.s = proto.s();
      break;
    case onnx::AttributeProto::FLOATS:
      attribute.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      attribute.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      attribute.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    case onnx::AttributeProto::TENSOR:
      attribute.tensor = std::make_shared<Tensor>(TensorFromProto(proto.t(), policy_, what));
      break;
    case onnx::AttributeProto::GRAPH:
      attribute.graphs.push_back(
          Build(proto.g(), &graph, MakeString(path, "/", node.Name(), ":", proto.name())));
      break;
    case onnx::AttributeProto::GRAPHS:
      for (int i = 0; i < proto.graphs_size(); ++i)
        attribute.graphs.push_back(Build(proto.graphs(i), &graph,
                                         MakeString(path, "/", node.Name(), ":", proto.name(), i)));
      break;
    case onnx::AttributeProto::SPARSE_TENSOR:
      // Densified: Constant's sparse_value becomes its dense 'value'.
      attribute.tensor =
          std::make_shared<Tensor>(DensifySparseTensor(proto.sparse_tensor(), policy_, what));
      if (node.OpType() == "Constant" && proto.name() == "sparse_value") {
        attribute.name = "value";
        attribute.type = AttributeType::kTensor;
      }
      break;
    case onnx::AttributeProto::TYPE_PROTO:
      attribute.type_proto = ValueTypeFromProto(proto.tp(), what);
      break;
    case onnx::AttributeProto::TENSORS:
    case onnx::AttributeProto::SPARSE_TENSORS:
    case onnx::AttributeProto::TYPE_PROTOS:
      break;  // kept by type only; kernels that need them report NOT_IMPLEMENTED
    default:
      PRISM_THROW(kInvalidGraph, what, " has no valid type (", proto.type(), ")");
  }
  const std::string key = attribute.name;
  PRISM_ENFORCE(node.attributes_.count(key) == 0, kInvalidGraph, node.Describe(),
                " has attribute '", key, "' twice");
  node.attributes_.emplace(key, std::move(attribute));
}

}  // namespace prism
