// An SDK plugin's device memory (prism/ep/device_memory.h) as Prism's allocator and data transfer.
#pragma once

#include <memory>

#include "framework/allocator.h"
#include "framework/data_transfer.h"
#include "prism/ep/device_memory.h"

namespace prism::ep_sdk {

class SdkDeviceAllocator final : public IAllocator {
 public:
  explicit SdkDeviceAllocator(std::shared_ptr<ep::DeviceMemory> memory);
  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return info_; }

 private:
  std::shared_ptr<ep::DeviceMemory> memory_;
  MemoryInfo info_;
};

// Copies host <-> device and device <-> device within the plugin's memory space.
class SdkDataTransfer final : public IDataTransfer {
 public:
  SdkDataTransfer(std::shared_ptr<ep::DeviceMemory> memory, MemoryInfo device);
  bool CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const override;
  void CopyTensor(const Tensor& source, Tensor& destination) const override;

 private:
  std::shared_ptr<ep::DeviceMemory> memory_;
  MemoryInfo device_;
};

}  // namespace prism::ep_sdk
