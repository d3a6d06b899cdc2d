// GatherND: each row of int64 `indices` (its last dim, of length k) addresses a slice of `data`
// after the first `batch_dims` dims (opset 12+); the slices are gathered into an output of
// shape indices.shape[:-1] + data.shape[batch_dims + k:]. The leading batch_dims dims of data
// and indices must agree, and each index row reads from its own batch.
#include <algorithm>
#include <climits>
#include <tuple>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/index_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class GatherND final : public OpKernel {
 public:
  explicit GatherND(const OpKernelInfo& info)
      : OpKernel(info), batch_dims_(info.IntOr("batch_dims", 0)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& data = context.RequiredInput(0);
    const Tensor& indices = context.RequiredInput(1);
    const TensorShape& shape = data.Shape();
    const TensorShape& index_shape = indices.Shape();
    const int64_t r = static_cast<int64_t>(shape.Rank());
    const int64_t q = static_cast<int64_t>(index_shape.Rank());
    const int64_t b = batch_dims_;
    PRISM_ENFORCE(r >= 1 && q >= 1, kInvalidArgument, node.Describe(),
                  ": inputs 'data' and 'indices' must have rank >= 1, got shapes ",
                  shape.ToString(), " and ", index_shape.ToString());
    PRISM_ENFORCE(b >= 0 && b < std::min(r, q), kInvalidArgument, node.Describe(), ": batch_dims ",
                  b, " must be in [0, ", std::min(r, q) - 1, "] for 'data' ", shape.ToString(),
                  " and 'indices' ", index_shape.ToString());
    for (int64_t d = 0; d < b; ++d)
      PRISM_ENFORCE(shape[d] == index_shape[d], kInvalidArgument, node.Describe(), ": batch dim ",
                    d, " differs between 'data' ", shape.ToString(), " and 'indices' ",
                    index_shape.ToString());
    const int64_t k = index_shape[q - 1];
    PRISM_ENFORCE(k >= 1 && k <= r - b, kInvalidArgument, node.Describe(),
                  ": the last dim of 'indices' ", index_shape.ToString(), " must be in [1, ", r - b,
                  "] for 'data' ", shape.ToString(), " with batch_dims ", b);
    RequireIndexType(indices, node, "indices");

    std::vector<int64_t> out_dims(index_shape.Dims().begin(), index_shape.Dims().end() - 1);
    for (int64_t d = b + k; d < r; ++d) out_dims.push_back(shape[d]);
    Tensor& output = context.Output(0, TensorShape(out_dims), data.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);

    std::vector<int64_t> strides(static_cast<size_t>(r), 1);
    for (int64_t d = r - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
    const int64_t slice = shape.SizeFromDimension(static_cast<size_t>(b + k));
    const int64_t batches = shape.SizeToDimension(static_cast<size_t>(b));
    const int64_t batch_stride = b > 0 ? strides[static_cast<size_t>(b - 1)] : 0;
    const int64_t rows = indices.NumElements() / k;  // index rows in all
    const int64_t rows_per_batch = batches > 0 ? rows / batches : 0;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t offset = (row / rows_per_batch) * batch_stride;
      for (int64_t t = 0; t < k; ++t) {
        const size_t dim = static_cast<size_t>(b + t);
        offset += NormalizeIndex(IndexAt(indices, row * k + t), shape[dim], node, "indices",
                                 row * k + t) *
                  strides[dim];
      }
      CopyElements(data, offset, output, row * slice, slice);
    }
  }

 private:
  int64_t batch_dims_;
};

void RegisterGatherNDKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<GatherND>();
  for (const auto& [since, end, types] :
       {std::tuple{11, 11, G::kNoBfloat16}, std::tuple{12, 12, G::kNoBfloat16},
        std::tuple{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(KernelDefBuilder("GatherND")
                          .Versions(since, end)
                          .Constraint("T", AllTensorTypesWithComplexOf(types), {0}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_gather_nd, RegisterGatherNDKernels);

}  // namespace prism::cpu
