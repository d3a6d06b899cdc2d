#include "session/session_allocators.h"

#include "common/status.h"
#include "framework/arena_allocator.h"
#include "framework/counting_allocator.h"

namespace prism {

SessionAllocators::SessionAllocators(const SessionOptions& options)
    : use_arena_(options.enable_cpu_mem_arena),
      limits_(AllocationLimitsFromConfig(options.config_entries)),
      config_(options.config_entries) {
  if (use_arena_) ArenaOptionsFromConfig(config_);  // bad entries fail at session creation
  const std::string use_env = options.ConfigOr("session.use_env_allocators", "0");
  PRISM_ENFORCE(use_env == "0" || use_env == "1", kInvalidArgument,
                "session config entry session.use_env_allocators must be \"0\" or \"1\", got '",
                use_env, "'");
  if (use_env == "1") shared_ = options.environment_allocators;
}

AllocatorPtr SessionAllocators::For(const IExecutionProvider& provider, MemType mem_type) {
  AllocatorPtr backing = provider.GetAllocator(mem_type);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& entry : entries_)
    if (entry.backing == backing.get()) return entry.wrapper;
  Entry entry;
  entry.backing = backing.get();
  for (const AllocatorPtr& shared : shared_) {
    if (shared->Info().name != backing->Info().name ||
        shared->Info().device_id != backing->Info().device_id)
      continue;
    // The environment's allocator (an arena for CPU memory, shared by every session that opts
    // in); the session counts its own requests on top, as with its own allocators.
    entry.wrapper = std::make_shared<CountingAllocator>(shared, limits_);
    entry.shared = true;
    entries_.push_back(entry);
    return entry.wrapper;
  }
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
    named.shared = entry.shared;
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
