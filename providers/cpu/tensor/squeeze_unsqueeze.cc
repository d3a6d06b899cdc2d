// Squeeze and Unsqueeze: views of the input with size-1 dims removed or inserted (the output
// shares the input's buffer). Opsets 1 and 11 take axes as an attribute, 13+ as input 1.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/tensor/squeeze_shape.h"

namespace prism::cpu {
namespace {

// The axes to use: the attribute (opsets < 13) or input 1; nullopt when none are given.
std::optional<std::vector<int64_t>> ReadAxes(const OpKernelContext& context,
                                             const std::optional<std::vector<int64_t>>& attr,
                                             bool from_attribute, const char* op) {
  if (from_attribute) return attr;
  const Tensor* axes = context.Input(1);
  if (axes == nullptr) return std::nullopt;
  return ReadIntList(*axes, MakeString(op, " axes input"));
}

class Squeeze final : public OpKernel {
 public:
  explicit Squeeze(const OpKernelInfo& info)
      : OpKernel(info), from_attribute_(info.GetNode().OpsetVersion() < 13) {
    if (from_attribute_ && info.HasAttr("axes")) axes_attr_ = info.Ints("axes");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    std::optional<std::vector<int64_t>> axes =
        ReadAxes(context, axes_attr_, from_attribute_, "Squeeze");
    context.SetOutput(0, Value(input.Reshaped(SqueezedShape(shape, axes, GetNode()))));
  }

 private:
  bool from_attribute_;
  std::optional<std::vector<int64_t>> axes_attr_;
};

class Unsqueeze final : public OpKernel {
 public:
  explicit Unsqueeze(const OpKernelInfo& info)
      : OpKernel(info), from_attribute_(info.GetNode().OpsetVersion() < 13) {
    if (from_attribute_) axes_attr_ = info.Ints("axes");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    std::optional<std::vector<int64_t>> axes =
        ReadAxes(context, axes_attr_, from_attribute_, "Unsqueeze");
    context.SetOutput(0, Value(input.Reshaped(UnsqueezedShape(shape, axes, GetNode()))));
  }

 private:
  bool from_attribute_;
  std::optional<std::vector<int64_t>> axes_attr_;
};

struct Range {
  int since;
  int end;
  TensorTypeGeneration types;
};

template <typename KernelType>
void RegisterRanges(KernelRegistry& registry, const char* op) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<KernelType>();
  for (const Range& r : {Range{1, 10, G::kNoBfloat16}, Range{11, 12, G::kNoBfloat16}}) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .Build(),
                      factory);
  }
  for (const Range& r :
       {Range{13, 20, G::kBfloat16}, Range{21, 22, G::kInt4}, Range{23, 23, G::kFloat4},
        Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder(op)
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

void RegisterSqueezeUnsqueezeKernels(KernelRegistry& registry) {
  RegisterRanges<Squeeze>(registry, "Squeeze");
  RegisterRanges<Unsqueeze>(registry, "Unsqueeze");
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_squeeze_unsqueeze, RegisterSqueezeUnsqueezeKernels);

}  // namespace prism::cpu
