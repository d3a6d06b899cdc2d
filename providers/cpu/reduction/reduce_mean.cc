// ReduceMean: the arithmetic mean over the given axes (all axes by default). Floating types
// accumulate in double; integer types accumulate in 64-bit integers and divide with
// truncation toward zero, as numpy's mean with an integer dtype does. The mean of an empty
// set is NaN for floating types and 0 for integer types.
#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// The input's dims with size-1 dims dropped and neighbours of the same kind (reduced or
// kept) merged, so the accumulation loop runs over as few axes as possible.
struct ReductionLayout {
  std::vector<int64_t> dims;
  std::vector<bool> reduced;
  std::vector<int64_t> out_strides;  // stride in the output for kept dims, 0 for reduced ones
};

ReductionLayout MakeLayout(const TensorShape& shape, const std::vector<bool>& reduce) {
  ReductionLayout layout;
  for (size_t d = 0; d < shape.Rank(); ++d) {
    if (shape[d] == 1) continue;
    if (!layout.dims.empty() && layout.reduced.back() == reduce[d]) {
      layout.dims.back() *= shape[d];
    } else {
      layout.dims.push_back(shape[d]);
      layout.reduced.push_back(reduce[d]);
    }
  }
  layout.out_strides.assign(layout.dims.size(), 0);
  int64_t stride = 1;
  for (size_t d = layout.dims.size(); d-- > 0;) {
    if (layout.reduced[d]) continue;
    layout.out_strides[d] = stride;
    stride *= layout.dims[d];
  }
  return layout;
}

template <typename T>
using AccumulatorOf =
    std::conditional_t<std::is_integral_v<T>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, double>;

template <typename T>
AccumulatorOf<T> ToAccumulator(T value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return static_cast<double>(value.ToFloat());
  else
    return static_cast<AccumulatorOf<T>>(value);
}

template <typename T>
T FromMean(AccumulatorOf<T> sum, int64_t count) {
  if constexpr (std::is_integral_v<T>) {
    if (count == 0) return T{0};  // numpy's 0/0 is undefined for integers; pick 0
    return static_cast<T>(sum / static_cast<AccumulatorOf<T>>(count));
  } else {
    const double mean =
        count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(count);
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
      return T(static_cast<float>(mean));
    else
      return static_cast<T>(mean);
  }
}

template <typename T>
struct MeanImpl {
  void operator()(const Tensor& input, const std::vector<bool>& reduce, int64_t reduce_count,
                  Tensor& output) const {
    using Acc = AccumulatorOf<T>;
    const int64_t out_size = output.NumElements();
    std::vector<Acc> sums(static_cast<size_t>(out_size), Acc{0});
    if (input.NumElements() > 0) {
      const ReductionLayout layout = MakeLayout(input.Shape(), reduce);
      const T* x = input.Data<T>();
      const size_t rank = layout.dims.size();
      if (rank == 0) {  // every dim is 1: a single element
        sums[0] += ToAccumulator(x[0]);
      } else {
        const int64_t inner = layout.dims[rank - 1];
        const bool inner_reduced = layout.reduced[rank - 1];
        const int64_t outer = input.NumElements() / inner;
        std::vector<int64_t> index(rank - 1, 0);
        int64_t out_offset = 0;
        for (int64_t o = 0; o < outer; ++o, x += inner) {
          if (inner_reduced) {
            Acc sum{0};
            for (int64_t j = 0; j < inner; ++j) sum += ToAccumulator(x[j]);
            sums[static_cast<size_t>(out_offset)] += sum;
          } else {
            Acc* row = sums.data() + out_offset;
            for (int64_t j = 0; j < inner; ++j) row[j] += ToAccumulator(x[j]);
          }
          // Odometer over the outer merged axes, tracking the output offset.
          for (size_t a = rank - 1; a-- > 0;) {
            if (++index[a] < layout.dims[a]) {
              out_offset += layout.out_strides[a];
              break;
            }
            out_offset -= layout.out_strides[a] * (layout.dims[a] - 1);
            index[a] = 0;
          }
        }
      }
    }
    T* y = output.MutableData<T>();
    for (int64_t i = 0; i < out_size; ++i)
      y[i] = FromMean<T>(sums[static_cast<size_t>(i)], reduce_count);
  }
};

using MeanTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

class ReduceMean final : public OpKernel {
 public:
  explicit ReduceMean(const OpKernelInfo& info)
      : OpKernel(info),
        axes_from_input_(info.GetNode().OpsetVersion() >= 18),
        keep_dims_(info.IntOr("keepdims", 1) != 0),
        noop_with_empty_axes_(info.IntOr("noop_with_empty_axes", 0) != 0) {
    if (!axes_from_input_ && info.HasAttr("axes")) axes_attr_ = info.Ints("axes");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    std::vector<int64_t> axes;
    if (axes_from_input_) {
      if (const Tensor* axes_input = context.Input(1))
        axes = ReadIntList(*axes_input, "ReduceMean axes input");
      if (axes.empty() && noop_with_empty_axes_) {
        context.SetOutput(0, Value(input));
        return;
      }
    } else if (axes_attr_.has_value()) {
      axes = *axes_attr_;
    }

    const int64_t rank = static_cast<int64_t>(shape.Rank());
    std::vector<bool> reduce(shape.Rank(), axes.empty());
    for (int64_t axis : axes) {
      PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, GetNode().Describe(), ": axis ",
                    axis, " is out of range [", -rank, ", ", rank - 1, "] for input ",
                    shape.ToString());
      const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      PRISM_ENFORCE(!reduce[a], kInvalidArgument, GetNode().Describe(), ": axis ", axis,
                    " is given more than once");
      reduce[a] = true;
    }
    std::vector<int64_t> out_dims;
    int64_t reduce_count = 1;
    for (size_t d = 0; d < shape.Rank(); ++d) {
      if (!reduce[d]) {
        out_dims.push_back(shape[d]);
      } else {
        reduce_count *= shape[d];
        if (keep_dims_) out_dims.push_back(1);
      }
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    DispatchByType<MeanImpl, MeanTypes>(input.Type(), "ReduceMean", input, reduce, reduce_count,
                                        output);
  }

 private:
  bool axes_from_input_;
  bool keep_dims_;
  bool noop_with_empty_axes_;
  std::optional<std::vector<int64_t>> axes_attr_;
};

void RegisterReduceMeanKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<ElementType> classic = {E::kUint32,  E::kUint64, E::kInt32, E::kInt64,
                                            E::kFloat16, E::kFloat,  E::kDouble};
  std::vector<ElementType> with_bf16 = classic;
  with_bf16.push_back(E::kBFloat16);
  const auto factory = MakeKernelFactory<ReduceMean>();
  registry.Register(
      KernelDefBuilder("ReduceMean").Versions(1, 10).Constraint("T", classic, {0}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("ReduceMean").Versions(11, 12).Constraint("T", classic, {0}, {0}).Build(),
      factory);
  registry.Register(
      KernelDefBuilder("ReduceMean").Versions(13, 17).Constraint("T", with_bf16, {0}, {0}).Build(),
      factory);
  registry.Register(KernelDefBuilder("ReduceMean")
                        .Versions(18)
                        .Constraint("T", with_bf16, {0}, {0})
                        .CpuInput(1)
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(reduction_reduce_mean, RegisterReduceMeanKernels);

}  // namespace prism::cpu
