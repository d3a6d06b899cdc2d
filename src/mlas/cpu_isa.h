// Which instruction-set level the ISA-dispatched kernels use, decided once per process from
// CPUID and XCR0 (the CPU has the instructions and the OS saves their registers), overridable by
// the environment variable PRISM_CPU_ISA=baseline|avx2. Everything outside src/mlas/isa/*_avx2*
// is compiled for baseline x86-64, so the library runs on any x86-64 CPU.
#pragma once

#include <string>

namespace prism::mlas {

enum class CpuIsa { kBaseline, kAvx2Fma };

struct CpuFeatures {
  bool avx2_fma = false;  // AVX2 and FMA, with YMM state enabled by the OS
};

CpuFeatures DetectCpuFeatures();

// The level to use for an environment value (nullptr or "" when unset) on a CPU with features;
// *warning gets a message when the request cannot be honoured (unknown name, or an ISA the CPU
// or this build lacks: the best available level is used instead).
CpuIsa ResolveIsa(const char* requested, const CpuFeatures& features, bool built_with_avx2,
                  std::string* warning);

// Decided on first use (thread-safe), logging any warning once.
CpuIsa ActiveIsa();
const char* IsaName(CpuIsa isa);  // "baseline (x86-64 SSE2)", "AVX2+FMA"
// Whether this build contains the AVX2+FMA kernels.
bool BuiltWithAvx2();

}  // namespace prism::mlas
