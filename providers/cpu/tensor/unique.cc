// Unique: the distinct elements (or, with `axis`, the distinct slices along that axis), sorted
// ascending (sorted = 1, the default; slices compare lexicographically) or in order of first
// occurrence (sorted = 0), with the int64 index of each one's first occurrence, the index into
// the unique list of every input element (or slice), and each one's count, as numpy.unique.
// NaN equals NaN here and sorts after every number; complex numbers order by (real, imag).
#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "providers/cpu/common/axis_layout.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// -1, 0, 1 for a < b, a == b, a > b in the total order described above.
template <typename V>
int CompareValues(const V& a, const V& b) {
  if constexpr (std::is_floating_point_v<V>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
int CompareElements(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    const int real = CompareValues(a.real(), b.real());
    return real != 0 ? real : CompareValues(a.imag(), b.imag());
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return CompareValues(a, b);
  } else {
    return CompareValues(ToCompute(a), ToCompute(b));
  }
}

// Groups of equal slices: `order` lists the slice indices grouped and, with `sorted`, in
// ascending order; `starts` marks where each group begins.
struct Grouping {
  std::vector<int64_t> order;
  std::vector<size_t> starts;
};

template <typename T>
struct GroupSlices {
  void operator()(const Tensor& x, const AxisLayout& layout, Grouping& grouping) const {
    const T* data = x.Data<T>();
    const auto compare = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < layout.outer; ++o) {
        const T* row = data + o * layout.extent * layout.inner;
        for (int64_t i = 0; i < layout.inner; ++i) {
          const int c = CompareElements(row[a * layout.inner + i], row[b * layout.inner + i]);
          if (c != 0) return c;
        }
      }
      return 0;
    };
    grouping.order.resize(static_cast<size_t>(layout.extent));
    std::iota(grouping.order.begin(), grouping.order.end(), int64_t{0});
    std::stable_sort(grouping.order.begin(), grouping.order.end(),
                     [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
    for (size_t k = 0; k < grouping.order.size(); ++k)
      if (k == 0 || compare(grouping.order[k - 1], grouping.order[k]) != 0)
        grouping.starts.push_back(k);
  }
};

class Unique final : public OpKernel {
 public:
  explicit Unique(const OpKernelInfo& info)
      : OpKernel(info), sorted_(info.IntOr("sorted", 1) != 0) {
    if (info.HasAttr("axis")) axis_ = info.Int("axis");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    AxisLayout layout{1, x.NumElements(), 1};
    size_t axis = 0;
    if (axis_.has_value()) {
      PRISM_ENFORCE(*axis_ >= -rank && *axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                    *axis_, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                    shape.ToString());
      axis = static_cast<size_t>(*axis_ < 0 ? *axis_ + rank : *axis_);
      layout = AroundAxis(shape, axis);
    }
    Grouping grouping;
    DispatchByType<GroupSlices, TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                         int64_t, uint8_t, uint16_t, uint32_t, uint64_t, bool,
                                         std::string, std::complex<float>, std::complex<double>>>(
        x.Type(), node.OpType(), x, layout, grouping);
    const size_t count = grouping.starts.size();
    // Each group's first occurrence is its first member (the sort is stable).
    std::vector<size_t> groups(count);
    std::iota(groups.begin(), groups.end(), size_t{0});
    if (!sorted_)
      std::sort(groups.begin(), groups.end(), [&](size_t a, size_t b) {
        return grouping.order[grouping.starts[a]] < grouping.order[grouping.starts[b]];
      });

    std::vector<int64_t> y_dims = {static_cast<int64_t>(count)};
    if (axis_.has_value()) {
      y_dims = shape.Dims();
      y_dims[axis] = static_cast<int64_t>(count);
    }
    Tensor& y = context.Output(0, TensorShape(y_dims), x.Type());
    std::vector<int64_t> first(count), counts(count), inverse(static_cast<size_t>(layout.extent));
    for (size_t u = 0; u < count; ++u) {
      const size_t g = groups[u];
      const size_t begin = grouping.starts[g];
      const size_t end = g + 1 < count ? grouping.starts[g + 1] : grouping.order.size();
      first[u] = grouping.order[begin];
      counts[u] = static_cast<int64_t>(end - begin);
      for (size_t k = begin; k < end; ++k)
        inverse[static_cast<size_t>(grouping.order[k])] = static_cast<int64_t>(u);
    }
    if (y.NumElements() > 0) {
      for (int64_t o = 0; o < layout.outer; ++o)
        for (size_t u = 0; u < count; ++u)
          CopyElements(x, (o * layout.extent + first[u]) * layout.inner, y,
                       (o * static_cast<int64_t>(count) + static_cast<int64_t>(u)) * layout.inner,
                       layout.inner);
    }
    const auto put = [&](size_t index, const std::vector<int64_t>& values) {
      if (index >= context.OutputCount() || !node.HasOutput(index)) return;
      Tensor& out = context.Output(index, TensorShape({static_cast<int64_t>(values.size())}),
                                   ElementType::kInt64);
      std::copy(values.begin(), values.end(), out.MutableData<int64_t>());
    };
    put(1, first);
    put(2, inverse);
    put(3, counts);
  }

 private:
  bool sorted_;
  std::optional<int64_t> axis_;
};

void RegisterUniqueKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Unique>();
  for (const auto& [since, end, types] :
       {std::tuple{11, 27, G::kNoBfloat16}, std::tuple{28, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("Unique")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_unique, RegisterUniqueKernels);

}  // namespace prism::cpu
