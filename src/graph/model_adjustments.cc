#include "graph/model_adjustments.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "common/logging.h"

namespace prism {
namespace {

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

const char* KindName(FreeDimensionOverride::Kind kind) {
  return kind == FreeDimensionOverride::Kind::kDenotation ? "denotation" : "name";
}

bool Matches(const FreeDimensionOverride& rule, const onnx::TensorShapeProto::Dimension& dim) {
  if (rule.kind == FreeDimensionOverride::Kind::kDenotation)
    return !dim.denotation().empty() && Lowercase(dim.denotation()) == Lowercase(rule.identifier);
  return dim.has_dim_param() && dim.dim_param() == rule.identifier;
}

std::string DeclaredDims(const onnx::TensorProto& proto) {
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  return TensorShape(dims).ToString();
}

// Names of the graph's initializers, dense and sparse.
std::unordered_set<std::string> InitializerNames(const onnx::GraphProto& graph) {
  std::unordered_set<std::string> names;
  for (const auto& init : graph.initializer()) names.insert(init.name());
  for (const auto& sparse : graph.sparse_initializer()) names.insert(sparse.values().name());
  return names;
}

void CheckSupplied(const std::string& name, const Tensor& tensor, const onnx::GraphProto& graph,
                   bool external, const char* call) {
  PRISM_ENFORCE(tensor.Location().IsCpuAccessible(), kInvalidArgument, call, ": initializer '",
                name, "' must be given in CPU memory, got ", tensor.Location().ToString());
  const auto init = std::find_if(graph.initializer().begin(), graph.initializer().end(),
                                 [&](const onnx::TensorProto& t) { return t.name() == name; });
  if (init == graph.initializer().end()) {
    for (const auto& sparse : graph.sparse_initializer())
      PRISM_ENFORCE(sparse.values().name() != name, kInvalidArgument, call, ": '", name,
                    "' is a sparse initializer of the model, which cannot be replaced");
    for (const auto& input : graph.input())
      PRISM_ENFORCE(input.name() != name, kInvalidArgument, call, ": '", name,
                    "' is an input of the model without an initializer; only initializers can be "
                    "supplied (feed the input at run time instead)");
    PRISM_THROW(kInvalidArgument, call, ": the model has no initializer named '", name, "'");
  }
  PRISM_ENFORCE(!external || init->data_location() == onnx::TensorProto_DataLocation_EXTERNAL,
                kInvalidArgument, call, ": initializer '", name,
                "' does not store its data externally; AddExternalInitializers supplies only "
                "external data (AddInitializer replaces any initializer)");
  const bool same_type = init->data_type() == static_cast<int32_t>(tensor.Type());
  const bool same_dims = std::equal(init->dims().begin(), init->dims().end(),
                                    tensor.Shape().Dims().begin(), tensor.Shape().Dims().end());
  PRISM_ENFORCE(same_type && same_dims, kInvalidArgument, call, ": initializer '", name,
                "' is declared as tensor(",
                IsKnownElementType(init->data_type())
                    ? ElementTypeName(static_cast<ElementType>(init->data_type()))
                    : std::to_string(init->data_type()),
                ")", DeclaredDims(*init), " but the value given is ", tensor.Describe());
  // A bool element other than 0 or 1 is undefined behaviour for every kernel that reads it.
  if (tensor.Type() == ElementType::kBool) {
    const auto* bytes = static_cast<const uint8_t*>(tensor.RawData());
    for (int64_t i = 0; i < tensor.NumElements(); ++i)
      PRISM_ENFORCE(bytes[i] <= 1, kInvalidArgument, call, ": initializer '", name, "' holds byte ",
                    int{bytes[i]}, " at element ", i, "; bool elements must be 0 or 1");
  }
}

}  // namespace

void ModelAdjustments::SetFreeDimensionOverride(FreeDimensionOverride::Kind kind,
                                                const std::string& identifier, int64_t value) {
  for (FreeDimensionOverride& existing : free_dimension_overrides) {
    const bool same =
        existing.kind == kind && (kind == FreeDimensionOverride::Kind::kDenotation
                                      ? Lowercase(existing.identifier) == Lowercase(identifier)
                                      : existing.identifier == identifier);
    if (same) {
      existing = {kind, identifier, value};
      return;
    }
  }
  free_dimension_overrides.push_back({kind, identifier, value});
}

void ApplyFreeDimensionOverrides(const std::vector<FreeDimensionOverride>& overrides,
                                 onnx::GraphProto& graph) {
  if (overrides.empty()) return;
  for (const FreeDimensionOverride& rule : overrides)
    PRISM_ENFORCE(rule.value >= 0, kInvalidArgument, "free dimension override by ",
                  KindName(rule.kind), " '", rule.identifier, "': the value must be >= 0, got ",
                  rule.value);
  const std::unordered_set<std::string> initializers = InitializerNames(graph);
  std::vector<bool> used(overrides.size(), false);
  for (auto& input : *graph.mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    auto* dims = input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
    for (int d = 0; d < dims->size(); ++d) {
      onnx::TensorShapeProto::Dimension& dim = (*dims)[d];
      const FreeDimensionOverride* chosen = nullptr;
      for (size_t i = 0; i < overrides.size(); ++i) {
        const FreeDimensionOverride& rule = overrides[i];
        if (!Matches(rule, dim)) continue;
        used[i] = true;
        PRISM_ENFORCE(!dim.has_dim_value() || dim.dim_value() == rule.value, kInvalidArgument,
                      "free dimension override by ", KindName(rule.kind), " '", rule.identifier,
                      "' = ", rule.value, ": dimension ", d, " of input '", input.name(),
                      "' is fixed to ", dim.dim_value(), " in the model");
        // The message is built only when the check fails, so chosen is set there.
        PRISM_ENFORCE(chosen == nullptr || chosen->value == rule.value, kInvalidArgument,
                      "dimension ", d, " of input '", input.name(), "' is overridden to ",
                      chosen->value, " by ", KindName(chosen->kind), " '", chosen->identifier,
                      "' and to ", rule.value, " by ", KindName(rule.kind), " '", rule.identifier,
                      "'");
        chosen = &rule;
      }
      if (chosen != nullptr) dim.set_dim_value(chosen->value);  // clears dim_param (oneof)
    }
  }
  for (size_t i = 0; i < overrides.size(); ++i)
    if (!used[i])
      PRISM_LOG(kWarning, "free dimension override by ", KindName(overrides[i].kind), " '",
                overrides[i].identifier, "' matches no dimension of the model's inputs: no effect");
}

void CheckSuppliedInitializers(const ModelAdjustments& adjustments, const onnx::GraphProto& graph) {
  for (const auto& [name, tensor] : adjustments.initializers) {
    PRISM_ENFORCE(adjustments.external_initializers.count(name) == 0, kInvalidArgument,
                  "initializer '", name,
                  "' is supplied by both AddInitializer and AddExternalInitializers");
    CheckSupplied(name, tensor, graph, /*external=*/false, "AddInitializer");
  }
  for (const auto& [name, tensor] : adjustments.external_initializers)
    CheckSupplied(name, tensor, graph, /*external=*/true, "AddExternalInitializers");
}

const Tensor* FindSuppliedInitializer(const ModelAdjustments& adjustments,
                                      const std::string& name) {
  if (auto it = adjustments.initializers.find(name); it != adjustments.initializers.end())
    return &it->second;
  if (auto it = adjustments.external_initializers.find(name);
      it != adjustments.external_initializers.end())
    return &it->second;
  return nullptr;
}

const ExternalFileInMemory* FindExternalFileInMemory(
    const std::map<std::string, ExternalFileInMemory>& files, const std::string& location) {
  if (auto it = files.find(location); it != files.end()) return &it->second;
  const std::filesystem::path wanted = std::filesystem::path(location).lexically_normal();
  for (const auto& [name, file] : files)
    if (std::filesystem::path(name).lexically_normal() == wanted) return &file;
  return nullptr;
}

}  // namespace prism
