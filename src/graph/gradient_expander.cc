#include "graph/gradient_expander.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"

namespace prism {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

bool IsGradient(const onnx::NodeProto& node) {
  return node.op_type() == "Gradient" && node.domain() == kTrainingDomain;
}

std::vector<std::string> StringsAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return {a.strings().begin(), a.strings().end()};
  return {};
}

std::string StringAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.s();
  return "";
}

// Emits the backward nodes of one Gradient node.
class Expander {
 public:
  Expander(const onnx::GraphProto& graph, const onnx::NodeProto& gradient, int index)
      : graph_(graph), gradient_(gradient), prefix_("grad" + std::to_string(index) + "_") {
    where_ = MakeString("Gradient node '", gradient.name(), "'");
  }

  std::vector<onnx::NodeProto> Expand() {
    const std::vector<std::string> xs = StringsAttr(gradient_, "xs");
    const std::string y = StringAttr(gradient_, "y");
    PRISM_ENFORCE(!xs.empty() && !y.empty(), kInvalidGraph, where_,
                  ": attributes xs and y are required");
    PRISM_ENFORCE(gradient_.output_size() == static_cast<int>(xs.size()), kInvalidGraph, where_,
                  " has ", gradient_.output_size(), " outputs for ", xs.size(), " xs");
    // Producers of the forward values, and the nodes on a path from an x to y.
    std::map<std::string, const onnx::NodeProto*> producer;
    for (const auto& node : graph_.node())
      if (!IsGradient(node))
        for (const auto& out : node.output()) producer[out] = &node;
    std::set<std::string> depends_on_x(xs.begin(), xs.end());
    std::vector<const onnx::NodeProto*> path;  // forward order
    for (const auto& node : graph_.node()) {
      if (IsGradient(node)) continue;
      bool reads_x = false;
      for (const auto& in : node.input()) reads_x = reads_x || depends_on_x.count(in) > 0;
      if (!reads_x) continue;
      for (const auto& out : node.output()) depends_on_x.insert(out);
      path.push_back(&node);
    }
    PRISM_ENFORCE(producer.count(y) || std::count(xs.begin(), xs.end(), y), kInvalidGraph, where_,
                  ": y '", y, "' is not computed by the graph");
    // Nodes that y depends on, walking back from y.
    std::set<std::string> needed = {y};
    std::vector<const onnx::NodeProto*> backward;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      bool feeds_y = false;
      for (const auto& out : (*it)->output()) feeds_y = feeds_y || needed.count(out) > 0;
      if (!feeds_y) continue;
      for (const auto& in : (*it)->input()) needed.insert(in);
      backward.push_back(*it);
    }
    gradients_[y] = {Emit(kPrismInternalDomain, "OnesLike", {y})};
    for (const onnx::NodeProto* node : backward) Differentiate(*node, depends_on_x);
    for (size_t i = 0; i < xs.size(); ++i) {
      const std::string total = Total(xs[i]);
      nodes_.push_back(
          MakeNode("", "Identity",
                   {total.empty() ? Emit(kPrismInternalDomain, "ZerosLike", {xs[i]}) : total},
                   {gradient_.output(static_cast<int>(i))}));
    }
    return std::move(nodes_);
  }

 private:
  onnx::NodeProto MakeNode(const std::string& domain, const std::string& op,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs) {
    onnx::NodeProto node;
    node.set_op_type(op);
    if (!domain.empty()) node.set_domain(domain);
    node.set_name(prefix_ + op + "_" + std::to_string(counter_++));
    for (const auto& in : inputs) node.add_input(in);
    for (const auto& out : outputs) node.add_output(out);
    return node;
  }

  // Adds a node with one fresh output and returns the output's name.
  std::string Emit(const std::string& domain, const std::string& op,
                   const std::vector<std::string>& inputs) {
    const std::string out = prefix_ + std::to_string(counter_);
    nodes_.push_back(MakeNode(domain, op, inputs, {out}));
    return out;
  }
  std::string Op(const std::string& op, const std::vector<std::string>& inputs) {
    return Emit("", op, inputs);
  }

  // The gradient of a value: its contributions added ("" when nothing reached it).
  std::string Total(const std::string& value) {
    auto it = gradients_.find(value);
    if (it == gradients_.end() || it->second.empty()) return "";
    std::string sum = it->second[0];
    for (size_t i = 1; i < it->second.size(); ++i) sum = Op("Add", {sum, it->second[i]});
    it->second = {sum};
    return sum;
  }

  // Adds the contribution g (of the output's shape) to input `value`, summed down to its shape
  // where broadcasting stretched it.
  void Contribute(const std::string& value, const std::string& g, const std::set<std::string>& live,
                  bool broadcast) {
    if (!live.count(value)) return;  // constant with respect to xs
    gradients_[value].push_back(broadcast ? Emit(kPrismInternalDomain, "SumToShape", {g, value})
                                          : g);
  }

  void Differentiate(const onnx::NodeProto& node, const std::set<std::string>& live) {
    PRISM_ENFORCE(node.output_size() >= 1, kInvalidGraph, where_, ": node '", node.name(),
                  "' has no output");
    const std::string g = Total(node.output(0));
    if (g.empty()) return;  // y does not depend on this node's output
    const std::string& op = node.op_type();
    const std::string out = node.output(0);
    PRISM_ENFORCE(node.domain().empty() || node.domain() == "ai.onnx", kInvalidGraph, where_,
                  ": cannot differentiate ", node.domain(), ":", op, " node '", node.name(), "'");
    // The graph has not been checked yet (this runs before the graph is built): every input the
    // rule reads must be there.
    const auto in = [&](int i) -> const std::string& {
      PRISM_ENFORCE(i < node.input_size(), kInvalidGraph, where_, ": ", op, " node '", node.name(),
                    "' has ", node.input_size(), " inputs; its gradient reads input ", i);
      return node.input(i);
    };
    if (op == "Add") {
      Contribute(in(0), g, live, true);
      Contribute(in(1), g, live, true);
    } else if (op == "Sub") {
      Contribute(in(0), g, live, true);
      Contribute(in(1), Op("Neg", {g}), live, true);
    } else if (op == "Mul") {
      Contribute(in(0), Op("Mul", {g, in(1)}), live, true);
      Contribute(in(1), Op("Mul", {g, in(0)}), live, true);
    } else if (op == "Div") {
      // d(a/b)/da = 1/b, d(a/b)/db = -(a/b)/b
      Contribute(in(0), Op("Div", {g, in(1)}), live, true);
      Contribute(in(1), Op("Neg", {Op("Div", {Op("Mul", {g, out}), in(1)})}), live, true);
    } else if (op == "Neg") {
      Contribute(in(0), Op("Neg", {g}), live, false);
    } else if (op == "Identity") {
      Contribute(in(0), g, live, false);
    } else if (op == "Relu") {
      const std::string positive =
          Op("Greater", {in(0), Emit(kPrismInternalDomain, "ZerosLike", {in(0)})});
      Contribute(in(0), Op("Where", {positive, g, Emit(kPrismInternalDomain, "ZerosLike", {g})}),
                 live, false);
    } else if (op == "Sigmoid") {
      const std::string one_minus = Op("Sub", {Emit(kPrismInternalDomain, "OnesLike", {out}), out});
      Contribute(in(0), Op("Mul", {g, Op("Mul", {out, one_minus})}), live, false);
    } else if (op == "Tanh") {
      const std::string one_minus_sq =
          Op("Sub", {Emit(kPrismInternalDomain, "OnesLike", {out}), Op("Mul", {out, out})});
      Contribute(in(0), Op("Mul", {g, one_minus_sq}), live, false);
    } else if (op == "Exp") {
      Contribute(in(0), Op("Mul", {g, out}), live, false);
    } else if (op == "Log") {
      Contribute(in(0), Op("Div", {g, in(0)}), live, false);
    } else if (op == "Sqrt") {
      // d sqrt(x) = 1 / (2 sqrt(x))
      Contribute(in(0), Op("Div", {g, Op("Add", {out, out})}), live, false);
    } else {
      PRISM_THROW(kInvalidGraph, where_, ": cannot differentiate ", op, " node '", node.name(),
                  "' on the path from xs to y (differentiable: Add, Sub, Mul, Div, Neg, Identity, "
                  "Relu, Sigmoid, Tanh, Exp, Log, Sqrt)");
    }
  }

  const onnx::GraphProto& graph_;
  const onnx::NodeProto& gradient_;
  std::string prefix_;
  std::string where_;
  int counter_ = 0;
  std::map<std::string, std::vector<std::string>> gradients_;
  std::vector<onnx::NodeProto> nodes_;
};

}  // namespace

bool ExpandGradientNodes(onnx::ModelProto& model) {
  onnx::GraphProto& graph = *model.mutable_graph();
  bool any = false;
  for (const auto& node : graph.node()) any = any || IsGradient(node);
  if (!any) return false;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> rewritten;
  int index = 0;
  for (const auto& node : graph.node()) {
    if (!IsGradient(node)) {
      *rewritten.Add() = node;
      continue;
    }
    for (auto& backward : Expander(graph, node, index++).Expand())
      *rewritten.Add() = std::move(backward);
  }
  graph.mutable_node()->Swap(&rewritten);
  bool imported = false;
  for (const auto& opset : model.opset_import())
    imported = imported || opset.domain() == kPrismInternalDomain;
  if (!imported) {
    auto* opset = model.add_opset_import();
    opset->set_domain(kPrismInternalDomain);
    opset->set_version(1);
  }
  return true;
}

}  // namespace prism
