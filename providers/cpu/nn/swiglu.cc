// SwiGLU (opset 28): Y = A * sigmoid(alpha * A) * B for A and B of one shape and type (no
// broadcasting, as the spec says); the sigmoid is rounded to the type first, as the reference
// rounds it. Computed in double.
#include <cmath>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct SwiGluImpl {
  void operator()(const Tensor& a, const Tensor& b, Tensor& y, double alpha) const {
    const T* pa = a.Data<T>();
    const T* pb = b.Data<T>();
    T* out = y.MutableData<T>();
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      const double x = ToDouble(pa[i]);
      const double gate = ToDouble(FromCompute<T>(1.0 / (1.0 + std::exp(-alpha * x))));
      out[i] = FromCompute<T>(ToDouble(FromCompute<T>(x * gate)) * ToDouble(pb[i]));
    }
  }
};

class SwiGlu final : public OpKernel {
 public:
  explicit SwiGlu(const OpKernelInfo& info) : OpKernel(info), alpha_(info.FloatOr("alpha", 1.0f)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& a = context.RequiredInput(0);
    const Tensor& b = context.RequiredInput(1);
    PRISM_ENFORCE(a.Shape() == b.Shape() && a.Type() == b.Type(), kInvalidArgument, node.Describe(),
                  ": A and B must have one shape and type (no broadcasting), got ", a.Describe(),
                  " and ", b.Describe());
    Tensor& y = context.Output(0, a.Shape(), a.Type());
    DispatchByType<SwiGluImpl, TypeList<float, double, Float16, BFloat16>>(
        a.Type(), node.OpType(), a, b, y, static_cast<double>(alpha_));
  }

 private:
  float alpha_;
};

void RegisterSwiGluKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(
      KernelDefBuilder("SwiGLU")
          .Versions(28)
          .Constraint("T", {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble}, {0, 1}, {0})
          .Build(),
      MakeKernelFactory<SwiGlu>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_swiglu, RegisterSwiGluKernels);

}  // namespace prism::cpu
