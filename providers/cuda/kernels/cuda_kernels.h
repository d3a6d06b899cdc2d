// The CUDA EP's kernels: registration, and the checks GetCapability makes beyond the kernel
// definitions (shapes and attributes a kernel cannot honour, declined with the reason).
#pragma once

#include <string>

#include "framework/kernel_registry.h"
#include "graph/node.h"

namespace prism::cuda {

void RegisterElementwiseKernels(KernelRegistry& registry);
void RegisterMatMulKernels(KernelRegistry& registry);
void RegisterSoftmaxKernels(KernelRegistry& registry);
// Data movement, normalization and reductions (kernels/cuda_movement.h lists the families).
void RegisterMovementKernels(KernelRegistry& registry);
void RegisterConvKernels(KernelRegistry& registry);  // Conv, FusedConv
void RegisterConvTransposeKernels(KernelRegistry& registry);
void RegisterPoolKernels(KernelRegistry& registry);
void RegisterBatchNormKernels(KernelRegistry& registry);

// "" when a registered kernel can run node as the graph describes it, else why not.
std::string ElementwiseDeclineReason(const Node& node);
std::string MatMulDeclineReason(const Node& node);
std::string SoftmaxDeclineReason(const Node& node);
std::string MovementDeclineReason(const Node& node);
std::string ConvDeclineReason(const Node& node);  // Conv, FusedConv, ConvTranspose
std::string PoolDeclineReason(const Node& node);
std::string BatchNormDeclineReason(const Node& node);

}  // namespace prism::cuda
