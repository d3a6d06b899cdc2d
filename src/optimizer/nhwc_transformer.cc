// NhwcTransformer (onnxruntime's name, layout level, CPU EP): runs the 8-bit convolution regions
// of a QDQ model, after the QDQ fusions made them QLinearConv / QLinearAdd / MaxPool on quantized
// values / QLinearGlobalAveragePool, channels-last (NHWC), as onnxruntime does: the int8 GEMM
// reads and writes channels-last, so inside a region no convolution transposes its input or
// output.
//   - A 2-D QLinearConv with constant W becomes com.microsoft QLinearConv channels_last=1 (the
//     same inputs and attributes; W is untouched: the kernel prepacks it as before).
//   - A channels-last value stays channels-last through a QLinearAdd of two of them (element-wise
//     with the same permutation of both operands' axes: layout-agnostic), a MaxPool on int8/uint8
//     (-> com.microsoft NhwcMaxPool) and QLinearGlobalAveragePool (-> channels_last=1, its [N, 1,
//     1, C] output).
//   - The region's entry is a Transpose(0, 2, 3, 1) of the NCHW value, one per value, shared.
//   - Every other reader, and a graph output, gets the NCHW value back from one
//     Transpose(0, 3, 1, 2) per value, which writes the original value (a graph output keeps its
//     name).
// Only rank-4 values: a node is converted only when its input's rank is known to be 4 (or the
// input is already channels-last). The float NchwcTransformer touches float values only, so the
// two never claim the same node.
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/model.h"
#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";
constexpr const char* kMs = "com.microsoft";

int64_t IntAttr(const Node& node, const char* name, int64_t fallback) {
  const Attribute* attr = node.FindAttribute(name);
  return attr ? attr->i : fallback;
}

bool Is8Bit(const NodeArg* arg) {
  return arg != nullptr && arg->type.IsTensor() &&
         (arg->type.elem == ElementType::kUint8 || arg->type.elem == ElementType::kInt8);
}

// A value the pass made channels-last: the NHWC value that replaces an original NCHW one.
struct ChannelsLast {
  NodeArg* value = nullptr;
  const IExecutionProvider* provider = nullptr;  // its producer's EP
};

class Rewriter {
 public:
  Rewriter(const GraphTransformer& pass, Graph& graph, const TransformContext& context,
           int onnx_opset)
      : pass_(pass), graph_(graph), context_(context), onnx_opset_(onnx_opset) {}

  bool Run() {
    for (NodeIndex index : std::vector<NodeIndex>(graph_.TopologicalOrder())) {
      const Node* node = graph_.FindNode(index);
      if (node == nullptr || !pass_.MayTouch(graph_, index, context_)) continue;
      if (node->OutputCount() == 0 || !node->HasOutput(0) || !node->HasInput(0)) continue;
      const std::string& op = node->OpType();
      const bool onnx = node->Domain().empty(), ms = node->Domain() == kMs;
      if (op == "QLinearConv" && (onnx || (ms && IntAttr(*node, "channels_last", 0) == 0)))
        TryConv(*node);
      else if (ms && op == "QLinearAdd")
        TryAdd(*node);
      else if (onnx && op == "MaxPool")
        TryMaxPool(*node);
      else if (ms && op == "QLinearGlobalAveragePool" && IntAttr(*node, "channels_last", 0) == 0)
        TryGlobalAveragePool(*node);
    }
    if (!changed_) return false;
    AddTransposesBack();
    graph_.Resolve();
    return true;
  }

 private:
  const IExecutionProvider* ProviderOf(NodeIndex index) const {
    return context_.provider_of ? context_.provider_of(graph_, index) : nullptr;
  }

  const ChannelsLast* Find(const NodeArg* value) const {
    auto it = channels_last_.find(value);
    return it == channels_last_.end() ? nullptr : &it->second;
  }

