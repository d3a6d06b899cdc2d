// OneHot: for each index, a vector of `depth` elements holding values[0] (off) except values[1]
// (on) at the index, inserted as a new axis at `axis` (default -1). Indices and depth may be any
// numeric type (floats truncate toward zero); a negative index counts from the end, and one
// outside [-depth, depth - 1] gives an all-off vector. depth must be positive.
#include <climits>
#include <cmath>
#include <tuple>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename T>
struct ToInt64s {
  void operator()(const Tensor& tensor, std::vector<int64_t>& out) const {
    const T* data = tensor.Data<T>();
    out.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < out.size(); ++i) {
      const double value = ToDouble(data[i]);
      // NaN and values beyond int64 become an index that is out of range (all off).
      out[i] = std::isfinite(value) && std::fabs(value) < 9.0e18 ? static_cast<int64_t>(value)
                                                                 : INT64_MIN;
    }
  }
};

using NumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                              uint8_t, uint16_t, uint32_t, uint64_t>;

class OneHot final : public OpKernel {
 public:
  explicit OneHot(const OpKernelInfo& info) : OpKernel(info), axis_(info.IntOr("axis", -1)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& indices = context.RequiredInput(0);
    const Tensor& depth_tensor = context.RequiredInput(1);
    const Tensor& values = context.RequiredInput(2);
    PRISM_ENFORCE(depth_tensor.NumElements() == 1 && depth_tensor.Shape().Rank() <= 1,
                  kInvalidArgument, node.Describe(), ": input 'depth' must be a scalar, got shape ",
                  depth_tensor.Shape().ToString());
    PRISM_ENFORCE(values.NumElements() == 2 && values.Shape().Rank() == 1, kInvalidArgument,
                  node.Describe(), ": input 'values' must be [off, on], got shape ",
                  values.Shape().ToString());
    std::vector<int64_t> depth_value;
    DispatchByType<ToInt64s, NumericTypes>(depth_tensor.Type(), node.OpType(), depth_tensor,
                                           depth_value);
    const int64_t depth = depth_value[0];
    PRISM_ENFORCE(depth > 0, kInvalidArgument, node.Describe(), ": depth ", depth,
                  " must be positive");
    const int64_t out_rank = static_cast<int64_t>(indices.Shape().Rank()) + 1;
    PRISM_ENFORCE(axis_ >= -out_rank && axis_ < out_rank, kInvalidArgument, node.Describe(),
                  ": axis ", axis_, " is out of range [", -out_rank, ", ", out_rank - 1,
                  "] for indices of shape ", indices.Shape().ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + out_rank : axis_);
    std::vector<int64_t> out_dims = indices.Shape().Dims();
    out_dims.insert(out_dims.begin() + static_cast<std::ptrdiff_t>(axis), depth);
    std::vector<int64_t> picks;
    DispatchByType<ToInt64s, NumericTypes>(indices.Type(), node.OpType(), indices, picks);

    Tensor& output = context.Output(0, TensorShape(out_dims), values.Type());
    if (output.NumElements() == 0) return;
    FillElements(output, 0, output.NumElements(), values, 0);
    const int64_t inner = indices.Shape().SizeFromDimension(axis);  // index positions after axis
    for (size_t i = 0; i < picks.size(); ++i) {
      int64_t k = picks[i];
      if (k < -depth || k >= depth) continue;
      if (k < 0) k += depth;
      const int64_t outer_index = static_cast<int64_t>(i) / inner;
      const int64_t inner_index = static_cast<int64_t>(i) % inner;
      FillElements(output, (outer_index * depth + k) * inner + inner_index, 1, values, 1);
    }
  }

 private:
  int64_t axis_;
};

void RegisterOneHotKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const std::vector<E> numeric = {E::kUint8,   E::kUint16, E::kUint32, E::kUint64,
                                  E::kInt8,    E::kInt16,  E::kInt32,  E::kInt64,
                                  E::kFloat16, E::kFloat,  E::kDouble};
  const auto factory = MakeKernelFactory<OneHot>();
  for (const auto& [since, end, types] :
       {std::tuple{9, 10, G::kNoBfloat16}, std::tuple{11, 27, G::kNoBfloat16},
        std::tuple{28, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("OneHot")
                          .Versions(since, end)
                          .Constraint("T1", numeric, {0})
                          .Constraint("T2", numeric, {1})
                          .Constraint("T3", AllTensorTypesWithComplexOf(types), {2}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_one_hot, RegisterOneHotKernels);

}  // namespace prism::cpu
