// What the oneDNN EP can run: the op types it claims, and for one node the reason it declines it
// ("" when it takes it). GetCapability (dnnl_execution_provider.cc) groups the accepted nodes;
// the compiled subgraph (dnnl_subgraph_kernel.cc) builds oneDNN primitives for exactly these
// cases, so the two must agree: everything accepted here must compile there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace prism::dnnl_ep {

// oneDNN's limit on tensor ranks (DNNL_MAX_NDIMS).
constexpr size_t kMaxRank = 12;

// The op types (ai.onnx domain) the EP may claim, sorted. tests/conformance/dnnl_claimed_ops.txt
// lists the same (a unit test keeps them equal), and conformance_node_dnnl fails when one of them
// never runs on the EP.
const std::vector<std::string>& ClaimedOpTypes();

// Why the EP declines `node` of `graph` ("" when it accepts it).
std::string WhyNotSupported(const Node& node, const Graph& graph);

// Inputs whose values the EP reads on the host when it builds primitives (Reshape's shape,
// Clip's bounds, Squeeze/Unsqueeze/Reduce* axes): the values become part of the primitive cache key.
bool IsHostReadInput(const Node& node, size_t input);

// ---- Attribute helpers (shared with the subgraph compiler) ----
int64_t AttrInt(const Node& node, const std::string& name, int64_t fallback);
float AttrFloat(const Node& node, const std::string& name, float fallback);
std::string AttrString(const Node& node, const std::string& name, const std::string& fallback);
std::vector<int64_t> AttrInts(const Node& node, const std::string& name,
                              std::vector<int64_t> fallback = {});

// Unary ops that map to one oneDNN eltwise algorithm (Relu, Tanh, Clip, Gelu, ...): these also
// fuse as post-ops of Conv, MatMul and Gemm.
bool IsEltwiseOp(const Node& node);

// The Reduce* ops the EP claims (those whose result one oneDNN reduction algorithm computes).
bool IsReduceOp(const std::string& op);
// Whether the Reduce node takes its axes as input 1 (ReduceSum from 13, the others from 18)
// rather than as an attribute.
bool ReduceAxesFromInput(const Node& node);

// One spatial axis of a ConvTranspose as oneDNN's deconvolution sees it: the output size the
// ONNX spec gives (pads, output_padding, output_shape, auto_pad, as the CPU EP computes them) and
// the pads that make oneDNN produce it, out = (in - 1) * stride + window - pad_l - pad_r (pad_r is
// negative where output_padding or output_shape add cells at the end).
struct DeconvAxis {
  int64_t stride = 1, dilation = 1, window = 1;
  int64_t pad_l = 0, pad_r = 0, out = 0;
};
DeconvAxis DeconvPads(const Node& node, size_t axis, int64_t in, int64_t kernel);

}  // namespace prism::dnnl_ep
