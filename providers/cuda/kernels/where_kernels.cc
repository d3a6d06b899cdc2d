// Where (bool condition, numpy broadcasting of all three operands up to rank 8), by element size.
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "providers/cpu/common/broadcast.h"
#include "providers/cuda/cuda_call.h"
#include "providers/cuda/cuda_execution_provider.h"
#include "providers/cuda/kernels/cuda_movement.h"
#include "providers/cuda/kernels/movement_common.h"

namespace prism::cuda {
namespace {

constexpr size_t kMaxWhereRank = 8;

class WhereKernel final : public OpKernel {
 public:
  explicit WhereKernel(const OpKernelInfo& info) : OpKernel(info), provider_(ProviderOf(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Tensor& cond = context.RequiredInput(0);
    const Tensor& x = context.RequiredInput(1);
    const Tensor& y = context.RequiredInput(2);
    const TensorShape shape =
        cpu::BroadcastShapes({cond.Shape(), x.Shape(), y.Shape()}, GetNode().Describe());
    PRISM_ENFORCE(shape.Rank() <= kMaxWhereRank, kNotImplemented, GetNode().Describe(),
                  ": CUDAExecutionProvider's Where broadcasts up to rank ", kMaxWhereRank, ", got ",
                  shape.ToString());
    Tensor& output = context.Output(0, shape, x.Type());
    WhereIndex index;
    index.rank = static_cast<int>(shape.Rank());
    for (size_t d = 0; d < shape.Rank(); ++d) index.out_dims[d] = shape[d];
    BroadcastStrides(cond.Shape(), shape, index.cond_strides);
    BroadcastStrides(x.Shape(), shape, index.x_strides);
    BroadcastStrides(y.Shape(), shape, index.y_strides);
    PRISM_CUDA_CALL(LaunchWhere(cond.Data<bool>(), x.RawData(), y.RawData(),
                                output.MutableRawData(), ElementSize(x.Type()), shape.Size(), index,
                                provider_.Stream()));
  }

 private:
  const CudaExecutionProvider& provider_;
};

}  // namespace

void RegisterWhereKernels(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder("Where")
                        .Versions(9)
                        .Constraint("B", {ElementType::kBool}, {0})
                        .Constraint("T", MovableTypes(), {1, 2}, {0})
                        .Build(),
                    [](const OpKernelInfo& info) { return std::make_unique<WhereKernel>(info); });
}

std::string WhereDeclineReason(const Node& node) {
  if (!node.Domain().empty() || node.OpType() != "Where") return "";
  return RankDeclineReason(node, kMaxWhereRank);
}

}  // namespace prism::cuda
