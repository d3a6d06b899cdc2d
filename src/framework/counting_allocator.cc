#include "framework/counting_allocator.h"

#include <algorithm>

namespace prism {

void* CountingAllocator::Alloc(size_t bytes) {
  void* pointer = backing_->Alloc(bytes);
  if (pointer == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  sizes_[pointer] = bytes;
  ++stats_.num_allocs;
  ++stats_.num_reserves;  // every request goes to the system
  stats_.bytes_in_use += static_cast<int64_t>(bytes);
  stats_.total_reserved_bytes = stats_.bytes_in_use;
  stats_.max_bytes_in_use = std::max(stats_.max_bytes_in_use, stats_.bytes_in_use);
  stats_.max_alloc_size = std::max(stats_.max_alloc_size, static_cast<int64_t>(bytes));
  return pointer;
}

void CountingAllocator::Free(void* pointer) {
  if (pointer == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(pointer);
    if (it != sizes_.end()) {
      stats_.bytes_in_use -= static_cast<int64_t>(it->second);
      stats_.total_reserved_bytes = stats_.bytes_in_use;
      sizes_.erase(it);
    }
    ++stats_.num_frees;
  }
  backing_->Free(pointer);
}

bool CountingAllocator::GetStats(AllocatorStats* stats) const {
  std::lock_guard<std::mutex> lock(mutex_);
  *stats = stats_;
  return true;
}

}  // namespace prism
