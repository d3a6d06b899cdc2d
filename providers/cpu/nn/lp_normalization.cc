// LpNormalization: X divided by its L1 (p = 1) or L2 (p = 2) norm along 'axis' (default -1); a
// zero norm gives zeros, as the spec says. Norms in double.
#include <cmath>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

template <typename T>
struct LpNormImpl {
  void operator()(const Tensor& x, Tensor& y, int64_t outer, int64_t length, int64_t inner,
                  int64_t p) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * length * inner + i;
        double norm = 0;
        for (int64_t k = 0; k < length; ++k) {
          const double v = ToDouble(in[base + k * inner]);
          norm += p == 1 ? std::fabs(v) : v * v;
        }
        if (p == 2) norm = std::sqrt(norm);
        for (int64_t k = 0; k < length; ++k)
          out[base + k * inner] =
              FromCompute<T>(norm == 0.0 ? 0.0 : ToDouble(in[base + k * inner]) / norm);
      }
    }
  }
};

class LpNormalization final : public OpKernel {
 public:
  explicit LpNormalization(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", -1)), p_(info.IntOr("p", 2)) {
    PRISM_ENFORCE(p_ == 1 || p_ == 2, kInvalidArgument, info.GetNode().Describe(), ": p = ", p_,
                  " is not 1 or 2");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range for X of shape ", shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<LpNormImpl, FloatTypes>(x.Type(), node.OpType(), x, y,
                                           shape.SizeToDimension(axis), shape[axis],
                                           shape.SizeFromDimension(axis + 1), p_);
  }

 private:
  int64_t axis_;
  int64_t p_;
};

void RegisterLpNormalizationKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<LpNormalization>();
  registry.Register(KernelDefBuilder("LpNormalization")
                        .Versions(1, 21)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("LpNormalization")
          .Versions(22)
          .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16}, {0}, {0})
          .Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_lp_normalization, RegisterLpNormalizationKernels);

}  // namespace prism::cpu
