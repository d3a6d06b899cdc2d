#include "providers/dnnl/dnnl_op_support.h"

#include <algorithm>
#include <set>

namespace prism::dnnl_ep {

const std::vector<std::string>& ClaimedOpTypes() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> list = {
        "Abs",         "Add",           "AveragePool",        "BatchNormalization",
        "Clip",        "Concat",        "Conv",               "ConvTranspose",
        "Div",         "Elu",           "Exp",                "Flatten",
        "Gelu",        "Gemm",          "GlobalAveragePool",  "GlobalMaxPool",
        "LayerNormalization",           "LeakyRelu",          "LRN",
        "MatMul",      "MaxPool",       "Mul",                "Neg",
        "ReduceL1",    "ReduceL2",      "ReduceMax",          "ReduceMean",
        "ReduceMin",   "ReduceProd",    "ReduceSum",          "ReduceSumSquare",
        "Relu",        "Reshape",       "Sigmoid",            "Softmax",
        "Sqrt",        "Squeeze",       "Sub",                "Sum",
        "Tanh",        "Transpose",     "Unsqueeze"};
    std::sort(list.begin(), list.end());
    return list;
  }();
  return ops;
}

namespace {

bool IsClaimedOpType(const std::string& op) {
  const auto& ops = ClaimedOpTypes();
  return std::binary_search(ops.begin(), ops.end(), op);
}

const Attribute* Find(const Node& node, const std::string& name) {
  return node.FindAttribute(name);
}

std::string Join(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

// "" when arg is a float32 tensor, else why not.
std::string NotFloat(const NodeArg* arg, const char* what) {
  if (arg == nullptr) return "";
  if (arg->type.kind != TypeKind::kTensor)
    return MakeString(what, " '", arg->name, "' is ", arg->type.ToString(),
                      ", not a tensor (only float32 tensors)");
  if (arg->type.elem != ElementType::kFloat)
    return MakeString(what, " '", arg->name, "' has element type ",
                      arg->type.elem == ElementType::kUndefined ? "unknown"
                                                                : ElementTypeName(arg->type.elem),
                      " (only float32)");
  return "";
}

// The static rank of arg, or -1 when unknown.
int64_t RankOf(const NodeArg* arg) {
  return arg && arg->shape ? static_cast<int64_t>(arg->shape->dims.size()) : -1;
}

std::string NeedRank(const NodeArg* arg, const char* what, int64_t low, int64_t high) {
  const int64_t rank = RankOf(arg);
  if (rank < 0)
    return MakeString(what, " '", arg->name,
                      "' has an unknown (dynamic) rank; the EP needs the rank when it claims a node");
  if (rank < low || rank > high)
    return low == high ? MakeString(what, " has rank ", rank, ", only rank ", low, " is supported")
                       : MakeString(what, " has rank ", rank, ", only ranks ", low, " to ", high,
                                    " are supported");
  return "";
}

bool ValidAutoPad(const std::string& text) {
  return text.empty() || text == "NOTSET" || text == "SAME_UPPER" || text == "SAME_LOWER" ||
         text == "VALID";
}

// Conv and pooling attributes: sizes that fit the spatial rank, positive strides/dilations,
// non-negative pads. The CPU EP reports malformed ones; the EP only declines them.
std::string WindowAttributes(const Node& node, int64_t spatial, bool kernel_required) {
  const std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
  if (!ValidAutoPad(auto_pad)) return MakeString("auto_pad '", auto_pad, "' is not supported");
  const std::vector<int64_t> kernel = AttrInts(node, "kernel_shape");
  if (kernel_required && kernel.empty()) return "kernel_shape is missing";
  if (!kernel.empty() && static_cast<int64_t>(kernel.size()) != spatial)
    return MakeString("kernel_shape ", Join(kernel), " does not match ", spatial,
                      " spatial dims");
  for (int64_t k : kernel)
    if (k <= 0) return MakeString("kernel_shape ", Join(kernel), " has a non-positive entry");
  for (const char* name : {"strides", "dilations"}) {
    const std::vector<int64_t> values = AttrInts(node, name);
    if (!values.empty() && static_cast<int64_t>(values.size()) != spatial)
      return MakeString(name, " ", Join(values), " does not match ", spatial, " spatial dims");
    for (int64_t v : values)
      if (v <= 0) return MakeString(name, " ", Join(values), " has a non-positive entry");
  }
  const std::vector<int64_t> pads = AttrInts(node, "pads");
  if (!pads.empty() && static_cast<int64_t>(pads.size()) != 2 * spatial)
    return MakeString("pads ", Join(pads), " does not match ", spatial, " spatial dims");
  for (int64_t p : pads)
    if (p < 0) return MakeString("pads ", Join(pads), " has a negative entry (oneDNN pads >= 0)");
  return "";
}

// ConvTranspose: the window attributes, output_padding and output_shape, and pads oneDNN can
// take. oneDNN's deconvolution derives its output size from the pads, (in - 1) * stride +
// window - pad_l - pad_r, with pad_l >= 0 and pad_r > -stride; ONNX's output_padding (cells added
// at the end) becomes a smaller right pad, and output_shape / SAME_* give the pads of the spec's
// equations (DeconvPads, shared with the subgraph compiler).
std::string ConvTransposeAttributes(const Node& node) {
  const NodeArg* x = node.Inputs()[0];
  if (std::string why = NeedRank(x, "X", 3, 5); !why.empty()) return why;
  const int64_t rank = RankOf(x), spatial = rank - 2;
  if (!node.HasInput(1)) return "no weights W";
  if (RankOf(node.Inputs()[1]) != rank)
    return MakeString("W has rank ", RankOf(node.Inputs()[1]), ", X has rank ", rank);
  if (node.HasInput(2) && RankOf(node.Inputs()[2]) != 1) return "bias B is not 1-D";
  if (AttrInt(node, "group", 1) < 1) return "group < 1";
  if (std::string why = WindowAttributes(node, spatial, false); !why.empty()) return why;
  const std::vector<int64_t> output_padding = AttrInts(node, "output_padding");
  if (!output_padding.empty() && static_cast<int64_t>(output_padding.size()) != spatial)
    return MakeString("output_padding ", Join(output_padding), " does not match ", spatial,
                      " spatial dims");
  for (int64_t p : output_padding)
    if (p < 0) return MakeString("output_padding ", Join(output_padding), " has a negative entry");
  std::vector<int64_t> output_shape = AttrInts(node, "output_shape");
  if (static_cast<int64_t>(output_shape.size()) == rank)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && static_cast<int64_t>(output_shape.size()) != spatial)
    return MakeString("output_shape ", Join(AttrInts(node, "output_shape")), " does not match ",
                      spatial, " spatial dims");
  const std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
  // The pads follow from the input's spatial size only with output_shape; then it must be known.
  std::vector<int64_t> in(spatial, 1);
  if (!output_shape.empty()) {
    for (int64_t i = 0; i < spatial; ++i) {
      const Dim& d = x->shape->dims[2 + i];
      if (!d.IsKnown())
        return MakeString("output_shape with a dynamic spatial dim of X (axis ", 2 + i,
                          "): the pads it implies are checked when the EP claims the node");
      in[i] = d.value;
    }
  }
  const std::vector<int64_t> kernel = AttrInts(node, "kernel_shape");
  if (kernel.empty()) {
    const NodeArg* w = node.Inputs()[1];
    for (int64_t i = 0; i < spatial; ++i)
      if (!w->shape->dims[2 + i].IsKnown())
        return "W has a dynamic spatial dim and there is no kernel_shape";
  }
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t k = kernel.empty() ? node.Inputs()[1]->shape->dims[2 + i].value : kernel[i];
    const DeconvAxis axis = DeconvPads(node, static_cast<size_t>(i), in[i], k);
    if (axis.pad_l < 0)
      return MakeString(!output_shape.empty() ? "output_shape " : "auto_pad ",
                        !output_shape.empty() ? Join(AttrInts(node, "output_shape")) : auto_pad,
                        " gives a negative begin pad ", axis.pad_l, " on spatial axis ", i,
                        " (oneDNN pads >= 0)");
    if (axis.pad_r + axis.stride <= 0)
      return MakeString("output_padding/output_shape leave an end pad of ", axis.pad_r,
                        " on spatial axis ", i, ", beyond oneDNN's limit of -stride + 1 (",
                        1 - axis.stride, ")");
  }
  return "";
}

