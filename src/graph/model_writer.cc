#include "graph/model_writer.h"

#include <fstream>
#include <set>

#include <onnx/onnx_pb.h>

#include "graph/tensor_proto.h"

#ifndef PRISM_VERSION_STRING
#define PRISM_VERSION_STRING "unknown"
#endif

namespace prism {
namespace {

void ShapeToProto(const SymbolicShape& shape, onnx::TensorShapeProto* proto) {
  for (const Dim& dim : shape.dims) {
    auto* out = proto->add_dim();
    if (dim.IsKnown())
      out->set_dim_value(dim.value);
    else if (!dim.param.empty())
      out->set_dim_param(dim.param);
  }
}

// map(K, tensor(V)) of a map or seq(map) type.
void MapToProto(const ValueType& type, onnx::TypeProto* proto) {
  onnx::TypeProto_Map* map = proto->mutable_map_type();
  if (type.key != ElementType::kUndefined) map->set_key_type(static_cast<int32_t>(type.key));
  onnx::TypeProto_Tensor* value = map->mutable_value_type()->mutable_tensor_type();
  if (type.elem != ElementType::kUndefined) value->set_elem_type(static_cast<int32_t>(type.elem));
}

// False when the type is unknown (nothing worth writing).
bool TypeToProto(const NodeArg& arg, onnx::TypeProto* proto) {
  const ValueType& type = arg.type;
  auto tensor_into = [&](onnx::TypeProto_Tensor* tensor, bool with_shape) {
    if (type.elem != ElementType::kUndefined)
      tensor->set_elem_type(static_cast<int32_t>(type.elem));
    if (with_shape && arg.shape) ShapeToProto(*arg.shape, tensor->mutable_shape());
  };
  switch (type.kind) {
    case TypeKind::kTensor:
      tensor_into(proto->mutable_tensor_type(), true);
      return true;
    case TypeKind::kSequence:
      if (type.inner == TypeKind::kMap) {
        MapToProto(type, proto->mutable_sequence_type()->mutable_elem_type());
        return true;
      }
      tensor_into(proto->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type(),
                  false);
      return true;
    case TypeKind::kMap:
      MapToProto(type, proto);
      return true;
    case TypeKind::kOptional: {
      onnx::TypeProto* inner = proto->mutable_optional_type()->mutable_elem_type();
      if (type.key != ElementType::kUndefined) {  // optional(map(...)), optional(seq(map(...)))
        MapToProto(type, type.inner == TypeKind::kSequence
                             ? inner->mutable_sequence_type()->mutable_elem_type()
                             : inner);
        return true;
      }
      if (type.inner == TypeKind::kSequence)
        tensor_into(inner->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type(),
                    false);
      else
        tensor_into(inner->mutable_tensor_type(), false);
      return true;
    }
    case TypeKind::kSparseTensor:
      if (type.elem != ElementType::kUndefined)
        proto->mutable_sparse_tensor_type()->set_elem_type(static_cast<int32_t>(type.elem));
      return true;
    default:
      return false;
  }
}

void ValueInfoToProto(const NodeArg& arg, onnx::ValueInfoProto* proto) {
  proto->set_name(arg.name);
  TypeToProto(arg, proto->mutable_type());
}

class GraphWriter {
 public:
  explicit GraphWriter(std::set<std::string>& domains) : domains_(domains) {}

  void Write(const Graph& graph, onnx::GraphProto* proto) {
    proto->set_name(graph.Name());
    for (const auto& [name, tensor] : graph.Initializers()) {
      PRISM_ENFORCE(tensor.Location().IsCpuAccessible(), kNotImplemented, "initializer '", name,
                    "' is not in CPU memory and cannot be written");
      TensorToProto(tensor, name, proto->add_initializer());
    }
    std::set<const NodeArg*> declared;
    for (const NodeArg* input : graph.Inputs()) {
      ValueInfoToProto(*input, proto->add_input());
      declared.insert(input);
    }
    for (const NodeArg* output : graph.Outputs()) {
      ValueInfoToProto(*output, proto->add_output());
      declared.insert(output);
    }
    for (NodeIndex index : graph.TopologicalOrder()) {
      const Node& node = graph.GetNode(index);
      WriteNode(graph, node, proto->add_node());
      for (const NodeArg* output : node.Outputs()) {
        if (output == nullptr || declared.count(output)) continue;
        onnx::ValueInfoProto info;
        info.set_name(output->name);
        if (TypeToProto(*output, info.mutable_type())) *proto->add_value_info() = std::move(info);
      }
    }
  }

