// The internal ops that the Gradient expansion (src/graph/gradient_expander.h) writes, domain
// com.prism.internal, version 1, for the floating types:
//   OnesLike(x), ZerosLike(x): a tensor of x's shape and type filled with 1 or 0;
//   SumToShape(g, x): g summed down to x's shape, undoing numpy broadcasting (the leading axes g
//   has beyond x's rank, and every axis where x has 1 and g more).
#include <climits>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct FillImpl {
  void operator()(Tensor& out, double value) const {
    T* data = out.MutableData<T>();
    const T filled = FromCompute<T>(value);
    for (int64_t i = 0; i < out.NumElements(); ++i) data[i] = filled;
  }
};

using GradientTypes = TypeList<float, double, Float16, BFloat16>;

template <int kValue>
class FillLike final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    Tensor& out = context.Output(0, x.Shape(), x.Type());
    DispatchByType<FillImpl, GradientTypes>(x.Type(), GetNode().Describe(), out,
                                            static_cast<double>(kValue));
  }
};

template <typename T>
struct SumToShapeImpl {
  void operator()(const Tensor& g, Tensor& out) const {
    const size_t g_rank = g.Shape().Rank();
    const size_t offset = g_rank - out.Shape().Rank();
    std::vector<double> sums(static_cast<size_t>(out.NumElements()), 0.0);
    // Strides of out, aligned to g's axes (0 where g's axis folds into out's).
    std::vector<int64_t> stride(g_rank, 0);
    int64_t step = 1;
    for (size_t d = g_rank; d-- > offset;) {
      const int64_t out_dim = out.Shape()[d - offset];
      stride[d] = out_dim == 1 ? 0 : step;
      step *= out_dim;
    }
    std::vector<int64_t> index(g_rank, 0);
    const T* data = g.Data<T>();
    int64_t target = 0;
    for (int64_t i = 0; i < g.NumElements(); ++i) {
      sums[static_cast<size_t>(target)] += ToDouble(data[i]);
      for (size_t d = g_rank; d-- > 0;) {
        target += stride[d];
        if (++index[d] < g.Shape()[d]) break;
        target -= stride[d] * index[d];
        index[d] = 0;
      }
    }
    T* result = out.MutableData<T>();
    for (size_t i = 0; i < sums.size(); ++i) result[i] = FromCompute<T>(sums[i]);
  }
};

class SumToShape final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    const std::string node = GetNode().Describe();
    const Tensor& g = context.RequiredInput(0);
    const Tensor& x = context.RequiredInput(1);
    const TensorShape& gs = g.Shape();
    const TensorShape& xs = x.Shape();
    bool fits = gs.Rank() >= xs.Rank();
    for (size_t d = 0; fits && d < xs.Rank(); ++d) {
      const int64_t g_dim = gs[gs.Rank() - xs.Rank() + d];
      fits = xs[d] == g_dim || xs[d] == 1;
    }
    PRISM_ENFORCE(fits, kInvalidArgument, node, ": a gradient of shape ", gs.ToString(),
                  " cannot come from broadcasting a value of shape ", xs.ToString());
    Tensor& out = context.Output(0, xs, g.Type());
    if (out.NumElements() == 0) return;
    DispatchByType<SumToShapeImpl, GradientTypes>(g.Type(), node, g, out);
  }
};

void RegisterGradientHelperKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> types = {E::kFloat, E::kDouble, E::kFloat16, E::kBFloat16};
  const auto add = [&](const char* op, KernelFactory factory, std::vector<int> inputs) {
    registry.Register(KernelDefBuilder(op)
                          .Domain("com.prism.internal")
                          .Versions(1, INT_MAX)
                          .Constraint("T", types, std::move(inputs), {0})
                          .Build(),
                      std::move(factory));
  };
  add("OnesLike", MakeKernelFactory<FillLike<1>>(), {0});
  add("ZerosLike", MakeKernelFactory<FillLike<0>>(), {0});
  add("SumToShape", MakeKernelFactory<SumToShape>(), {0, 1});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(training_gradient_helpers, RegisterGradientHelperKernels);

}  // namespace prism::cpu
