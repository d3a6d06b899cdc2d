#include "framework/allocator.h"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include "common/status.h"

namespace prism {

void* CpuAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  constexpr size_t kAlignment = 64;
  // No object may be larger than PTRDIFF_MAX; such a request (a size computed from hostile
  // values, or passed through the C API) fails here instead of reaching the system allocator.
  PRISM_ENFORCE(bytes <= static_cast<size_t>(PTRDIFF_MAX) - kAlignment, kRuntimeException,
                "an allocation of ", bytes, " bytes exceeds the largest object size");
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* pointer = std::aligned_alloc(kAlignment, rounded);
  PRISM_ENFORCE(pointer != nullptr, kRuntimeException, "failed to allocate ", bytes,
                " bytes of CPU memory");
  return pointer;
}

void CpuAllocator::Free(void* pointer) {
  std::free(pointer);
}

size_t ParseByteCountEntry(const std::string& key, const std::string& text) {
  size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  PRISM_ENFORCE(used == text.size() && !text.empty() && text[0] >= '0' && text[0] <= '9',
                kInvalidArgument, "session config entry ", key, " must be a byte count, got '",
                text, "'");
  return static_cast<size_t>(value);
}

AllocationLimits AllocationLimitsFromConfig(const std::map<std::string, std::string>& config) {
  AllocationLimits limits;
  if (auto it = config.find("session.max_tensor_bytes"); it != config.end())
    limits.max_tensor_bytes = ParseByteCountEntry(it->first, it->second);
  if (auto it = config.find("session.max_memory_bytes"); it != config.end())
    limits.max_memory_bytes = ParseByteCountEntry(it->first, it->second);
  return limits;
}

void CheckTensorBytesLimit(const AllocationLimits& limits, size_t bytes, const MemoryInfo& memory) {
  PRISM_ENFORCE(limits.max_tensor_bytes == 0 || bytes <= limits.max_tensor_bytes, kRuntimeException,
                "an allocation of ", bytes, " bytes in ", memory.ToString(),
                " memory exceeds the session's limit of ", limits.max_tensor_bytes,
                " bytes per tensor (session.max_tensor_bytes)");
}

AllocatorPtr GetCpuAllocator() {
  static AllocatorPtr allocator = std::make_shared<CpuAllocator>();
  return allocator;
}

}  // namespace prism
