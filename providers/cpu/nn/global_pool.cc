// Global pooling over all spatial axes of each (n, c) plane; the output keeps the rank with
// every spatial dim set to 1. GlobalAveragePool: the mean (an empty plane gives NaN);
// GlobalMaxPool: the largest value (NaN propagates, as numpy's max; an empty plane is refused);
// GlobalLpPool: (sum |x|^p)^(1/p), p default 2 (a float in opset 1, an integer after).
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class GlobalPoolKind { kAverage, kMax, kLp };

template <typename T>
struct GlobalPoolImpl {
  void operator()(const Tensor& x, Tensor& y, int64_t planes, int64_t plane_size,
                  GlobalPoolKind kind, double p, ThreadPool* pool) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    ThreadPool::TryParallelFor(
        pool, planes, static_cast<double>(plane_size), [&](int64_t first, int64_t last) {
          for (int64_t index = first; index < last; ++index) {
            const T* plane = in + index * plane_size;
            double result = 0;
            if (kind == GlobalPoolKind::kMax) {
              result = ToDouble(plane[0]);
              for (int64_t i = 1; i < plane_size && !std::isnan(result); ++i)
                result = std::isnan(ToDouble(plane[i])) ? ToDouble(plane[i])
                                                        : std::max(result, ToDouble(plane[i]));
            } else if (kind == GlobalPoolKind::kLp) {
              for (int64_t i = 0; i < plane_size; ++i)
                result += std::pow(std::fabs(ToDouble(plane[i])), p);
              result = std::pow(result, 1.0 / p);
            } else {
              for (int64_t i = 0; i < plane_size; ++i) result += ToDouble(plane[i]);
              // An empty plane has no mean: 0 / 0 gives NaN.
              result /= static_cast<double>(plane_size);
            }
            out[index] = FromCompute<T>(result);
          }
        });
  }
};

class GlobalPool final : public OpKernel {
 public:
  explicit GlobalPool(const OpKernelInfo& info) : OpKernel(info) {
    const std::string& op = info.GetNode().OpType();
    kind_ = op == "GlobalMaxPool"  ? GlobalPoolKind::kMax
            : op == "GlobalLpPool" ? GlobalPoolKind::kLp
                                   : GlobalPoolKind::kAverage;
    if (kind_ == GlobalPoolKind::kLp) {
      // Opset 1 took p as a float, later ones as an integer.
      p_ = info.GetNode().OpsetVersion() < 2 ? static_cast<double>(info.FloatOr("p", 2.0f))
                                             : static_cast<double>(info.IntOr("p", 2));
      PRISM_ENFORCE(p_ > 0, kInvalidArgument, info.GetNode().Describe(), ": p = ", p_,
                    " must be positive");
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, GetNode().Describe(),
                  ": input X must have rank >= 2 (N x C x D1 x ...), got shape ", shape.ToString());
    std::vector<int64_t> out_dims(shape.Rank(), 1);
    out_dims[0] = shape[0];
    out_dims[1] = shape[1];
    const int64_t planes = shape.SizeToDimension(2);
    PRISM_ENFORCE(kind_ != GlobalPoolKind::kMax || planes == 0 || shape.SizeFromDimension(2) > 0,
                  kInvalidArgument, GetNode().Describe(), ": input X of shape ", shape.ToString(),
                  " has empty planes, which have no maximum");
    Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
    DispatchByType<GlobalPoolImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), GetNode().OpType(), x, y, planes, shape.SizeFromDimension(2), kind_, p_,
        context.IntraOpThreadPool());
  }

 private:
  GlobalPoolKind kind_ = GlobalPoolKind::kAverage;
  double p_ = 2;
};

void RegisterGlobalPoolKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> with_bf16 = {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble};
  const auto factory = MakeKernelFactory<GlobalPool>();
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    registry.Register(
        KernelDefBuilder(op).Versions(1, 21).Constraint("T", classic, {0}, {0}).Build(), factory);
    registry.Register(
        KernelDefBuilder(op).Versions(22).Constraint("T", with_bf16, {0}, {0}).Build(), factory);
  }
  registry.Register(
      KernelDefBuilder("GlobalLpPool").Versions(1, 21).Constraint("T", classic, {0}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("GlobalLpPool").Versions(22).Constraint("T", with_bf16, {0}, {0}).Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_global_pool, RegisterGlobalPoolKernels);

}  // namespace prism::cpu
