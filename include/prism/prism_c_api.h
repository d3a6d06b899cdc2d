/*
 * Prism C API: the stable ABI of libprism.so (C99).
 *
 * libprism.so exports exactly one symbol, PrismGetApiBase(). It returns a frozen struct of two
 * functions: GetApi(version) returns the function table for any supported version (NULL
 * otherwise), GetVersionString() the library's version.
 *
 * ABI rules (enforced by compile-time offset checks against src/capi/abi_offsets_v*.inc):
 *   - PrismApi is append-only. A released member never moves, changes signature or disappears.
 *   - New functions are added at the end, under a new PRISM_API_VERSION.
 *   - Enum values are never renumbered.
 *
 * Errors: every function that can fail returns PrismStatus*: NULL on success, otherwise a status
 * the caller owns and frees with ReleaseStatus(). GetErrorCode/GetErrorMessage read it.
 *
 * Ownership is stated per function with these words:
 *   [out, owned]      the caller owns the result and releases it with the named Release* call.
 *   [out, borrowed]   the result belongs to the object it came from and stays valid while that
 *                     object lives (for sessions also across SessionSetProviders).
 *   [in, borrowed]    the library does not keep the argument beyond the call unless stated.
 * Release* functions accept NULL and do nothing.
 */
#ifndef PRISM_C_API_H_
#define PRISM_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PRISM_API_VERSION 9

#if defined(__GNUC__)
#define PRISM_EXPORT __attribute__((visibility("default")))
#else
#define PRISM_EXPORT
#endif

/* Values match onnxruntime's OrtErrorCode. */
typedef enum PrismErrorCode {
  PRISM_OK = 0,
  PRISM_FAIL = 1,
  PRISM_INVALID_ARGUMENT = 2,
  PRISM_NO_SUCHFILE = 3,
  PRISM_NO_MODEL = 4,
  PRISM_ENGINE_ERROR = 5,
  PRISM_RUNTIME_EXCEPTION = 6,
  PRISM_INVALID_PROTOBUF = 7,
  PRISM_MODEL_LOADED = 8,
  PRISM_NOT_IMPLEMENTED = 9,
  PRISM_INVALID_GRAPH = 10,
  PRISM_EP_FAIL = 11
} PrismErrorCode;

/* Values match ONNX's TensorProto.DataType. */
typedef enum PrismElementType {
  PRISM_TYPE_UNDEFINED = 0,
  PRISM_TYPE_FLOAT = 1,
  PRISM_TYPE_UINT8 = 2,
  PRISM_TYPE_INT8 = 3,
  PRISM_TYPE_UINT16 = 4,
  PRISM_TYPE_INT16 = 5,
  PRISM_TYPE_INT32 = 6,
  PRISM_TYPE_INT64 = 7,
  PRISM_TYPE_STRING = 8,
  PRISM_TYPE_BOOL = 9,
  PRISM_TYPE_FLOAT16 = 10,
  PRISM_TYPE_DOUBLE = 11,
  PRISM_TYPE_UINT32 = 12,
  PRISM_TYPE_UINT64 = 13,
  PRISM_TYPE_COMPLEX64 = 14,
  PRISM_TYPE_COMPLEX128 = 15,
  PRISM_TYPE_BFLOAT16 = 16,
  PRISM_TYPE_FLOAT8E4M3FN = 17,
  PRISM_TYPE_FLOAT8E4M3FNUZ = 18,
  PRISM_TYPE_FLOAT8E5M2 = 19,
  PRISM_TYPE_FLOAT8E5M2FNUZ = 20,
  PRISM_TYPE_UINT4 = 21,
  PRISM_TYPE_INT4 = 22,
  PRISM_TYPE_FLOAT4E2M1 = 23,
  PRISM_TYPE_FLOAT8E8M0 = 24,
  PRISM_TYPE_UINT2 = 25,
  PRISM_TYPE_INT2 = 26,
  PRISM_TYPE_FLOAT6E2M3 = 27,
  PRISM_TYPE_FLOAT6E3M2 = 28
} PrismElementType;

typedef enum PrismValueKind {
  PRISM_VALUE_UNKNOWN = 0,
  PRISM_VALUE_TENSOR = 1,
  PRISM_VALUE_SEQUENCE = 2,
  PRISM_VALUE_OPTIONAL = 3,
  PRISM_VALUE_MAP = 4,
  PRISM_VALUE_SPARSE_TENSOR = 5
} PrismValueKind;

typedef enum PrismLoggingLevel {
  PRISM_LOGGING_VERBOSE = 0,
  PRISM_LOGGING_INFO = 1,
  PRISM_LOGGING_WARNING = 2,
  PRISM_LOGGING_ERROR = 3,
  PRISM_LOGGING_FATAL = 4
} PrismLoggingLevel;

/* PRISM_ENABLE_LAYOUT (version 5, onnxruntime's ORT_ENABLE_LAYOUT) runs the basic, extended
   and layout transformers, as PRISM_ENABLE_ALL does. */
typedef enum PrismGraphOptimizationLevel {
  PRISM_DISABLE_ALL = 0,
  PRISM_ENABLE_BASIC = 1,
  PRISM_ENABLE_EXTENDED = 2,
  PRISM_ENABLE_LAYOUT = 3,
  PRISM_ENABLE_ALL = 99
} PrismGraphOptimizationLevel;

typedef enum PrismExecutionMode { PRISM_SEQUENTIAL = 0, PRISM_PARALLEL = 1 } PrismExecutionMode;

typedef enum PrismMemType {
  PRISM_MEM_CPU_INPUT = -2,
  PRISM_MEM_CPU_OUTPUT = -1,
  PRISM_MEM_DEFAULT = 0
} PrismMemType;

typedef enum PrismAllocatorType {
  PRISM_DEVICE_ALLOCATOR = 0,
  PRISM_ARENA_ALLOCATOR = 1
} PrismAllocatorType;

typedef enum PrismDeviceType {
  PRISM_DEVICE_CPU = 0,
  PRISM_DEVICE_GPU = 1,
  PRISM_DEVICE_FPGA = 2,
  PRISM_DEVICE_NPU = 3,
  PRISM_DEVICE_SIMULATED = 4
} PrismDeviceType;

typedef enum PrismReportFormat { PRISM_REPORT_TEXT = 0, PRISM_REPORT_DOT = 1 } PrismReportFormat;

typedef struct PrismStatus PrismStatus;
typedef struct PrismEnv PrismEnv;
typedef struct PrismSessionOptions PrismSessionOptions;
typedef struct PrismSession PrismSession;
typedef struct PrismRunOptions PrismRunOptions;
typedef struct PrismThreadingOptions PrismThreadingOptions;
typedef struct PrismValue PrismValue;
typedef struct PrismMemoryInfo PrismMemoryInfo;
typedef struct PrismAllocator PrismAllocator;
typedef struct PrismIoBinding PrismIoBinding;
typedef struct PrismTypeInfo PrismTypeInfo;
typedef struct PrismTensorTypeAndShapeInfo PrismTensorTypeAndShapeInfo;
typedef struct PrismModelMetadata PrismModelMetadata;
typedef struct PrismPrepackedWeightsContainer PrismPrepackedWeightsContainer;

/* Version 5: receives every log message while the env made by CreateEnvWithCustomLogger lives
   (onnxruntime's OrtLoggingFunction). category is "prism"; log_id names the session or run the
   message comes from ("" when none); code_location is "" (kept for onnxruntime's shape). All
   strings [in, borrowed] for the call. Called from any thread, one call at a time. */
typedef void (*PrismLoggingFunction)(void* param, PrismLoggingLevel severity, const char* category,
                                     const char* log_id, const char* code_location,
                                     const char* message);

