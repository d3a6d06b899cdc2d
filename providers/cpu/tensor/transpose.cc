// Transpose: permutes the axes of the input (perm defaults to reversing them); the moving is
// PermuteElements (permute.h).
#include <climits>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/permute.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Transpose final : public OpKernel {
 public:
  explicit Transpose(const OpKernelInfo& info) : OpKernel(info) {
    if (info.HasAttr("perm")) perm_attr_ = info.Ints("perm");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t>& dims = input.Shape().Dims();
    const size_t rank = dims.size();
    const std::vector<size_t> perm = ResolvePerm(rank, input.Shape());
    std::vector<int64_t> out_dims(rank);
    for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    if (input.NumElements() == 0) return;
    PermuteElements(input, dims, perm, output);
  }

 private:
  std::vector<size_t> ResolvePerm(size_t rank, const TensorShape& shape) const {
    std::vector<size_t> perm(rank);
    // An empty perm on a non-scalar means "not given", as some exporters write it.
    if (!perm_attr_.has_value() || (perm_attr_->empty() && rank > 0)) {
      for (size_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
      return perm;
    }
    const std::vector<int64_t>& attr = *perm_attr_;
    PRISM_ENFORCE(attr.size() == rank, kInvalidArgument, GetNode().Describe(), ": perm has ",
                  attr.size(), " entries but the input ", shape.ToString(), " has rank ", rank);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t a = attr[i];
      PRISM_ENFORCE(a >= 0 && a < static_cast<int64_t>(rank), kInvalidArgument,
                    GetNode().Describe(), ": perm[", i, "] = ", a, " is out of range [0, ",
                    rank - 1, "] for input ", shape.ToString());
      PRISM_ENFORCE(!seen[static_cast<size_t>(a)], kInvalidArgument, GetNode().Describe(),
                    ": perm repeats axis ", a, "; it must be a permutation of [0, ", rank - 1, "]");
      seen[static_cast<size_t>(a)] = true;
      perm[i] = static_cast<size_t>(a);
    }
    return perm;
  }

  std::optional<std::vector<int64_t>> perm_attr_;
};

void RegisterTransposeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Transpose>();
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r :
       {Range{1, 12, G::kNoBfloat16}, Range{13, 20, G::kBfloat16}, Range{21, 22, G::kInt4},
        Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Transpose")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_transpose, RegisterTransposeKernels);

}  // namespace prism::cpu
