// An EP whose kernels need their tensors in memory of their own (an accelerator's) describes that
// memory here: Prism allocates the EP's inputs, outputs and constant initializers there and
// copies values between it and host memory where a graph crosses from one EP to another.
#pragma once

#include <cstddef>
#include <string>

namespace prism::ep {

enum class DeviceKind { kGpu, kFpga, kNpu };

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;

  // The memory space's name, as OrtMemoryInfo spells one ("Cuda"); unique per EP.
  virtual std::string Name() const = 0;
  virtual DeviceKind Kind() const = 0;
  virtual int DeviceId() const { return 0; }

  // At least 64-byte aligned; throw (std::bad_alloc or another std::exception) on failure.
  // Called from several threads at once.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Free(void* pointer) = 0;

  // Synchronous copies of raw bytes (string tensors never go to device memory).
  virtual void CopyHostToDevice(void* device_destination, const void* host_source,
                                size_t bytes) const = 0;
  virtual void CopyDeviceToHost(void* host_destination, const void* device_source,
                                size_t bytes) const = 0;
  virtual void CopyDeviceToDevice(void* destination, const void* source, size_t bytes) const = 0;
};

}  // namespace prism::ep
