// NchwcTransformer (onnxruntime's name, layout level, CPU EP): rewrites float 2-D convolution
// regions into the channel-blocked NCHWc layout of the com.microsoft.nchwc ops (block size b =
// mlas::NchwcBlockSize(); logical shape [N, Cp, H, W], Cp = channels rounded up to b).
//   - Conv and com.microsoft FusedConv with constant W (and B) become nchwc.Conv in one of the
//     kernels' three kinds: blocked input (group 1), NCHW input (group 1, fewer than b input
//     channels, no reorder: a network's first convolution), depthwise (group == channels ==
//     filters). W is padded to [Mp, Cin_w, KH, KW] (zero filters for the padded outputs, zero taps
//     for the padded input channels of a blocked input) and its floats written in onnxruntime's
//     filter order (OIHWBiBo / OIHWBo, mlas/nchwc_filter_order.h), B padded to [Mp]; FusedConv's
//     Z is the Sum. So a saved optimized model runs in onnxruntime on a CPU of the same block.
//     Another NCHW input gets a ReorderInput (one per value, shared).
//   - A blocked value stays blocked through MaxPool / AveragePool / GlobalMaxPool /
//     GlobalAveragePool (-> nchwc versions), same-shape Add / Mul / Sum of two blocked values with
//     the same real channel count, finite-to-finite unary ops (Relu, Clip with constant bounds,
//     Sigmoid, Tanh, LeakyRelu, HardSigmoid, HardSwish) and Concat on the channel axis of blocked
//     values whose channel counts are multiples of b; these keep their op types (they work on the
//     logical padded shape unchanged).
//   - Every other reader, and a graph output, gets the NCHW value back from one ReorderOutput per
//     value, which writes the original value (a graph output keeps its name).
// Nodes are rewritten only when the channel counts they depend on are known (the session's
// inferred shapes); batch and spatial dims may be symbolic (the kernels take them at run time).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "mlas/nchwc.h"
#include "mlas/nchwc_filter_order.h"
#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";
constexpr const char* kNchwc = "com.microsoft.nchwc";

int64_t RoundUp(int64_t value, int64_t block) {
  return (value + block - 1) / block * block;
}

// A value the pass made blocked: the NCHWc value that replaces an original NCHW one.
struct Blocked {
  NodeArg* value = nullptr;
  int64_t channels = 0;                          // real channels (the original's dim 1)
  const IExecutionProvider* provider = nullptr;  // its producer's EP
};

// A weight or bias padded from a source initializer (for DropDerivedSources after Resolve).
struct Derived {
  std::string name;
  TransformContext::Sources sources;
  TransformContext::Rebuild rebuild;
};

// The known channel count (dim 1) of a 4-D value.
std::optional<int64_t> Channels4D(const NodeArg* arg) {
  if (arg == nullptr || !arg->shape || arg->shape->dims.size() != 4) return std::nullopt;
  const Dim& dim = arg->shape->dims[1];
  if (!dim.IsKnown() || dim.value <= 0) return std::nullopt;
  return dim.value;
}

int64_t IntAttr(const Node& node, const char* name, int64_t fallback) {
  const Attribute* attr = node.FindAttribute(name);
  return attr ? attr->i : fallback;
}

// Unary ops that map finite values to finite ones, so the padded lanes stay finite.
bool IsFiniteUnary(const Graph& graph, const Node& node) {
  if (!node.Domain().empty() || node.InputCount() == 0 || !node.HasInput(0)) return false;
  static const std::set<std::string> kOps = {"Relu",      "Sigmoid",     "Tanh",
                                             "LeakyRelu", "HardSigmoid", "HardSwish"};
  if (kOps.count(node.OpType())) return node.InputCount() == 1;
  if (node.OpType() != "Clip") return false;
  for (size_t i = 1; i < node.InputCount(); ++i)
    if (node.HasInput(i) && ConstantInput(graph, node, i) == nullptr) return false;
  return true;
}

class Rewriter {
 public:
  Rewriter(const GraphTransformer& pass, Graph& graph, const TransformContext& context)
      : pass_(pass), graph_(graph), context_(context), block_(mlas::NchwcBlockSize()) {}

