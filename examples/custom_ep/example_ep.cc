// ExampleExecutionProvider: a minimal execution provider plugin written against Prism's EP SDK
// (prism/ep/prism_ep.h), built out of tree and loaded by name at run time.
//
// It takes float32 Add, Sub, Mul and Relu nodes whose inputs all have one known shape (no
// broadcasting), and declines everything else with a reason. Prism groups the taken nodes into
// connected subgraphs; each compiles into one kernel that runs the group's operations in a single
// pass over the elements, chunk by chunk, on the session's intra-op threads. A connected group of
// such nodes has one shape throughout, so every value of the group has the same element count.
//
// Option "ops": the op types to take, comma-separated (default "Add,Sub,Mul,Relu").
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "prism/ep/prism_ep.h"

namespace example {

constexpr const char* kName = "ExampleExecutionProvider";
const std::set<std::string> kSupportedOps = {"Add", "Sub", "Mul", "Relu"};

std::string ShapeText(const prism::ep::ValueInfo& value) {
  if (!value.has_shape) return "of unknown rank";
  std::string text = "[";
  for (size_t i = 0; i < value.shape.size(); ++i)
    text +=
        (i ? "," : "") + (value.shape[i] < 0 ? std::string("?") : std::to_string(value.shape[i]));
  return text + "]";
}

// One operation of a compiled group: out = op(a, b) over slot numbers (see GroupKernel).
struct Step {
  enum class Op { kAdd, kSub, kMul, kRelu } op;
  int a = -1, b = -1, out = -1;
};

// Slots 0..inputs-1 are the kernel's inputs, then its outputs, then the group's intermediate
// values (scratch memory).
class GroupKernel final : public prism::ep::CompiledKernel {
 public:
  GroupKernel(std::vector<Step> steps, int inputs, int outputs, int intermediates)
      : steps_(std::move(steps)),
        inputs_(inputs),
        outputs_(outputs),
        intermediates_(intermediates) {}

  void Compute(prism::ep::KernelContext& context) const override {
    const prism::ep::TensorView* first = context.Input(0);
    if (first == nullptr) throw std::invalid_argument("input 0 is missing");
    const std::vector<int64_t>& shape = first->shape;
    const int64_t count = first->ElementCount();
    std::vector<float*> slots(inputs_ + outputs_ + intermediates_, nullptr);
    for (int i = 0; i < inputs_; ++i) {
      const prism::ep::TensorView* input = context.Input(i);
      if (input == nullptr || input->type != prism::ep::ElementType::kFloat ||
          input->shape != shape)
        throw std::invalid_argument("input " + std::to_string(i) +
                                    " is not a float tensor of input 0's shape");
      slots[i] = const_cast<float*>(input->Data<float>());  // read only: inputs are never written
    }
    for (int o = 0; o < outputs_; ++o)
      slots[inputs_ + o] =
          static_cast<float*>(context.AllocateOutput(o, shape, prism::ep::ElementType::kFloat));
    for (int t = 0; t < intermediates_; ++t)
      slots[inputs_ + outputs_ + t] =
          static_cast<float*>(context.AllocateScratch(sizeof(float) * count));
    if (count == 0) return;
    // Chunks of 4096 elements keep a chunk's values in cache from one step to the next.
    constexpr int64_t kChunk = 4096;
    const int64_t chunks = (count + kChunk - 1) / kChunk;
    context.ParallelFor(chunks, static_cast<double>(kChunk * steps_.size()),
                        [&](int64_t begin, int64_t end) {
                          for (int64_t c = begin; c < end; ++c) {
                            const int64_t from = c * kChunk;
                            const int64_t to = std::min(count, from + kChunk);
                            for (const Step& step : steps_) RunStep(step, slots, from, to);
                          }
                        });
  }

 private:
  static void RunStep(const Step& step, const std::vector<float*>& slots, int64_t from,
                      int64_t to) {
    const float* a = slots[step.a];
    const float* b = step.b >= 0 ? slots[step.b] : nullptr;
    float* out = slots[step.out];
    switch (step.op) {
      case Step::Op::kAdd:
        for (int64_t i = from; i < to; ++i) out[i] = a[i] + b[i];
        break;
      case Step::Op::kSub:
        for (int64_t i = from; i < to; ++i) out[i] = a[i] - b[i];
        break;
      case Step::Op::kMul:
        for (int64_t i = from; i < to; ++i) out[i] = a[i] * b[i];
        break;
      case Step::Op::kRelu:
        // NaN stays NaN, as ONNX's Relu = max(0, x) does in onnxruntime.
        for (int64_t i = from; i < to; ++i) out[i] = a[i] < 0.0f ? 0.0f : a[i];
        break;
    }
  }

  std::vector<Step> steps_;
  int inputs_, outputs_, intermediates_;
};

class ExampleProvider final : public prism::ep::ExecutionProvider {
 public:
  explicit ExampleProvider(std::set<std::string> ops) : ops_(std::move(ops)) {}

