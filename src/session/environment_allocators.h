// Allocators an environment shares between its sessions (onnxruntime's CreateAndRegisterAllocator
// and session.use_env_allocators), and the device EPs that own them: a CPU arena registered once
// serves every session that opts in, and an EP's device allocator registered here gives device
// tensors and copies outside any session (device OrtValues).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/allocator.h"
#include "framework/arena_allocator.h"
#include "framework/data_transfer.h"
#include "framework/execution_provider.h"

namespace prism {

// onnxruntime's OrtArenaCfg, as key/value pairs: max_mem, arena_extend_strategy,
// initial_chunk_size_bytes, max_dead_bytes_per_chunk, initial_growth_chunk_size_bytes,
// max_power_of_two_extend_bytes. A value of -1 means the default. The first three configure
// Prism's arena; the last three have no counterpart in it and are refused when set (not -1).
// Unknown keys and malformed values are errors naming the key.
ArenaOptions ArenaOptionsFromArenaConfig(const std::map<std::string, std::string>& config);

class EnvironmentAllocators {
 public:
  // Registers a CPU allocator: an arena (ArenaOptionsFromArenaConfig) when arena is true, else
  // the process CPU allocator with statistics. memory must be CPU memory; a second registration
  // for the same memory space is an error (unregister first).
  void RegisterCpu(const MemoryInfo& memory, bool arena,
                   const std::map<std::string, std::string>& arena_config);
  // Registers the default-memory allocator of a provider created from factory with options; its
  // memory must be the space memory names (name and device id), and the provider's data
  // transfer serves CopyTensors. CPU memory with the CPU EP behaves as RegisterCpu.
  void RegisterFromProvider(const IExecutionProviderFactory& factory,
                            const ProviderOptions& options, const MemoryInfo& memory, bool arena,
                            const std::map<std::string, std::string>& arena_config);
  // False when nothing was registered for that memory space.
  bool Unregister(const MemoryInfo& memory);
  // The allocator registered for a memory space, or nullptr.
  AllocatorPtr Find(const MemoryInfo& memory) const;
  // Every registered allocator (what a session with session.use_env_allocators = 1 takes).
  std::vector<AllocatorPtr> All() const;
  // Copies each source into its destination (same element type and shape, each already
  // allocated), through the CPU copy or the data transfer of a registered device EP that can
  // copy between the two spaces. Checks every pair before copying any.
  void CopyTensors(const std::vector<const Tensor*>& sources,
                   const std::vector<Tensor*>& destinations) const;

 private:
  struct Entry {
    AllocatorPtr allocator;
    std::shared_ptr<IExecutionProvider> provider;  // keeps a device allocator's EP alive
    std::shared_ptr<IDataTransfer> transfer;       // null for CPU memory
  };
  void Add(const MemoryInfo& memory, Entry entry);

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace prism
