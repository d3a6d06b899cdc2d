// The version 1 function table and PrismGetApiBase, the only symbol libprism.so exports.
#include <cstdint>

#include "capi/api_functions.h"
#include "prism/prism_c_api.h"

namespace prism::capi {

namespace {

// Designated initializers must follow the declaration order, so the compiler checks the order;
// the static_asserts below check that no member was left out.
constexpr PrismApi kApiV1 = {
    .GetErrorCode = GetErrorCode,
    .GetErrorMessage = GetErrorMessage,
    .ReleaseStatus = ReleaseStatus,
    .ReleaseString = ReleaseString,
    .ReleaseStringArray = ReleaseStringArray,
    .CreateEnv = CreateEnv,
    .ReleaseEnv = ReleaseEnv,
    .SetLogSeverityLevel = SetLogSeverityLevel,
    .GetAvailableProviders = GetAvailableProviders,
    .CreateSessionOptions = CreateSessionOptions,
    .CloneSessionOptions = CloneSessionOptions,
    .ReleaseSessionOptions = ReleaseSessionOptions,
    .SetIntraOpNumThreads = SetIntraOpNumThreads,
    .SetInterOpNumThreads = SetInterOpNumThreads,
    .SetGraphOptimizationLevel = SetGraphOptimizationLevel,
    .SetExecutionMode = SetExecutionMode,
    .SetOptimizedModelFilePath = SetOptimizedModelFilePath,
    .EnableProfiling = EnableProfiling,
    .DisableProfiling = DisableProfiling,
    .SetSessionLogSeverityLevel = SetSessionLogSeverityLevel,
    .SetSessionLogId = SetSessionLogId,
    .EnableCpuMemArena = EnableCpuMemArena,
    .EnableMemPattern = EnableMemPattern,
    .AddSessionConfigEntry = AddSessionConfigEntry,
    .AppendExecutionProvider = AppendExecutionProvider,
    .CreateSession = CreateSession,
    .CreateSessionFromArray = CreateSessionFromArray,
    .ReleaseSession = ReleaseSession,
    .SessionGetInputCount = SessionGetInputCount,
    .SessionGetOutputCount = SessionGetOutputCount,
    .SessionGetOverridableInitializerCount = SessionGetOverridableInitializerCount,
    .SessionGetInputName = SessionGetInputName,
    .SessionGetOutputName = SessionGetOutputName,
    .SessionGetOverridableInitializerName = SessionGetOverridableInitializerName,
    .SessionGetInputTypeInfo = SessionGetInputTypeInfo,
    .SessionGetOutputTypeInfo = SessionGetOutputTypeInfo,
    .SessionGetOverridableInitializerTypeInfo = SessionGetOverridableInitializerTypeInfo,
    .SessionGetModelMetadata = SessionGetModelMetadata,
    .SessionGetProviders = SessionGetProviders,
    .SessionGetProviderOptions = SessionGetProviderOptions,
    .SessionSetProviders = SessionSetProviders,
    .SessionGetPartitionReport = SessionGetPartitionReport,
    .Run = Run,
    .CreateRunOptions = CreateRunOptions,
    .ReleaseRunOptions = ReleaseRunOptions,
    .RunOptionsSetRunLogSeverityLevel = RunOptionsSetRunLogSeverityLevel,
    .RunOptionsSetRunTag = RunOptionsSetRunTag,
    .RunOptionsSetTerminate = RunOptionsSetTerminate,
    .RunOptionsUnsetTerminate = RunOptionsUnsetTerminate,
    .CreateCpuMemoryInfo = CreateCpuMemoryInfo,
    .CreateMemoryInfo = CreateMemoryInfo,
    .ReleaseMemoryInfo = ReleaseMemoryInfo,
    .MemoryInfoGetName = MemoryInfoGetName,
    .MemoryInfoGetId = MemoryInfoGetId,
    .MemoryInfoGetMemType = MemoryInfoGetMemType,
    .MemoryInfoGetDeviceType = MemoryInfoGetDeviceType,
    .GetAllocatorWithDefaultOptions = GetAllocatorWithDefaultOptions,
    .CreateAllocator = CreateAllocator,
    .ReleaseAllocator = ReleaseAllocator,
    .AllocatorAlloc = AllocatorAlloc,
    .AllocatorFree = AllocatorFree,
    .AllocatorGetInfo = AllocatorGetInfo,
    .CreateTensorWithDataAsValue = CreateTensorWithDataAsValue,
    .CreateTensorAsValue = CreateTensorAsValue,
    .CreateSequenceValue = CreateSequenceValue,
    .CreateEmptyOptionalValue = CreateEmptyOptionalValue,
    .ReleaseValue = ReleaseValue,
    .GetValueKind = GetValueKind,
    .ValueHasValue = ValueHasValue,
    .GetTensorMutableData = GetTensorMutableData,
    .GetTensorSizeInBytes = GetTensorSizeInBytes,
    .GetTensorTypeAndShape = GetTensorTypeAndShape,
    .GetTensorMemoryInfo = GetTensorMemoryInfo,
    .FillStringTensor = FillStringTensor,
    .GetStringTensorElement = GetStringTensorElement,
    .GetSequenceLength = GetSequenceLength,
    .GetSequenceElement = GetSequenceElement,
    .ReleaseTypeInfo = ReleaseTypeInfo,
    .TypeInfoGetKind = TypeInfoGetKind,
    .TypeInfoGetTypeString = TypeInfoGetTypeString,
    .TypeInfoGetTensorInfo = TypeInfoGetTensorInfo,
    .ReleaseTensorTypeAndShapeInfo = ReleaseTensorTypeAndShapeInfo,
    .TensorInfoGetElementType = TensorInfoGetElementType,
    .TensorInfoGetRank = TensorInfoGetRank,
    .TensorInfoGetDimensions = TensorInfoGetDimensions,
    .TensorInfoGetSymbolicDimensions = TensorInfoGetSymbolicDimensions,
    .TensorInfoGetElementCount = TensorInfoGetElementCount,
    .ReleaseModelMetadata = ReleaseModelMetadata,
    .ModelMetadataGetProducerName = ModelMetadataGetProducerName,
    .ModelMetadataGetGraphName = ModelMetadataGetGraphName,
    .ModelMetadataGetDomain = ModelMetadataGetDomain,
    .ModelMetadataGetDescription = ModelMetadataGetDescription,
    .ModelMetadataGetGraphDescription = ModelMetadataGetGraphDescription,
    .ModelMetadataGetVersion = ModelMetadataGetVersion,
    .ModelMetadataGetCustomMetadataCount = ModelMetadataGetCustomMetadataCount,
    .ModelMetadataGetCustomMetadata = ModelMetadataGetCustomMetadata,
    .CreateIoBinding = CreateIoBinding,
    .ReleaseIoBinding = ReleaseIoBinding,
    .BindInput = BindInput,
    .BindOutput = BindOutput,
    .BindOutputToDevice = BindOutputToDevice,
    .ClearBoundInputs = ClearBoundInputs,
    .ClearBoundOutputs = ClearBoundOutputs,
    .RunWithBinding = RunWithBinding,
    .GetBoundOutputNames = GetBoundOutputNames,
    .GetBoundOutputValues = GetBoundOutputValues,
    .ReleaseValueArray = ReleaseValueArray,
    .SessionCopyValueToCpu = SessionCopyValueToCpu,
    .SessionEndProfiling = SessionEndProfiling,
    .SessionSetFallbackEnabled = SessionSetFallbackEnabled,
    .SessionGetFallbackEnabled = SessionGetFallbackEnabled,
    .SessionTakeFallbackNotice = SessionTakeFallbackNotice,
    .SetDisabledOptimizers = SetDisabledOptimizers,
    .AddRunConfigEntry = AddRunConfigEntry,
    .SessionGetAllocatorStats = SessionGetAllocatorStats,
    .CreateThreadingOptions = CreateThreadingOptions,
    .ReleaseThreadingOptions = ReleaseThreadingOptions,
    .SetGlobalIntraOpNumThreads = SetGlobalIntraOpNumThreads,
    .SetGlobalInterOpNumThreads = SetGlobalInterOpNumThreads,
    .CreateEnvWithGlobalThreadPools = CreateEnvWithGlobalThreadPools,
    .DisablePerSessionThreads = DisablePerSessionThreads,
    .CreatePrepackedWeightsContainer = CreatePrepackedWeightsContainer,
    .ReleasePrepackedWeightsContainer = ReleasePrepackedWeightsContainer,
    .CreateSessionWithPrepackedWeightsContainer = CreateSessionWithPrepackedWeightsContainer,
    .CreateSessionFromArrayWithPrepackedWeightsContainer =
        CreateSessionFromArrayWithPrepackedWeightsContainer,
    .SessionGetPrepackStats = SessionGetPrepackStats,
    .CreateMapValue = CreateMapValue,
    .GetMapKeys = GetMapKeys,
    .GetMapValues = GetMapValues,
    .TypeInfoGetMapTypes = TypeInfoGetMapTypes,
    .CreateEnvWithCustomLogger = CreateEnvWithCustomLogger,
    .SetLogVerbosityLevel = SetLogVerbosityLevel,
    .SetSessionLogVerbosityLevel = SetSessionLogVerbosityLevel,
    .RunOptionsSetRunLogVerbosityLevel = RunOptionsSetRunLogVerbosityLevel,
    .GetRunConfigEntry = GetRunConfigEntry,
    .RunOptionsSetOnlyExecutePathToFetches = RunOptionsSetOnlyExecutePathToFetches,
    .GetSessionConfigEntry = GetSessionConfigEntry,
    .EnableMemReuse = EnableMemReuse,
    .SetDeterministicCompute = SetDeterministicCompute,
    .SetRandomSeed = SetRandomSeed,
    .GetBuildInfoString = GetBuildInfoString,
    .SessionGetProfilingStartTimeNs = SessionGetProfilingStartTimeNs,
    .RunAsync = RunAsync,
    .CreateStatus = CreateStatus,
    .GetTensorData = GetTensorData,
    .CreateCustomOpDomain = CreateCustomOpDomain,
    .ReleaseCustomOpDomain = ReleaseCustomOpDomain,
    .CustomOpDomainAdd = CustomOpDomainAdd,
    .AddCustomOpDomain = AddCustomOpDomain,
    .RegisterCustomOpsLibrary = RegisterCustomOpsLibrary,
    .KernelInfoGetAttributeFloat = KernelInfoGetAttributeFloat,
    .KernelInfoGetAttributeInt64 = KernelInfoGetAttributeInt64,
    .KernelInfoGetAttributeString = KernelInfoGetAttributeString,
    .KernelInfoGetAttributeFloats = KernelInfoGetAttributeFloats,
    .KernelInfoGetAttributeInt64s = KernelInfoGetAttributeInt64s,
    .KernelInfoHasAttribute = KernelInfoHasAttribute,
    .KernelInfoGetInputCount = KernelInfoGetInputCount,
    .KernelInfoGetOutputCount = KernelInfoGetOutputCount,
    .KernelInfoGetInputTypeInfo = KernelInfoGetInputTypeInfo,
    .KernelInfoGetOutputTypeInfo = KernelInfoGetOutputTypeInfo,
    .KernelInfoGetNodeName = KernelInfoGetNodeName,
    .KernelContextGetInputCount = KernelContextGetInputCount,
    .KernelContextGetOutputCount = KernelContextGetOutputCount,
    .KernelContextGetInput = KernelContextGetInput,
    .KernelContextGetOutput = KernelContextGetOutput,
    .KernelContextGetIntraOpThreadCount = KernelContextGetIntraOpThreadCount,
    .KernelContextParallelFor = KernelContextParallelFor,
    .AddFreeDimensionOverride = AddFreeDimensionOverride,
    .AddFreeDimensionOverrideByName = AddFreeDimensionOverrideByName,
    .AddInitializer = AddInitializer,
    .AddExternalInitializers = AddExternalInitializers,
    .AddExternalInitializersFromFilesInMemory = AddExternalInitializersFromFilesInMemory,
    .CreateAndRegisterAllocator = CreateAndRegisterAllocator,
    .CreateAndRegisterAllocatorV2 = CreateAndRegisterAllocatorV2,
    .UnregisterAllocator = UnregisterAllocator,
    .GetSharedAllocator = GetSharedAllocator,
    .AllocatorGetStats = AllocatorGetStats,
    .CopyTensors = CopyTensors,
    .CreateCUDAProviderOptions = CreateCUDAProviderOptions,
    .UpdateCUDAProviderOptions = UpdateCUDAProviderOptions,
    .GetCUDAProviderOptionsAsString = GetCUDAProviderOptionsAsString,
    .ReleaseCUDAProviderOptions = ReleaseCUDAProviderOptions,
    .SessionOptionsAppendExecutionProvider_CUDA_V2 = SessionOptionsAppendExecutionProvider_CUDA_V2,
    // version 8
    .DescribeValue = DescribeValue,
    // version 9
    .RunWithBuffers = RunWithBuffers,
};

#if defined(PRISM_SANITIZED_BUILD) && !defined(__clang__)
// gcc's UBSan instrumentation makes a function's address unusable in a constant expression; the
// ordinary build checks the table (and capi_abi_table reads it at run time).
#define PRISM_ABI_OFFSET(member, offset)
#else
#define PRISM_ABI_OFFSET(member, offset) \
  static_assert(kApiV1.member != nullptr, "PrismApi::" #member " has no implementation");
#endif
#define PRISM_ABI_SIZE(version, bytes)
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

}  // namespace

const PrismApi* ApiTable() noexcept {
  return &kApiV1;
}

namespace {

const PrismApi* GetApi(uint32_t version) noexcept {
  // Every supported version is a prefix of the newest table, so one table serves them all.
  return version >= 1 && version <= PRISM_API_VERSION ? &kApiV1 : nullptr;
}

const char* GetVersionString() noexcept {
  return PRISM_VERSION_STRING;
}

constexpr PrismApiBase kApiBase = {GetApi, GetVersionString};

}  // namespace

}  // namespace prism::capi

extern "C" PRISM_EXPORT const PrismApiBase* PrismGetApiBase(void) {
  return &prism::capi::kApiBase;
}
