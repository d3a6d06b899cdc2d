// The CUDA EP's data-movement, normalization and reduction kernels, one family per file:
// registration, and the checks GetCapability makes beyond the kernel definitions ("" when the
// kernel can run the node as the graph describes it, else why not).
#pragma once

#include <string>

#include "framework/kernel_registry.h"
#include "graph/node.h"

namespace prism::cuda {

void RegisterViewKernels(KernelRegistry& registry);  // Reshape, Flatten, (Un)Squeeze, Identity,
                                                     // Dropout, Shape, Size
void RegisterTransposeKernels(KernelRegistry& registry);
void RegisterConcatSplitKernels(KernelRegistry& registry);
void RegisterSliceKernels(KernelRegistry& registry);
void RegisterExpandTileKernels(KernelRegistry& registry);
void RegisterGatherKernels(KernelRegistry& registry);
void RegisterCastKernels(KernelRegistry& registry);
void RegisterWhereKernels(KernelRegistry& registry);
void RegisterPadKernels(KernelRegistry& registry);
void RegisterLayerNormKernels(KernelRegistry& registry);  // LayerNormalization, SkipLayerNorm.
void RegisterReduceKernels(KernelRegistry& registry);

std::string ViewDeclineReason(const Node& node);
std::string TransposeDeclineReason(const Node& node);
std::string ConcatSplitDeclineReason(const Node& node);
std::string SliceDeclineReason(const Node& node);
std::string ExpandTileDeclineReason(const Node& node);
std::string CastDeclineReason(const Node& node);
std::string WhereDeclineReason(const Node& node);
std::string PadDeclineReason(const Node& node);
std::string LayerNormDeclineReason(const Node& node);
std::string ReduceDeclineReason(const Node& node);

// Known output or input rank over limit: the reason, naming op and limit; else "".
std::string RankDeclineReason(const Node& node, size_t limit);

}  // namespace prism::cuda