  bool Run() {
    for (NodeIndex index : std::vector<NodeIndex>(graph_.TopologicalOrder())) {
      const Node* node = graph_.FindNode(index);
      if (node == nullptr || !pass_.MayTouch(graph_, index, context_)) continue;
      if (node->OutputCount() == 0 || !node->HasOutput(0)) continue;
      if (!IsFloatTensor(node->Outputs()[0])) continue;
      const std::string& op = node->OpType();
      if ((op == "Conv" && node->Domain().empty()) ||
          (op == "FusedConv" && node->Domain() == "com.microsoft"))
        TryConv(*node);
      else if (node->Domain().empty() && (op == "MaxPool" || op == "AveragePool" ||
                                          op == "GlobalMaxPool" || op == "GlobalAveragePool"))
        TryPool(*node);
      else if (node->Domain().empty() && (op == "Add" || op == "Mul" || op == "Sum"))
        TryBinary(*node);
      else if (IsFiniteUnary(graph_, *node))
        TryUnary(*node);
      else if (node->Domain().empty() && op == "Concat")
        TryConcat(*node);
    }
    if (!changed_) return false;
    AddReorderOutputs();
    graph_.Resolve();
    for (Derived& derived : derived_)
      DropDerivedSources(graph_, context_, derived.name, derived.sources, derived.rebuild);
    return true;
  }

 private:
  const IExecutionProvider* ProviderOf(NodeIndex index) const {
    return context_.provider_of ? context_.provider_of(graph_, index) : nullptr;
  }

  const Blocked* FindBlocked(const NodeArg* value) const {
    auto it = blocked_.find(value);
    return it == blocked_.end() ? nullptr : &it->second;
  }

  // A new float value with the original's shape and `padded` channels.
  NodeArg* NewBlockedValue(const NodeArg* original, int64_t padded) {
    NodeArg* value = graph_.GetOrCreateValue(graph_.UniqueValueName(original->name + "_nchwc"));
    value->type = ValueType::Tensor(ElementType::kFloat);
    SymbolicShape shape;
    if (original->shape && original->shape->dims.size() == 4)
      shape = *original->shape;
    else
      shape.dims.resize(4);
    shape.dims[1] = Dim{padded, ""};
    value->shape = shape;
    return value;
  }

  // The blocked form of an NCHW value: a ReorderInput made once per value.
  NodeArg* ReorderedInput(NodeArg* nchw, int64_t channels, const IExecutionProvider* provider) {
    if (auto it = reordered_inputs_.find(nchw); it != reordered_inputs_.end()) return it->second;
    NodeArg* value = NewBlockedValue(nchw, RoundUp(channels, block_));
    Node& reorder = graph_.AddNode(graph_.UniqueNodeName(nchw->name + "_reorder_input"),
                                   "ReorderInput", kNchwc, 1, {nchw}, {value});
    if (context_.on_fused) context_.on_fused(graph_, {}, reorder.Index(), provider);
    reordered_inputs_[nchw] = value;
    return value;
  }

  // Replaces node by a node of op_type in domain (same name, attributes given) that reads inputs
  // and writes a new blocked value for its output 0, which becomes blocked with `channels`.
  void Replace(const Node& node, const std::string& op_type, const std::string& domain,
               std::vector<NodeArg*> inputs, std::map<std::string, Attribute> attributes,
               int64_t channels, int64_t padded) {
    NodeArg* original = node.Outputs()[0];
    NodeArg* output = NewBlockedValue(original, padded);
    const IExecutionProvider* provider = ProviderOf(node.Index());
    const std::string name = node.Name();
    const int opset = domain == kNchwc ? 1 : node.OpsetVersion();
    graph_.RemoveNode(node.Index());
    Node& added = graph_.AddNode(graph_.UniqueNodeName(name), op_type, domain, opset,
                                 std::move(inputs), {output}, std::move(attributes));
    if (context_.on_fused) context_.on_fused(graph_, {name}, added.Index(), provider);
    blocked_[original] = Blocked{output, channels, provider};
    changed_ = true;
  }

