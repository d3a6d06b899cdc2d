// The test EP's compiled form of a fused group: the group's nodes run one after another with the
// CPU kernels, on unscrambled copies of the fused node's inputs; only the group's outputs go back
// into simulated device memory. It proves the fuse and compile phases without oneDNN or a GPU.
#pragma once

#include <memory>

#include "framework/op_kernel.h"

namespace prism::test_ep {

// Creates the CPU kernel of every body node now (the compiled state); throws naming the node
// when the CPU EP has no kernel for one.
std::unique_ptr<OpKernel> CompileGroup(const Graph& body, const OpKernelInfo& info);

}  // namespace prism::test_ep
