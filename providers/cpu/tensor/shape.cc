// Shape: the input's dims as a 1-D int64 tensor, optionally sliced by start/end (opset 15+).
#include <algorithm>
#include <climits>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Shape final : public OpKernel {
 public:
  explicit Shape(const OpKernelInfo& info)
      : OpKernel(info), start_(info.IntOr("start", 0)), end_(info.IntOr("end", INT64_MAX)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t>& dims = input.Shape().Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    // Negative bounds count from the back; both are then clamped to [0, rank] (start > end
    // gives an empty result rather than an error).
    auto clamp = [rank](int64_t axis) {
      if (axis < 0) axis = axis < -rank ? 0 : axis + rank;
      return std::min(axis, rank);
    };
    const int64_t start = clamp(start_);
    const int64_t end = clamp(end_);
    const int64_t count = std::max<int64_t>(end - start, 0);
    Tensor& output = context.Output(0, TensorShape({count}), ElementType::kInt64);
    int64_t* out = output.MutableData<int64_t>();
    for (int64_t i = 0; i < count; ++i) out[i] = dims[static_cast<size_t>(start + i)];
  }

 private:
  int64_t start_;
  int64_t end_;  // INT64_MAX: through the last dim
};

void RegisterShapeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Shape>();
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r :
       {Range{1, 12, G::kNoBfloat16}, Range{13, 14, G::kBfloat16}, Range{15, 18, G::kBfloat16},
        Range{19, 20, G::kFloat8}, Range{21, 22, G::kInt4}, Range{23, 23, G::kFloat4},
        Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Shape")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0})
                          .Constraint("T1", {ElementType::kInt64}, {}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_shape, RegisterShapeKernels);

}  // namespace prism::cpu
