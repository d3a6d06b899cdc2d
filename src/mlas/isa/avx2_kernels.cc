// The ISA kernels for x86-64 with AVX2 and FMA: the only unit compiled with -mavx2 -mfma (see
// CMakeLists.txt), chosen at run time by ActiveIsa().
#define PRISM_ISA_NAMESPACE avx2
#define PRISM_EIGEN_NAMESPACE PrismEigenAvx2
#include "mlas/isa/isa_kernels_impl.h"
