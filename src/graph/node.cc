#include "graph/node.h"

#include "graph/graph.h"

namespace prism {

const char* AttributeTypeName(AttributeType type) {
  switch (type) {
    case AttributeType::kFloat:
      return "float";
    case AttributeType::kInt:
      return "int";
    case AttributeType::kString:
      return "string";
    case AttributeType::kTensor:
      return "tensor";
    case AttributeType::kGraph:
      return "graph";
    case AttributeType::kSparseTensor:
      return "sparse_tensor";
    case AttributeType::kTypeProto:
      return "type_proto";
    case AttributeType::kFloats:
      return "floats";
    case AttributeType::kInts:
      return "ints";
    case AttributeType::kStrings:
      return "strings";
    case AttributeType::kTensors:
      return "tensors";
    case AttributeType::kGraphs:
      return "graphs";
    case AttributeType::kSparseTensors:
      return "sparse_tensors";
    case AttributeType::kTypeProtos:
      return "type_protos";
    case AttributeType::kUndefined:
      return "undefined";
  }
  return "undefined";
}

std::string SymbolicShape::ToString() const {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ",";
    if (dims[i].IsKnown())
      text += std::to_string(dims[i].value);
    else
      text += dims[i].param.empty() ? "?" : dims[i].param;
  }
  return text + "]";
}

const Attribute* Node::FindAttribute(const std::string& name) const {
  auto it = attributes_.find(name);
  return it == attributes_.end() ? nullptr : &it->second;
}

std::vector<const Graph*> Node::Subgraphs() const {
  std::vector<const Graph*> graphs;
  for (const auto& [name, attribute] : attributes_)
    for (const auto& g : attribute.graphs) graphs.push_back(g.get());
  return graphs;
}

std::vector<Graph*> Node::MutableSubgraphs() {
  std::vector<Graph*> graphs;
  for (auto& [name, attribute] : attributes_)
    for (auto& g : attribute.graphs) graphs.push_back(g.get());
  return graphs;
}

std::string Node::Describe() const {
  return MakeString(op_type_, " node '", name_, "'");
}

}  // namespace prism
