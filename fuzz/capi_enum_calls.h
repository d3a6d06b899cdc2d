/* The C ABI's functions with enum parameters, called from C with plain ints (capi_enum_calls.c). */
#ifndef PRISM_FUZZ_CAPI_ENUM_CALLS_H_
#define PRISM_FUZZ_CAPI_ENUM_CALLS_H_

#include "prism/prism_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

PrismStatus* CallCreateEnv(const PrismApi* api, int level, const char* log_id, PrismEnv** out);
PrismStatus* CallSetLogSeverityLevel(const PrismApi* api, PrismEnv* env, int level);
PrismStatus* CallSetGraphOptimizationLevel(const PrismApi* api, PrismSessionOptions* options,
                                           int level);
PrismStatus* CallSetExecutionMode(const PrismApi* api, PrismSessionOptions* options, int mode);
PrismStatus* CallSessionGetPartitionReport(const PrismApi* api, const PrismSession* session,
                                           int format, char** out);
PrismStatus* CallCreateCpuMemoryInfo(const PrismApi* api, int allocator_type, int mem_type,
                                     PrismMemoryInfo** out);
PrismStatus* CallCreateMemoryInfo(const PrismApi* api, const char* name, int allocator_type,
                                  int device_id, int mem_type, PrismMemoryInfo** out);
PrismStatus* CallCreateTensorWithDataAsValue(const PrismApi* api, const PrismMemoryInfo* info,
                                             void* data, size_t data_length, const int64_t* shape,
                                             size_t shape_length, int type, PrismValue** out);
PrismStatus* CallCreateTensorAsValue(const PrismApi* api, PrismAllocator* allocator,
                                     const int64_t* shape, size_t shape_length, int type,
                                     PrismValue** out);

/* A custom op whose enum answers (element types, characteristic) are plain ints, returned from C
   as a C library may return them: the core must range-check what the callbacks give.
   FuzzEnumOpInstall sets op.GetInputType, GetOutputType and GetInputCharacteristic. */
typedef struct FuzzEnumOp {
  PrismCustomOp op;
  int input_type;
  int output_type;
  int characteristic;
} FuzzEnumOp;
void FuzzEnumOpInstall(FuzzEnumOp* op);

#ifdef __cplusplus
}
#endif

#endif /* PRISM_FUZZ_CAPI_ENUM_CALLS_H_ */
