// Flatten: a 2-D view [d0*...*d(axis-1), d(axis)*...*d(n-1)] of the input (shares its buffer).
#include <climits>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Flatten final : public OpKernel {
 public:
  explicit Flatten(const OpKernelInfo& info) : OpKernel(info), axis_(info.IntOr("axis", 1)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const int64_t rank = static_cast<int64_t>(input.Shape().Rank());
    // The valid range is [-rank, rank]: axis == rank gives [size, 1].
    PRISM_ENFORCE(axis_ >= -rank && axis_ <= rank, kInvalidArgument, GetNode().Describe(),
                  ": axis ", axis_, " is out of range [", -rank, ", ", rank, "] for input ",
                  input.Shape().ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const TensorShape shape(
        {input.Shape().SizeToDimension(axis), input.Shape().SizeFromDimension(axis)});
    context.SetOutput(0, Value(input.Reshaped(shape)));
  }

 private:
  int64_t axis_;
};

void RegisterFlattenKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Flatten>();
  registry.Register(
      KernelDefBuilder("Flatten")
          .Versions(1, 8)
          .Constraint("T", {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble}, {0},
                      {0})
          .Build(),
      factory);
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r :
       {Range{9, 10, G::kNoBfloat16}, Range{11, 12, G::kNoBfloat16}, Range{13, 20, G::kBfloat16},
        Range{21, 22, G::kInt4}, Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0},
        Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Flatten")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_flatten, RegisterFlattenKernels);

}  // namespace prism::cpu
