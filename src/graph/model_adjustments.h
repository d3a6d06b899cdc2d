// What an application changes in a model as a session loads it: onnxruntime's session options
// AddFreeDimensionOverride(ByName), AddInitializer, AddExternalInitializers and
// AddExternalInitializersFromFilesInMemory. The loader applies them before the graph is built,
// so type and shape inference and every optimizer pass see the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "framework/tensor.h"

namespace onnx {
class GraphProto;
}

namespace prism {

// A graph input dimension fixed to value: those whose denotation (e.g. "DATA_BATCH", compared
// ignoring case) or whose dim_param (e.g. "batch") is identifier.
struct FreeDimensionOverride {
  enum class Kind { kDenotation, kName };
  Kind kind = Kind::kName;
  std::string identifier;
  int64_t value = 0;
};

// The bytes of an external data file that the application holds: borrowed until the loader has
// copied the ranges the model's tensors use (onnxruntime copies them too).
struct ExternalFileInMemory {
  const void* data = nullptr;
  size_t length = 0;
};

struct ModelAdjustments {
  // One per kind and identifier (SetFreeDimensionOverride replaces an earlier value).
  std::vector<FreeDimensionOverride> free_dimension_overrides;
  // Main-graph initializers replaced by CPU tensors the application owns (an initializer that
  // is also a graph input keeps being overridable by a feed). The graph uses their memory as is.
  std::map<std::string, Tensor> initializers;
  // Data for main-graph initializers stored as external data, used in place of reading it.
  std::map<std::string, Tensor> external_initializers;
  // External data files by the location the model's tensors name them with; looked up before
  // the model's folder.
  std::map<std::string, ExternalFileInMemory> external_files;

  bool Empty() const {
    return free_dimension_overrides.empty() && initializers.empty() &&
           external_initializers.empty() && external_files.empty();
  }
  // Adds an override, or replaces the value of the one with the same kind and identifier.
  void SetFreeDimensionOverride(FreeDimensionOverride::Kind kind, const std::string& identifier,
                                int64_t value);
};

// Fixes the overridden dims of the graph's inputs (those without an initializer) in proto.
// Throws kInvalidArgument for a negative value, for a dim the model fixes to another value, and
// for a dim that two overrides set to different values; logs a warning for an override that
// matches no dim.
void ApplyFreeDimensionOverrides(const std::vector<FreeDimensionOverride>& overrides,
                                 onnx::GraphProto& graph);

// Checks the supplied initializers against the main graph's declarations: each names an
// initializer (external ones: one whose data is external), with the same element type and dims,
// and no name is supplied twice. Throws kInvalidArgument naming the initializer, what the model
// declares and what was given.
void CheckSuppliedInitializers(const ModelAdjustments& adjustments, const onnx::GraphProto& graph);

// The application's tensor for main-graph initializer name, or nullptr.
const Tensor* FindSuppliedInitializer(const ModelAdjustments& adjustments, const std::string& name);

// The in-memory file the model's location names (compared as normalized relative paths), or
// nullptr.
const ExternalFileInMemory* FindExternalFileInMemory(
    const std::map<std::string, ExternalFileInMemory>& files, const std::string& location);

}  // namespace prism
