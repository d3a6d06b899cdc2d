// Compile-time proof that the C ABI keeps its frozen layout: every PrismApi member sits at the
// offset recorded in abi_offsets_v<N>.inc, PrismApiBase never changes, and the C enums keep the
// numbers of the core's enums they are converted to with static_cast.
#include <cstddef>

#include "common/logging.h"
#include "common/status.h"
#include "framework/custom_op.h"
#include "framework/element_type.h"
#include "framework/memory_info.h"
#include "framework/value.h"
#include "prism/prism_c_api.h"
#include "session/session_options.h"

namespace prism::capi {

namespace {

// Offsets are recorded for LP64 (8-byte function pointers); scaling keeps the check exact there
// and meaningful on other data models.
constexpr size_t kRecordedPointerSize = 8;
constexpr size_t Scaled(size_t recorded) {
  return recorded / kRecordedPointerSize * sizeof(void (*)());
}

#define PRISM_ABI_OFFSET(member, offset)                      \
  static_assert(offsetof(PrismApi, member) == Scaled(offset), \
                "PrismApi::" #member " moved: a released member keeps its offset forever");
#define PRISM_ABI_SIZE(version, bytes)             \
  static_assert(sizeof(PrismApi) >= Scaled(bytes), \
                "PrismApi is smaller than "        \
                "its version " #version " size");  \
  constexpr size_t kRecordedSizeV##version = Scaled(bytes);
#include "capi/abi_offsets_v1.inc"
#include "capi/abi_offsets_v2.inc"
#include "capi/abi_offsets_v3.inc"
#include "capi/abi_offsets_v4.inc"
#include "capi/abi_offsets_v5.inc"
#include "capi/abi_offsets_v6.inc"
#include "capi/abi_offsets_v7.inc"
#include "capi/abi_offsets_v8.inc"
#include "capi/abi_offsets_v9.inc"
#undef PRISM_ABI_OFFSET
#undef PRISM_ABI_SIZE

// Bumping PRISM_API_VERSION means recording the new members in abi_offsets_v<N>.inc, including
// it above, and checking the table size against that version here.
static_assert(PRISM_API_VERSION == 9, "record the new version's members in abi_offsets_v<N>.inc");
static_assert(sizeof(PrismApi) == kRecordedSizeV9,
              "PrismApi has members that no abi_offsets_v<N>.inc records");

static_assert(offsetof(PrismApiBase, GetApi) == 0, "PrismApiBase is frozen");

// The structs version 9 passes by address are frozen too (LP64 layout; bindings mirror it).
static_assert(sizeof(void*) != 8 || (offsetof(PrismTensorBuffer, rank) == 8 &&
                                     offsetof(PrismTensorBuffer, dims) == 16 &&
                                     offsetof(PrismTensorBuffer, data) == 24 &&
                                     offsetof(PrismTensorBuffer, size_in_bytes) == 32 &&
                                     sizeof(PrismTensorBuffer) == 40),
              "PrismTensorBuffer is frozen");
static_assert(sizeof(void*) != 8 || (offsetof(PrismValueDescription, kind) == 4 &&
                                     offsetof(PrismValueDescription, element_type) == 8 &&
                                     offsetof(PrismValueDescription, device_type) == 12 &&
                                     offsetof(PrismValueDescription, rank) == 16 &&
                                     offsetof(PrismValueDescription, dims_offset) == 24 &&
                                     offsetof(PrismValueDescription, size_in_bytes) == 32 &&
                                     offsetof(PrismValueDescription, data) == 40 &&
                                     offsetof(PrismValueDescription, sole_owner) == 48 &&
                                     sizeof(PrismValueDescription) == 56),
              "PrismValueDescription is frozen");
static_assert(offsetof(PrismApiBase, GetVersionString) == sizeof(void (*)()),
              "PrismApiBase is frozen");
static_assert(sizeof(PrismApiBase) == 2 * sizeof(void (*)()), "PrismApiBase is frozen");

#define PRISM_SAME_ENUM(c_value, core_value) \
  static_assert(static_cast<int>(c_value) == static_cast<int>(core_value), #c_value)

PRISM_SAME_ENUM(PRISM_OK, StatusCode::kOk);
PRISM_SAME_ENUM(PRISM_FAIL, StatusCode::kFail);
PRISM_SAME_ENUM(PRISM_INVALID_ARGUMENT, StatusCode::kInvalidArgument);
PRISM_SAME_ENUM(PRISM_NO_SUCHFILE, StatusCode::kNoSuchFile);
PRISM_SAME_ENUM(PRISM_NO_MODEL, StatusCode::kNoModel);
PRISM_SAME_ENUM(PRISM_ENGINE_ERROR, StatusCode::kEngineError);
PRISM_SAME_ENUM(PRISM_RUNTIME_EXCEPTION, StatusCode::kRuntimeException);
PRISM_SAME_ENUM(PRISM_INVALID_PROTOBUF, StatusCode::kInvalidProtobuf);
PRISM_SAME_ENUM(PRISM_MODEL_LOADED, StatusCode::kModelLoaded);
PRISM_SAME_ENUM(PRISM_NOT_IMPLEMENTED, StatusCode::kNotImplemented);
PRISM_SAME_ENUM(PRISM_INVALID_GRAPH, StatusCode::kInvalidGraph);
PRISM_SAME_ENUM(PRISM_EP_FAIL, StatusCode::kEpFail);

PRISM_SAME_ENUM(PRISM_TYPE_UNDEFINED, ElementType::kUndefined);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT, ElementType::kFloat);
PRISM_SAME_ENUM(PRISM_TYPE_UINT8, ElementType::kUint8);
PRISM_SAME_ENUM(PRISM_TYPE_INT8, ElementType::kInt8);
PRISM_SAME_ENUM(PRISM_TYPE_UINT16, ElementType::kUint16);
PRISM_SAME_ENUM(PRISM_TYPE_INT16, ElementType::kInt16);
PRISM_SAME_ENUM(PRISM_TYPE_INT32, ElementType::kInt32);
PRISM_SAME_ENUM(PRISM_TYPE_INT64, ElementType::kInt64);
PRISM_SAME_ENUM(PRISM_TYPE_STRING, ElementType::kString);
PRISM_SAME_ENUM(PRISM_TYPE_BOOL, ElementType::kBool);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT16, ElementType::kFloat16);
PRISM_SAME_ENUM(PRISM_TYPE_DOUBLE, ElementType::kDouble);
PRISM_SAME_ENUM(PRISM_TYPE_UINT32, ElementType::kUint32);
PRISM_SAME_ENUM(PRISM_TYPE_UINT64, ElementType::kUint64);
PRISM_SAME_ENUM(PRISM_TYPE_COMPLEX64, ElementType::kComplex64);
PRISM_SAME_ENUM(PRISM_TYPE_COMPLEX128, ElementType::kComplex128);
PRISM_SAME_ENUM(PRISM_TYPE_BFLOAT16, ElementType::kBFloat16);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT8E4M3FN, ElementType::kFloat8E4M3FN);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT8E4M3FNUZ, ElementType::kFloat8E4M3FNUZ);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT8E5M2, ElementType::kFloat8E5M2);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT8E5M2FNUZ, ElementType::kFloat8E5M2FNUZ);
PRISM_SAME_ENUM(PRISM_TYPE_UINT4, ElementType::kUint4);
PRISM_SAME_ENUM(PRISM_TYPE_INT4, ElementType::kInt4);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT4E2M1, ElementType::kFloat4E2M1);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT8E8M0, ElementType::kFloat8E8M0);
PRISM_SAME_ENUM(PRISM_TYPE_UINT2, ElementType::kUint2);
PRISM_SAME_ENUM(PRISM_TYPE_INT2, ElementType::kInt2);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT6E2M3, ElementType::kFloat6E2M3);
PRISM_SAME_ENUM(PRISM_TYPE_FLOAT6E3M2, ElementType::kFloat6E3M2);
static_assert(PRISM_TYPE_FLOAT6E3M2 == kMaxElementType,
              "a new element type needs a PrismElementType");

