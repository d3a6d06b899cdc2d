// What the QDQ fusions (qdq_*_fusion.cc) read off DequantizeLinear and QuantizeLinear nodes: the
// node, its quantized value, and its constant scale and zero point, for uint8/int8 only; and the
// clean-up of DequantizeLinear nodes a fusion left without readers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "optimizer/graph_transformer.h"

namespace prism {

struct QdqNode {
  const Node* node = nullptr;
  NodeArg* quantized = nullptr;  // DequantizeLinear's input 0, QuantizeLinear's output 0
  NodeArg* scale = nullptr;
  NodeArg* zero_point = nullptr;
  ElementType type = ElementType::kUndefined;  // uint8 or int8
  const Tensor* scale_value = nullptr;
  const Tensor* zero_point_value = nullptr;
};

// The ONNX DequantizeLinear writing `value` with a uint8/int8 input, a constant float scale and a
// constant zero point (present), per tensor (one element each) when per_tensor; nothing otherwise.
std::optional<QdqNode> DequantizeWriting(const Graph& graph, const NodeArg* value, bool per_tensor);

// The ONNX QuantizeLinear that is the only reader of `value`, per tensor, with a constant float
// scale and a constant uint8/int8 zero point (present); nothing otherwise.
std::optional<QdqNode> QuantizeReadingOnly(const Graph& graph, const NodeArg* value);

// Whether two per-tensor nodes quantize with the same scale and zero point (and type).
bool SameQuantization(const QdqNode& a, const QdqNode& b);

// The one-element float scale / zero point as numbers.
float ScaleOf(const QdqNode& q);
int32_t ZeroPointOf(const QdqNode& q, int64_t i = 0);

// FuseChain for a QDQ fusion: also removes those of `dequantize` (the DequantizeLinear nodes the
// chain read) whose output only the chain reads, and the initializers only they read, in the
// same Resolve. Returns the new node.
Node& FuseQdqChain(Graph& graph, const TransformContext& context,
                   const std::vector<NodeIndex>& chain, std::string node_name,
                   const std::string& op_type, const std::string& domain, int opset_version,
                   std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes,
                   const std::vector<NodeIndex>& dequantize);

// Whether pass may rewrite every node in nodes (MayTouch).
bool MayTouchNodes(const GraphTransformer& pass, const Graph& graph,
                   const std::vector<const Node*>& nodes, const TransformContext& context);

}  // namespace prism
