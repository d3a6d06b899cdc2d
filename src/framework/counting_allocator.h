// A pass-through allocator that keeps statistics: what a session reports for a memory space when
// its arena is off, so requests per run can be counted either way.
#pragma once

#include <mutex>
#include <unordered_map>

#include "framework/allocator.h"

namespace prism {

class CountingAllocator final : public IAllocator {
 public:
  explicit CountingAllocator(AllocatorPtr backing) : backing_(std::move(backing)) {}

  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return backing_->Info(); }
  bool GetStats(AllocatorStats* stats) const override;

 private:
  AllocatorPtr backing_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, size_t> sizes_;
  AllocatorStats stats_;
};

}  // namespace prism
