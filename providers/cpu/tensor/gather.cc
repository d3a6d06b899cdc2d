// Gather: picks entries of data along axis by index. The output shape is
// data.shape[:axis] + indices.shape + data.shape[axis+1:]; negative indices count from the
// end of the axis.
#include <climits>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/index_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Gather final : public OpKernel {
 public:
  explicit Gather(const OpKernelInfo& info) : OpKernel(info), axis_(info.IntOr("axis", 0)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& data = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const TensorShape& shape = data.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, GetNode().Describe(),
                  ": data must have rank >= 1, got a scalar");
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, GetNode().Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for data ",
                  shape.ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const int64_t dim = shape[axis];
    const std::vector<int64_t> picks = NormalizedIndices(indices, dim, GetNode(), "indices");

    std::vector<int64_t> out_dims(shape.Dims().begin(), shape.Dims().begin() + axis);
    for (int64_t d : indices.Shape().Dims()) out_dims.push_back(d);
    for (size_t d = axis + 1; d < shape.Rank(); ++d) out_dims.push_back(shape[d]);
    Tensor& output = context.Output(0, TensorShape(out_dims), data.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);

    const int64_t outer = shape.SizeToDimension(axis);
    const int64_t inner = shape.SizeFromDimension(axis + 1);
    const int64_t count = static_cast<int64_t>(picks.size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < count; ++j) {
        CopyElements(data, (o * dim + picks[static_cast<size_t>(j)]) * inner, output,
                     (o * count + j) * inner, inner);
      }
    }
  }

 private:
  int64_t axis_;
};

void RegisterGatherKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Gather>();
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r : {Range{1, 10, G::kNoBfloat16}, Range{11, 12, G::kNoBfloat16},
                         Range{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("Gather")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .Constraint("Tind", {ElementType::kInt32, ElementType::kInt64}, {1})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_gather, RegisterGatherKernels);

}  // namespace prism::cpu
