#include "optimizer/qdq_util.h"

#include <algorithm>
#include <string>

#include "optimizer/fusion_util.h"

namespace prism {

namespace {

bool IsEightBit(ElementType type) {
  return type == ElementType::kUint8 || type == ElementType::kInt8;
}

// Fills scale/zero point from inputs 1 and 2 of node; false when they are not constants of the
// expected kinds.
bool ReadParameters(const Graph& graph, const Node& node, bool per_tensor, QdqNode& out) {
  if (node.InputCount() < 3 || !node.HasInput(1) || !node.HasInput(2)) return false;
  out.scale = node.Inputs()[1];
  out.zero_point = node.Inputs()[2];
  out.scale_value = ConstantInput(graph, node, 1);
  out.zero_point_value = ConstantInput(graph, node, 2);
  if (out.scale_value == nullptr || out.zero_point_value == nullptr) return false;
  if (out.scale_value->Type() != ElementType::kFloat || out.zero_point_value->Type() != out.type)
    return false;
  if (out.scale_value->NumElements() != out.zero_point_value->NumElements()) return false;
  if (per_tensor && out.scale_value->NumElements() != 1) return false;
  return true;
}

}  // namespace

std::optional<QdqNode> DequantizeWriting(const Graph& graph, const NodeArg* value,
                                         bool per_tensor) {
  if (value == nullptr) return std::nullopt;
  const Node* node = graph.Producer(value->name);
  if (!IsOnnxOp(node, "DequantizeLinear") || node->FindAttribute("block_size") != nullptr)
    return std::nullopt;
  QdqNode out;
  out.node = node;
  out.quantized = node->Inputs()[0];
  if (out.quantized == nullptr || !out.quantized->type.IsTensor() ||
      !IsEightBit(out.quantized->type.elem))
    return std::nullopt;
  out.type = out.quantized->type.elem;
  if (!ReadParameters(graph, *node, per_tensor, out)) return std::nullopt;
  return out;
}

std::optional<QdqNode> QuantizeReadingOnly(const Graph& graph, const NodeArg* value) {
  const Node* node = SoleConsumer(graph, value);
  if (!IsOnnxOp(node, "QuantizeLinear") || node->Inputs()[0] != value) return std::nullopt;
  QdqNode out;
  out.node = node;
  out.quantized = node->Outputs()[0];
  if (!out.quantized->type.IsTensor() || !IsEightBit(out.quantized->type.elem)) return std::nullopt;
  out.type = out.quantized->type.elem;
  if (!ReadParameters(graph, *node, /*per_tensor=*/true, out)) return std::nullopt;
  return out;
}

bool SameQuantization(const QdqNode& a, const QdqNode& b) {
  return a.type == b.type && a.scale_value->NumElements() == 1 &&
         b.scale_value->NumElements() == 1 && ScaleOf(a) == ScaleOf(b) &&
         ZeroPointOf(a) == ZeroPointOf(b);
}

float ScaleOf(const QdqNode& q) {
  return q.scale_value->Data<float>()[0];
}

int32_t ZeroPointOf(const QdqNode& q, int64_t i) {
  return q.type == ElementType::kUint8 ? q.zero_point_value->Data<uint8_t>()[i]
                                       : q.zero_point_value->Data<int8_t>()[i];
}

Node& FuseQdqChain(Graph& graph, const TransformContext& context,
                   const std::vector<NodeIndex>& chain, std::string node_name,
                   const std::string& op_type, const std::string& domain, int opset_version,
                   std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes,
                   const std::vector<NodeIndex>& dequantize) {
  // The DequantizeLinear nodes only the chain reads go with it, in the one Resolve of the
  // rewrite: a Resolve per removed node, and then one per fusion for them, made the QDQ fusions
  // the largest part of resnet50_qdq's session creation.
  std::vector<NodeIndex> unread;
  std::vector<std::string> inputs_of_unread;
  for (const NodeIndex index : dequantize) {
    const Node* node = graph.FindNode(index);
    if (node == nullptr || node->OpType() != "DequantizeLinear" ||
        std::find(unread.begin(), unread.end(), index) != unread.end())
      continue;
    const NodeArg* output = node->Outputs()[0];
    if (graph.IsOutput(output)) continue;
    const std::vector<NodeIndex>& readers = graph.Consumers(output->name);
    const bool only_chain = std::all_of(readers.begin(), readers.end(), [&](NodeIndex reader) {
      return std::find(chain.begin(), chain.end(), reader) != chain.end();
    });
    if (!only_chain || !node->ImplicitInputs().empty()) continue;
    unread.push_back(index);
    for (const NodeArg* input : node->Inputs())
      if (input != nullptr) inputs_of_unread.push_back(input->name);
  }
  Node& fused = FuseChain(graph, context, chain, std::move(node_name), op_type, domain,
                          opset_version, std::move(inputs), std::move(attributes), unread);
  const NodeIndex fused_index = fused.Index();
  RemoveUnreadInitializers(graph, inputs_of_unread);
  return *graph.MutableNode(fused_index);
}

bool MayTouchNodes(const GraphTransformer& pass, const Graph& graph,
                   const std::vector<const Node*>& nodes, const TransformContext& context) {
  for (const Node* node : nodes)
    if (!pass.MayTouch(graph, node->Index(), context)) return false;
  return true;
}

}  // namespace prism
