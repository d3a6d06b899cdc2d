// Strict shape inference of a hand-built model, for the shape tests of the op families: load
// (lenient inference runs at load), then infer a clone strictly and read values' shapes and
// types.
#pragma once

#include <memory>
#include <string>

#include "graph/model.h"
#include "graph/shape_inference.h"
#include "model_builder_util.h"

namespace prism::testing {

struct InferredGraph {
  std::shared_ptr<const Model> model;  // keeps the graph's values alive
  std::unique_ptr<Graph> graph;

  std::string Shape(const std::string& value) const {
    const NodeArg* arg = graph->FindNodeArg(value);
    if (arg == nullptr) return "<no value>";
    return arg->shape ? arg->shape->ToString() : "<unknown rank>";
  }
  ElementType Type(const std::string& value) const {
    const NodeArg* arg = graph->FindNodeArg(value);
    return arg == nullptr ? ElementType::kUndefined : arg->type.elem;
  }
};

inline InferredGraph InferStrictly(const onnx::ModelProto& proto) {
  const std::string bytes = Serialize(proto);
  InferredGraph result;
  result.model = Model::LoadFromBytes(bytes.data(), bytes.size());
  result.graph = result.model->MainGraph().Clone();
  InferShapes(*result.graph, ShapeInferenceOptions{true});
  return result;
}

}  // namespace prism::testing
