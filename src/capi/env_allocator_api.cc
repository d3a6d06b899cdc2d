// Allocators an environment shares with its sessions, device tensors outside a session, and
// copies between memory spaces (onnxruntime's CreateAndRegisterAllocator(V2),
// UnregisterAllocator, GetSharedAllocator, CopyTensors).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"
#include "session/provider_library.h"

namespace prism::capi {

namespace {

// count key/value pairs [in, borrowed] as a map; what names the pairs in errors.
std::map<std::string, std::string> ReadPairs(const char* const* keys, const char* const* values,
                                             size_t count, const char* what, const char* keys_name,
                                             const char* values_name) {
  std::map<std::string, std::string> pairs;
  if (count == 0) return pairs;
  Require(keys, keys_name);
  Require(values, values_name);
  for (size_t i = 0; i < count; ++i) {
    PRISM_ENFORCE(keys[i] != nullptr && values[i] != nullptr, kInvalidArgument, what, " entry ", i,
                  " has a NULL ", keys[i] == nullptr ? "key" : "value");
    pairs[keys[i]] = values[i];
  }
  return pairs;
}

bool WantsArena(const PrismMemoryInfo& info) {
  return info.allocator_type == PRISM_ARENA_ALLOCATOR;
}

}  // namespace

PrismStatus* CreateAndRegisterAllocator(PrismEnv* env, const PrismMemoryInfo* info,
                                        const char* const* arena_keys,
                                        const char* const* arena_values,
                                        size_t arena_count) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(info, "info");
    const auto arena_config = ReadPairs(arena_keys, arena_values, arena_count, "arena config",
                                        "arena_keys", "arena_values");
    env->allocators->RegisterCpu(info->info, WantsArena(*info), arena_config);
  });
}

PrismStatus* CreateAndRegisterAllocatorV2(PrismEnv* env, const char* provider_type,
                                          const PrismMemoryInfo* info,
                                          const char* const* arena_keys,
                                          const char* const* arena_values, size_t arena_count,
                                          const char* const* provider_option_keys,
                                          const char* const* provider_option_values,
                                          size_t provider_option_count) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(provider_type, "provider_type");
    Require(info, "info");
    const auto arena_config = ReadPairs(arena_keys, arena_values, arena_count, "arena config",
                                        "arena_keys", "arena_values");
    const auto provider_options =
        ReadPairs(provider_option_keys, provider_option_values, provider_option_count,
                  "provider option", "provider_option_keys", "provider_option_values");
    std::string why;
    const auto factory = FindProviderFactory(provider_type, "", &why);
    PRISM_ENFORCE(factory != nullptr, kInvalidArgument, "execution provider '", provider_type,
                  "' cannot provide a shared allocator: ", why);
    env->allocators->RegisterFromProvider(*factory, provider_options, info->info, WantsArena(*info),
                                          arena_config);
  });
}

PrismStatus* UnregisterAllocator(PrismEnv* env, const PrismMemoryInfo* info) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(info, "info");
    PRISM_ENFORCE(env->allocators->Unregister(info->info), kInvalidArgument,
                  "no allocator for memory ", info->info.ToString(),
                  " is registered with this environment");
  });
}

PrismStatus* GetSharedAllocator(PrismEnv* env, const PrismMemoryInfo* info,
                                PrismAllocator** out) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    Require(info, "info");
    PrismAllocator** target = Require(out, "out");
    *target = nullptr;
    AllocatorPtr shared = env->allocators->Find(info->info);
    if (shared == nullptr) return;
    auto result = std::make_unique<PrismAllocator>();
    result->info.info = shared->Info();
    result->allocator = std::move(shared);
    *target = result.release();
  });
}

PrismStatus* AllocatorGetStats(const PrismAllocator* allocator, char*** keys, char*** values,
                               size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(allocator, "allocator");
    Require(keys, "keys");
    Require(values, "values");
    Require(count, "count");
    AllocatorStats stats;
    PRISM_ENFORCE(allocator->allocator->GetStats(&stats), kInvalidArgument, "the allocator of ",
                  allocator->info.info.ToString(),
                  " memory keeps no statistics (the process CPU allocator does not: use a "
                  "session's or an environment's allocator)");
    CopyNamedCounts(AllocatorStatsEntries(stats), keys, values, count);
  });
}

PrismStatus* CopyTensors(const PrismEnv* env, const PrismValue* const* sources,
                         PrismValue* const* destinations, size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    if (count == 0) return;
    Require(sources, "sources");
    Require(destinations, "destinations");
    std::vector<const Tensor*> from;
    std::vector<Tensor*> to;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(sources[i] != nullptr && destinations[i] != nullptr, kInvalidArgument,
                    "CopyTensors pair ", i, " has a NULL ",
                    sources[i] == nullptr ? "source" : "destination");
      PRISM_ENFORCE(sources[i]->value.IsTensor() && destinations[i]->value.IsTensor(),
                    kInvalidArgument, "CopyTensors pair ", i, ": both values must be tensors");
      PRISM_ENFORCE(sources[i] != destinations[i], kInvalidArgument, "CopyTensors pair ", i,
                    ": source and destination are the same value");
      from.push_back(&sources[i]->value.GetTensor());
      to.push_back(&destinations[i]->value.MutableTensor());
    }
    env->allocators->CopyTensors(from, to);
  });
}

}  // namespace prism::capi
