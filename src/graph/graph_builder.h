// Builds Graph IR from GraphProto, validating as it goes (internal to the graph layer).
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "graph/graph.h"
#include "graph/tensor_proto.h"

namespace onnx {
class GraphProto;
class TypeProto;
class NodeProto;
class AttributeProto;
}  // namespace onnx

namespace prism {

struct ModelAdjustments;

class GraphBuilder {
 public:
  // take_initializer_bytes: the caller's protos are its own and discarded after Build, so
  // initializers take over their raw_data bytes instead of copying them (see Build).
  // adjustments (may be null): its supplied initializers replace the main graph's, checked
  // beforehand (CheckSuppliedInitializers).
  GraphBuilder(const Model& model, const ExternalDataPolicy& policy,
               bool take_initializer_bytes = false, const ModelAdjustments* adjustments = nullptr)
      : model_(model),
        policy_(policy),
        take_initializer_bytes_(take_initializer_bytes),
        adjustments_(adjustments) {}

  // parent is null for the main graph; path names the graph in errors ("main", "If
  // 'x'/then_branch").
  std::unique_ptr<Graph> Build(const onnx::GraphProto& proto, const Graph* parent,
                               const std::string& path);
  // Fills in the element types of node outputs (recursively into subgraphs).
  static void InferTypes(Graph& graph);

 private:
  NodeArg* GetOrCreateArg(Graph& graph, const std::string& name);
  NodeArg* Resolve(Graph& graph, const std::string& name, bool* outer);
  void AddNode(Graph& graph, const onnx::NodeProto& proto, size_t index, const std::string& path);
  void ConvertAttribute(Graph& graph, Node& node, const onnx::AttributeProto& proto,
                        const std::string& path);

  const Model& model_;
  const ExternalDataPolicy& policy_;
  bool take_initializer_bytes_ = false;
  const ModelAdjustments* adjustments_ = nullptr;
};

ValueType ValueTypeFromProto(const onnx::TypeProto& proto, const std::string& what);

}  // namespace prism