PRISM_SAME_ENUM(PRISM_VALUE_UNKNOWN, TypeKind::kUnknown);
PRISM_SAME_ENUM(PRISM_VALUE_TENSOR, TypeKind::kTensor);
PRISM_SAME_ENUM(PRISM_VALUE_SEQUENCE, TypeKind::kSequence);
PRISM_SAME_ENUM(PRISM_VALUE_OPTIONAL, TypeKind::kOptional);
PRISM_SAME_ENUM(PRISM_VALUE_MAP, TypeKind::kMap);
PRISM_SAME_ENUM(PRISM_VALUE_SPARSE_TENSOR, TypeKind::kSparseTensor);

PRISM_SAME_ENUM(PRISM_LOGGING_VERBOSE, Severity::kVerbose);
PRISM_SAME_ENUM(PRISM_LOGGING_INFO, Severity::kInfo);
PRISM_SAME_ENUM(PRISM_LOGGING_WARNING, Severity::kWarning);
PRISM_SAME_ENUM(PRISM_LOGGING_ERROR, Severity::kError);
PRISM_SAME_ENUM(PRISM_LOGGING_FATAL, Severity::kFatal);

PRISM_SAME_ENUM(PRISM_DISABLE_ALL, GraphOptimizationLevel::kDisableAll);
PRISM_SAME_ENUM(PRISM_ENABLE_BASIC, GraphOptimizationLevel::kBasic);
PRISM_SAME_ENUM(PRISM_ENABLE_EXTENDED, GraphOptimizationLevel::kExtended);
PRISM_SAME_ENUM(PRISM_ENABLE_LAYOUT, GraphOptimizationLevel::kLayout);
PRISM_SAME_ENUM(PRISM_ENABLE_ALL, GraphOptimizationLevel::kAll);
PRISM_SAME_ENUM(PRISM_SEQUENTIAL, ExecutionMode::kSequential);
PRISM_SAME_ENUM(PRISM_PARALLEL, ExecutionMode::kParallel);

PRISM_SAME_ENUM(PRISM_MEM_CPU_INPUT, MemType::kCpuInput);
PRISM_SAME_ENUM(PRISM_MEM_CPU_OUTPUT, MemType::kCpuOutput);
PRISM_SAME_ENUM(PRISM_MEM_DEFAULT, MemType::kDefault);
PRISM_SAME_ENUM(PRISM_DEVICE_CPU, DeviceType::kCpu);
PRISM_SAME_ENUM(PRISM_DEVICE_GPU, DeviceType::kGpu);
PRISM_SAME_ENUM(PRISM_DEVICE_FPGA, DeviceType::kFpga);
PRISM_SAME_ENUM(PRISM_DEVICE_NPU, DeviceType::kNpu);
PRISM_SAME_ENUM(PRISM_DEVICE_SIMULATED, DeviceType::kSimulated);

PRISM_SAME_ENUM(PRISM_INPUT_OUTPUT_REQUIRED, CustomOpArgKind::kRequired);
PRISM_SAME_ENUM(PRISM_INPUT_OUTPUT_OPTIONAL, CustomOpArgKind::kOptional);
PRISM_SAME_ENUM(PRISM_INPUT_OUTPUT_VARIADIC, CustomOpArgKind::kVariadic);

#undef PRISM_SAME_ENUM

}  // namespace

}  // namespace prism::capi
