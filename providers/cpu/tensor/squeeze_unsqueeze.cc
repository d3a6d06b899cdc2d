// Squeeze and Unsqueeze: views of the input with size-1 dims removed or inserted (the output
// shares the input's buffer). Opsets 1 and 11 take axes as an attribute, 13+ as input 1.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

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
    const int64_t rank = static_cast<int64_t>(shape.Rank());
    std::optional<std::vector<int64_t>> axes =
        ReadAxes(context, axes_attr_, from_attribute_, "Squeeze");
    std::vector<bool> drop(shape.Rank(), false);
    if (!axes.has_value() || axes->empty()) {
      // No axes (or an empty list, as onnxruntime reads it): remove every size-1 dim.
      for (size_t i = 0; i < shape.Rank(); ++i) drop[i] = shape[i] == 1;
    } else {
      for (int64_t axis : *axes) {
        PRISM_ENFORCE(axis >= -rank && axis < rank, kInvalidArgument, GetNode().Describe(),
                      ": axis ", axis, " is out of range [", -rank, ", ", rank - 1, "] for input ",
                      shape.ToString());
        const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
        PRISM_ENFORCE(!drop[a], kInvalidArgument, GetNode().Describe(), ": axis ", axis,
                      " is given more than once");
        PRISM_ENFORCE(shape[a] == 1, kInvalidArgument, GetNode().Describe(),
                      ": cannot squeeze axis ", axis, " of input ", shape.ToString(),
                      " because its size is ", shape[a], ", not 1");
        drop[a] = true;
      }
    }
    std::vector<int64_t> dims;
    for (size_t i = 0; i < shape.Rank(); ++i)
      if (!drop[i]) dims.push_back(shape[i]);
    context.SetOutput(0, Value(input.Reshaped(TensorShape(dims))));
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
    PRISM_ENFORCE(axes.has_value(), kInvalidArgument, GetNode().Describe(),
                  ": the axes input is required");
    // Axes index the output, whose rank is the input's plus the number of new dims; they
    // may come in any order.
    const int64_t out_rank = static_cast<int64_t>(shape.Rank() + axes->size());
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t axis : *axes) {
      PRISM_ENFORCE(axis >= -out_rank && axis < out_rank, kInvalidArgument, GetNode().Describe(),
                    ": axis ", axis, " is out of range [", -out_rank, ", ", out_rank - 1,
                    "] for output rank ", out_rank, " (input ", shape.ToString(), ")");
      const size_t a = static_cast<size_t>(axis < 0 ? axis + out_rank : axis);
      PRISM_ENFORCE(!inserted[a], kInvalidArgument, GetNode().Describe(), ": axis ", axis,
                    " is given more than once");
      inserted[a] = true;
    }
    std::vector<int64_t> dims(static_cast<size_t>(out_rank));
    size_t next = 0;
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = inserted[i] ? 1 : shape[next++];
    context.SetOutput(0, Value(input.Reshaped(TensorShape(dims))));
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
