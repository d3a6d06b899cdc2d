#include "mlas/isa_kernels.h"

namespace prism::mlas {

const IsaKernels& KernelsFor(CpuIsa isa) {
#if defined(PRISM_HAVE_AVX512_KERNELS)
  if (isa == CpuIsa::kAvx512) return avx512::kKernels;
#endif
#if defined(PRISM_HAVE_AVX2_KERNELS)
  if (isa == CpuIsa::kAvx2Fma) return avx2::kKernels;
#else
  (void)isa;
#endif
  return baseline::kKernels;
}

const IsaKernels& ActiveKernels() {
  static const IsaKernels& kernels = KernelsFor(ActiveIsa());
  return kernels;
}

}  // namespace prism::mlas
