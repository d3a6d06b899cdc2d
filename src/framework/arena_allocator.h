// A best-fit-with-coalescing arena over another allocator: memory comes from the backing allocator
// in large regions and is handed out as chunks of them. A freed chunk merges with free neighbours
// of its region, and the smallest free chunk that fits serves the next request, so a session's
// repeated runs reuse the same regions and ask the system for nothing after the first run.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/allocator.h"

namespace prism {

enum class ArenaExtendStrategy {
  kNextPowerOfTwo,   // each new region doubles the previous one (at least the request)
  kSameAsRequested,  // each new region is exactly the (rounded) request
};

struct ArenaOptions {
  ArenaExtendStrategy extend_strategy = ArenaExtendStrategy::kNextPowerOfTwo;
  size_t initial_region_bytes = size_t{1} << 20;  // the first region under kNextPowerOfTwo
  size_t max_bytes = 0;                           // 0: no limit on the regions' total
  size_t max_request_bytes = 0;                   // 0: no limit on one request
};

class ArenaAllocator final : public IAllocator {
 public:
  ArenaAllocator(AllocatorPtr backing, ArenaOptions options);
  ~ArenaAllocator() override;
  ArenaAllocator(const ArenaAllocator&) = delete;
  ArenaAllocator& operator=(const ArenaAllocator&) = delete;

  void* Alloc(size_t bytes) override;
  void Free(void* pointer) override;
  const MemoryInfo& Info() const override { return backing_->Info(); }
  bool GetStats(AllocatorStats* stats) const override;
  // Returns every region with no chunk in use to the backing allocator.
  int64_t Shrink() override;
  // Takes every free chunk out of circulation (in use, as if allocated) and returns their
  // addresses, each to be given back to Free later: memory a captured device graph replays into
  // (session/graph_capture.h) must not be handed out again. Later requests extend the arena.
  std::vector<void*> ReserveFree();

  // Chunks are multiples of this many bytes (and so aligned to the backing allocator's 64).
  static constexpr size_t kChunkGranularity = 256;

 private:
  struct Region;
  struct Chunk;
  using FreeList = std::multimap<size_t, Chunk*>;  // by size, for best fit
  struct Chunk {
    char* data = nullptr;
    size_t bytes = 0;
    bool in_use = false;
    Chunk* previous = nullptr;  // neighbours in the region's address order
    Chunk* next = nullptr;
    Region* region = nullptr;
    FreeList::iterator free_position;  // valid while free
  };
  struct Region {
    char* data = nullptr;
    size_t bytes = 0;
  };
  Chunk* Extend(size_t bytes);  // a new region as one free chunk (in the free list)
  void InsertFree(Chunk* chunk);
  void EraseFree(Chunk* chunk);
  Chunk* Merge(Chunk* left, Chunk* right);  // right is absorbed into left

  AllocatorPtr backing_;
  ArenaOptions options_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Region>> regions_;
  FreeList free_;
  std::unordered_map<void*, Chunk*> in_use_;
  size_t next_region_bytes_;
  AllocatorStats stats_;
};

// Arena settings from a session's configuration entries:
//   session.arena_extend_strategy: "kNextPowerOfTwo"/"0" (default) or "kSameAsRequested"/"1"
//   session.arena_initial_chunk_size_bytes: the first region's size (default 1 MiB)
//   session.arena_max_mem: a limit on the arena's total size in bytes (default 0: none)
//   session.max_memory_bytes, session.max_tensor_bytes: the session's allocation limits
//     (AllocationLimits, allocator.h): the total is the smaller of the two totals
// Unknown values are an error naming the entry.
ArenaOptions ArenaOptionsFromConfig(const std::map<std::string, std::string>& config);

}  // namespace prism
