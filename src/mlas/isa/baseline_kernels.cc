// The ISA kernels for baseline x86-64 (and any other architecture): compiled with the tree's
// default flags.
#define PRISM_ISA_NAMESPACE baseline
#define PRISM_EIGEN_NAMESPACE PrismEigenBaseline
#include "mlas/isa/isa_kernels_impl.h"
