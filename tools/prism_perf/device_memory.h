// Device memory per EP, where the EP exposes counters (the test EP does); "n/a" otherwise.
#pragma once

#include <string>
#include <vector>

namespace prism::perf {

struct DeviceMemory {
  std::string provider;
  bool available = false;  // false: the EP has no counters (CPU: host memory)
  std::string note;        // why not, when not available
  long long peak_live_allocations = -1;
  long long live_allocations = -1;
};

std::vector<DeviceMemory> ReadDeviceMemory(const std::vector<std::string>& providers);

}  // namespace prism::perf
