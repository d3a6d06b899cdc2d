// Allocators hand out raw memory in one memory space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "framework/memory_info.h"

namespace prism {

// What an allocator has done, as onnxruntime's allocator statistics name it. Byte counts are what
// callers asked for, rounded as the allocator rounds them.
struct AllocatorStats {
  int64_t num_allocs = 0;            // Alloc calls that returned memory (the interface's requests)
  int64_t num_frees = 0;             // Free calls with a non-null pointer
  int64_t bytes_in_use = 0;          // handed out and not yet freed
  int64_t max_bytes_in_use = 0;      // peak of bytes_in_use
  int64_t max_alloc_size = 0;        // largest single request
  int64_t num_reserves = 0;          // allocations from the system (an arena's regions)
  int64_t total_reserved_bytes = 0;  // held from the system now (an arena's size)
  int64_t num_arena_extensions = 0;  // regions an arena added
  int64_t num_arena_shrinkages = 0;  // Shrink calls that returned regions to the system
};

class IAllocator {
 public:
  virtual ~IAllocator() = default;
  // Returns memory aligned to at least 64 bytes; throws on failure. Alloc(0) may return nullptr.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* pointer) = 0;
  virtual const MemoryInfo& Info() const = 0;
  // Statistics, for allocators that keep them; false when this one does not.
  virtual bool GetStats(AllocatorStats* /*stats*/) const { return false; }
  // Returns memory held but unused to the system (arenas); the bytes released.
  virtual int64_t Shrink() { return 0; }
};

using AllocatorPtr = std::shared_ptr<IAllocator>;

// What a session allows its allocators to hand out (0: no limit), from its configuration entries:
//   session.max_tensor_bytes: the largest single tensor or scratch buffer; also the largest
//     tensor a model may declare (initializers, Constant values, densified sparse tensors)
//   session.max_memory_bytes: the most the session's allocators may hold at once, per memory
//     space (an arena: its regions; without one, the bytes in use), across concurrent runs
// A request over a limit fails with an error naming the entry, before any memory is taken.
struct AllocationLimits {
  size_t max_tensor_bytes = 0;
  size_t max_memory_bytes = 0;
};
// Unknown values are an error naming the entry.
AllocationLimits AllocationLimitsFromConfig(const std::map<std::string, std::string>& config);
// Parses a session configuration entry holding a byte count (decimal, no sign).
size_t ParseByteCountEntry(const std::string& key, const std::string& text);
// Throws kRuntimeException when bytes exceeds limits.max_tensor_bytes; memory names the space.
void CheckTensorBytesLimit(const AllocationLimits& limits, size_t bytes, const MemoryInfo& memory);

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
