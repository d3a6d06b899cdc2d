#include "session/cpu_node_evaluator.h"

#include <vector>

#include "framework/host_kernel_context.h"
#include "framework/op_kernel.h"

namespace prism {

std::vector<Tensor> EvaluateOnCpu(const IExecutionProvider& cpu, const Node& node,
                                  const std::vector<const Tensor*>& inputs, size_t max_bytes) {
  std::string why;
  const KernelCreateInfo* info = cpu.GetKernelRegistry()->Find(node, &why);
  PRISM_ENFORCE(info != nullptr, kNotImplemented, "no CPU kernel for ", node.Describe(), ": ", why);
  OpKernelInfo kernel_info(node, cpu, [&node, &inputs](const std::string& name) -> const Tensor* {
    for (size_t i = 0; i < node.InputCount() && i < inputs.size(); ++i)
      if (node.HasInput(i) && node.Inputs()[i]->name == name) return inputs[i];
    return nullptr;
  });
  std::unique_ptr<OpKernel> kernel = info->factory(kernel_info);
  std::vector<Value> values;
  values.reserve(inputs.size());
  std::vector<const Value*> input_values;
  for (const Tensor* tensor : inputs) {
    values.push_back(tensor ? Value(*tensor) : Value());
    input_values.push_back(tensor ? &values.back() : nullptr);
  }
  HostKernelContext context(node, input_values);
  if (max_bytes != 0) context.LimitBytes(max_bytes);
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
