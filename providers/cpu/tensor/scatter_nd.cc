// ScatterND: the output is data with, for each row of int64 `indices` (its last dim, of length
// k <= rank), the slice data[row] (of shape data.shape[k:]) replaced by the matching slice of
// `updates`, or combined with it by the 'reduction' (add/mul from opset 16, max/min from 18; see
// scatter_apply.h). updates must have shape indices.shape[:-1] + data.shape[k:]. Rows are
// applied in order, so with reduction "none" a duplicated row keeps the last slice.
#include <climits>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/index_input.h"
#include "providers/cpu/tensor/scatter_apply.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class ScatterND final : public OpKernel {
 public:
  explicit ScatterND(const OpKernelInfo& info)
      : OpKernel(info), reduction_(ReadScatterReduction(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const Tensor& updates = context.RequiredInput(2);
    const TensorShape& shape = data.Shape();
    const TensorShape& index_shape = indices.Shape();
    const int64_t r = static_cast<int64_t>(shape.Rank());
    const int64_t q = static_cast<int64_t>(index_shape.Rank());
    PRISM_ENFORCE(r >= 1 && q >= 1, kInvalidArgument, node.Describe(),
                  ": inputs 'data' and 'indices' must have rank >= 1, got shapes ",
                  shape.ToString(), " and ", index_shape.ToString());
    const int64_t k = index_shape[q - 1];
    PRISM_ENFORCE(k >= 1 && k <= r, kInvalidArgument, node.Describe(),
                  ": the last dim of 'indices' ", index_shape.ToString(), " must be in [1, ", r,
                  "] for 'data' ", shape.ToString());
    std::vector<int64_t> expected(index_shape.Dims().begin(), index_shape.Dims().end() - 1);
    for (int64_t d = k; d < r; ++d) expected.push_back(shape[d]);
    PRISM_ENFORCE(updates.Shape() == TensorShape(expected), kInvalidArgument, node.Describe(),
                  ": input 'updates' has shape ", updates.Shape().ToString(), " but ",
                  TensorShape(expected).ToString(), " is expected for 'data' ", shape.ToString(),
                  " and 'indices' ", index_shape.ToString());
    RequireIndexType(indices, node, "indices");

    Tensor& output = context.Output(0, shape, data.Type());
    CopyElements(data, 0, output, 0, data.NumElements());
    std::vector<int64_t> strides(static_cast<size_t>(r), 1);
    for (int64_t d = r - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
    const int64_t slice = shape.SizeFromDimension(static_cast<size_t>(k));
    const int64_t rows = indices.NumElements() / k;
    std::vector<ScatterMove> moves(static_cast<size_t>(rows));
    for (int64_t row = 0; row < rows; ++row) {
      int64_t offset = 0;
      for (int64_t t = 0; t < k; ++t)
        offset += NormalizeIndex(IndexAt(indices, row * k + t), shape[static_cast<size_t>(t)], node,
                                 "indices", row * k + t) *
                  strides[static_cast<size_t>(t)];
      moves[static_cast<size_t>(row)] = {offset, row * slice};
    }
    ApplyScatter(output, updates, moves, slice, reduction_, node);
  }

 private:
  ScatterReduction reduction_;
};

void RegisterScatterNDKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<ScatterND>();
  for (const auto& [since, end, types] :
       {std::tuple{11, 12, G::kNoBfloat16}, std::tuple{13, 15, G::kBfloat16},
        std::tuple{16, 17, G::kBfloat16}, std::tuple{18, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("ScatterND")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0, 2}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_scatter_nd, RegisterScatterNDKernels);

}  // namespace prism::cpu
