// Transpose of any permutation up to rank 16, by element size: one strided copy (dims that stay
// together are merged first, so an NCHW->NHWC transpose is a rank-3 copy).
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

class TransposeKernel final : public OpKernel {
 public:
  explicit TransposeKernel(const OpKernelInfo& info) : OpKernel(info), provider_(ProviderOf(info)) {
    if (info.HasAttr("perm")) perm_ = info.Ints("perm");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t>& dims = input.Shape().Dims();
    const size_t rank = dims.size();
    std::vector<int64_t> perm = perm_;
    if (perm.empty())
      for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    PRISM_ENFORCE(perm.size() == rank, kInvalidArgument, GetNode().Describe(), ": perm has ",
                  perm.size(), " entries for an input of rank ", rank);
    PRISM_ENFORCE(rank <= static_cast<size_t>(kMaxCopyRank), kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider transposes up to rank ", kMaxCopyRank, ", got ",
                  input.Shape().ToString());
    std::vector<bool> seen(rank, false);
    const std::vector<int64_t> in_strides = ContiguousStrides(dims);
    std::vector<int64_t> out_dims(rank);
    StridedCopy copy;
    copy.rank = static_cast<int>(rank);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t axis = perm[d] < 0 ? perm[d] + static_cast<int64_t>(rank) : perm[d];
      PRISM_ENFORCE(axis >= 0 && axis < static_cast<int64_t>(rank) && !seen[axis], kInvalidArgument,
                    GetNode().Describe(), ": perm is not a permutation of 0..", rank - 1);
      seen[axis] = true;
      out_dims[d] = dims[axis];
      copy.dims[d] = dims[axis];
      copy.in_strides[d] = in_strides[axis];
    }
    const std::vector<int64_t> out_strides = ContiguousStrides(out_dims);
    for (size_t d = 0; d < rank; ++d) copy.out_strides[d] = out_strides[d];
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    RunStridedCopy(input.RawData(), output.MutableRawData(), input.Type(), copy, provider_,
                   GetNode());
  }

 private:
  const CudaExecutionProvider& provider_;
  std::vector<int64_t> perm_;
};

}  // namespace

void RegisterTransposeKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("Transpose").Versions(1).Constraint("T", MovableTypes(), {0}, {0}).Build(),
      [](const OpKernelInfo& info) { return std::make_unique<TransposeKernel>(info); });
}

std::string TransposeDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "Transpose") return "";
  return RankDeclineReason(node, kMaxCopyRank);
}

}  // namespace prism::cuda
