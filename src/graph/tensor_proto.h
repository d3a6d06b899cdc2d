// Conversion between ONNX TensorProto and Tensor (initializers, Constant values, test data).
#pragma once

#include <map>
#include <string>

#include "framework/tensor.h"

namespace onnx {
class TensorProto;
}

namespace prism {

struct ExternalFileInMemory;

// Where external data may be read from: files the application holds in memory (looked up first,
// by location), the model's folder (empty: files on disk refused), and the largest tensor that
// may be declared.
struct ExternalDataPolicy {
  std::string model_directory;
  // Bytes (session.max_tensor_bytes; 0: no limit): a larger tensor is refused before anything
  // is allocated or mapped.
  size_t max_tensor_bytes = 0;
  // By location (graph/model_adjustments.h); null: none.
  const std::map<std::string, ExternalFileInMemory>* files_in_memory = nullptr;
};

// Throws kRuntimeException naming what when bytes exceeds policy.max_tensor_bytes.
void CheckDeclaredTensorBytes(const ExternalDataPolicy& policy, size_t bytes, ElementType type,
                              const TensorShape& shape, const std::string& what);

// Decodes a TensorProto into a CPU tensor. Validates element type, dims (rank, overflow, the
// size limit), that the data size matches the shape, and confines external data to the model's
// folder (memory-mapped) unless an in-memory file of policy supplies it (copied).
// what names the tensor in error messages ("initializer 'w'"). take_raw_data, when given, is
// proto's own raw_data (mutable): the tensor then takes those bytes over instead of copying
// them, so loading a model holds each weight once.
Tensor TensorFromProto(const onnx::TensorProto& proto, const ExternalDataPolicy& policy,
                       const std::string& what, std::string* take_raw_data = nullptr);
// Encodes a CPU tensor (raw_data for numeric types, string_data for strings).
void TensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

}  // namespace prism