/* Version 5: called once when a RunAsync run ends (onnxruntime's RunAsyncCallbackFn), on a
   thread of the library's async pool. On success outputs is the caller's array, filled with
   output_count values [out, owned] ReleaseValue, and status is NULL; on failure outputs is NULL,
   output_count 0 and status [out, owned] ReleaseStatus says why. */
typedef void (*PrismRunAsyncCallback)(void* user_data, PrismValue** outputs, size_t output_count,
                                      PrismStatus* status);

/* ---- custom operators (version 6; onnxruntime's OrtCustomOp) ----
   An application (or a library RegisterCustomOpsLibrary loads) describes each op with a
   PrismCustomOp, a table of callbacks in memory it keeps valid while any session options, domain
   or session using the op lives (static storage, typically). Ops are grouped in a domain
   (CreateCustomOpDomain, CustomOpDomainAdd) and the domain is added to session options
   (AddCustomOpDomain). Models import the domain (opset_import) and name it in their nodes. */
typedef struct PrismCustomOpDomain PrismCustomOpDomain;
/* A node's attributes and types while CreateKernel runs (KernelInfo* functions); borrowed. */
typedef struct PrismKernelInfo PrismKernelInfo;
/* A node's inputs, outputs and thread pool while KernelCompute runs (KernelContext* functions);
   borrowed. */
typedef struct PrismKernelContext PrismKernelContext;
/* onnxruntime's OrtCUDAProviderOptionsV2 (version 7). */
typedef struct PrismCUDAProviderOptions PrismCUDAProviderOptions;

/* How many node inputs (outputs) one declared input (output) stands for. */
typedef enum PrismCustomOpInputOutputCharacteristic {
  PRISM_INPUT_OUTPUT_REQUIRED = 0, /* exactly one, present */
  PRISM_INPUT_OUTPUT_OPTIONAL = 1, /* one the node may omit ("" or left off at the end) */
  PRISM_INPUT_OUTPUT_VARIADIC = 2  /* the last one only: min arity or more, all present */
} PrismCustomOpInputOutputCharacteristic;

/* Called by KernelContextParallelFor once for each index, on the session's intra-op threads. */
typedef void (*PrismParallelForFunction)(void* user_data, size_t index);

/* Version 9: a CPU tensor over caller memory, a feed of RunWithBuffers. data holds
   size_in_bytes bytes (at least the tensor's: packed for the 4-bit and 2-bit types) and is only
   read; dims holds rank dims (NULL allowed when rank is 0). Not for strings. */
typedef struct PrismTensorBuffer {
  PrismElementType element_type;
  size_t rank;
  const int64_t* dims;
  const void* data;
  size_t size_in_bytes;
} PrismTensorBuffer;

/* Version 9: what RunWithBuffers tells of a result: DescribeValue's out arguments in one
   struct. For an empty optional has_value is 0 and the rest 0/NULL. dims_offset: where the
   result's dims start in the call's dims array, or (size_t)-1 when they did not fit (read them
   with DescribeValue). sole_owner: 1 when the value alone holds its tensor's memory (no
   initializer, constant, feed or other result shares it), so that a binding may hand that
   memory to its caller for as long as it keeps the value; 0 otherwise (copy the data). */
typedef struct PrismValueDescription {
  int has_value;
  PrismValueKind kind;
  PrismElementType element_type;
  PrismDeviceType device_type;
  size_t rank;
  size_t dims_offset;
  size_t size_in_bytes;
  const void* data;
  int sole_owner;
} PrismValueDescription;

/* The PrismCustomOp members below; a later version appends members, and the library reads only
   those of the version an op declares. */
#define PRISM_CUSTOM_OP_VERSION 1

struct PrismApi;

typedef struct PrismCustomOp {
  uint32_t version; /* PRISM_CUSTOM_OP_VERSION the op was written for (1..) */

  /* Called once per node that the op's EP claimed, at session creation. *kernel receives the
     op's state for the node (may stay NULL), handed to KernelCompute and KernelDestroy. api is
     the library's table (PRISM_API_VERSION of the library: at least 6); info is valid during
     the call. NULL member: every kernel state is NULL. */
  PrismStatus* (*CreateKernel)(const struct PrismCustomOp* op, const struct PrismApi* api,
                               const PrismKernelInfo* info, void** kernel);
  /* The op type nodes use. Required. */
  const char* (*GetName)(const struct PrismCustomOp* op);
  /* The EP that runs the op (onnxruntime's spelling); NULL member or NULL result:
     "CPUExecutionProvider". The op's kernels get their inputs in that EP's memory. */
  const char* (*GetExecutionProviderType)(const struct PrismCustomOp* op);
  /* Declared inputs and outputs: their count, element type (PRISM_TYPE_UNDEFINED: any) and
     characteristic (NULL member: all required). Counts and types are required members. */
  size_t (*GetInputTypeCount)(const struct PrismCustomOp* op);
  PrismElementType (*GetInputType)(const struct PrismCustomOp* op, size_t index);
  size_t (*GetOutputTypeCount)(const struct PrismCustomOp* op);
  PrismElementType (*GetOutputType)(const struct PrismCustomOp* op, size_t index);
  PrismCustomOpInputOutputCharacteristic (*GetInputCharacteristic)(const struct PrismCustomOp* op,
                                                                   size_t index);
  PrismCustomOpInputOutputCharacteristic (*GetOutputCharacteristic)(const struct PrismCustomOp* op,
                                                                    size_t index);
  /* For a variadic last input (output): the fewest node inputs it takes (NULL member: 1) and
     whether they must share one element type (non-zero; NULL member: 1). */
  int (*GetVariadicInputMinArity)(const struct PrismCustomOp* op);
  int (*GetVariadicInputHomogeneity)(const struct PrismCustomOp* op);
  int (*GetVariadicOutputMinArity)(const struct PrismCustomOp* op);
  int (*GetVariadicOutputHomogeneity)(const struct PrismCustomOp* op);
  /* The opsets of the op's domain it covers, inclusive (NULL members: 1 and no end). */
  int (*GetSinceVersion)(const struct PrismCustomOp* op);
  int (*GetEndVersion)(const struct PrismCustomOp* op);
  /* Computes one node: reads inputs and allocates outputs through the context. NULL on
     success; an error status (CreateStatus, or one an API call returned) fails the run with its
     code and message, naming the node. May run on several threads at once (concurrent runs of a
     session). Required. */
  PrismStatus* (*KernelCompute)(void* kernel, PrismKernelContext* context);
  /* Frees a non-NULL kernel state when its session is released. NULL member: nothing to free. */
  void (*KernelDestroy)(void* kernel);
} PrismCustomOp;