 private:
  void WriteNode(const Graph& graph, const Node& node, onnx::NodeProto* proto) {
    PRISM_ENFORCE(node.FusedBody() == nullptr, kNotImplemented, node.Describe(), " in graph '",
                  graph.Name(), "' is a fused node compiled by an EP; it cannot be saved");
    proto->set_name(node.Name());
    proto->set_op_type(node.OpType());
    if (!node.Domain().empty()) proto->set_domain(node.Domain());
    domains_.insert(node.Domain());
    for (const NodeArg* input : node.Inputs()) proto->add_input(input ? input->name : "");
    for (const NodeArg* output : node.Outputs()) proto->add_output(output ? output->name : "");
    for (const auto& [name, attribute] : node.Attributes())
      WriteAttribute(node, attribute, proto->add_attribute());
  }

  void WriteAttribute(const Node& node, const Attribute& attribute, onnx::AttributeProto* proto) {
    proto->set_name(attribute.name);
    switch (attribute.type) {
      case AttributeType::kFloat:
        proto->set_type(onnx::AttributeProto::FLOAT);
        proto->set_f(attribute.f);
        return;
      case AttributeType::kInt:
        proto->set_type(onnx::AttributeProto::INT);
        proto->set_i(attribute.i);
        return;
      case AttributeType::kString:
        proto->set_type(onnx::AttributeProto::STRING);
        proto->set_s(attribute.s);
        return;
      case AttributeType::kFloats:
        proto->set_type(onnx::AttributeProto::FLOATS);
        for (float f : attribute.floats) proto->add_floats(f);
        return;
      case AttributeType::kInts:
        proto->set_type(onnx::AttributeProto::INTS);
        for (int64_t i : attribute.ints) proto->add_ints(i);
        return;
      case AttributeType::kStrings:
        proto->set_type(onnx::AttributeProto::STRINGS);
        for (const std::string& s : attribute.strings) proto->add_strings(s);
        return;
      case AttributeType::kTensor:
        proto->set_type(onnx::AttributeProto::TENSOR);
        TensorToProto(*attribute.tensor, "", proto->mutable_t());
        return;
      case AttributeType::kGraph:
        proto->set_type(onnx::AttributeProto::GRAPH);
        Write(*attribute.graphs.at(0), proto->mutable_g());
        return;
      case AttributeType::kGraphs:
        proto->set_type(onnx::AttributeProto::GRAPHS);
        for (const auto& graph : attribute.graphs) Write(*graph, proto->add_graphs());
        return;
      case AttributeType::kTypeProto: {
        proto->set_type(onnx::AttributeProto::TYPE_PROTO);
        NodeArg typed;
        typed.type = attribute.type_proto;
        TypeToProto(typed, proto->mutable_tp());
        return;
      }
      default:
        PRISM_THROW(kNotImplemented, node.Describe(), " attribute '", attribute.name, "' of type ",
                    AttributeTypeName(attribute.type),
                    " was kept by type only at load and cannot be written back");
    }
  }

  std::set<std::string>& domains_;
};

}  // namespace

void ModelToProto(const Model& model, const Graph& graph, onnx::ModelProto* proto) {
  const ModelMetadata& meta = model.Metadata();
  proto->set_ir_version(model.IrVersion());
  proto->set_producer_name("prism");
  proto->set_producer_version(PRISM_VERSION_STRING);
  if (!meta.domain.empty()) proto->set_domain(meta.domain);
  proto->set_model_version(meta.version);
  if (!meta.description.empty()) proto->set_doc_string(meta.description);
  for (const auto& [key, value] : meta.custom_metadata) {
    auto* entry = proto->add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  std::set<std::string> domains;
  GraphWriter(domains).Write(graph, proto->mutable_graph());
  if (!meta.graph_description.empty())
    proto->mutable_graph()->set_doc_string(meta.graph_description);
  // The model's imports, plus version 1 of any domain a rewrite introduced (com.microsoft,
  // com.prism).
  for (const auto& [domain, version] : model.OpsetImports()) {
    auto* import = proto->add_opset_import();
    import->set_domain(domain);
    import->set_version(version);
    domains.erase(domain);
  }
  for (const std::string& domain : domains) {
    auto* import = proto->add_opset_import();
    import->set_domain(domain);
    import->set_version(1);
  }
}

void SaveModel(const Model& model, const Graph& graph, const std::string& path) {
  onnx::ModelProto proto;
  ModelToProto(model, graph, &proto);
  const size_t bytes = proto.ByteSizeLong();
  PRISM_ENFORCE(bytes < (size_t{1} << 31), kNotImplemented, "the optimized model is ", bytes,
                " bytes, over protobuf's 2 GiB limit; writing external data is not supported yet");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  PRISM_ENFORCE(file.is_open(), kFail, "cannot write the optimized model to '", path, "'");
  PRISM_ENFORCE(proto.SerializeToOstream(&file) && file.flush(), kFail,
                "cannot write the optimized model to '", path, "'");
}

}  // namespace prism
