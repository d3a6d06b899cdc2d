#include "registered_types.h"

#include <set>

#include "framework/kernel_registry.h"
#include "providers/cpu/cpu_execution_provider.h"

namespace prism::testing {

std::vector<ElementType> CpuRegisteredTypes(const std::string& op, int opset,
                                            const std::string& constraint,
                                            const std::string& domain) {
  std::set<ElementType> types;
  for (const KernelCreateInfo* info : CpuExecutionProvider::SharedRegistry()->All()) {
    const KernelDef& def = info->def;
    if (def.op_type != op || def.domain != domain || opset < def.since_version ||
        opset > def.end_version)
      continue;
    for (const TypeConstraint& c : def.constraints)
      if (c.name == constraint) types.insert(c.allowed.begin(), c.allowed.end());
  }
  return {types.begin(), types.end()};
}

}  // namespace prism::testing
