// The memory pattern (enable_mem_pattern): for one set of input shapes, where every buffer a main
// graph run allocates goes inside one block per allocator. The first run with new shapes records
// each allocation's size and lifetime (the step that made it, the step during which its last
// holder let go); offsets come from those lifetimes, so buffers whose lifetimes do not meet share
// memory. Later runs with those shapes take one block per allocator and carve it.
//
// A replayed run stays correct whatever its kernels do: a buffer is carved only when the
// request fits its planned size and every earlier buffer planned over the same bytes has been
// let go in this run; otherwise that request goes to the allocator as without a pattern.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/allocator.h"
#include "framework/value.h"

namespace prism {

struct PlannedBuffer {
  int allocator = -1;  // index into MemoryPattern::allocators
  size_t offset = 0;
  size_t bytes = 0;
  // Buffers placed over some of the same bytes earlier in the run: all must be let go first.
  std::vector<int> overlaps_earlier;
};

struct MemoryPattern {
  std::vector<AllocatorPtr> allocators;
  std::vector<size_t> block_bytes;  // per allocator
  std::vector<PlannedBuffer> buffers;
  std::map<std::pair<int, int>, int> outputs;  // (step, output) -> buffer
  std::map<int, int> scratch;                  // step -> its kernel's scratch buffer
};

// Records one run's allocations (the first with new shapes). Thread-safe: kernels may ask for
// scratch from pool threads.
class PatternRecorder : public std::enable_shared_from_this<PatternRecorder> {
 public:
  // The allocator the run's step `step` uses for its output `output` (-1: kernel scratch)
  // instead of `real`: it records and forwards.
  AllocatorPtr Wrap(const AllocatorPtr& real, int step, int output);
  void SetCurrentStep(int step) { current_step_.store(step, std::memory_order_relaxed); }
  // The pattern, from a run that completed (buffers still held now outlive the run: they are
  // left out and allocated as usual). nullptr when nothing is worth planning. share_bytes false
  // (enable_mem_reuse off): no two buffers share bytes, whatever their lifetimes.
  std::shared_ptr<const MemoryPattern> Finish(bool share_bytes = true);

 private:
  class RecordingAllocator;
  struct Record {
    int allocator = -1;
    int step = 0;
    int output = 0;  // -1: scratch
    size_t bytes = 0;
    int freed_at = -1;  // -1: still held
  };
  void OnAlloc(void* pointer, int allocator, int step, int output, size_t bytes);
  void OnFree(void* pointer);

  std::mutex mutex_;
  std::atomic<int> current_step_{0};
  bool finished_ = false;
  std::vector<AllocatorPtr> allocators_;
  std::vector<Record> records_;
  std::unordered_map<void*, size_t> live_;  // pointer -> record
};

// One replayed run: the blocks, and which planned buffers are handed out and not yet let go.
class PatternRun {
 public:
  explicit PatternRun(std::shared_ptr<const MemoryPattern> pattern);
  // Storage for step's output (or scratch, output -1) of `bytes` from the block, owned by the
  // returned pointer (which keeps the block alive); nullptr when the pattern cannot serve it.
  std::shared_ptr<void> Take(int step, int output, size_t bytes);
  // An allocator serving a step's kernel scratch from its planned bytes (then from `real`).
  AllocatorPtr ScratchAllocator(int step, const AllocatorPtr& real);
  // The step's scratch region is free again (its kernel returned).
  void EndStep(int step);

 private:
  class BumpAllocator;
  bool Available(int buffer) const;
  std::shared_ptr<const MemoryPattern> pattern_;
  std::vector<std::shared_ptr<void>> blocks_;
  // Per buffer: handed out and not let go. Shared with the buffers' owners, which may outlive
  // the run.
  std::shared_ptr<std::vector<std::atomic<bool>>> held_;
};

// Patterns by input shapes, for one session. Thread-safe.
class MemoryPatternCache {
 public:
  // The key of a main graph's feeds: their element types and shapes; "" when some feed is not
  // a tensor (no pattern then).
  static std::string Key(const std::vector<Value>& feeds);
  std::shared_ptr<const MemoryPattern> Find(const std::string& key) const;
  void Insert(const std::string& key, std::shared_ptr<const MemoryPattern> pattern);
  // Whether a run with this key should record (not known yet, and room left).
  bool ShouldRecord(const std::string& key) const;

  static constexpr size_t kMaxPatterns = 16;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const MemoryPattern>> patterns_;
};

}  // namespace prism
