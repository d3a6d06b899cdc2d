// The instruction-set levels the mlas tests run each kernel on: every level this build and CPU
// can run. The missing ones are said once, as a [ SKIPPED ] line, so that a test passing on fewer
// levels than expected is visible in its output.
#pragma once

#include <iostream>
#include <vector>

#include "mlas/cpu_isa.h"

namespace prism::mlas {

inline std::vector<CpuIsa> Levels() {
  const CpuIsa all[] = {CpuIsa::kBaseline, CpuIsa::kAvx2Fma, CpuIsa::kAvx512};
  static const bool said = [&all] {
    for (CpuIsa level : all)
      if (!IsaUsable(level))
        std::cout << "[ SKIPPED  ] level " << IsaName(level) << ": not on this CPU or build\n";
    return true;
  }();
  (void)said;
  std::vector<CpuIsa> levels;
  for (CpuIsa level : all)
    if (IsaUsable(level)) levels.push_back(level);
  return levels;
}

}  // namespace prism::mlas
