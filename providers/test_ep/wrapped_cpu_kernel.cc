#include "providers/test_ep/wrapped_cpu_kernel.h"

#include "framework/host_kernel_context.h"
#include "providers/test_ep/test_execution_provider.h"

namespace prism::test_ep {
namespace {

Tensor ToHost(const Tensor& tensor) {
  if (tensor.Location().IsCpuAccessible()) return tensor;
  Tensor host(tensor.Type(), tensor.Shape(), GetCpuAllocator());
  TestDataTransfer().CopyTensor(tensor, host);
  return host;
}

// The context the wrapped CPU kernel sees: host copies of the inputs, host outputs.

class WrappedCpuKernel final : public OpKernel {
 public:
  WrappedCpuKernel(const OpKernelInfo& info, const KernelFactory& cpu_factory, bool fail_compute,
                   bool wrong)
      : OpKernel(info), inner_(cpu_factory(info)), fail_compute_(fail_compute), wrong_(wrong) {}

  void Compute(OpKernelContext& context) const override {
    PRISM_ENFORCE(!fail_compute_, kEpFail, kProviderName, ": simulated device failure in ",
                  GetNode().Describe(), " (option fail_compute)");
    std::vector<Value> host_values(context.InputCount());
    std::vector<const Value*> host_inputs(context.InputCount(), nullptr);
    for (size_t i = 0; i < context.InputCount(); ++i) {
      const Value* value = context.InputValue(i);
      if (value == nullptr) continue;
      host_values[i] = value->IsTensor() ? Value(ToHost(value->GetTensor())) : *value;
      host_inputs[i] = &host_values[i];
    }
    HostKernelContext host(GetNode(), host_inputs, &context);
    inner_->Compute(host);
    if (wrong_ && !host.Outputs().empty()) PlantError(host.Outputs()[0]);
    for (size_t o = 0; o < host.Outputs().size(); ++o) {
      Value& result = host.Outputs()[o];
      if (!result.IsTensor()) {
        context.SetOutput(o, std::move(result));
        continue;
      }
      const Tensor& tensor = result.GetTensor();
      Tensor& device = context.Output(o, tensor.Shape(), tensor.Type());
      if (device.Location().IsCpuAccessible())
        context.SetOutput(o, std::move(result));  // a CPU output of the kernel def: hand over
      else
        TestDataTransfer().CopyTensor(tensor, device);
    }
  }

 private:
  // Option wrong_op: the first element of a floating-point output is off by one.
  static void PlantError(Value& output) {
    if (!output.IsTensor() || output.GetTensor().NumElements() == 0) return;
    Tensor& tensor = output.MutableTensor();
    if (tensor.Type() == ElementType::kFloat) tensor.MutableData<float>()[0] += 1.0f;
    if (tensor.Type() == ElementType::kDouble) tensor.MutableData<double>()[0] += 1.0;
  }

  std::unique_ptr<OpKernel> inner_;
  bool fail_compute_;
  bool wrong_;
};

}  // namespace

KernelFactory MakeWrappedKernelFactory(KernelFactory cpu_factory, bool fail_compute, bool wrong) {
  return [cpu_factory, fail_compute, wrong](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
    return std::make_unique<WrappedCpuKernel>(info, cpu_factory, fail_compute, wrong);
  };
}

}  // namespace prism::test_ep
