#include "session/environment_allocators.h"

#include <algorithm>
#include <charconv>

#include "common/logging.h"
#include "common/status.h"
#include "framework/counting_allocator.h"

namespace prism {
namespace {

// An OrtArenaCfg value: a decimal integer, -1 meaning "the default".
int64_t ParseArenaValue(const std::string& key, const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  PRISM_ENFORCE(error == std::errc() && stop == end && !text.empty() && value >= -1,
                kInvalidArgument, "arena config '", key,
                "' must be an integer >= -1 (-1: the default), got '", text, "'");
  return value;
}

bool SameSpaceIgnoringType(const MemoryInfo& a, const MemoryInfo& b) {
  return a.name == b.name && a.device_id == b.device_id;
}

}  // namespace

ArenaOptions ArenaOptionsFromArenaConfig(const std::map<std::string, std::string>& config) {
  ArenaOptions options;
  for (const auto& [key, text] : config) {
    const int64_t value = ParseArenaValue(key, text);
    if (key == "max_mem") {
      // onnxruntime: 0 or -1 mean no limit of the caller's choosing.
      options.max_bytes = value <= 0 ? 0 : static_cast<size_t>(value);
    } else if (key == "arena_extend_strategy") {
      PRISM_ENFORCE(value >= -1 && value <= 1, kInvalidArgument,
                    "arena config 'arena_extend_strategy' must be 0 (kNextPowerOfTwo), 1 "
                    "(kSameAsRequested) or -1 (the default), got ",
                    value);
      options.extend_strategy =
          value == 1 ? ArenaExtendStrategy::kSameAsRequested : ArenaExtendStrategy::kNextPowerOfTwo;
    } else if (key == "initial_chunk_size_bytes") {
      if (value > 0) options.initial_region_bytes = static_cast<size_t>(value);
    } else if (key == "max_dead_bytes_per_chunk" || key == "initial_growth_chunk_size_bytes" ||
               key == "max_power_of_two_extend_bytes") {
      // onnxruntime's BFC arena tunes chunk splitting and growth with these; Prism's arena splits
      // every free block and grows by its strategy alone, so a set value would be ignored.
      PRISM_ENFORCE(value == -1, kInvalidArgument, "arena config '", key,
                    "' is not supported by Prism's arena (it has no such setting); leave it at "
                    "-1, got ",
                    value);
    } else {
      PRISM_THROW(kInvalidArgument, "unknown arena config key '", key,
                  "'; known: max_mem, arena_extend_strategy, initial_chunk_size_bytes, "
                  "max_dead_bytes_per_chunk, initial_growth_chunk_size_bytes, "
                  "max_power_of_two_extend_bytes");
    }
  }
  return options;
}

void EnvironmentAllocators::Add(const MemoryInfo& memory, Entry entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& existing : entries_)
    PRISM_ENFORCE(!SameSpaceIgnoringType(existing.allocator->Info(), memory), kInvalidArgument,
                  "an allocator for memory ", memory.ToString(),
                  " is already registered with this environment; unregister it first");
  entries_.push_back(std::move(entry));
}

void EnvironmentAllocators::RegisterCpu(const MemoryInfo& memory, bool arena,
                                        const std::map<std::string, std::string>& arena_config) {
  PRISM_ENFORCE(memory.IsCpuAccessible(), kInvalidArgument, "memory ", memory.ToString(),
                " is not CPU memory: register a device allocator through its execution provider "
                "(CreateAndRegisterAllocatorV2)");
  const ArenaOptions options = ArenaOptionsFromArenaConfig(arena_config);
  PRISM_ENFORCE(arena || arena_config.empty(), kInvalidArgument,
                "an arena config was given for a device (non-arena) allocator of memory ",
                memory.ToString());
  Entry entry;
  if (arena)
    entry.allocator = std::make_shared<ArenaAllocator>(GetCpuAllocator(), options);
  else
    entry.allocator = std::make_shared<CountingAllocator>(GetCpuAllocator());
  Add(memory, std::move(entry));
}