/* The function table. Append only (see the rules at the top). */
typedef struct PrismApi {
  /* ==== version 1 ==== */

  /* --- status --- */
  PrismErrorCode (*GetErrorCode)(const PrismStatus* status);
  /* [out, borrowed] by status. */
  const char* (*GetErrorMessage)(const PrismStatus* status);
  void (*ReleaseStatus)(PrismStatus* status);

  /* --- strings the library allocates (reports, provider names) --- */
  void (*ReleaseString)(char* text);
  /* Releases an array of count strings and the array itself. */
  void (*ReleaseStringArray)(char** texts, size_t count);

  /* --- environment and logging --- */
  /* log_id [in, borrowed]; out [out, owned] ReleaseEnv. One process may hold several envs;
     logging_level sets the process-wide minimum severity. */
  PrismStatus* (*CreateEnv)(PrismLoggingLevel logging_level, const char* log_id, PrismEnv** out);
  void (*ReleaseEnv)(PrismEnv* env);
  PrismStatus* (*SetLogSeverityLevel)(PrismEnv* env, PrismLoggingLevel logging_level);
  /* Providers whose library loads and whose device exists, best first, CPU last.
     names [out, owned] ReleaseStringArray(names, count). */
  PrismStatus* (*GetAvailableProviders)(char*** names, size_t* count);

  /* --- session options --- */
  /* out [out, owned] ReleaseSessionOptions. */
  PrismStatus* (*CreateSessionOptions)(PrismSessionOptions** out);
  PrismStatus* (*CloneSessionOptions)(const PrismSessionOptions* options,
                                      PrismSessionOptions** out);
  void (*ReleaseSessionOptions)(PrismSessionOptions* options);
  PrismStatus* (*SetIntraOpNumThreads)(PrismSessionOptions* options, int threads);
  PrismStatus* (*SetInterOpNumThreads)(PrismSessionOptions* options, int threads);
  PrismStatus* (*SetGraphOptimizationLevel)(PrismSessionOptions* options,
                                            PrismGraphOptimizationLevel level);
  PrismStatus* (*SetExecutionMode)(PrismSessionOptions* options, PrismExecutionMode mode);
  /* path [in, borrowed] (copied). */
  PrismStatus* (*SetOptimizedModelFilePath)(PrismSessionOptions* options, const char* path);
  /* prefix [in, borrowed] (copied); profiling writes <prefix>_<timestamp>.json at
     SessionEndProfiling, or when the session is released. */
  PrismStatus* (*EnableProfiling)(PrismSessionOptions* options, const char* prefix);
  PrismStatus* (*DisableProfiling)(PrismSessionOptions* options);
  PrismStatus* (*SetSessionLogSeverityLevel)(PrismSessionOptions* options, int level);
  PrismStatus* (*SetSessionLogId)(PrismSessionOptions* options, const char* log_id);
  PrismStatus* (*EnableCpuMemArena)(PrismSessionOptions* options, int enable);
  PrismStatus* (*EnableMemPattern)(PrismSessionOptions* options, int enable);
  /* key, value [in, borrowed] (copied). onnxruntime's session config keys. */
  PrismStatus* (*AddSessionConfigEntry)(PrismSessionOptions* options, const char* key,
                                        const char* value);
  /* Appends an EP to the priority list by name (onnxruntime's spelling, e.g.
     "CUDAExecutionProvider") with count key/value options. All strings [in, borrowed] (copied). */
  PrismStatus* (*AppendExecutionProvider)(PrismSessionOptions* options, const char* name,
                                          const char* const* option_keys,
                                          const char* const* option_values, size_t count);

  /* --- sessions --- */
  /* env, path, options [in, borrowed]; out [out, owned] ReleaseSession. */
  PrismStatus* (*CreateSession)(const PrismEnv* env, const char* model_path,
                                const PrismSessionOptions* options, PrismSession** out);
  /* data [in, borrowed]: not kept after the call. A model with external data reads its files
     from the folder named by session config entry
     "session.model_external_initializers_file_folder_path" (as loading from a file does from the
     model's folder: no location may leave it), or from memory (version 7:
     AddExternalInitializers, AddExternalInitializersFromFilesInMemory); otherwise it fails,
     naming the initializer, the file and the config key. */
  PrismStatus* (*CreateSessionFromArray)(const PrismEnv* env, const void* model_data,
                                         size_t model_data_length,
                                         const PrismSessionOptions* options, PrismSession** out);
  void (*ReleaseSession)(PrismSession* session);
  PrismStatus* (*SessionGetInputCount)(const PrismSession* session, size_t* out);
  PrismStatus* (*SessionGetOutputCount)(const PrismSession* session, size_t* out);
  PrismStatus* (*SessionGetOverridableInitializerCount)(const PrismSession* session, size_t* out);
  /* out [out, borrowed] by the session. */
  PrismStatus* (*SessionGetInputName)(const PrismSession* session, size_t index, const char** out);
  PrismStatus* (*SessionGetOutputName)(const PrismSession* session, size_t index, const char** out);
  PrismStatus* (*SessionGetOverridableInitializerName)(const PrismSession* session, size_t index,
                                                       const char** out);
  /* out [out, owned] ReleaseTypeInfo. */
  PrismStatus* (*SessionGetInputTypeInfo)(const PrismSession* session, size_t index,
                                          PrismTypeInfo** out);
  PrismStatus* (*SessionGetOutputTypeInfo)(const PrismSession* session, size_t index,
                                           PrismTypeInfo** out);
  PrismStatus* (*SessionGetOverridableInitializerTypeInfo)(const PrismSession* session,
                                                           size_t index, PrismTypeInfo** out);
  /* out [out, owned] ReleaseModelMetadata. */
  PrismStatus* (*SessionGetModelMetadata)(const PrismSession* session, PrismModelMetadata** out);
  /* The EPs in use, in priority order. names [out, owned] ReleaseStringArray. */
  PrismStatus* (*SessionGetProviders)(const PrismSession* session, char*** names, size_t* count);
  /* The options of the EP at provider_index. keys, values [out, owned] ReleaseStringArray each. */
  PrismStatus* (*SessionGetProviderOptions)(const PrismSession* session, size_t provider_index,
                                            char*** keys, char*** values, size_t* count);
  /* Rebuilds the session's plan with the EP list appended to providers_from (its other
     settings are ignored). Borrowed results from the session stay valid. */
  PrismStatus* (*SessionSetProviders)(PrismSession* session,
                                      const PrismSessionOptions* providers_from);
  /* The partition report. out [out, owned] ReleaseString. */
  PrismStatus* (*SessionGetPartitionReport)(const PrismSession* session, PrismReportFormat format,
                                            char** out);
  /* Runs the model. input_names/inputs [in, borrowed], input_count of them; output_names
     output_count of them (NULL with output_count 0 is not allowed). outputs: an array of
     output_count pointers the caller provides; a NULL slot receives [out, owned] ReleaseValue;
     a slot holding a tensor [in, borrowed] on entry is a preallocated output (as in
     onnxruntime): the result is written into it (element type and shape must match; CPU or an
     EP's memory) and the slot keeps it. Initialize the array. run_options may be NULL. Safe to
     call from several threads on one session. */
  PrismStatus* (*Run)(PrismSession* session, const PrismRunOptions* run_options,
                      const char* const* input_names, const PrismValue* const* inputs,
                      size_t input_count, const char* const* output_names, size_t output_count,
                      PrismValue** outputs);

  /* --- run options --- */
  PrismStatus* (*CreateRunOptions)(PrismRunOptions** out);
  void (*ReleaseRunOptions)(PrismRunOptions* options);
  PrismStatus* (*RunOptionsSetRunLogSeverityLevel)(PrismRunOptions* options, int level);
  PrismStatus* (*RunOptionsSetRunTag)(PrismRunOptions* options, const char* tag);
  /* Makes runs using these options stop between nodes with an error (from any thread). */
  PrismStatus* (*RunOptionsSetTerminate)(PrismRunOptions* options);
  PrismStatus* (*RunOptionsUnsetTerminate)(PrismRunOptions* options);

  /* --- memory info --- */
  /* out [out, owned] ReleaseMemoryInfo. */
  PrismStatus* (*CreateCpuMemoryInfo)(PrismAllocatorType allocator_type, PrismMemType mem_type,
                                      PrismMemoryInfo** out);
  /* name: onnxruntime's spelling ("Cpu", "Cuda", "CudaPinned") or an EP's memory name
     ("TestDevice"). */
  PrismStatus* (*CreateMemoryInfo)(const char* name, PrismAllocatorType allocator_type,
                                   int device_id, PrismMemType mem_type, PrismMemoryInfo** out);
  void (*ReleaseMemoryInfo)(PrismMemoryInfo* info);
  /* out [out, borrowed] by info. */
  PrismStatus* (*MemoryInfoGetName)(const PrismMemoryInfo* info, const char** out);
  PrismStatus* (*MemoryInfoGetId)(const PrismMemoryInfo* info, int* out);
  PrismStatus* (*MemoryInfoGetMemType)(const PrismMemoryInfo* info, PrismMemType* out);
  PrismStatus* (*MemoryInfoGetDeviceType)(const PrismMemoryInfo* info, PrismDeviceType* out);

  /* --- allocators --- */
  /* The process CPU allocator. out [out, borrowed]: never released. */
  PrismStatus* (*GetAllocatorWithDefaultOptions)(PrismAllocator** out);
  /* The allocator of the session's EP whose memory matches info. out [out, owned]
     ReleaseAllocator; it keeps what it needs of the session alive. */
  PrismStatus* (*CreateAllocator)(const PrismSession* session, const PrismMemoryInfo* info,
                                  PrismAllocator** out);
  void (*ReleaseAllocator)(PrismAllocator* allocator);
  PrismStatus* (*AllocatorAlloc)(PrismAllocator* allocator, size_t size, void** out);
  PrismStatus* (*AllocatorFree)(PrismAllocator* allocator, void* pointer);
  /* out [out, borrowed] by allocator. */
  PrismStatus* (*AllocatorGetInfo)(const PrismAllocator* allocator, const PrismMemoryInfo** out);

  /* --- values --- */
  /* A tensor over caller memory: data [in, borrowed] must outlive the value and hold
     data_length bytes (packed for 4-bit/2-bit types). Not for strings. out [out, owned]. */
  PrismStatus* (*CreateTensorWithDataAsValue)(const PrismMemoryInfo* info, void* data,
                                              size_t data_length, const int64_t* shape,
                                              size_t shape_length, PrismElementType type,
                                              PrismValue** out);
  /* A tensor allocated from allocator (string tensors: CPU allocator only, elements empty).
     out [out, owned] ReleaseValue. */
  PrismStatus* (*CreateTensorAsValue)(PrismAllocator* allocator, const int64_t* shape,
                                      size_t shape_length, PrismElementType type, PrismValue** out);
  /* A sequence of count tensors (each copied by reference), or from version 5 of count maps of
     one key and value type (seq(map(K, V)); the maps are shared, they are immutable).
     out [out, owned]. */
  PrismStatus* (*CreateSequenceValue)(const PrismValue* const* elements, size_t count,
                                      PrismValue** out);
  /* An optional with no value. out [out, owned]. */
  PrismStatus* (*CreateEmptyOptionalValue)(PrismValue** out);
  void (*ReleaseValue)(PrismValue* value);
  PrismStatus* (*GetValueKind)(const PrismValue* value, PrismValueKind* out);
  /* 1 when the value holds something (0 for an empty optional). */
  PrismStatus* (*ValueHasValue)(const PrismValue* value, int* out);
  /* out [out, borrowed] by value: the tensor's bytes (NULL for empty tensors). */
  PrismStatus* (*GetTensorMutableData)(PrismValue* value, void** out);
  PrismStatus* (*GetTensorSizeInBytes)(const PrismValue* value, size_t* out);
  /* out [out, owned] ReleaseTensorTypeAndShapeInfo. */
  PrismStatus* (*GetTensorTypeAndShape)(const PrismValue* value, PrismTensorTypeAndShapeInfo** out);
  /* out [out, borrowed] by value. */
  PrismStatus* (*GetTensorMemoryInfo)(const PrismValue* value, const PrismMemoryInfo** out);
  /* Sets count string elements (count must equal the element count); strings [in, borrowed]
     (copied), each lengths[i] bytes (may contain NUL). */
  PrismStatus* (*FillStringTensor)(PrismValue* value, const char* const* strings,
                                   const size_t* lengths, size_t count);
  /* out [out, borrowed] by value: element index's bytes and length. */
  PrismStatus* (*GetStringTensorElement)(const PrismValue* value, size_t index, const char** out,
                                         size_t* length);
  /* Sequences: element count and element index (a tensor, or a map for seq(map(K, V))).
     element [out, owned] ReleaseValue. */
  PrismStatus* (*GetSequenceLength)(const PrismValue* value, size_t* out);
  PrismStatus* (*GetSequenceElement)(const PrismValue* value, size_t index, PrismValue** element);

  /* --- type info --- */
  void (*ReleaseTypeInfo)(PrismTypeInfo* info);
  PrismStatus* (*TypeInfoGetKind)(const PrismTypeInfo* info, PrismValueKind* out);
  /* onnxruntime's spelling: "tensor(float)", "seq(tensor(int64))", "optional(tensor(float))",
     "map(string,tensor(int64))", "seq(map(int64,tensor(float)))". out [out, borrowed] by info. */
  PrismStatus* (*TypeInfoGetTypeString)(const PrismTypeInfo* info, const char** out);
  /* The tensor part (for tensors, and the element of sequences/optionals of tensors).
     out [out, borrowed] by info; NULL for kinds without one (maps, sequences of maps). */
  PrismStatus* (*TypeInfoGetTensorInfo)(const PrismTypeInfo* info,
                                        const PrismTensorTypeAndShapeInfo** out);
  void (*ReleaseTensorTypeAndShapeInfo)(PrismTensorTypeAndShapeInfo* info);
  PrismStatus* (*TensorInfoGetElementType)(const PrismTensorTypeAndShapeInfo* info,
                                           PrismElementType* out);
  /* Rank; -1 when the rank is unknown. */
  PrismStatus* (*TensorInfoGetRank)(const PrismTensorTypeAndShapeInfo* info, int64_t* out);
  /* dims[count]: -1 for symbolic or unknown dims. */
  PrismStatus* (*TensorInfoGetDimensions)(const PrismTensorTypeAndShapeInfo* info, int64_t* dims,
                                          size_t count);
  /* names[count] [out, borrowed] by info: a dim's symbolic name, "" when none. */
  PrismStatus* (*TensorInfoGetSymbolicDimensions)(const PrismTensorTypeAndShapeInfo* info,
                                                  const char** names, size_t count);
  /* Product of the dims; -1 when any is not known. */
  PrismStatus* (*TensorInfoGetElementCount)(const PrismTensorTypeAndShapeInfo* info, int64_t* out);

  /* --- model metadata --- */
  void (*ReleaseModelMetadata)(PrismModelMetadata* metadata);
  /* out [out, borrowed] by metadata. */
  PrismStatus* (*ModelMetadataGetProducerName)(const PrismModelMetadata* m, const char** out);
  PrismStatus* (*ModelMetadataGetGraphName)(const PrismModelMetadata* m, const char** out);
  PrismStatus* (*ModelMetadataGetDomain)(const PrismModelMetadata* m, const char** out);
  PrismStatus* (*ModelMetadataGetDescription)(const PrismModelMetadata* m, const char** out);
  PrismStatus* (*ModelMetadataGetGraphDescription)(const PrismModelMetadata* m, const char** out);
  PrismStatus* (*ModelMetadataGetVersion)(const PrismModelMetadata* m, int64_t* out);
  PrismStatus* (*ModelMetadataGetCustomMetadataCount)(const PrismModelMetadata* m, size_t* out);
  /* key, value [out, borrowed] by metadata. */
  PrismStatus* (*ModelMetadataGetCustomMetadata)(const PrismModelMetadata* m, size_t index,
                                                 const char** key, const char** value);

  /* --- IO binding --- */
  /* out [out, owned] ReleaseIoBinding; it keeps the session's state alive. */
  PrismStatus* (*CreateIoBinding)(PrismSession* session, PrismIoBinding** out);
  void (*ReleaseIoBinding)(PrismIoBinding* binding);
  /* value [in, borrowed]: the binding keeps its own reference. Inputs may live in any memory
     an EP of the session can copy from. */
  PrismStatus* (*BindInput)(PrismIoBinding* binding, const char* name, const PrismValue* value);
  /* Binds an output to a preallocated value in CPU memory or an EP's memory: each run copies the
     result into it (element type and shape must match). */
  PrismStatus* (*BindOutput)(PrismIoBinding* binding, const char* name, const PrismValue* value);
  /* Binds an output to a memory space: the run allocates it there. */
  PrismStatus* (*BindOutputToDevice)(PrismIoBinding* binding, const char* name,
                                     const PrismMemoryInfo* info);
  PrismStatus* (*ClearBoundInputs)(PrismIoBinding* binding);
  PrismStatus* (*ClearBoundOutputs)(PrismIoBinding* binding);
  PrismStatus* (*RunWithBinding)(PrismSession* session, const PrismRunOptions* run_options,
                                 PrismIoBinding* binding);
  /* Names in binding order. names [out, owned] ReleaseStringArray. */
  PrismStatus* (*GetBoundOutputNames)(const PrismIoBinding* binding, char*** names, size_t* count);
  /* values: an array of count pointers [out, owned]: release each with ReleaseValue and the
     array with ReleaseValueArray. */
  PrismStatus* (*GetBoundOutputValues)(const PrismIoBinding* binding, PrismValue*** values,
                                       size_t* count);
  /* Frees an array from GetBoundOutputValues (not its elements). */
  void (*ReleaseValueArray)(PrismValue** values);
  /* A CPU copy of a tensor or sequence in any memory the session's EPs can copy from.
     out [out, owned] ReleaseValue. */
  PrismStatus* (*SessionCopyValueToCpu)(const PrismSession* session, const PrismValue* value,
                                        PrismValue** out);

  /* --- profiling --- */
  /* Stops profiling and writes the trace (onnxruntime's end_profiling). path [out, owned]
     ReleaseString: the file written, "" when profiling is off or has already ended. */
  PrismStatus* (*SessionEndProfiling)(PrismSession* session, char** path);

  /* ===== version 2 ===== */

  /* --- retry on the CPU EP (onnxruntime's Python fallback, for every caller) --- */
  /* When an EP fails (session creation, or a Run failing with PRISM_EP_FAIL) and the session
     uses an EP other than the CPU EP, the session is rebuilt on the CPU EP alone and the call is
     retried, once; fallback is then disabled. On by default; config entry
     "session.disable_ep_failure_fallback" = "1" turns it off from creation on, and it is never
     taken with "session.disable_cpu_ep_fallback" = "1". */
  PrismStatus* (*SessionSetFallbackEnabled)(PrismSession* session, int enabled);
  PrismStatus* (*SessionGetFallbackEnabled)(const PrismSession* session, int* enabled);
  /* What the last fallback said ("EP Error ... Falling back to ['CPUExecutionProvider'] and
     retrying."), cleared by the call. notice [out, owned] ReleaseString: "" when none happened
     since the last call. */
  PrismStatus* (*SessionTakeFallbackNotice)(const PrismSession* session, char** notice);

  /* --- graph transformers --- */
  /* Graph transformers not to run, by name (onnxruntime's disabled_optimizers; e.g.
     "ConstantFolding", "EliminateIdentity"), replacing any set before; names [in, borrowed]
     (copied); count 0 clears. Names matching no transformer are logged and ignored. */
  PrismStatus* (*SetDisabledOptimizers)(PrismSessionOptions* options, const char* const* names,
                                        size_t count);

  /* ===== version 3 ===== */

  /* --- memory --- */
  /* A run configuration entry (onnxruntime's AddRunConfigEntry), replacing an earlier value of
     the key; key and value [in, borrowed] (copied). Known key:
     "memory.enable_memory_arena_shrinkage" = "cpu:0": the session's CPU arena returns its unused
     regions to the system when the run ends. */
  PrismStatus* (*AddRunConfigEntry)(PrismRunOptions* options, const char* key, const char* value);
  /* The statistics of the session's allocator for one memory space, as key/value strings
     (onnxruntime's allocator statistics): "NumAllocs" (requests), "NumFrees", "InUse" (bytes),
     "MaxInUse", "MaxAllocSize", "NumReserves" (system allocations), "TotalAllocated" (bytes held
     from the system: the arena's size), "NumArenaExtensions", "NumArenaShrinkages", "Arena"
     ("1"/"0"). memory_name [in, borrowed]: a memory's name as MemoryInfoGetName gives it ("Cpu",
     an EP's device memory); device_id its device. keys, values [out, owned]
     ReleaseStringArray(count). Fails naming the memories the session has when it has no
     allocator for this one. */
  PrismStatus* (*SessionGetAllocatorStats)(const PrismSession* session, const char* memory_name,
                                           int device_id, char*** keys, char*** values,
                                           size_t* count);

  /* --- global thread pools (onnxruntime's CreateEnvWithGlobalThreadPools) --- */
  /* Sizes for the process's global pools; 0 (the default) means the physical cores the process
     may use, 1 no pool (the calling thread). out [out, owned] ReleaseThreadingOptions. */
  PrismStatus* (*CreateThreadingOptions)(PrismThreadingOptions** out);
  void (*ReleaseThreadingOptions)(PrismThreadingOptions* options);
  PrismStatus* (*SetGlobalIntraOpNumThreads)(PrismThreadingOptions* options, int threads);
  PrismStatus* (*SetGlobalInterOpNumThreads)(PrismThreadingOptions* options, int threads);
  /* An environment as CreateEnv makes, after creating the process's global thread pools (once
     per process: a later call with the same sizes reuses them, other sizes fail naming both). */
  PrismStatus* (*CreateEnvWithGlobalThreadPools)(PrismLoggingLevel logging_level,
                                                 const char* log_id,
                                                 const PrismThreadingOptions* threading_options,
                                                 PrismEnv** out);
  /* Sessions made with these options use the global pools instead of their own (session
     creation fails when none exist); SetIntraOpNumThreads then has no effect. */
  PrismStatus* (*DisablePerSessionThreads)(PrismSessionOptions* options);

  /* ===== version 4 ===== */

  /* --- prepacked weights (onnxruntime's PrepackedWeightsContainer) --- */
  /* At session creation kernels may pack constant weights into the layout they compute from
     (MatMul's and Gemm's float B today); the original is then released when nothing else reads
     it. Config entry "session.disable_prepacking" = "1" turns this off. Sessions created with
     one container share the packed form of identical weights (same bytes, same format) instead
     of each packing its own; the container may be released before the sessions (they keep
     what they use). out [out, owned] ReleasePrepackedWeightsContainer. */
  PrismStatus* (*CreatePrepackedWeightsContainer)(PrismPrepackedWeightsContainer** out);
  void (*ReleasePrepackedWeightsContainer)(PrismPrepackedWeightsContainer* container);
  /* CreateSession and CreateSessionFromArray with a shared container [in, borrowed]. */
  PrismStatus* (*CreateSessionWithPrepackedWeightsContainer)(
      const PrismEnv* env, const char* model_path, const PrismSessionOptions* options,
      PrismPrepackedWeightsContainer* container, PrismSession** out);
  PrismStatus* (*CreateSessionFromArrayWithPrepackedWeightsContainer)(
      const PrismEnv* env, const void* model_data, size_t model_data_length,
      const PrismSessionOptions* options, PrismPrepackedWeightsContainer* container,
      PrismSession** out);
  /* What prepacking did in this session, as key/value strings: "PackedInputs" (kernel inputs
     read from a packed form), "PackedWeights" and "PackedBytes" (the packed forms the session's
     container holds: with a shared container, all of its sessions'), "SharedHits" (packings
     found already done), "OriginalsReleased" and "ReleasedBytes" (weights no longer held in
     their original form). keys, values [out, owned] ReleaseStringArray(count). */
  PrismStatus* (*SessionGetPrepackStats)(const PrismSession* session, char*** keys, char*** values,
                                         size_t* count);

  /* ===== version 5 ===== */

  /* --- maps (ai.onnx.ml's map(K, tensor(V)); GetValueKind gives PRISM_VALUE_MAP) --- */
  /* A map from two 1-D CPU tensors of one length: keys (int64 or string) and values (float,
     double, int64 or string); keys[i] maps to values[i]. keys, values [in, borrowed]: their
     elements are copied, so the caller may change or release them afterwards. The map holds its
     pairs in ascending key order and keeps the first pair of a repeated key (onnxruntime's
     CreateValue). A sequence of maps is made with CreateSequenceValue. out [out, owned]
     ReleaseValue. */
  PrismStatus* (*CreateMapValue)(const PrismValue* keys, const PrismValue* values,
                                 PrismValue** out);
  /* A map's keys or values as a 1-D CPU tensor, in ascending key order (element i of one belongs
     to element i of the other). out [out, owned] ReleaseValue: a copy, the map is not changed
     through it. */
  PrismStatus* (*GetMapKeys)(const PrismValue* value, PrismValue** out);
  PrismStatus* (*GetMapValues)(const PrismValue* value, PrismValue** out);
  /* The key type K and value element type V of a map(K, tensor(V)) or seq(map(K, tensor(V)))
     type (PRISM_TYPE_UNDEFINED where the model leaves one unknown); fails for other kinds. */
  PrismStatus* (*TypeInfoGetMapTypes)(const PrismTypeInfo* info, PrismElementType* key_type,
                                      PrismElementType* value_type);

  /* --- logging (onnxruntime's custom logger and verbosity) --- */
  /* An environment as CreateEnv makes, whose messages go to logging_function(logger_param, ...)
     instead of stderr while it lives: the process's log sink, so every session's and run's
     messages reach it (a later custom-logger env takes over; releasing the env that installed
     the current sink restores stderr, after calls in progress return). A message logged from
     inside logging_function goes to stderr. log_id [in, borrowed]; out [out, owned] ReleaseEnv. */
  PrismStatus* (*CreateEnvWithCustomLogger)(PrismLoggingFunction logging_function,
                                            void* logger_param, PrismLoggingLevel logging_level,
                                            const char* log_id, PrismEnv** out);
  /* The process's default verbosity (>= 0; 0 at start): verbose messages of level v (a run's
     per-node messages are level 1) are written when the severity allows verbose messages and
     the verbosity in effect is at least v (onnxruntime's set_default_logger_verbosity). */
  PrismStatus* (*SetLogVerbosityLevel)(PrismEnv* env, int verbosity);
  /* The session's verbosity (>= 0), for its creation and its runs (default: the process's). */
  PrismStatus* (*SetSessionLogVerbosityLevel)(PrismSessionOptions* options, int verbosity);
  /* The run's verbosity (>= 0). With RunOptionsSetRunLogSeverityLevel the run logs at its own
     severity and this verbosity (default: the session's); its tag names it in messages. */
  PrismStatus* (*RunOptionsSetRunLogVerbosityLevel)(PrismRunOptions* options, int verbosity);

  /* --- run and session options --- */
  /* The value AddRunConfigEntry set for key. value [out, borrowed] by options (valid until the
     key is set again or options is released); NULL when the key was never set. */
  PrismStatus* (*GetRunConfigEntry)(const PrismRunOptions* options, const char* key,
                                    const char** value);
  /* enable != 0: a run computes only the nodes its requested outputs depend on (onnxruntime's
     only_execute_path_to_fetches); by default every node of the main graph runs, so a failure in
     a branch the outputs do not need still fails the run. */
  PrismStatus* (*RunOptionsSetOnlyExecutePathToFetches)(PrismRunOptions* options, int enable);
  /* The value AddSessionConfigEntry set for key. value [out, borrowed] by options; NULL when the
     key was never set. */
  PrismStatus* (*GetSessionConfigEntry)(const PrismSessionOptions* options, const char* key,
                                        const char** value);
  /* enable == 0 gives every value its own buffer: no output written over an input's buffer
     (in-place kernels) and no two values over the same bytes of the memory pattern's block
     (onnxruntime's enable_mem_reuse; on by default). */
  PrismStatus* (*EnableMemReuse)(PrismSessionOptions* options, int enable);
  /* onnxruntime's SetDeterministicCompute. Prism's kernels are deterministic either way: a
     session computes the same bits for the same feeds on every run, with any number of
     threads (unseeded random ops excepted). Stored so that it reads back. */
  PrismStatus* (*SetDeterministicCompute)(PrismSessionOptions* options, int enable);

  /* --- process-wide settings --- */
  /* The seed of random ops without a seed attribute (RandomNormal, RandomUniform, their Like
     forms, Bernoulli, Multinomial, Dropout in training mode), read when their kernels are created:
     sessions created after SetRandomSeed(s) draw the same values run by run (onnxruntime's
     set_seed). Without it such ops draw fresh entropy. */
  PrismStatus* (*SetRandomSeed)(int64_t seed);
  /* onnxruntime's GetBuildInfoString: "Prism Build Info: version=..., build type=..., ...".
     [out, borrowed] static. */
  const char* (*GetBuildInfoString)(void);

  /* --- profiling and asynchronous runs --- */
  /* When the session's profiler started, in nanoseconds since the Unix epoch (Python's
     time.time_ns(), the clock onnxruntime's reads); 0 when profiling is off. */
  PrismStatus* (*SessionGetProfilingStartTimeNs)(const PrismSession* session, uint64_t* out);
  /* Run on a thread of the library's async pool (onnxruntime's RunAsync): returns once the run
     is queued (a failure then is returned, and callback is not called), and callback(user_data,
     ...) receives the outputs or the error. Arguments as for Run, except: inputs [in, borrowed]
     until this call returns (the run keeps its own references; caller memory wrapped by
     CreateTensorWithDataAsValue must stay valid until the callback); names are copied;
     outputs, the caller's array of output_count slots (with any preallocated tensors in it), and
     run_options must stay valid until the
     callback has returned (RunOptionsSetTerminate stops the run). The session may be released
     before the callback: the run keeps what it needs. */
  PrismStatus* (*RunAsync)(PrismSession* session, const PrismRunOptions* run_options,
                           const char* const* input_names, const PrismValue* const* inputs,
                           size_t input_count, const char* const* output_names, size_t output_count,
                           PrismValue** outputs, PrismRunAsyncCallback callback, void* user_data);

  /* ===== version 6 ===== */

  /* --- statuses for callbacks (custom ops) --- */
  /* A status to return from a callback: code and message [in, borrowed] (copied). PRISM_OK
     gives NULL (success); a code outside PrismErrorCode gives PRISM_FAIL. [out, owned]
     ReleaseStatus (the library releases what a callback returns). */
  PrismStatus* (*CreateStatus)(PrismErrorCode code, const char* message);
  /* A tensor's bytes, read-only (custom-op inputs: KernelContextGetInput gives const values).
     out [out, borrowed] by value: NULL for empty tensors; not for string tensors. */
  PrismStatus* (*GetTensorData)(const PrismValue* value, const void** out);

  /* --- custom op domains (see PrismCustomOp above) --- */
  /* domain [in, borrowed] (copied): a name of the application's ("" or "ai.onnx": the ONNX
     domain, whose built-in kernels the custom ops then take precedence over). out [out, owned]
     ReleaseCustomOpDomain. */
  PrismStatus* (*CreateCustomOpDomain)(const char* domain, PrismCustomOpDomain** out);
  void (*ReleaseCustomOpDomain)(PrismCustomOpDomain* domain);
  /* Adds an op, reading its name, EP, types, characteristics and opsets now (checked: version,
     required members, enum values, variadic only last). op [in, borrowed]: must stay valid
     while sessions or options using it live. Ops of one name may differ in their input types;
     a node takes the first that fits. */
  PrismStatus* (*CustomOpDomainAdd)(PrismCustomOpDomain* domain, const PrismCustomOp* op);
  /* Sessions made with these options run the domain's ops (those added so far: a snapshot).
     The domain may be released afterwards. Fails for an op already registered in these options
     for the same EP, inputs and overlapping opsets. */
  PrismStatus* (*AddCustomOpDomain)(PrismSessionOptions* options, PrismCustomOpDomain* domain);
  /* Loads the shared library at library_path [in, borrowed] and calls the function it exports as
       PrismStatus* RegisterCustomOps(PrismSessionOptions* options, const PrismApiBase* api_base)
     (PrismRegisterCustomOpsFunction), which adds its domains to options (onnxruntime's
     RegisterCustomOpsLibrary). The library stays loaded while these options, their clones or a
     session using its ops live, and is unloaded after the last of them is released. Fails with
     PRISM_NO_SUCHFILE when the file does not exist, PRISM_INVALID_ARGUMENT when it cannot be
     loaded or lacks RegisterCustomOps, and with the status RegisterCustomOps returned (whose
     domains are then not added). library_handle (may be NULL) [out, borrowed]: the dlopen
     handle, for dlsym; never dlclose it. */
  PrismStatus* (*RegisterCustomOpsLibrary)(PrismSessionOptions* options, const char* library_path,
                                           void** library_handle);

  /* --- kernel info (in CreateKernel) --- */
  /* A node attribute of the given type; PRISM_INVALID_ARGUMENT naming the node when it is
     missing or of another type. Strings and arrays: [out, borrowed] by info, valid until
     CreateKernel returns; length in bytes, count in elements. */
  PrismStatus* (*KernelInfoGetAttributeFloat)(const PrismKernelInfo* info, const char* name,
                                              float* out);
  PrismStatus* (*KernelInfoGetAttributeInt64)(const PrismKernelInfo* info, const char* name,
                                              int64_t* out);
  PrismStatus* (*KernelInfoGetAttributeString)(const PrismKernelInfo* info, const char* name,
                                               const char** out, size_t* length);
  PrismStatus* (*KernelInfoGetAttributeFloats)(const PrismKernelInfo* info, const char* name,
                                               const float** out, size_t* count);
  PrismStatus* (*KernelInfoGetAttributeInt64s)(const PrismKernelInfo* info, const char* name,
                                               const int64_t** out, size_t* count);
  /* *out = 1 when the node has the attribute (of any type), else 0. */
  PrismStatus* (*KernelInfoHasAttribute)(const PrismKernelInfo* info, const char* name, int* out);
  /* The node's input and output counts (omitted optional ones included). */
  PrismStatus* (*KernelInfoGetInputCount)(const PrismKernelInfo* info, size_t* out);
  PrismStatus* (*KernelInfoGetOutputCount)(const PrismKernelInfo* info, size_t* out);
  /* The static type of the node's input or output index as the graph knows it (element type
     PRISM_TYPE_UNDEFINED, rank -1 where unknown); fails for an omitted one. out [out, owned]
     ReleaseTypeInfo. */
  PrismStatus* (*KernelInfoGetInputTypeInfo)(const PrismKernelInfo* info, size_t index,
                                             PrismTypeInfo** out);
  PrismStatus* (*KernelInfoGetOutputTypeInfo)(const PrismKernelInfo* info, size_t index,
                                              PrismTypeInfo** out);
  /* out [out, borrowed] by info. */
  PrismStatus* (*KernelInfoGetNodeName)(const PrismKernelInfo* info, const char** out);

  /* --- kernel context (in KernelCompute) --- */
  PrismStatus* (*KernelContextGetInputCount)(const PrismKernelContext* context, size_t* out);
  PrismStatus* (*KernelContextGetOutputCount)(const PrismKernelContext* context, size_t* out);
  /* Input index: a tensor [out, borrowed] by context (read it with GetTensorData,
     GetTensorTypeAndShape, GetStringTensorElement), or NULL when the node omits it (also an
     optional input left off at the end: any index below the op's declared input count). */
  PrismStatus* (*KernelContextGetInput)(const PrismKernelContext* context, size_t index,
                                        const PrismValue** out);
  /* Allocates output index with shape[rank] in the EP's memory. type: its element type, or
     PRISM_TYPE_UNDEFINED for the op's declared output type (else the node's static type);
     a declared type must match. Asking again with the same type and shape gives the same value.
     out [out, borrowed] by context: write it with GetTensorMutableData or FillStringTensor. */
  PrismStatus* (*KernelContextGetOutput)(PrismKernelContext* context, size_t index,
                                         PrismElementType type, const int64_t* shape, size_t rank,
                                         PrismValue** out);
  /* The session's intra-op parallelism, the calling thread included (1: no pool). */
  PrismStatus* (*KernelContextGetIntraOpThreadCount)(const PrismKernelContext* context, int* out);
  /* Calls fn(user_data, i) once for every i in [0, total) on the session's intra-op pool (the
     calling thread works too) and returns when all calls have returned. batch_count: how many
     contiguous batches to split the range into (0: the pool decides). fn must not fail. */
  PrismStatus* (*KernelContextParallelFor)(const PrismKernelContext* context,
                                           PrismParallelForFunction fn, void* user_data,
                                           size_t total, size_t batch_count);

  /* --- version 7: model and session adjustments --- */
  /* Applied when a session loads its model, before type and shape inference and optimization
     (onnxruntime's session options of the same names). Errors about the model (a name it does
     not have, a mismatch) come from CreateSession*, naming the input or initializer. */
  /* Fixes every dimension of the model's inputs (those without an initializer) whose
     denotation is dim_denotation (e.g. "DATA_BATCH"; compared ignoring case) to dim_value >= 0:
     the session's input shapes show the number, shape inference sees it, and a feed of another
     size for that dimension is refused. A dimension the model fixes to another value fails
     session creation. Calling again for the same denotation replaces the value; one that
     matches no dimension is logged as a warning. dim_denotation [in, borrowed] (copied). */
  PrismStatus* (*AddFreeDimensionOverride)(PrismSessionOptions* options, const char* dim_denotation,
                                           int64_t dim_value);
  /* As AddFreeDimensionOverride, for the dimensions whose dim_param is dim_name (e.g. "batch";
     compared exactly). Two overrides that set one dimension to different values fail session
     creation. dim_name [in, borrowed] (copied). */
  PrismStatus* (*AddFreeDimensionOverrideByName)(PrismSessionOptions* options, const char* dim_name,
                                                 int64_t dim_value);
  /* Sessions use value, a CPU tensor of the initializer's element type and dims, in place of the
     model's initializer name (one that is also a graph input stays overridable by a feed).
     No copy: value [in, borrowed] shares its memory with the options and the sessions (they
     keep their own reference to a tensor the library allocated); memory the caller wrapped
     (CreateTensorWithDataAsValue) must stay valid while these options or a session made from
     them live (a change after session creation is seen only where no optimization folded or
     packed the weight). Fails here for a non-tensor or non-CPU value; session creation fails
     when the model has no such initializer (or name is an input without one) and when element
     type or dims differ. Adding a name again replaces the value. name [in, borrowed] (copied). */
  PrismStatus* (*AddInitializer)(PrismSessionOptions* options, const char* name,
                                 const PrismValue* value);
  /* Supplies the data of count initializers whose data is external (data_location EXTERNAL):
     names[i] gets values[i], used in place of reading the external file (no copy; lifetimes as
     for AddInitializer). Session creation fails when an initializer is missing, does not store
     its data externally, differs in element type or dims, or is also given to AddInitializer.
     names, values [in, borrowed]; the names are copied. */
  PrismStatus* (*AddExternalInitializers)(PrismSessionOptions* options, const char* const* names,
                                          const PrismValue* const* values, size_t count);
  /* The contents of count external data files: a tensor whose external data location is
     file_names[i] (compared as a relative path: "./w.bin" is "w.bin") reads its offset and length
     from buffers[i], lengths[i] bytes, instead of the file (before the model's folder is looked
     at; a range beyond lengths[i] fails session creation). The bytes a session uses are copied
     when it is created, so buffers [in, borrowed] must stay valid until the last session is
     created from these options (onnxruntime's contract). file_names [in, borrowed] (copied);
     a file name given again replaces the earlier buffer. */
  PrismStatus* (*AddExternalInitializersFromFilesInMemory)(PrismSessionOptions* options,
                                                           const char* const* file_names,
                                                           const void* const* buffers,
                                                           const size_t* lengths, size_t count);

  /* --- version 7: environment allocators, device values, CUDA provider options --- */
  /* Registers a CPU allocator with env, shared by env's sessions whose config sets
     session.use_env_allocators to "1" (onnxruntime's CreateAndRegisterAllocator). info [in,
     borrowed] names CPU memory; PRISM_ARENA_ALLOCATOR makes an arena configured by arena_count
     onnxruntime OrtArenaCfg keys/values ("max_mem", "arena_extend_strategy",
     "initial_chunk_size_bytes"; "-1" for the default; "max_dead_bytes_per_chunk",
     "initial_growth_chunk_size_bytes" and "max_power_of_two_extend_bytes" only as "-1": Prism's
     arena has no such setting). One allocator per memory: a second is an error. */
  PrismStatus* (*CreateAndRegisterAllocator)(PrismEnv* env, const PrismMemoryInfo* info,
                                             const char* const* arena_keys,
                                             const char* const* arena_values, size_t arena_count);
  /* The same for the default memory of provider_type's EP, created with the given provider
     options (e.g. "device_id"): info must name that memory. This is how device memory gets an
     allocator and copies outside a session: GetSharedAllocator then CreateTensorAsValue, and
     CopyTensors. Device memory takes no arena config. All strings [in, borrowed]. */
  PrismStatus* (*CreateAndRegisterAllocatorV2)(PrismEnv* env, const char* provider_type,
                                               const PrismMemoryInfo* info,
                                               const char* const* arena_keys,
                                               const char* const* arena_values, size_t arena_count,
                                               const char* const* provider_option_keys,
                                               const char* const* provider_option_values,
                                               size_t provider_option_count);
  /* Fails when nothing is registered for info's memory. Tensors allocated from the allocator
     keep it alive. */
  PrismStatus* (*UnregisterAllocator)(PrismEnv* env, const PrismMemoryInfo* info);
  /* The allocator env has for info's memory (name and device id). out [out, owned]
     ReleaseAllocator, or NULL when env has none. */
  PrismStatus* (*GetSharedAllocator)(PrismEnv* env, const PrismMemoryInfo* info,
                                     PrismAllocator** out);
  /* An allocator's statistics under SessionGetAllocatorStats's keys (NumAllocs, InUse, MaxInUse,
     NumReserves, TotalAllocated, ...); fails for the process CPU allocator, which keeps none.
     keys, values [out, owned] ReleaseStringArray(count). */
  PrismStatus* (*AllocatorGetStats)(const PrismAllocator* allocator, char*** keys, char*** values,
                                    size_t* count);
  /* Copies sources[i] into destinations[i] for each i < count: tensors of the same element type
     and shape, already allocated, in CPU memory or in device memory env has an allocator for
     (CreateAndRegisterAllocatorV2). Every pair is checked before anything is copied. */
  PrismStatus* (*CopyTensors)(const PrismEnv* env, const PrismValue* const* sources,
                              PrismValue* const* destinations, size_t count);
  /* onnxruntime's CUDA provider options: keys as onnxruntime's CUDA EP names them (device_id,
     gpu_mem_limit, arena_extend_strategy, cudnn_conv_algo_search, do_copy_in_default_stream,
     cudnn_conv_use_max_workspace, use_tf32, prefer_nhwc, enable_cuda_graph, ...); an unknown key
     or a malformed value is an error and leaves the options as they were. out [out, owned]
     ReleaseCUDAProviderOptions. */
  PrismStatus* (*CreateCUDAProviderOptions)(PrismCUDAProviderOptions** out);
  PrismStatus* (*UpdateCUDAProviderOptions)(PrismCUDAProviderOptions* options,
                                            const char* const* keys, const char* const* values,
                                            size_t count);
  /* Every option, set or default, as "key=value;..." in key order. out [out, owned]
     ReleaseString. */
  PrismStatus* (*GetCUDAProviderOptionsAsString)(const PrismCUDAProviderOptions* options,
                                                 char** out);
  void (*ReleaseCUDAProviderOptions)(PrismCUDAProviderOptions* options);
  /* Appends "CUDAExecutionProvider" with these options (copied) to the priority list, as
     AppendExecutionProvider does. */
  PrismStatus* (*SessionOptionsAppendExecutionProvider_CUDA_V2)(
      PrismSessionOptions* options, const PrismCUDAProviderOptions* cuda_options);

  /* --- version 8: one-call reads for bindings --- */
  /* What reading a value takes, in one call (a binding pays for each foreign call: through
     Python's ctypes a run's tensor result took 13 of them, about 36 us): has_value is 0 for an
     empty optional, and nothing else is written then. Otherwise kind, and for a tensor its
     element type, rank, the first min(rank, dims_capacity) dims (call again with room for rank
     when it is larger), its size in bytes and data [out, borrowed] by value (0 and NULL for a
     string tensor, read with GetStringTensorElement; NULL also for an empty tensor) and the
     device type of its memory (GetTensorMemoryInfo names it). For a map or a sequence
     element_type is PRISM_TYPE_UNDEFINED, rank and size 0, data NULL and device_type
     PRISM_DEVICE_CPU. Every out pointer must be given (dims may be NULL when dims_capacity is
     0). */
  PrismStatus* (*DescribeValue)(const PrismValue* value, int* has_value, PrismValueKind* kind,
                                PrismElementType* element_type, size_t* rank, int64_t* dims,
                                size_t dims_capacity, size_t* size_in_bytes, const void** data,
                                PrismDeviceType* device_type);

  /* --- version 9: a run in one call for bindings --- */
  /* Run, with CPU tensors over caller memory as the feeds and every result described as
     DescribeValue does, in one call (each foreign call costs a binding microseconds: through
     Python's ctypes a run of a one-input, one-output model took four). inputs [in, borrowed]:
     input_count PrismTensorBuffer, their memory read during the call only; a result may alias a
     feed's memory (Identity), so keep the feeds alive and unchanged while reading the results.
     outputs: output_count slots, each NULL on entry (preallocated outputs go through Run),
     receiving [out, owned] ReleaseValue. descriptions: output_count entries. dims: the results'
     dims one after another (result i's at descriptions[i].dims_offset) while they fit in
     dims_capacity (may be NULL when 0). run_options may be NULL. A failure leaves outputs,
     descriptions and dims untouched. Safe to call from several threads on one session. */
  PrismStatus* (*RunWithBuffers)(PrismSession* session, const PrismRunOptions* run_options,
                                 const char* const* input_names, const PrismTensorBuffer* inputs,
                                 size_t input_count, const char* const* output_names,
                                 size_t output_count, PrismValue** outputs,
                                 PrismValueDescription* descriptions, int64_t* dims,
                                 size_t dims_capacity);
} PrismApi;

/* Frozen forever: two members, in this order. */
typedef struct PrismApiBase {
  /* The table for version (1..PRISM_API_VERSION), or NULL for an unsupported version. */
  const PrismApi* (*GetApi)(uint32_t version);
  /* "0.1.0": [out, borrowed] static. */
  const char* (*GetVersionString)(void);
} PrismApiBase;

/* The only symbol libprism.so exports. */
PRISM_EXPORT const PrismApiBase* PrismGetApiBase(void);

/* What a custom op library exports as RegisterCustomOps (version 6, RegisterCustomOpsLibrary):
   it fetches the table with api_base->GetApi(PRISM_API_VERSION) and adds its domains to
   options; NULL on success. */
typedef PrismStatus* (*PrismRegisterCustomOpsFunction)(PrismSessionOptions* options,
                                                       const PrismApiBase* api_base);

#ifdef __cplusplus
}
#endif

#endif /* PRISM_C_API_H_ */
