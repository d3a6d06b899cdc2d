// Computes one node with a CPU EP kernel on CPU tensors, outside any plan: what constant folding
// uses to replace nodes with constant inputs by their results.
#pragma once

#include <vector>

#include "framework/execution_provider.h"
#include "graph/graph.h"

namespace prism {

// Throws (kNotImplemented, or the kernel's own error) when the CPU EP has no kernel for the node
// or the kernel fails; every result must be a tensor.
// max_bytes: no output or scratch buffer may be larger (checked before allocating; 0: no
// limit). Constant folding runs at session creation on untrusted models, where a foldable node
// could ask for any size.
std::vector<Tensor> EvaluateOnCpu(const IExecutionProvider& cpu, const Node& node,
                                  const std::vector<const Tensor*>& inputs, size_t max_bytes = 0);

}  // namespace prism
