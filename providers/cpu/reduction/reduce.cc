// The Reduce* family: ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp and ReduceSumSquare, over the axes given as an
// attribute (before ReduceSum-13 and the others' opset 18) or as an optional input (then an
// empty list reduces everything, or nothing with noop_with_empty_axes).
//
// Floating types accumulate in double. Integer sums and products accumulate in 64-bit unsigned
// arithmetic, so they wrap as the element type would and never hit undefined behaviour; the
// integer mean divides with truncation toward zero (numpy's mean with an integer dtype). Max and
// Min propagate NaN. Over an empty set: Sum, L1, L2, SumSquare give 0, Prod 1, Max -inf (the
// type's lowest), Min +inf (the type's highest), LogSum and LogSumExp -inf, Mean NaN (0 for
// integers). LogSumExp subtracts each output's maximum before exponentiating.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/reduction/reduction_layout.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class ReduceKind { kSum, kMean, kProd, kMax, kMin, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

template <typename T>
inline constexpr bool kFloatLike = std::is_floating_point_v<T> || kIsHalfType<T>;

// The accumulator: double for floating types (and LogSumExp of integers, which exponentiates);
// the signed or unsigned 64-bit type for integer Max/Min, which compare; uint64 for the other
// integer reductions, which add and multiply modulo 2^64.
template <ReduceKind K, typename T>
using AccOf = std::conditional_t<
    kFloatLike<T> || K == ReduceKind::kLogSumExp, double,
    std::conditional_t<K == ReduceKind::kMax || K == ReduceKind::kMin,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, uint64_t>>;

template <ReduceKind K, typename T>
struct Reducer {
  using Acc = AccOf<K, T>;
  static constexpr bool kIsMax = K == ReduceKind::kMax;
  static constexpr bool kIsMin = K == ReduceKind::kMin;

  static Acc Load(T value) {
    if constexpr (kIsHalfType<T>)
      return static_cast<double>(value.ToFloat());
    else if constexpr (std::is_same_v<T, bool>)
      return value ? 1 : 0;
    else
      return static_cast<Acc>(value);
  }

  static Acc Init() {
    if constexpr (K == ReduceKind::kProd) {
      return Acc{1};
    } else if constexpr (kIsMax || kIsMin) {
      if constexpr (std::is_same_v<T, bool>)
        return kIsMax ? Acc{0} : Acc{1};
      else if constexpr (std::is_same_v<Acc, double>)
        return kIsMax ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
      else
        return static_cast<Acc>(kIsMax ? std::numeric_limits<T>::lowest()
                                       : std::numeric_limits<T>::max());
    } else {
      return Acc{0};
    }
  }

  // Folds one loaded element into the accumulator; `shift` is LogSumExp's per-output maximum.
  static void Add(Acc& acc, Acc value, double shift) {
    if constexpr (K == ReduceKind::kProd) {
      acc *= value;
    } else if constexpr (kIsMax || kIsMin) {
      Merge(acc, value);
    } else if constexpr (K == ReduceKind::kL1) {
      if constexpr (std::is_same_v<Acc, double>)
        acc += std::fabs(value);
      else if constexpr (std::is_signed_v<T>)
        acc += static_cast<int64_t>(value) < 0 ? Acc{0} - value : value;  // no abs(INT64_MIN)
      else
        acc += value;
    } else if constexpr (K == ReduceKind::kL2 || K == ReduceKind::kSumSquare) {
      acc += value * value;
    } else if constexpr (K == ReduceKind::kLogSumExp) {
      acc += std::exp(value - shift);
    } else {
      acc += value;
    }
  }

  // Combines two partial accumulations.
  static void Merge(Acc& acc, Acc other) {
    if constexpr (K == ReduceKind::kProd) {
      acc *= other;
    } else if constexpr (kIsMax || kIsMin) {
      if constexpr (std::is_same_v<Acc, double>) {
        if (std::isnan(acc)) return;  // NaN sticks
        if (std::isnan(other) || (kIsMax ? other > acc : other < acc)) acc = other;
      } else {
        acc = kIsMax ? std::max(acc, other) : std::min(acc, other);
      }
    } else {
      acc += other;
    }
  }

