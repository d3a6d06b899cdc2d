// CumSum (opset 11, 14) and CumProd (opset 26): running sums or products along the axis given
// as a scalar (or one-element) int32/int64 input. `exclusive` leaves the current element out
// (the first output is 0 or 1), `reverse` runs from the end. Float16 and bfloat16 accumulate in
// float; integers wrap as their type does (computed in unsigned arithmetic).
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/axis_layout.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// The running value's type: float for the half types, the unsigned twin for signed integers
// (so overflow wraps instead of being undefined), T otherwise.
template <typename T, bool kIntegral = std::is_integral_v<T>>
struct Running {
  using type = ComputeTypeOf<T>;
};
template <typename T>
struct Running<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using RunningOf = typename Running<T>::type;

template <bool kProduct>
struct CumulativeImpl {
  template <typename T>
  struct Impl {
    void operator()(const Tensor& x, Tensor& y, const AxisLayout& layout, bool exclusive,
                    bool reverse, ThreadPool* pool) const {
      using Value = RunningOf<T>;
      const T* in = x.Data<T>();
      T* out = y.MutableData<T>();
      const Value identity = kProduct ? Value(1) : Value(0);
      const auto load = [](T value) {
        if constexpr (kIsHalfType<T>)
          return value.ToFloat();
        else
          return static_cast<Value>(value);
      };
      const double cost = 2.0 * static_cast<double>(layout.extent * layout.inner);
      ThreadPool::TryParallelFor(pool, layout.outer, cost, [&](int64_t first, int64_t last) {
        std::vector<Value> running(static_cast<size_t>(layout.inner));
        for (int64_t o = first; o < last; ++o) {
          std::fill(running.begin(), running.end(), identity);
          const int64_t base = o * layout.extent * layout.inner;
          for (int64_t step = 0; step < layout.extent; ++step) {
            const int64_t e = reverse ? layout.extent - 1 - step : step;
            const T* row_in = in + base + e * layout.inner;
            T* row_out = out + base + e * layout.inner;
            for (int64_t i = 0; i < layout.inner; ++i) {
              Value& value = running[static_cast<size_t>(i)];
              const Value next =
                  kProduct ? Value(value * load(row_in[i])) : Value(value + load(row_in[i]));
              row_out[i] = FromCompute<T>(exclusive ? value : next);
              value = next;
            }
          }
        }
      });
    }
  };
};

template <bool kProduct>
class Cumulative final : public OpKernel {
 public:
  explicit Cumulative(const OpKernelInfo& info)
      : OpKernel(info),
        exclusive_(info.IntOr("exclusive", 0) != 0),
        reverse_(info.IntOr("reverse", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& axis_tensor = context.RequiredInput(1);
    PRISM_ENFORCE(axis_tensor.NumElements() == 1 && axis_tensor.Shape().Rank() <= 1,
                  kInvalidArgument, node.Describe(),
                  ": input 'axis' must be a scalar (or one-element 1-D tensor), got shape ",
                  axis_tensor.Shape().ToString());
    int64_t axis = axis_tensor.Type() == ElementType::kInt32
                       ? static_cast<int64_t>(axis_tensor.Data<int32_t>()[0])
                       : axis_tensor.Data<int64_t>()[0];
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input 'x' must have rank >= 1, got a scalar");
    PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, node.Describe(), ": axis ", axis,
                  " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                  shape.ToString());
    if (axis < 0) axis += rank;
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    const size_t a = static_cast<size_t>(axis);
    const AxisLayout layout = AroundAxis(shape, a);
    DispatchByType<
        CumulativeImpl<kProduct>::template Impl,
        TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>>(
        x.Type(), node.OpType(), x, y, layout, exclusive_, reverse_, context.IntraOpThreadPool());
  }

 private:
  bool exclusive_;
  bool reverse_;
};

void RegisterCumulativeKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> base = {E::kFloat, E::kDouble, E::kInt32, E::kInt64, E::kUint32, E::kUint64};
  std::vector<E> with_halves = base;
  with_halves.insert(with_halves.end(), {E::kFloat16, E::kBFloat16});
  const std::vector<E> axis_types = {E::kInt32, E::kInt64};
  registry.Register(KernelDefBuilder("CumSum")
                        .Versions(11, 13)
                        .Constraint("T", base, {0}, {0})
                        .Constraint("T2", axis_types, {1}, {})
                        .CpuInput(1)
                        .Build(),
                    MakeKernelFactory<Cumulative<false>>());
  registry.Register(KernelDefBuilder("CumSum")
                        .Versions(14)
                        .Constraint("T", with_halves, {0}, {0})
                        .Constraint("T2", axis_types, {1}, {})
                        .CpuInput(1)
                        .Build(),
                    MakeKernelFactory<Cumulative<false>>());
  registry.Register(KernelDefBuilder("CumProd")
                        .Versions(26)
                        .Constraint("T", with_halves, {0}, {0})
                        .Constraint("T2", axis_types, {1}, {})
                        .CpuInput(1)
                        .Build(),
                    MakeKernelFactory<Cumulative<true>>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(reduction_cumulative, RegisterCumulativeKernels);

}  // namespace prism::cpu
