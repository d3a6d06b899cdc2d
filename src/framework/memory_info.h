// Where a buffer lives: a named memory space on a device.
#pragma once

#include <string>

namespace prism {

enum class DeviceType : int { kCpu = 0, kGpu = 1, kFpga = 2, kNpu = 3, kSimulated = 4 };

// onnxruntime's OrtMemType: default device memory, or CPU memory an EP uses for
// inputs/outputs it wants on the host.
enum class MemType : int { kCpuInput = -2, kCpuOutput = -1, kDefault = 0 };

struct MemoryInfo {
  std::string name = "Cpu";  // onnxruntime's spellings: "Cpu", "Cuda", "CudaPinned", ...
  DeviceType device = DeviceType::kCpu;
  int device_id = 0;
  MemType mem_type = MemType::kDefault;

  bool IsCpuAccessible() const { return device == DeviceType::kCpu; }
  // Two MemoryInfos address the same bytes when device and id match (mem_type is a hint).
  bool SameSpace(const MemoryInfo& other) const {
    return device == other.device && device_id == other.device_id && name == other.name;
  }
  bool operator==(const MemoryInfo& o) const {
    return name == o.name && device == o.device && device_id == o.device_id &&
           mem_type == o.mem_type;
  }
  std::string ToString() const { return name + ":" + std::to_string(device_id); }
};

inline MemoryInfo CpuMemoryInfo() {
  return MemoryInfo{};
}

}  // namespace prism