// An input read on the host must be available before the group runs: a graph input, an
// initializer, or a value a node outside any oneDNN group computes.
std::string HostReadable(const Node& node, size_t input, const Graph& graph, const char* what) {
  if (!node.HasInput(input)) return "";
  const NodeArg* arg = node.Inputs()[input];
  const Node* producer = graph.Producer(arg->name);
  if (producer != nullptr && producer->Domain().empty() && IsClaimedOpType(producer->OpType()))
    return MakeString(what, " '", arg->name, "' is computed by ", producer->Describe(),
                      ", which the EP may fuse; it reads ", what,
                      " on the host when it builds primitives");
  return "";
}

std::string CheckNode(const Node& node, const Graph& graph) {
  const std::string& op = node.OpType();
  const int opset = node.OpsetVersion();
  const auto& in = node.Inputs();
  auto input = [&](size_t i) -> const NodeArg* { return node.HasInput(i) ? in[i] : nullptr; };
  // Every float input and output must be a float32 tensor; inputs read on the host are checked
  // per op.
  for (size_t i = 0; i < node.InputCount(); ++i) {
    if (!node.HasInput(i) || IsHostReadInput(node, i)) continue;
    if (std::string why = NotFloat(in[i], "input"); !why.empty()) return why;
  }
  for (const NodeArg* arg : node.Outputs())
    if (std::string why = NotFloat(arg, "output"); !why.empty()) return why;
  for (size_t i = 0; i < node.InputCount(); ++i)
    if (node.HasInput(i) && !IsHostReadInput(node, i) && RankOf(in[i]) > int64_t(kMaxRank))
      return MakeString("input '", in[i]->name, "' has rank ", RankOf(in[i]),
                        ", above oneDNN's limit of ", kMaxRank);
  for (size_t i = 0; i < node.InputCount(); ++i)
    if (node.HasInput(i) && !IsHostReadInput(node, i) && RankOf(in[i]) < 0)
      return MakeString("input '", in[i]->name,
                        "' has an unknown (dynamic) rank; the EP needs ranks when it claims a node");

  if (op == "Conv") {
    if (std::string why = NeedRank(input(0), "X", 3, 5); !why.empty()) return why;
    const int64_t rank = RankOf(input(0));
    if (node.HasInput(1) && RankOf(input(1)) != rank)
      return MakeString("W has rank ", RankOf(input(1)), ", X has rank ", rank);
    if (node.HasInput(2) && RankOf(input(2)) != 1) return "bias B is not 1-D";
    if (AttrInt(node, "group", 1) < 1) return "group < 1";
    return WindowAttributes(node, rank - 2, false);
  }
  if (op == "MatMul") return "";
  if (op == "Gemm") {
    if (std::string why = NeedRank(input(0), "A", 2, 2); !why.empty()) return why;
    if (std::string why = NeedRank(input(1), "B", 2, 2); !why.empty()) return why;
    if (node.HasInput(2) && RankOf(input(2)) > 2) return "C has rank above 2";
    for (const char* name : {"transA", "transB"}) {
      const int64_t value = AttrInt(node, name, 0);
      if (value != 0 && value != 1) return MakeString(name, " ", value, " is not 0 or 1");
    }
    return "";
  }
  if (op == "MaxPool" || op == "AveragePool") {
    if (node.HasOutput(1))
      return "MaxPool's Indices output is not supported (oneDNN gives no indices)";
    if (std::string why = NeedRank(input(0), "X", 3, 5); !why.empty()) return why;
    if (op == "AveragePool" && AttrInt(node, "ceil_mode", 0) != 0 &&
        AttrInt(node, "count_include_pad", 0) != 0)
      return "AveragePool with ceil_mode=1 and count_include_pad=1: oneDNN would count the "
             "ceil-mode taps beyond the end pads in the divisor, ONNX does not";
    return WindowAttributes(node, RankOf(input(0)) - 2, true);
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return NeedRank(input(0), "X", 3, 5);
  if (op == "BatchNormalization") {
    if (AttrInt(node, "training_mode", 0) != 0)
      return "training_mode=1 (only inference: running mean and variance)";
    for (size_t o = 1; o < node.OutputCount(); ++o)
      if (node.HasOutput(o)) return "outputs beyond Y (training statistics) are not supported";
    if (opset < 9 && AttrInt(node, "spatial", 1) != 1)
      return "spatial=0 (per-element statistics) is not supported";
    if (node.InputCount() < 5) return "fewer than 5 inputs";
    if (std::string why = NeedRank(input(0), "X", 2, 5); !why.empty()) return why;
    for (size_t i = 1; i < 5; ++i)
      if (RankOf(input(i)) != 1) return MakeString("input ", i, " is not 1-D");
    return "";
  }
  if (op == "Clip") {
    for (size_t i = 1; i < 3; ++i) {
      if (!node.HasInput(i)) continue;
      if (std::string why = NotFloat(in[i], i == 1 ? "min" : "max"); !why.empty()) return why;
      if (std::string why = HostReadable(node, i, graph, i == 1 ? "min" : "max"); !why.empty())
        return why;
    }
    return "";
  }
  if (op == "Gelu") {
    const std::string approximate = AttrString(node, "approximate", "none");
    if (approximate != "none" && approximate != "tanh")
      return MakeString("approximate '", approximate, "' is not supported");
    return "";
  }
  if (IsEltwiseOp(node)) return "";
  if (op == "Softmax") {
    const int64_t rank = RankOf(input(0));
    if (rank < 1) return "input has rank 0";
    const int64_t axis = AttrInt(node, "axis", opset >= 13 ? -1 : 1);
    if (axis < -rank || axis >= rank)
      return MakeString("axis ", axis, " is out of range for rank ", rank);
    return "";
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (opset < 7 && AttrInt(node, "broadcast", 0) != 0)
      return "the legacy broadcast/axis attributes (opset < 7) are not supported";
    return "";
  }
  if (op == "Sum") return "";
  if (op == "Transpose") {
    const int64_t rank = RankOf(input(0));
    const std::vector<int64_t> perm = AttrInts(node, "perm");
    if (!perm.empty()) {
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t i = 0; i < static_cast<int64_t>(sorted.size()); ++i)
        if (sorted[i] != i || static_cast<int64_t>(sorted.size()) != rank)
          return MakeString("perm ", Join(perm), " is not a permutation of rank ", rank);
    }
    return "";
  }
  if (op == "Reshape") {
    if (opset < 5) return "Reshape-1 (shape as an attribute) is not supported";
    if (!node.HasInput(1)) return "no shape input";
    if (in[1]->type.elem != ElementType::kInt64) return "shape is not int64";
    return HostReadable(node, 1, graph, "shape");
  }
  if (op == "Flatten") {
    const int64_t rank = RankOf(input(0));
    const int64_t axis = AttrInt(node, "axis", 1);
    if (axis < -rank || axis > rank)
      return MakeString("axis ", axis, " is out of range for rank ", rank);
    return "";
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    if (opset >= 13) {
      if (node.HasInput(1)) {
        if (in[1]->type.elem != ElementType::kInt64) return "axes is not int64";
        return HostReadable(node, 1, graph, "axes");
      }
      if (op == "Unsqueeze") return "no axes input";
    } else if (op == "Unsqueeze" && AttrInts(node, "axes").empty()) {
      return "no axes attribute";
    }
    return "";
  }
  if (op == "Concat") {
    const int64_t rank = RankOf(input(0));
    for (size_t i = 1; i < node.InputCount(); ++i)
      if (node.HasInput(i) && RankOf(in[i]) != rank) return "inputs have different ranks";
    if (rank < 1) return "inputs have rank 0";
    if (Find(node, "axis") == nullptr) return "no axis attribute";
    const int64_t axis = AttrInt(node, "axis", 0);
    if (axis < -rank || axis >= rank)
      return MakeString("axis ", axis, " is out of range for rank ", rank);
    return "";
  }
  if (op == "LayerNormalization") {
    const int64_t rank = RankOf(input(0));
    const int64_t axis = AttrInt(node, "axis", -1);
    if (rank < 1) return "input has rank 0";
    if (axis < -rank || axis >= rank)
      return MakeString("axis ", axis, " is out of range for rank ", rank);
    return "";
  }
  if (op == "ConvTranspose") return ConvTransposeAttributes(node);
  if (op == "LRN") {
    if (std::string why = NeedRank(input(0), "X", 2, int64_t(kMaxRank)); !why.empty()) return why;
    if (Find(node, "size") == nullptr) return "size is missing";
    const int64_t size = AttrInt(node, "size", 0);
    if (size < 1) return MakeString("size ", size, " is not positive");
    // oneDNN's window is c - (size-1)/2 .. c + (size-1)/2; ONNX's reaches one channel further
    // up when size is even (c - floor((size-1)/2) .. c + ceil((size-1)/2)).
    if (size % 2 == 0)
      return MakeString("size ", size,
                        " is even: oneDNN's window is symmetric (size - 1 channels), ONNX's "
                        "reaches one channel further up");
    return "";
  }
  if (IsReduceOp(op)) {
    if (RankOf(input(0)) < 1) return "input has rank 0";
    if (ReduceAxesFromInput(node)) {
      if (node.HasInput(1)) {
        if (in[1]->type.elem != ElementType::kInt64) return "axes is not int64";
        return HostReadable(node, 1, graph, "axes");
      }
      return "";
    }
    const int64_t rank = RankOf(input(0));
    for (int64_t axis : AttrInts(node, "axes"))
      if (axis < -rank || axis >= rank)
        return MakeString("axis ", axis, " is out of range for rank ", rank);
    return "";
  }
  return MakeString("op ", op, " is not supported by the oneDNN EP");
}

}  // namespace

