// Hardmax: 1 at the first maximum along the axis and 0 elsewhere. Opsets 1 and 11 coerce the
// input to 2-D at `axis` (default 1) and pick one maximum per row of the flattened trailing
// block; opset 13+ works along the single axis `axis` (default -1). NaN counts as the maximum,
// as in numpy's argmax (see arg_extreme.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/axis_layout.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/reduction/arg_extreme.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct HardmaxImpl {
  void operator()(const Tensor& x, Tensor& y, const AxisLayout& layout, ThreadPool* pool) const {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    std::fill(out, out + y.NumElements(), T(0.0f));
    const double cost = 2.0 * static_cast<double>(layout.extent);
    ThreadPool::TryParallelFor(
        pool, layout.outer * layout.inner, cost, [&](int64_t first, int64_t last) {
          for (int64_t line = first; line < last; ++line) {
            const int64_t base =
                (line / layout.inner) * layout.extent * layout.inner + line % layout.inner;
            ArgExtreme<true, T> choice;
            for (int64_t e = 0; e < layout.extent; ++e)
              choice.Offer(in[base + e * layout.inner], e, false);
            out[base + choice.index * layout.inner] = T(1.0f);
          }
        });
  }
};

class Hardmax final : public OpKernel {
 public:
  explicit Hardmax(const OpKernelInfo& info) : OpKernel(info) {
    coerce_2d_ = info.GetNode().OpsetVersion() < 13;
    axis_ = info.IntOr("axis", coerce_2d_ ? 1 : -1);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input must have rank >= 1, got a scalar");
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const AxisLayout layout = coerce_2d_ ? CoercedTo2D(shape, axis) : AroundAxis(shape, axis);
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<HardmaxImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), node.OpType(), x, y, layout, context.IntraOpThreadPool());
  }

 private:
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

void RegisterHardmaxKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const auto factory = MakeKernelFactory<Hardmax>();
  registry.Register(
      KernelDefBuilder("Hardmax").Versions(1, 10).Constraint("T", floats, {0}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("Hardmax").Versions(11, 12).Constraint("T", floats, {0}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("Hardmax")
          .Versions(13)
          .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16}, {0}, {0})
          .Build(),
      factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_hardmax, RegisterHardmaxKernels);

}  // namespace prism::cpu
