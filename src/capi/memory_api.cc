// Memory descriptions and allocators.
#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

namespace {

// type: the PrismAllocatorType argument read with EnumArgument (passing the enum by value to a
// helper would read it as the enum again).
void CheckAllocatorType(int type) {
  // Both describe the same memory; the kind matters where an allocator is created for it
  // (CreateAndRegisterAllocator makes an arena for PRISM_ARENA_ALLOCATOR).
  PRISM_ENFORCE(type == PRISM_DEVICE_ALLOCATOR || type == PRISM_ARENA_ALLOCATOR, kInvalidArgument,
                "allocator type must be PRISM_DEVICE_ALLOCATOR (0) or ",
                "PRISM_ARENA_ALLOCATOR (1), got ", type);
}

}  // namespace

PrismStatus* CreateCpuMemoryInfo(PrismAllocatorType allocator_type, PrismMemType mem_type,
                                 PrismMemoryInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    CheckAllocatorType(EnumArgument(allocator_type));
    auto info = std::make_unique<PrismMemoryInfo>();
    info->info = CpuMemoryInfo();
    info->info.mem_type = CheckedMemType(EnumArgument(mem_type));
    info->allocator_type = allocator_type;
    *out = info.release();
  });
}

PrismStatus* CreateMemoryInfo(const char* name, PrismAllocatorType allocator_type, int device_id,
                              PrismMemType mem_type, PrismMemoryInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(name, "name");
    Require(out, "out");
    CheckAllocatorType(EnumArgument(allocator_type));
    PRISM_ENFORCE(device_id >= 0, kInvalidArgument, "device_id must be >= 0, got ", device_id);
    auto info = std::make_unique<PrismMemoryInfo>();
    info->info.name = name;
    info->info.device = DeviceOfMemoryName(name);
    info->info.device_id = device_id;
    info->info.mem_type = CheckedMemType(EnumArgument(mem_type));
    info->allocator_type = allocator_type;
    *out = info.release();
  });
}

void ReleaseMemoryInfo(PrismMemoryInfo* info) noexcept {
  delete info;
}

PrismStatus* MemoryInfoGetName(const PrismMemoryInfo* info, const char** out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = info->info.name.c_str();
  });
}

PrismStatus* MemoryInfoGetId(const PrismMemoryInfo* info, int* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = info->info.device_id;
  });
}

PrismStatus* MemoryInfoGetMemType(const PrismMemoryInfo* info, PrismMemType* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = static_cast<PrismMemType>(info->info.mem_type);
  });
}

PrismStatus* MemoryInfoGetDeviceType(const PrismMemoryInfo* info, PrismDeviceType* out) noexcept {
  return Guard(__func__, [&] {
    Require(info, "info");
    *Require(out, "out") = static_cast<PrismDeviceType>(info->info.device);
  });
}

PrismStatus* GetAllocatorWithDefaultOptions(PrismAllocator** out) noexcept {
  return Guard(__func__, [&] {
    Require(out, "out");
    static PrismAllocator* cpu = [] {
      auto* allocator = new PrismAllocator();  // lives for the process, like the CPU allocator
      allocator->allocator = GetCpuAllocator();
      allocator->info.info = allocator->allocator->Info();
      allocator->is_static = true;
      return allocator;
    }();
    *out = cpu;
  });
}

PrismStatus* CreateAllocator(const PrismSession* session, const PrismMemoryInfo* info,
                             PrismAllocator** out) noexcept {
  return Guard(__func__, [&] {
    Require(session, "session");
    Require(info, "info");
    Require(out, "out");
    AllocatorPtr allocator = session->session->AllocatorFor(info->info);
    PRISM_ENFORCE(
        allocator != nullptr, kInvalidArgument, "no execution provider of the session (",
        [&] {
          std::string names;
          for (const std::string& name : session->session->Providers())
            names += (names.empty() ? "" : ", ") + name;
          return names;
        }(),
        ") owns ", info->info.ToString(), " memory");
    auto result = std::make_unique<PrismAllocator>();
    result->info.info = allocator->Info();
    result->allocator = std::move(allocator);
    *out = result.release();
  });
}

void ReleaseAllocator(PrismAllocator* allocator) noexcept {
  if (allocator != nullptr && !allocator->is_static) delete allocator;
}

PrismStatus* AllocatorAlloc(PrismAllocator* allocator, size_t size, void** out) noexcept {
  return Guard(__func__, [&] {
    Require(allocator, "allocator");
    void** target = Require(out, "out");  // before allocating: NULL leaks nothing
    *target = allocator->allocator->Alloc(size);
  });
}

PrismStatus* AllocatorFree(PrismAllocator* allocator, void* pointer) noexcept {
  return Guard(__func__, [&] {
    Require(allocator, "allocator");
    allocator->allocator->Free(pointer);
  });
}

PrismStatus* AllocatorGetInfo(const PrismAllocator* allocator,
                              const PrismMemoryInfo** out) noexcept {
  return Guard(__func__, [&] {
    Require(allocator, "allocator");
    *Require(out, "out") = &allocator->info;
  });
}

}  // namespace prism::capi
