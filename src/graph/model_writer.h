// Writes a graph back as an ONNX ModelProto: what optimized_model_filepath saves after the
// session's graph transformers ran. The graph may be a session's rewritten copy of the model's
// main graph; opsets, metadata and IR version come from the model.
#pragma once

#include <string>

#include "graph/model.h"

namespace onnx {
class ModelProto;
}

namespace prism {

// Throws kNotImplemented for what cannot be written faithfully: fused (compiled) nodes, the
// attribute kinds the loader keeps by type only (sparse tensors, tensor lists, type protos), and
// tensors outside CPU memory.
void ModelToProto(const Model& model, const Graph& graph, onnx::ModelProto* proto);
// Serializes to path (kFail naming the path when it cannot be written; kNotImplemented beyond
// protobuf's 2 GiB limit, as external data is not written yet).
void SaveModel(const Model& model, const Graph& graph, const std::string& path);

}  // namespace prism
