// MeanVarianceNormalization: (X - E[X]) / (sqrt(E[(X - E[X])^2]) + 1e-9) with the expectations
// over 'axes' (default [0, 2, 3]), as the spec's function body computes it (its epsilon is added
// to the standard deviation). Statistics in double.
#include <cmath>
#include <set>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

using FloatTypes = TypeList<float, double, Float16, BFloat16>;

template <typename T>
struct MeanVarianceImpl {
  // outer: the kept axes' index of each element; groups: how many distinct kept indices.
  void operator()(const Tensor& x, Tensor& y, const std::vector<int64_t>& group_of,
                  int64_t groups) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    const int64_t count = x.NumElements();
    std::vector<double> sum(static_cast<size_t>(groups), 0.0);
    std::vector<double> squares(static_cast<size_t>(groups), 0.0);
    std::vector<int64_t> members(static_cast<size_t>(groups), 0);
    for (int64_t i = 0; i < count; ++i) {
      sum[group_of[i]] += ToDouble(in[i]);
      ++members[group_of[i]];
    }
    for (int64_t g = 0; g < groups; ++g) sum[g] /= static_cast<double>(members[g]);
    for (int64_t i = 0; i < count; ++i) {
      const double d = ToDouble(in[i]) - sum[group_of[i]];
      squares[group_of[i]] += d * d;
    }
    for (int64_t g = 0; g < groups; ++g)
      squares[g] = std::sqrt(squares[g] / static_cast<double>(members[g])) + 1e-9;
    for (int64_t i = 0; i < count; ++i)
      out[i] = FromCompute<T>((ToDouble(in[i]) - sum[group_of[i]]) / squares[group_of[i]]);
  }
};

class MeanVarianceNormalization final : public OpKernel {
 public:
  explicit MeanVarianceNormalization(const OpKernelInfo& info)
      : OpKernel(info), axes_(info.IntsOr("axes", {0, 2, 3})) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const std::vector<int64_t>& dims = x.Shape().Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    std::set<int64_t> reduced;
    for (int64_t axis : axes_) {
      PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node.Describe(), ": axis ",
                    axis, " is out of range for X of shape ", x.Shape().ToString());
      PRISM_ENFORCE(reduced.insert(axis < 0 ? axis + rank : axis).second, kInvalidArgument,
                    node.Describe(), ": axis ", axis, " appears twice in 'axes'");
    }
    Tensor& y = context.Output(0, x.Shape(), x.Type());
    if (y.NumElements() == 0) return;
    // Each element's group: its index over the axes that are not reduced.
    std::vector<int64_t> group_of(static_cast<size_t>(x.NumElements()));
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    int64_t groups = 1;
    for (int64_t a = 0; a < rank; ++a)
      if (!reduced.count(a)) groups *= dims[a];
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      int64_t group = 0;
      for (int64_t a = 0; a < rank; ++a)
        if (!reduced.count(a)) group = group * dims[a] + index[a];
      group_of[i] = group;
      for (int64_t a = rank - 1; a >= 0; --a) {
        if (++index[a] < dims[a]) break;
        index[a] = 0;
      }
    }
    DispatchByType<MeanVarianceImpl, FloatTypes>(x.Type(), node.OpType(), x, y, group_of, groups);
  }

 private:
  std::vector<int64_t> axes_;
};

void RegisterMeanVarianceNormalizationKernels(KernelRegistry& registry) {
  using E = ElementType;
  const auto factory = MakeKernelFactory<MeanVarianceNormalization>();
  registry.Register(KernelDefBuilder("MeanVarianceNormalization")
                        .Versions(9, 12)
                        .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble}, {0}, {0})
                        .Build(),
                    factory);
  registry.Register(
      KernelDefBuilder("MeanVarianceNormalization")
          .Versions(13)
          .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16}, {0}, {0})
          .Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_mean_variance_normalization, RegisterMeanVarianceNormalizationKernels);

}  // namespace prism::cpu
