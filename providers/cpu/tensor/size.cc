// Size: the number of elements of the input, as an int64 scalar. Only the shape is read, so every
// element type (packed ones included) is accepted.
#include <climits>
#include <tuple>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Size final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    Tensor& output = context.Output(0, TensorShape(std::vector<int64_t>{}), ElementType::kInt64);
    output.MutableData<int64_t>()[0] = input.NumElements();
  }
};

void RegisterSizeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Size>();
  for (const auto& [since, end, types] :
       {std::tuple{1, 12, G::kNoBfloat16}, std::tuple{13, 18, G::kBfloat16},
        std::tuple{19, 20, G::kFloat8}, std::tuple{21, 22, G::kInt4},
        std::tuple{23, 23, G::kFloat4}, std::tuple{24, 24, G::kFloat8E8M0},
        std::tuple{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Size")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0})
                          .Constraint("T1", {ElementType::kInt64}, {}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_size, RegisterSizeKernels);

}  // namespace prism::cpu
