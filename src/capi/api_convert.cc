#include "capi/api_convert.h"

#include <cstring>

namespace prism::capi {

namespace {

struct MemoryName {
  const char* name;
  DeviceType device;
};

// Memory names of the built-in and plugin EPs, with onnxruntime's spelling where one exists.
// Pinned host memory is CPU-accessible, so it counts as CPU memory.
constexpr MemoryName kMemoryNames[] = {
    {"Cpu", DeviceType::kCpu},
    {"CudaPinned", DeviceType::kCpu},
    {"Cuda", DeviceType::kGpu},
    {"TestDevice", DeviceType::kSimulated},
};

}  // namespace

Severity CheckedSeverity(int level, const char* what) {
  PRISM_ENFORCE(level >= PRISM_LOGGING_VERBOSE && level <= PRISM_LOGGING_FATAL, kInvalidArgument,
                what, " must be between 0 (verbose) and 4 (fatal), got ", level);
  return static_cast<Severity>(level);
}

ElementType CheckedElementType(int type) {
  PRISM_ENFORCE(type > PRISM_TYPE_UNDEFINED && type <= kMaxElementType, kInvalidArgument,
                "element type ", type, " is not a tensor element type (1..", kMaxElementType, ")");
  return static_cast<ElementType>(type);
}

MemType CheckedMemType(int mem_type) {
  PRISM_ENFORCE(mem_type >= PRISM_MEM_CPU_INPUT && mem_type <= PRISM_MEM_DEFAULT, kInvalidArgument,
                "memory type ", mem_type,
                " is not one of PRISM_MEM_CPU_INPUT, PRISM_MEM_CPU_OUTPUT, PRISM_MEM_DEFAULT");
  return static_cast<MemType>(mem_type);
}

DeviceType DeviceOfMemoryName(const std::string& name) {
  std::string known;
  for (const MemoryName& entry : kMemoryNames) {
    if (name == entry.name) return entry.device;
    known += MakeString(known.empty() ? "'" : ", '", entry.name, "'");
  }
  PRISM_THROW(kInvalidArgument, "unknown memory name '", name, "': known names are ", known);
}

PrismValueKind ToValueKind(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTensor:
      return PRISM_VALUE_TENSOR;
    case TypeKind::kSequence:
      return PRISM_VALUE_SEQUENCE;
    case TypeKind::kOptional:
      return PRISM_VALUE_OPTIONAL;
    case TypeKind::kMap:
      return PRISM_VALUE_MAP;
    case TypeKind::kSparseTensor:
      return PRISM_VALUE_SPARSE_TENSOR;
    case TypeKind::kUnknown:
      return PRISM_VALUE_UNKNOWN;
  }
  return PRISM_VALUE_UNKNOWN;
}

std::vector<std::pair<std::string, int64_t>> AllocatorStatsEntries(const AllocatorStats& stats) {
  return {{"NumAllocs", stats.num_allocs},
          {"NumFrees", stats.num_frees},
          {"InUse", stats.bytes_in_use},
          {"MaxInUse", stats.max_bytes_in_use},
          {"MaxAllocSize", stats.max_alloc_size},
          {"NumReserves", stats.num_reserves},
          {"TotalAllocated", stats.total_reserved_bytes},
          {"NumArenaExtensions", stats.num_arena_extensions},
          {"NumArenaShrinkages", stats.num_arena_shrinkages}};
}

}  // namespace prism::capi
