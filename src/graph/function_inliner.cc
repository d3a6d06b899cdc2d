#include "graph/function_inliner.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <google/protobuf/unknown_field_set.h>

#include "common/status.h"

namespace prism {
namespace {

// Fields newer than the onnx 1.12 protobuf Prism builds against (FunctionProto.attribute_proto
// = 11 and overload = 13, NodeProto.overload = 8, IR 9 and 10) parse as unknown fields.
std::vector<std::string> UnknownBytes(const google::protobuf::Message& message, int number) {
  std::vector<std::string> values;
  const google::protobuf::UnknownFieldSet& unknown =
      message.GetReflection()->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.number() == number &&
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      values.push_back(field.length_delimited());
  }
  return values;
}

std::string Overload(const google::protobuf::Message& message, int number) {
  const std::vector<std::string> values = UnknownBytes(message, number);
  return values.empty() ? std::string() : values.back();
}

constexpr int kNodeOverload = 8;
constexpr int kFunctionOverload = 13;
constexpr int kFunctionAttributeProto = 11;

std::string Canonical(const std::string& domain) {
  return domain == "ai.onnx" ? "" : domain;
}

// Functions are found by (domain, name, overload); overload is empty before IR 10.
using FunctionKey = std::tuple<std::string, std::string, std::string>;

class Inliner {
 public:
  explicit Inliner(const onnx::ModelProto& model) {
    for (const auto& opset : model.opset_import())
      model_opsets_[Canonical(opset.domain())] = opset.version();
    for (const auto& function : model.functions()) {
      const FunctionKey key{Canonical(function.domain()), function.name(),
                            Overload(function, kFunctionOverload)};
      PRISM_ENFORCE(functions_.emplace(key, &function).second, kInvalidGraph,
                    "the model defines local function '", function.domain(), ".", function.name(),
                    "' twice");
      for (const auto& opset : function.opset_import()) {
        const std::string domain = Canonical(opset.domain());
        auto it = model_opsets_.find(domain);
        PRISM_ENFORCE(it == model_opsets_.end() || it->second == opset.version(), kInvalidGraph,
                      "local function '", function.name(), "' imports opset ", opset.version(),
                      " of domain '", opset.domain(), "' but the model imports ",
                      it == model_opsets_.end() ? 0 : it->second,
                      "; Prism runs a function body with the model's opsets");
      }
    }
  }

  bool Empty() const { return functions_.empty(); }

  // Replaces every call in `graph` (and its subgraphs) by the called body.
  void InlineGraph(onnx::GraphProto& graph) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> result;
    for (onnx::NodeProto& node : *graph.mutable_node()) Expand(node, result, 0);
    graph.mutable_node()->Swap(&result);
  }

 private:
  const onnx::FunctionProto* Find(const onnx::NodeProto& node) const {
    auto it =
        functions_.find({Canonical(node.domain()), node.op_type(), Overload(node, kNodeOverload)});
    return it == functions_.end() ? nullptr : it->second;
  }

