// Each kernel family file registers itself here at static-initialization time, so adding a
// family touches no central list:
//   PRISM_CPU_KERNEL_FAMILY(math_elementwise, RegisterElementwiseKernels)
#pragma once

#include <string>
#include <vector>

#include "framework/kernel_registry.h"

namespace prism::cpu {

using KernelFamilyRegistrar = void (*)(KernelRegistry& registry);

bool AddKernelFamily(const char* name, KernelFamilyRegistrar registrar);
// Every family added so far, in name order (deterministic registration order).
std::vector<std::pair<std::string, KernelFamilyRegistrar>> KernelFamilies();

}  // namespace prism::cpu

#define PRISM_CPU_KERNEL_FAMILY(name, registrar)                      \
  [[maybe_unused]] static const bool prism_cpu_kernel_family_##name = \
      ::prism::cpu::AddKernelFamily(#name, registrar)
