// Which instruction-set level the ISA-dispatched kernels use, decided once per process from
// CPUID and XCR0 (the CPU has the instructions and the OS saves their registers), overridable by
// the environment variable PRISM_CPU_ISA=baseline|avx2|avx512. Everything outside
// src/mlas/isa/avx2_kernels.cc and avx512_kernels.cc is compiled for baseline x86-64, so the
// library runs on any x86-64 CPU.
#pragma once

#include <string>

namespace prism::mlas {

// In order of preference: each level's CPU has the instructions of the levels before it.
enum class CpuIsa { kBaseline, kAvx2Fma, kAvx512 };

struct CpuFeatures {
  bool avx2_fma = false;  // AVX2 and FMA, with YMM state enabled by the OS
  // AVX-512 F, BW, DQ and VL besides AVX2+FMA, with opmask and ZMM state enabled by the OS.
  bool avx512 = false;
};

CpuFeatures DetectCpuFeatures();

// The level to use for an environment value (nullptr or "" when unset) on a CPU with features;
// *warning gets a message when the request cannot be honoured (unknown name, or an ISA the CPU
// or this build lacks: the best available level is used instead).
// built_with_*: whether this build contains that level's kernels.
CpuIsa ResolveIsa(const char* requested, const CpuFeatures& features, bool built_with_avx2,
                  bool built_with_avx512, std::string* warning);

// Decided on first use (thread-safe), logging any warning once.
CpuIsa ActiveIsa();
const char* IsaName(CpuIsa isa);  // "baseline (x86-64 SSE2)", "AVX2+FMA", "AVX-512F"
// Whether this build contains the AVX2+FMA kernels, and the AVX-512 ones.
bool BuiltWithAvx2();
bool BuiltWithAvx512();
// Whether this build and this CPU can run a level's kernels.
bool IsaUsable(CpuIsa isa);

}  // namespace prism::mlas
