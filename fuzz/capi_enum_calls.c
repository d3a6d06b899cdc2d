/* C ABI calls with an int where the API has an enum parameter, made from C as a C caller makes
   them: in C an enum type is an integer type and any int converts to it, so a value outside the
   enumerators reaches the library as is (C++ code cannot pass such a value without undefined
   behaviour of its own). Used by capi_fuzzer.cc. */
#include "capi_enum_calls.h"

PrismStatus* CallCreateEnv(const PrismApi* api, int level, const char* log_id, PrismEnv** out) {
  return api->CreateEnv(level, log_id, out);
}

PrismStatus* CallSetLogSeverityLevel(const PrismApi* api, PrismEnv* env, int level) {
  return api->SetLogSeverityLevel(env, level);
}

PrismStatus* CallSetGraphOptimizationLevel(const PrismApi* api, PrismSessionOptions* options,
                                           int level) {
  return api->SetGraphOptimizationLevel(options, level);
}

PrismStatus* CallSetExecutionMode(const PrismApi* api, PrismSessionOptions* options, int mode) {
  return api->SetExecutionMode(options, mode);
}

PrismStatus* CallSessionGetPartitionReport(const PrismApi* api, const PrismSession* session,
                                           int format, char** out) {
  return api->SessionGetPartitionReport(session, format, out);
}

PrismStatus* CallCreateCpuMemoryInfo(const PrismApi* api, int allocator_type, int mem_type,
                                     PrismMemoryInfo** out) {
  return api->CreateCpuMemoryInfo(allocator_type, mem_type, out);
}

PrismStatus* CallCreateMemoryInfo(const PrismApi* api, const char* name, int allocator_type,
                                  int device_id, int mem_type, PrismMemoryInfo** out) {
  return api->CreateMemoryInfo(name, allocator_type, device_id, mem_type, out);
}

PrismStatus* CallCreateTensorWithDataAsValue(const PrismApi* api, const PrismMemoryInfo* info,
                                             void* data, size_t data_length, const int64_t* shape,
                                             size_t shape_length, int type, PrismValue** out) {
  return api->CreateTensorWithDataAsValue(info, data, data_length, shape, shape_length, type, out);
}

PrismStatus* CallCreateTensorAsValue(const PrismApi* api, PrismAllocator* allocator,
                                     const int64_t* shape, size_t shape_length, int type,
                                     PrismValue** out) {
  return api->CreateTensorAsValue(allocator, shape, shape_length, type, out);
}

static PrismElementType FuzzEnumOpInputType(const PrismCustomOp* op, size_t index) {
  (void)index;
  return (PrismElementType)((const FuzzEnumOp*)op)->input_type;
}

static PrismElementType FuzzEnumOpOutputType(const PrismCustomOp* op, size_t index) {
  (void)index;
  return (PrismElementType)((const FuzzEnumOp*)op)->output_type;
}

static PrismCustomOpInputOutputCharacteristic FuzzEnumOpCharacteristic(const PrismCustomOp* op,
                                                                       size_t index) {
  (void)index;
  return (PrismCustomOpInputOutputCharacteristic)((const FuzzEnumOp*)op)->characteristic;
}

void FuzzEnumOpInstall(FuzzEnumOp* op) {
  op->op.GetInputType = FuzzEnumOpInputType;
  op->op.GetOutputType = FuzzEnumOpOutputType;
  op->op.GetInputCharacteristic = FuzzEnumOpCharacteristic;
}
