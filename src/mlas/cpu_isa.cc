#include "mlas/cpu_isa.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

#include "common/logging.h"
#include "common/status.h"

namespace prism::mlas {
namespace {

#if defined(__x86_64__)
// XCR0 through xgetbv, as inline assembly so that this file needs no -mxsave.
uint64_t ReadXcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}
#endif

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

}  // namespace

CpuFeatures DetectCpuFeatures() {
  CpuFeatures features;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return features;
  __cpuid(1, eax, ebx, ecx, edx);
  const bool fma = (ecx & (1u << 12)) != 0;
  const bool osxsave = (ecx & (1u << 27)) != 0;
  const bool avx = (ecx & (1u << 28)) != 0;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const bool avx2 = (ebx & (1u << 5)) != 0;
  // The OS must save XMM (bit 1) and YMM (bit 2) state, or AVX instructions fault.
  const bool ymm_state = osxsave && (ReadXcr0() & 0x6) == 0x6;
  features.avx2_fma = avx && avx2 && fma && ymm_state;
#endif
  return features;
}

bool BuiltWithAvx2() {
#if defined(PRISM_HAVE_AVX2_KERNELS)
  return true;
#else
  return false;
#endif
}

CpuIsa ResolveIsa(const char* requested, const CpuFeatures& features, bool built_with_avx2,
                  std::string* warning) {
  const bool avx2_usable = features.avx2_fma && built_with_avx2;
  const CpuIsa best = avx2_usable ? CpuIsa::kAvx2Fma : CpuIsa::kBaseline;
  if (requested == nullptr || requested[0] == '\0') return best;
  const std::string_view name(requested);
  if (EqualsIgnoringCase(name, "baseline")) return CpuIsa::kBaseline;
  if (EqualsIgnoringCase(name, "avx2")) {
    if (avx2_usable) return CpuIsa::kAvx2Fma;
    *warning = MakeString("PRISM_CPU_ISA=", name, " cannot be used: ",
                          built_with_avx2 ? "this CPU lacks AVX2+FMA (or the OS does not enable "
                                            "its registers)"
                                          : "this build has no AVX2 kernels",
                          "; using ", IsaName(best));
    return best;
  }
  *warning = MakeString("PRISM_CPU_ISA=", name, " is not a known level (baseline, avx2); using ",
                        IsaName(best));
  return best;
}

CpuIsa ActiveIsa() {
  static const CpuIsa isa = [] {
    std::string warning;
    const CpuIsa chosen =
        ResolveIsa(std::getenv("PRISM_CPU_ISA"), DetectCpuFeatures(), BuiltWithAvx2(), &warning);
    if (!warning.empty()) LogWarningOnce("PRISM_CPU_ISA", warning);
    return chosen;
  }();
  return isa;
}

const char* IsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx2Fma:
      return "AVX2+FMA";
    case CpuIsa::kBaseline:
      break;
  }
  return "baseline (x86-64 SSE2)";
}

}  // namespace prism::mlas
