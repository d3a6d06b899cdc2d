#include "device_memory.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace prism::perf {
namespace {

// The test EP is dlopen'ed RTLD_LOCAL by the session; find its already-loaded file by name.
int FindLoaded(dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<std::string*>(data);
  if (info->dlpi_name != nullptr &&
      std::strstr(info->dlpi_name, "libprism_provider_test") != nullptr)
    *found = info->dlpi_name;
  return 0;
}

}  // namespace

std::vector<DeviceMemory> ReadDeviceMemory(const std::vector<std::string>& providers) {
  std::vector<DeviceMemory> result;
  for (const std::string& provider : providers) {
    DeviceMemory memory;
    memory.provider = provider;
    if (provider == "CPUExecutionProvider") {
      memory.note = "host memory, counted in the peak resident memory";
    } else if (provider == "TestExecutionProvider") {
      std::string path;
      dl_iterate_phdr(FindLoaded, &path);
      void* handle = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
      using Counter = int64_t (*)();
      auto peak = handle
                      ? reinterpret_cast<Counter>(dlsym(handle, "PrismTestEpPeakLiveAllocations"))
                      : nullptr;
      auto live =
          handle ? reinterpret_cast<Counter>(dlsym(handle, "PrismTestEpLiveAllocations")) : nullptr;
      if (peak != nullptr && live != nullptr) {
        memory.available = true;
        memory.peak_live_allocations = peak();
        memory.live_allocations = live();
      } else {
        memory.note = "the test EP library exports no allocation counters";
      }
      if (handle) dlclose(handle);  // drops only the reference RTLD_NOLOAD added
    } else {
      memory.note = "this EP exposes no memory counters";
    }
    result.push_back(std::move(memory));
  }
  return result;
}

}  // namespace prism::perf
