// Conversion between ONNX TensorProto and Tensor (initializers, Constant values, test data).
#pragma once

#include <string>

#include "framework/tensor.h"

namespace onnx {
class TensorProto;
}

namespace prism {

// Where external data may be read from: the model's folder (empty: external data refused).
struct ExternalDataPolicy {
  std::string model_directory;
};

// Decodes a TensorProto into a CPU tensor. Validates element type, dims, that the data size
// matches the shape, and confines external data to the model's folder (memory-mapped).
// what names the tensor in error messages ("initializer 'w'"). take_raw_data, when given, is
// proto's own raw_data (mutable): the tensor then takes those bytes over instead of copying
// them, so loading a model holds each weight once.
Tensor TensorFromProto(const onnx::TensorProto& proto, const ExternalDataPolicy& policy,
                       const std::string& what, std::string* take_raw_data = nullptr);
// Encodes a CPU tensor (raw_data for numeric types, string_data for strings).
void TensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

}  // namespace prism
