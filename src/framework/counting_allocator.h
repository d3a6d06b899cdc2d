// A pass-through allocator that keeps statistics: what a session reports for a memory space when
// its arena is off, so requests per run can be counted either way. It also enforces the
// session's allocation limits (session.max_tensor_bytes, session.max_memory_bytes).
#pragma once

#include <mutex>
#include <unordered_map>

#include "framework/allocator.h"

namespace prism {

class CountingAllocator final : public IAllocator {
 public:
  // limits: the session's (allocator.h), checked before the backing allocator is asked.
  explicit CountingAllocator(AllocatorPtr backing, AllocationLimits limits = {})
      : backing_(std::move(backing)), limits_(limits) {}

  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return backing_->Info(); }
  bool GetStats(AllocatorStats* stats) const override;

 private:
  AllocatorPtr backing_;
  AllocationLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, size_t> sizes_;
  AllocatorStats stats_;
  size_t reserved_ = 0;  // requests passed the limit check whose allocation is under way
};

}  // namespace prism
