#include "session/session_allocators.h"

#include "framework/arena_allocator.h"
#include "framework/counting_allocator.h"

namespace prism {

SessionAllocators::SessionAllocators(const SessionOptions& options)
    : use_arena_(options.enable_cpu_mem_arena),
      limits_(AllocationLimitsFromConfig(options.config_entries)),
      config_(options.config_entries) {
  if (use_arena_) ArenaOptionsFromConfig(config_);  // bad entries fail at session creation
}

AllocatorPtr SessionAllocators::For(const IExecutionProvider& provider, MemType mem_type) {
  AllocatorPtr backing = provider.GetAllocator(mem_type);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& entry : entries_)
    if (entry.backing == backing.get()) return entry.wrapper;
  Entry entry;
  entry.backing = backing.get();
  entry.arena = use_arena_ && backing->Info().IsCpuAccessible();
  if (entry.arena)
    entry.wrapper = std::make_shared<ArenaAllocator>(backing, ArenaOptionsFromConfig(config_));
  else
    entry.wrapper = std::make_shared<CountingAllocator>(backing, limits_);
  entries_.push_back(entry);
  return entry.wrapper;
}

AllocatorPtr SessionAllocators::ForMemory(const MemoryInfo& memory) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& entry : entries_)
    if (entry.wrapper->Info().SameSpace(memory)) return entry.wrapper;
  return nullptr;
}

std::vector<NamedAllocatorStats> SessionAllocators::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<NamedAllocatorStats> all;
  for (const Entry& entry : entries_) {
    NamedAllocatorStats named;
    named.memory = entry.wrapper->Info().ToString();
    named.arena = entry.arena;
    entry.wrapper->GetStats(&named.stats);
    all.push_back(std::move(named));
  }
  return all;
}

int64_t SessionAllocators::ShrinkCpuArenas() {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t released = 0;
  for (const Entry& entry : entries_)
    if (entry.arena) released += entry.wrapper->Shrink();
  return released;
}

}  // namespace prism
