// Concat: joins tensors of equal rank along one axis; every other dim must match. Inputs
// with a zero-size dim contribute nothing but are still checked.
#include <climits>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Concat final : public OpKernel {
 public:
  explicit Concat(const OpKernelInfo& info)
      // Opset 1 defaults the axis to 1; later opsets require it.
      : OpKernel(info),
        axis_(info.GetNode().OpsetVersion() < 4 ? info.IntOr("axis", 1) : info.Int("axis")) {}

  void Compute(OpKernelContext& context) const override {
    const size_t count = context.InputCount();
    PRISM_ENFORCE(count >= 1, kInvalidArgument, GetNode().Describe(), ": needs at least one input");
    std::vector<const Tensor*> inputs(count);
    for (size_t i = 0; i < count; ++i) inputs[i] = &context.RequiredInput(i);
    const Tensor& first = *inputs[0];
    const int64_t rank = static_cast<int64_t>(first.Shape().Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, GetNode().Describe(),
                  ": cannot concatenate scalars (input 0 has rank 0)");
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, GetNode().Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for input 0 ",
                  first.Shape().ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);

    std::vector<int64_t> out_dims = first.Shape().Dims();
    out_dims[axis] = 0;
    for (size_t i = 0; i < count; ++i) {
      const Tensor& input = *inputs[i];
      PRISM_ENFORCE(input.Type() == first.Type(), kInvalidArgument, GetNode().Describe(),
                    ": input ", i, " is ", ElementTypeName(input.Type()), " but input 0 is ",
                    ElementTypeName(first.Type()));
      const TensorShape& shape = input.Shape();
      PRISM_ENFORCE(static_cast<int64_t>(shape.Rank()) == rank, kInvalidArgument,
                    GetNode().Describe(), ": input ", i, " ", shape.ToString(), " has rank ",
                    shape.Rank(), " but input 0 ", first.Shape().ToString(), " has rank ", rank);
      for (size_t d = 0; d < shape.Rank(); ++d) {
        PRISM_ENFORCE(d == axis || shape[d] == first.Shape()[d], kInvalidArgument,
                      GetNode().Describe(), ": input ", i, " ", shape.ToString(),
                      " differs from input 0 ", first.Shape().ToString(), " in dim ", d,
                      " (only the concat axis ", axis, " may differ)");
      }
      out_dims[axis] += shape[axis];
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), first.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);

    // Each input contributes a slab of dim(axis) * inner elements per outer index.
    const int64_t outer = output.Shape().SizeToDimension(axis);
    const int64_t inner = output.Shape().SizeFromDimension(axis + 1);
    const int64_t out_slab = out_dims[axis] * inner;
    int64_t slab_start = 0;
    for (size_t i = 0; i < count; ++i) {
      const int64_t slab = inputs[i]->Shape()[axis] * inner;
      if (slab == 0) continue;
      for (int64_t o = 0; o < outer; ++o)
        CopyElements(*inputs[i], o * slab, output, o * out_slab + slab_start, slab);
      slab_start += slab;
    }
  }

 private:
  int64_t axis_;
};

void RegisterConcatKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Concat>();
  registry.Register(
      KernelDefBuilder("Concat")
          .Versions(1, 3)
          .Constraint("T", {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble},
                      {kVariadicFrom(0)}, {0})
          .Build(),
      factory);
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r : {Range{4, 10, G::kNoBfloat16}, Range{11, 12, G::kNoBfloat16},
                         Range{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(
        KernelDefBuilder("Concat")
            .Versions(r.since, r.end)
            .Constraint("T", AllTensorTypesWithComplexOf(r.types), {kVariadicFrom(0)}, {0})
            .Build(),
        factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_concat, RegisterConcatKernels);

}  // namespace prism::cpu
