// Model-local functions (ModelProto.functions): every node that calls one, in the main graph and
// in every subgraph, is replaced by the function's body before the graph is built. The body's
// inputs and outputs become the caller's (an omitted optional input stays omitted), its other
// values get names unique to the call, attributes that refer to the caller's (ref_attr_name)
// take the caller's value or the function's default (attribute_proto), and calls inside the
// body are expanded in turn. A function may not call itself, directly or not, and its body must
// use the same opset as the model for every domain both import.
#pragma once

#include <onnx/onnx_pb.h>

namespace prism {

// Rewrites the model in place; throws kInvalidGraph naming the function and the rule broken.
void InlineLocalFunctions(onnx::ModelProto& model);

}  // namespace prism