void EnvironmentAllocators::RegisterFromProvider(
    const IExecutionProviderFactory& factory, const ProviderOptions& options,
    const MemoryInfo& memory, bool arena, const std::map<std::string, std::string>& arena_config) {
  if (factory.Name() == kCpuExecutionProvider) {
    PRISM_ENFORCE(options.empty(), kInvalidArgument,
                  "CPUExecutionProvider takes no provider options for a shared allocator");
    RegisterCpu(memory, arena, arena_config);
    return;
  }
  std::string why;
  PRISM_ENFORCE(factory.IsAvailable(&why), kInvalidArgument, factory.Name(),
                " cannot provide an allocator here: ", why);
  Entry entry;
  entry.provider = factory.Create(options);
  const AllocatorPtr device = entry.provider->GetAllocator(MemType::kDefault);
  PRISM_ENFORCE(device != nullptr && SameSpaceIgnoringType(device->Info(), memory),
                kInvalidArgument, factory.Name(), " allocates memory ",
                device ? device->Info().ToString() : std::string("(none)"), ", not ",
                memory.ToString(), " (set its device_id provider option to choose the device)");
  // A device EP brings its own pooling; Prism's arena is for CPU-accessible memory.
  PRISM_ENFORCE(!arena && arena_config.empty(), kInvalidArgument, "an arena for device memory ",
                memory.ToString(), " is not supported: ", factory.Name(),
                "'s allocator does its own pooling; register it as a device "
                "allocator without an arena config");
  entry.allocator = std::make_shared<CountingAllocator>(device);
  entry.transfer = entry.provider->GetDataTransfer();
  Add(memory, std::move(entry));
}

bool EnvironmentAllocators::Unregister(const MemoryInfo& memory) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& entry) {
    return SameSpaceIgnoringType(entry.allocator->Info(), memory);
  });
  if (it == entries_.end()) return false;
  entries_.erase(it);  // tensors allocated from it keep it alive through their shared_ptr
  return true;
}

AllocatorPtr EnvironmentAllocators::Find(const MemoryInfo& memory) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& entry : entries_)
    if (SameSpaceIgnoringType(entry.allocator->Info(), memory)) return entry.allocator;
  return nullptr;
}

std::vector<AllocatorPtr> EnvironmentAllocators::All() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<AllocatorPtr> all;
  for (const Entry& entry : entries_) all.push_back(entry.allocator);
  return all;
}

void EnvironmentAllocators::CopyTensors(const std::vector<const Tensor*>& sources,
                                        const std::vector<Tensor*>& destinations) const {
  PRISM_ENFORCE(sources.size() == destinations.size(), kInvalidArgument, "CopyTensors got ",
                sources.size(), " sources and ", destinations.size(), " destinations");
  static const CpuDataTransfer cpu_copy;
  std::vector<const IDataTransfer*> copiers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < sources.size(); ++i) {
      const Tensor& source = *sources[i];
      const Tensor& destination = *destinations[i];
      PRISM_ENFORCE(source.Type() == destination.Type(), kInvalidArgument, "CopyTensors pair ", i,
                    ": source is ", ElementTypeName(source.Type()), ", destination is ",
                    ElementTypeName(destination.Type()));
      PRISM_ENFORCE(source.Shape() == destination.Shape(), kInvalidArgument, "CopyTensors pair ", i,
                    ": source shape ", source.Shape().ToString(), ", destination shape ",
                    destination.Shape().ToString());
      const IDataTransfer* copier = nullptr;
      if (cpu_copy.CanCopy(source.Location(), destination.Location())) copier = &cpu_copy;
      for (const Entry& entry : entries_)
        if (copier == nullptr && entry.transfer &&
            entry.transfer->CanCopy(source.Location(), destination.Location()))
          copier = entry.transfer.get();
      PRISM_ENFORCE(copier != nullptr, kInvalidArgument, "CopyTensors pair ", i,
                    ": no copy from memory ", source.Location().ToString(), " to ",
                    destination.Location().ToString(),
                    " is known to this environment; register the device's allocator with "
                    "CreateAndRegisterAllocatorV2 first");
      copiers.push_back(copier);
    }
  }
  for (size_t i = 0; i < sources.size(); ++i) copiers[i]->CopyTensor(*sources[i], *destinations[i]);
}

}  // namespace prism