  // A new value with the original's type and its NCHW shape permuted to NHWC (four unknown dims
  // when the original's shape is unknown).
  NodeArg* NewChannelsLastValue(const NodeArg* original) {
    NodeArg* value = graph_.GetOrCreateValue(graph_.UniqueValueName(original->name + "_nhwc"));
    value->type = original->type;
    SymbolicShape shape;
    shape.dims.resize(4);
    if (original->shape && original->shape->dims.size() == 4) {
      const std::vector<Dim>& dims = original->shape->dims;
      shape.dims = {dims[0], dims[2], dims[3], dims[1]};
    }
    value->shape = shape;
    return value;
  }

  Node& AddTranspose(const std::string& base, NodeArg* from, NodeArg* to, std::vector<int64_t> perm,
                     const IExecutionProvider* provider) {
    Node& transpose = graph_.AddNode(graph_.UniqueNodeName(base), "Transpose", "", onnx_opset_,
                                     {from}, {to}, {{"perm", IntsAttribute("perm", perm)}});
    if (context_.on_fused) context_.on_fused(graph_, {}, transpose.Index(), provider);
    return transpose;
  }

  // The channels-last form of an NCHW value entering a region: one Transpose per value.
  NodeArg* EntryTranspose(NodeArg* nchw, const IExecutionProvider* provider) {
    if (auto it = entries_.find(nchw); it != entries_.end()) return it->second;
    NodeArg* value = NewChannelsLastValue(nchw);
    AddTranspose(nchw->name + "_to_nhwc", nchw, value, {0, 2, 3, 1}, provider);
    entries_[nchw] = value;
    return value;
  }

  // Replaces node by a com.microsoft node of op_type (same name) that reads inputs and writes a
  // new channels-last value for its output 0.
  void Replace(const Node& node, const std::string& op_type, std::vector<NodeArg*> inputs,
               std::map<std::string, Attribute> attributes) {
    NodeArg* original = node.Outputs()[0];
    NodeArg* output = NewChannelsLastValue(original);
    const IExecutionProvider* provider = ProviderOf(node.Index());
    const std::string name = node.Name();
    graph_.RemoveNode(node.Index());
    Node& added = graph_.AddNode(graph_.UniqueNodeName(name), op_type, kMs, 1, std::move(inputs),
                                 {output}, std::move(attributes));
    if (context_.on_fused) context_.on_fused(graph_, {name}, added.Index(), provider);
    channels_last_[original] = ChannelsLast{output, provider};
    changed_ = true;
  }

  void TryConv(const Node& conv) {
    // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point[, B]
    if (conv.InputCount() < 8 || conv.InputCount() > 9 || conv.OutputCount() != 1 ||
        !conv.HasInput(3))
      return;
    const Tensor* w = ConstantInput(graph_, conv, 3);
    if (w == nullptr || w->Shape().Rank() != 4) return;  // 2-D convolutions only
    NodeArg* x = conv.Inputs()[0];
    const ChannelsLast* x_last = Find(x);
    // An NCHW input of unknown rank might not be 4-D; the Transpose would reject it.
    if (x_last == nullptr && (RankOf(x) != std::optional<size_t>(4) || !Is8Bit(x))) return;
    std::vector<NodeArg*> inputs = conv.Inputs();
    inputs[0] = x_last != nullptr ? x_last->value : EntryTranspose(x, ProviderOf(conv.Index()));
    std::map<std::string, Attribute> attributes = conv.Attributes();
    attributes["channels_last"] = IntAttribute("channels_last", 1);
    Replace(conv, "QLinearConv", std::move(inputs), std::move(attributes));
  }

