// A claimed group of nodes compiled by its EP into one kernel.
#pragma once

#include "prism/ep/kernel_context.h"

namespace prism::ep {

class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  // Runs the group. Concurrent Runs of a session call it from several threads at once, so it
  // must not change the kernel's state without its own locking. Throwing (any std::exception)
  // fails the Run with the message, naming the fused node.
  virtual void Compute(KernelContext& context) const = 0;
};

}  // namespace prism::ep
