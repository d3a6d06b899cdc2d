// The CUDA EP's memory: device memory ("Cuda", cudaMalloc) behind Prism's arena (gpu_mem_limit,
// arena_extend_strategy), and page-locked host memory ("CudaPinned", cudaHostAlloc) for staging.
#pragma once

#include "framework/allocator.h"

namespace prism::cuda {

constexpr const char* kDeviceMemoryName = "Cuda";
constexpr const char* kPinnedMemoryName = "CudaPinned";

// Raw device memory of one GPU: every Alloc is a cudaMalloc on that device.
class CudaDeviceAllocator final : public IAllocator {
 public:
  explicit CudaDeviceAllocator(int device_id);
  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return info_; }

 private:
  MemoryInfo info_;
};

// Page-locked host memory: CPU-accessible, and copied to and from the device without staging.
class CudaPinnedAllocator final : public IAllocator {
 public:
  CudaPinnedAllocator();
  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return info_; }

 private:
  MemoryInfo info_;
};

}  // namespace prism::cuda
