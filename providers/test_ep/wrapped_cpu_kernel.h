// Runs a CPU kernel for the test EP: inputs are unscrambled into host memory, the CPU kernel
// computes, and its outputs are scrambled into the EP's simulated device memory.
#pragma once

#include "framework/op_kernel.h"

namespace prism::test_ep {

KernelFactory MakeWrappedKernelFactory(KernelFactory cpu_factory);

}  // namespace prism::test_ep