  static T Finish(Acc acc, int64_t count, double shift) {
    if constexpr (K == ReduceKind::kMean) {
      if constexpr (std::is_same_v<Acc, double>) {
        return FromCompute<T>(count == 0 ? std::numeric_limits<double>::quiet_NaN()
                                         : acc / static_cast<double>(count));
      } else {
        if (count == 0) return T{0};
        if constexpr (std::is_signed_v<T>)
          return static_cast<T>(static_cast<int64_t>(acc) / count);
        else
          return static_cast<T>(acc / static_cast<uint64_t>(count));
      }
    } else if constexpr (K == ReduceKind::kL2) {
      return FromReal(std::sqrt(AsReal(acc)));
    } else if constexpr (K == ReduceKind::kLogSum) {
      return FromReal(std::log(AsReal(acc)));
    } else if constexpr (K == ReduceKind::kLogSumExp) {
      if (std::isinf(shift)) return FromReal(shift);  // all -inf, or some +inf
      return FromReal(shift + std::log(acc));
    } else if constexpr (std::is_same_v<T, bool>) {
      return acc != 0;
    } else {
      return FromCompute<T>(acc);
    }
  }

  // A real result as T; for integer T, NaN becomes 0 and values beyond the type's range (log 0
  // is -inf) saturate, where a plain conversion would be undefined.
  static T FromReal(double value) {
    if constexpr (kFloatLike<T>) {
      return FromCompute<T>(value);
    } else {
      if (std::isnan(value)) return T{0};
      if (value <= static_cast<double>(std::numeric_limits<T>::lowest()))
        return std::numeric_limits<T>::lowest();
      if (value >= static_cast<double>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
      return static_cast<T>(value);
    }
  }

  // Integer sums are read back as the signed value they wrapped to.
  static double AsReal(Acc acc) {
    if constexpr (std::is_same_v<Acc, uint64_t> && std::is_signed_v<T>)
      return static_cast<double>(static_cast<int64_t>(acc));
    else
      return static_cast<double>(acc);
  }
};

// Accumulates a contiguous row with four independent partial accumulators (so the additions
// pipeline) and merges them.
template <ReduceKind K, typename T>
typename Reducer<K, T>::Acc ReduceRow(const T* x, int64_t n, double shift) {
  using R = Reducer<K, T>;
  using Acc = typename R::Acc;
  std::array<Acc, 4> part = {R::Init(), R::Init(), R::Init(), R::Init()};
  int64_t j = 0;
  for (; j + 4 <= n; j += 4)
    for (int k = 0; k < 4; ++k) R::Add(part[k], R::Load(x[j + k]), shift);
  for (; j < n; ++j) R::Add(part[0], R::Load(x[j]), shift);
  for (int k = 1; k < 4; ++k) R::Merge(part[0], part[k]);
  return part[0];
}

// Steps through the offsets of every combination of `dims` (with `strides`), calling fn(offset).
template <typename Fn>
void ForEachOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, Fn&& fn) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    fn(offset);
    for (size_t a = dims.size(); a-- > 0;) {
      offset += strides[a];
      if (++index[a] < dims[a]) break;
      offset -= strides[a] * dims[a];
      index[a] = 0;
    }
  }
}

// The input offset of the first element of each output position `o` (row-major over `dims`).
int64_t KeptOffset(int64_t o, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t a = dims.size(); a-- > 0;) {
    offset += (o % dims[a]) * strides[a];
    o /= dims[a];
  }
  return offset;
}

constexpr int64_t kColumnBlock = 256;

