// Compress: keeps the slices along `axis` whose entry in the 1-D bool `condition` is true (the
// whole tensor flattened when no axis is given). A condition shorter than the axis counts as
// false for the rest; a longer one is an error unless its extra entries are all false (as
// numpy.compress allows no extra true entries).
#include <climits>
#include <optional>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Compress final : public OpKernel {
 public:
  explicit Compress(const OpKernelInfo& info) : OpKernel(info) {
    if (info.HasAttr("axis")) axis_ = info.Int("axis");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& condition = context.RequiredInput(1);
    PRISM_ENFORCE(condition.Shape().Rank() == 1, kInvalidArgument, node.Describe(),
                  ": input 'condition' must be 1-D, got shape ", condition.Shape().ToString());
    const TensorShape& shape = input.Shape();
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    int64_t outer = 1, extent = input.NumElements(), inner = 1;
    size_t axis = 0;
    if (axis_.has_value()) {
      PRISM_ENFORCE(*axis_ >= -rank && *axis_ < rank, kInvalidArgument, node.Describe(), ": axis ",
                    *axis_, " is out of range [", -rank, ", ", rank - 1, "] for input of shape ",
                    shape.ToString());
      axis = static_cast<size_t>(*axis_ < 0 ? *axis_ + rank : *axis_);
      outer = shape.SizeToDimension(axis);
      extent = shape[axis];
      inner = shape.SizeFromDimension(axis + 1);
    }
    const bool* keep = condition.Data<bool>();
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < condition.NumElements(); ++i) {
      if (!keep[i]) continue;
      PRISM_ENFORCE(i < extent, kInvalidArgument, node.Describe(), ": input 'condition' selects ",
                    "entry ", i, " but the compressed axis has only ", extent, " entries");
      kept.push_back(i);
    }
    std::vector<int64_t> out_dims;
    if (axis_.has_value()) {
      out_dims = shape.Dims();
      out_dims[axis] = static_cast<int64_t>(kept.size());
    } else {
      out_dims = {static_cast<int64_t>(kept.size())};
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);
    int64_t written = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k : kept) {
        CopyElements(input, (o * extent + k) * inner, output, written, inner);
        written += inner;
      }
  }

 private:
  std::optional<int64_t> axis_;
};

void RegisterCompressKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Compress>();
  for (const auto& [since, end, types] :
       {std::tuple{9, 10, G::kNoBfloat16}, std::tuple{11, 27, G::kNoBfloat16},
        std::tuple{28, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("Compress")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Constraint("T1", {ElementType::kBool}, {1})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_compress, RegisterCompressKernels);

}  // namespace prism::cpu
