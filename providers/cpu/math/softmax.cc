// Softmax and LogSoftmax. Opsets 1 and 11 coerce the input to 2-D at `axis` (default 1) and
// normalize each row of the flattened trailing block; opset 13+ normalizes along the single axis
// `axis` (default -1). The maximum is subtracted first so that large inputs do not overflow;
// LogSoftmax is computed as (x - max) - log(sum(exp(x - max))), never as log(softmax), which
// would give -inf where the softmax underflows. float runs on the vector exp kernel (within 2 ulp),
// the other types on std::exp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/common/axis_layout.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// float: each line through the dispatched vector kernels (mlas/isa_kernels.h): the maximum, then
// e^(x - max) and their sum in one pass, then the scaling (or, for LogSoftmax, x - max - ln sum).
// A line across a non-last axis is gathered into a contiguous scratch and scattered back.
void SoftmaxFloat(const float* in, float* out, const AxisLayout& layout, bool log_output,
                  ThreadPool* pool) {
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  const double cost = 8.0 * static_cast<double>(layout.extent);
  ThreadPool::TryParallelFor(
      pool, layout.outer * layout.inner, cost, [&](int64_t first, int64_t last) {
        const bool strided = layout.inner != 1;
        const auto extent = static_cast<size_t>(layout.extent);
        std::vector<float> scratch(strided || log_output ? (strided ? 2 : 1) * extent : 0);
        for (int64_t line = first; line < last; ++line) {
          const int64_t o = line / layout.inner;
          const int64_t i = line % layout.inner;
          const int64_t base = o * layout.extent * layout.inner + i;
          const float* src = in + base;
          if (strided) {
            for (size_t e = 0; e < extent; ++e) scratch[extent + e] = in[base + e * layout.inner];
            src = scratch.data() + extent;
          }
          // The exps go straight to the output row when it is contiguous and not LogSoftmax's.
          float* exps = strided || log_output ? scratch.data() : out + base;
          const float largest = kernels.max_f32(src, layout.extent);
          const float sum = kernels.exp_shifted_sum_f32(src, exps, layout.extent, largest);
          float* row = strided ? exps : out + base;
          if (log_output) {
            const float log_sum = std::log(sum);
            for (size_t e = 0; e < extent; ++e) row[e] = (src[e] - largest) - log_sum;
          } else {
            kernels.scale_f32(row, exps, layout.extent, 1.0f / sum);
          }
          if (strided)
            for (size_t e = 0; e < extent; ++e) out[base + e * layout.inner] = row[e];
        }
      });
}

template <typename T>
struct SoftmaxImpl {
  void operator()(const Tensor& x, Tensor& y, const AxisLayout& layout, bool log_output,
                  ThreadPool* pool) const {
    using Acc = FloatComputeTypeOf<T>;
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    if constexpr (std::is_same_v<T, float>) {
      SoftmaxFloat(in, out, layout, log_output, pool);
      return;
    }
    // Each (outer, inner) line is independent; each chunk has its own exps scratch.
    const double cost = 24.0 * static_cast<double>(layout.extent);
    ThreadPool::TryParallelFor(
        pool, layout.outer * layout.inner, cost, [&](int64_t first, int64_t last) {
          std::vector<Acc> exps(static_cast<size_t>(layout.extent));
          for (int64_t line = first; line < last; ++line) {
            const int64_t o = line / layout.inner;
            const int64_t i = line % layout.inner;
            const int64_t base = o * layout.extent * layout.inner + i;
            Acc max_value = -std::numeric_limits<Acc>::infinity();
            for (int64_t e = 0; e < layout.extent; ++e)
              max_value = std::max<Acc>(max_value, ToCompute(in[base + e * layout.inner]));
            Acc sum = 0;
            for (int64_t e = 0; e < layout.extent; ++e) {
              exps[e] =
                  std::exp(static_cast<Acc>(ToCompute(in[base + e * layout.inner])) - max_value);
              sum += exps[e];
            }
            if (log_output) {
              const Acc log_sum = std::log(sum);
              for (int64_t e = 0; e < layout.extent; ++e) {
                const Acc shifted =
                    static_cast<Acc>(ToCompute(in[base + e * layout.inner])) - max_value;
                out[base + e * layout.inner] = FromCompute<T>(shifted - log_sum);
              }
            } else {
              for (int64_t e = 0; e < layout.extent; ++e)
                out[base + e * layout.inner] = FromCompute<T>(exps[e] / sum);
            }
          }
        });
  }
};

class Softmax final : public OpKernel {
 public:
  explicit Softmax(const OpKernelInfo& info) : OpKernel(info) {
    log_output_ = info.GetNode().OpType() == "LogSoftmax";
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
                  axis_, " is out of range [", -rank, ", ", rank, ") for input of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const AxisLayout layout = coerce_2d_ ? CoercedTo2D(shape, axis) : AroundAxis(shape, axis);
    Tensor& y = context.Output(0, shape, x.Type());
    DispatchByType<SoftmaxImpl, TypeList<float, double, Float16, BFloat16>>(
        x.Type(), node.OpType(), x, y, layout, log_output_, context.IntraOpThreadPool());
  }

 private:
  bool log_output_ = false;
  bool coerce_2d_ = false;
  int64_t axis_ = -1;
};

void RegisterSoftmaxKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const auto factory = MakeKernelFactory<Softmax>();
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    registry.Register(
        KernelDefBuilder(op).Versions(1, 10).Constraint("T", floats, {0}, {0}).Build(), factory);
    registry.Register(
        KernelDefBuilder(op).Versions(11, 12).Constraint("T", floats, {0}, {0}).Build(), factory);
    registry.Register(
        KernelDefBuilder(op)
            .Versions(13)
            .Constraint("T", {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16}, {0}, {0})
            .Build(),
        factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_softmax, RegisterSoftmaxKernels);

}  // namespace prism::cpu
