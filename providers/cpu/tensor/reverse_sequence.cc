// ReverseSequence: for each batch entry b (along batch_axis, default 1), reverses the first
// sequence_lens[b] steps along time_axis (default 0) and copies the rest unchanged. The two
// axes are 0 and 1 in some order; lengths must lie in [0, time steps].
#include <climits>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/index_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class ReverseSequence final : public OpKernel {
 public:
  explicit ReverseSequence(const OpKernelInfo& info)
      : OpKernel(info),
        time_axis_(info.IntOr("time_axis", 0)),
        batch_axis_(info.IntOr("batch_axis", 1)) {
    PRISM_ENFORCE((time_axis_ == 0 && batch_axis_ == 1) || (time_axis_ == 1 && batch_axis_ == 0),
                  kInvalidArgument, info.GetNode().Describe(), ": time_axis ", time_axis_,
                  " and batch_axis ", batch_axis_, " must be 0 and 1 in some order");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& lengths = context.RequiredInput(1);
    const TensorShape& shape = input.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, node.Describe(),
                  ": input must have rank >= 2, got shape ", shape.ToString());
    const int64_t steps = shape[static_cast<size_t>(time_axis_)];
    const int64_t batch = shape[static_cast<size_t>(batch_axis_)];
    PRISM_ENFORCE(lengths.Shape().Rank() == 1 && lengths.NumElements() == batch, kInvalidArgument,
                  node.Describe(), ": input 'sequence_lens' has shape ", lengths.Shape().ToString(),
                  " but the batch axis has ", batch, " entries");
    RequireIndexType(lengths, node, "sequence_lens");
    Tensor& output = context.Output(0, shape, input.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);
    const int64_t inner = shape.SizeFromDimension(2);
    // Element (t, b) of the leading two axes starts at (t * batch + b) * inner when time is axis
    // 0, and at (b * steps + t) * inner when it is axis 1.
    const auto offset = [&](int64_t t, int64_t b) {
      return (time_axis_ == 0 ? t * batch + b : b * steps + t) * inner;
    };
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t length = IndexAt(lengths, b);
      PRISM_ENFORCE(length >= 0 && length <= steps, kInvalidArgument, node.Describe(),
                    ": sequence_lens[", b, "] = ", length, " is outside [0, ", steps, "]");
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t source = t < length ? length - 1 - t : t;
        CopyElements(input, offset(source, b), output, offset(t, b), inner);
      }
    }
  }

 private:
  int64_t time_axis_;
  int64_t batch_axis_;
};

void RegisterReverseSequenceKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<ReverseSequence>();
  for (const auto& [since, end, types] :
       {std::tuple{10, 27, G::kNoBfloat16}, std::tuple{28, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("ReverseSequence")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .CpuInput(1)
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_reverse_sequence, RegisterReverseSequenceKernels);

}  // namespace prism::cpu