int64_t AttrInt(const Node& node, const std::string& name, int64_t fallback) {
  const Attribute* attribute = node.FindAttribute(name);
  return attribute && attribute->type == AttributeType::kInt ? attribute->i : fallback;
}

float AttrFloat(const Node& node, const std::string& name, float fallback) {
  const Attribute* attribute = node.FindAttribute(name);
  return attribute && attribute->type == AttributeType::kFloat ? attribute->f : fallback;
}

std::string AttrString(const Node& node, const std::string& name, const std::string& fallback) {
  const Attribute* attribute = node.FindAttribute(name);
  return attribute && attribute->type == AttributeType::kString ? attribute->s : fallback;
}

std::vector<int64_t> AttrInts(const Node& node, const std::string& name,
                              std::vector<int64_t> fallback) {
  const Attribute* attribute = node.FindAttribute(name);
  return attribute && attribute->type == AttributeType::kInts ? attribute->ints : fallback;
}

bool IsEltwiseOp(const Node& node) {
  // Not Log, LogSoftmax and Softplus: oneDNN 2.6's vectorized log is off by 1.4e-6 at
  // log(1) = 0, and its soft_relu by 1% for inputs below -7 (the node tests catch both).
  static const std::set<std::string> ops = {"Relu", "LeakyRelu", "Elu",  "Tanh", "Sigmoid",
                                            "Clip", "Gelu",      "Abs",  "Sqrt", "Exp",
                                            "Neg"};
  return node.Domain().empty() && ops.count(node.OpType()) > 0;
}