template <ReduceKind K, typename T>
void Reduce(const T* x, const ReductionLayout& layout, int64_t count, const double* shifts, T* y,
            int64_t out_size, ThreadPool* pool) {
  using R = Reducer<K, T>;
  using Acc = typename R::Acc;
  auto shift_of = [shifts](int64_t o) { return shifts ? shifts[o] : 0.0; };
  if (count == 0) {  // a reduced dim is 0: every output is the empty reduction
    for (int64_t o = 0; o < out_size; ++o) y[o] = R::Finish(R::Init(), 0, shift_of(o));
    return;
  }
  const std::vector<int64_t> kept_dims = layout.DimsOf(false);
  const std::vector<int64_t> kept_strides = layout.StridesOf(false);
  std::vector<int64_t> red_dims = layout.DimsOf(true);
  std::vector<int64_t> red_strides = layout.StridesOf(true);
  const int64_t inner = layout.Inner();
  if (layout.InnerReduced()) {
    // Each output reduces contiguous rows of `inner` elements; outputs split over threads.
    red_dims.pop_back();
    red_strides.pop_back();
    const double cost = 2.0 * static_cast<double>(count);
    ThreadPool::TryParallelFor(pool, out_size, cost, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) {
        const T* base = x + KeptOffset(o, kept_dims, kept_strides);
        const double shift = shift_of(o);
        Acc acc = R::Init();
        ForEachOffset(red_dims, red_strides, [&](int64_t offset) {
          R::Merge(acc, ReduceRow<K, T>(base + offset, inner, shift));
        });
        y[o] = R::Finish(acc, count, shift);
      }
    });
    return;
  }
  // The innermost dim is kept: accumulate whole rows of `inner` outputs at once, split into
  // column blocks so that each block's accumulators stay in cache and threads get work even
  // when there is one group.
  std::vector<int64_t> group_dims(kept_dims.begin(), kept_dims.end() - 1);
  std::vector<int64_t> group_strides(kept_strides.begin(), kept_strides.end() - 1);
  const int64_t groups = out_size / inner;
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const double cost = 2.0 * static_cast<double>(count) * static_cast<double>(kColumnBlock);
  ThreadPool::TryParallelFor(pool, groups * blocks, cost, [&](int64_t first, int64_t last) {
    std::array<Acc, kColumnBlock> acc;
    for (int64_t unit = first; unit < last; ++unit) {
      const int64_t g = unit / blocks;
      const int64_t col = (unit % blocks) * kColumnBlock;
      const int64_t width = std::min(kColumnBlock, inner - col);
      const T* base = x + KeptOffset(g, group_dims, group_strides) + col;
      const int64_t out_base = g * inner + col;
      std::fill(acc.begin(), acc.begin() + width, R::Init());
      ForEachOffset(red_dims, red_strides, [&](int64_t offset) {
        const T* row = base + offset;
        for (int64_t j = 0; j < width; ++j) R::Add(acc[j], R::Load(row[j]), shift_of(out_base + j));
      });
      for (int64_t j = 0; j < width; ++j)
        y[out_base + j] = R::Finish(acc[j], count, shift_of(out_base + j));
    }
  });
}

template <ReduceKind K>
struct ReduceImpl {
  template <typename T>
  struct Impl {
    void operator()(const Tensor& input, const ReductionLayout& layout, int64_t count,
                    Tensor& output, ThreadPool* pool) const {
      const T* x = input.Data<T>();
      T* y = output.MutableData<T>();
      const int64_t out_size = output.NumElements();
      if (out_size == 0) return;
      std::vector<double> shifts;
      if constexpr (K == ReduceKind::kLogSumExp) {
        // Each output's maximum, found with ReduceMax over the same layout.
        std::vector<T> maxima(static_cast<size_t>(out_size));
        Reduce<ReduceKind::kMax, T>(x, layout, count, nullptr, maxima.data(), out_size, pool);
        shifts.resize(maxima.size());
        for (size_t i = 0; i < maxima.size(); ++i) shifts[i] = ToDouble(maxima[i]);
      }
      Reduce<K, T>(x, layout, count, shifts.empty() ? nullptr : shifts.data(), y, out_size, pool);
    }
  };
};

template <ReduceKind K, typename Types>
class ReduceKernel final : public OpKernel {
 public:
  ReduceKernel(const OpKernelInfo& info, int axes_input_since)
      : OpKernel(info),
        axes_from_input_(info.GetNode().OpsetVersion() >= axes_input_since),
        keep_dims_(info.IntOr("keepdims", 1) != 0),
        noop_with_empty_axes_(info.IntOr("noop_with_empty_axes", 0) != 0) {
    if (!axes_from_input_ && info.HasAttr("axes")) axes_attr_ = info.Ints("axes");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    std::vector<int64_t> axes;
    bool reduce_nothing = false;
    if (axes_from_input_) {
      if (const Tensor* axes_input = context.Input(1))
        axes = ReadIntList(*axes_input, node.Describe() + " input 'axes'");
      reduce_nothing = axes.empty() && noop_with_empty_axes_;
    } else if (axes_attr_.has_value()) {
      axes = *axes_attr_;
    }
    // noop_with_empty_axes: each element is reduced alone, so the per-element steps still apply
    // (|x| for ReduceL1, x^2 for ReduceSumSquare, log x for ReduceLogSum), as in the reference
    // and onnxruntime.
    const ReductionAxes resolved =
        reduce_nothing
            ? ReductionAxes{std::vector<bool>(input.Shape().Rank(), false), 1, input.Shape().Dims()}
            : ResolveReductionAxes(node.Describe(), input.Shape(), axes, keep_dims_);
    Tensor& output = context.Output(0, TensorShape(resolved.out_dims), input.Type());
    const ReductionLayout layout = MakeReductionLayout(input.Shape(), resolved.reduce);
    DispatchByType<ReduceImpl<K>::template Impl, Types>(input.Type(), node.OpType(), input, layout,
                                                        resolved.count, output,
                                                        context.IntraOpThreadPool());
  }

