// A loaded ONNX model: opset imports, metadata and the main graph.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "graph/graph.h"

namespace prism {

struct ModelAdjustments;

struct ModelMetadata {
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  std::string description;  // the model's doc_string
  std::string graph_name;
  std::string graph_description;
  int64_t version = 0;
  std::map<std::string, std::string> custom_metadata;
};

// Newest opset of each domain whose models Prism accepts.
constexpr int kMaxOnnxOpset = 28;
constexpr int kMaxOnnxMlOpset = 5;
constexpr int64_t kMaxIrVersion = 14;
constexpr int kMaxSubgraphDepth = 32;

// Limits a loader enforces beyond the format's own (a session takes them from its configuration
// entries; 0: no limit).
struct ModelLoadLimits {
  // session.max_tensor_bytes: the largest initializer, Constant value or densified sparse tensor.
  size_t max_tensor_bytes = 0;
};

class Model {
 public:
  // Both throw Exception with INVALID_PROTOBUF / INVALID_GRAPH / NO_SUCHFILE / ... and a message
  // naming the offending node, value or tensor. adjustments (may be null): what the application
  // changes in the model as it loads (graph/model_adjustments.h).
  static std::shared_ptr<const Model> LoadFromFile(const std::string& path,
                                                   const ModelLoadLimits& limits = {},
                                                   const ModelAdjustments* adjustments = nullptr);
  // model_directory anchors external data; empty refuses external data files on disk.
  static std::shared_ptr<const Model> LoadFromBytes(const void* data, size_t size,
                                                    const std::string& model_directory = "",
                                                    const ModelLoadLimits& limits = {},
                                                    const ModelAdjustments* adjustments = nullptr);

  const Graph& MainGraph() const { return *main_graph_; }
  int64_t IrVersion() const { return ir_version_; }
  // Domain ("" for ai.onnx) to imported opset version.
  const std::map<std::string, int>& OpsetImports() const { return opsets_; }
  const ModelMetadata& Metadata() const { return metadata_; }
  const std::string& Directory() const { return directory_; }

  // Prepacking's release of a main-graph constant initializer that a session holds only in
  // packed form, and its return before the session builds its state again (the model's owner,
  // InferenceSession, calls these between state builds; no state reads the model's
  // initializers while it runs).
  void ReleaseInitializer(const std::string& name) { main_graph_->RemoveInitializer(name); }
  void RestoreInitializer(const std::string& name, Tensor tensor) {
    main_graph_->AddInitializer(name, std::move(tensor));
  }

 private:
  friend class GraphBuilder;
  friend class ModelLoader;
  int64_t ir_version_ = 0;
  std::map<std::string, int> opsets_;
  ModelMetadata metadata_;
  std::string directory_;
  std::unique_ptr<Graph> main_graph_;
};

// "" for "ai.onnx" and "", the domain otherwise.
std::string CanonicalDomain(const std::string& domain);

}  // namespace prism
