// ArgMax and ArgMin: the int64 index of the extreme element along `axis` (default 0), keeping the
// reduced axis as size 1 unless keepdims is 0; select_last_index (opset 12+) picks the last of
// equal extremes. NaN is treated as numpy does (see arg_extreme.h). An axis of size 0 has no
// extreme, so it is an error unless the output is empty anyway.
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

constexpr int64_t kInnerBlock = 64;

template <bool kMax>
struct ArgImpl {
  template <typename T>
  struct Impl {
    void operator()(const Tensor& x, Tensor& y, const AxisLayout& layout, bool select_last,
                    ThreadPool* pool) const {
      const T* in = x.Data<T>();
      int64_t* out = y.MutableData<int64_t>();
      // Work units are (outer, block of inner positions); within a unit the extent loop walks
      // rows of contiguous inner elements.
      const int64_t blocks = (layout.inner + kInnerBlock - 1) / kInnerBlock;
      const double cost =
          3.0 * static_cast<double>(layout.extent * std::min(layout.inner, kInnerBlock));
      ThreadPool::TryParallelFor(
          pool, layout.outer * blocks, cost, [&](int64_t first, int64_t last) {
            std::vector<ArgExtreme<kMax, T>> choice(static_cast<size_t>(kInnerBlock));
            for (int64_t unit = first; unit < last; ++unit) {
              const int64_t o = unit / blocks;
              const int64_t begin = (unit % blocks) * kInnerBlock;
              const int64_t width = std::min(kInnerBlock, layout.inner - begin);
              std::fill(choice.begin(), choice.end(), ArgExtreme<kMax, T>{});
              const T* base = in + o * layout.extent * layout.inner + begin;
              for (int64_t e = 0; e < layout.extent; ++e)
                for (int64_t i = 0; i < width; ++i)
                  choice[static_cast<size_t>(i)].Offer(base[e * layout.inner + i], e, select_last);
              for (int64_t i = 0; i < width; ++i)
                out[o * layout.inner + begin + i] = choice[static_cast<size_t>(i)].index;
            }
          });
    }
  };
};

template <bool kMax>
class ArgMinMax final : public OpKernel {
 public:
  explicit ArgMinMax(const OpKernelInfo& info)
      : OpKernel(info),
        axis_(info.IntOr("axis", 0)),
        keep_dims_(info.IntOr("keepdims", 1) != 0),
        select_last_(info.IntOr("select_last_index", 0) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input 'data' must have rank >= 1, got a scalar");
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    std::vector<int64_t> out_dims;
    for (size_t d = 0; d < shape.Rank(); ++d) {
      if (d != axis)
        out_dims.push_back(shape[d]);
      else if (keep_dims_)
        out_dims.push_back(1);
    }
    Tensor& y = context.Output(0, TensorShape(out_dims), ElementType::kInt64);
    if (y.NumElements() == 0) return;
    PRISM_ENFORCE(shape[axis] > 0, kInvalidArgument, node.Describe(), ": axis ", axis_,
                  " of input shape ", shape.ToString(), " is empty, so there is no ",
                  kMax ? "maximum" : "minimum");
    const AxisLayout layout = AroundAxis(shape, axis);
    DispatchByType<ArgImpl<kMax>::template Impl,
                   TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                            uint8_t, uint16_t, uint32_t, uint64_t>>(
        x.Type(), node.OpType(), x, y, layout, select_last_, context.IntraOpThreadPool());
  }

 private:
  int64_t axis_;
  bool keep_dims_;
  bool select_last_;
};

void RegisterArgMinMaxKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> numeric = {E::kFloat16, E::kFloat,  E::kDouble, E::kInt8,
                                  E::kInt16,   E::kInt32,  E::kInt64,  E::kUint8,
                                  E::kUint16,  E::kUint32, E::kUint64};
  std::vector<E> with_bf16 = numeric;
  with_bf16.push_back(E::kBFloat16);
  const auto register_op = [&](const char* name, const KernelFactory& factory) {
    registry.Register(
        KernelDefBuilder(name).Versions(1, 10).Constraint("T", numeric, {0}, {}).Build(), factory);
    registry.Register(
        KernelDefBuilder(name).Versions(11, 11).Constraint("T", numeric, {0}, {}).Build(), factory);
    registry.Register(
        KernelDefBuilder(name).Versions(12, 12).Constraint("T", numeric, {0}, {}).Build(), factory);
    registry.Register(
        KernelDefBuilder(name).Versions(13).Constraint("T", with_bf16, {0}, {}).Build(), factory);
  };
  register_op("ArgMax", MakeKernelFactory<ArgMinMax<true>>());
  register_op("ArgMin", MakeKernelFactory<ArgMinMax<false>>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(reduction_arg_min_max, RegisterArgMinMaxKernels);

}  // namespace prism::cpu
