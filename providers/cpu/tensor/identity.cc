// Identity: passes its input through (tensors share the buffer; sequences and optionals too).
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

class Identity final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Value* input = context.InputValue(0);
    context.SetOutput(0, input != nullptr ? *input : Value());
  }
};

void RegisterIdentityKernels(KernelRegistry& registry) {
  const auto factory = MakeKernelFactory<Identity>();
  registry.Register(KernelDefBuilder("Identity").Versions(1, 12)
                        .Constraint("T", AllTensorTypesIr4(), {0}, {0}).Build(), factory);
  registry.Register(KernelDefBuilder("Identity").Versions(13, 13)
                        .Constraint("T", AllTensorTypesIr4(), {0}, {0}).Build(), factory);
  registry.Register(KernelDefBuilder("Identity").Versions(14, 15)
                        .Constraint("V", AllTensorTypesIr4(), {0}, {0}).AlsoSequence().Build(),
                    factory);
  registry.Register(KernelDefBuilder("Identity").Versions(16, 18)
                        .Constraint("V", AllTensorTypesIr4(), {0}, {0}).AlsoSequence().AlsoOptional()
                        .Build(), factory);
  registry.Register(KernelDefBuilder("Identity").Versions(19)
                        .Constraint("V", AllTensorTypes(), {0}, {0}).AlsoSequence().AlsoOptional()
                        .Build(), factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_identity, RegisterIdentityKernels);

}  // namespace prism::cpu
