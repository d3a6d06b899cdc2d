#include "framework/counting_allocator.h"

#include <algorithm>

#include "common/status.h"

namespace prism {

void* CountingAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return backing_->Alloc(bytes);
  CheckTensorBytesLimit(limits_, bytes, Info());
  if (limits_.max_memory_bytes != 0) {
    // Reserved under the lock before the backing allocator is asked, so that concurrent runs
    // cannot pass the limit together; given back if the allocation fails.
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t in_use = static_cast<size_t>(stats_.bytes_in_use) + reserved_;
    PRISM_ENFORCE(bytes <= limits_.max_memory_bytes - std::min(in_use, limits_.max_memory_bytes),
                  kRuntimeException, "an allocation of ", bytes, " bytes in ", Info().ToString(),
                  " memory would bring the session's allocations there to ", in_use + bytes,
                  " bytes, over its limit of ", limits_.max_memory_bytes,
                  " bytes (session.max_memory_bytes)");
    reserved_ += bytes;
  }
  void* pointer = nullptr;
  try {
    pointer = backing_->Alloc(bytes);
  } catch (...) {
    if (limits_.max_memory_bytes != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      reserved_ -= bytes;
    }
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (limits_.max_memory_bytes != 0) reserved_ -= bytes;
  if (pointer == nullptr) return nullptr;
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
