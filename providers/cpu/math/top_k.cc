// TopK: the k largest (largest = 1, the default) or smallest elements along `axis` (default
// -1), with their int64 indices. Equal values keep the lower index first, as the spec requires.
// NaN orders above every number (numpy's sort order), so it comes first among the largest and
// last among the smallest. The result is always sorted, which `sorted = 0` permits. k comes
// from an attribute (opset 1) or a one-element int64 input (opset 10+) and must lie in
// [0, axis size].
#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/common/axis_layout.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// a before b in a descending order where NaN is the largest value.
template <typename V>
bool Greater(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

template <typename T>
struct TopKImpl {
  void operator()(const Tensor& x, Tensor& values, Tensor& indices, const AxisLayout& layout,
                  int64_t k, bool largest, ThreadPool* pool) const {
    using V = ComputeTypeOf<T>;
    const T* in = x.Data<T>();
    T* out_values = values.MutableData<T>();
    int64_t* out_indices = indices.MutableData<int64_t>();
    const double cost = 8.0 * static_cast<double>(layout.extent);
    ThreadPool::TryParallelFor(
        pool, layout.outer * layout.inner, cost, [&](int64_t first, int64_t last) {
          std::vector<int64_t> order(static_cast<size_t>(layout.extent));
          for (int64_t line = first; line < last; ++line) {
            const int64_t o = line / layout.inner, i = line % layout.inner;
            const T* base = in + o * layout.extent * layout.inner + i;
            const auto value = [&](int64_t e) {
              return static_cast<V>(ToCompute(base[e * layout.inner]));
            };
            std::iota(order.begin(), order.end(), int64_t{0});
            const auto before = [&](int64_t a, int64_t b) {
              const V va = value(a), vb = value(b);
              if (largest ? Greater(va, vb) : Greater(vb, va)) return true;
              if (largest ? Greater(vb, va) : Greater(va, vb)) return false;
              return a < b;  // equal (or both NaN): lower index first
            };
            std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
            T* line_values = out_values + o * k * layout.inner + i;
            int64_t* line_indices = out_indices + o * k * layout.inner + i;
            for (int64_t j = 0; j < k; ++j) {
              line_values[j * layout.inner] = base[order[static_cast<size_t>(j)] * layout.inner];
              line_indices[j * layout.inner] = order[static_cast<size_t>(j)];
            }
          }
        });
  }
};

class TopK final : public OpKernel {
 public:
  explicit TopK(const OpKernelInfo& info)
      : OpKernel(info),
        opset_(info.GetNode().OpsetVersion()),
        axis_(info.IntOr("axis", -1)),
        largest_(info.IntOr("largest", 1) != 0) {
    if (opset_ < 10) k_attr_ = info.Int("k");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const TensorShape& shape = x.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input 'X' must have rank >= 1, got a scalar");
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t k = k_attr_;
    if (opset_ >= 10) {
      const Tensor& k_tensor = context.RequiredInput(1);
      PRISM_ENFORCE(k_tensor.NumElements() == 1 && k_tensor.Shape().Rank() <= 1, kInvalidArgument,
                    node.Describe(), ": input 'K' must hold one value, got shape ",
                    k_tensor.Shape().ToString());
      k = k_tensor.Data<int64_t>()[0];
    }
    PRISM_ENFORCE(k >= 0 && k <= shape[axis], kInvalidArgument, node.Describe(), ": k ", k,
                  " is outside [0, ", shape[axis], "] for axis ", axis_, " of input shape ",
                  shape.ToString());
    std::vector<int64_t> out_dims = shape.Dims();
    out_dims[axis] = k;
    Tensor& values = context.Output(0, TensorShape(out_dims), x.Type());
    Tensor& indices = context.Output(1, TensorShape(out_dims), ElementType::kInt64);
    if (values.NumElements() == 0) return;
    DispatchByType<TopKImpl, TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t,
                                      int64_t, uint8_t, uint16_t, uint32_t, uint64_t>>(
        x.Type(), node.OpType(), x, values, indices, AroundAxis(shape, axis), k, largest_,
        context.IntraOpThreadPool());
  }

 private:
  int opset_;
  int64_t axis_;
  bool largest_;
  int64_t k_attr_ = 0;
};

void RegisterTopKKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> numeric = {E::kUint8,   E::kUint16, E::kUint32, E::kUint64,
                                  E::kInt8,    E::kInt16,  E::kInt32,  E::kInt64,
                                  E::kFloat16, E::kFloat,  E::kDouble};
  std::vector<E> with_bf16 = numeric;
  with_bf16.push_back(E::kBFloat16);
  const auto factory = MakeKernelFactory<TopK>();
  registry.Register(KernelDefBuilder("TopK")
                        .Versions(1, 9)
                        .Constraint("T", floats, {0}, {0})
                        .Constraint("I", {E::kInt64}, {}, {1})
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("TopK")
                        .Versions(10, 10)
                        .Constraint("T", floats, {0}, {0})
                        .Constraint("I", {E::kInt64}, {}, {1})
                        .CpuInput(1)
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("TopK")
                        .Versions(11, 23)
                        .Constraint("T", numeric, {0}, {0})
                        .Constraint("I", {E::kInt64}, {}, {1})
                        .CpuInput(1)
                        .Build(),
                    factory);
  registry.Register(KernelDefBuilder("TopK")
                        .Versions(24)
                        .Constraint("T", with_bf16, {0}, {0})
                        .Constraint("I", {E::kInt64}, {}, {1})
                        .CpuInput(1)
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_top_k, RegisterTopKKernels);

}  // namespace prism::cpu
