// Allocators hand out raw memory in one memory space.
#pragma once

#include <cstddef>
#include <memory>

#include "framework/memory_info.h"

namespace prism {

class IAllocator {
 public:
  virtual ~IAllocator() = default;
  // Returns memory aligned to at least 64 bytes; throws on failure. Alloc(0) may return nullptr.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* pointer) = 0;
  virtual const MemoryInfo& Info() const = 0;
};

using AllocatorPtr = std::shared_ptr<IAllocator>;

class CpuAllocator final : public IAllocator {
 public:
  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return info_; }

 private:
  MemoryInfo info_ = CpuMemoryInfo();
};

// The process-wide CPU allocator.
AllocatorPtr GetCpuAllocator();

}  // namespace prism
