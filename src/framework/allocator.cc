#include "framework/allocator.h"

#include <cstdlib>
#include <new>

#include "common/status.h"

namespace prism {

void* CpuAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  constexpr size_t kAlignment = 64;
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  PRISM_ENFORCE(rounded >= bytes, kRuntimeException, "allocation of ", bytes, " bytes overflows");
  void* pointer = std::aligned_alloc(kAlignment, rounded);
  PRISM_ENFORCE(pointer != nullptr, kRuntimeException, "failed to allocate ", bytes,
                " bytes of CPU memory");
  return pointer;
}

void CpuAllocator::Free(void* pointer) {
  std::free(pointer);
}

AllocatorPtr GetCpuAllocator() {
  static AllocatorPtr allocator = std::make_shared<CpuAllocator>();
  return allocator;
}

}  // namespace prism
