// GlobalAveragePool: the mean over all spatial axes of each (n, c) plane; the output keeps
// the rank with every spatial dim set to 1.
#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct GlobalAverageImpl {
  void operator()(const Tensor& x, Tensor& y, int64_t planes, int64_t plane_size,
                  ThreadPool* pool) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    ThreadPool::TryParallelFor(pool, planes, static_cast<double>(plane_size),
                               [&](int64_t first, int64_t last) {
                                 for (int64_t p = first; p < last; ++p) {
                                   const T* plane = in + p * plane_size;
                                   double sum = 0;
                                   for (int64_t i = 0; i < plane_size; ++i)
                                     sum += static_cast<double>(ToCompute(plane[i]));
                                   // An empty plane has no mean: 0 / 0 gives NaN.
                                   out[p] = FromCompute<T>(sum / static_cast<double>(plane_size));
                                 }
                               });
  }
};

class GlobalAveragePool final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, GetNode().Describe(),
                  ": input X must have rank >= 2 (N x C x D1 x ...), got shape ", shape.ToString());
    std::vector<int64_t> out_dims(shape.Rank(), 1);
    out_dims[0] = shape[0];
    out_dims[1] = shape[1];
    Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
    DispatchByType<GlobalAverageImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), GetNode().OpType(), x, y, shape.SizeToDimension(2), shape.SizeFromDimension(2),
        context.IntraOpThreadPool());
  }
};

void RegisterGlobalAveragePoolKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<GlobalAveragePool>();
  registry.Register(KernelDefBuilder("GlobalAveragePool")
                        .Versions(1, 21)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("GlobalAveragePool")
          .Versions(22)
          .Constraint("T", {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
          .Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_global_average_pool, RegisterGlobalAveragePoolKernels);

}  // namespace prism::cpu
