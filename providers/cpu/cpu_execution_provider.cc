#include "providers/cpu/cpu_execution_provider.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "providers/cpu/cpu_kernel_families.h"
#include "session/provider_library.h"

namespace prism {
namespace cpu {
namespace {
std::map<std::string, KernelFamilyRegistrar>& FamilyTable() {
  static std::map<std::string, KernelFamilyRegistrar> table;
  return table;
}
}  // namespace

bool AddKernelFamily(const char* name, KernelFamilyRegistrar registrar) {
  FamilyTable()[name] = registrar;
  return true;
}

std::vector<std::pair<std::string, KernelFamilyRegistrar>> KernelFamilies() {
  return {FamilyTable().begin(), FamilyTable().end()};
}
}  // namespace cpu

CpuExecutionProvider::CpuExecutionProvider(ProviderOptions options)
    : IExecutionProvider(kCpuExecutionProvider), options_(std::move(options)) {
}

std::shared_ptr<KernelRegistry> CpuExecutionProvider::SharedRegistry() {
  static std::shared_ptr<KernelRegistry> registry = [] {
    auto r = std::make_shared<KernelRegistry>();
    for (const auto& [name, registrar] : cpu::KernelFamilies()) registrar(*r);
    return r;
  }();
  return registry;
}

std::shared_ptr<KernelRegistry> CpuExecutionProvider::GetKernelRegistry() const {
  return SharedRegistry();
}

std::unique_ptr<IExecutionProvider> CpuExecutionProviderFactory::Create(
    const ProviderOptions& options) const {
  return std::make_unique<CpuExecutionProvider>(options);
}

namespace {
// The CPU EP is built into libprism_core.so but reaches sessions the way plugins do: through its
// factory, registered when the library loads.
[[maybe_unused]] const bool kCpuProviderRegistered = [] {
  RegisterBuiltinProvider(std::make_shared<CpuExecutionProviderFactory>());
  return true;
}();
}  // namespace

}  // namespace prism
