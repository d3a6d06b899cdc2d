// Identity: passes its input through (tensors share the buffer; sequences and optionals too).
#include <vector>

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

// The spec's type list plus complex64/complex128, which Identity passes through like any other
// tensor.
std::vector<ElementType> WithComplex(std::vector<ElementType> types) {
  types.insert(types.end(), {ElementType::kComplex64, ElementType::kComplex128});
  return types;
}

void RegisterIdentityKernels(KernelRegistry& registry) {
  const auto factory = MakeKernelFactory<Identity>();
  const std::vector<ElementType> ir4 = WithComplex(AllTensorTypesIr4());
  registry.Register(
      KernelDefBuilder("Identity").Versions(1, 12).Constraint("T", ir4, {0}, {0}).Build(), factory);
  registry.Register(
      KernelDefBuilder("Identity").Versions(13, 13).Constraint("T", ir4, {0}, {0}).Build(),
      factory);
  registry.Register(KernelDefBuilder("Identity")
                        .Versions(14, 15)
                        .Constraint("V", ir4, {0}, {0})
                        .AlsoSequence()
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("Identity")
                        .Versions(16, 18)
                        .Constraint("V", ir4, {0}, {0})
                        .AlsoSequence()
                        .AlsoOptional()
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("Identity")
                        .Versions(19)
                        .Constraint("V", WithComplex(AllTensorTypes()), {0}, {0})
                        .AlsoSequence()
                        .AlsoOptional()
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_identity, RegisterIdentityKernels);

}  // namespace prism::cpu
