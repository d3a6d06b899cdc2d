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
  const bool avx512f = (ebx & (1u << 16)) != 0;
  const bool avx512dq = (ebx & (1u << 17)) != 0;
  const bool avx512bw = (ebx & (1u << 30)) != 0;
  const bool avx512vl = (ebx & (1u << 31)) != 0;
  const uint64_t xcr0 = osxsave ? ReadXcr0() : 0;
  // The OS must save XMM (bit 1) and YMM (bit 2) state, or AVX instructions fault; AVX-512 needs
  // the opmask registers (bit 5) and both halves of the ZMM state (bits 6 and 7) as well.
  const bool ymm_state = (xcr0 & 0x6) == 0x6;
  const bool zmm_state = (xcr0 & 0xE6) == 0xE6;
  features.avx2_fma = avx && avx2 && fma && ymm_state;
  features.avx512 = features.avx2_fma && avx512f && avx512dq && avx512bw && avx512vl && zmm_state;
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

bool BuiltWithAvx512() {
#if defined(PRISM_HAVE_AVX512_KERNELS)
  return true;
#else
  return false;
#endif
}

CpuIsa ResolveIsa(const char* requested, const CpuFeatures& features, bool built_with_avx2,
                  bool built_with_avx512, std::string* warning) {
  const bool avx2_usable = features.avx2_fma && built_with_avx2;
  const bool avx512_usable = features.avx512 && built_with_avx512;
  const CpuIsa best =
      avx512_usable ? CpuIsa::kAvx512 : (avx2_usable ? CpuIsa::kAvx2Fma : CpuIsa::kBaseline);
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
  if (EqualsIgnoringCase(name, "avx512")) {
    if (avx512_usable) return CpuIsa::kAvx512;
    *warning = MakeString("PRISM_CPU_ISA=", name, " cannot be used: ",
                          built_with_avx512 ? "this CPU lacks AVX-512 F/BW/DQ/VL (or the OS does "
                                              "not enable its registers)"
                                            : "this build has no AVX-512 kernels",
                          "; using ", IsaName(best));
    return best;
  }
  *warning = MakeString("PRISM_CPU_ISA=", name,
                        " is not a known level (baseline, avx2, avx512); using ", IsaName(best));
  return best;
}

bool IsaUsable(CpuIsa isa) {
  const CpuFeatures features = DetectCpuFeatures();
  switch (isa) {
    case CpuIsa::kAvx512:
      return BuiltWithAvx512() && features.avx512;
    case CpuIsa::kAvx2Fma:
      return BuiltWithAvx2() && features.avx2_fma;
    case CpuIsa::kBaseline:
      break;
  }
  return true;
}

CpuIsa ActiveIsa() {
  static const CpuIsa isa = [] {
    std::string warning;
    const CpuIsa chosen = ResolveIsa(std::getenv("PRISM_CPU_ISA"), DetectCpuFeatures(),
                                     BuiltWithAvx2(), BuiltWithAvx512(), &warning);
    if (!warning.empty()) LogWarningOnce("PRISM_CPU_ISA", warning);
    return chosen;
  }();
  return isa;
}

const char* IsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return "AVX-512F";
    case CpuIsa::kAvx2Fma:
      return "AVX2+FMA";
    case CpuIsa::kBaseline:
      break;
  }
  return "baseline (x86-64 SSE2)";
}

}  // namespace prism::mlas
