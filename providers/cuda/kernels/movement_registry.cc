// Registers the data-movement, normalization and reduction families and asks each for its
// decline reason (see cuda_movement.h).
#include "providers/cuda/kernels/cuda_kernels.h"
#include "providers/cuda/kernels/cuda_movement.h"

namespace prism::cuda {

void RegisterMovementKernels(KernelRegistry& registry) {
  RegisterViewKernels(registry);
  RegisterTransposeKernels(registry);
  RegisterConcatSplitKernels(registry);
  RegisterSliceKernels(registry);
  RegisterExpandTileKernels(registry);
  RegisterGatherKernels(registry);
  RegisterCastKernels(registry);
  RegisterWhereKernels(registry);
  RegisterPadKernels(registry);
  RegisterLayerNormKernels(registry);
  RegisterReduceKernels(registry);
}

std::string MovementDeclineReason(const Node& node) {
  for (auto reason_of :
       {ViewDeclineReason, TransposeDeclineReason, ConcatSplitDeclineReason, SliceDeclineReason,
        ExpandTileDeclineReason, CastDeclineReason, WhereDeclineReason, PadDeclineReason,
        LayerNormDeclineReason, ReduceDeclineReason})
    if (std::string reason = reason_of(node); !reason.empty()) return reason;
  return "";
}

std::string RankDeclineReason(const Node& node, size_t limit) {
  for (const auto* args : {&node.Inputs(), &node.Outputs()})
    for (const NodeArg* arg : *args)
      if (arg != nullptr && arg->shape && arg->shape->dims.size() > limit)
        return "CUDAExecutionProvider's " + node.OpType() + " takes rank up to " +
               std::to_string(limit) + ", '" + arg->name + "' has rank " +
               std::to_string(arg->shape->dims.size());
  return "";
}

}  // namespace prism::cuda
