// Range: start, start + delta, ... up to (not including) limit, from three scalars of one type.
// The count is max(ceil((limit - start) / delta), 0), worked out exactly for integers (in
// unsigned arithmetic, so the distance may exceed int64); element i is start + i * delta
// (in double, float for the half types), not a running sum, so rounding does not accumulate.
// A zero delta is an error.
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
T ScalarOf(const Tensor& tensor, const Node& node, const char* name) {
  PRISM_ENFORCE(tensor.NumElements() == 1 && tensor.Shape().Rank() <= 1, kInvalidArgument,
                node.Describe(), ": input '", name, "' must be a scalar, got shape ",
                tensor.Shape().ToString());
  return tensor.Data<T>()[0];
}

template <typename T>
struct RangeImpl {
  void operator()(const Tensor& start_tensor, const Tensor& limit_tensor,
                  const Tensor& delta_tensor, const Node& node, OpKernelContext& context) const {
    const T start = ScalarOf<T>(start_tensor, node, "start");
    const T limit = ScalarOf<T>(limit_tensor, node, "limit");
    const T delta = ScalarOf<T>(delta_tensor, node, "delta");
    int64_t count = 0;
    if constexpr (std::is_integral_v<T>) {
      PRISM_ENFORCE(delta != 0, kInvalidArgument, node.Describe(), ": delta is 0");
      // The distance fits in uint64 whenever it is positive in the direction of delta.
      const int64_t s = start, l = limit, d = delta;
      const auto steps = [](uint64_t distance, uint64_t step) {
        return static_cast<int64_t>(distance / step + (distance % step != 0 ? 1 : 0));
      };
      if (d > 0 && l > s)
        count =
            steps(static_cast<uint64_t>(l) - static_cast<uint64_t>(s), static_cast<uint64_t>(d));
      else if (d < 0 && l < s)
        count = steps(static_cast<uint64_t>(s) - static_cast<uint64_t>(l),
                      uint64_t{0} - static_cast<uint64_t>(d));
    } else {
      const double s = ToDouble(start), l = ToDouble(limit), d = ToDouble(delta);
      PRISM_ENFORCE(d != 0, kInvalidArgument, node.Describe(), ": delta is 0");
      const double steps = std::ceil((l - s) / d);
      PRISM_ENFORCE(std::isfinite(steps), kInvalidArgument, node.Describe(), ": start ", s,
                    ", limit ", l, " and delta ", d, " do not give a finite count");
      PRISM_ENFORCE(steps < static_cast<double>(INT32_MAX) * 64, kInvalidArgument, node.Describe(),
                    ": start ", s, ", limit ", l, " and delta ", d, " give ", steps, " elements");
      count = steps > 0 ? static_cast<int64_t>(steps) : 0;
    }
    Tensor& output = context.Output(0, TensorShape({count}), ElementTypeOf<T>());
    T* out = output.MutableData<T>();
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_integral_v<T>)
        out[i] = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(start)) +
                                static_cast<uint64_t>(i) *
                                    static_cast<uint64_t>(static_cast<int64_t>(delta)));
      else if constexpr (kIsHalfType<T>)
        out[i] = T(ToCompute(start) + static_cast<float>(i) * ToCompute(delta));
      else
        out[i] = static_cast<T>(static_cast<double>(start) +
                                static_cast<double>(i) * static_cast<double>(delta));
    }
  }
};

class Range final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext& context) const override {
    const Tensor& start = context.RequiredInput(0);
    DispatchByType<RangeImpl,
                   TypeList<float, double, int16_t, int32_t, int64_t, Float16, BFloat16>>(
        start.Type(), GetNode().OpType(), start, context.RequiredInput(1), context.RequiredInput(2),
        GetNode(), context);
  }
};

void RegisterRangeKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> classic = {E::kFloat, E::kDouble, E::kInt16, E::kInt32, E::kInt64};
  std::vector<E> with_halves = classic;
  with_halves.insert(with_halves.end(), {E::kFloat16, E::kBFloat16});
  const auto factory = MakeKernelFactory<Range>();
  registry.Register(KernelDefBuilder("Range")
                        .Versions(11, 26)
                        .Constraint("T", classic, {0, 1, 2}, {0})
                        .CpuInput(0)
                        .CpuInput(1)
                        .CpuInput(2)
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("Range")
                        .Versions(27)
                        .Constraint("T", with_halves, {0, 1, 2}, {0})
                        .CpuInput(0)
                        .CpuInput(1)
                        .CpuInput(2)
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_range, RegisterRangeKernels);

}  // namespace prism::cpu
