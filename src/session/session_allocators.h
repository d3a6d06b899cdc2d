// The allocators one session's plan allocates from: each EP allocator the session uses is
// wrapped once, CPU-accessible memory in an arena (enable_cpu_mem_arena) or, with the arena off,
// in a counting pass-through; device memory in a counting pass-through (a device EP brings its own
// arena); with session.use_env_allocators = 1, a memory space the environment has an allocator
// for uses that one, counted per session. Every wrapper keeps statistics, so requests per run are
// visible either way.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "framework/allocator.h"
#include "framework/execution_provider.h"
#include "session/session_options.h"

namespace prism {

struct NamedAllocatorStats {
  std::string memory;  // MemoryInfo::ToString()
  bool arena = false;
  bool shared = false;  // the environment's allocator (session.use_env_allocators)
  AllocatorStats stats;
};

class SessionAllocators {
 public:
  explicit SessionAllocators(const SessionOptions& options);

  // The session's allocator for what provider->GetAllocator(mem_type) gives.
  AllocatorPtr For(const IExecutionProvider& provider, MemType mem_type);
  // The session's allocator for a memory space, or nullptr when no EP's allocator was wrapped.
  AllocatorPtr ForMemory(const MemoryInfo& memory) const;
  std::vector<NamedAllocatorStats> Stats() const;
  // Shrinks the arenas of CPU-accessible memory; returns the bytes released.
  int64_t ShrinkCpuArenas();
  // session.max_tensor_bytes and session.max_memory_bytes (every wrapper enforces them).
  const AllocationLimits& Limits() const { return limits_; }

 private:
  struct Entry {
    const IAllocator* backing = nullptr;
    AllocatorPtr wrapper;
    bool arena = false;
    bool shared = false;
  };
  bool use_arena_;
  AllocationLimits limits_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::map<std::string, std::string> config_;
  std::vector<AllocatorPtr> shared_;  // the environment's, when the session opts in
};

}  // namespace prism
