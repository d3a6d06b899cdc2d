// NonZero: the coordinates of the nonzero elements in row-major order, as int64 [rank, count]
// (numpy.nonzero stacked). A scalar is treated as 1-D, giving [1, count]. Zero means: +-0 for
// floating types (NaN is nonzero), false, "" for strings, 0 + 0i for complex.
#include <climits>
#include <complex>
#include <string>
#include <tuple>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct NonZeroPositions {
  void operator()(const Tensor& x, std::vector<int64_t>& positions) const {
    const T* data = x.Data<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      bool nonzero = false;
      if constexpr (std::is_same_v<T, std::string>)
        nonzero = !data[i].empty();
      else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>)
        nonzero = data[i] != T(0);
      else if constexpr (std::is_same_v<T, bool>)
        nonzero = data[i];
      else
        nonzero = ToCompute(data[i]) != 0;
      if (nonzero) positions.push_back(i);
    }
  }
};

class NonZero final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    std::vector<int64_t> positions;
    DispatchByType<NonZeroPositions,
                   TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string,
                            std::complex<float>, std::complex<double>>>(
        x.Type(), GetNode().OpType(), x, positions);
    const std::vector<int64_t> dims =
        x.Shape().Rank() == 0 ? std::vector<int64_t>{1} : x.Shape().Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t count = static_cast<int64_t>(positions.size());
    Tensor& y = context.Output(0, TensorShape({rank, count}), ElementType::kInt64);
    int64_t* out = y.MutableData<int64_t>();
    for (int64_t j = 0; j < count; ++j) {
      int64_t rest = positions[static_cast<size_t>(j)];
      for (int64_t d = rank; d-- > 0;) {
        out[d * count + j] = rest % dims[static_cast<size_t>(d)];
        rest /= dims[static_cast<size_t>(d)];
      }
    }
  }
};

void RegisterNonZeroKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<NonZero>();
  for (const auto& [since, end, types] :
       {std::tuple{9, 12, G::kNoBfloat16}, std::tuple{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("NonZero")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_non_zero, RegisterNonZeroKernels);

}  // namespace prism::cpu
