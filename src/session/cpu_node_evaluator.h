// Computes one node with a CPU EP kernel on CPU tensors, outside any plan: what constant folding
// uses to replace nodes with constant inputs by their results.
#pragma once

#include <vector>

#include "framework/execution_provider.h"
#include "graph/graph.h"

namespace prism {

// Throws (kNotImplemented, or the kernel's own error) when the CPU EP has no kernel for the node
// or the kernel fails; every result must be a tensor.
std::vector<Tensor> EvaluateOnCpu(const IExecutionProvider& cpu, const Node& node,
                                  const std::vector<const Tensor*>& inputs);

}  // namespace prism
