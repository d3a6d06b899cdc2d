// Every function of the PrismApi table, in table order. Each is implemented in the *_api.cc file
// of its group and never throws (see api_guard.h); they have hidden visibility and are reachable
// only through PrismGetApiBase().
#pragma once

#include "prism/prism_c_api.h"

namespace prism::capi {

PrismErrorCode GetErrorCode(const PrismStatus* status) noexcept;
const char* GetErrorMessage(const PrismStatus* status) noexcept;
void ReleaseStatus(PrismStatus* status) noexcept;
void ReleaseString(char* text) noexcept;
void ReleaseStringArray(char** texts, size_t count) noexcept;
PrismStatus* CreateEnv(PrismLoggingLevel logging_level, const char* log_id,
                       PrismEnv** out) noexcept;
void ReleaseEnv(PrismEnv* env) noexcept;
PrismStatus* SetLogSeverityLevel(PrismEnv* env, PrismLoggingLevel logging_level) noexcept;
PrismStatus* GetAvailableProviders(char*** names, size_t* count) noexcept;
PrismStatus* CreateSessionOptions(PrismSessionOptions** out) noexcept;
PrismStatus* CloneSessionOptions(const PrismSessionOptions* options,
                                 PrismSessionOptions** out) noexcept;
void ReleaseSessionOptions(PrismSessionOptions* options) noexcept;
PrismStatus* SetIntraOpNumThreads(PrismSessionOptions* options, int threads) noexcept;
PrismStatus* SetInterOpNumThreads(PrismSessionOptions* options, int threads) noexcept;
PrismStatus* SetGraphOptimizationLevel(PrismSessionOptions* options,
                                       PrismGraphOptimizationLevel level) noexcept;
PrismStatus* SetExecutionMode(PrismSessionOptions* options, PrismExecutionMode mode) noexcept;
PrismStatus* SetOptimizedModelFilePath(PrismSessionOptions* options, const char* path) noexcept;
PrismStatus* EnableProfiling(PrismSessionOptions* options, const char* prefix) noexcept;
PrismStatus* DisableProfiling(PrismSessionOptions* options) noexcept;
PrismStatus* SetSessionLogSeverityLevel(PrismSessionOptions* options, int level) noexcept;
PrismStatus* SetSessionLogId(PrismSessionOptions* options, const char* log_id) noexcept;
PrismStatus* EnableCpuMemArena(PrismSessionOptions* options, int enable) noexcept;
PrismStatus* EnableMemPattern(PrismSessionOptions* options, int enable) noexcept;
PrismStatus* AddSessionConfigEntry(PrismSessionOptions* options, const char* key,
                                   const char* value) noexcept;
PrismStatus* AppendExecutionProvider(PrismSessionOptions* options, const char* name,
                                     const char* const* option_keys,
                                     const char* const* option_values, size_t count) noexcept;
PrismStatus* CreateSession(const PrismEnv* env, const char* model_path,
                           const PrismSessionOptions* options, PrismSession** out) noexcept;
PrismStatus* CreateSessionFromArray(const PrismEnv* env, const void* model_data,
                                    size_t model_data_length, const PrismSessionOptions* options,
                                    PrismSession** out) noexcept;
void ReleaseSession(PrismSession* session) noexcept;
PrismStatus* SessionGetInputCount(const PrismSession* session, size_t* out) noexcept;
PrismStatus* SessionGetOutputCount(const PrismSession* session, size_t* out) noexcept;
PrismStatus* SessionGetOverridableInitializerCount(const PrismSession* session,
                                                   size_t* out) noexcept;
PrismStatus* SessionGetInputName(const PrismSession* session, size_t index,
                                 const char** out) noexcept;
PrismStatus* SessionGetOutputName(const PrismSession* session, size_t index,
                                  const char** out) noexcept;
PrismStatus* SessionGetOverridableInitializerName(const PrismSession* session, size_t index,
                                                  const char** out) noexcept;
PrismStatus* SessionGetInputTypeInfo(const PrismSession* session, size_t index,
                                     PrismTypeInfo** out) noexcept;
PrismStatus* SessionGetOutputTypeInfo(const PrismSession* session, size_t index,
                                      PrismTypeInfo** out) noexcept;
PrismStatus* SessionGetOverridableInitializerTypeInfo(const PrismSession* session, size_t index,
                                                      PrismTypeInfo** out) noexcept;
PrismStatus* SessionGetModelMetadata(const PrismSession* session,
                                     PrismModelMetadata** out) noexcept;
PrismStatus* SessionGetProviders(const PrismSession* session, char*** names,
                                 size_t* count) noexcept;
PrismStatus* SessionGetProviderOptions(const PrismSession* session, size_t provider_index,
                                       char*** keys, char*** values, size_t* count) noexcept;
PrismStatus* SessionSetProviders(PrismSession* session,
                                 const PrismSessionOptions* providers_from) noexcept;
PrismStatus* SessionGetPartitionReport(const PrismSession* session, PrismReportFormat format,
                                       char** out) noexcept;
PrismStatus* Run(PrismSession* session, const PrismRunOptions* run_options,
                 const char* const* input_names, const PrismValue* const* inputs,
                 size_t input_count, const char* const* output_names, size_t output_count,
                 PrismValue** outputs) noexcept;
PrismStatus* CreateRunOptions(PrismRunOptions** out) noexcept;
void ReleaseRunOptions(PrismRunOptions* options) noexcept;
PrismStatus* RunOptionsSetRunLogSeverityLevel(PrismRunOptions* options, int level) noexcept;
PrismStatus* RunOptionsSetRunTag(PrismRunOptions* options, const char* tag) noexcept;
PrismStatus* RunOptionsSetTerminate(PrismRunOptions* options) noexcept;
PrismStatus* RunOptionsUnsetTerminate(PrismRunOptions* options) noexcept;
PrismStatus* CreateCpuMemoryInfo(PrismAllocatorType allocator_type, PrismMemType mem_type,
                                 PrismMemoryInfo** out) noexcept;
PrismStatus* CreateMemoryInfo(const char* name, PrismAllocatorType allocator_type, int device_id,
                              PrismMemType mem_type, PrismMemoryInfo** out) noexcept;
void ReleaseMemoryInfo(PrismMemoryInfo* info) noexcept;
PrismStatus* MemoryInfoGetName(const PrismMemoryInfo* info, const char** out) noexcept;
PrismStatus* MemoryInfoGetId(const PrismMemoryInfo* info, int* out) noexcept;
PrismStatus* MemoryInfoGetMemType(const PrismMemoryInfo* info, PrismMemType* out) noexcept;
PrismStatus* MemoryInfoGetDeviceType(const PrismMemoryInfo* info, PrismDeviceType* out) noexcept;
PrismStatus* GetAllocatorWithDefaultOptions(PrismAllocator** out) noexcept;
PrismStatus* CreateAllocator(const PrismSession* session, const PrismMemoryInfo* info,
                             PrismAllocator** out) noexcept;
void ReleaseAllocator(PrismAllocator* allocator) noexcept;
PrismStatus* AllocatorAlloc(PrismAllocator* allocator, size_t size, void** out) noexcept;
PrismStatus* AllocatorFree(PrismAllocator* allocator, void* pointer) noexcept;
PrismStatus* AllocatorGetInfo(const PrismAllocator* allocator,
                              const PrismMemoryInfo** out) noexcept;
PrismStatus* CreateTensorWithDataAsValue(const PrismMemoryInfo* info, void* data,
                                         size_t data_length, const int64_t* shape,
                                         size_t shape_length, PrismElementType type,
                                         PrismValue** out) noexcept;
PrismStatus* CreateTensorAsValue(PrismAllocator* allocator, const int64_t* shape,
                                 size_t shape_length, PrismElementType type,
                                 PrismValue** out) noexcept;
PrismStatus* CreateSequenceValue(const PrismValue* const* elements, size_t count,
                                 PrismValue** out) noexcept;
PrismStatus* CreateEmptyOptionalValue(PrismValue** out) noexcept;
void ReleaseValue(PrismValue* value) noexcept;
PrismStatus* GetValueKind(const PrismValue* value, PrismValueKind* out) noexcept;
PrismStatus* ValueHasValue(const PrismValue* value, int* out) noexcept;
PrismStatus* GetTensorMutableData(PrismValue* value, void** out) noexcept;
PrismStatus* GetTensorSizeInBytes(const PrismValue* value, size_t* out) noexcept;
PrismStatus* GetTensorTypeAndShape(const PrismValue* value,
                                   PrismTensorTypeAndShapeInfo** out) noexcept;
PrismStatus* GetTensorMemoryInfo(const PrismValue* value, const PrismMemoryInfo** out) noexcept;
PrismStatus* DescribeValue(const PrismValue* value, int* has_value, PrismValueKind* kind,
                           PrismElementType* element_type, size_t* rank, int64_t* dims,
                           size_t dims_capacity, size_t* size_in_bytes, const void** data,
                           PrismDeviceType* device_type) noexcept;
PrismStatus* RunWithBuffers(PrismSession* session, const PrismRunOptions* run_options,
                            const char* const* input_names, const PrismTensorBuffer* inputs,
                            size_t input_count, const char* const* output_names,
                            size_t output_count, PrismValue** outputs,
                            PrismValueDescription* descriptions, int64_t* dims,
                            size_t dims_capacity) noexcept;
PrismStatus* FillStringTensor(PrismValue* value, const char* const* strings, const size_t* lengths,
                              size_t count) noexcept;
PrismStatus* GetStringTensorElement(const PrismValue* value, size_t index, const char** out,
                                    size_t* length) noexcept;
PrismStatus* GetSequenceLength(const PrismValue* value, size_t* out) noexcept;
PrismStatus* GetSequenceElement(const PrismValue* value, size_t index,
                                PrismValue** element) noexcept;
void ReleaseTypeInfo(PrismTypeInfo* info) noexcept;
PrismStatus* TypeInfoGetKind(const PrismTypeInfo* info, PrismValueKind* out) noexcept;
PrismStatus* TypeInfoGetTypeString(const PrismTypeInfo* info, const char** out) noexcept;
PrismStatus* TypeInfoGetTensorInfo(const PrismTypeInfo* info,
                                   const PrismTensorTypeAndShapeInfo** out) noexcept;
void ReleaseTensorTypeAndShapeInfo(PrismTensorTypeAndShapeInfo* info) noexcept;
PrismStatus* TensorInfoGetElementType(const PrismTensorTypeAndShapeInfo* info,
                                      PrismElementType* out) noexcept;
PrismStatus* TensorInfoGetRank(const PrismTensorTypeAndShapeInfo* info, int64_t* out) noexcept;
PrismStatus* TensorInfoGetDimensions(const PrismTensorTypeAndShapeInfo* info, int64_t* dims,
                                     size_t count) noexcept;
PrismStatus* TensorInfoGetSymbolicDimensions(const PrismTensorTypeAndShapeInfo* info,
                                             const char** names, size_t count) noexcept;
PrismStatus* TensorInfoGetElementCount(const PrismTensorTypeAndShapeInfo* info,
                                       int64_t* out) noexcept;
void ReleaseModelMetadata(PrismModelMetadata* metadata) noexcept;
PrismStatus* ModelMetadataGetProducerName(const PrismModelMetadata* m, const char** out) noexcept;
PrismStatus* ModelMetadataGetGraphName(const PrismModelMetadata* m, const char** out) noexcept;
PrismStatus* ModelMetadataGetDomain(const PrismModelMetadata* m, const char** out) noexcept;
PrismStatus* ModelMetadataGetDescription(const PrismModelMetadata* m, const char** out) noexcept;
PrismStatus* ModelMetadataGetGraphDescription(const PrismModelMetadata* m,
                                              const char** out) noexcept;
PrismStatus* ModelMetadataGetVersion(const PrismModelMetadata* m, int64_t* out) noexcept;
PrismStatus* ModelMetadataGetCustomMetadataCount(const PrismModelMetadata* m, size_t* out) noexcept;
PrismStatus* ModelMetadataGetCustomMetadata(const PrismModelMetadata* m, size_t index,
                                            const char** key, const char** value) noexcept;
PrismStatus* CreateIoBinding(PrismSession* session, PrismIoBinding** out) noexcept;
void ReleaseIoBinding(PrismIoBinding* binding) noexcept;
PrismStatus* BindInput(PrismIoBinding* binding, const char* name, const PrismValue* value) noexcept;
PrismStatus* BindOutput(PrismIoBinding* binding, const char* name,
                        const PrismValue* value) noexcept;
PrismStatus* BindOutputToDevice(PrismIoBinding* binding, const char* name,
                                const PrismMemoryInfo* info) noexcept;
PrismStatus* ClearBoundInputs(PrismIoBinding* binding) noexcept;
PrismStatus* ClearBoundOutputs(PrismIoBinding* binding) noexcept;
PrismStatus* RunWithBinding(PrismSession* session, const PrismRunOptions* run_options,
                            PrismIoBinding* binding) noexcept;
PrismStatus* GetBoundOutputNames(const PrismIoBinding* binding, char*** names,
                                 size_t* count) noexcept;
PrismStatus* GetBoundOutputValues(const PrismIoBinding* binding, PrismValue*** values,
                                  size_t* count) noexcept;
void ReleaseValueArray(PrismValue** values) noexcept;
PrismStatus* SessionCopyValueToCpu(const PrismSession* session, const PrismValue* value,
                                   PrismValue** out) noexcept;
PrismStatus* SessionEndProfiling(PrismSession* session, char** path) noexcept;
PrismStatus* SessionSetFallbackEnabled(PrismSession* session, int enabled) noexcept;
PrismStatus* SessionGetFallbackEnabled(const PrismSession* session, int* enabled) noexcept;
PrismStatus* SessionTakeFallbackNotice(const PrismSession* session, char** notice) noexcept;
PrismStatus* AddRunConfigEntry(PrismRunOptions* options, const char* key,
                               const char* value) noexcept;
PrismStatus* SessionGetAllocatorStats(const PrismSession* session, const char* memory_name,
                                      int device_id, char*** keys, char*** values,
                                      size_t* count) noexcept;
PrismStatus* CreateThreadingOptions(PrismThreadingOptions** out) noexcept;
void ReleaseThreadingOptions(PrismThreadingOptions* options) noexcept;
PrismStatus* SetGlobalIntraOpNumThreads(PrismThreadingOptions* options, int threads) noexcept;
PrismStatus* SetGlobalInterOpNumThreads(PrismThreadingOptions* options, int threads) noexcept;
PrismStatus* CreateEnvWithGlobalThreadPools(PrismLoggingLevel logging_level, const char* log_id,
                                            const PrismThreadingOptions* threading_options,
                                            PrismEnv** out) noexcept;
PrismStatus* DisablePerSessionThreads(PrismSessionOptions* options) noexcept;
PrismStatus* SetDisabledOptimizers(PrismSessionOptions* options, const char* const* names,
                                   size_t count) noexcept;
PrismStatus* CreatePrepackedWeightsContainer(PrismPrepackedWeightsContainer** out) noexcept;
void ReleasePrepackedWeightsContainer(PrismPrepackedWeightsContainer* container) noexcept;
PrismStatus* CreateSessionWithPrepackedWeightsContainer(const PrismEnv* env, const char* model_path,
                                                        const PrismSessionOptions* options,
                                                        PrismPrepackedWeightsContainer* container,
                                                        PrismSession** out) noexcept;
PrismStatus* CreateSessionFromArrayWithPrepackedWeightsContainer(
    const PrismEnv* env, const void* model_data, size_t model_data_length,
    const PrismSessionOptions* options, PrismPrepackedWeightsContainer* container,
    PrismSession** out) noexcept;
PrismStatus* SessionGetPrepackStats(const PrismSession* session, char*** keys, char*** values,
                                    size_t* count) noexcept;
PrismStatus* CreateMapValue(const PrismValue* keys, const PrismValue* values,
                            PrismValue** out) noexcept;
PrismStatus* GetMapKeys(const PrismValue* value, PrismValue** out) noexcept;
PrismStatus* GetMapValues(const PrismValue* value, PrismValue** out) noexcept;
PrismStatus* TypeInfoGetMapTypes(const PrismTypeInfo* info, PrismElementType* key_type,
                                 PrismElementType* value_type) noexcept;
PrismStatus* CreateEnvWithCustomLogger(PrismLoggingFunction logging_function, void* logger_param,
                                       PrismLoggingLevel logging_level, const char* log_id,
                                       PrismEnv** out) noexcept;
PrismStatus* SetLogVerbosityLevel(PrismEnv* env, int verbosity) noexcept;
PrismStatus* SetSessionLogVerbosityLevel(PrismSessionOptions* options, int verbosity) noexcept;
PrismStatus* RunOptionsSetRunLogVerbosityLevel(PrismRunOptions* options, int verbosity) noexcept;
PrismStatus* GetRunConfigEntry(const PrismRunOptions* options, const char* key,
                               const char** value) noexcept;
PrismStatus* RunOptionsSetOnlyExecutePathToFetches(PrismRunOptions* options, int enable) noexcept;
PrismStatus* GetSessionConfigEntry(const PrismSessionOptions* options, const char* key,
                                   const char** value) noexcept;
PrismStatus* EnableMemReuse(PrismSessionOptions* options, int enable) noexcept;
PrismStatus* SetDeterministicCompute(PrismSessionOptions* options, int enable) noexcept;
PrismStatus* SetRandomSeed(int64_t seed) noexcept;
const char* GetBuildInfoString() noexcept;
PrismStatus* SessionGetProfilingStartTimeNs(const PrismSession* session, uint64_t* out) noexcept;
PrismStatus* RunAsync(PrismSession* session, const PrismRunOptions* run_options,
                      const char* const* input_names, const PrismValue* const* inputs,
                      size_t input_count, const char* const* output_names, size_t output_count,
                      PrismValue** outputs, PrismRunAsyncCallback callback,
                      void* user_data) noexcept;
PrismStatus* CreateStatus(PrismErrorCode code, const char* message) noexcept;
PrismStatus* GetTensorData(const PrismValue* value, const void** out) noexcept;
PrismStatus* CreateCustomOpDomain(const char* domain, PrismCustomOpDomain** out) noexcept;
void ReleaseCustomOpDomain(PrismCustomOpDomain* domain) noexcept;
PrismStatus* CustomOpDomainAdd(PrismCustomOpDomain* domain, const PrismCustomOp* op) noexcept;
PrismStatus* AddCustomOpDomain(PrismSessionOptions* options, PrismCustomOpDomain* domain) noexcept;
PrismStatus* RegisterCustomOpsLibrary(PrismSessionOptions* options, const char* library_path,
                                      void** library_handle) noexcept;
PrismStatus* KernelInfoGetAttributeFloat(const PrismKernelInfo* info, const char* name,
                                         float* out) noexcept;
PrismStatus* KernelInfoGetAttributeInt64(const PrismKernelInfo* info, const char* name,
                                         int64_t* out) noexcept;
PrismStatus* KernelInfoGetAttributeString(const PrismKernelInfo* info, const char* name,
                                          const char** out, size_t* length) noexcept;
PrismStatus* KernelInfoGetAttributeFloats(const PrismKernelInfo* info, const char* name,
                                          const float** out, size_t* count) noexcept;
PrismStatus* KernelInfoGetAttributeInt64s(const PrismKernelInfo* info, const char* name,
                                          const int64_t** out, size_t* count) noexcept;
PrismStatus* KernelInfoHasAttribute(const PrismKernelInfo* info, const char* name,
                                    int* out) noexcept;
PrismStatus* KernelInfoGetInputCount(const PrismKernelInfo* info, size_t* out) noexcept;
PrismStatus* KernelInfoGetOutputCount(const PrismKernelInfo* info, size_t* out) noexcept;
PrismStatus* KernelInfoGetInputTypeInfo(const PrismKernelInfo* info, size_t index,
                                        PrismTypeInfo** out) noexcept;
PrismStatus* KernelInfoGetOutputTypeInfo(const PrismKernelInfo* info, size_t index,
                                         PrismTypeInfo** out) noexcept;
PrismStatus* KernelInfoGetNodeName(const PrismKernelInfo* info, const char** out) noexcept;
PrismStatus* KernelContextGetInputCount(const PrismKernelContext* context, size_t* out) noexcept;
PrismStatus* KernelContextGetOutputCount(const PrismKernelContext* context, size_t* out) noexcept;
PrismStatus* KernelContextGetInput(const PrismKernelContext* context, size_t index,
                                   const PrismValue** out) noexcept;
PrismStatus* KernelContextGetOutput(PrismKernelContext* context, size_t index,
                                    PrismElementType type, const int64_t* shape, size_t rank,
                                    PrismValue** out) noexcept;
PrismStatus* KernelContextGetIntraOpThreadCount(const PrismKernelContext* context,
                                                int* out) noexcept;
PrismStatus* KernelContextParallelFor(const PrismKernelContext* context,
                                      PrismParallelForFunction fn, void* user_data, size_t total,
                                      size_t batch_count) noexcept;
PrismStatus* AddFreeDimensionOverride(PrismSessionOptions* options, const char* dim_denotation,
                                      int64_t dim_value) noexcept;
PrismStatus* AddFreeDimensionOverrideByName(PrismSessionOptions* options, const char* dim_name,
                                            int64_t dim_value) noexcept;
PrismStatus* AddInitializer(PrismSessionOptions* options, const char* name,
                            const PrismValue* value) noexcept;
PrismStatus* AddExternalInitializers(PrismSessionOptions* options, const char* const* names,
                                     const PrismValue* const* values, size_t count) noexcept;
PrismStatus* AddExternalInitializersFromFilesInMemory(PrismSessionOptions* options,
                                                      const char* const* file_names,
                                                      const void* const* buffers,
                                                      const size_t* lengths, size_t count) noexcept;
PrismStatus* CreateAndRegisterAllocator(PrismEnv* env, const PrismMemoryInfo* info,
                                        const char* const* arena_keys,
                                        const char* const* arena_values,
                                        size_t arena_count) noexcept;
PrismStatus* CreateAndRegisterAllocatorV2(PrismEnv* env, const char* provider_type,
                                          const PrismMemoryInfo* info,
                                          const char* const* arena_keys,
                                          const char* const* arena_values, size_t arena_count,
                                          const char* const* provider_option_keys,
                                          const char* const* provider_option_values,
                                          size_t provider_option_count) noexcept;
PrismStatus* UnregisterAllocator(PrismEnv* env, const PrismMemoryInfo* info) noexcept;
PrismStatus* GetSharedAllocator(PrismEnv* env, const PrismMemoryInfo* info,
                                PrismAllocator** out) noexcept;
PrismStatus* AllocatorGetStats(const PrismAllocator* allocator, char*** keys, char*** values,
                               size_t* count) noexcept;
PrismStatus* CopyTensors(const PrismEnv* env, const PrismValue* const* sources,
                         PrismValue* const* destinations, size_t count) noexcept;
PrismStatus* CreateCUDAProviderOptions(PrismCUDAProviderOptions** out) noexcept;
PrismStatus* UpdateCUDAProviderOptions(PrismCUDAProviderOptions* options, const char* const* keys,
                                       const char* const* values, size_t count) noexcept;
PrismStatus* GetCUDAProviderOptionsAsString(const PrismCUDAProviderOptions* options,
                                            char** out) noexcept;
void ReleaseCUDAProviderOptions(PrismCUDAProviderOptions* options) noexcept;
PrismStatus* SessionOptionsAppendExecutionProvider_CUDA_V2(
    PrismSessionOptions* options, const PrismCUDAProviderOptions* cuda_options) noexcept;

// The newest function table (what custom ops' CreateKernel receives).
const PrismApi* ApiTable() noexcept;

}  // namespace prism::capi
