// StringConcat (opset 20): Z = X + Y elementwise on strings, with numpy broadcasting. Strings are
// byte sequences here, so concatenation needs no UTF-8 awareness.
#include <string>

#include "providers/cpu/common/broadcast.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu {
namespace {

class StringConcat final : public OpKernel {
 public:
  explicit StringConcat(const OpKernelInfo& info) : OpKernel(info) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& y = context.RequiredInput(1);
    const Broadcaster plan({x.Shape(), y.Shape()}, node.Describe());
    Tensor& z = context.Output(0, plan.OutputShape(), ElementType::kString);
    BroadcastBinary(plan, x.Data<std::string>(), y.Data<std::string>(),
                    z.MutableData<std::string>(),
                    [](const std::string& a, const std::string& b) { return a + b; });
  }
};

void RegisterStringConcatKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("StringConcat")
                        .Versions(20)
                        .Constraint("T", {ElementType::kString}, {0, 1}, {0})
                        .Build(),
                    MakeKernelFactory<StringConcat>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(strings_concat, RegisterStringConcatKernels);

}  // namespace prism::cpu
