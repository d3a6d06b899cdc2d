#include "session/cpu_node_evaluator.h"

#include "framework/op_kernel.h"

namespace prism {
namespace {

class EvaluationContext final : public OpKernelContext {
 public:
  EvaluationContext(const Node& node, const std::vector<const Tensor*>& inputs)
      : OpKernelContext(node), outputs_(node.OutputCount()) {
    for (const Tensor* tensor : inputs) values_.push_back(tensor ? Value(*tensor) : Value());
    for (size_t i = 0; i < inputs.size(); ++i)
      input_pointers_.push_back(inputs[i] ? &values_[i] : nullptr);
  }

  size_t InputCount() const override { return input_pointers_.size(); }
  const Value* InputValue(size_t i) const override {
    return i < input_pointers_.size() ? input_pointers_[i] : nullptr;
  }
  size_t OutputCount() const override { return outputs_.size(); }
  Tensor& Output(size_t i, const TensorShape& shape, ElementType type) override {
    outputs_.at(i) = Value(Tensor(type, shape, GetCpuAllocator()));
    return outputs_[i].MutableTensor();
  }
  void SetOutput(size_t i, Value value) override { outputs_.at(i) = std::move(value); }
  bool IsOutputRequested(size_t i) const override { return GetNode().HasOutput(i); }
  const AllocatorPtr& TempAllocator() const override { return cpu_; }
  std::vector<Value> RunSubgraph(const Graph&, const std::vector<Value>&) override {
    PRISM_THROW(kNotImplemented, GetNode().Describe(), ": subgraphs are not evaluated here");
  }
  std::vector<Value>& Outputs() { return outputs_; }

 private:
  std::vector<Value> values_;
  std::vector<const Value*> input_pointers_;
  std::vector<Value> outputs_;
  AllocatorPtr cpu_ = GetCpuAllocator();
};

}  // namespace

std::vector<Tensor> EvaluateOnCpu(const IExecutionProvider& cpu, const Node& node,
                                  const std::vector<const Tensor*>& inputs) {
  std::string why;
  const KernelCreateInfo* info = cpu.GetKernelRegistry()->Find(node, &why);
  PRISM_ENFORCE(info != nullptr, kNotImplemented, "no CPU kernel for ", node.Describe(), ": ", why);
  OpKernelInfo kernel_info(node, cpu, [&node, &inputs](const std::string& name) -> const Tensor* {
    for (size_t i = 0; i < node.InputCount() && i < inputs.size(); ++i)
      if (node.HasInput(i) && node.Inputs()[i]->name == name) return inputs[i];
    return nullptr;
  });
  std::unique_ptr<OpKernel> kernel = info->factory(kernel_info);
  EvaluationContext context(node, inputs);
  kernel->Compute(context);
  std::vector<Tensor> results;
  for (size_t o = 0; o < node.OutputCount(); ++o) {
    if (!node.HasOutput(o)) {
      results.emplace_back();
      continue;
    }
    const Value& value = context.Outputs()[o];
    PRISM_ENFORCE(value.IsTensor(), kNotImplemented, node.Describe(), " output ", o,
                  " is not a tensor");
    // Views may share the input's buffer; an initializer needs its own.
    results.push_back(value.GetTensor().CloneToCpu());
  }
  return results;
}

}  // namespace prism