  void GetCapability(const prism::ep::GraphView& graph,
                     prism::ep::Capability& capability) const override {
    for (size_t i = 0; i < graph.NodeCount(); ++i) {
      const prism::ep::NodeView& node = graph.Node(i);
      const std::string reason = WhyNot(node);
      if (reason.empty())
        capability.Accept(node);
      else
        capability.Decline(node, reason);
    }
    capability.SetGrouping(prism::ep::Grouping::kConnectedGroups);
  }

  std::unique_ptr<prism::ep::CompiledKernel> Compile(
      const prism::ep::GraphView& subgraph) const override {
    std::map<std::string, int> slot_of;
    const std::vector<const prism::ep::ValueInfo*> inputs = subgraph.Inputs();
    const std::vector<const prism::ep::ValueInfo*> outputs = subgraph.Outputs();
    for (const prism::ep::ValueInfo* value : inputs)
      slot_of.emplace(value->name, static_cast<int>(slot_of.size()));
    for (const prism::ep::ValueInfo* value : outputs)
      slot_of.emplace(value->name, static_cast<int>(slot_of.size()));
    int intermediates = 0;
    std::vector<Step> steps;
    for (size_t i = 0; i < subgraph.NodeCount(); ++i) {
      const prism::ep::NodeView& node = subgraph.Node(i);
      Step step;
      const std::string& op = node.OpType();
      step.op = op == "Add"   ? Step::Op::kAdd
                : op == "Sub" ? Step::Op::kSub
                : op == "Mul" ? Step::Op::kMul
                              : Step::Op::kRelu;
      step.a = slot_of.at(node.Input(0)->name);
      if (step.op != Step::Op::kRelu) step.b = slot_of.at(node.Input(1)->name);
      const std::string& result = node.Output(0)->name;
      auto it = slot_of.find(result);
      if (it == slot_of.end())
        it =
            slot_of
                .emplace(result, static_cast<int>(inputs.size() + outputs.size()) + intermediates++)
                .first;
      step.out = it->second;
      steps.push_back(step);
    }
    return std::make_unique<GroupKernel>(std::move(steps), static_cast<int>(inputs.size()),
                                         static_cast<int>(outputs.size()), intermediates);
  }

  prism::ep::ProviderOptions GetProviderOptions() const override {
    std::string list;
    for (const std::string& op : ops_) list += (list.empty() ? "" : ",") + op;
    return {{"ops", list}};
  }

 private:
  std::string WhyNot(const prism::ep::NodeView& node) const {
    if (!node.Domain().empty() || !kSupportedOps.count(node.OpType()))
      return "op type " + node.OpType() + " is not one of Add, Sub, Mul, Relu";
    if (!ops_.count(node.OpType())) return "op type " + node.OpType() + " is not in option 'ops'";
    const size_t arity = node.OpType() == "Relu" ? 1 : 2;
    if (node.InputCount() != arity || node.OutputCount() != 1)
      return "expected " + std::to_string(arity) + " inputs and 1 output";
    const prism::ep::ValueInfo* first = node.Input(0);
    for (size_t i = 0; i < arity; ++i) {
      const prism::ep::ValueInfo* input = node.Input(i);
      if (input == nullptr) return "input " + std::to_string(i) + " is missing";
      if (!input->is_tensor || input->type != prism::ep::ElementType::kFloat)
        return "input " + std::to_string(i) + " is " + prism::ep::ElementTypeName(input->type) +
               "; this EP takes tensor(float) only";
      if (!input->has_shape ||
          std::any_of(input->shape.begin(), input->shape.end(), [](int64_t d) { return d < 0; }))
        return "input " + std::to_string(i) + " has shape " + ShapeText(*input) +
               "; this EP needs every dim known";
      if (input->shape != first->shape)
        return "input " + std::to_string(i) + " has shape " + ShapeText(*input) + ", input 0 " +
               ShapeText(*first) + "; this EP does not broadcast";
    }
    return "";
  }

  std::set<std::string> ops_;
};

class ExampleFactory final : public prism::ep::ExecutionProviderFactory {
 public:
  std::string Name() const override { return kName; }
  std::unique_ptr<prism::ep::ExecutionProvider> Create(
      const prism::ep::ProviderOptions& options) const override {
    std::set<std::string> ops = kSupportedOps;
    for (const auto& [key, value] : options) {
      if (key != "ops") throw std::invalid_argument("unknown option '" + key + "' (known: ops)");
      ops.clear();
      std::stringstream list(value);
      std::string op;
      while (std::getline(list, op, ',')) {
        if (!kSupportedOps.count(op))
          throw std::invalid_argument("option ops: '" + op + "' is not one of Add,Sub,Mul,Relu");
        ops.insert(op);
      }
    }
    return std::make_unique<ExampleProvider>(std::move(ops));
  }
};

}  // namespace example

PRISM_EP_PLUGIN(example::kName, example::ExampleFactory)
