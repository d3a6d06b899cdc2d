#include "providers/test_ep/compiled_group_kernel.h"

#include <unordered_map>
#include <vector>

#include "framework/host_kernel_context.h"
#include "graph/graph.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "providers/test_ep/test_execution_provider.h"

namespace prism::test_ep {
namespace {

// One body node's view while it computes: inputs and outputs are host values of the group.

class CompiledGroupKernel final : public OpKernel {
 public:
  CompiledGroupKernel(const Graph& body, const OpKernelInfo& info) : OpKernel(info), body_(body) {
    const auto registry = CpuExecutionProvider::SharedRegistry();
    for (NodeIndex index : body.TopologicalOrder()) {
      const Node& node = body.GetNode(index);
      std::string why;
      const KernelCreateInfo* create = registry->Find(node, &why);
      PRISM_ENFORCE(create != nullptr, kEpFail, "fused group '", body.Name(),
                    "': no CPU kernel for ", node.Describe(), ": ", why);
      OpKernelInfo node_info(node, info.Provider(),
                             [](const std::string&) -> const Tensor* { return nullptr; });
      kernels_.push_back(create->factory(node_info));
    }
  }

  void Compute(OpKernelContext& context) const override {
    std::unordered_map<const NodeArg*, Value> values;
    for (size_t i = 0; i < body_.Inputs().size(); ++i) {
      const Value* value = context.InputValue(i);
      if (value == nullptr) continue;
      values[body_.Inputs()[i]] = value->IsTensor() ? Value(ToHost(value->GetTensor())) : *value;
    }
    size_t step = 0;
    for (NodeIndex index : body_.TopologicalOrder()) {
      const Node& node = body_.GetNode(index);
      std::vector<const Value*> inputs;
      for (const NodeArg* arg : node.Inputs()) {
        auto it = arg ? values.find(arg) : values.end();
        inputs.push_back(it == values.end() ? nullptr : &it->second);
      }
      HostKernelContext node_context(node, std::move(inputs));
      kernels_[step++]->Compute(node_context);
      for (size_t o = 0; o < node.OutputCount(); ++o)
        if (node.HasOutput(o)) values[node.Outputs()[o]] = std::move(node_context.Outputs()[o]);
    }
    for (size_t o = 0; o < body_.Outputs().size(); ++o) {
      const Value& result = values.at(body_.Outputs()[o]);
      if (!result.IsTensor()) {
        context.SetOutput(o, result);
        continue;
      }
      const Tensor& host = result.GetTensor();
      Tensor& device = context.Output(o, host.Shape(), host.Type());
      TestDataTransfer().CopyTensor(host, device);
    }
  }

 private:
  static Tensor ToHost(const Tensor& tensor) {
    if (tensor.Location().IsCpuAccessible()) return tensor;
    Tensor host(tensor.Type(), tensor.Shape(), GetCpuAllocator());
    TestDataTransfer().CopyTensor(tensor, host);
    return host;
  }

  const Graph& body_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
};

}  // namespace

std::unique_ptr<OpKernel> CompileGroup(const Graph& body, const OpKernelInfo& info) {
  return std::make_unique<CompiledGroupKernel>(body, info);
}

}  // namespace prism::test_ep