  // Keeps node (a layout-agnostic op) and makes it read and write blocked values.
  void Rewire(const Node& node, const std::vector<const Blocked*>& inputs, int64_t channels,
              int64_t padded) {
    NodeArg* original = node.Outputs()[0];
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] != nullptr) graph_.SetNodeInput(node.Index(), i, inputs[i]->value);
    NodeArg* output = NewBlockedValue(original, padded);
    graph_.SetNodeOutput(node.Index(), 0, output);
    blocked_[original] = Blocked{output, channels, ProviderOf(node.Index())};
    changed_ = true;
  }

  void TryConv(const Node& conv) {
    if (conv.InputCount() < 2 || !conv.HasInput(0)) return;  // a malformed node: left alone
    NodeArg* x = conv.Inputs()[0];
    const Tensor* w = ConstantInput(graph_, conv, 1);
    const Tensor* b = ConstantInput(graph_, conv, 2);
    if (!IsFloatTensor(x) || w == nullptr || w->Type() != ElementType::kFloat ||
        w->Shape().Rank() != 4 || (conv.HasInput(2) && b == nullptr))
      return;
    const bool fused = conv.OpType() == "FusedConv";
    if (conv.InputCount() > (fused ? 4u : 3u) || conv.OutputCount() != 1) return;
    static const std::set<std::string> kActivations = {
        "", "Relu", "LeakyRelu", "Clip", "HardSigmoid", "Sigmoid", "Tanh"};
    if (const Attribute* activation = conv.FindAttribute("activation");
        activation != nullptr && !kActivations.count(activation->s))
      return;
    // The parameter counts the kernel takes (FusedConv's): a node with others stays FusedConv,
    // whose kernel reports them.
    if (const Attribute* activation = conv.FindAttribute("activation"); activation != nullptr) {
      const Attribute* params = conv.FindAttribute("activation_params");
      const size_t given = params ? params->floats.size() : 0;
      const std::string& name = activation->s;
      const size_t needed = name == "LeakyRelu"                         ? 1
                            : (name == "Clip" || name == "HardSigmoid") ? 2
                                                                        : 0;
      if (given != needed) return;
    }
    const Blocked* x_blocked = FindBlocked(x);
    const std::optional<int64_t> x_channels =
        x_blocked ? std::optional<int64_t>(x_blocked->channels) : Channels4D(x);
    if (!x_channels) return;
    const int64_t filters = w->Shape()[0], per_group = w->Shape()[1];
    const int64_t kh = w->Shape()[2], kw = w->Shape()[3];
    const int64_t group = IntAttr(conv, "group", 1);
    if (filters <= 0 || per_group <= 0 || group <= 0 || kh <= 0 || kw <= 0) return;
    if (b != nullptr && (b->Type() != ElementType::kFloat || b->Shape() != TensorShape({filters})))
      return;
    const int64_t channels = *x_channels;
    const int64_t padded_filters = RoundUp(filters, block_);
    enum class Kind { kBlocked, kNchwInput, kDepthwise } kind;
    if (group == 1 && per_group == channels)
      kind = x_blocked == nullptr && channels < block_ ? Kind::kNchwInput : Kind::kBlocked;
    else if (group == channels && filters == channels && per_group == 1)
      kind = Kind::kDepthwise;
    else
      return;
    // The Sum (FusedConv's Z): the output's shape and channels, blocked or reordered.
    NodeArg* sum = nullptr;
    const Blocked* z_blocked = nullptr;
    if (fused && conv.HasInput(3)) {
      NodeArg* z = conv.Inputs()[3];
      if (!IsFloatTensor(z)) return;
      z_blocked = FindBlocked(z);
      if (z_blocked != nullptr ? z_blocked->channels != filters
                               : Channels4D(z) != std::optional<int64_t>(filters))
        return;
      if (!SameShape(z, conv.Outputs()[0])) return;
      sum = z;
    }

    const IExecutionProvider* provider = ProviderOf(conv.Index());
    NodeArg* input = x;
    int64_t weight_inputs = per_group;  // Cin_w
    if (kind == Kind::kBlocked) {
      input = x_blocked ? x_blocked->value : ReorderedInput(x, channels, provider);
      weight_inputs = RoundUp(channels, block_);
    } else if (kind == Kind::kDepthwise) {
      input = x_blocked ? x_blocked->value : ReorderedInput(x, channels, provider);
    }
    if (sum != nullptr) sum = z_blocked ? z_blocked->value : ReorderedInput(sum, filters, provider);

    // W [filters, per_group, KH, KW] -> [Mp, Cin_w, KH, KW], zeros around, its floats in
    // onnxruntime's order (mlas/nchwc_filter_order.h) so that a saved model runs there too.
    const int64_t taps = kh * kw;
    const mlas::NchwcFilterOrder order = kind == Kind::kBlocked ? mlas::NchwcFilterOrder::kOIHWBiBo
                                                                : mlas::NchwcFilterOrder::kOIHWBo;
    const mlas::NchwcFilterDims dims{padded_filters, weight_inputs, kh, kw, block_};
    Tensor ordered_w(ElementType::kFloat, TensorShape({padded_filters, weight_inputs, kh, kw}),
                     GetCpuAllocator());
    mlas::NchwcOrderPaddedFilter(order, dims, w->Data<float>(), filters, per_group,
                                 ordered_w.MutableData<float>());
    const std::string w_name = graph_.UniqueValueName(conv.Inputs()[1]->name + "_nchwc");
    derived_.push_back(Derived{
        w_name,
        {{conv.Inputs()[1]->name, *w}},
        [filters, per_group, taps, order, dims](const Tensor& derived, size_t) {
          std::vector<float> oihw(static_cast<size_t>(derived.NumElements()));
          mlas::NchwcUnorderFilter(order, dims, derived.Data<float>(), oihw.data());
          Tensor original(ElementType::kFloat,
                          TensorShape({filters, per_group, derived.Shape()[2], derived.Shape()[3]}),
                          GetCpuAllocator());
          const int64_t stride = dims.input_channels * taps;
          for (int64_t m = 0; m < filters; ++m)
            std::copy(oihw.data() + m * stride, oihw.data() + m * stride + per_group * taps,
                      original.MutableData<float>() + m * per_group * taps);
          return original;
        }});
    graph_.AddInitializer(w_name, std::move(ordered_w));
    NodeArg* bias = nullptr;
    if (b != nullptr) {
      Tensor padded_b(ElementType::kFloat, TensorShape({padded_filters}), GetCpuAllocator());
      float* pb = padded_b.MutableData<float>();
      std::fill(pb, pb + padded_filters, 0.0f);
      std::copy(b->Data<float>(), b->Data<float>() + filters, pb);
      const std::string b_name = graph_.UniqueValueName(conv.Inputs()[2]->name + "_nchwc");
      derived_.push_back(
          Derived{b_name, {{conv.Inputs()[2]->name, *b}}, [filters](const Tensor& derived, size_t) {
                    Tensor original(ElementType::kFloat, TensorShape({filters}), GetCpuAllocator());
                    std::copy(derived.Data<float>(), derived.Data<float>() + filters,
                              original.MutableData<float>());
                    return original;
                  }});
      graph_.AddInitializer(b_name, std::move(padded_b));
      bias = graph_.MutableNodeArg(b_name);
    }

    std::map<std::string, Attribute> attributes;
    for (const char* name : {"auto_pad", "dilations", "kernel_shape", "pads", "strides",
                             "activation", "activation_params"})
      if (const Attribute* attr = conv.FindAttribute(name)) attributes[name] = *attr;
    if (kind == Kind::kDepthwise) attributes["group"] = IntAttribute("group", padded_filters);
    std::vector<NodeArg*> inputs = {input, graph_.MutableNodeArg(w_name), bias, sum};
    while (inputs.back() == nullptr) inputs.pop_back();
    const size_t first_derived = derived_.size() - (b != nullptr ? 2 : 1);
    Replace(conv, "Conv", kNchwc, std::move(inputs), std::move(attributes), filters,
            padded_filters);
    DropUnreadSourcesNow(first_derived);
  }

  // Drops the sources of derived_[first...] that no node reads any more, now rather than after
  // the pass: a CNN's folded weights would otherwise all live beside their ordered copies until
  // the end (resnet50: about 100 MB more at the session's peak). A source still read, or not
  // known to be unread, waits for the pass's Resolve as before.
  void DropUnreadSourcesNow(size_t first) {
    for (size_t i = first; i < derived_.size();) {
      Derived& derived = derived_[i];
      const bool unread = std::none_of(derived.sources.begin(), derived.sources.end(),
                                       [&](const auto& source) { return StillRead(source.first); });
      if (!unread) {
        ++i;
        continue;
      }
      for (const auto& source : derived.sources)
        if (graph_.IsConstantInitializer(source.first)) graph_.RemoveInitializer(source.first);
      DropDerivedSources(graph_, context_, derived.name, derived.sources, derived.rebuild);
      derived_.erase(derived_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // Whether a node still in the graph, or the graph's outputs, may read `name`. Consumers are as
  // of the last Resolve: the nodes this pass removed are gone (FindNode is null), and the ones it
  // added read only values it made, never a source weight.
  bool StillRead(const std::string& name) const {
    const NodeArg* arg = graph_.FindNodeArg(name);
    if (arg == nullptr) return false;
    if (graph_.IsOutput(arg) || !graph_.IsConstantInitializer(name)) return true;
    for (const NodeIndex reader : graph_.Consumers(name)) {
      const Node* node = graph_.FindNode(reader);
      if (node == nullptr) continue;
      const auto reads = [arg](const std::vector<NodeArg*>& values) {
        return std::find(values.begin(), values.end(), arg) != values.end();
      };
      if (reads(node->Inputs()) || reads(node->ImplicitInputs())) return true;
    }
    return false;
  }

  void TryPool(const Node& pool) {
    if (pool.InputCount() != 1 || !pool.HasInput(0)) return;
    const Blocked* x = FindBlocked(pool.Inputs()[0]);
    if (x == nullptr || !OnlyFirstOutputsUsed(graph_, pool, 1)) return;
    const std::string op = pool.OpType();  // a copy: Replace removes the node
    if (op == "MaxPool" && IntAttr(pool, "storage_order", 0) != 0) return;
    if (const Attribute* dilations = pool.FindAttribute("dilations");
        op == "AveragePool" && dilations != nullptr &&
        std::any_of(dilations->ints.begin(), dilations->ints.end(),
                    [](int64_t d) { return d != 1; }))
      return;  // the NCHWc AveragePool has no dilations
    std::map<std::string, Attribute> attributes;
    for (const auto& [name, attr] : pool.Attributes())
      if (name != "storage_order" && !(op == "AveragePool" && name == "dilations"))
        attributes[name] = attr;
    Replace(pool, op, kNchwc, {x->value}, std::move(attributes), x->channels,
            RoundUp(x->channels, block_));
  }

  void TryBinary(const Node& node) {
    if (node.InputCount() != 2 || node.OutputCount() != 1 || !node.HasInput(0) || !node.HasInput(1))
      return;
    const Blocked* a = FindBlocked(node.Inputs()[0]);
    const Blocked* b = FindBlocked(node.Inputs()[1]);
    if (a == nullptr || b == nullptr || a->channels != b->channels) return;
    if (!SameShape(node.Inputs()[0], node.Inputs()[1]) ||
        !SameShape(node.Inputs()[0], node.Outputs()[0]))
      return;
    Rewire(node, {a, b}, a->channels, RoundUp(a->channels, block_));
  }

  void TryUnary(const Node& node) {
    if (node.InputCount() == 0 || !node.HasInput(0)) return;
    const Blocked* x = FindBlocked(node.Inputs()[0]);
    if (x == nullptr || node.OutputCount() != 1) return;
    std::vector<const Blocked*> inputs(node.InputCount(), nullptr);
    inputs[0] = x;
    Rewire(node, inputs, x->channels, RoundUp(x->channels, block_));
  }

  void TryConcat(const Node& node) {
    const int64_t axis = IntAttr(node, "axis", 0);
    if ((axis != 1 && axis != -3) || node.OutputCount() != 1 || node.InputCount() == 0) return;
    std::vector<const Blocked*> inputs;
    int64_t channels = 0;
    for (size_t i = 0; i < node.InputCount(); ++i) {
      const Blocked* input = node.HasInput(i) ? FindBlocked(node.Inputs()[i]) : nullptr;
      if (input == nullptr || input->channels % block_ != 0) return;
      inputs.push_back(input);
      channels += input->channels;
    }
    Rewire(node, inputs, channels, channels);
  }

  // One ReorderOutput per blocked original that a graph output or an unconverted node still
  // reads; it writes the original value.
  void AddReorderOutputs() {
    std::set<const NodeArg*> read;
    for (const NodeArg* output : graph_.Outputs()) read.insert(output);
    for (const auto& slot : graph_.Nodes()) {
      if (!slot) continue;
      for (const NodeArg* input : slot->Inputs()) read.insert(input);
      for (const NodeArg* input : slot->ImplicitInputs()) read.insert(input);
    }
    for (auto& [original, blocked] : blocked_) {
      if (!read.count(original)) continue;
      Attribute channels = IntAttribute("channels", blocked.channels);
      NodeArg* nchw = const_cast<NodeArg*>(original);
      Node& reorder =
          graph_.AddNode(graph_.UniqueNodeName(nchw->name + "_reorder_output"), "ReorderOutput",
                         kNchwc, 1, {blocked.value}, {nchw}, {{"channels", channels}});
      if (context_.on_fused) context_.on_fused(graph_, {}, reorder.Index(), blocked.provider);
    }
  }

  const GraphTransformer& pass_;
  Graph& graph_;
  const TransformContext& context_;
  const int64_t block_;
  std::map<const NodeArg*, Blocked> blocked_;
  std::unordered_map<const NodeArg*, NodeArg*> reordered_inputs_;
  std::vector<Derived> derived_;
  bool changed_ = false;
};

class NchwcTransformer final : public GraphTransformer {
 public:
  NchwcTransformer() : GraphTransformer("NchwcTransformer", TransformerLevel::kLayout, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    return Rewriter(*this, graph, context).Run();
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeNchwcTransformer() {
  return std::make_unique<NchwcTransformer>();
}

}  // namespace prism
