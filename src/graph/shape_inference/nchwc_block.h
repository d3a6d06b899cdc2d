// The NCHWc block size the graph side uses (shape inference, NchwcTransformer). Until the mlas
// NCHWc kernels land, the contract's rule (16 with AVX-512, else 8) stands in for
// mlas::NchwcBlockSize().
#pragma once

#include <cstdint>

#include "mlas/cpu_isa.h"

namespace prism {

inline int64_t GraphNchwcBlockSize() {
  return mlas::ActiveIsa() == mlas::CpuIsa::kAvx512 ? 16 : 8;
}

}  // namespace prism
