// GatherElements: output[p] = data[p with p[axis] replaced by indices[p]]. The output has the
// indices' shape; indices must have the data's rank and, off the axis, no larger dims.
#include <climits>
#include <tuple>
#include <vector>

#include "providers/cpu/common/storage_unit.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/index_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class GatherElements final : public OpKernel {
 public:
  explicit GatherElements(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", 0)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const TensorShape& shape = data.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input 'data' must have rank >= 1, got a scalar");
    PRISM_ENFORCE(indices.Shape().Rank() == shape.Rank(), kInvalidArgument, node.Describe(),
                  ": input 'indices' has rank ", indices.Shape().Rank(), " but 'data' has rank ",
                  rank);
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for data of shape ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    for (size_t d = 0; d < shape.Rank(); ++d)
      PRISM_ENFORCE(d == axis || indices.Shape()[d] <= shape[d], kInvalidArgument, node.Describe(),
                    ": input 'indices' of shape ", indices.Shape().ToString(),
                    " is larger than 'data' of shape ", shape.ToString(), " in dim ", d);
    const std::vector<int64_t> picks = NormalizedIndices(indices, shape[axis], node, "indices");
    Tensor& output = context.Output(0, indices.Shape(), data.Type());
    if (output.NumElements() == 0) return;
    const std::vector<int64_t> offsets = ElementOffsets(shape, indices.Shape(), picks, axis);
    DispatchByStorageUnit(data.Type(), node.Describe(), [&](auto* unit) {
      using U = std::remove_pointer_t<decltype(unit)>;
      const U* in = static_cast<const U*>(data.RawData());
      U* out = static_cast<U*>(output.MutableRawData());
      for (size_t i = 0; i < offsets.size(); ++i) out[i] = in[offsets[i]];
    });
  }

 private:
  int64_t axis_;
};

void RegisterGatherElementsKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  using E = ElementType;
  const auto factory = MakeKernelFactory<GatherElements>();
  for (const auto& [since, end, types] :
       {std::tuple{11, 12, G::kNoBfloat16}, std::tuple{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("GatherElements")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Constraint("Tind", {E::kInt32, E::kInt64}, {1})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_gather_elements, RegisterGatherElementsKernels);

}  // namespace prism::cpu
