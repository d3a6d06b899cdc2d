// Reshape: a view of the input with another shape of the same element count. The output
// shares the input's buffer, which is safe because values are immutable once produced.
#include <climits>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/reshape_shape.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

std::string RequestedString(const std::vector<int64_t>& requested) {
  std::string text = "[";
  for (size_t i = 0; i < requested.size(); ++i)
    text += (i ? "," : "") + std::to_string(requested[i]);
  return text + "]";
}

class Reshape final : public OpKernel {
 public:
  explicit Reshape(const OpKernelInfo& info)
      : OpKernel(info),
        from_attribute_(info.GetNode().OpsetVersion() < 5),
        allow_zero_(info.IntOr("allowzero", 0) != 0) {
    if (from_attribute_) shape_attr_ = info.Ints("shape");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& data = context.RequiredInput(0);
    const std::vector<int64_t> requested =
        from_attribute_ ? shape_attr_
                        : ReadIntList(context.RequiredInput(1), "Reshape shape input");
    TensorShape shape;
    try {
      shape = ResolveReshape(data.Shape(), requested, allow_zero_, GetNode());
    } catch (const Exception& e) {
      throw Exception(e.Code(),
                      MakeString(e.what(), " (requested shape ", RequestedString(requested), ")"));
    }
    context.SetOutput(0, Value(data.Reshaped(shape)));
  }

 private:
  bool from_attribute_;
  bool allow_zero_;
  std::vector<int64_t> shape_attr_;
};

void RegisterReshapeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Reshape>();
  registry.Register(
      KernelDefBuilder("Reshape")
          .Versions(1, 4)
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
       {Range{5, 12, G::kNoBfloat16}, Range{13, 13, G::kBfloat16}, Range{14, 18, G::kBfloat16},
        Range{19, 20, G::kFloat8}, Range{21, 22, G::kInt4}, Range{23, 23, G::kFloat4},
        Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Reshape")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_reshape, RegisterReshapeKernels);

}  // namespace prism::cpu
