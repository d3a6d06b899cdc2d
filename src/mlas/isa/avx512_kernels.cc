// The ISA kernels for x86-64 with AVX-512 F/BW/DQ/VL (and AVX2+FMA): the only unit compiled with
// the AVX-512 flags (see CMakeLists.txt), chosen at run time by ActiveIsa(). Its SGEMM and peak
// probe use 512-bit registers (sgemm_avx512.h); the other kernels are the AVX2 code compiled here.
#define PRISM_ISA_NAMESPACE avx512
#define PRISM_EIGEN_NAMESPACE PrismEigenAvx512
#include "mlas/isa/isa_kernels_impl.h"
