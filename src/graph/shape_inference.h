// Prism's own shape and type inference (libonnx's is never called: it stops at opset 17 and is
// unsafe on untrusted models). One function per op, registered by family in
// src/graph/shape_inference/, fills each node output's element type and SymbolicShape; small
// int64 values (shapes computed by Shape, Gather, Concat, ...) are propagated so that shape inputs
// computed at run time still give static shapes.
#pragma once

#include "graph/graph.h"

namespace prism {

struct ShapeInferenceOptions {
  // Strict (the conformance shape check): an op with no inference function, or inputs that
  // contradict the op's rules, is an error. Lenient (load and session): such a node keeps what
  // the model declared, and its kernel reports contradictions with the actual values at run time.
  bool strict = false;
};

// Infers every node of graph (subgraphs included) in topological order. Contradictions (a Conv
// stride of 0, MatMul inner dims that differ, a Reshape of 6 elements to 4) are kInvalidGraph
// errors naming the node, input, expected and given. An inferred dim replaces a declared one.
void InferShapes(Graph& graph, const ShapeInferenceOptions& options = {});

// Whether an inference function exists for the op (ai.onnx domain "").
bool HasShapeInference(const std::string& domain, const std::string& op_type);

}  // namespace prism