 private:
  bool axes_from_input_;
  bool keep_dims_;
  bool noop_with_empty_axes_;
  std::optional<std::vector<int64_t>> axes_attr_;
};

using E = ElementType;
using ClassicTypes =
    TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;
using MinMaxTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t,
                             int8_t, uint8_t, bool>;

// The spec's version ranges of one Reduce op and the types of each.
struct VersionRange {
  int since;
  int end;  // 0: open
  std::vector<ElementType> types;
};

template <ReduceKind K, typename Types>
void RegisterReduce(KernelRegistry& registry, const char* name, int axes_input_since,
                    const std::vector<VersionRange>& ranges) {
  KernelFactory factory = [axes_input_since](const OpKernelInfo& info) {
    return std::unique_ptr<OpKernel>(new ReduceKernel<K, Types>(info, axes_input_since));
  };
  for (const VersionRange& range : ranges) {
    KernelDefBuilder builder(name);
    if (range.end == 0)
      builder.Versions(range.since);
    else
      builder.Versions(range.since, range.end);
    builder.Constraint("T", range.types, {0}, {0});
    if (range.since >= axes_input_since) builder.CpuInput(1);
    registry.Register(builder.Build(), factory);
  }
}

void RegisterReduceKernels(KernelRegistry& registry) {
  const std::vector<E> classic = {E::kUint32,  E::kUint64, E::kInt32, E::kInt64,
                                  E::kFloat16, E::kFloat,  E::kDouble};
  std::vector<E> with_bf16 = classic;
  with_bf16.push_back(E::kBFloat16);
  const std::vector<E> floats_bf16 = {E::kFloat16, E::kFloat, E::kDouble, E::kBFloat16};
  // Sum, Mean, Prod, L1, L2, SumSquare: 1, 11, 13 (bfloat16 added), 18 (axes as input).
  const std::vector<VersionRange> standard = {
      {1, 10, classic}, {11, 12, classic}, {13, 17, with_bf16}, {18, 0, with_bf16}};
  RegisterReduce<ReduceKind::kMean, ClassicTypes>(registry, "ReduceMean", 18, standard);
  RegisterReduce<ReduceKind::kProd, ClassicTypes>(registry, "ReduceProd", 18, standard);
  RegisterReduce<ReduceKind::kL1, ClassicTypes>(registry, "ReduceL1", 18, standard);
  RegisterReduce<ReduceKind::kL2, ClassicTypes>(registry, "ReduceL2", 18, standard);
  RegisterReduce<ReduceKind::kSumSquare, ClassicTypes>(registry, "ReduceSumSquare", 18, standard);
  // ReduceSum took axes as an input already at 13.
  RegisterReduce<ReduceKind::kSum, ClassicTypes>(
      registry, "ReduceSum", 13, {{1, 10, classic}, {11, 12, classic}, {13, 0, with_bf16}});
  // LogSum and LogSumExp dropped the integer types at 28.
  const std::vector<VersionRange> logs = {{1, 10, classic},
                                          {11, 12, classic},
                                          {13, 17, with_bf16},
                                          {18, 27, with_bf16},
                                          {28, 0, floats_bf16}};
  RegisterReduce<ReduceKind::kLogSum, ClassicTypes>(registry, "ReduceLogSum", 18, logs);
  RegisterReduce<ReduceKind::kLogSumExp, ClassicTypes>(registry, "ReduceLogSumExp", 18, logs);
  // Max and Min gained int8/uint8 at 12 and bool at 20.
  std::vector<E> with_bytes = classic;
  with_bytes.insert(with_bytes.end(), {E::kInt8, E::kUint8});
  std::vector<E> with_bytes_bf16 = with_bytes;
  with_bytes_bf16.push_back(E::kBFloat16);
  std::vector<E> with_bool = with_bytes_bf16;
  with_bool.push_back(E::kBool);
  const std::vector<VersionRange> extremes = {{1, 10, classic},          {11, 11, classic},
                                              {12, 12, with_bytes},      {13, 17, with_bytes_bf16},
                                              {18, 19, with_bytes_bf16}, {20, 0, with_bool}};
  RegisterReduce<ReduceKind::kMax, MinMaxTypes>(registry, "ReduceMax", 18, extremes);
  RegisterReduce<ReduceKind::kMin, MinMaxTypes>(registry, "ReduceMin", 18, extremes);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(reduction_reduce, RegisterReduceKernels);

}  // namespace prism::cpu
