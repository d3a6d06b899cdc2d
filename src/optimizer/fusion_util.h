// Small queries and edits the fusion passes share: who reads a value, whether an input is a
// constant, and replacing a chain of nodes by one node that writes the chain's last output.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "optimizer/graph_transformer.h"

namespace prism {

// The only node reading value, when exactly one node reads it (no graph output, no subgraph
// read); nullptr otherwise.
const Node* SoleConsumer(const Graph& graph, const NodeArg* value);

// The constant initializer a node input reads (not overridable by a feed), or nullptr.
const Tensor* ConstantInput(const Graph& graph, const Node& node, size_t input);

// Whether only outputs [0, count) of node are used (the rest absent or read by nothing).
bool OnlyFirstOutputsUsed(const Graph& graph, const Node& node, size_t count);

// Adds a node named node_name that replaces `chain` (in order; the last node's output 0 becomes
// the new node's output 0, keeping its name), removes the chain and the nodes of also_remove
// (which the caller knows nothing reads after the rewrite) and resolves the graph once. Returns
// the new node.
Node& ReplaceChain(Graph& graph, const std::vector<NodeIndex>& chain, std::string node_name,
                   const std::string& op_type, const std::string& domain, int opset_version,
                   std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes,
                   const std::vector<NodeIndex>& also_remove = {});

// Drops initializers nothing reads any more (after a fusion replaced their readers).
void RemoveUnreadInitializers(Graph& graph, const std::vector<std::string>& names);

// After a fusion replaced the readers of constant initializers `sources` (the tensors it read,
// taken before the fusion changed the graph) by an initializer `derived` it computed from them:
// drops the unread sources and lets the session free the model's copies
// (TransformContext::drop_derived_sources), rebuilt from derived by `rebuild` (empty when derived
// cannot give them back exactly: the session frees them only if it can reread the model file).
void DropDerivedSources(Graph& graph, const TransformContext& context, const std::string& derived,
                        const TransformContext::Sources& sources,
                        TransformContext::Rebuild rebuild);

// ---- Pattern queries shared by the fusions ----

// Whether node is the ONNX-domain op `op` with `inputs` inputs (any count when negative) and an
// output 0.
bool IsOnnxOp(const Node* node, const char* op, int inputs = -1);

// Whether node is a MatMul the FusedMatMul fusions may rewrite: an ONNX MatMul, or a
// com.microsoft FusedMatMul without batch transposes (transBatchA/B 0).
bool IsPlainMatMul(const Node* node);

// The value of a one-element float constant input, or nothing.
std::optional<float> ScalarFloatConstant(const Graph& graph, const Node& node, size_t input);

// Whether value is within 1e-4 of target.
bool Near(std::optional<float> value, double target, double tolerance = 1e-4);

// For a two-input node that reads value exactly once: the index of its other input.
std::optional<size_t> OtherInput(const Node& node, const NodeArg* value);

bool IsFloatTensor(const NodeArg* arg);

// The value's rank, when known.
std::optional<size_t> RankOf(const NodeArg* arg);

// The value's dims, when its rank and every dim are known.
std::optional<std::vector<int64_t>> StaticDims(const NodeArg* arg);

// Whether dim i of value is known to be `expected` (a negative i counts from the end).
bool DimIs(const NodeArg* arg, int64_t i, int64_t expected);

// Whether two values have the same shape as far as shape inference can tell: the same rank and,
// dim by dim, the same known value or the same (non-empty) symbolic name.
bool SameShape(const NodeArg* a, const NodeArg* b);

// The values of a constant int64 (or int32) 1-D or scalar input, or nothing.
std::optional<std::vector<int64_t>> ConstantInts(const Graph& graph, const Node& node,
                                                 size_t input);

// Whether `pass` may rewrite every node of chain (MayTouch of each, all on one EP).
bool MayTouchAll(const GraphTransformer& pass, const Graph& graph,
                 const std::vector<NodeIndex>& chain, const TransformContext& context);

// ReplaceChain, then tells the session (TransformContext::on_fused) that the new node runs the
// chain on the EP of the chain's first node. Returns the new node.
Node& FuseChain(Graph& graph, const TransformContext& context, const std::vector<NodeIndex>& chain,
                std::string node_name, const std::string& op_type, const std::string& domain,
                int opset_version, std::vector<NodeArg*> inputs,
                std::map<std::string, Attribute> attributes,
                const std::vector<NodeIndex>& also_remove = {});

// Attributes of the fused nodes.
Attribute FloatAttribute(const std::string& name, float value);
Attribute IntAttribute(const std::string& name, int64_t value);
Attribute IntsAttribute(const std::string& name, std::vector<int64_t> values);

}  // namespace prism