  void TryAdd(const Node& add) {
    // A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point
    if (add.InputCount() != 8 || add.OutputCount() != 1 || !add.HasInput(3)) return;
    const ChannelsLast* a = Find(add.Inputs()[0]);
    const ChannelsLast* b = Find(add.Inputs()[3]);
    // Both 4-D and permuted alike: numpy broadcasting pairs the axes one by one, so the sum of
    // the NHWC values is the NHWC sum, broadcast or not. An NCHW or lower-rank operand would
    // pair the wrong axes: such an add reads the NCHW value back instead.
    if (a == nullptr || b == nullptr) return;
    NodeArg* original = add.Outputs()[0];
    NodeArg* output = NewChannelsLastValue(original);
    graph_.SetNodeInput(add.Index(), 0, a->value);
    graph_.SetNodeInput(add.Index(), 3, b->value);
    graph_.SetNodeOutput(add.Index(), 0, output);
    channels_last_[original] = ChannelsLast{output, ProviderOf(add.Index())};
    changed_ = true;
  }

  void TryMaxPool(const Node& pool) {
    if (pool.InputCount() != 1 || !OnlyFirstOutputsUsed(graph_, pool, 1)) return;
    const ChannelsLast* x = Find(pool.Inputs()[0]);
    if (x == nullptr || !Is8Bit(pool.Inputs()[0])) return;
    if (IntAttr(pool, "storage_order", 0) != 0) return;  // only the Indices output depends on it
    const Attribute* kernel = pool.FindAttribute("kernel_shape");
    if (kernel == nullptr || kernel->ints.size() != 2) return;
    std::map<std::string, Attribute> attributes;
    for (const char* name :
         {"auto_pad", "kernel_shape", "dilations", "pads", "strides", "ceil_mode"})
      if (const Attribute* attr = pool.FindAttribute(name)) attributes[name] = *attr;
    Replace(pool, "NhwcMaxPool", {x->value}, std::move(attributes));
  }

  void TryGlobalAveragePool(const Node& pool) {
    if (pool.OutputCount() != 1) return;
    const ChannelsLast* x = Find(pool.Inputs()[0]);
    if (x == nullptr) return;
    std::vector<NodeArg*> inputs = pool.Inputs();
    inputs[0] = x->value;
    std::map<std::string, Attribute> attributes = pool.Attributes();
    attributes["channels_last"] = IntAttribute("channels_last", 1);
    Replace(pool, "QLinearGlobalAveragePool", std::move(inputs), std::move(attributes));
  }

  // One Transpose(0, 3, 1, 2) per channels-last original that a graph output or an unconverted
  // node still reads; it writes the original value.
  void AddTransposesBack() {
    std::set<const NodeArg*> read;
    for (const NodeArg* output : graph_.Outputs()) read.insert(output);
    for (const auto& slot : graph_.Nodes()) {
      if (!slot) continue;
      for (const NodeArg* input : slot->Inputs()) read.insert(input);
      for (const NodeArg* input : slot->ImplicitInputs()) read.insert(input);
    }
    for (auto& [original, last] : channels_last_) {
      if (!read.count(original)) continue;
      NodeArg* nchw = const_cast<NodeArg*>(original);
      AddTranspose(nchw->name + "_to_nchw", last.value, nchw, {0, 3, 1, 2}, last.provider);
    }
  }

  const GraphTransformer& pass_;
  Graph& graph_;
  const TransformContext& context_;
  const int onnx_opset_;
  std::map<const NodeArg*, ChannelsLast> channels_last_;
  std::unordered_map<const NodeArg*, NodeArg*> entries_;
  bool changed_ = false;
};

class NhwcTransformer final : public GraphTransformer {
 public:
  NhwcTransformer() : GraphTransformer("NhwcTransformer", TransformerLevel::kLayout, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    // The Transposes it inserts are ONNX-domain nodes of the model's ONNX opset.
    const auto& opsets = graph.OwnerModel().OpsetImports();
    const auto onnx = opsets.find("");
    if (onnx == opsets.end()) return false;
    return Rewriter(*this, graph, context, onnx->second).Run();
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeNhwcTransformer() {
  return std::make_unique<NhwcTransformer>();
}

}  // namespace prism