  // Appends `node` to `out`, or the expansion of the function it calls.
  void Expand(onnx::NodeProto& node, google::protobuf::RepeatedPtrField<onnx::NodeProto>& out,
              int depth) {
    for (auto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) InlineGraph(*attribute.mutable_g());
      for (auto& sub : *attribute.mutable_graphs()) InlineGraph(sub);
    }
    const onnx::FunctionProto* function = Find(node);
    if (function == nullptr) {
      *out.Add() = std::move(node);
      return;
    }
    PRISM_ENFORCE(depth < 64 && !active_.count(function), kInvalidGraph, "local function '",
                  function->name(), "' calls itself (through node '", node.name(), "')");
    PRISM_ENFORCE(node.input_size() <= function->input_size(), kInvalidGraph, "node '", node.name(),
                  "' passes ", node.input_size(), " inputs to local function '", function->name(),
                  "', which takes ", function->input_size());
    PRISM_ENFORCE(node.output_size() <= function->output_size(), kInvalidGraph, "node '",
                  node.name(), "' expects ", node.output_size(), " outputs from local function '",
                  function->name(), "', which has ", function->output_size());
    active_.insert(function);
    const std::string prefix = (node.name().empty() ? function->name() : node.name()) + "/" +
                               std::to_string(calls_++) + "/";
    // Formal names to actual ones; body-internal names get the call's prefix.
    std::unordered_map<std::string, std::string> names;
    for (int i = 0; i < function->input_size(); ++i)
      names[function->input(i)] = i < node.input_size() ? node.input(i) : "";
    // An output the caller does not take is still produced, under an internal name.
    for (int i = 0; i < function->output_size(); ++i) {
      const bool taken = i < node.output_size() && !node.output(i).empty();
      names[function->output(i)] = taken ? node.output(i) : prefix + function->output(i);
    }
    std::unordered_map<std::string, const onnx::AttributeProto*> given;
    for (const auto& attribute : node.attribute()) given[attribute.name()] = &attribute;
    std::vector<onnx::AttributeProto> default_values;
    for (const std::string& bytes : UnknownBytes(*function, kFunctionAttributeProto)) {
      onnx::AttributeProto attribute;
      PRISM_ENFORCE(attribute.ParseFromString(bytes), kInvalidGraph, "local function '",
                    function->name(), "' has an unreadable attribute default");
      default_values.push_back(std::move(attribute));
    }
    std::unordered_map<std::string, const onnx::AttributeProto*> defaults;
    for (const auto& attribute : default_values) defaults[attribute.name()] = &attribute;
    const auto rename = [&](const std::string& name) -> std::string {
      if (name.empty()) return name;
      auto it = names.find(name);
      if (it != names.end()) return it->second;
      return names[name] = prefix + name;
    };
    for (const onnx::NodeProto& body_node : function->node()) {
      onnx::NodeProto copy = body_node;
      copy.set_name(prefix + (body_node.name().empty() ? body_node.op_type() : body_node.name()));
      for (auto& input : *copy.mutable_input()) input = rename(input);
      for (auto& output : *copy.mutable_output()) output = rename(output);
      google::protobuf::RepeatedPtrField<onnx::AttributeProto> attributes;
      for (const auto& attribute : copy.attribute()) {
        if (attribute.ref_attr_name().empty()) {
          onnx::AttributeProto kept = attribute;
          RenameInSubgraphs(kept, rename);
          *attributes.Add() = std::move(kept);
          continue;
        }
        const onnx::AttributeProto* source = nullptr;
        if (auto it = given.find(attribute.ref_attr_name()); it != given.end())
          source = it->second;
        else if (auto d = defaults.find(attribute.ref_attr_name()); d != defaults.end())
          source = d->second;
        if (source == nullptr) continue;  // neither given nor defaulted: the attribute is unset
        onnx::AttributeProto value = *source;
        value.set_name(attribute.name());
        value.clear_ref_attr_name();
        *attributes.Add() = std::move(value);
      }
      copy.mutable_attribute()->Swap(&attributes);
      Expand(copy, out, depth + 1);
    }
    active_.erase(function);
  }

  // Body subgraphs may read the function's values from the outer scope: rename those reads.
  template <typename Rename>
  void RenameInSubgraphs(onnx::AttributeProto& attribute, const Rename& rename) {
    const auto fix = [&](onnx::GraphProto& graph) {
      std::set<std::string> local;
      for (const auto& input : graph.input()) local.insert(input.name());
      for (const auto& init : graph.initializer()) local.insert(init.name());
      for (const auto& node : graph.node())
        for (const auto& output : node.output()) local.insert(output);
      for (auto& node : *graph.mutable_node())
        for (auto& input : *node.mutable_input())
          if (!input.empty() && !local.count(input)) input = rename(input);
      for (auto& output : *graph.mutable_output())
        if (!local.count(output.name())) output.set_name(rename(output.name()));
    };
    if (attribute.has_g()) fix(*attribute.mutable_g());
    for (auto& sub : *attribute.mutable_graphs()) fix(sub);
  }

  std::map<std::string, int64_t> model_opsets_;
  std::map<FunctionKey, const onnx::FunctionProto*> functions_;
  std::set<const onnx::FunctionProto*> active_;
  int64_t calls_ = 0;
};

}  // namespace

void InlineLocalFunctions(onnx::ModelProto& model) {
  if (model.functions_size() == 0) return;
  Inliner inliner(model);
  inliner.InlineGraph(*model.mutable_graph());
}

}  // namespace prism
