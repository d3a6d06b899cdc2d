// Trilu: keeps the upper (upper = 1, the default) or lower triangle of each matrix in the last
// two dims and zeroes the rest (false for bool, "" for strings). The optional scalar input k
// shifts the diagonal: upper keeps j - i >= k, lower keeps j - i <= k.
#include <algorithm>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Trilu final : public OpKernel {
 public:
  explicit Trilu(const OpKernelInfo& info) : OpKernel(info), upper_(info.IntOr("upper", 1) != 0) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const TensorShape& shape = input.Shape();
    PRISM_ENFORCE(shape.Rank() >= 2, kInvalidArgument, node.Describe(),
                  ": input must have rank >= 2, got shape ", shape.ToString());
    int64_t k = 0;
    if (const Tensor* k_tensor = context.Input(1)) {
      PRISM_ENFORCE(k_tensor->NumElements() == 1 && k_tensor->Shape().Rank() <= 1, kInvalidArgument,
                    node.Describe(), ": input 'k' must be a scalar, got shape ",
                    k_tensor->Shape().ToString());
      k = k_tensor->Data<int64_t>()[0];
    }
    Tensor& output = context.Output(0, shape, input.Type());
    if (output.NumElements() == 0) return;
    const int64_t rows = shape[shape.Rank() - 2];
    const int64_t cols = shape[shape.Rank() - 1];
    const int64_t matrices = output.NumElements() / (rows * cols);
    Tensor zero(input.Type(), TensorShape({1}), GetCpuAllocator());
    if (input.Type() != ElementType::kString)
      std::fill_n(static_cast<uint8_t*>(zero.MutableRawData()), zero.SizeInBytes(), 0);
    // Clamp k so that i + k cannot overflow; beyond +-cols every row is all kept or all zero.
    k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t base = (m * rows + i) * cols;
        // Columns [keep_first, keep_last) survive.
        const int64_t keep_first = upper_ ? std::clamp<int64_t>(i + k, 0, cols) : 0;
        const int64_t keep_last = upper_ ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
        FillElements(output, base, keep_first, zero);
        CopyElements(input, base + keep_first, output, base + keep_first, keep_last - keep_first);
        FillElements(output, base + std::max(keep_first, keep_last),
                     cols - std::max(keep_first, keep_last), zero);
      }
    }
  }

 private:
  bool upper_;
};

void RegisterTriluKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("Trilu")
          .Versions(14)
          .Constraint("T", AllTensorTypesWithComplexOf(TensorTypeGeneration::kBfloat16), {0}, {0})
          .CpuInput(1)
          .Build(),
      MakeKernelFactory<Trilu>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_trilu, RegisterTriluKernels);

}  // namespace prism::cpu
