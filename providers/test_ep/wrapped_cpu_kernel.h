// Runs a CPU kernel for the test EP: inputs are unscrambled into host memory, the CPU kernel
// computes, and its outputs are scrambled into the EP's simulated device memory.
#pragma once

#include "framework/op_kernel.h"

namespace prism::test_ep {

// fail_compute: every Compute throws kEpFail, as a device that fails at run time would (tests
// of the retry-on-CPU fallback).
KernelFactory MakeWrappedKernelFactory(KernelFactory cpu_factory, bool fail_compute = false,
                                       bool wrong = false);

}  // namespace prism::test_ep