bool IsHostReadInput(const Node& node, size_t input) {
  const std::string& op = node.OpType();
  if (op == "Reshape") return input == 1;
  if (op == "Clip") return input >= 1;
  if (op == "Squeeze" || op == "Unsqueeze") return input == 1;
  if (IsReduceOp(op)) return input == 1;
  return false;
}

namespace {
int64_t RankOfNode(const Node& node) { return RankOf(node.Inputs()[0]); }
}  // namespace

bool IsReduceOp(const std::string& op) {
  static const std::set<std::string> ops = {"ReduceSum", "ReduceMean",  "ReduceMax",
                                            "ReduceMin", "ReduceProd",  "ReduceL1",
                                            "ReduceL2",  "ReduceSumSquare"};
  return ops.count(op) > 0;
}

bool ReduceAxesFromInput(const Node& node) {
  return node.OpsetVersion() >= (node.OpType() == "ReduceSum" ? 13 : 18);
}

DeconvAxis DeconvPads(const Node& node, size_t i, int64_t in, int64_t kernel) {
  const size_t spatial = static_cast<size_t>(RankOfNode(node) - 2);
  DeconvAxis a;
  a.stride = AttrInts(node, "strides", std::vector<int64_t>(spatial, 1))[i];
  a.dilation = AttrInts(node, "dilations", std::vector<int64_t>(spatial, 1))[i];
  a.window = (kernel - 1) * a.dilation + 1;
  const std::vector<int64_t> pads = AttrInts(node, "pads", std::vector<int64_t>(2 * spatial, 0));
  const int64_t output_padding =
      AttrInts(node, "output_padding", std::vector<int64_t>(spatial, 0))[i];
  const std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
  std::vector<int64_t> wanted = AttrInts(node, "output_shape");
  if (wanted.size() == spatial + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
  // As the CPU EP (providers/cpu/nn/conv_transpose.cc): the full result, then the pads.
  const int64_t full = a.stride * (in - 1) + output_padding + a.window;
  int64_t want = -1;
  if (!wanted.empty()) want = wanted[i];
  else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") want = in * a.stride;
  if (want >= 0) {
    // The spec's equations (SAME_UPPER puts the smaller half first) with floor division.
    const int64_t total = full - want;
    const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
    a.pad_l = auto_pad == "SAME_UPPER" ? half : total - half;
    a.out = want;
  } else if (auto_pad == "VALID") {
    a.pad_l = 0;
    a.out = full;
  } else {
    a.pad_l = pads[i];
    a.out = full - pads[i] - pads[spatial + i];
  }
  // oneDNN: out = (in - 1) * stride + window - pad_l - pad_r.
  a.pad_r = (in - 1) * a.stride + a.window - a.pad_l - a.out;
  return a;
}

std::string WhyNotSupported(const Node& node, const Graph& graph) {
  if (!node.Domain().empty())
    return MakeString("domain '", node.Domain(), "' is not supported (only ai.onnx ops)");
  if (!IsClaimedOpType(node.OpType())) {
    const std::string& op = node.OpType();
    // Reduce ops no oneDNN 2.6 reduction algorithm computes (it has max, min, sum, mul, mean and
    // the Lp norms); they would need a log after it, which the EP does not run (see Log).
    if (op == "ReduceLogSum" || op == "ReduceLogSumExp")
      return MakeString("op ", op,
                        " is not supported by the oneDNN EP: oneDNN 2.6's reduction has no "
                        "log-sum algorithm, and its vectorized log is off by 1.4e-6 at log(1)");
    return MakeString("op ", op, " is not supported by the oneDNN EP");
  }
  if (!node.Subgraphs().empty()) return "nodes with subgraphs are not supported";
  return CheckNode(node, graph);
}

}  // namespace prism::dnnl_ep
